//! bpftrace's `iter:TARGET`: a BPF iterator program, loaded against the kernel's
//! `bpf_iter_TARGET` (BPF_TRACE_ITER), linked (BPF_LINK_CREATE), and run by reading an
//! iterator made from the link (BPF_ITER_CREATE): each read(2) runs the program once per
//! kernel object, in crumbs' own thread, until the objects are done. The program writes its
//! records to the ring buffer as any other; the iterator's own text (bpf_seq_printf) it does
//! not use, so reading returns nothing.
//!
//! A pinned one (`iter:task:PIN`, current bpftrace's) is not read: its link is pinned in the
//! BPF file system once BEGIN has run, and whoever reads the pin later runs the program,
//! which then writes its printf()s into the iterator's text itself.

use super::{kprobe_multi, Link, Tally};
use crate::session::RunError;
use crate::sys::bpf;
use aya::Ebpf;
use crumbs_ebpf::abi::ProgramCode;
use crumbs_lang::providers::iter::ITERATORS;
use crumbs_lang::providers::AttachPoint;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const BPF_TRACE_ITER: u32 = 28;
const BPF_ITER_CREATE: i32 = 33;
const BPF_OBJ_PIN: i32 = 6;

/// An iterator made: one to read now, or a link to pin at a path.
#[derive(Debug)]
pub(crate) enum Made {
    Read(OwnedFd),
    Pin(OwnedFd, &'static str),
}

fn target(code: &ProgramCode) -> &'static str {
    match code.attach {
        AttachPoint::Iter(i, _) => ITERATORS[i as usize],
        _ => unreachable!("an iterator program for {:?}", code.attach),
    }
}

pub(super) fn load(ebpf: &Ebpf, code: &ProgramCode) -> Result<Result<OwnedFd, (io::Error, String)>, RunError> {
    let target = target(code);
    let id = crate::kernel::btf::func_id(&format!("bpf_iter_{target}")).ok_or_else(|| RunError::Other(format!("this kernel has no {target} iterator (no bpf_iter_{target} in its BTF)")))?;
    Ok(kprobe_multi::load_tracing_as(&code.name, &kprobe_multi::resolved(ebpf, code)?, BPF_TRACE_ITER, id, None))
}

/// Links the iterator program and makes the iterator that runs it, kept in `tally` for the
/// session to read once BEGIN has run.
pub(super) fn attach(prog: &OwnedFd, code: &ProgramCode, tally: &mut Tally) -> Result<Vec<Link>, RunError> {
    let cannot = |what: &str, e: io::Error| RunError::Other(format!("cannot {what} the {} iterator: {e}", target(code)));
    let mut attr = [0u64; 16];
    // bpf_attr.link_create: prog_fd, target_fd (0), attach_type; no iter_info.
    attr[0] = prog.as_raw_fd() as u64;
    attr[1] = BPF_TRACE_ITER as u64;
    let link = bpf(kprobe_multi::BPF_LINK_CREATE, &mut attr).map_err(|e| cannot("link", e))?;
    // SAFETY: on success the kernel returns a new descriptor this process owns.
    let link = unsafe { OwnedFd::from_raw_fd(link as RawFd) };
    if let AttachPoint::Iter(_, Some(path)) = code.attach {
        tally.iters.push(Made::Pin(link.try_clone().map_err(|e| cannot("keep", e))?, path));
        return Ok(vec![Box::new(link)]);
    }
    let mut attr = [0u64; 16];
    // bpf_attr.iter_create: link_fd, flags.
    attr[0] = link.as_raw_fd() as u64;
    let iter = bpf(BPF_ITER_CREATE, &mut attr).map_err(|e| cannot("create", e))?;
    // SAFETY: as above.
    tally.iters.push(Made::Read(unsafe { OwnedFd::from_raw_fd(iter as RawFd) }));
    Ok(vec![Box::new(link)])
}

/// Pins iterator link `link` at `path` (BPF_OBJ_PIN): it stays when crumbs exits, until the
/// file is removed.
pub(crate) fn pin(link: &OwnedFd, path: &str) -> io::Result<()> {
    let path = std::ffi::CString::new(path).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let mut attr = [0u64; 16];
    // bpf_attr.obj_pin: pathname, bpf_fd, file_flags (0).
    attr[0] = path.as_ptr() as u64;
    attr[1] = link.as_raw_fd() as u32 as u64;
    bpf(BPF_OBJ_PIN, &mut attr).map(|_| ())
}

/// Runs an iterator to its end: its program once per object.
pub(crate) fn run(iter: OwnedFd) -> io::Result<()> {
    let mut file = std::fs::File::from(iter);
    let mut buf = [0u8; 4096];
    while file.read(&mut buf)? > 0 {}
    Ok(())
}
