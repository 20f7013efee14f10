//! crumbs' D library (`stdlib/*.d`): types, inlines and translators written in D, added to a
//! program that names what they define (so programs that do not pay for parsing them); a
//! library's clauses (a stable probe's bookkeeping) go after the program's own.

use crate::ast::{self, Decl, Program};
use crate::diag::Diagnostic;
use crate::facts::KernelFacts;
use crate::dialect::Dialect;
use std::rc::Rc;

/// One library file: its path (for messages), its text, and the words in a program that
/// make it read.
pub struct Library {
    pub path: &'static str,
    pub text: &'static str,
    pub triggers: &'static [&'static str],
    /// The one dialect it is read in (`None`: both).
    pub dialect: Option<Dialect>,
}

pub const LIBRARIES: &[Library] = &[
    // The stable providers' translated arguments are psinfo_t, lwpsinfo_t (proc, sched)
    // and io's types; their probes are named with an empty or vmlinux module (not
    // `tracepoint:sched:...`).
    Library { path: "stdlib/procfs.d", text: include_str!("../../stdlib/procfs.d"), triggers: &["psinfo", "proc:::", "sched:::", "proc:vmlinux:", "sched:vmlinux:"], dialect: None },
    Library { path: "stdlib/io.d", text: include_str!("../../stdlib/io.d"), triggers: &["io:::", "io:vmlinux:", "bufinfo", "devinfo", "fileinfo"], dialect: None },
    Library { path: "stdlib/regs.d", text: include_str!("../../stdlib/regs.d"), triggers: &["uregs"], dialect: None },
    Library { path: "stdlib/io-wait.d", text: include_str!("../../stdlib/io-wait.d"), triggers: &["wait-done"], dialect: None },
    Library { path: "stdlib/bpftrace.d", text: include_str!("../../stdlib/bpftrace.d"), triggers: &["pcomm", "leader_comm", "leader_tid"], dialect: Some(Dialect::Bpftrace) },
    Library { path: "stdlib/sched.d", text: include_str!("../../stdlib/sched.d"), triggers: &["vtimestamp", "curcpu", "cpuinfo", "sched:::", "sched:vmlinux:"], dialect: None },
];

/// Puts the declarations of every library `source` names before the program's own.
pub fn add_used(program: &mut Program, source: &str, dialect: Dialect, facts: Option<Rc<dyn KernelFacts>>) -> Result<(), Diagnostic> {
    for lib in LIBRARIES.iter().rev() {
        if !lib.triggers.iter().any(|t| source.contains(t)) || lib.dialect.is_some_and(|d| d != dialect) {
            continue;
        }
        let parsed = crate::parse::parse_library(lib.text, facts.clone())
            .map_err(|d| Diagnostic::new(0..0, format!("internal: {} does not parse: {}", lib.path, d.message)))?;
        let mut decls: Vec<Decl> = parsed.decls;
        for d in &mut decls {
            if let Decl::Translator { library, .. } = d {
                *library = true;
            }
        }
        decls.append(&mut program.decls);
        program.decls = decls;
        program.clauses.extend(parsed.clauses.into_iter().map(|c| ast::Clause { library: true, ..c }));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_library_parses() {
        for lib in super::LIBRARIES {
            crate::parse::parse_library(lib.text, None).unwrap_or_else(|d| panic!("{}: {}", lib.path, d.message));
        }
    }
}
