//! USDT probes with a semaphore: a uprobe perf event opened here, not through aya (0.14
//! cannot pass one), with the semaphore's file offset as the reference counter the kernel
//! raises in every process the probe is in while the event exists (`ref_ctr_offset`,
//! Linux 4.20) — a program that tests its semaphore (`PROBE_ENABLED()`) then fires it. The
//! loaded program is attached to the event with PERF_EVENT_IOC_SET_BPF; closing the event
//! detaches it and lowers the counters again.

use aya::programs::UProbe;
use crumbs_lang::ir::UserProbe;
use std::ffi::CString;
use std::io;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};

const UPROBE_TYPE: &str = "/sys/bus/event_source/devices/uprobe/type";
/// perf_event_attr's config bits [63:32] hold the reference counter's offset.
const REF_CTR_OFFSET_SHIFT: u32 = 32;
const PERF_EVENT_IOC_ENABLE: u64 = 0x2400;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;
const PERF_EVENT_IOC_SET_BPF: u64 = 0x4004_2408;

/// Opens the uprobe at `u` with its semaphore counted and attaches `p` to it.
pub(super) fn attach(p: &UProbe, u: &UserProbe) -> io::Result<OwnedFd> {
    let ty: u32 = std::fs::read_to_string(UPROBE_TYPE)?.trim().parse().map_err(|_| io::Error::other(format!("{UPROBE_TYPE} is not a number")))?;
    let path = CString::new(u.path.as_bytes()).map_err(io::Error::other)?;
    // perf_event_attr, as far as a uprobe needs it: type, size, config, config1 (the
    // path), config2 (the offset); the rest zero.
    let mut attr = [0u64; 16];
    attr[0] = ty as u64 | ((std::mem::size_of_val(&attr) as u64) << 32);
    attr[1] = u.semaphore << REF_CTR_OFFSET_SHIFT;
    attr[7] = path.as_ptr() as u64;
    attr[8] = u.offset;
    // As aya opens them: for one process on any CPU, or for every process (the program
    // runs wherever the uprobe fires, whatever the CPU of the event).
    let (pid, cpu) = match u.pid {
        Some(pid) => (pid as i32, -1),
        None => (-1, 0),
    };
    let event = perf_open(&attr, pid, cpu)?;
    let prog = p.fd().map_err(io::Error::other)?;
    run_on(&event, prog.as_fd().as_raw_fd())?;
    Ok(event)
}

/// perf_event_open(2) of `attr` (a perf_event_attr in 16 words, its size in the first).
pub(super) fn perf_open(attr: &[u64; 16], pid: i32, cpu: i32) -> io::Result<OwnedFd> {
    // SAFETY: perf_event_open with a valid attr that outlives the call (and what it points to).
    let fd = unsafe { libc::syscall(libc::SYS_perf_event_open, attr.as_ptr(), pid, cpu, -1, PERF_FLAG_FD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a new descriptor this process owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// Makes perf event `event` run program `prog_fd` and enables it; closing the event
/// detaches the program.
pub(super) fn run_on(event: &OwnedFd, prog_fd: i32) -> io::Result<()> {
    // SAFETY: ioctls on a perf event the caller owns, with a program descriptor.
    unsafe {
        if libc::ioctl(event.as_raw_fd(), PERF_EVENT_IOC_SET_BPF as _, prog_fd) < 0 || libc::ioctl(event.as_raw_fd(), PERF_EVENT_IOC_ENABLE as _, 0) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
