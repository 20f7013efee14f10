//! The one table of providers: what probes each offers, how a probe description matches
//! them, and which kernel attach point carries them.

use crate::ast::ProbeDesc;
use crate::diag::{closest, Diagnostic};
use crate::syscalls::SyscallTable;
use crate::facts::KernelFacts;
use globset::{GlobBuilder, GlobMatcher};

/// Where a group of probes attaches in the kernel. Clauses that share one run, in program
/// order, in one BPF program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AttachPoint {
    /// Runs once, before any other probe is enabled.
    Begin,
    /// Runs once, after every other probe is disabled.
    End,
    /// `raw_syscalls:sys_enter`, filtered by system call number in the kernel.
    SyscallEntry,
    /// `raw_syscalls:sys_exit`.
    SyscallReturn,
    /// A CPU-clock perf event every `period_ns`: on every CPU (`profile-*`) or on one (`tick-*`).
    Profile { all_cpus: bool, period_ns: u64 },
    /// A kernel tracepoint: index into the program's tracepoints (`u16::MAX` until the checker
    /// numbers them).
    Tracepoint(u16),
}

impl AttachPoint {
    pub fn is_syscall(self) -> bool {
        matches!(self, AttachPoint::SyscallEntry | AttachPoint::SyscallReturn)
    }
}

/// One concrete probe: a DTrace probe id and its four-part name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub id: u32,
    pub provider: &'static str,
    pub module: &'static str,
    pub function: &'static str,
    pub name: &'static str,
    pub attach: AttachPoint,
    /// For syscall probes, the system call number.
    pub nr: Option<u32>,
}

pub struct Provider {
    pub name: &'static str,
    pub doc: &'static str,
    pub probes: fn() -> Vec<Probe>,
}

pub const BEGIN_ID: u32 = 1;
pub const END_ID: u32 = 2;
/// Syscall probe ids: entry = base + 2*nr, return = base + 2*nr + 1.
pub const SYSCALL_ID_BASE: u32 = 16;

pub const PROVIDERS: &[Provider] = &[
    Provider { name: "dtrace", doc: "BEGIN and END: run once at the start and at the end of tracing", probes: dtrace_probes },
    Provider { name: "syscall", doc: "entry to and return from every system call (one attach for all)", probes: syscall_probes },
    Provider { name: "tracepoint", doc: "the kernel's static tracepoints, tracepoint:CATEGORY:EVENT, with their record fields as args->NAME", probes: no_static_probes },
    Provider { name: "profile", doc: "profile-N fires on every CPU N times a second, tick-N on one CPU; N may carry a unit (ns us ms s m h d hz)", probes: profile_probes },
];

fn no_static_probes() -> Vec<Probe> {
    Vec::new()
}

/// Probe ids of tracepoints: this base plus the tracepoint's index in the program.
pub const TRACEPOINT_ID_BASE: u32 = 1 << 16;

/// The tracepoints a description names (`tracepoint:CATEGORY:EVENT`, bpftrace's form, or
/// `tracepoint:CATEGORY::EVENT`), found through the kernel facts.
fn match_tracepoints(desc: &ProbeDesc, category: &str, event: &str, facts: Option<&dyn KernelFacts>) -> Result<Vec<Probe>, Diagnostic> {
    let Some(facts) = facts else {
        return Err(Diagnostic::new(desc.span.clone(), "tracepoints are not available here").label("needs tracefs").hint("tracepoints are listed from /sys/kernel/tracing (crumbs mounts it when run as root)"));
    };
    let list = facts.tracepoints().map_err(|e| Diagnostic::new(desc.span.clone(), format!("cannot list tracepoints: {e}")).label("here").hint("crumbs reads /sys/kernel/tracing/events; run it as root"))?;
    let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
    let is_glob = |s: &str| s.is_empty() || s.contains(['*', '?', '[']);
    let matching: Vec<&(String, String)> = if !is_glob(category) && !is_glob(event) {
        // One named tracepoint: string compares, no glob matcher.
        list.iter().filter(|(c, e)| c == category && e == event).collect()
    } else {
        let cat = glob(category, desc)?;
        let ev = glob(event, desc)?;
        let ok = |m: &Option<GlobMatcher>, s: &str| m.as_ref().is_none_or(|m| m.is_match(s));
        list.iter().filter(|(c, e)| ok(&cat, c) && ok(&ev, e)).collect()
    };
    let found: Vec<Probe> = matching
        .into_iter()
        .map(|(c, e)| Probe { id: 0, provider: "tracepoint", module: leak(c), function: "", name: leak(e), attach: AttachPoint::Tracepoint(u16::MAX), nr: None })
        .collect();
    if found.is_empty() {
        let names: Vec<String> = list.iter().map(|(c, e)| format!("{c}:{e}")).collect();
        let hint = match closest(&format!("{category}:{event}"), names.iter().map(String::as_str)) {
            Some(c) => format!("did you mean `tracepoint:{c}`?"),
            None => "list them with `crumbs -l -e 'tracepoint:CATEGORY:*'`".to_string(),
        };
        return Err(Diagnostic::new(desc.span.clone(), format!("probe description `{}` does not match any tracepoint", desc.text)).label("matches nothing").hint(hint));
    }
    Ok(found)
}

/// Probe ids of profile probes: this base plus a small number given per program.
pub const PROFILE_ID_BASE: u32 = 3;
/// DTrace's listed profile probes; any other rate can be named too.
const PROFILE_DEFAULTS: &[&str] = &["profile-97", "profile-199", "profile-499", "profile-997", "profile-1999", "profile-4001", "profile-4999", "tick-1", "tick-10", "tick-100", "tick-500", "tick-1000", "tick-5000"];

fn profile_probes() -> Vec<Probe> {
    PROFILE_DEFAULTS.iter().filter_map(|n| profile_probe(n)).collect()
}

/// `profile-997`, `tick-1s`, `tick-100ms`...: the probe, if `name` is one. Its id is 0 until
/// the checker numbers the program's profile probes.
pub fn profile_probe(name: &str) -> Option<Probe> {
    let (all_cpus, rate) = match name.split_once('-')? {
        ("profile", r) => (true, r),
        ("tick", r) => (false, r),
        _ => return None,
    };
    let digits = rate.find(|c: char| !c.is_ascii_digit()).unwrap_or(rate.len());
    let n: u64 = rate[..digits].parse().ok().filter(|n| *n > 0)?;
    let period_ns = match &rate[digits..] {
        "" | "hz" => 1_000_000_000 / n,
        "ns" | "nsec" => n,
        "us" | "usec" => n * 1_000,
        "ms" | "msec" => n * 1_000_000,
        "s" | "sec" => n * 1_000_000_000,
        "m" | "min" => n * 60_000_000_000,
        "h" | "hour" => n * 3_600_000_000_000,
        "d" | "day" => n * 86_400_000_000_000,
        _ => return None,
    };
    if period_ns < 10_000 {
        return None;
    }
    let name: &'static str = match PROFILE_DEFAULTS.iter().find(|d| **d == name) {
        Some(d) => d,
        None => Box::leak(name.to_string().into_boxed_str()),
    };
    Some(Probe { id: 0, provider: "profile", module: "", function: "", name, attach: AttachPoint::Profile { all_cpus, period_ns }, nr: None })
}

fn dtrace_probes() -> Vec<Probe> {
    vec![
        Probe { id: BEGIN_ID, provider: "dtrace", module: "", function: "", name: "BEGIN", attach: AttachPoint::Begin, nr: None },
        Probe { id: END_ID, provider: "dtrace", module: "", function: "", name: "END", attach: AttachPoint::End, nr: None },
    ]
}

fn syscall_probes() -> Vec<Probe> {
    let mut v = Vec::new();
    for (nr, name) in SyscallTable::get().iter() {
        for (i, (pname, attach)) in [("entry", AttachPoint::SyscallEntry), ("return", AttachPoint::SyscallReturn)].into_iter().enumerate() {
            v.push(Probe {
                id: SYSCALL_ID_BASE + 2 * nr + i as u32,
                provider: "syscall",
                module: "vmlinux",
                function: name,
                name: pname,
                attach,
                nr: Some(nr),
            });
        }
    }
    v
}

/// Every probe of every provider (for `-l`).
pub fn all_probes() -> Vec<Probe> {
    PROVIDERS.iter().flat_map(|p| (p.probes)()).collect()
}

/// The probe with this id, if any.
pub fn probe_by_id(id: u32) -> Option<Probe> {
    if id < SYSCALL_ID_BASE {
        return dtrace_probes().into_iter().find(|p| p.id == id);
    }
    let nr = (id - SYSCALL_ID_BASE) / 2;
    let name = SyscallTable::get().name(nr)?;
    let ret = (id - SYSCALL_ID_BASE) % 2 == 1;
    Some(Probe {
        id,
        provider: "syscall",
        module: "vmlinux",
        function: name,
        name: if ret { "return" } else { "entry" },
        attach: if ret { AttachPoint::SyscallReturn } else { AttachPoint::SyscallEntry },
        nr: Some(nr),
    })
}

fn glob(field: &str, desc: &ProbeDesc) -> Result<Option<GlobMatcher>, Diagnostic> {
    if field.is_empty() || field == "*" {
        return Ok(None);
    }
    // `**` matches what `*` does; runs of stars only slow the matcher down.
    let mut pattern = String::with_capacity(field.len());
    for c in field.chars() {
        if !(c == '*' && pattern.ends_with('*')) {
            pattern.push(c);
        }
    }
    GlobBuilder::new(&pattern)
        .literal_separator(false)
        .build()
        .map(|g| Some(g.compile_matcher()))
        .map_err(|e| Diagnostic::new(desc.span.clone(), format!("bad pattern `{field}`: {e}")))
}

/// The probes a description names. DTrace's rules: fields are right-aligned
/// (`BEGIN` is a name, `read:entry` a function and name), empty fields and `*` match
/// anything, and `*`, `?`, `[...]` glob.
pub fn match_probes(desc: &ProbeDesc) -> Result<Vec<Probe>, Diagnostic> {
    match_probes_with(desc, None)
}

/// [`match_probes`], with the kernel's tracepoints from `facts`.
pub fn match_probes_with(desc: &ProbeDesc, facts: Option<&dyn KernelFacts>) -> Result<Vec<Probe>, Diagnostic> {
    let f: Vec<&str> = desc.fields.iter().map(String::as_str).collect();
    match f.as_slice() {
        ["tracepoint" | "tp", category, event] | ["tracepoint" | "tp", category, "", event] => {
            return match_tracepoints(desc, category, event, facts)
        }
        _ => {}
    }
    if desc.fields.len() > 4 {
        return Err(Diagnostic::new(desc.span.clone(), "too many fields in probe description")
            .hint("a probe description is provider:module:function:name"));
    }
    let mut fields = vec![""; 4 - desc.fields.len()];
    fields.extend(desc.fields.iter().map(String::as_str));
    let [prov, module, func, name] = [fields[0], fields[1], fields[2], fields[3]];
    if !prov.is_empty() && !prov.contains(['*', '?', '[']) && !PROVIDERS.iter().any(|p| p.name == prov) {
        let mut d = Diagnostic::new(desc.span.clone(), format!("unknown provider `{prov}`"))
            .label("no such provider");
        let names = PROVIDERS.iter().map(|p| p.name);
        d = match closest(prov, names) {
            Some(c) => d.hint(format!("did you mean `{c}`? providers: dtrace (BEGIN, END), syscall, profile, tracepoint")),
            None => d.hint("providers: dtrace (BEGIN, END), syscall, profile, tracepoint"),
        };
        return Err(d);
    }
    if (prov.is_empty() || prov == "profile") && module.is_empty() && func.is_empty() && !name.contains(['*', '?', '[']) && (name.starts_with("profile-") || name.starts_with("tick-")) {
        return profile_probe(name).map(|p| vec![p]).ok_or_else(|| {
            Diagnostic::new(desc.span.clone(), format!("bad profile probe `{name}`"))
                .label("rate not understood")
                .hint("write profile-N or tick-N: N per second, or N with a unit ns us ms s m h d hz (at least 10us apart), e.g. profile-997, tick-1s, tick-100ms")
        });
    }
    let matchers = [glob(prov, desc)?, glob(module, desc)?, glob(func, desc)?, glob(name, desc)?];
    let ok = |m: &Option<GlobMatcher>, s: &str| m.as_ref().is_none_or(|m| m.is_match(s));
    let mut out = Vec::new();
    for p in PROVIDERS {
        if !ok(&matchers[0], p.name) {
            continue;
        }
        for probe in (p.probes)() {
            if ok(&matchers[1], probe.module) && ok(&matchers[2], probe.function) && ok(&matchers[3], probe.name) {
                out.push(probe);
            }
        }
    }
    if out.is_empty() {
        let hint = if prov == "syscall" && !func.is_empty() && SyscallTable::get().number(func).is_none() && !func.contains(['*', '?', '[']) {
            match closest(func, SyscallTable::get().iter().map(|(_, n)| n)) {
                Some(c) => format!("there is no system call `{func}`; did you mean `{c}`?"),
                None => format!("there is no system call `{func}`"),
            }
        } else {
            "probes look like `syscall::read:entry`, `syscall:::return`, `BEGIN`, `END`, `profile-997`, `tick-1s`".to_string()
        };
        return Err(Diagnostic::new(desc.span.clone(), format!("probe description `{}` does not match any probes", desc.text))
            .label("matches nothing")
            .hint(hint));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(s: &str) -> ProbeDesc {
        ProbeDesc { text: s.into(), fields: s.split(':').map(String::from).collect(), span: 0..s.len() }
    }

    #[test]
    fn matches_like_dtrace() {
        assert_eq!(match_probes(&desc("BEGIN")).unwrap()[0].id, BEGIN_ID);
        assert_eq!(match_probes(&desc("dtrace:::END")).unwrap()[0].id, END_ID);
        let all = match_probes(&desc("syscall:::entry")).unwrap();
        assert!(all.len() > 300 && all.iter().all(|p| p.attach == AttachPoint::SyscallEntry));
        let read = match_probes(&desc("syscall::read:entry")).unwrap();
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].nr, Some(0));
        let reads = match_probes(&desc("syscall::*read*:return")).unwrap();
        assert!(reads.iter().any(|p| p.function == "pread64"));
        assert!(reads.iter().all(|p| p.name == "return"));
        assert_eq!(match_probes(&desc("read:entry")).unwrap().len(), 1);
    }

    #[test]
    fn unknown_things_are_errors_with_hints() {
        let e = match_probes(&desc("sycall:::entry")).unwrap_err();
        assert!(e.message.contains("unknown provider"));
        assert!(e.hint.unwrap().contains("syscall"));
        let e = match_probes(&desc("syscall::raed:entry")).unwrap_err();
        assert!(e.hint.unwrap().contains("read"));
    }

    #[test]
    fn ids_round_trip() {
        for p in match_probes(&desc("syscall::write:")).unwrap() {
            assert_eq!(probe_by_id(p.id).unwrap(), p);
        }
    }
}

#[cfg(test)]
mod profile_tests {
    use super::*;

    #[test]
    fn rates_and_units() {
        let p = profile_probe("profile-997").unwrap();
        assert_eq!(p.attach, AttachPoint::Profile { all_cpus: true, period_ns: 1_000_000_000 / 997 });
        assert_eq!(profile_probe("tick-1s").unwrap().attach, AttachPoint::Profile { all_cpus: false, period_ns: 1_000_000_000 });
        assert_eq!(profile_probe("tick-100ms").unwrap().attach, AttachPoint::Profile { all_cpus: false, period_ns: 100_000_000 });
        assert_eq!(profile_probe("tick-5hz").unwrap().attach, AttachPoint::Profile { all_cpus: false, period_ns: 200_000_000 });
        assert!(profile_probe("tick-0").is_none());
        assert!(profile_probe("tick-1parsec").is_none());
        assert!(profile_probe("profile-1000000").is_none()); // faster than every 10us
        let d = ProbeDesc { text: "profile:::tick-2s".into(), fields: vec!["profile".into(), "".into(), "".into(), "tick-2s".into()], span: 0..17 };
        assert_eq!(match_probes(&d).unwrap()[0].name, "tick-2s");
        let d = ProbeDesc { text: "tick-x".into(), fields: vec!["tick-x".into()], span: 0..6 };
        assert!(match_probes(&d).unwrap_err().hint.unwrap().contains("tick-1s"));
    }
}
