//! `profile-N` (every CPU) and `tick-N` (one CPU): a CPU-clock perf event N times a second,
//! or every N units. bpftrace's `profile:UNIT:N` and `interval:UNIT:N` (and `profile:Nunit`,
//! `interval:Nunit`) name the same probes.

use super::{aligned, AttachPoint, Probe, Provider};
use crate::ast::ProbeDesc;
use crate::diag::Diagnostic;
use crate::facts::KernelFacts;

/// Probe ids of profile probes: this base plus a small number given per program.
pub const PROFILE_ID_BASE: u32 = 4;
/// DTrace's listed profile probes; any other rate can be named too.
const PROFILE_DEFAULTS: &[&str] = &["profile-97", "profile-199", "profile-499", "profile-997", "profile-1999", "profile-4001", "profile-4999", "tick-1", "tick-10", "tick-100", "tick-500", "tick-1000", "tick-5000"];

pub struct Profile;

impl Provider for Profile {
    fn name(&self) -> &'static str {
        "profile"
    }

    fn doc(&self) -> &'static str {
        "profile-N fires on every CPU N times a second, tick-N on one CPU; N may carry a unit (ns us ms s m h d hz); bpftrace's profile:hz:N and interval:s:N too"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["profile-997", "tick-1s"]
    }

    fn probes(&self) -> Vec<Probe> {
        PROFILE_DEFAULTS.iter().filter_map(|n| profile_probe(n)).collect()
    }

    /// Any rate, not only the listed ones: `profile:::tick-2s`, `tick-100ms`; bpftrace's
    /// `profile:hz:99`, `interval:s:1`, `interval:100ms`.
    fn describe(&self, desc: &ProbeDesc, _: Option<&dyn KernelFacts>) -> Option<Result<Vec<Probe>, Diagnostic>> {
        if let Some(name) = bpftrace_rate(desc) {
            return Some(profile_probe(&name).map(|p| vec![p]).ok_or_else(|| {
                Diagnostic::new(desc.span.clone(), format!("bad {} probe `{}`", desc.fields[0], desc.text))
                    .label("rate not understood")
                    .hint(format!("write {0}:UNIT:N with UNIT one of hz s ms us ns (at least 10us apart), e.g. {0}:hz:99, {0}:s:1, {0}:ms:100", desc.fields[0]))
            }));
        }
        let [prov, module, func, name] = aligned(desc)?;
        if !((prov.is_empty() || prov == "profile") && module.is_empty() && func.is_empty() && !name.contains(['*', '?', '[']) && (name.starts_with("profile-") || name.starts_with("tick-"))) {
            return None;
        }
        Some(profile_probe(name).map(|p| vec![p]).ok_or_else(|| {
            Diagnostic::new(desc.span.clone(), format!("bad profile probe `{name}`"))
                .label("rate not understood")
                .hint("write profile-N or tick-N: N per second, or N with a unit ns us ms s m h d hz (at least 10us apart), e.g. profile-997, tick-1s, tick-100ms")
        }))
    }
}

/// bpftrace's spelling of a rate as DTrace's name: `profile:hz:99` is `profile-99hz`,
/// `interval:s:1` and `interval:1s` are `tick-1s` (an interval probe fires on one CPU).
fn bpftrace_rate(desc: &ProbeDesc) -> Option<String> {
    let f: Vec<&str> = desc.fields.iter().map(String::as_str).collect();
    let prefix = |p: &str| match p {
        "profile" => Some("profile"),
        "interval" | "i" => Some("tick"),
        "p" => Some("profile"),
        _ => None,
    };
    // The count as bpftrace reads a number (`1e6`, `0x10`); kept as written where it is
    // none, for the error.
    let n = |n: &str| super::spelling::number(n).map_or_else(|| n.to_string(), |v| v.to_string());
    match f.as_slice() {
        [p, unit, count] if matches!(*unit, "hz" | "s" | "ms" | "us" | "ns") => Some(format!("{}-{}{unit}", prefix(p)?, n(count))),
        // A number alone is nanoseconds (current bpftrace: `interval:1000000000` is
        // `interval:s:1`); with a unit it is `interval:1s`.
        [p, rate] if super::spelling::number(rate).is_some() => Some(format!("{}-{}ns", prefix(p)?, n(rate))),
        [p, rate] if rate.starts_with(|c: char| c.is_ascii_digit()) => Some(format!("{}-{rate}", prefix(p)?)),
        _ => None,
    }
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
        unit => {
            let ns: u64 = match unit {
                "ns" | "nsec" => 1,
                "us" | "usec" => 1_000,
                "ms" | "msec" => 1_000_000,
                "s" | "sec" => 1_000_000_000,
                "m" | "min" => 60_000_000_000,
                "h" | "hour" => 3_600_000_000_000,
                "d" | "day" => 86_400_000_000_000,
                _ => return None,
            };
            // A period past u64 nanoseconds (585 years) is no rate (the fuzzer found this).
            n.checked_mul(ns)?
        }
    };
    // perf_event_open refuses a period with the top bit set.
    if !(10_000..1 << 63).contains(&period_ns) {
        return None;
    }
    let name: &'static str = match PROFILE_DEFAULTS.iter().find(|d| **d == name) {
        Some(d) => d,
        None => Box::leak(name.to_string().into_boxed_str()),
    };
    Some(Probe { id: 0, provider: "profile", module: "", function: "", name, attach: AttachPoint::Profile { all_cpus, period_ns }, nr: None, user: None, spelled: "" })
}

#[cfg(test)]
mod tests {
    use super::super::match_probes;
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
        assert!(profile_probe("tick-77777777777s").is_none()); // found by the fuzzer: overflowed
        assert!(profile_probe("tick-106752d").is_none()); // 2^63 ns or more: perf refuses it
        assert_eq!(profile_probe("tick-106751d").map(|p| p.attach), Some(AttachPoint::Profile { all_cpus: false, period_ns: 106_751 * 86_400_000_000_000 }));
        let d = ProbeDesc { text: "profile:::tick-2s".into(), fields: vec!["profile".into(), "".into(), "".into(), "tick-2s".into()], span: 0..17 };
        assert_eq!(match_probes(&d).unwrap()[0].name, "tick-2s");
        let d = ProbeDesc { text: "tick-x".into(), fields: vec!["tick-x".into()], span: 0..6 };
        assert!(match_probes(&d).unwrap_err().hint.unwrap().contains("tick-1s"));
    }

    #[test]
    fn bpftrace_spellings() {
        let one = |s: &str| {
            let d = ProbeDesc { text: s.into(), fields: s.split(':').map(String::from).collect(), span: 0..s.len() };
            match_probes(&d).map(|p| (p[0].name.to_string(), p[0].attach))
        };
        assert_eq!(one("profile:hz:99").unwrap(), ("profile-99hz".to_string(), AttachPoint::Profile { all_cpus: true, period_ns: 1_000_000_000 / 99 }));
        assert_eq!(one("interval:s:1").unwrap(), ("tick-1s".to_string(), AttachPoint::Profile { all_cpus: false, period_ns: 1_000_000_000 }));
        assert_eq!(one("interval:100ms").unwrap().1, AttachPoint::Profile { all_cpus: false, period_ns: 100_000_000 });
        assert_eq!(one("profile:us:500").unwrap().1, AttachPoint::Profile { all_cpus: true, period_ns: 500_000 });
        // A number alone is nanoseconds, and counts are read as bpftrace reads numbers.
        assert_eq!(one("interval:1000000000").unwrap().1, AttachPoint::Profile { all_cpus: false, period_ns: 1_000_000_000 });
        assert_eq!(one("profile:1e7").unwrap().1, AttachPoint::Profile { all_cpus: true, period_ns: 10_000_000 });
        assert_eq!(one("interval:ms:1e2").unwrap().1, AttachPoint::Profile { all_cpus: false, period_ns: 100_000_000 });
        assert!(one("interval:100").is_err()); // 100ns: faster than every 10us
        let e = one("interval:s:0").unwrap_err();
        assert!(e.message.contains("bad interval probe `interval:s:0`") && e.hint.unwrap().contains("interval:s:1"), "{}", e.message);
    }
}
