//! `rawtracepoint:vmlinux::EVENT`: the kernel's tracepoints with their raw arguments, the
//! values the kernel passes the tracepoint (`struct task_struct *prev`), not the record a
//! classic tracepoint copies out of them. They are listed from BTF, where each has a
//! `btf_trace_EVENT` typedef: a pointer to a prototype whose first parameter (`void *`)
//! is the hook's own and the rest are the tracepoint's, so `args[N]` and `args->NAME` are
//! typed from it. bpftrace's `rawtracepoint:EVENT`, `rawtracepoint:MODULE:EVENT` and `rt:`
//! name the same probes.

use super::fbt::arg_type;
use super::{glob, interned, ArgType, AttachPoint, Probe, Provider};
use crate::ast::ProbeDesc;
use crate::diag::{closest, Diagnostic};
use crate::facts::{KernelFacts, KernelType, KernelTypeId};

/// Probe ids of raw tracepoints: this base plus the tracepoint's index in the program.
pub const RAWTP_ID_BASE: u32 = 1 << 18;
/// The module every listed raw tracepoint is in: crumbs lists vmlinux's (not yet the modules').
pub const RAWTP_MODULE: &str = "vmlinux";

pub struct RawTracepoint;

impl Provider for RawTracepoint {
    fn name(&self) -> &'static str {
        "rawtracepoint"
    }

    fn doc(&self) -> &'static str {
        "the kernel's tracepoints with their raw arguments, rawtracepoint:vmlinux::EVENT (bpftrace's rawtracepoint:EVENT and rt:EVENT too), args[N] and args->NAME typed from BTF"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["rawtracepoint:sched_switch"]
    }

    /// None listed statically: they are the running kernel's.
    fn probes(&self) -> Vec<Probe> {
        Vec::new()
    }

    fn describe(&self, desc: &ProbeDesc, facts: Option<&dyn KernelFacts>) -> Option<Result<Vec<Probe>, Diagnostic>> {
        let f: Vec<&str> = desc.fields.iter().map(String::as_str).collect();
        let (module, event) = match f.as_slice() {
            ["rawtracepoint" | "rt", event] => ("", *event),
            ["rawtracepoint" | "rt", module, event] => (*module, *event),
            ["rawtracepoint" | "rt", module, "", event] => (*module, *event),
            ["rawtracepoint" | "rt", _, function, _] => {
                return Some(Err(Diagnostic::new(desc.span.clone(), format!("raw tracepoints have no function `{function}`"))
                    .label("function field not empty")
                    .hint("write rawtracepoint:vmlinux::EVENT (or bpftrace's rawtracepoint:EVENT)")))
            }
            _ => return None,
        };
        Some(match_raw_tracepoints(desc, module, event, facts))
    }

    /// The tracepoint's parameters, from its BTF prototype, less the hook's `void *`.
    fn arg_types(&self, probe: &Probe, facts: Option<&dyn KernelFacts>) -> Option<Result<Vec<ArgType>, String>> {
        let facts = facts?;
        Some(params(facts, probe.name).and_then(|ps| ps.into_iter().map(|(_, id)| arg_type(facts, id)).collect()))
    }

    /// None where the prototype leaves a parameter unnamed (btf_trace_EVENT's own, when
    /// the kernel's BTF has no named hook for the event): args[N] reads them.
    fn arg_names(&self, probe: &Probe, facts: Option<&dyn KernelFacts>) -> Option<Vec<String>> {
        let names: Vec<String> = params(facts?, probe.name).ok()?.into_iter().map(|(name, _)| name).collect();
        (!names.iter().any(String::is_empty)).then_some(names)
    }

    fn no_match_hint(&self, _: [&str; 4]) -> Option<String> {
        Some("raw tracepoints are named by event: rawtracepoint:vmlinux::EVENT or rawtracepoint:EVENT (globs too); list them with `crumbs -l -e 'rawtracepoint:PATTERN'`".into())
    }
}

/// The tracepoint's own parameters (names and types), the hook's first `void *` left out.
pub fn params(facts: &dyn KernelFacts, event: &str) -> Result<Vec<(String, KernelTypeId)>, String> {
    let Some(id) = facts.raw_tracepoint(event)? else {
        return Err(format!("the kernel's BTF has no btf_trace_{event}"));
    };
    let KernelType::Function { params, .. } = facts.kernel_type(id)? else {
        return Err(format!("btf_trace_{event} is not a function prototype"));
    };
    Ok(params.into_iter().skip(1).filter(|(name, id)| !(name.is_empty() && *id == 0)).collect())
}

/// The raw tracepoints of module `module` matching `event` (globs), found through the facts.
fn match_raw_tracepoints(desc: &ProbeDesc, module: &str, event: &str, facts: Option<&dyn KernelFacts>) -> Result<Vec<Probe>, Diagnostic> {
    let Some(facts) = facts else {
        return Err(Diagnostic::new(desc.span.clone(), "raw tracepoints are not available here").label("needs the kernel's BTF").hint("raw tracepoints are listed from the running kernel's BTF (/sys/kernel/btf/vmlinux)"));
    };
    if !glob(module, desc)?.is_none_or(|m| m.is_match(RAWTP_MODULE)) {
        return Err(Diagnostic::new(desc.span.clone(), format!("probe description `{}` does not match any probes: no kernel module `{module}` with raw tracepoints", desc.text))
            .label("matches nothing")
            .hint(format!("crumbs lists vmlinux's raw tracepoints (kernel modules' are not listed yet): write rawtracepoint:{RAWTP_MODULE}::EVENT or leave the module out")));
    }
    let list = facts.raw_tracepoints().map_err(|e| Diagnostic::new(desc.span.clone(), format!("cannot list the kernel's raw tracepoints: {e}")).label("here").hint("raw tracepoints are listed from the kernel's BTF, /sys/kernel/btf/vmlinux"))?;
    let matching: Vec<&String> = if event.is_empty() || event.contains(['*', '?', '[']) {
        let m = glob(event, desc)?;
        list.iter().filter(|e| m.as_ref().is_none_or(|m| m.is_match(e.as_str()))).collect()
    } else {
        // One named tracepoint: the list is sorted.
        list.binary_search_by(|e| e.as_str().cmp(event)).map(|i| vec![&list[i]]).unwrap_or_default()
    };
    if matching.is_empty() {
        let hint = match closest(event, list.iter().map(String::as_str)) {
            Some(c) => format!("did you mean `rawtracepoint:{c}`?"),
            None => "list them with `crumbs -l -e 'rawtracepoint:PATTERN'`".to_string(),
        };
        return Err(Diagnostic::new(desc.span.clone(), format!("probe description `{}` does not match any raw tracepoint", desc.text)).label("matches nothing").hint(hint));
    }
    Ok(matching
        .into_iter()
        .map(|e| Probe { id: 0, provider: "rawtracepoint", module: RAWTP_MODULE, function: "", name: interned(e), attach: AttachPoint::RawTracepoint(u16::MAX), nr: None, user: None, spelled: "" })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::super::{match_probes_with, provider};
    use super::*;
    use crate::facts::sample::SampleKernel;

    fn desc(s: &str) -> ProbeDesc {
        ProbeDesc { text: s.into(), fields: s.split(':').map(String::from).collect(), span: 0..s.len() }
    }

    fn names(s: &str) -> Vec<String> {
        match_probes_with(&desc(s), Some(&SampleKernel)).unwrap().iter().map(|p| format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name)).collect()
    }

    #[test]
    fn spellings_name_the_same_probes() {
        for same in ["rawtracepoint:sched_switch", "rt:sched_switch", "rawtracepoint:vmlinux:sched_switch", "rawtracepoint:vmlinux::sched_switch", "rawtracepoint:::sched_switch"] {
            assert_eq!(names(same), ["rawtracepoint:vmlinux::sched_switch"], "{same}");
        }
        assert_eq!(names("rawtracepoint:sched_*"), ["rawtracepoint:vmlinux::sched_process_exec", "rawtracepoint:vmlinux::sched_switch"]);
        assert_eq!(names("rawtracepoint:::").len(), crate::facts::sample::RAW_TRACEPOINTS.len());
    }

    #[test]
    fn no_match_is_a_clear_error() {
        let e = match_probes_with(&desc("rawtracepoint:sched_swtch"), Some(&SampleKernel)).unwrap_err();
        assert!(e.message.contains("does not match any raw tracepoint"), "{}", e.message);
        assert!(e.hint.unwrap().contains("`rawtracepoint:sched_switch`"));
        let e = match_probes_with(&desc("rawtracepoint:ext4:sched_switch"), Some(&SampleKernel)).unwrap_err();
        assert!(e.hint.unwrap().contains("vmlinux"));
        let e = match_probes_with(&desc("rawtracepoint:vmlinux:f:sched_switch"), Some(&SampleKernel)).unwrap_err();
        assert!(e.message.contains("no function `f`"), "{}", e.message);
        let e = match_probes_with(&desc("rawtracepoint:sched_switch"), None).unwrap_err();
        assert!(e.message.contains("not available"), "{}", e.message);
    }

    #[test]
    fn prototypes_type_and_name_the_arguments() {
        let p = &match_probes_with(&desc("rawtracepoint:sched_switch"), Some(&SampleKernel)).unwrap()[0];
        let prov = provider("rawtracepoint").unwrap();
        let types: Vec<String> = prov.arg_types(p, Some(&SampleKernel)).unwrap().unwrap().into_iter().map(|a| format!("{}/{}", a.c_type, a.size)).collect();
        assert_eq!(types, ["_Bool/1", "struct task_struct */8", "struct task_struct */8", "unsigned int/4"]);
        assert_eq!(prov.arg_names(p, Some(&SampleKernel)).unwrap(), ["preempt", "prev", "next", "prev_state"]);
    }
}
