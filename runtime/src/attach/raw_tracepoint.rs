//! Raw tracepoint programs: the system call providers on `sys_enter`/`sys_exit`, and BEGIN,
//! END and bpftrace's `self:signal:SIGUSR1`, which are never attached but run by the session.

use super::Link;
use crate::session::RunError;
use aya::programs::RawTracePoint;
use crumbs_ebpf::abi::ProgramCode;
use crumbs_lang::providers::AttachPoint;

pub(super) fn attach(p: &mut RawTracePoint, code: &ProgramCode) -> Result<Vec<Link>, RunError> {
    let tp = match code.attach {
        AttachPoint::SyscallEntry => "sys_enter",
        AttachPoint::SyscallReturn => "sys_exit",
        _ => return Ok(Vec::new()),
    };
    let id = p.attach(tp).map_err(|e| RunError::Other(format!("cannot attach to raw tracepoint {tp}: {e}")))?;
    let link = p.take_link(id).map_err(|e| RunError::Other(e.to_string()))?;
    Ok(vec![Box::new(link)])
}
