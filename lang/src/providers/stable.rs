//! DTrace's stable providers (`proc`, `sched`, `io`): probes named for what happens (a
//! process exits, a thread goes off a CPU, an I/O starts), each built on a hook of the
//! kernel's: one of its raw tracepoints or, where none fits, the entry to kernel functions
//! (fbt). A probe fires where its hook does and the hook's guard (D over the hook's raw
//! arguments) holds; its arguments are D expressions over those raw arguments, and
//! `args[N]` of a translated argument is `xlate <TYPE> (native)`, with the translators in
//! `stdlib/` (psinfo_t, lwpsinfo_t, bufinfo_t, ...). In the definitions, `__tp_argN` is
//! the hook's raw argument N (`argN` and `args[N]` are the stable probe's own).

use super::{ArgType, AttachPoint, Probe, Provider};
use crate::types::AddrSpace;

/// One argument of a stable probe.
pub struct StableArg {
    /// The C type of the native value (`struct task_struct *`), as `-lv` and argN show it.
    pub native: &'static str,
    /// The native value, D over the tracepoint's raw arguments.
    pub expr: &'static str,
    /// The type `args[N]` translates it to (`psinfo_t *`), if it is translated.
    pub xlate: Option<&'static str>,
}

/// A `struct task_struct *` that `args[N]` translates to a `psinfo_t *`.
pub const fn psinfo(expr: &'static str) -> StableArg {
    StableArg { native: "struct task_struct *", expr, xlate: Some("psinfo_t *") }
}

/// A `struct task_struct *` that `args[N]` translates to a `lwpsinfo_t *`.
pub const fn lwpsinfo(expr: &'static str) -> StableArg {
    StableArg { native: "struct task_struct *", expr, xlate: Some("lwpsinfo_t *") }
}

/// Where in the kernel a stable probe is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// A raw tracepoint, by event.
    RawTracepoint(&'static str),
    /// The entry to the kernel's functions of this name (a glob: one probe on all of them).
    Entry(&'static str),
    /// The return from them (`__tp_arg1` is the return value, as fbt's arg1).
    Return(&'static str),
}

/// One hook a stable probe may be built on, and when it fires there.
pub struct Hook {
    pub at: At,
    /// D over the hook's raw arguments (None: whenever the hook fires).
    pub guard: Option<&'static str>,
}

/// A hook at raw tracepoint `event`.
pub const fn raw(event: &'static str, guard: Option<&'static str>) -> Hook {
    Hook { at: At::RawTracepoint(event), guard }
}

/// A hook at the entry to the functions `glob` names.
pub const fn entry(glob: &'static str, guard: Option<&'static str>) -> Hook {
    Hook { at: At::Entry(glob), guard }
}

/// A hook at the return from the functions `glob` names.
pub const fn exit(glob: &'static str, guard: Option<&'static str>) -> Hook {
    Hook { at: At::Return(glob), guard }
}

/// One probe of a stable provider.
pub struct StableProbe {
    pub name: &'static str,
    /// The hooks that may carry it, the first the running kernel has taken; each reads
    /// `args` from its raw arguments alike.
    pub hooks: &'static [Hook],
    pub args: &'static [StableArg],
    /// What it is, for spec.md and `-lv`.
    pub doc: &'static str,
    /// What the kernel lacks when none of `hooks` is there.
    pub needs: &'static str,
}

impl StableProbe {
    /// The type text `args[n]` has: the translated type, else the native one.
    pub fn arg_type(&self, n: usize) -> Option<&'static str> {
        self.args.get(n).map(|a| a.xlate.unwrap_or(a.native))
    }
}

/// A stable provider: its name and its probes.
pub struct Stable {
    pub name: &'static str,
    pub doc: &'static str,
    pub examples: &'static [&'static str],
    pub probes: &'static [StableProbe],
}

/// The module stable probes are listed in, as dtrace-utils lists them.
pub const STABLE_MODULE: &str = "vmlinux";

impl Provider for Stable {
    fn name(&self) -> &'static str {
        self.name
    }

    fn doc(&self) -> &'static str {
        self.doc
    }

    fn examples(&self) -> &'static [&'static str] {
        self.examples
    }

    fn probes(&self) -> Vec<Probe> {
        self.probes
            .iter()
            .map(|p| Probe { id: 0, provider: self.name, module: STABLE_MODULE, function: "", name: p.name, attach: AttachPoint::RawTracepoint(u16::MAX), nr: None, user: None, spelled: "" })
            .collect()
    }

    fn arg_types(&self, probe: &Probe, _: Option<&dyn crate::facts::KernelFacts>) -> Option<Result<Vec<ArgType>, String>> {
        let p = self.stable(probe)?;
        Some(Ok((0..p.args.len())
            .map(|n| {
                let c_type = p.arg_type(n).expect("in range").to_string();
                let size = if c_type == "int" { 4 } else { 8 };
                ArgType { signed: c_type == "int", size, c_type, space: AddrSpace::Kernel, kernel: None }
            })
            .collect()))
    }

    fn stable(&self, probe: &Probe) -> Option<&'static StableProbe> {
        if probe.provider != self.name {
            return None;
        }
        self.probes.iter().find(|p| p.name == probe.name)
    }
}

#[cfg(test)]
mod tests {
    use super::super::PROVIDERS;
    use crate::parse::parse_expression;

    #[test]
    fn every_definition_parses() {
        for prov in PROVIDERS {
            for probe in prov.probes() {
                let Some(p) = prov.stable(&probe) else { continue };
                for text in p.hooks.iter().filter_map(|h| h.guard).chain(p.args.iter().map(|a| a.expr)) {
                    parse_expression(text, None).unwrap_or_else(|d| panic!("{}:::{}: `{text}`: {}", prov.name(), p.name, d.message));
                }
                assert!(!p.hooks.is_empty(), "{}:::{} has no hook", prov.name(), p.name);
            }
        }
    }
}
