//! bpftrace's `software:EVENT:COUNT` and `hardware:EVENT:COUNT`: a perf event on every CPU,
//! firing once every COUNT occurrences of the event (page faults, context switches, CPU
//! cycles...). DTrace has no such provider; its probes are named `software::EVENT:COUNT`.

use super::{aligned, AttachPoint, Probe, Provider};
use crate::ast::ProbeDesc;
use crate::diag::Diagnostic;
use crate::facts::KernelFacts;

/// A perf event: bpftrace's name, its alias, whether it is a hardware event, perf's number
/// for it (PERF_COUNT_SW_* or PERF_COUNT_HW_*), and the count bpftrace fires after when
/// none is given.
pub struct PerfEvent {
    pub name: &'static str,
    pub alias: &'static str,
    pub hardware: bool,
    pub config: u32,
    pub default_count: u64,
}

/// bpftrace's events, as its documentation lists them.
pub const PERF_EVENTS: &[PerfEvent] = &[
    PerfEvent { name: "cpu-clock", alias: "cpu", hardware: false, config: 0, default_count: 1_000_000 },
    PerfEvent { name: "task-clock", alias: "task-clock", hardware: false, config: 1, default_count: 1_000_000 },
    PerfEvent { name: "page-faults", alias: "faults", hardware: false, config: 2, default_count: 100 },
    PerfEvent { name: "context-switches", alias: "cs", hardware: false, config: 3, default_count: 1000 },
    PerfEvent { name: "cpu-migrations", alias: "cpu-migrations", hardware: false, config: 4, default_count: 1 },
    PerfEvent { name: "minor-faults", alias: "minor-faults", hardware: false, config: 5, default_count: 100 },
    PerfEvent { name: "major-faults", alias: "major-faults", hardware: false, config: 6, default_count: 1 },
    PerfEvent { name: "alignment-faults", alias: "alignment-faults", hardware: false, config: 7, default_count: 1 },
    PerfEvent { name: "emulation-faults", alias: "emulation-faults", hardware: false, config: 8, default_count: 1 },
    PerfEvent { name: "dummy", alias: "dummy", hardware: false, config: 9, default_count: 1 },
    PerfEvent { name: "bpf-output", alias: "bpf-output", hardware: false, config: 10, default_count: 1 },
    PerfEvent { name: "cpu-cycles", alias: "cycles", hardware: true, config: 0, default_count: 1_000_000 },
    PerfEvent { name: "instructions", alias: "instructions", hardware: true, config: 1, default_count: 1_000_000 },
    PerfEvent { name: "cache-references", alias: "cache-references", hardware: true, config: 2, default_count: 1_000_000 },
    PerfEvent { name: "cache-misses", alias: "cache-misses", hardware: true, config: 3, default_count: 1_000_000 },
    PerfEvent { name: "branch-instructions", alias: "branches", hardware: true, config: 4, default_count: 100_000 },
    PerfEvent { name: "branch-misses", alias: "branch-misses", hardware: true, config: 5, default_count: 100_000 },
    PerfEvent { name: "bus-cycles", alias: "bus-cycles", hardware: true, config: 6, default_count: 100_000 },
    PerfEvent { name: "frontend-stalls", alias: "frontend-stalls", hardware: true, config: 7, default_count: 1_000_000 },
    PerfEvent { name: "backend-stalls", alias: "backend-stalls", hardware: true, config: 8, default_count: 1_000_000 },
    PerfEvent { name: "ref-cycles", alias: "ref-cycles", hardware: true, config: 9, default_count: 1_000_000 },
];

pub struct Software;
pub struct Hardware;

impl Provider for Software {
    fn name(&self) -> &'static str {
        "software"
    }

    fn doc(&self) -> &'static str {
        "bpftrace's software perf events on every CPU, software:EVENT:COUNT (page-faults/faults, context-switches/cs, cpu-clock/cpu, task-clock, cpu-migrations, minor-faults, major-faults, ...): fires once every COUNT events"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["software:faults:1", "software:cs:100"]
    }

    fn probes(&self) -> Vec<Probe> {
        listed(false)
    }

    fn describe(&self, desc: &ProbeDesc, _: Option<&dyn KernelFacts>) -> Option<Result<Vec<Probe>, Diagnostic>> {
        describe(desc, false)
    }
}

impl Provider for Hardware {
    fn name(&self) -> &'static str {
        "hardware"
    }

    fn doc(&self) -> &'static str {
        "bpftrace's hardware perf events on every CPU, hardware:EVENT:COUNT (cpu-cycles/cycles, instructions, cache-misses, branch-misses, ...): fires once every COUNT events, where the CPU (or the virtual machine) has the counter"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["hardware:cache-misses:1000000"]
    }

    fn probes(&self) -> Vec<Probe> {
        listed(true)
    }

    fn describe(&self, desc: &ProbeDesc, _: Option<&dyn KernelFacts>) -> Option<Result<Vec<Probe>, Diagnostic>> {
        describe(desc, true)
    }
}

/// Each event at its default count, for `-l`.
fn listed(hardware: bool) -> Vec<Probe> {
    PERF_EVENTS.iter().enumerate().filter(|(_, e)| e.hardware == hardware).map(|(i, e)| probe(i, e.default_count)).collect()
}

/// `software:faults:100` (bpftrace's form), `software::faults:100` (DTrace's fields), with
/// or without the count; a glob in the event matches several.
fn describe(desc: &ProbeDesc, hardware: bool) -> Option<Result<Vec<Probe>, Diagnostic>> {
    let provider = if hardware { "hardware" } else { "software" };
    let f: Vec<&str> = desc.fields.iter().map(String::as_str).collect();
    let (event, count) = match f.as_slice() {
        [p, e] | [p, e, ""] if *p == provider => (*e, None),
        [p, e, n] if *p == provider => (*e, Some(*n)),
        _ => match aligned(desc)? {
            [p, "", e, n] if p == provider => (e, Some(n)),
            _ => return None,
        },
    };
    // As bpftrace reads a number: `1e6`, `0x100`, `1_000`.
    let count = match count.map(|n| super::spelling::number(n).filter(|n| *n > 0)) {
        Some(None) => {
            return Some(Err(Diagnostic::new(desc.span.clone(), format!("bad count in `{}`", desc.text))
                .label("not a positive number")
                .hint(format!("write {provider}:EVENT:COUNT, e.g. {provider}:{}:100 (fires every COUNT events)", if hardware { "cache-misses" } else { "faults" }))))
        }
        Some(Some(n)) => Some(n),
        None => None,
    };
    let matcher = match super::glob(event, desc) {
        Ok(m) => m,
        Err(d) => return Some(Err(d)),
    };
    let matches = |n: &str| matcher.as_ref().is_none_or(|m| m.is_match(n));
    let found: Vec<Probe> = PERF_EVENTS
        .iter()
        .enumerate()
        .filter(|(_, e)| e.hardware == hardware && (matches(e.name) || matches(e.alias)))
        .map(|(i, e)| probe(i, count.unwrap_or(e.default_count)))
        .collect();
    if found.is_empty() {
        let names: Vec<&str> = PERF_EVENTS.iter().filter(|e| e.hardware == hardware).map(|e| e.alias).collect();
        return Some(Err(Diagnostic::new(desc.span.clone(), format!("no {provider} event `{event}`"))
            .label("unknown event")
            .hint(format!("{provider} events: {}", names.join(", ")))));
    }
    Some(Ok(found))
}

/// The probe of event `i` every `count` events. Its id is 0 until the checker numbers the
/// program's perf probes.
fn probe(i: usize, count: u64) -> Probe {
    let e = &PERF_EVENTS[i];
    let name: &'static str = Box::leak(count.to_string().into_boxed_str());
    Probe { id: 0, provider: if e.hardware { "hardware" } else { "software" }, module: "", function: e.name, name, attach: AttachPoint::Perf { event: i as u8, count }, nr: None, user: None, spelled: "" }
}

#[cfg(test)]
mod tests {
    use super::super::match_probes;
    use super::*;

    fn one(s: &str) -> Result<Vec<(String, AttachPoint)>, Diagnostic> {
        let d = ProbeDesc { text: s.into(), fields: s.split(':').map(String::from).collect(), span: 0..s.len() };
        match_probes(&d).map(|ps| ps.into_iter().map(|p| (format!("{}:{}:{}", p.provider, p.function, p.name), p.attach)).collect())
    }

    #[test]
    fn events_counts_and_spellings() {
        assert_eq!(one("software:faults:1").unwrap(), [("software:page-faults:1".to_string(), AttachPoint::Perf { event: 2, count: 1 })]);
        assert_eq!(one("software:cs").unwrap()[0].1, AttachPoint::Perf { event: 3, count: 1000 });
        assert_eq!(one("software::context-switches:5").unwrap()[0].1, AttachPoint::Perf { event: 3, count: 5 });
        assert_eq!(one("hardware:cycles:100").unwrap()[0].1, AttachPoint::Perf { event: 11, count: 100 });
        assert_eq!(one("software:*-faults:1").unwrap().len(), 5);
        assert!(one("software:nosuch:1").unwrap_err().hint.unwrap().contains("faults"));
        assert!(one("software:faults:0").unwrap_err().message.contains("bad count"));
    }
}
