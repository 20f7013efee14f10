//! The live lane's worker side: load a compiled program into the kernel (maps and every
//! program, through the verifier; nothing attached) and classify what happened.

use crate::protocol::Reply;
use crumbs_ebpf::abi::Compiled;
use crumbs_lang::{ast, ir};
use crumbs_runtime::session::RunError;

/// Ring buffers above this are shrunk before loading: their size does not change what the
/// verifier sees, and a thousand loads of a 1 GiB buffer would only strain the machine.
const MAX_LIVE_BUFSIZE: u64 = 16 << 20;

pub fn load(text: &str, ast: &ast::Program, program: &mut ir::Program, compiled: &mut Compiled) -> Reply {
    if program.options.bufsize.is_some_and(|b| b > MAX_LIVE_BUFSIZE) {
        program.options.bufsize = Some(MAX_LIVE_BUFSIZE);
        match crumbs_ebpf::compile(program, &crate::pipeline::target()) {
            Ok(c) => *compiled = c,
            Err(e) => return Reply::LoadFailed { message: format!("recompiling with a smaller bufsize failed: {}", e.message) },
        }
    }
    match crumbs_runtime::verify::load_only(program, compiled) {
        Ok(()) => Reply::Loaded,
        Err(RunError::Verifier { attach, clauses, message, log_tail }) if !log_tail.trim().is_empty() => {
            let clauses = clauses.iter().filter_map(|&i| ast.clauses.get(i)).map(|c| text.get(c.span.clone()).unwrap_or("?")).collect::<Vec<_>>().join("\n");
            Reply::Verifier { clauses, message: format!("{attach:?}: {message}"), log: log_tail }
        }
        Err(RunError::Verifier { attach, message, .. }) => Reply::LoadFailed { message: format!("{attach:?}: {message} (no verifier log)") },
        Err(RunError::Permission(m)) | Err(RunError::Other(m)) => Reply::LoadFailed { message: m },
    }
}
