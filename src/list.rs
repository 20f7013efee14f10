//! `crumbs -l`: probe listings in DTrace's layout, from the provider table.

use crumbs_lang::providers::{all_probes, expand_macros, match_probes_with, ProbeMacros, provider, AttachPoint, Probe, FBT_ID_BASE, PROFILE_ID_BASE, RAWTP_ID_BASE, TRACEPOINT_ID_BASE, USER_ID_BASE};
use std::collections::{HashMap, HashSet};
use crumbs_lang::types::AddrSpace;
use crumbs_lang::ast::ProbeDesc;
use crumbs_runtime::kernel::LiveKernel;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// DTrace's `-lv` section for one probe: the types of `args[0]`, ... where its provider knows
/// its prototype, else `None` (as for no one probe).
pub(crate) fn argument_types(out: &mut dyn Write, p: Option<&Probe>) {
    let _ = writeln!(out, "\n\tArgument Types");
    // Where the prototype names its arguments, `args->NAME` reads them too.
    let names = p.and_then(|p| provider(p.provider)?.arg_names(p, Some(&LiveKernel))).unwrap_or_default();
    match p.and_then(|p| provider(p.provider)?.arg_types(p, Some(&LiveKernel))) {
        Some(Ok(args)) if !args.is_empty() => {
            for (i, a) in args.iter().enumerate() {
                let user = if a.space == AddrSpace::User && a.c_type.contains('*') { " (user)" } else { "" };
                let name = names.get(i).filter(|n| !n.is_empty()).map(|n| format!(" (args->{n})")).unwrap_or_default();
                let _ = writeln!(out, "\t\targs[{i}]: {}{user}{name}", a.c_type);
            }
        }
        Some(Err(e)) => {
            let _ = writeln!(out, "\t\tunknown ({e})");
        }
        _ => {
            let _ = writeln!(out, "\t\tNone");
        }
    }
    let _ = writeln!(out);
}

/// The heading and a line per probe, each followed by what `detail` says of it.
pub(crate) fn write_listing(out: &mut dyn Write, probes: &[Probe], detail: &dyn Fn(&mut dyn Write, &Probe)) {
    let _ = writeln!(out, "{:>5} {:>10} {:>17} {:>33} NAME", "ID", "PROVIDER", "MODULE", "FUNCTION");
    // Profile probes are numbered per program; list them as a program naming them in this
    // order would number them.
    let mut next_profile = PROFILE_ID_BASE;
    let mut next_tracepoint = TRACEPOINT_ID_BASE;
    let mut next_user = USER_ID_BASE;
    let mut next_raw = RAWTP_ID_BASE;
    // fbt probes as a program's functions are numbered: by function, entry then return.
    let mut functions: HashMap<&str, u32> = HashMap::new();
    for p in probes {
        let id = match p.attach {
            AttachPoint::Tracepoint(_) => {
                next_tracepoint += 1;
                next_tracepoint - 1
            }
            AttachPoint::RawTracepoint(_) => {
                next_raw += 1;
                next_raw - 1
            }
            AttachPoint::FbtEntry(_) | AttachPoint::FbtReturn(_) => {
                let n = functions.len() as u32;
                let i = *functions.entry(p.function).or_insert(n);
                FBT_ID_BASE + 2 * i + matches!(p.attach, AttachPoint::FbtReturn(_)) as u32
            }
            // pid and uprobe probes as a program's places are numbered: in order.
            AttachPoint::UserEntry(_) | AttachPoint::UserReturn(_) => {
                next_user += 1;
                next_user - 1
            }
            _ if p.id == 0 => {
                next_profile += 1;
                next_profile - 1
            }
            _ => p.id,
        };
        let _ = writeln!(out, "{:>5} {:>10} {:>17} {:>33} {}", id, p.provider, p.module, p.function, p.name);
        detail(out, p);
    }
}

fn print(probes: &[Probe], verbose: bool) -> ExitCode {
    let mut out = std::io::BufWriter::new(std::io::stdout());
    write_listing(&mut out, probes, &|out, p| {
        if verbose {
            argument_types(out, Some(p));
        }
    });
    let _ = out.flush();
    ExitCode::SUCCESS
}

/// Every probe crumbs knows, and why the kernel's tracepoints or functions are missing if
/// they are.
pub(crate) fn every_probe() -> (Vec<Probe>, Option<String>) {
    let mut probes = all_probes();
    let mut missing: Vec<String> = Vec::new();
    // The kernel's tracepoints and functions, matched the same way a program's descriptions are.
    for fields in [&["tracepoint", "*", "*"][..], &["fbt", "", "", ""], &["rawtracepoint", "", "", ""]] {
        let every = ProbeDesc { text: fields.join(":"), fields: fields.iter().map(|f| f.to_string()).collect(), span: 0..0 };
        match match_probes_with(&every, Some(&LiveKernel)) {
            Ok(found) => probes.extend(found),
            Err(d) => missing.push(d.message),
        }
    }
    (probes, (!missing.is_empty()).then(|| missing.join("; ")))
}

/// Every probe crumbs knows.
pub fn all(verbose: bool) -> ExitCode {
    let (probes, missing) = every_probe();
    // The other probes need no root: list them, and say why the tracepoints are missing.
    if let Some(why) = missing {
        eprintln!("crumbs: {why}");
    }
    print(&probes, verbose)
}

/// The probes the program's clauses name, in order, each once; `target` is `$target`.
pub fn matching(name: &str, text: &str, verbose: bool, target: Option<i64>) -> ExitCode {
    let program = match crumbs_lang::parse::parse_program(text) {
        Ok(p) => p,
        Err(d) => {
            eprint!("{}", d.render(name, text, std::io::stderr().is_terminal()));
            return ExitCode::from(2);
        }
    };
    let mut probes: Vec<Probe> = Vec::new();
    // A set, not a scan of the list: `fbt:::` alone is some 100k probes.
    let mut seen: HashSet<(&str, &str, &str, &str)> = HashSet::new();
    for desc in program.clauses.iter().flat_map(|c| &c.probes) {
        let found = match expand_macros(desc, &ProbeMacros { target, ..ProbeMacros::default() }) {
            Ok(d) => match_probes_with(&d, Some(&LiveKernel)),
            Err(e) => Err(e),
        };
        match found {
            Ok(found) => {
                for p in found {
                    if seen.insert((p.provider, p.module, p.function, p.name)) {
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
    print(&probes, verbose)
}
