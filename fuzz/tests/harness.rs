//! The fuzzer as CI runs it, in small (a fixed-seed batch through the whole pipeline, with
//! some programs loaded into the kernel; as root), and the harness's own detection of each
//! kind of failure, provoked on purpose in the worker.

use std::path::PathBuf;
use std::process::{Command, Output};

fn fuzz(args: &[&str], self_test: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_crumbs-fuzz"));
    cmd.args(args);
    if self_test {
        cmd.env("CRUMBS_FUZZ_SELF_TEST", "1");
    }
    cmd.output().expect("run crumbs-fuzz")
}

fn text(out: &Output) -> String {
    format!("status {:?}\nstdout:\n{}\nstderr:\n{}", out.status, String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("crumbs-fuzz-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn fixed_seed_batch_finds_nothing() {
    let out_dir = temp_dir("batch");
    let out = fuzz(&["--seed", "1", "--count", "500", "--live", "20", "--minimize-secs", "5", "--timeout-ms", "10000", "-q", "--out", out_dir.to_str().unwrap()], false);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("seed 1, 500 programs in"), "{all}");
    assert!(all.contains("live: 20 loaded into the kernel"), "{all}");
    // What the verifier rejects is a code generation bug; a program the kernel refuses for
    // what it asks (a bpftrace while loop that never ends, lockdown) is not.
    assert!(all.contains(", 0 rejected by the verifier"), "{all}");
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn reports_each_kind_of_failure_with_its_input() {
    let out_dir = temp_dir("self-test");
    for (kind, says) in [
        ("panic", "panic in start-up at fuzz/src/worker.rs"),
        ("overflow", "stack overflow"),
        ("abort", "killed by signal 6 (SIGABRT)"),
        ("hang", "no answer within 1.0 s"),
    ] {
        let input = out_dir.join(format!("{kind}.d"));
        std::fs::write(&input, format!("crumbs-fuzz-self-test:{kind}")).unwrap();
        let out = fuzz(&["--input", input.to_str().unwrap(), "--timeout-ms", "1000", "--minimize-secs", "2", "--out", out_dir.to_str().unwrap()], true);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(1), "{kind}: {all}");
        assert!(all.contains("FAILURE 1: ") && all.contains(says), "{kind}: {all}");
        assert!(all.contains(&format!("\"crumbs-fuzz-self-test:{kind}\"")), "{kind}: the input is printed\n{all}");
        let saved = std::fs::read_dir(&out_dir).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with("file-1-")).count();
        assert!(saved >= 2, "{kind}: input and minimized input saved\n{all}");
        for e in std::fs::read_dir(&out_dir).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with("file-1-")) {
            std::fs::remove_file(e.path()).unwrap();
        }
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}
