//! Current bpftrace's `self:signal:SIGUSR1`: runs when the tracer itself receives SIGUSR1
//! (`kill -USR1 PID`), once per signal, as BEGIN runs (a program never attached, run by the
//! runtime). bpftrace has no other `self` trigger or signal. Its `test:` and `bench:` probes,
//! run only by bpftrace's own test mode (`bpftrace --test`, `--bench`), are refused here with
//! that said.

use super::{AttachPoint, Probe, Provider};
use crate::ast::ProbeDesc;
use crate::diag::Diagnostic;

/// The probe id of `self:signal:SIGUSR1`.
pub const SELF_SIGUSR1_ID: u32 = 4;

pub struct SelfSignal;

impl Provider for SelfSignal {
    fn name(&self) -> &'static str {
        "self"
    }

    fn doc(&self) -> &'static str {
        "bpftrace's self:signal:SIGUSR1: runs each time the tracer itself receives SIGUSR1"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["self:signal:SIGUSR1"]
    }

    fn probes(&self) -> Vec<Probe> {
        vec![Probe { id: SELF_SIGUSR1_ID, provider: "self", module: "signal", function: "", name: "SIGUSR1", attach: AttachPoint::SelfSignal, nr: None, user: None, spelled: "" }]
    }

    fn probe_by_id(&self, id: u32) -> Option<Probe> {
        self.probes().into_iter().find(|p| p.id == id)
    }

    fn describe(&self, desc: &ProbeDesc, _: Option<&dyn crate::facts::KernelFacts>) -> Option<Result<Vec<Probe>, Diagnostic>> {
        let f: Vec<&str> = desc.fields.iter().map(String::as_str).collect();
        Some(match f.as_slice() {
            ["self", "signal", "SIGUSR1"] => Ok(self.probes()),
            // bpftrace's words.
            ["self", "signal", sig] => Err(Diagnostic::new(desc.span.clone(), format!("{sig} is not a supported signal")).label("not SIGUSR1").hint("self:signal:SIGUSR1 is the one signal probe")),
            ["self", trigger, ..] => Err(Diagnostic::new(desc.span.clone(), format!("{trigger} is not a supported trigger")).label("not signal").hint("write self:signal:SIGUSR1")),
            [kind @ ("test" | "bench"), ..] => Err(Diagnostic::new(desc.span.clone(), format!("{kind} probes run only in bpftrace's {kind} mode (bpftrace --{kind}), which crumbs does not have"))
                .label("not run by crumbs")
                .hint("test a program's logic in BEGIN, or trace it as it runs")),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn described(text: &str) -> Result<Vec<Probe>, Diagnostic> {
        let fields: Vec<String> = text.split(':').map(String::from).collect();
        SelfSignal.describe(&ProbeDesc { text: text.to_string(), fields, span: 0..text.len() }, None).expect("a self, test or bench description")
    }

    #[test]
    fn sigusr1_is_the_one_self_probe() {
        let p = described("self:signal:SIGUSR1").unwrap();
        assert_eq!((p[0].provider, p[0].module, p[0].name, p[0].attach), ("self", "signal", "SIGUSR1", AttachPoint::SelfSignal));
        assert_eq!(described("self:signal:SIGUSR2").unwrap_err().message, "SIGUSR2 is not a supported signal");
        assert_eq!(described("self:timer:x").unwrap_err().message, "timer is not a supported trigger");
    }

    #[test]
    fn test_and_bench_probes_are_bpftraces_test_runners() {
        assert!(described("test:okay").unwrap_err().message.starts_with("test probes run only in bpftrace's test mode (bpftrace --test)"));
        assert!(described("bench:count").unwrap_err().message.starts_with("bench probes run only in bpftrace's bench mode (bpftrace --bench)"));
    }
}
