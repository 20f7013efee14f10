//! Stopping: a signal, the end of the `-c` command or of the `-p` process stops tracing even
//! while records stream in without a pause (spec §9.1), a second signal ends crumbs at once,
//! and the `-c` command does not outlive crumbs, even when it is set-uid (spec §10.2).
//!
//! The streams here come from programs that trace crumbs' own work: every record crumbs
//! prints makes system calls that fire the probe again, so the buffer never empties.

mod common;

use common::{crumbs_cmd, int_col, wait_with_timeout, TempPath, TIMEOUT};
use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

/// Stack records of every system call crumbs itself makes: a stream that feeds itself.
const FEEDS_ITSELF: &str = r#"syscall:::entry /execname == "crumbs"/ { stack(); }"#;

/// One self-feeding crumbs at a time in this test binary: two would feed each other too.
static STREAM: Mutex<()> = Mutex::new(());

fn one_stream() -> MutexGuard<'static, ()> {
    STREAM.lock().unwrap_or_else(|e| e.into_inner())
}

/// Waits until `path` holds `bytes` bytes: records are streaming in.
fn wait_for_output(child: &mut Child, path: &Path, bytes: u64) {
    let start = Instant::now();
    while std::fs::metadata(path).map_or(0, |m| m.len()) < bytes {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("crumbs ended ({status:?}) before its output reached {bytes} bytes");
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("crumbs' output did not reach {bytes} bytes");
        }
        thread::sleep(Duration::from_millis(20));
    }
}

fn signal(pid: u32, signal: i32) {
    // SAFETY: kill(2) of a process this test started.
    unsafe {
        libc::kill(pid as i32, signal);
    }
}

fn stream_then_signal(sig: i32) {
    let _one = one_stream();
    let out = TempPath::new("feeds-itself");
    let program = format!(r#"{FEEDS_ITSELF} END {{ printf("end\n"); }}"#);
    let mut crumbs = crumbs_cmd(&["-q", "-o", out.str(), "-e", &program]).stdin(Stdio::null()).spawn().expect("start crumbs");
    wait_for_output(&mut crumbs, out.path(), 1 << 20);
    signal(crumbs.id(), sig);
    let status = wait_with_timeout(&mut crumbs, TIMEOUT, "crumbs after one signal while records stream in");
    assert_eq!(status.code(), Some(0), "{status:?}");
    let text = std::fs::read_to_string(out.path()).unwrap();
    assert!(text.contains("entry_SYSCALL_64"), "no stacks printed:\n{}", &text[..text.len().min(2000)]);
    // spec §9.1: the records, "\n" for the signal, END, the end of tracing's "\n".
    assert!(text.ends_with("\n\nend\n\n"), "{:?}", &text[text.len().saturating_sub(200)..]);
}

#[test]
fn sigint_stops_a_program_that_feeds_itself() {
    stream_then_signal(libc::SIGINT);
}

#[test]
fn sigterm_stops_a_program_that_feeds_itself() {
    stream_then_signal(libc::SIGTERM);
}

#[test]
fn c_command_exit_stops_tracing_while_records_stream_in() {
    let _one = one_stream();
    let out = TempPath::new("feeds-itself-c");
    let program = format!(r#"{FEEDS_ITSELF} syscall::exit_group:entry /pid == $target/ {{ @exits = count(); }}"#);
    let mut crumbs = crumbs_cmd(&["-q", "-o", out.str(), "-e", &program, "-c", "sleep 1"]).stdin(Stdio::null()).spawn().expect("start crumbs");
    let status = wait_with_timeout(&mut crumbs, TIMEOUT, "crumbs -c 'sleep 1' while records stream in");
    assert_eq!(status.code(), Some(0), "{status:?}");
    let text = std::fs::read_to_string(out.path()).unwrap();
    assert!(text.contains("entry_SYSCALL_64"), "no stacks printed:\n{}", &text[..text.len().min(2000)]);
    assert!(text.ends_with(&format!("\n\n{}\n", int_col(1))), "{:?}", &text[text.len().saturating_sub(200)..]);
}

#[test]
fn p_process_exit_stops_tracing_while_records_stream_in() {
    let _one = one_stream();
    let mut sleeper = Command::new("sleep").arg("1000").stdin(Stdio::null()).spawn().expect("start sleep");
    let pid = sleeper.id().to_string();
    let out = TempPath::new("feeds-itself-p");
    let program = format!(r#"{FEEDS_ITSELF} END {{ printf("end\n"); }}"#);
    let mut crumbs = crumbs_cmd(&["-q", "-o", out.str(), "-e", &program, "-p", &pid]).stdin(Stdio::null()).spawn().expect("start crumbs");
    wait_for_output(&mut crumbs, out.path(), 1 << 20);
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
    let status = wait_with_timeout(&mut crumbs, TIMEOUT, "crumbs -p after the process ended while records stream in");
    assert_eq!(status.code(), Some(0), "{status:?}");
    let text = std::fs::read_to_string(out.path()).unwrap();
    // No "\n" for a signal: the records, END, the end of tracing's "\n".
    let tail = &text[text.len().saturating_sub(200)..];
    assert!(text.ends_with("\nend\n\n") && !text.ends_with("\n\nend\n\n"), "{tail:?}");
}

/// Is `pid` blocked writing to its standard output (a full pipe nobody reads)?
fn blocked_writing_stdout(pid: u32) -> bool {
    // "NR ARG0 ...": the system call a sleeping task is in; "running" otherwise.
    std::fs::read_to_string(format!("/proc/{pid}/syscall")).is_ok_and(|s| s.starts_with("1 0x1 "))
}

/// Waits until crumbs blocks writing to a pipe nobody reads.
fn wait_until_blocked(crumbs: &mut Child) {
    let start = Instant::now();
    while !blocked_writing_stdout(crumbs.id()) {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = crumbs.kill();
            let _ = crumbs.wait();
            panic!("crumbs never blocked writing to the full pipe");
        }
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn second_signal_ends_crumbs_at_once() {
    // spec §10.3: the first signal stops tracing, but the rest of the output cannot be
    // written while nobody reads the pipe; the second ends crumbs, killed by that signal.
    for (first, second) in [(libc::SIGINT, libc::SIGINT), (libc::SIGTERM, libc::SIGTERM), (libc::SIGINT, libc::SIGTERM)] {
        let program = r#"profile-997 { printf("%s\n", "a line that fills the pipe nobody reads"); } END { printf("end\n"); }"#;
        let mut crumbs = crumbs_cmd(&["-q", "-e", program]).stdin(Stdio::null()).stdout(Stdio::piped()).spawn().expect("start crumbs");
        let _unread = crumbs.stdout.take();
        wait_until_blocked(&mut crumbs);
        signal(crumbs.id(), first);
        thread::sleep(Duration::from_millis(100));
        assert!(crumbs.try_wait().unwrap().is_none(), "crumbs ended on the first signal although its output is blocked");
        signal(crumbs.id(), second);
        let status = wait_with_timeout(&mut crumbs, TIMEOUT, "crumbs after a second signal");
        assert_eq!(status.signal(), Some(second), "{status:?}");
    }
}

/// A copy of `sleep` under a unique name in the target's temporary directory (where
/// set-uid files work, unlike a `nosuid` /tmp), set-uid to nobody if `setuid`.
struct SleepCopy(PathBuf);

impl SleepCopy {
    fn new(setuid: bool) -> SleepCopy {
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("crumbs-sleep-{}-{}", std::process::id(), common::unique()));
        std::fs::copy("/bin/sleep", &path).expect("copy /bin/sleep");
        if setuid {
            use std::os::unix::fs::PermissionsExt;
            std::os::unix::fs::chown(&path, Some(65534), Some(65534)).expect("chown nobody");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o4755)).expect("chmod u+s");
        }
        SleepCopy(path)
    }
}

impl Drop for SleepCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The pid of the process running `exe` (its argv[0]), if any.
fn pid_running(exe: &Path) -> Option<u32> {
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid = e.file_name().to_str()?.parse::<u32>().ok()?;
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        (cmdline.split(|b| *b == 0).next()? == exe.as_os_str().as_encoded_bytes()).then_some(pid)
    })
}

/// Gone, or a zombie waiting for init to reap it: no longer running.
fn ended(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

fn effective_uid(pid: u32) -> u32 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
    line.split_whitespace().nth(2).unwrap().parse().unwrap()
}

/// Runs the copy under `-c`, waits until it sleeps, kills crumbs with SIGKILL and expects
/// the command to end too.
fn command_dies_with_crumbs(setuid: bool) {
    let sleep = SleepCopy::new(setuid);
    let command = format!("{} 1000", sleep.0.display());
    let program = r#"syscall::clock_nanosleep:entry /pid == $target/ { printf("sleeping\n"); }"#;
    let mut crumbs = crumbs_cmd(&["-q", "-e", program, "-c", &command]).stdin(Stdio::null()).stdout(Stdio::piped()).spawn().expect("start crumbs");
    let stdout = crumbs.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(Duration::from_secs(20)).unwrap_or_default();
    if line != "sleeping\n" {
        let _ = crumbs.kill();
        let _ = crumbs.wait();
        panic!("crumbs did not report the command sleeping: {line:?}");
    }
    let child = pid_running(&sleep.0).expect("the -c command is running");
    let uid = effective_uid(child);
    if setuid {
        assert_eq!(uid, 65534, "the set-uid bit of {} did not take effect (a nosuid file system?)", sleep.0.display());
    } else {
        assert_eq!(uid, 0);
    }
    signal(crumbs.id(), libc::SIGKILL);
    crumbs.wait().unwrap();
    let start = Instant::now();
    while !ended(child) {
        if start.elapsed() > Duration::from_secs(10) {
            signal(child, libc::SIGKILL);
            panic!("the -c command (pid {child}, euid {uid}) outlived crumbs");
        }
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn setuid_c_command_dies_with_crumbs() {
    command_dies_with_crumbs(true);
}

#[test]
fn c_command_dies_with_crumbs() {
    command_dies_with_crumbs(false);
}

#[test]
fn in_the_repl_a_second_signal_stops_the_program_not_the_repl() {
    // spec §10.3: in the REPL every Ctrl-C only stops the program running; the prompt
    // comes back for the next one.
    let program = r#"profile-997 { printf("%s\n", "a line that fills the pipe nobody reads"); } END { printf("end\n"); }"#;
    let mut crumbs = crumbs_cmd(&["--repl", "-q"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("start crumbs");
    let mut stdin = crumbs.stdin.take().unwrap();
    use std::io::Write;
    writeln!(stdin, "{program}").unwrap();
    wait_until_blocked(&mut crumbs);
    signal(crumbs.id(), libc::SIGINT);
    thread::sleep(Duration::from_millis(100));
    signal(crumbs.id(), libc::SIGINT);
    thread::sleep(Duration::from_millis(100));
    assert!(crumbs.try_wait().unwrap().is_none(), "a second Ctrl-C ended the REPL");
    // Unblock it: the program stops, END runs, and the REPL reads the next line.
    let stdout = crumbs.stdout.take().unwrap();
    let reader = thread::spawn(move || std::io::read_to_string(stdout).unwrap());
    writeln!(stdin, r#"BEGIN {{ printf("next program\n"); exit(0); }}"#).unwrap();
    writeln!(stdin, ":quit").unwrap();
    drop(stdin);
    let status = wait_with_timeout(&mut crumbs, TIMEOUT, "the REPL after two signals");
    assert_eq!(status.code(), Some(0), "{status:?}");
    let text = reader.join().unwrap();
    let after = text.find("\nend\n").expect("END of the stopped program ran");
    assert!(text[after..].contains("next program\n"), "{:?}", &text[text.len().saturating_sub(300)..]);
}
