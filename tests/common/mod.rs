//! Helpers shared by the integration tests: run the real `crumbs` binary with a timeout,
//! find the `io-benchmark` workload next to it, make unique temporary paths, and read
//! DTrace's default aggregation layout back into numbers.
//!
//! The tests need root (they load BPF programs), as CI runs them.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

pub mod pty;
pub mod scripts;

/// How long one crumbs run may take before the test fails (a hang must not block CI).
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// The crumbs binary under test.
pub fn crumbs() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_crumbs"))
}

/// The `io-benchmark` workload, built next to crumbs by `cargo test --workspace`
/// (through `tests/io-benchmark/tests/cli.rs`).
pub fn io_benchmark() -> PathBuf {
    let dir = crumbs().parent().expect("crumbs binary has a directory").to_path_buf();
    let p = dir.join("io-benchmark");
    if !p.is_file() {
        panic!(
            "io-benchmark not found at {}: build it with `cargo build --workspace` \
             (or run the tests with `cargo test --workspace`)",
            p.display()
        );
    }
    p
}

/// A PATH that finds io-benchmark (and crumbs) by name, as a user's shell would.
pub fn path_with_bins() -> String {
    let dir = io_benchmark().parent().unwrap().to_path_buf();
    let old = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
    format!("{}:{old}", dir.display())
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh path in the temp directory, unique across parallel tests and test processes.
/// Nothing is created (but by [`TempPath::with_contents`] and [`TempPath::dir`]). What is
/// there, a file or a directory with everything in it, is removed when the guard is
/// dropped, also when an assertion fails first.
pub struct TempPath(pub PathBuf);

impl TempPath {
    pub fn new(name: &str) -> TempPath {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let p = std::env::temp_dir().join(format!("crumbs-test-{}-{n}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&p);
        TempPath(p)
    }

    /// A temp file holding `contents`.
    pub fn with_contents(name: &str, contents: &str) -> TempPath {
        let t = TempPath::new(name);
        std::fs::write(&t.0, contents).expect("write temp file");
        t
    }

    /// A new empty directory.
    pub fn dir(name: &str) -> TempPath {
        let t = TempPath::new(name);
        std::fs::create_dir_all(&t.0).expect("create a temp directory");
        t
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn str(&self) -> &str {
        self.0.to_str().expect("utf-8 temp path")
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = match std::fs::symlink_metadata(&self.0) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&self.0),
            _ => std::fs::remove_file(&self.0),
        };
    }
}

/// A process-unique number (for unique command lines and file names).
pub fn unique() -> usize {
    COUNTER.fetch_add(1, Ordering::SeqCst)
}

/// What one run produced.
#[derive(Debug)]
pub struct Output {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// The command line, for failure messages.
    pub cmdline: String,
}

impl Output {
    /// The exit code (panics, with the whole output, if killed by a signal).
    pub fn code(&self) -> i32 {
        match self.status.code() {
            Some(c) => c,
            None => panic!("{} was killed by a signal: {:?}\n{}", self.cmdline, self.status, self.dump()),
        }
    }

    /// Everything, for assertion messages.
    pub fn dump(&self) -> String {
        format!(
            "command: {}\nstatus: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}\n--- end ---",
            self.cmdline, self.status, self.stdout, self.stderr
        )
    }

    /// Asserts exit status 0 and no panic.
    pub fn assert_ok(&self) -> &Self {
        self.assert_no_panic();
        assert_eq!(self.code(), 0, "expected exit status 0\n{}", self.dump());
        self
    }

    pub fn assert_no_panic(&self) -> &Self {
        assert!(
            !self.stderr.contains("panicked") && !self.stdout.contains("panicked"),
            "crumbs panicked\n{}",
            self.dump()
        );
        self
    }
}

fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        let a = a.to_string_lossy();
        if a.contains([' ', '\'', '"', '$', '\n']) || a.is_empty() {
            s.push_str(&format!(" '{}'", a.replace('\'', "'\\''")));
        } else {
            s.push(' ');
            s.push_str(&a);
        }
    }
    s
}

fn reader<R: Read + Send + 'static>(mut r: R) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut v = Vec::new();
        let _ = r.read_to_end(&mut v);
        v
    })
}

/// Waits for `child` up to `timeout`; kills it (and fails the test) on a hang.
pub fn wait_with_timeout(child: &mut Child, timeout: Duration, what: &str) -> ExitStatus {
    let start = Instant::now();
    loop {
        match child.try_wait().expect("try_wait") {
            Some(status) => return status,
            None if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{what} did not finish within {timeout:?} (killed)");
            }
            None => thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// Starts `cmd`. A fork in another test thread may briefly hold an executable this test
/// just wrote open for writing (until that child execs); starting it meanwhile fails with
/// ETXTBSY, so that is retried.
fn spawn(cmd: &mut Command, cmdline: &str) -> Child {
    for _ in 0..100 {
        match cmd.spawn() {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) => thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("cannot run {cmdline}: {e}"),
            Ok(child) => return child,
        }
    }
    panic!("cannot run {cmdline}: the file stayed busy (ETXTBSY)");
}

/// Runs `cmd` with optional stdin, capturing stdout and stderr, failing the test if it
/// takes longer than `timeout`.
pub fn run_command(mut cmd: Command, stdin: Option<&str>, timeout: Duration) -> Output {
    let cmdline = describe(&cmd);
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = spawn(&mut cmd, &cmdline);
    if let Some(input) = stdin {
        let mut w = child.stdin.take().unwrap();
        let input = input.to_string();
        thread::spawn(move || {
            let _ = w.write_all(input.as_bytes());
        });
    }
    let out = reader(child.stdout.take().unwrap());
    let err = reader(child.stderr.take().unwrap());
    let status = {
        let deadline = start + timeout;
        loop {
            match child.try_wait().expect("try_wait") {
                Some(s) => break s,
                None if Instant::now() > deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    // The pipes may be held open by grandchildren; don't wait for them forever.
                    let (tx, rx) = mpsc::channel();
                    thread::spawn(move || {
                        let o = out.join().unwrap_or_default();
                        let e = err.join().unwrap_or_default();
                        let _ = tx.send((o, e));
                    });
                    let (o, e) = rx.recv_timeout(Duration::from_secs(2)).unwrap_or_default();
                    panic!(
                        "timeout: `{cmdline}` did not finish within {timeout:?} (killed)\n--- stdout ---\n{}\n--- stderr ---\n{}",
                        String::from_utf8_lossy(&o),
                        String::from_utf8_lossy(&e)
                    );
                }
                None => thread::sleep(Duration::from_millis(5)),
            }
        }
    };
    let elapsed = start.elapsed();
    // A grandchild (e.g. of `-c 'sh -c ...'`) may keep the pipes open; bound the wait.
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let o = out.join().unwrap_or_default();
        let e = err.join().unwrap_or_default();
        let _ = tx.send((o, e));
    });
    let (o, e) = rx
        .recv_timeout(timeout)
        .unwrap_or_else(|_| panic!("`{cmdline}` exited but its output pipes stayed open for {timeout:?}"));
    Output {
        status,
        stdout: String::from_utf8_lossy(&o).into_owned(),
        stderr: String::from_utf8_lossy(&e).into_owned(),
        elapsed,
        cmdline,
    }
}

/// A `Command` for crumbs with `args`.
pub fn crumbs_cmd(args: &[&str]) -> Command {
    let mut c = Command::new(crumbs());
    c.args(args);
    c
}

/// Runs crumbs with `args` (no stdin), with the default timeout.
pub fn run(args: &[&str]) -> Output {
    run_command(crumbs_cmd(args), None, TIMEOUT)
}

/// Runs crumbs with `args` and `stdin`.
pub fn run_stdin(args: &[&str], stdin: &str) -> Output {
    run_command(crumbs_cmd(args), Some(stdin), TIMEOUT)
}

/// `crumbs -q -e PROGRAM`, expected to succeed; returns stdout.
pub fn quiet(program: &str) -> String {
    let out = run(&["-q", "-e", program]);
    out.assert_ok();
    out.stdout
}

/// `crumbs -q -e PROGRAM`, expected to succeed; returns stdout without the newline that
/// ends tracing (spec §9.7).
pub fn printed(program: &str) -> String {
    let out = run(&["-q", "-e", program]);
    out.assert_ok();
    out.stdout.strip_suffix('\n').unwrap_or_else(|| panic!("no end-of-tracing newline\n{}", out.dump())).to_string()
}

/// Rows of DTrace's default aggregation layout: each line is its keys (a string key as
/// `"  %-50s"`, an integer as `" %16lld"`) and a `" %16lld"` value. Returns (keys, value)
/// for every line that has that shape; other lines (JSON of the workload, blank lines)
/// are skipped.
pub fn agg_rows(text: &str) -> Vec<(Vec<String>, i64)> {
    let mut rows = Vec::new();
    for line in text.lines() {
        if !line.starts_with(' ') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((last, keys)) = words.split_last() else { continue };
        let Ok(v) = last.parse::<i64>() else { continue };
        rows.push((keys.iter().map(|s| s.to_string()).collect(), v));
    }
    rows
}

/// The value of the one-key row `key`, if printed.
pub fn agg_value(text: &str, key: &str) -> Option<i64> {
    let found: Vec<i64> = agg_rows(text).into_iter().filter(|(k, _)| k.len() == 1 && k[0] == key).map(|(_, v)| v).collect();
    assert!(found.len() <= 1, "key {key} printed {} times in:\n{text}", found.len());
    found.first().copied()
}

/// An integer field of io-benchmark's `-j` JSON line found anywhere in `text`.
pub fn json_field(text: &str, field: &str) -> Option<i64> {
    let line = text.lines().find(|l| l.trim_start().starts_with('{') && l.contains("\"bufsize\""))?;
    let pat = format!("\"{field}\":");
    let at = line.find(&pat)? + pat.len();
    let digits: String = line[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    digits.parse().ok()
}

/// Is any live (non-zombie) process's command line containing `needle`? Zombies have an
/// empty command line, so only processes that are really left running count.
pub fn process_running_with(needle: &str) -> Vec<u32> {
    let me = std::process::id();
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else { return found };
    for e in dir.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else { continue };
        if pid == me {
            continue;
        }
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else { continue };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(needle) {
            found.push(pid);
        }
    }
    found
}

/// Waits up to `within` for no process to have `needle` in its command line.
pub fn assert_no_process_with(needle: &str, within: Duration) {
    let start = Instant::now();
    loop {
        let left = process_running_with(needle);
        if left.is_empty() {
            return;
        }
        if start.elapsed() > within {
            for pid in &left {
                // SAFETY: plain kill(2) of processes this test started (identified by a
                // unique command line), so they do not outlive the test.
                unsafe {
                    libc::kill(*pid as i32, libc::SIGKILL);
                }
            }
            panic!("processes still running with `{needle}` in their command line: {left:?}");
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// `" %16lld"`: DTrace's integer column (aggregation keys and values, trace()).
pub fn int_col(n: i64) -> String {
    format!(" {n:>16}")
}

/// `crumbs -e PROGRAM` fails to compile: exit status 2, no panic, the message and the hint
/// on stderr, and a labelled span (the `┬` under the span and its `╰─` label line).
pub fn assert_compile_error(program: &str, message: &str, hint: &str) {
    let out = run(&["-e", program]);
    out.assert_no_panic();
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains(message), "message {message:?}\n{}", out.dump());
    assert!(out.stderr.contains(hint), "hint {hint:?}\n{}", out.dump());
    assert!(out.stderr.contains('┬') && out.stderr.contains("╰─"), "a span with a label\n{}", out.dump());
}

/// `" %8d"`: how DTrace prints a 4-byte integer (an `int`) traced or as a key.
pub fn int32_col(n: i64) -> String {
    format!(" {n:>8}")
}

/// `"  %-50s"`: DTrace's string key column in aggregations.
pub fn str_col(s: &str) -> String {
    format!("  {s:<50}")
}

/// `source` built with gcc (and `flags`) as `dir/name`; returns the executable's path.
#[allow(dead_code)]
pub fn compiled_c(dir: &TempPath, name: &str, source: &str, flags: &[&str]) -> String {
    let src = format!("{}/{name}.c", dir.str());
    std::fs::write(&src, source).unwrap();
    let exe = format!("{}/{name}", dir.str());
    let out = Command::new("gcc").args(["-O1", "-o", &exe, &src]).args(flags).output().expect("gcc runs");
    assert!(out.status.success(), "gcc {name}.c: {}", String::from_utf8_lossy(&out.stderr));
    exe
}

/// A C program whose main calls a, which calls b, which calls c: user stacks three frames
/// deep at c (built with `-O0 -fno-omit-frame-pointer`).
#[allow(dead_code)]
pub const CALLS: &str = r#"
__attribute__((noinline)) int c(int x) { return x + 1; }
__attribute__((noinline)) int b(int x) { return c(x) * 2; }
__attribute__((noinline)) int a(int x) { return b(x) + 3; }
int main(void) { return a(1) == 7 ? 0 : 1; }
"#;

/// Runs crumbs as `bpftrace` (a symlink in a temporary directory: invoked by that name it is
/// the drop-in) with `args`, `stdin` and the environment variables `env`.
pub fn bpftrace_dropin(args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
    let dir = TempPath::dir("bpftrace-dropin");
    let path = dir.path().join("bpftrace");
    std::os::unix::fs::symlink(crumbs(), &path).expect("symlink bpftrace -> crumbs");
    let mut c = Command::new(&path);
    c.args(args).envs(env.iter().copied());
    let out = run_command(c, stdin, TIMEOUT);
    out.assert_no_panic();
    out
}
