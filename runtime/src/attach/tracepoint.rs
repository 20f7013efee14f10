//! Tracepoint programs: `tracepoint:CATEGORY:EVENT`.

use super::Link;
use crate::session::RunError;
use aya::programs::TracePoint;
use crumbs_ebpf::abi::ProgramCode;
use crumbs_lang::ir::Program;
use crumbs_lang::providers::AttachPoint;

pub(super) fn attach(p: &mut TracePoint, program: &Program, code: &ProgramCode) -> Result<Vec<Link>, RunError> {
    let AttachPoint::Tracepoint(i) = code.attach else {
        return Err(RunError::Other(format!("program {} is a tracepoint program for {:?}", code.name, code.attach)));
    };
    let t = &program.tracepoints[i as usize];
    let id = p.attach(&t.category, &t.event).map_err(|e| RunError::Other(format!("cannot attach to tracepoint {}:{}: {e}", t.category, t.event)))?;
    Ok(vec![Box::new(p.take_link(id).map_err(|e| RunError::Other(e.to_string()))?)])
}
