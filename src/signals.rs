//! What Ctrl-C and SIGTERM mean to the command line. The first asks the session to stop:
//! it then prints the records still buffered, runs END and prints the aggregations, which
//! can take a while (or block for good on a reader that stopped reading). On the command
//! line a second one ends crumbs at once, as in DTrace: it kills crumbs with that signal's
//! default action. Probes need no cleanup, the kernel detaches them when crumbs' file
//! descriptors close. In the REPL every one only stops the program running, so a second
//! Ctrl-C does not end the REPL.

use crumbs_runtime::stop::{stop_fd, StopHandle};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// Stop requests on SIGINT and SIGTERM while it lives.
pub struct StopOnSignals {
    ids: Vec<signal_hook_registry::SigId>,
    /// Keeps the descriptor the handlers write to open while they are installed.
    _handle: StopHandle,
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

impl StopOnSignals {
    /// Installs the handlers: each signal stops `handle`'s session; with `second_kills`, a
    /// second one kills crumbs.
    pub fn install(handle: &StopHandle, second_kills: bool) -> StopOnSignals {
        let received = Arc::new(AtomicU32::new(0));
        let fd = handle.raw_fd();
        let mut ids = Vec::new();
        for signal in [libc::SIGINT, libc::SIGTERM] {
            let received = Arc::clone(&received);
            let action = move || {
                if received.fetch_add(1, Ordering::SeqCst) >= 1 && second_kills {
                    die_by(signal);
                }
                stop_fd(fd);
            };
            // SAFETY: the action only touches an atomic and calls async-signal-safe functions;
            // `fd` stays open while the handler is installed (`_handle`). If registering
            // fails, the signal keeps its default action (it ends crumbs).
            if let Ok(id) = unsafe { signal_hook_registry::register(signal, action) } {
                ids.push(id);
            }
        }
        StopOnSignals { ids, _handle: handle.clone() }
    }
}

impl Drop for StopOnSignals {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook_registry::unregister(id);
        }
    }
}

/// bpftrace's `self:signal:SIGUSR1`: while it lives, each SIGUSR1 makes `handle`'s
/// descriptor readable, and the session runs the probe (instead of SIGUSR1's default
/// action, which would end crumbs).
pub struct Usr1 {
    id: Option<signal_hook_registry::SigId>,
    _handle: StopHandle,
}

impl Usr1 {
    pub fn install(handle: &StopHandle) -> Usr1 {
        let fd = handle.raw_fd();
        // SAFETY: the action calls one async-signal-safe write(2) on `fd`, which stays open
        // while the handler is installed (`_handle`).
        let id = unsafe { signal_hook_registry::register(libc::SIGUSR1, move || stop_fd(fd)) }.ok();
        Usr1 { id, _handle: handle.clone() }
    }
}

impl Drop for Usr1 {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            signal_hook_registry::unregister(id);
        }
    }
}
