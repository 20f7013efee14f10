//! Loading without running: every program of a compiled script goes through the kernel's
//! verifier and is then unloaded, with nothing attached. The fuzzer's live lane uses it to
//! tell code-generation bugs (a program crumbs compiled that the verifier rejects) apart.

use crate::session::{self, RunError};
use crumbs_ebpf::abi::Compiled;
use crumbs_lang::ir::Program;

/// Loads the maps and every program, then drops them all. A rejection is
/// [`RunError::Verifier`] with the clauses of the rejected program and the log's last lines.
pub fn load_only(program: &Program, compiled: &Compiled) -> Result<(), RunError> {
    session::load(program, compiled, true).map(drop)
}
