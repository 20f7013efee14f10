//! A second SIGINT or SIGTERM ends crumbs at once, as in DTrace.
//!
//! The first one is the event loop's business: it stops tracing, and crumbs then prints the
//! records still buffered, runs END and prints the aggregations, which can take a while (or
//! block for good on a reader that stopped reading). A user who asks again does not want to
//! wait: the second signal kills crumbs with that signal's default action. Probes need no
//! cleanup, the kernel detaches them when crumbs' file descriptors close.

use std::sync::atomic::{AtomicU32, Ordering};

static RECEIVED: AtomicU32 = AtomicU32::new(0);

/// Counts stop signals while it lives; the second one kills the process.
pub struct SecondSignal {
    ids: Vec<signal_hook_registry::SigId>,
}

fn die_by(signal: libc::c_int) {
    // SAFETY: sigaction and raise are async-signal-safe; the zeroed sigaction is SIG_DFL
    // with an empty mask. The raised signal is delivered, and kills, once the handler that
    // runs this returns (or at once if it is not blocked).
    unsafe {
        let dfl: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, &dfl, std::ptr::null_mut());
        libc::raise(signal);
    }
}

impl SecondSignal {
    /// Starts counting from zero. Works alongside tokio's own handlers for these signals,
    /// which keep telling the event loop about the first one.
    pub fn arm() -> SecondSignal {
        RECEIVED.store(0, Ordering::SeqCst);
        let mut ids = Vec::new();
        for signal in [libc::SIGINT, libc::SIGTERM] {
            let action = move || {
                if RECEIVED.fetch_add(1, Ordering::SeqCst) >= 1 {
                    die_by(signal);
                }
            };
            // SAFETY: the action only touches an atomic and calls async-signal-safe functions.
            // If registering fails, a second signal is merely not special.
            if let Ok(id) = unsafe { signal_hook_registry::register(signal, action) } {
                ids.push(id);
            }
        }
        SecondSignal { ids }
    }
}

impl Drop for SecondSignal {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook_registry::unregister(id);
        }
    }
}
