//! BTF-typed raw tracepoint programs (tp_btf, aya's BtfTracePoint): `rawtracepoint:` probes,
//! each loaded against its tracepoint's `btf_trace_EVENT` type and attached with a link.

use super::{fentry::kernel_btf, Link};
use crate::session::RunError;
use aya::programs::{BtfTracePoint, ProgramError};
use crumbs_ebpf::abi::ProgramCode;
use crumbs_lang::ir::Program;
use crumbs_lang::providers::AttachPoint;

fn event<'p>(program: &'p Program, code: &ProgramCode) -> Result<&'p str, RunError> {
    match code.attach {
        AttachPoint::RawTracepoint(i) => Ok(&program.raw_tracepoints[i as usize].name),
        _ => Err(RunError::Other(format!("program {} is a tp_btf program for {:?}", code.name, code.attach))),
    }
}

pub(super) fn load(p: &mut BtfTracePoint, program: &Program, code: &ProgramCode) -> Result<Result<(), ProgramError>, RunError> {
    Ok(p.load(event(program, code)?, kernel_btf()?))
}

pub(super) fn attach(p: &mut BtfTracePoint, program: &Program, code: &ProgramCode) -> Result<Vec<Link>, RunError> {
    let name = event(program, code)?;
    let id = p.attach().map_err(|e| RunError::Other(format!("cannot attach to raw tracepoint {name}: {e}")))?;
    Ok(vec![Box::new(p.take_link(id).map_err(|e| RunError::Other(e.to_string()))?)])
}
