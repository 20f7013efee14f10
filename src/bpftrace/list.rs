//! `bpftrace -l [PATTERN]`: the probes crumbs can attach, named as bpftrace names them
//! (`tracepoint:CATEGORY:EVENT`, `kprobe:FUNCTION`, `kfunc:MODULE:FUNCTION` and current
//! bpftrace's `fentry:MODULE:FUNCTION`, `rawtracepoint:EVENT`, `uprobe:PATH:FUNCTION`,
//! `usdt:PATH:PROVIDER:NAME`), sorted, one a line, as bpftrace prints them; and `-l -e
//! PROGRAM`, the probes a program would attach. The probes come from crumbs' own providers
//! (the listing of `crumbs -l`); this only renames and filters them. `-lv` follows each
//! tracepoint with its fields, as the kernel's format file declares them, each kernel
//! function with its parameters and return value and each raw tracepoint with its arguments,
//! from their BTF prototypes.

use crumbs_lang::ast::ProbeDesc;
use crumbs_lang::facts::KernelFacts;
use crumbs_lang::providers::{match_probes_with, Probe};
use crumbs_runtime::kernel::LiveKernel;
use std::collections::BTreeSet;
use std::io::Write;

/// Lists the probes `pattern` matches (every one without a pattern) into `out`; the error
/// is the message for `ERROR: ...`. Patterns separated by commas are listed one after the
/// other (`kprobe:tcp*,tracepoint:sched:*`), and `struct NAME` (`union`, `enum`) lists
/// kernel types (`-lv`: their definitions, [`super::types`]).
pub fn list(pattern: Option<&str>, verbose: bool, out: &mut dyn Write) -> Result<(), String> {
    let patterns: Vec<Option<&str>> = match pattern.filter(|p| !p.trim().is_empty()) {
        None => vec![None],
        Some(p) if super::types::is_type_pattern(p) => return super::types::list(p.trim(), verbose, out),
        Some(p) => p.split(',').map(|p| Some(p.trim())).filter(|p| p.is_some_and(|p| !p.is_empty())).collect(),
    };
    for pattern in patterns {
        list_pattern(pattern, verbose, out)?;
    }
    let _ = out.flush();
    Ok(())
}

fn list_pattern(pattern: Option<&str>, verbose: bool, out: &mut dyn Write) -> Result<(), String> {
    // `t:syscalls:*`: bpftrace's short provider names list the long names' probes.
    let pattern = pattern.map(crumbs_lang::providers::spelling::with_long_name);
    let pattern = pattern.as_deref();
    let kind = pattern.and_then(|p| p.split_once(':')).map(|(k, _)| k).filter(|k| !k.contains('*'));
    let names = match pattern.and_then(|p| p.split_once(':')) {
        Some((kind @ ("uprobe" | "uretprobe"), rest)) => user_probes(kind, rest)?,
        Some(("usdt", rest)) => user_probes("usdt", rest)?,
        _ => {
            if let Some(p) = pattern.filter(|p| !p.contains([':', '*'])) {
                return Err(format!("'{p}' is not a probe pattern: write TYPE:... with '*' wildcards, e.g. 'kprobe:{p}*' or '*{p}*'"));
            }
            // `kfunc:vfs_read` and `fentry:vfs_*` name the function in any module, as
            // bpftrace reads them: the listed names have the module (`kfunc:vmlinux:vfs_read`).
            let pattern = match (kind, pattern) {
                (Some(k), Some(p)) if names_module(k) && p.matches(':').count() == 1 => Some(format!("{k}:*:{}", &p[k.len() + 1..])),
                (_, p) => p.map(str::to_string),
            };
            let mut names = kernel_probes(kind);
            // `self:*` lists current bpftrace's one self probe (no wildcard type lists it).
            if kind == Some("self") {
                names.insert("self:signal:SIGUSR1".to_string());
            }
            // The iterators this kernel has, as bpftrace lists them among every type's.
            if kind.is_none_or(|k| k == "iter") {
                names.extend(iterators().into_iter().map(|t| format!("iter:{t}")));
            }
            names.into_iter().filter(|n| pattern.as_deref().is_none_or(|p| wildcard(p, n))).collect()
        }
    };
    for name in &names {
        let _ = writeln!(out, "{name}");
        if verbose {
            for detail in details(name) {
                let _ = writeln!(out, "    {detail}");
            }
        }
    }
    Ok(())
}

/// `-l -e PROGRAM` and `-l FILE`: the probes program `text` (named `name` in diagnostics)
/// would attach, each description's in order, named as bpftrace names its type's probes
/// (`tracepoint:xdp:mem_connect`, `kprobe:vfs_read`, `fentry:vmlinux:vfs_read`); BEGIN and END
/// are not listed, and a probe without matches of its own (`interval:s:1`, `profile:hz:99`) is
/// its description. `params` are `$1`, `$2`, ... for the descriptions.
pub fn list_program(text: &str, params: &[String], verbose: bool, out: &mut dyn Write) -> Result<(), Box<crumbs_lang::diag::Diagnostic>> {
    let facts: std::rc::Rc<dyn KernelFacts> = std::rc::Rc::new(LiveKernel);
    let ast = crumbs_lang::parse::parse_program_in(text, Some(facts.clone()), crumbs_lang::dialect::Dialect::Bpftrace).map_err(Box::new)?;
    let args: Vec<String> = std::iter::once(String::new()).chain(params.iter().cloned()).collect();
    let macros = crumbs_lang::providers::ProbeMacros { target: None, args: &args, bpftrace: true };
    for desc in ast.clauses.iter().flat_map(|c| &c.probes) {
        let desc = crumbs_lang::providers::expand_macros(desc, &macros).map_err(Box::new)?;
        let found = match_probes_with(&desc, Some(facts.as_ref())).map_err(Box::new)?;
        let mut names: Vec<String> = Vec::new();
        for name in found.iter().filter_map(|p| probe_name(&desc, p)) {
            // A probe named by its description is one line, however many CPUs its perf
            // events open.
            if !names.contains(&name) || name != desc.fields.join(":") {
                names.push(name);
            }
        }
        for name in &names {
            let _ = writeln!(out, "{name}");
            if verbose {
                for detail in details(name) {
                    let _ = writeln!(out, "    {detail}");
                }
            }
        }
    }
    let _ = out.flush();
    Ok(())
}

/// Probe `p`, matched by description `desc`, named as bpftrace names probes of the
/// description's type (`kprobe:vfs_read`, `fentry:vmlinux:vfs_read`, `uprobe:/bin/bash:readline`);
/// a probe of a type with no names to expand (`interval:s:1`) is its description. None for
/// BEGIN, END, ERROR and `self:signal:SIGUSR1`.
pub(super) fn probe_name(desc: &ProbeDesc, p: &Probe) -> Option<String> {
    let kind = desc.fields.first().map(String::as_str).unwrap_or("");
    let user = p.user.as_deref();
    Some(match (kind, p.provider) {
        // Special probes: listed by no program, filtered by no --probe-filter.
        (_, "dtrace" | "self") => return None,
        ("tracepoint", _) => format!("tracepoint:{}:{}", p.module, p.name),
        // A probe inside the function is named by its offset (hex, as pid's are).
        ("kprobe", _) if !matches!(p.name, "entry" | "return") => format!("kprobe:{}+{}", p.function, u64::from_str_radix(p.name, 16).unwrap_or(0)),
        ("kprobe" | "kretprobe", _) => format!("{kind}:{}", p.function),
        (k, _) if names_module(k) => format!("{k}:{}:{}", p.module, p.function),
        ("rawtracepoint", _) => format!("rawtracepoint:{}", p.name),
        ("iter", _) => format!("iter:{}", p.name),
        ("uprobe" | "uretprobe", _) => format!("{kind}:{}:{}", user.map_or(p.module, |u| u.path.as_str()), user.map_or(p.function, |u| u.function.as_str())),
        ("usdt", _) => format!("usdt:{}:{}:{}", user.map_or(p.module, |u| u.path.as_str()), user.map_or(p.provider, |u| u.provider.as_str()), p.name),
        _ => desc.fields.join(":"),
    })
}

/// What `-lv` lists under probe `name`: a tracepoint's fields, a kernel function's parameters
/// (and, but for current bpftrace's `fentry`, its return value), a raw tracepoint's arguments.
pub(super) fn details(name: &str) -> Vec<String> {
    let Some((kind, rest)) = name.split_once(':') else { return Vec::new() };
    match kind {
        "tracepoint" => rest.split_once(':').map(|(category, event)| tracepoint_fields(category, event)).unwrap_or_default(),
        "kfunc" | "kretfunc" | "fentry" | "fexit" => {
            let (module, function) = rest.split_once(':').unwrap_or((crumbs_lang::providers::FBT_MODULE, rest));
            kfunc_params(module, function, kind != "fentry")
        }
        "rawtracepoint" => rawtracepoint_args(rest),
        "iter" => provider_args("iter", &["iter", rest]),
        _ => Vec::new(),
    }
}

/// Whether bpftrace names probe type `kind`'s probes with the function's module: its kfunc
/// (0.17) and fentry (current bpftrace) spellings, `kfunc:vmlinux:vfs_read`.
fn names_module(kind: &str) -> bool {
    matches!(kind, "kfunc" | "kretfunc" | "fentry" | "fexit")
}

/// The kernel's probes crumbs lists (`crumbs -l`), in bpftrace's names: tracepoints, kernel
/// functions as kprobes and kfuncs, raw tracepoints. `kind`, a pattern's probe type, names
/// them in its own spelling (`kretprobe:vfs_read`, current bpftrace's `fentry:vmlinux:vfs_read`);
/// without one, as bpftrace 0.17 lists every type (kprobes and kfuncs: no kretprobes and
/// kretfuncs). Why some could not be listed goes to standard error as bpftrace's warning.
fn kernel_probes(kind: Option<&str>) -> BTreeSet<String> {
    let (probes, missing) = crate::list::every_probe();
    if let Some(why) = missing {
        eprintln!("WARNING: {why}");
    }
    probes.iter().flat_map(|p| bpftrace_names(p, kind)).collect()
}

fn bpftrace_names(p: &Probe, kind: Option<&str>) -> Vec<String> {
    match p.provider {
        // ftrace's own events (tracefs' events/ftrace) are not tracepoints a program can
        // attach to; bpftrace lists only available_events, which leaves them out.
        "tracepoint" if p.module == "ftrace" => Vec::new(),
        "tracepoint" => vec![format!("tracepoint:{}:{}", p.module, p.name)],
        "fbt" if p.name == "entry" => match kind {
            Some(k @ ("kprobe" | "kretprobe")) => vec![format!("{k}:{}", p.function)],
            Some(k) if names_module(k) => vec![format!("{k}:{}:{}", p.module, p.function)],
            _ => vec![format!("kprobe:{}", p.function), format!("kfunc:{}:{}", p.module, p.function)],
        },
        "rawtracepoint" => vec![format!("rawtracepoint:{}", p.name)],
        _ => Vec::new(),
    }
}

/// A kernel function's parameters as `-lv` lists a kfunc's, `struct file * file`, then
/// (`with_return`) its return value, `ssize_t retval` (none for a void function), from its
/// BTF prototype.
fn kfunc_params(module: &str, function: &str, with_return: bool) -> Vec<String> {
    let probes = |name: &str| {
        let fields: Vec<String> = ["fbt", module, function, name].iter().map(|f| f.to_string()).collect();
        match_probes_with(&ProbeDesc { text: fields.join(":"), fields, span: 0..0 }, Some(&LiveKernel)).unwrap_or_default()
    };
    let fbt = crumbs_lang::providers::provider("fbt").expect("fbt is a provider");
    let mut out = Vec::new();
    if let Some(entry) = probes("entry").first() {
        let types = fbt.arg_types(entry, Some(&LiveKernel)).and_then(Result::ok).unwrap_or_default();
        let names = fbt.arg_names(entry, Some(&LiveKernel)).unwrap_or_default();
        out.extend(types.iter().zip(&names).map(|(t, n)| typed(&t.c_type, n)));
    }
    if let Some(ret) = probes("return").first().filter(|_| with_return) {
        // DTrace's args: the return's offset, then its value.
        if let Some(t) = fbt.arg_types(ret, Some(&LiveKernel)).and_then(Result::ok).and_then(|t| t.get(1).cloned()) {
            out.push(typed(&t.c_type, "retval"));
        }
    }
    out
}

/// A raw tracepoint's arguments, `struct task_struct * prev`, from its BTF prototype (less
/// the hook's own `void *`), as current bpftrace's `-lv` lists them.
fn rawtracepoint_args(event: &str) -> Vec<String> {
    provider_args("rawtracepoint", &["rawtracepoint", event])
}

/// The arguments, `TYPE NAME`, of the probe of `provider` that description `fields` names:
/// a raw tracepoint's (above), an iterator's (`struct task_struct * task`, as bpftrace lists
/// them).
fn provider_args(provider: &str, fields: &[&str]) -> Vec<String> {
    let fields: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
    let found = match_probes_with(&ProbeDesc { text: fields.join(":"), fields, span: 0..0 }, Some(&LiveKernel)).unwrap_or_default();
    let (Some(p), Some(prov)) = (found.first(), crumbs_lang::providers::provider(provider)) else { return Vec::new() };
    let types = prov.arg_types(p, Some(&LiveKernel)).and_then(Result::ok).unwrap_or_default();
    let names = prov.arg_names(p, Some(&LiveKernel)).unwrap_or_default();
    types.iter().zip(&names).map(|(t, n)| typed(&t.c_type, n)).collect()
}

/// The iterators this kernel has (those of crumbs' whose `bpf_iter_TARGET` its BTF defines).
fn iterators() -> Vec<&'static str> {
    crumbs_lang::providers::iter::ITERATORS.into_iter().filter(|t| crumbs_lang::providers::iter::params(&LiveKernel, t).is_ok()).collect()
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
        let p = |provider, module, function, name| Probe { id: 0, provider, module, function, name, attach: crumbs_lang::providers::AttachPoint::Begin, nr: None, user: None, spelled: "" };
        assert_eq!(bpftrace_names(&p("tracepoint", "sched", "", "sched_switch"), None), ["tracepoint:sched:sched_switch"]);
        assert_eq!(bpftrace_names(&p("fbt", "vmlinux", "vfs_read", "entry"), None), ["kprobe:vfs_read", "kfunc:vmlinux:vfs_read"]);
        assert_eq!(bpftrace_names(&p("fbt", "vmlinux", "vfs_read", "entry"), Some("fentry")), ["fentry:vmlinux:vfs_read"]);
        assert_eq!(bpftrace_names(&p("fbt", "vmlinux", "vfs_read", "entry"), Some("kretprobe")), ["kretprobe:vfs_read"]);
        assert!(bpftrace_names(&p("fbt", "vmlinux", "vfs_read", "return"), None).is_empty());
        assert!(bpftrace_names(&p("syscall", "", "read", "entry"), None).is_empty());
        assert!(bpftrace_names(&p("tracepoint", "ftrace", "", "function"), None).is_empty());
    }
}
