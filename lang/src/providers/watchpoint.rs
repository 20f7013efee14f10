//! bpftrace's `watchpoint:ADDRESS:LENGTH:MODE` (`w:`): a hardware breakpoint (a perf event
//! of PERF_TYPE_BREAKPOINT) on every online CPU that fires when the LENGTH bytes at ADDRESS
//! are written (`w`), read or written (`rw`), or executed (`x`), x86-64's modes. The context
//! is the registers where it fired, as a profile probe's.

use super::{interned, AttachPoint, Probe, Provider};
use crate::ast::ProbeDesc;
use crate::diag::Diagnostic;

/// perf's HW_BREAKPOINT_R, _W and _X, as `AttachPoint::Watchpoint`'s mode bits.
pub const READ: u8 = 1;
pub const WRITE: u8 = 2;
pub const EXECUTE: u8 = 4;

pub struct Watchpoint;

impl Provider for Watchpoint {
    fn name(&self) -> &'static str {
        "watchpoint"
    }

    fn doc(&self) -> &'static str {
        "bpftrace's hardware watchpoints, watchpoint:ADDRESS:LENGTH:MODE (w:): fire when the LENGTH (1, 2, 4, 8) bytes at ADDRESS are written (w), read or written (rw) or executed (x), on every CPU"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["watchpoint:0x10000000:8:rw"]
    }

    fn probes(&self) -> Vec<Probe> {
        Vec::new()
    }

    fn describe(&self, desc: &ProbeDesc, _: Option<&dyn crate::facts::KernelFacts>) -> Option<Result<Vec<Probe>, Diagnostic>> {
        let f: Vec<&str> = desc.fields.iter().map(String::as_str).collect();
        if matches!(f.first(), Some(&("asyncwatchpoint" | "aw"))) {
            return Some(Err(dropped(desc, "Invalid probe type: asyncwatchpoint")));
        }
        if f.first() != Some(&"watchpoint") {
            return None;
        }
        // bpftrace's words for each error.
        let err = |m: String, label: &str| Some(Err(Diagnostic::new(desc.span.clone(), m).label(label).hint("write watchpoint:ADDRESS:LENGTH:MODE, e.g. watchpoint:0x10000000:8:rw")));
        let [_, address, length, mode] = f.as_slice() else {
            return err("watchpoint probe type requires 3 arguments".into(), "not ADDRESS:LENGTH:MODE");
        };
        let Some(addr) = super::spelling::number(address) else {
            if on_argument(address) {
                return Some(Err(dropped(desc, &format!("Invalid function/address argument: {address}"))));
            }
            return err(format!("Invalid function/address argument: {address}"), "not an address");
        };
        if addr == 0 {
            return err("watchpoint must be attached to a non-zero address".into(), "zero");
        }
        let len = match super::spelling::number(length) {
            Some(n @ (1 | 2 | 4 | 8)) => n as u8,
            _ => return err("watchpoint length must be one of (1,2,4,8)".into(), "not 1, 2, 4 or 8"),
        };
        let mut sorted: Vec<char> = mode.chars().collect();
        sorted.sort_unstable();
        if sorted.is_empty() || sorted.iter().any(|c| !matches!(c, 'r' | 'w' | 'x')) {
            return err("watchpoint mode must be combination of (r,w,x)".into(), "not r, w, x");
        }
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return err("watchpoint modes may not be duplicated".into(), "a mode twice");
        }
        let sorted: String = sorted.into_iter().collect();
        let bits = match sorted.as_str() {
            "rw" => READ | WRITE,
            "w" => WRITE,
            "x" => EXECUTE,
            other => return Some(Err(Diagnostic::new(desc.span.clone(), format!("invalid watchpoint mode: {other}")).label("not on x86-64").hint("supported modes: rw,w,x"))),
        };
        let name = interned(&format!("{addr:#x}:{len}:{mode}"));
        Some(Ok(vec![Probe { id: 0, provider: "watchpoint", module: "", function: "", name, attach: AttachPoint::Watchpoint { addr, len, mode: bits }, nr: None, user: None, spelled: "" }]))
    }
}

/// Current bpftrace dropped `asyncwatchpoint` (`aw:`) and `watchpoint:FUNC+argN` (its commit
/// "feature: drop asyncwatchpoint and watchpoint:func+arg1"): `message` is its error for the
/// form, and the diagnostic says why and what is left.
fn dropped(desc: &ProbeDesc, message: &str) -> Diagnostic {
    Diagnostic::new(desc.span.clone(), format!("{message}: current bpftrace dropped asyncwatchpoint and watchpoints on a function's argument"))
        .label("no longer bpftrace's")
        .hint("watch an address: watchpoint:ADDRESS:LENGTH:MODE (e.g. watchpoint:0x10000000:8:rw); read the argument in a uprobe on the function")
}

/// Whether a watchpoint's address field is 0.17's `FUNC+argN` (`increment+arg1`).
fn on_argument(address: &str) -> bool {
    address.rsplit_once("+arg").is_some_and(|(func, n)| !func.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}
