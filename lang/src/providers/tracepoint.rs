//! `tracepoint:CATEGORY:EVENT` (also `tp:` and `tracepoint:CATEGORY::EVENT`): the kernel's
//! static tracepoints, listed through the kernel facts; their record fields are `args->NAME`.

use super::{glob, AttachPoint, Probe, Provider};
use crate::ast::ProbeDesc;
use crate::diag::{closest, Diagnostic};
use crate::facts::KernelFacts;
use globset::GlobMatcher;

/// Probe ids of tracepoints: this base plus the tracepoint's index in the program.
pub const TRACEPOINT_ID_BASE: u32 = 1 << 16;

pub struct Tracepoint;

impl Provider for Tracepoint {
    fn name(&self) -> &'static str {
        "tracepoint"
    }

    fn doc(&self) -> &'static str {
        "the kernel's static tracepoints, tracepoint:CATEGORY:EVENT, with their record fields as args->NAME"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["tracepoint:sched:sched_switch"]
    }

    /// None listed statically: they are the running kernel's.
    fn probes(&self) -> Vec<Probe> {
        Vec::new()
    }

    fn describe(&self, desc: &ProbeDesc, facts: Option<&dyn KernelFacts>) -> Option<Result<Vec<Probe>, Diagnostic>> {
        let f: Vec<&str> = desc.fields.iter().map(String::as_str).collect();
        match f.as_slice() {
            ["tracepoint" | "tp", category, event] | ["tracepoint" | "tp", category, "", event] => Some(match_tracepoints(desc, category, event, facts)),
            _ => None,
        }
    }
}

/// The tracepoints a description names, found through the kernel facts.
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
        .map(|(c, e)| Probe { id: 0, provider: "tracepoint", module: leak(c), function: "", name: leak(e), attach: AttachPoint::Tracepoint(u16::MAX), nr: None, user: None, spelled: "" })
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
