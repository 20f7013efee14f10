//! `bpftrace -l [PATTERN]`: the probes crumbs can attach, named as bpftrace names them
//! (`tracepoint:CATEGORY:EVENT`, `kprobe:FUNCTION`, `kfunc:FUNCTION`, `rawtracepoint:EVENT`,
//! `uprobe:PATH:FUNCTION`, `usdt:PATH:PROVIDER:NAME`), sorted, one a line, as bpftrace 0.17
//! prints them. The probes come from crumbs' own providers (the listing of `crumbs -l`);
//! this only renames and filters them. `-lv` follows each tracepoint with its fields, as the
//! kernel's format file declares them, and each kfunc with its parameters and return value
//! from its BTF prototype.

use crumbs_lang::ast::ProbeDesc;
use crumbs_lang::facts::KernelFacts;
use crumbs_lang::providers::{match_probes_with, Probe};
use crumbs_runtime::kernel::LiveKernel;
use std::collections::BTreeSet;
use std::io::Write;

/// Lists the probes `pattern` matches (every one without a pattern) into `out`; the error
/// is the message for `ERROR: ...`.
pub fn list(pattern: Option<&str>, verbose: bool, out: &mut dyn Write) -> Result<(), String> {
    // `t:syscalls:*`: bpftrace's short provider names list the long names' probes.
    let pattern = pattern.filter(|p| !p.is_empty()).map(crumbs_lang::providers::spelling::with_long_name);
    let pattern = pattern.as_deref();
    let names = match pattern.and_then(|p| p.split_once(':')) {
        Some((kind @ ("uprobe" | "uretprobe"), rest)) => user_probes(kind, rest)?,
        Some(("usdt", rest)) => user_probes("usdt", rest)?,
        _ => {
            if let Some(p) = pattern.filter(|p| !p.contains([':', '*'])) {
                return Err(format!("'{p}' is not a probe pattern: write TYPE:... with '*' wildcards, e.g. 'kprobe:{p}*' or '*{p}*'"));
            }
            kernel_probes().into_iter().filter(|n| pattern.is_none_or(|p| wildcard(p, n))).collect()
        }
    };
    for name in &names {
        let _ = writeln!(out, "{name}");
        if verbose {
            if let Some((category, event)) = name.strip_prefix("tracepoint:").and_then(|r| r.split_once(':')) {
                for field in tracepoint_fields(category, event) {
                    let _ = writeln!(out, "    {field}");
                }
            }
            if let Some(function) = name.strip_prefix("kfunc:") {
                for param in kfunc_params(function) {
                    let _ = writeln!(out, "    {param}");
                }
            }
        }
    }
    let _ = out.flush();
    Ok(())
}

/// The kernel's probes crumbs lists (`crumbs -l`), in bpftrace's names: tracepoints, kernel
/// functions as kprobes and (those of vmlinux) kfuncs (bpftrace lists kretprobes and
/// kretfuncs under no names of their own), raw tracepoints. Why some could not be listed goes to standard error as bpftrace's warning.
fn kernel_probes() -> BTreeSet<String> {
    let (probes, missing) = crate::list::every_probe();
    if let Some(why) = missing {
        eprintln!("WARNING: {why}");
    }
    probes.iter().flat_map(bpftrace_names).collect()
}

fn bpftrace_names(p: &Probe) -> Vec<String> {
    match p.provider {
        // ftrace's own events (tracefs' events/ftrace) are not tracepoints a program can
        // attach to; bpftrace lists only available_events, which leaves them out.
        "tracepoint" if p.module == "ftrace" => Vec::new(),
        "tracepoint" => vec![format!("tracepoint:{}:{}", p.module, p.name)],
        "fbt" if p.name == "entry" && p.module == crumbs_lang::providers::FBT_MODULE => vec![format!("kprobe:{}", p.function), format!("kfunc:{}", p.function)],
        "fbt" if p.name == "entry" => vec![format!("kprobe:{}", p.function)],
        "rawtracepoint" => vec![format!("rawtracepoint:{}", p.name)],
        _ => Vec::new(),
    }
}

/// A kernel function's parameters as `-lv` lists a kfunc's, `struct file * file`, then its
/// return value, `ssize_t retval` (none for a void function), from its BTF prototype.
fn kfunc_params(function: &str) -> Vec<String> {
    let probes = |name: &str| {
        let fields: Vec<String> = ["fbt", "vmlinux", function, name].iter().map(|f| f.to_string()).collect();
        match_probes_with(&ProbeDesc { text: fields.join(":"), fields, span: 0..0 }, Some(&LiveKernel)).unwrap_or_default()
    };
    let fbt = crumbs_lang::providers::provider("fbt").expect("fbt is a provider");
    let mut out = Vec::new();
    if let Some(entry) = probes("entry").first() {
        let types = fbt.arg_types(entry, Some(&LiveKernel)).and_then(Result::ok).unwrap_or_default();
        let names = fbt.arg_names(entry, Some(&LiveKernel)).unwrap_or_default();
        out.extend(types.iter().zip(&names).map(|(t, n)| typed(&t.c_type, n)));
    }
    if let Some(ret) = probes("return").first() {
        // DTrace's args: the return's offset, then its value.
        if let Some(t) = fbt.arg_types(ret, Some(&LiveKernel)).and_then(Result::ok).and_then(|t| t.get(1).cloned()) {
            out.push(typed(&t.c_type, "retval"));
        }
    }
    out
}

/// `TYPE NAME` as bpftrace writes a declaration: `struct file * file`, `size_t count`.
fn typed(c_type: &str, name: &str) -> String {
    format!("{} {name}", c_type.trim_end())
}

/// `uprobe:PATH[:FUNCTION]`, `uretprobe:PATH[:FUNCTION]` (listed under that name, as
/// bpftrace lists it) or `usdt:PATH[:PROVIDER[:NAME]]` (`rest` after the type):
/// the file's probes, matched by crumbs' uprobe and usdt providers.
fn user_probes(kind: &str, rest: &str) -> Result<BTreeSet<String>, String> {
    let mut fields: Vec<String> = std::iter::once(kind.to_string()).chain(rest.split(':').map(String::from)).collect();
    let wanted = if kind == "usdt" { 4 } else { 3 };
    if fields.len() > wanted {
        return Err(format!("{kind} probe type takes at most {} arguments", wanted - 1));
    }
    fields.resize(wanted, "*".to_string());
    for f in fields.iter_mut().filter(|f| f.is_empty()) {
        *f = "*".to_string();
    }
    let path = fields[1].clone();
    let desc = ProbeDesc { text: fields.join(":"), fields, span: 0..0 };
    let found = match match_probes_with(&desc, Some(&LiveKernel)) {
        Ok(found) => found,
        // A file with no such function or probe lists nothing, as bpftrace does.
        Err(d) if ["does not match", "no function", "has no USDT probes"].iter().any(|m| d.message.contains(m)) => Vec::new(),
        Err(d) => return Err(d.message),
    };
    Ok(found
        .iter()
        .map(|p| match kind {
            "uprobe" | "uretprobe" => format!("{kind}:{path}:{}", p.function),
            _ => format!("usdt:{path}:{}:{}", p.user.as_ref().map_or(p.provider, |u| u.provider.as_str()), p.name),
        })
        .collect())
}

/// A tracepoint's fields as its format file declares them (`const char * filename`,
/// `__data_loc char[] name`), without the `common_` header fields.
fn tracepoint_fields(category: &str, event: &str) -> Vec<String> {
    let Ok(format) = LiveKernel.tracepoint_format(category, event) else { return Vec::new() };
    let declared: Vec<String> = format
        .lines()
        .filter_map(|l| l.trim().strip_prefix("field:")?.split(';').next().map(|d| d.trim().to_string()))
        .collect();
    // Which declarations are real fields is crumbs' format parser's call.
    let fields = crumbs_lang::tracepoints::parse_format(&format);
    declared.into_iter().filter(|d| fields.iter().any(|f| declares(d, &f.name))).collect()
}

/// Whether declaration `decl` (`char prev_comm[16]`) declares field `name`.
fn declares(decl: &str, name: &str) -> bool {
    let decl = decl.trim_end();
    // `char comm[16]` declares `comm`; `__data_loc char[] name` declares `name`.
    let end = if decl.ends_with(']') { decl[..decl.rfind('[').unwrap_or(decl.len())].trim_end() } else { decl };
    end.strip_suffix(name).is_some_and(|before| before.ends_with([' ', '*', '\t']))
}

/// bpftrace's wildcard match: `*` stands for any run of characters (`:` included); every
/// other character is itself.
pub fn wildcard(pattern: &str, s: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = s.strip_prefix(first) else { return false };
    let mut parts: Vec<&str> = parts.collect();
    let Some(last) = parts.pop() else { return rest.is_empty() };
    for part in parts {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_cross_colons_and_anchor_both_ends() {
        assert!(wildcard("tracepoint:sched*", "tracepoint:sched:sched_switch"));
        assert!(wildcard("*sleep*", "tracepoint:syscalls:sys_enter_nanosleep"));
        assert!(wildcard("t*:sched:sched_switch", "tracepoint:sched:sched_switch"));
        assert!(wildcard("tracepoint:sched:sched_switch", "tracepoint:sched:sched_switch"));
        assert!(!wildcard("tracepoint:sched:sched_switch", "tracepoint:sched:sched_switch2"));
        assert!(!wildcard("*ab*ba", "xaba"));
        assert!(wildcard("*ab*ba", "xabba"));
        assert!(!wildcard("tracepoint:sched:[s]ched_switch", "tracepoint:sched:sched_switch"));
    }

    #[test]
    fn declarations_name_their_fields() {
        assert!(declares("char prev_comm[16]", "prev_comm"));
        assert!(declares("const char * filename", "filename"));
        assert!(declares("__data_loc char[] name", "name"));
        assert!(declares("__data_loc char[] scontext", "scontext"));
        assert!(!declares("int common_pid", "pid"));
    }

    #[test]
    fn kernel_probes_get_bpftraces_names() {
        let p = |provider, module, function, name| Probe { id: 0, provider, module, function, name, attach: crumbs_lang::providers::AttachPoint::Begin, nr: None, user: None };
        assert_eq!(bpftrace_names(&p("tracepoint", "sched", "", "sched_switch")), ["tracepoint:sched:sched_switch"]);
        assert_eq!(bpftrace_names(&p("fbt", "vmlinux", "vfs_read", "entry")), ["kprobe:vfs_read", "kfunc:vfs_read"]);
        assert!(bpftrace_names(&p("fbt", "vmlinux", "vfs_read", "return")).is_empty());
        assert!(bpftrace_names(&p("syscall", "", "read", "entry")).is_empty());
        assert!(bpftrace_names(&p("tracepoint", "ftrace", "", "function")).is_empty());
    }
}
