//! Loading and attaching, one file per aya program type: each loads its programs and
//! attaches them where their attach point says. Attaching hands back owned links: dropping
//! one detaches it.

use crate::session::RunError;
use aya::programs::{Program as AyaProgram, ProgramError};
use aya::Ebpf;
use crumbs_ebpf::abi::ProgramCode;
use crumbs_lang::ir::Program;

mod perf_event;
mod raw_tracepoint;
mod tracepoint;

/// An attached probe; dropping it detaches it.
pub type Link = Box<dyn Send>;

fn missing(code: &ProgramCode) -> RunError {
    RunError::Other(format!("program {} missing from the ELF", code.name))
}

/// Loads one program of the ELF into the kernel (through the verifier).
pub(crate) fn load(ebpf: &mut Ebpf, code: &ProgramCode) -> Result<Result<(), ProgramError>, RunError> {
    Ok(match ebpf.program_mut(&code.name) {
        Some(AyaProgram::RawTracePoint(p)) => p.load(),
        Some(AyaProgram::PerfEvent(p)) => p.load(),
        Some(AyaProgram::TracePoint(p)) => p.load(),
        _ => return Err(missing(code)),
    })
}

/// Attaches one loaded program; BEGIN and END are never attached (they have no links).
pub(crate) fn attach(ebpf: &mut Ebpf, program: &Program, code: &ProgramCode) -> Result<Vec<Link>, RunError> {
    match ebpf.program_mut(&code.name) {
        Some(AyaProgram::RawTracePoint(p)) => raw_tracepoint::attach(p, code),
        Some(AyaProgram::PerfEvent(p)) => perf_event::attach(p, code),
        Some(AyaProgram::TracePoint(p)) => tracepoint::attach(p, program, code),
        _ => Err(missing(code)),
    }
}
