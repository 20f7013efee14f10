//! A progress line on standard error for work on hundreds of probes that takes seconds
//! (the kernel takes ~15 s to detach the 361 `tracepoint:syscalls:sys_enter_*` probes).
//! Silent for the first second, so ordinary runs print nothing; then redrawn in place on a
//! terminal, or said once in a log.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How long work goes on before it is shown: a second, or `CRUMBS_PROGRESS_AFTER_MS` (for
/// tests, which cannot wait for the kernel to be slow).
fn quiet_for() -> Duration {
    std::env::var("CRUMBS_PROGRESS_AFTER_MS").ok().and_then(|v| v.parse().ok()).map_or(Duration::from_secs(1), Duration::from_millis)
}
const REDRAW_EVERY: Duration = Duration::from_millis(100);

pub struct Progress {
    what: &'static str,
    total: usize,
    done: usize,
    start: Instant,
    quiet_for: Duration,
    last_draw: Option<Instant>,
    enabled: bool,
    terminal: bool,
}

impl Progress {
    /// `what` is what is being done ("attaching probes"); nothing is shown unless `enabled`.
    pub fn new(what: &'static str, total: usize, enabled: bool) -> Progress {
        Progress { what, total, done: 0, start: Instant::now(), quiet_for: quiet_for(), last_draw: None, enabled, terminal: std::io::stderr().is_terminal() }
    }

    /// One more item done.
    pub fn tick(&mut self) {
        self.advance(1);
    }

    /// `n` more items done.
    pub fn advance(&mut self, n: usize) {
        self.done += n;
        if !self.enabled || self.done >= self.total || self.start.elapsed() < self.quiet_for {
            return;
        }
        let now = Instant::now();
        if self.terminal {
            if self.last_draw.is_none_or(|t| now - t >= REDRAW_EVERY) {
                eprint!("\rcrumbs: {} {}/{}", self.what, self.done, self.total);
                let _ = std::io::stderr().flush();
                self.last_draw = Some(now);
            }
        } else if self.last_draw.is_none() {
            eprintln!("crumbs: {} ({} of {} done after {} s; the kernel takes a while for each)", self.what, self.done, self.total, self.start.elapsed().as_secs());
            self.last_draw = Some(now);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        // Leave the terminal's line as it was before the progress line.
        if self.terminal && self.last_draw.is_some() {
            eprint!("\r\x1b[K");
        }
    }
}
