//! pid, uprobe and USDT probes through uprobe.multi links (BPF_LINK_CREATE,
//! BPF_TRACE_UPROBE_MULTI; Linux 6.6), where the kernel has them: one link per place, with
//! the semaphore as its reference counter. A perf event uprobe is removed after RCU grace
//! periods taken one event at a time under a kernel mutex (about 0.1 s each on 6.18: all
//! of libc's functions took minutes); a link's grace periods are its own, and the links
//! detached from several threads at once (session.rs) wait for them together. aya 0.14 can
//! neither load a kprobe program with the attach type these links need nor create them,
//! so both are done with bpf(2), as kprobe_multi.rs does.

use super::kprobe_multi::{attr, load_kprobe_as, resolved, BPF_LINK_CREATE};
use super::Link;
use crate::session::RunError;
use crate::sys::bpf;
use aya::Ebpf;
use crumbs_ebpf::abi::ProgramCode;
use crumbs_ebpf::insn::Insn;
use crumbs_lang::ir::UserProbe;
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::OnceLock;

const BPF_TRACE_UPROBE_MULTI: u32 = 48;
const BPF_F_UPROBE_MULTI_RETURN: u32 = 1;

/// bpf_attr for BPF_LINK_CREATE of a uprobe.multi link.
#[repr(C)]
#[derive(Default)]
struct LinkCreate {
    prog_fd: u32,
    target_fd: u32,
    attach_type: u32,
    flags: u32,
    path: u64,
    offsets: u64,
    ref_ctr_offsets: u64,
    cookies: u64,
    cnt: u32,
    multi_flags: u32,
    pid: u32,
    /// Explicit, so that it is zero: the kernel refuses a bpf_attr with bytes set past the
    /// last field it knows (EINVAL), and implicit padding is whatever the stack held.
    pad: u32,
}

/// Whether this kernel has uprobe.multi links, found once: a trivial program linked to a
/// file that does not exist is refused for the file (ENOENT) where it has them.
pub(crate) fn supported() -> bool {
    if super::features::disabled(super::features::Feature::UprobeMulti) {
        return false;
    }
    static SUPPORTED: OnceLock<bool> = OnceLock::new();
    *SUPPORTED.get_or_init(|| {
        let exit = [Insn::mov_imm(crumbs_ebpf::insn::R0, 0), Insn::exit()];
        let Ok(prog) = load_kprobe_as("crumbs_probe", &exit, BPF_TRACE_UPROBE_MULTI) else { return false };
        let missing = UserProbe { provider: String::new(), module: String::new(), function: String::new(), name: String::new(), path: "/crumbs/no/such/file".into(), offset: 0, ret: false, pid: None, semaphore: 0, usdt_args: Vec::new() };
        matches!(link(&prog, &missing).map_err(|e| e.raw_os_error()), Err(Some(libc::ENOENT)))
    })
}

/// Loads a uprobe program for uprobe.multi links; on a refusal, the error and the log.
pub(crate) fn load(ebpf: &Ebpf, code: &ProgramCode) -> Result<Result<OwnedFd, (io::Error, String)>, RunError> {
    Ok(load_kprobe_as(&code.name, &resolved(ebpf, code)?, BPF_TRACE_UPROBE_MULTI))
}

fn link(prog: &OwnedFd, u: &UserProbe) -> io::Result<OwnedFd> {
    let path = CString::new(u.path.as_bytes()).map_err(io::Error::other)?;
    let (offsets, ref_ctrs) = ([u.offset], [u.semaphore]);
    let a = LinkCreate {
        prog_fd: prog.as_raw_fd() as u32,
        attach_type: BPF_TRACE_UPROBE_MULTI,
        path: path.as_ptr() as u64,
        offsets: offsets.as_ptr() as u64,
        ref_ctr_offsets: if u.semaphore != 0 { ref_ctrs.as_ptr() as u64 } else { 0 },
        cnt: 1,
        multi_flags: if u.ret { BPF_F_UPROBE_MULTI_RETURN } else { 0 },
        pid: u.pid.unwrap_or(0),
        ..Default::default()
    };
    // SAFETY: on success the kernel returns a new link descriptor this process owns; the
    // path and arrays outlive the call.
    bpf(BPF_LINK_CREATE, &mut attr(&a)).map(|fd| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Links a loaded program to its place; a place the kernel refuses is skipped and counted.
pub(crate) fn attach(prog: &OwnedFd, u: &UserProbe, tally: &mut super::uprobe::UserTally) -> Vec<Link> {
    tally.places += 1;
    match link(prog, u) {
        Ok(fd) => vec![Box::new(fd)],
        Err(e) => {
            tally.skipped.push((format!("{}:{}:{}:{}", u.provider, u.module, u.function, u.name), e.to_string()));
            Vec::new()
        }
    }
}
