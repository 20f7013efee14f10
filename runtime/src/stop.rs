//! Asking a running session to stop, from anywhere: another thread, or a signal handler
//! (what the command line does for Ctrl-C and SIGTERM). The session itself installs no
//! signal handlers, so a library caller (the REPL, tests, later Python) decides what a
//! signal means.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Arc;

/// A stop request: an eventfd that turns readable once [`StopHandle::stop`] is called.
#[derive(Clone, Debug)]
pub struct StopHandle {
    fd: Arc<OwnedFd>,
}

impl StopHandle {
    pub fn new() -> io::Result<StopHandle> {
        // SAFETY: eventfd has no memory preconditions; the result is checked.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fd is a new descriptor that nothing else owns.
        Ok(StopHandle { fd: Arc::new(unsafe { OwnedFd::from_raw_fd(fd) }) })
    }

    /// Asks the session to stop (idempotent).
    pub fn stop(&self) {
        stop_fd(self.fd.as_raw_fd());
    }

    /// The descriptor, for a signal handler that calls [`stop_fd`] (it must outlive the
    /// handler: keep the handle alive while the handler is installed).
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Whether a stop was asked for.
    pub fn is_stopped(&self) -> bool {
        let mut pfd = libc::pollfd { fd: self.fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd, no wait.
        unsafe { libc::poll(&mut pfd, 1, 0) == 1 }
    }

    /// A descriptor the session polls (its own copy, so the session can own it).
    pub(crate) fn watch(&self) -> io::Result<OwnedFd> {
        self.fd.try_clone()
    }
}

/// [`StopHandle::stop`] on a raw eventfd: async-signal-safe (one write(2)).
pub fn stop_fd(fd: RawFd) {
    let one: u64 = 1;
    // SAFETY: writes 8 bytes from a valid u64; a full counter only means "already stopped".
    unsafe { libc::write(fd, (&one as *const u64).cast(), 8) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_is_seen_by_every_clone() {
        let h = StopHandle::new().unwrap();
        let other = h.clone();
        assert!(!h.is_stopped());
        other.stop();
        other.stop();
        assert!(h.is_stopped() && other.is_stopped());
    }
}
