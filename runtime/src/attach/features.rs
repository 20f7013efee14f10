//! Kernel features crumbs uses where the kernel has them, turned off for the whole process
//! (bpftrace's `--no-feature`): crumbs then attaches as it does on a kernel without them.

use std::sync::atomic::{AtomicBool, Ordering};

/// A feature that can be turned off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// kprobe.multi links for fbt probes (else fentry or a kprobe per function).
    KprobeMulti,
    /// uprobe.multi links for pid, uprobe and USDT probes (else a perf event per place).
    UprobeMulti,
}

static NO_KPROBE_MULTI: AtomicBool = AtomicBool::new(false);
static NO_UPROBE_MULTI: AtomicBool = AtomicBool::new(false);

fn flag(f: Feature) -> &'static AtomicBool {
    match f {
        Feature::KprobeMulti => &NO_KPROBE_MULTI,
        Feature::UprobeMulti => &NO_UPROBE_MULTI,
    }
}

/// Turns `f` off for the rest of the process (before compiling: the fbt mode is chosen then).
pub fn disable(f: Feature) {
    flag(f).store(true, Ordering::Relaxed);
}

pub(crate) fn disabled(f: Feature) -> bool {
    flag(f).load(Ordering::Relaxed)
}
