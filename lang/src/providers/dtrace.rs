//! `dtrace:::BEGIN` and `dtrace:::END`: run once, before any other probe is enabled and after
//! every other probe is disabled (bpftrace's `begin` and `end` too); `dtrace:::ERROR`: fires
//! where a clause faults.

use super::{AttachPoint, Probe, Provider};

pub const BEGIN_ID: u32 = 1;
pub const END_ID: u32 = 2;
pub const ERROR_ID: u32 = 3;

pub struct Dtrace;

impl Provider for Dtrace {
    fn name(&self) -> &'static str {
        "dtrace"
    }

    fn doc(&self) -> &'static str {
        "BEGIN and END: run once at the start and at the end of tracing; ERROR: where a clause faults at run time"
    }

    fn summary(&self) -> &'static str {
        "dtrace (BEGIN, END, ERROR)"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["BEGIN", "END", "ERROR"]
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe { id: BEGIN_ID, provider: "dtrace", module: "", function: "", name: "BEGIN", attach: AttachPoint::Begin, nr: None, user: None, spelled: "" },
            Probe { id: END_ID, provider: "dtrace", module: "", function: "", name: "END", attach: AttachPoint::End, nr: None, user: None, spelled: "" },
            Probe { id: ERROR_ID, provider: "dtrace", module: "", function: "", name: "ERROR", attach: AttachPoint::Error, nr: None, user: None, spelled: "" },
        ]
    }

    fn probe_by_id(&self, id: u32) -> Option<Probe> {
        self.probes().into_iter().find(|p| p.id == id)
    }

    /// bpftrace's lowercase `begin` and `end` are BEGIN and END.
    fn describe(&self, desc: &crate::ast::ProbeDesc, _: Option<&dyn crate::facts::KernelFacts>) -> Option<Result<Vec<Probe>, crate::diag::Diagnostic>> {
        let id = match desc.fields.as_slice() {
            [n] if n == "begin" => BEGIN_ID,
            [n] if n == "end" => END_ID,
            _ => return None,
        };
        Some(Ok(self.probe_by_id(id).into_iter().collect()))
    }
}
