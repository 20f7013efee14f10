//! The tracing thread: compiles a program, starts its `cmd`, traces until it ends and sends
//! everything that happens, as owned data, to whoever holds the [`Receiver`]. It never
//! touches Python, so the interpreter runs (and other threads hold the GIL) meanwhile.

use crate::collect::Collect;
use crumbs_runtime::driver::{self, CompileError, CompileOptions};
use crumbs_runtime::kernel::LiveKernel;
use crumbs_runtime::output::{AggRow, Value};
use crumbs_runtime::session::{RunError, RunOptions};
use crumbs_runtime::stop::StopHandle;
use crumbs_runtime::value_maps::ValueMap;
use std::sync::mpsc::{Receiver, Sender};
use std::time::Duration;

/// What to trace, as `crumbs.run()` was called.
pub struct Request {
    pub program: String,
    pub cmd: Option<String>,
    pub pid: Option<i32>,
    pub duration: Option<Duration>,
    /// `-x NAME[=VALUE]` options.
    pub options: Vec<String>,
    /// Destructive actions allowed (`-w`).
    pub destructive: bool,
    /// Compile only (python-dtrace's `compile()`): nothing is started or loaded.
    pub check_only: bool,
}

/// One firing, as Python sees it.
pub struct Record {
    /// The probe's full description (`syscall::read:entry`).
    pub probe: String,
    pub function: String,
    pub name: String,
    pub cpu: u32,
    /// When it fired (CLOCK_MONOTONIC ns, D's `timestamp`), in which process and thread,
    /// and the thread's name then (D's `execname`).
    pub ts: u64,
    pub pid: u32,
    pub tid: u32,
    pub comm: String,
    /// What trace() and printf() output, in order (printf's arguments each).
    pub values: Vec<Value>,
    /// Each action's text as the text output prints it (quiet), and its DTrace action code.
    pub actions: Vec<(u16, String)>,
}

/// One aggregation at the end of tracing.
pub struct Aggregation {
    /// `@name` (`@` alone for the anonymous one).
    pub name: String,
    /// Its function (`count`, `quantize`, ...).
    pub function: &'static str,
    pub rows: Vec<AggRow>,
}

/// Why tracing stopped.
pub enum Stop {
    Exit(i32),
    Interrupted,
    ProcessExited(i32),
}

/// What the tracing thread reports, in order.
pub enum Msg {
    /// The program compiled: how many probes it matched.
    Compiled { probes: usize },
    /// It did not: the rendered diagnostic, its message and 1-based line and column (0 when
    /// the error is not in the text).
    CompileFailed { rendered: String, message: String, line: usize, col: usize },
    /// Every probe is attached (the `cmd` runs from here on).
    Attached,
    Record(Record),
    /// A fault or a notice, for standard error.
    Message(String),
    Stopped(Stop),
    /// The aggregations, bpftrace's maps of values, and what the kernel could not keep.
    Finished { aggregations: Vec<Aggregation>, maps: Vec<ValueMap>, drops: Vec<String> },
    /// Tracing could not start or went wrong: one line.
    Failed(String),
    /// The session ended with this exit status.
    Done(i32),
}

/// Runs the whole session on the calling thread (the tracing thread): a `-c` child is
/// ptrace'd by the thread that forks it, so the fork, the run and its release share one.
pub fn trace(req: Request, stop: StopHandle, tx: Sender<Msg>) {
    let dialect = driver::written_in(&req.program, None);
    let cmd = if req.check_only { None } else { req.cmd.as_deref() };
    let child = match cmd.map(|cmd| driver::spawn_command(dialect, cmd)).transpose() {
        Ok(c) => c,
        Err(e) => {
            let _ = tx.send(Msg::Failed(format!("cmd: {e}")));
            return;
        }
    };
    let target = child.as_ref().map(|c| c.pid).or(req.pid).map(i64::from);
    let opts = CompileOptions { target, args: vec!["<python>".into()], options: req.options.clone(), destructive: req.destructive, record_meta: true, ..Default::default() };
    let compiled = match driver::compile(&req.program, &opts, &LiveKernel) {
        Ok(c) => c,
        Err(CompileError::Source(d)) => {
            let (line, col) = crumbs_lang::diag::line_col(&req.program, d.span.start);
            let rendered = d.render("<program>", &req.program, false);
            let _ = tx.send(Msg::CompileFailed { rendered, message: d.message, line, col });
            return;
        }
        Err(CompileError::Message(m)) => {
            let _ = tx.send(Msg::CompileFailed { rendered: m.clone(), message: m, line: 0, col: 0 });
            return;
        }
    };
    let _ = tx.send(Msg::Compiled { probes: compiled.program.matched_probes });
    if req.check_only {
        return;
    }
    let _timer = req.duration.map(|d| Timer::start(d, stop.clone()));
    let mut sink = Collect::new(&compiled.program, tx.clone());
    let opts = RunOptions { quiet: true, child, pid: req.pid, stop: Some(stop), ..Default::default() };
    let _ = tx.send(match driver::run(&compiled, opts, &mut sink) {
        Ok(status) => Msg::Done(status),
        Err(RunError::Permission(m)) | Err(RunError::Other(m)) => Msg::Failed(m),
        Err(RunError::Verifier { attach, message, log_tail, .. }) => {
            Msg::Failed(format!("internal error: the kernel's verifier rejected the program for {attach:?} ({message}); this is a bug in crumbs' code generation.\nverifier log (last lines):\n{log_tail}"))
        }
    });
}

/// Stops the session after a duration, unless dropped first (the session ended).
struct Timer {
    _cancel: Sender<()>,
}

impl Timer {
    fn start(after: Duration, stop: StopHandle) -> Timer {
        let (cancel, cancelled) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || wait_then_stop(cancelled, after, stop));
        Timer { _cancel: cancel }
    }
}

fn wait_then_stop(cancelled: Receiver<()>, after: Duration, stop: StopHandle) {
    // Disconnected: the session ended first; a timeout: time is up.
    if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = cancelled.recv_timeout(after) {
        stop.stop();
    }
}
