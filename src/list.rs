//! `crumbs -l`: probe listings in DTrace's layout, from the provider table.

use crumbs_lang::providers::{all_probes, match_probes, Probe};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

fn print(probes: &[Probe]) -> ExitCode {
    let mut out = std::io::BufWriter::new(std::io::stdout());
    let _ = writeln!(out, "{:>5} {:>10} {:>17} {:>33} NAME", "ID", "PROVIDER", "MODULE", "FUNCTION");
    for p in probes {
        let _ = writeln!(out, "{:>5} {:>10} {:>17} {:>33} {}", p.id, p.provider, p.module, p.function, p.name);
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}

/// Every probe crumbs knows.
pub fn all() -> ExitCode {
    print(&all_probes())
}

/// The probes the program's clauses name, in order, each once.
pub fn matching(name: &str, text: &str) -> ExitCode {
    let program = match crumbs_lang::parse::parse_program(text) {
        Ok(p) => p,
        Err(d) => {
            eprint!("{}", d.render(name, text, std::io::stderr().is_terminal()));
            return ExitCode::from(2);
        }
    };
    let mut probes: Vec<Probe> = Vec::new();
    for desc in program.clauses.iter().flat_map(|c| &c.probes) {
        match match_probes(desc) {
            Ok(found) => {
                for p in found {
                    if !probes.iter().any(|q| q.id == p.id) {
                        probes.push(p);
                    }
                }
            }
            Err(d) => {
                eprint!("{}", d.render(name, text, std::io::stderr().is_terminal()));
                return ExitCode::from(2);
            }
        }
    }
    print(&probes)
}
