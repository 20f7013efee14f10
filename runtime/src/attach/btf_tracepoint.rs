//! BTF-typed raw tracepoint programs (tp_btf, aya's BtfTracePoint): `rawtracepoint:` probes,
//! each loaded against its tracepoint's `btf_trace_EVENT` type and attached with a link.

use super::Link;
use crate::session::RunError;
use aya::programs::{BtfTracePoint, ProgramError};
use aya::{Btf, Endianness};
use crumbs_ebpf::abi::ProgramCode;
use crumbs_lang::ir::Program;
use crumbs_lang::providers::AttachPoint;
use std::sync::OnceLock;

/// The kernel's BTF as aya reads it, parsed once (aya needs all of it to find the type id;
/// read, not mapped: kernels before 6.16 cannot mmap it).
fn kernel_btf() -> Result<&'static Btf, RunError> {
    static BTF: OnceLock<Result<Btf, String>> = OnceLock::new();
    BTF.get_or_init(|| {
        let path = "/sys/kernel/btf/vmlinux";
        let data = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        Btf::parse(&data, Endianness::default()).map_err(|e| format!("cannot parse {path}: {e}"))
    })
    .as_ref()
    .map_err(|e| RunError::Other(format!("raw tracepoint programs need the kernel's BTF: {e}")))
}

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
