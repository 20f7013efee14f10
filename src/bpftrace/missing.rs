//! bpftrace's `missing_probes` config variable (`config = { missing_probes = "warn" }` or
//! `BPFTRACE_MISSING_PROBES`): under `warn` or `ignore` a probe description that matches
//! nothing on this machine (a kernel function the kernel lacks, a tracepoint it does not
//! have, a function a file does not define) is taken out of the program before it is
//! compiled, with bpftrace's warning or silently, and so is a clause left with none; under
//! `error`, bpftrace's default, the compiler reports it. Descriptions that are wrong
//! otherwise are left for the compiler too. The taking out is [`crate::unmatched`]'s, shared
//! with dtrace's `-Z`.

use crate::unmatched;
use crumbs_lang::ast::{ProbeDesc, Span};
use crumbs_lang::config::{Config, MissingProbes};
use crumbs_lang::dialect::Dialect;
use crumbs_lang::facts::KernelFacts;
use std::rc::Rc;

/// A bpftrace program's text with the descriptions that match nothing taken out.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Prepared {
    pub text: String,
    /// bpftrace's warnings (under `warn`): where, and what.
    pub warnings: Vec<(Span, String)>,
    /// Whether every clause was taken out.
    pub nothing_left: bool,
    /// Where the config block sets `missing_probes` (not when the environment does).
    pub setting: Option<Span>,
}

/// What bpftrace calls a probe type, from a description's first field (the parser has
/// written short names long already, providers::spelling): kfunc/kretfunc are its fentry
/// and fexit.
fn probe_type(field: &str) -> &str {
    match field {
        "kfunc" => "fentry",
        "kretfunc" => "fexit",
        other => other,
    }
}

/// bpftrace's warning for a description that matches nothing:
/// `No matches for kprobe nosuch_function. Skipping.`
fn no_matches(desc: &ProbeDesc) -> String {
    match desc.fields.split_first() {
        Some((kind, rest)) if !rest.is_empty() => format!("No matches for {} {}. Skipping.", probe_type(kind), rest.join(":")),
        _ => format!("No matches for {}. Skipping.", desc.text),
    }
}

/// bpftrace's warning for a clause none of whose descriptions is left.
const PROBE_REMOVED: &str = "Probe has no valid attach points. It is being removed which may cause issues with program behavior.";

/// `text` (a bpftrace program) with what matches nothing taken out as its config block (over
/// which `env` wins) says; unchanged under `error`, or when the program does not parse (the
/// compiler then says why). `target` is the `-c`/`-p` process, `args` the positional
/// parameters (`$0` first).
pub(crate) fn take_out(text: &str, env: &Config, target: Option<i64>, args: &[String], facts: Rc<dyn KernelFacts>) -> Prepared {
    let unchanged = Prepared { text: text.to_string(), warnings: Vec::new(), nothing_left: false, setting: None };
    // Only a program that names the setting (or an environment that sets it) can have
    // anything taken out: the others are not parsed an extra time at start-up.
    if env.missing_probes.is_none_or(|m| m == MissingProbes::Error) && !text.to_ascii_lowercase().contains("missing_probes") {
        return unchanged;
    }
    let Ok(ast) = crumbs_lang::parse::parse_program_in(text, Some(facts.clone()), Dialect::Bpftrace) else { return unchanged };
    let Ok(block) = crumbs_lang::config::from_block(&ast.config) else { return unchanged };
    let mode = block.under(env).missing_probes.unwrap_or(MissingProbes::Error);
    if mode == MissingProbes::Error {
        return unchanged;
    }
    let macros = crumbs_lang::providers::ProbeMacros { target, args, bpftrace: true };
    let found = unmatched::match_clauses(&ast, |d| unmatched::find(d, &macros, facts.as_ref(), |_| false));
    let removal = unmatched::removal(&ast, &found);
    let setting = ast.config.iter().rfind(|e| crumbs_lang::config::names(&e.name.name, "missing_probes")).map(|e| e.span.clone());
    let mut out = Prepared { text: text.to_string(), warnings: Vec::new(), nothing_left: removal.clauses_left == 0, setting };
    for range in &removal.ranges {
        unmatched::blank(&mut out.text, range.clone());
    }
    if mode == MissingProbes::Warn {
        for &(c, i) in &removal.descriptions {
            let desc = &ast.clauses[c].probes[i];
            out.warnings.push((desc.span.clone(), no_matches(desc)));
            let last_of_clause = removal.clauses.contains(&c) && i + 1 == ast.clauses[c].probes.len();
            if last_of_clause {
                let probes = &ast.clauses[c].probes;
                out.warnings.push((probes[0].span.start..probes[i].span.end, PROBE_REMOVED.to_string()));
            }
        }
    }
    out
}

/// A warning as bpftrace prints one: `stdin:1:1-37: WARNING: MESSAGE`, then the line and
/// `~` under the span (a span over several lines: `stdin:1-3: WARNING: MESSAGE` alone).
pub(crate) fn render_warning(name: &str, text: &str, span: &Span, message: &str) -> String {
    let line_of = |at: usize| text[..at.min(text.len())].matches('\n').count() + 1;
    let (first, last) = (line_of(span.start), line_of(span.end.saturating_sub(1).max(span.start)));
    if first != last {
        return format!("{name}:{first}-{last}: WARNING: {message}\n");
    }
    let line_start = text[..span.start].rfind('\n').map_or(0, |n| n + 1);
    let line_end = text[span.start..].find('\n').map_or(text.len(), |n| span.start + n);
    let col = text[line_start..span.start].chars().count() + 1;
    let width = text[span.clone()].chars().count();
    format!("{name}:{first}:{col}-{}: WARNING: {message}\n{}\n{}{}\n", col + width, &text[line_start..line_end], " ".repeat(col - 1), "~".repeat(width.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::facts::sample::SampleKernel;

    fn prepared(text: &str, env: Option<MissingProbes>) -> Prepared {
        take_out(text, &Config { missing_probes: env, ..Default::default() }, Some(42), &[], Rc::new(SampleKernel))
    }

    #[test]
    fn warn_takes_out_and_says_what() {
        let text = "config = { missing_probes = \"warn\" }\nkprobe:nosuch_function, kprobe:vfs_read { @ = count(); }\nkprobe:nosuch_function { }\n";
        let p = prepared(text, None);
        assert_eq!(p.text, format!("config = {{ missing_probes = \"warn\" }}\n{}kprobe:vfs_read {{ @ = count(); }}\n{}\n", " ".repeat(24), " ".repeat(26)));
        let said: Vec<&str> = p.warnings.iter().map(|(_, m)| m.as_str()).collect();
        assert_eq!(said, ["No matches for kprobe nosuch_function. Skipping.", "No matches for kprobe nosuch_function. Skipping.", PROBE_REMOVED]);
        assert!(!p.nothing_left);
        assert_eq!(p.setting, Some(11..34));
        let (span, message) = &p.warnings[0];
        assert_eq!(render_warning("stdin", text, span, message), "stdin:2:1-23: WARNING: No matches for kprobe nosuch_function. Skipping.\nkprobe:nosuch_function, kprobe:vfs_read { @ = count(); }\n~~~~~~~~~~~~~~~~~~~~~~\n");
    }

    #[test]
    fn the_environment_wins_and_ignore_is_silent() {
        let text = "config = { missing_probes = \"warn\" }\ntracepoint:syscalls:sys_enter_nosuch { }";
        let p = prepared(text, Some(MissingProbes::Ignore));
        assert!(p.warnings.is_empty() && p.nothing_left);
        assert_eq!(prepared(text, Some(MissingProbes::Error)).text, text);
        // The default is error: the text is the compiler's to report.
        assert_eq!(prepared("uprobe:/usr/bin/sample:nosuch { }", None).text, "uprobe:/usr/bin/sample:nosuch { }");
    }

    #[test]
    fn wrong_descriptions_stay() {
        let text = "config = { missing_probes = ignore }\nuprobe:/no/such/file:f, uprobe:/usr/bin/sample:nosuch, uprobe:/usr/bin/sample:work { }";
        let p = prepared(text, None);
        assert!(p.text.contains("uprobe:/no/such/file:f,") && !p.text.contains("nosuch") && p.text.contains("uprobe:/usr/bin/sample:work"), "{}", p.text);
    }

    #[test]
    fn warnings_over_several_lines_name_them() {
        assert_eq!(render_warning("x.bt", "a,\nb {}", &(0..4), "M"), "x.bt:1-2: WARNING: M\n");
    }
}
