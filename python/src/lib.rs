//! `crumbs._native`: the session behind the `crumbs` Python package. A session compiles and
//! traces on a thread of its own (see [`tracing`]); Python takes what it reports one event
//! at a time, the GIL released while it waits. The Python side (`crumbs/`) builds results,
//! frames, the streaming iterator and python-dtrace's consumers from these events.

mod collect;
mod convert;
mod tracing;

use crumbs_runtime::stop::StopHandle;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::Duration;

/// One tracing session, started when made.
#[pyclass(module = "crumbs._native")]
struct Session {
    stop: StopHandle,
    events: Mutex<Receiver<tracing::Msg>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

#[pymethods]
impl Session {
    #[new]
    #[pyo3(signature = (program, cmd=None, pid=None, duration=None, options=Vec::new(), destructive=false, check_only=false))]
    fn new(program: String, cmd: Option<String>, pid: Option<i64>, duration: Option<f64>, options: Vec<String>, destructive: bool, check_only: bool) -> PyResult<Session> {
        let duration = match duration {
            Some(d) if !(d.is_finite() && d >= 0.0) => return Err(PyValueError::new_err(format!("duration={d}: not a number of seconds (a finite number, 0 or more)"))),
            d => d.map(Duration::from_secs_f64),
        };
        // kill(2) gives 0 and negative numbers meanings of their own (process groups).
        let pid = match pid {
            Some(p) if p <= 0 || p > i32::MAX as i64 => return Err(PyValueError::new_err(format!("pid={p}: not a process id (process ids are positive numbers)"))),
            p => p.map(|p| p as i32),
        };
        if cmd.as_deref().is_some_and(|c| c.trim().is_empty()) {
            return Err(PyValueError::new_err("cmd='': no command to run"));
        }
        let stop = StopHandle::new()?;
        let (tx, rx) = std::sync::mpsc::channel();
        let req = tracing::Request { program, cmd, pid, duration, options, destructive, check_only };
        let asked = stop.clone();
        let thread = std::thread::Builder::new().name("crumbs-trace".into()).spawn(move || tracing::trace(req, asked, tx))?;
        Ok(Session { stop, events: Mutex::new(rx), thread: Mutex::new(Some(thread)) })
    }

    /// The next event as a tuple (`("record", {...})`, `("finished", aggregations, drops)`,
    /// ...), waiting at most `timeout` seconds (None: until there is one) with the GIL
    /// released; None when none came in time, `("end",)` once the session is over.
    #[pyo3(signature = (timeout=None))]
    fn next_event(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<Py<PyAny>>> {
        let got = py.detach(|| {
            let rx = self.events.lock().unwrap_or_else(|e| e.into_inner());
            match timeout {
                Some(t) => rx.recv_timeout(Duration::from_secs_f64(t.max(0.0))),
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            }
        });
        match got {
            Ok(msg) => convert::event(py, msg).map(Some),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => convert::end(py).map(Some),
        }
    }

    /// Asks the session to stop: the probes are detached, END runs, the aggregations are
    /// read (events that follow say so). Idempotent.
    fn stop(&self) {
        self.stop.stop();
    }

    /// Waits, with the GIL released, until the tracing thread has ended.
    fn join(&self, py: Python<'_>) {
        let thread = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(t) = thread {
            py.detach(|| {
                let _ = t.join();
            });
        }
    }
}

impl Drop for Session {
    /// A session dropped while tracing stops, and its probes are detached before this returns.
    fn drop(&mut self) {
        self.stop.stop();
        if let Some(t) = self.thread.get_mut().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = t.join();
        }
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Session>()?;
    Ok(())
}
