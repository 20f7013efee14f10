//! The parent's side of a worker process: send one request, wait for its reply under a time
//! limit, and turn a panic, a death (stack overflow, abort) or a hang into a verdict. A dead
//! or hung worker is replaced by a fresh one on the next request.

use crate::protocol::{self, Reply, Stage};
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[derive(Debug)]
pub enum Verdict {
    Reply(Reply),
    Panic { location: String, message: String, stage: Option<Stage> },
    Died { status: String, stage: Option<Stage>, stderr: String },
    Hang { stage: Option<Stage>, limit: Duration },
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    frames: Receiver<Option<(u8, Vec<u8>)>>,
    stderr: JoinHandle<String>,
}

pub struct Worker {
    exe: PathBuf,
    running: Option<Running>,
    /// Workers started so far (the first included).
    pub started: u64,
}

impl Worker {
    pub fn new(exe: PathBuf) -> Worker {
        Worker { exe, running: None, started: 0 }
    }

    fn spawn(&mut self) -> std::io::Result<&mut Running> {
        let mut child = Command::new(&self.exe).arg("--worker").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
        let stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = child.stdout.take().expect("piped stdout");
        let mut err = child.stderr.take().expect("piped stderr");
        let (tx, frames) = mpsc::channel();
        std::thread::spawn(move || loop {
            let frame = protocol::read_frame(&mut stdout).ok().flatten();
            let end = frame.is_none();
            if tx.send(frame).is_err() || end {
                break;
            }
        });
        // Only a dying worker writes to stderr (Rust's stack overflow message, an abort).
        let stderr = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = err.read_to_end(&mut buf);
            let text = String::from_utf8_lossy(&buf).into_owned();
            let cut = text.len().saturating_sub(2000);
            text[text.floor_char_boundary(cut)..].to_string()
        });
        self.started += 1;
        Ok(self.running.insert(Running { child, stdin, frames, stderr }))
    }

    /// Sends one request and waits for its outcome, at most `limit`.
    pub fn request(&mut self, cmd: u8, body: &[u8], limit: Duration) -> Verdict {
        let r = match self.running.take() {
            Some(r) => self.running.insert(r),
            None => match self.spawn() {
                Ok(r) => r,
                Err(e) => return Verdict::Died { status: format!("cannot start a worker: {e}"), stage: None, stderr: String::new() },
            },
        };
        // A failed write means the worker is gone; reading then reports how it ended.
        let _ = protocol::write_frame(&mut r.stdin, cmd, body);
        let deadline = Instant::now() + limit;
        let mut stage = None;
        let mut panic = None;
        loop {
            match r.frames.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(Some((protocol::STAGE, b))) => stage = protocol::decode_stage(&b),
                Ok(Some((protocol::PANIC, b))) => panic = Some(protocol::decode_panic(&b)),
                Ok(Some((protocol::REPLY, b))) => {
                    return match (panic, Reply::decode(&b)) {
                        (Some((location, message)), _) => Verdict::Panic { location, message, stage },
                        (None, Some(reply)) => Verdict::Reply(reply),
                        (None, None) => Verdict::Died { status: "garbled reply".into(), stage, stderr: String::new() },
                    };
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                    let (status, stderr) = self.reap(false);
                    return match panic {
                        // A panic = "abort" build: the hook spoke, then the process aborted.
                        Some((location, message)) => Verdict::Panic { location, message, stage },
                        None => Verdict::Died { status, stage, stderr },
                    };
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.reap(true);
                    return Verdict::Hang { stage, limit };
                }
            }
        }
    }

    /// Ends the current worker (killing it if asked) and says how it ended.
    fn reap(&mut self, kill: bool) -> (String, String) {
        let Some(mut r) = self.running.take() else { return (String::new(), String::new()) };
        if kill {
            let _ = r.child.kill();
        }
        drop(r.stdin);
        let status = match r.child.wait() {
            Ok(s) => match (s.code(), s.signal()) {
                (_, Some(sig)) => format!("killed by signal {sig} ({})", signal_name(sig)),
                (Some(c), _) => format!("exited with status {c}"),
                _ => s.to_string(),
            },
            Err(e) => format!("cannot wait for the worker: {e}"),
        };
        (status, r.stderr.join().unwrap_or_default())
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // A worker keeps nothing worth a clean exit.
        if let Some(r) = self.running.as_mut() {
            let _ = r.child.kill();
        }
        self.reap(false);
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGABRT => "SIGABRT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGKILL => "SIGKILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGTRAP => "SIGTRAP",
        _ => "?",
    }
}
