//! BTF-typed raw tracepoint programs (tp_btf): `rawtracepoint:` probes and the stable
//! providers' probes on them. crumbs loads each itself (bpf(2): a tracing program of
//! attach type BPF_TRACE_RAW_TP on the tracepoint's `btf_trace_EVENT` type, found with the
//! BTF the checker already read) and attaches it with BPF_RAW_TRACEPOINT_OPEN: aya's
//! BtfTracePoint would parse the kernel's 5 MB of BTF again (some 30 ms of start-up). A
//! program that passes a callback to a helper is loaded by aya, which links it.

use super::{fentry::kernel_btf, kprobe_multi, Link};
use crate::session::RunError;
use aya::programs::{BtfTracePoint, ProgramError};
use aya::Ebpf;
use crumbs_ebpf::abi::ProgramCode;
use crumbs_lang::ir::Program;
use crumbs_lang::providers::AttachPoint;
use std::io;
use std::os::fd::OwnedFd;

const BPF_TRACE_RAW_TP: u32 = 23;

fn event<'p>(program: &'p Program, code: &ProgramCode) -> Result<&'p str, RunError> {
    match code.attach {
        AttachPoint::RawTracepoint(i) => Ok(&program.raw_tracepoints[i as usize].name),
        _ => Err(RunError::Other(format!("program {} is a tp_btf program for {:?}", code.name, code.attach))),
    }
}

/// Whether crumbs loads the program itself (it passes no callback to a helper).
pub(super) fn own(code: &ProgramCode) -> bool {
    matches!(code.attach, AttachPoint::RawTracepoint(_)) && code.func_refs.is_empty()
}

/// Loads a program [`own`] says crumbs loads.
pub(super) fn load_own(ebpf: &Ebpf, program: &Program, code: &ProgramCode) -> Result<Result<OwnedFd, (io::Error, String)>, RunError> {
    let name = event(program, code)?;
    let id = crate::kernel::btf::raw_tracepoint_hook(name)
        .map_err(RunError::Other)?
        .ok_or_else(|| RunError::Other(format!("the kernel's BTF has no btf_trace_{name} for raw tracepoint {name}")))?;
    Ok(kprobe_multi::load_tracing_as(&code.name, &kprobe_multi::resolved(ebpf, code)?, BPF_TRACE_RAW_TP, id, None))
}

/// Attaches a program crumbs loaded.
pub(super) fn attach_own(prog: &OwnedFd, program: &Program, code: &ProgramCode) -> Result<Vec<Link>, RunError> {
    let name = event(program, code)?;
    let link = kprobe_multi::raw_tracepoint_open(prog).map_err(|e| RunError::Other(format!("cannot attach to raw tracepoint {name}: {e}")))?;
    Ok(vec![Box::new(link)])
}

pub(super) fn load(p: &mut BtfTracePoint, program: &Program, code: &ProgramCode) -> Result<Result<(), ProgramError>, RunError> {
    Ok(p.load(event(program, code)?, kernel_btf()?))
}

pub(super) fn attach(p: &mut BtfTracePoint, program: &Program, code: &ProgramCode) -> Result<Vec<Link>, RunError> {
    let name = event(program, code)?;
    let id = p.attach().map_err(|e| RunError::Other(format!("cannot attach to raw tracepoint {name}: {e}")))?;
    Ok(vec![Box::new(p.take_link(id).map_err(|e| RunError::Other(e.to_string()))?)])
}
