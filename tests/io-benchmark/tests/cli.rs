//! Smoke tests of the io-benchmark binary. Having an integration test also makes
//! `cargo test --workspace` build the real binary (target/<triple>/debug/io-benchmark),
//! which the crumbs tests run as their workload.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_io-benchmark");

struct TempDir(PathBuf);
impl TempDir {
    fn new(name: &str) -> TempDir {
        let d =
            std::env::temp_dir().join(format!("io-benchmark-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }
    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the benchmark; returns (exit code, stdout, stderr, the `syscr` line of
/// /proc/PID/io read while the process is a zombie, if the kernel has I/O accounting).
fn run(args: &[&str], file: &Path) -> (i32, String, String, Option<u64>) {
    let mut child = Command::new(BIN)
        .args(args)
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn io-benchmark");
    let mut out = String::new();
    let mut err = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    // Wait for the exit without reaping, so that /proc/PID/io still has the final counts.
    // SAFETY: a zeroed siginfo_t is a valid out-parameter.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: waitid on our own child with WNOWAIT leaves it for child.wait().
    let r = unsafe {
        libc::waitid(
            libc::P_PID,
            child.id(),
            &mut info,
            libc::WEXITED | libc::WNOWAIT,
        )
    };
    assert_eq!(r, 0, "waitid");
    let syscr = std::fs::read_to_string(format!("/proc/{}/io", child.id()))
        .ok()
        .and_then(|io| {
            io.lines()
                .find_map(|l| l.strip_prefix("syscr:").map(|v| v.trim().parse().unwrap()))
        });
    let status = child.wait().unwrap();
    (status.code().unwrap_or(-1), out, err, syscr)
}

/// `"key":123` in the benchmark's JSON output.
fn num(json: &str, key: &str) -> u64 {
    let pat = format!("\"{key}\":");
    let at = json
        .find(&pat)
        .unwrap_or_else(|| panic!("no {key} in {json}"))
        + pat.len();
    let digits: String = json[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("bad {key} in {json}"))
}

fn samples(json: &str) -> Vec<u64> {
    let at = json.find("\"samples\":[").expect("samples") + "\"samples\":[".len();
    let end = at + json[at..].find(']').unwrap();
    json[at..end]
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}

#[test]
fn create_read_write() {
    let d = TempDir::new("crw");
    let f = d.file("data");
    let (code, out, err, _) = run(&["-c", "-s", "100000"], &f);
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty());
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 100_000);

    let (code, out, err, _) = run(&["-r", "-b", "512", "-n", "3", "-j", "-v"], &f);
    assert_eq!(code, 0, "{err}");
    assert_eq!(num(&out, "bufsize"), 512);
    assert_eq!(num(&out, "total"), 100_000);
    assert_eq!(num(&out, "iterations"), 3);
    assert_eq!(num(&out, "reads"), 196 * 3);
    assert_eq!(num(&out, "writes"), 0);
    let s = samples(&out);
    assert_eq!(s.len(), 3);
    assert_eq!(s.iter().sum::<u64>(), num(&out, "time_ns"));
    assert!(out.contains("\"bandwidth_mbps\":"));
    assert!(out.ends_with("]}\n"), "{out}");
    assert!(err.contains("read calls"), "{err}");

    let (code, out, err, _) = run(&["-w", "-b", "4K", "-s", "64K", "-j"], &f);
    assert_eq!(code, 0, "{err}");
    assert_eq!(num(&out, "writes"), 16);
    assert_eq!(num(&out, "reads"), 0);
    assert_eq!(num(&out, "bufsize"), 4096);

    // -c with -r: create (untimed), then read.
    let (code, out, err, _) = run(&["-cr", "-s", "1K", "-b", "1000", "-j"], &f);
    assert_eq!(code, 0, "{err}");
    assert_eq!(num(&out, "total"), 1024);
    assert_eq!(num(&out, "reads"), 2);
}

/// The crumbs tests count every read system call of the process and compare with `reads`:
/// the process must make no others. /proc/PID/io's syscr also counts the kernel's own reads
/// of the executable during execve, so compare against a -c run (which reads nothing).
#[test]
fn no_read_syscalls_besides_the_loop() {
    let d = TempDir::new("syscr");
    let f = d.file("data");
    let (code, _, err, base) = run(&["-c", "-s", "300K"], &f);
    assert_eq!(code, 0, "{err}");
    let Some(base) = base else {
        eprintln!("no /proc/PID/io (CONFIG_TASK_IO_ACCOUNTING): skipped");
        return;
    };
    for bufsize in ["1K", "7000", "1M"] {
        let (code, out, err, syscr) = run(&["-r", "-b", bufsize, "-n", "2", "-j"], &f);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            syscr.unwrap() - base,
            num(&out, "reads"),
            "-r -b {bufsize}: {out}"
        );
    }
    let (code, out, err, syscr) = run(&["-w", "-b", "1K", "-j"], &f);
    assert_eq!(code, 0, "{err}");
    assert_eq!(num(&out, "writes"), 300);
    assert_eq!(syscr.unwrap(), base, "-w made read calls");
}

#[test]
fn errors() {
    let d = TempDir::new("err");
    let f = d.file("missing");
    assert_eq!(run(&["-r"], &f).0, 1);
    assert_eq!(run(&[], &f).0, 2);
    assert_eq!(run(&["-r", "-w"], &f).0, 2);
    assert_eq!(run(&["-r", "-b", "0"], &f).0, 2);
    assert_eq!(run(&["-r", "-b", "17M"], &f).0, 2);
    assert_eq!(run(&["-r", "-n", "0"], &f).0, 2);
    assert_eq!(run(&["-x"], &f).0, 2);
    let (code, _, err, _) = run(&["-r", "-b"], &f);
    assert_eq!(code, 2, "{err}");
}
