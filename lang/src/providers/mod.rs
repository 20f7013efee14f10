//! The providers: what probes each offers, how a probe description matches them, and which
//! kernel attach point carries them. One file per provider behind [`Provider`]; the table
//! [`PROVIDERS`] lists them for the checker, `-l`, completion and spec.md.

mod dtrace;
pub(crate) mod fbt;
mod io;
pub mod iter;
mod proc;
pub mod perf;
mod profile;
mod rawtracepoint;
mod sched;
mod self_signal;
pub mod spelling;
mod stable;
mod syscall;
mod tracepoint;
mod usdt;
mod user;
pub mod watchpoint;

pub use dtrace::{BEGIN_ID, END_ID, ERROR_ID};
pub use self_signal::SELF_SIGUSR1_ID;
pub use fbt::{FBT_ID_BASE, FBT_MODULE};
pub use profile::{profile_probe, PROFILE_ID_BASE};
pub use stable::{At, Hook, StableArg, StableProbe, STABLE_MODULE};
pub use rawtracepoint::{params as raw_tracepoint_params, RAWTP_ID_BASE, RAWTP_MODULE};
pub use syscall::SYSCALL_ID_BASE;
pub use tracepoint::TRACEPOINT_ID_BASE;
pub use user::{expand_macros, ProbeMacros, USER_ID_BASE};

use crate::ast::ProbeDesc;
use crate::diag::{closest, Diagnostic};
use crate::facts::{KernelFacts, KernelTypeId};
use crate::types::AddrSpace;
use globset::{GlobBuilder, GlobMatcher};

/// Where a group of probes attaches in the kernel. Clauses that share one run, in program
/// order, in one BPF program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AttachPoint {
    /// Runs once, before any other probe is enabled.
    Begin,
    /// Runs once, after every other probe is disabled.
    End,
    /// `dtrace:::ERROR`: attached nowhere; its clauses run inside the program of a clause
    /// that faults, right after the fault.
    Error,
    /// bpftrace's `self:signal:SIGUSR1`: run, as BEGIN is, each time crumbs receives SIGUSR1.
    SelfSignal,
    /// bpftrace's `iter:TARGET`: a BPF iterator, [`iter::ITERATORS`]' index; run once per
    /// object when crumbs reads it. `iter:TARGET:PIN` (current bpftrace's) has the path it is
    /// pinned at (under /sys/fs/bpf where PIN is relative): pinned, not read, its printf()s
    /// written to the iterator's own text.
    Iter(u8, Option<&'static str>),
    /// bpftrace's `watchpoint:ADDRESS:LENGTH:MODE`: a hardware breakpoint on every CPU;
    /// `mode` is [`watchpoint`]'s READ, WRITE, EXECUTE bits.
    Watchpoint { addr: u64, len: u8, mode: u8 },
    /// `raw_syscalls:sys_enter`, filtered by system call number in the kernel.
    SyscallEntry,
    /// `raw_syscalls:sys_exit`.
    SyscallReturn,
    /// A CPU-clock perf event every `period_ns`: on every CPU (`profile-*`) or on one (`tick-*`).
    Profile { all_cpus: bool, period_ns: u64 },
    /// bpftrace's software and hardware perf events on every CPU: event `event` of
    /// [`perf::PERF_EVENTS`], firing once every `count` events.
    Perf { event: u8, count: u64 },
    /// A kernel tracepoint: index into the program's tracepoints (`u16::MAX` until the checker
    /// numbers them).
    Tracepoint(u16),
    /// The entry to a kernel function (fbt): index into the program's functions (`u16::MAX`
    /// until the checker numbers them).
    FbtEntry(u16),
    /// The return from a kernel function, indexed as [`AttachPoint::FbtEntry`].
    FbtReturn(u16),
    /// A place in a user-space function (pid, uprobe: its entry or an instruction in it):
    /// index into the program's user probes (`u16::MAX` until the checker numbers them).
    UserEntry(u16),
    /// The return from a user-space function (pid's return, uretprobe), indexed as
    /// [`AttachPoint::UserEntry`].
    UserReturn(u16),
    /// A raw tracepoint (BTF-typed arguments): index into the program's raw tracepoints
    /// (`u16::MAX` until the checker numbers them).
    RawTracepoint(u16),
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
    /// For pid and uprobe probes, the place they attach to.
    pub user: Option<std::rc::Rc<crate::ir::UserProbe>>,
    /// The provider as the program's description named it, a short name read long
    /// (`kfunc`, `fentry`, `kprobe`, `fbt`, `tracepoint`); "" where no description did
    /// (a listed probe). bpftrace's probetype tells fentry from kprobe by it.
    pub spelled: &'static str,
}

/// One provider. A description is matched by the first provider whose [`Provider::describe`]
/// claims it, or else by globbing its four fields over every provider's listed probes.
pub trait Provider: Sync {
    fn name(&self) -> &'static str;
    /// One line for `-l`-style help and spec.md §6.1.
    fn doc(&self) -> &'static str;
    /// How hints name the provider among the others.
    fn summary(&self) -> &'static str {
        self.name()
    }
    /// Descriptions a hint offers as examples.
    fn examples(&self) -> &'static [&'static str];
    /// The probes it lists (`-l`) and that globbing matches.
    fn probes(&self) -> Vec<Probe>;
    /// Descriptions of a form of the provider's own (not matched by globbing its listed
    /// probes): `Some` with the probes or the error, `None` to leave it to the others.
    fn describe(&self, _desc: &ProbeDesc, _facts: Option<&dyn KernelFacts>) -> Option<Result<Vec<Probe>, Diagnostic>> {
        None
    }
    /// A fixed-id probe of this provider.
    fn probe_by_id(&self, _id: u32) -> Option<Probe> {
        None
    }
    /// A better hint than the general one when a description (provider, module, function,
    /// name) of this provider matches nothing.
    fn no_match_hint(&self, _fields: [&str; 4]) -> Option<String> {
        None
    }
    /// The C types of a probe's arguments, `args[0]`, `args[1]`, ..., where its prototype
    /// is known: `None` where it is not (`args[]` is then an error; `argN` still works),
    /// `Some(Err)` where it should be but cannot be read.
    fn arg_types(&self, _probe: &Probe, _facts: Option<&dyn KernelFacts>) -> Option<Result<Vec<ArgType>, String>> {
        None
    }
    /// The names of a probe's arguments (`args->NAME` is `args[N]` of the N-th), where its
    /// prototype names them; `None` where it does not.
    fn arg_names(&self, _probe: &Probe, _facts: Option<&dyn KernelFacts>) -> Option<Vec<String>> {
        None
    }
    /// A stable provider's (proc, sched, io) definition of a probe: the raw tracepoint it
    /// is built on, its guard and its arguments.
    fn stable(&self, _probe: &Probe) -> Option<&'static StableProbe> {
        None
    }
}

/// One argument of a probe's prototype, as C text (`const char *`, `size_t`) with the size
/// the kernel passes it at (for a typedef the kernel's types do not know) and the address
/// space its pointers point into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgType {
    pub c_type: String,
    pub size: u8,
    pub signed: bool,
    pub space: AddrSpace,
    /// The kernel's own type (from BTF), where the prototype is the kernel's: the checker
    /// takes it as it is, with no C text to parse.
    pub kernel: Option<KernelTypeId>,
}

pub const PROVIDERS: &[&dyn Provider] = &[&dtrace::Dtrace, &self_signal::SelfSignal, &iter::Iter, &watchpoint::Watchpoint, &syscall::Syscall, &tracepoint::Tracepoint, &profile::Profile, &perf::Software, &perf::Hardware, &fbt::Fbt, &rawtracepoint::RawTracepoint, &user::Pid, &user::Uprobe, &usdt::Usdt, &proc::PROC, &sched::SCHED, &io::IO];

/// Every probe of every provider (for `-l`).
pub fn all_probes() -> Vec<Probe> {
    PROVIDERS.iter().flat_map(|p| p.probes()).collect()
}

/// The provider named `name`.
pub fn provider(name: &str) -> Option<&'static dyn Provider> {
    PROVIDERS.iter().copied().find(|p| p.name() == name)
}

/// The fixed-id probe with this id, if any.
pub fn probe_by_id(id: u32) -> Option<Probe> {
    PROVIDERS.iter().find_map(|p| p.probe_by_id(id))
}

/// A description's provider, module, function and name: the fields given are the last
/// ones (`BEGIN` is a name), except that bpftrace's `tracepoint:category:event` and
/// `rawtracepoint:module:event` are provider, module and name. None past four fields.
pub fn aligned(desc: &ProbeDesc) -> Option<[&str; 4]> {
    let n = desc.fields.len();
    if n > 4 {
        return None;
    }
    let f = &desc.fields;
    if n == 3 && matches!(f[0].as_str(), "tracepoint" | "tp" | "rawtracepoint" | "rt") {
        return Some([f[0].as_str(), f[1].as_str(), "", f[2].as_str()]);
    }
    let mut fields = [""; 4];
    for (slot, f) in fields[4 - n..].iter_mut().zip(&desc.fields) {
        *slot = f;
    }
    Some(fields)
}

/// `s` as a `&'static str` for a [`Probe`], leaked once per distinct string however often
/// it is matched: a program (or a fuzzer's many) matching `fbt::*:` would otherwise leak
/// tens of thousands of function names per match.
pub(crate) fn interned(s: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static SEEN: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    let seen = seen.get_or_insert_default();
    if let Some(s) = seen.get(s) {
        return s;
    }
    let leaked: &'static str = Box::leak(s.to_string().into_boxed_str());
    seen.insert(leaked);
    leaked
}

pub(crate) fn glob(field: &str, desc: &ProbeDesc) -> Result<Option<GlobMatcher>, Diagnostic> {
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
    if let Some(found) = PROVIDERS.iter().find_map(|p| p.describe(desc, facts)) {
        return found;
    }
    let Some(fields) = aligned(desc) else {
        return Err(Diagnostic::new(desc.span.clone(), "too many fields in probe description")
            .hint("a probe description is provider:module:function:name"));
    };
    let [prov, module, func, name] = fields;
    let summaries = || PROVIDERS.iter().map(|p| p.summary()).collect::<Vec<_>>().join(", ");
    if !prov.is_empty() && !prov.contains(['*', '?', '[']) && provider(prov).is_none() {
        let d = Diagnostic::new(desc.span.clone(), format!("unknown provider `{prov}`")).label("no such provider");
        return Err(match closest(prov, PROVIDERS.iter().map(|p| p.name())) {
            Some(c) => d.hint(format!("did you mean `{c}`? providers: {}", summaries())),
            None => d.hint(format!("providers: {}", summaries())),
        });
    }
    let matchers = [glob(prov, desc)?, glob(module, desc)?, glob(func, desc)?, glob(name, desc)?];
    let ok = |m: &Option<GlobMatcher>, s: &str| m.as_ref().is_none_or(|m| m.is_match(s));
    let mut out = Vec::new();
    for p in PROVIDERS {
        if !ok(&matchers[0], p.name()) {
            continue;
        }
        for probe in p.probes() {
            if ok(&matchers[1], probe.module) && ok(&matchers[2], probe.function) && ok(&matchers[3], probe.name) {
                out.push(probe);
            }
        }
    }
    if out.is_empty() {
        let hint = provider(prov).and_then(|p| p.no_match_hint(fields)).unwrap_or_else(|| {
            let examples: Vec<String> = PROVIDERS.iter().flat_map(|p| p.examples()).map(|e| format!("`{e}`")).collect();
            format!("probes look like {}", examples.join(", "))
        });
        return Err(Diagnostic::new(desc.span.clone(), format!("probe description `{}` does not match any probes", desc.text))
            .label("matches nothing")
            .hint(hint));
    }
    Ok(out)
}

/// The labels of the diagnostics that say a well-formed description names nothing on this
/// machine: no such tracepoint, kernel function, raw tracepoint, function in a file or
/// process, module of a process, or USDT probe. An unknown provider, a bad pattern or a file
/// that cannot be read are not among them.
const NOTHING_HERE: &[&str] = &["matches nothing", "matches no function", "no such module", "no such USDT provider"];

/// Whether `d`, an error of [`match_probes_with`], says that the description matches no
/// probe on this machine (what `-Z` and bpftrace's `missing_probes` take out), rather than
/// that it is wrong.
pub fn matches_nothing_here(d: &Diagnostic) -> bool {
    d.label.as_deref().is_some_and(|l| NOTHING_HERE.contains(&l))
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

    /// What matches nothing on this machine, provider by provider, is told apart from what
    /// is wrong.
    #[test]
    fn nothing_here_is_told_apart_from_wrong() {
        let facts = crate::facts::sample::SampleKernel;
        let error = |s: &str| match_probes_with(&desc(s), Some(&facts)).unwrap_err();
        for nothing in ["tracepoint:syscalls:sys_enter_nosuch", "kprobe:nosuch_function", "fbt:nosuchmod::entry", "rawtracepoint:nosuch", "uprobe:/usr/bin/sample:nosuch", "pid42:libnosuch.so:read:entry", "pid42:a.out:nosuch:entry", "sample42:::nosuch", "nosuch42:::start", "syscall::nosuch:entry", "syscall:::nosuch*"] {
            assert!(matches_nothing_here(&error(nothing)), "{nothing}: {:?}", error(nothing));
        }
        for wrong in ["sycall:::entry", "uprobe:/no/such/file:read", "pid0:a.out:main:entry", "pid42:a.out:main:nosuchname", "profile:::tick-abc", "kprobe:[x"] {
            assert!(!matches_nothing_here(&error(wrong)), "{wrong}: {:?}", error(wrong));
        }
    }

    #[test]
    fn ids_round_trip() {
        for p in match_probes(&desc("syscall::write:")).unwrap() {
            assert_eq!(probe_by_id(p.id).unwrap(), p);
        }
    }
}

