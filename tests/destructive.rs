//! Destructive actions (spec §7.15): `system()`, `raise()`, `stop()` and `chill()`, allowed only with
//! `-w` or the `destructive` option. Live: each program runs in the kernel.

mod common;

use common::{assert_compile_error as assert_error, run};

#[test]
fn destructive_actions_need_w() {
    for (program, name) in [("BEGIN { raise(10); }", "raise"), ("BEGIN { stop(); }", "stop"), ("BEGIN { system(\"true\"); }", "system"), ("BEGIN { chill(1); }", "chill")] {
        assert_error(program, &format!("{name}() is a destructive action"), "allow destructive actions with -w (or #pragma D option destructive)");
    }
    let out = run(&["-w", "-e", "BEGIN { exit(0); }"]);
    out.assert_ok();
    assert!(out.stderr.starts_with("crumbs: allowing destructive actions\n"), "{}", out.dump());
}

/// system() runs the formatted command when crumbs reads the record, its output in order
/// with crumbs' own.
#[test]
fn system_runs_the_command_in_order() {
    for allow in [&["-w"][..], &["-x", "destructive"][..]] {
        let mut args = allow.to_vec();
        args.extend(["-q", "-e", r#"BEGIN { printf("before\n"); system("echo %s-%d", "hi", 6 * 7); printf("after\n"); exit(0); }"#]);
        let out = run(&args);
        out.assert_ok();
        assert_eq!(out.stdout, "before\nhi-42\nafter\n\n", "{}", out.dump());
    }
    let out = run(&["-q", "-e", "#pragma D option destructive\nBEGIN { system(\"echo pragma\"); exit(0); }"]);
    out.assert_ok();
    assert_eq!(out.stdout, "pragma\n\n", "{}", out.dump());
}

/// raise() signals the process that fired the probe: the traced shell's trap runs.
#[test]
fn raise_signals_the_process_that_fired_the_probe() {
    let out = run(&[
        "-w",
        "-q",
        "-e",
        "syscall::wait4:entry /pid == $target && !sent/ { raise(10); sent = 1; }",
        "-c",
        "sh -c 'trap \"echo got-usr1; exit 0\" USR1; while :; do sleep 0.05; done'",
    ]);
    out.assert_ok();
    assert!(out.stdout.starts_with("got-usr1\n"), "{}", out.dump());
}

/// stop() stops the process: a system() command sees it stopped, then resumes it.
#[test]
fn stop_stops_the_process_until_it_is_continued() {
    let out = run(&[
        "-w",
        "-q",
        "-e",
        r#"syscall::clock_nanosleep:entry /pid == $target && !stopped/ { stop(); stopped = 1; }
        tick-200ms /stopped == 1/ { system("cut -d' ' -f3 /proc/%d/stat; kill -CONT %d", $target, $target); stopped = 2; }"#,
        "-c",
        "sleep 0.01",
    ]);
    out.assert_ok();
    assert_eq!(out.stdout, "T\n\n", "{}", out.dump());
}

#[test]
fn raise_needs_a_signal() {
    let out = run(&["-w", "-e", "BEGIN { raise(0); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("0 is not a signal"), "{}", out.dump());
    assert_error("#pragma D option destructive\nBEGIN { stop(1); }", "stop() takes 0 arguments", "");
}

/// A system() command from BEGIN runs once every probe is attached, as in DTrace, so its
/// work is traced (crumbs used to print BEGIN's records before attaching the others).
#[test]
fn begins_system_command_is_traced() {
    let out = run(&["-w", "-q", "-e", r#"BEGIN { system("echo hi > /dev/null"); } syscall::write:entry /ppid == $pid/ { printf("seen %s\n", execname); exit(0); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "seen sh\n\n", "{}", out.dump());
}

/// chill() spins until its time has passed: the clock moves on by at least that much
/// within the clause, and the clause goes on after it.
#[test]
fn chill_spins_for_its_time() {
    let out = run(&["-w", "-q", "-e", "BEGIN { t = timestamp; chill(20000000); d = timestamp - t; chill(0); printf(\"%d %d\\n\", d >= 20000000, timestamp - t >= d); exit(0); }"]);
    out.assert_ok();
    assert_eq!(out.stdout, "1 1\n\n", "{}", out.dump());
}

/// A CPU spins at most 500 ms in each second: a chill() past that is an illegal operation
/// (arg5 the time asked for), its record discarded; the next clause runs. A time that is
/// not a number of ns (negative) is past it too.
#[test]
fn chill_past_the_cpus_budget_is_an_illegal_operation() {
    let out = run(&["-w", "-q", "-e", r#"BEGIN { chill(300000000); printf("first\n"); }
        BEGIN { n = 300000000; chill(n); printf("not printed\n"); }
        BEGIN { m = -1; chill(m); printf("not printed either\n"); }
        BEGIN { printf("last\n"); exit(0); }
        ERROR { printf("error %d %d %d\n", arg4 == DTRACEFLT_ILLOP, arg5, arg2); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "first\nerror 1 300000000 2\nerror 1 -1 2\nlast\n\n", "{}", out.dump());
    assert_eq!(out.stderr.matches("illegal operation in action").count(), 2, "{}", out.dump());
}

#[test]
fn chill_errors() {
    for (program, message, hint) in [
        ("BEGIN { chill(600000000); }", "chill() cannot spin for 600000000 ns", "a CPU spins at most 500000000 ns (500 ms) in each second"),
        ("BEGIN { chill(-5); }", "chill() cannot spin for -5 ns", "a CPU spins at most"),
        ("BEGIN { chill(); }", "chill() takes 1 argument, but 0 given", "usage: chill(nanoseconds)"),
        ("BEGIN { chill(\"x\"); }", "chill()'s time must be an integer", ""),
        ("BEGIN { speculate(speculation()); chill(1); }", "chill() cannot be speculative", ""),
    ] {
        assert_error(&format!("#pragma D option destructive\n{program}"), message, hint);
    }
}

/// A program whose buffers crumbs rewrites: each write(-N, buf, 1) fails (EBADF) and
/// marks where a probe writes; the program then prints its buffers.
const BUFFERS: &str = r#"#include <stdio.h>
#include <unistd.h>
int main(void) {
    char a[16] = "abcdefghijkl", b[16] = "xxxxxxxxxxxx", c[16] = "xxxxxxxxxxxx";
    write(-1, a, 1);
    write(-2, b, 1);
    write(-3, c, 1);
    write(-4, a, 1);
    printf("%s %s %s\n", a, b, c);
    return 0;
}
"#;

/// copyout() writes kernel memory (here from copyin()) into the process; copyoutstr()
/// writes the string and its NUL, or only maxlen bytes. A write of nothing writes nothing;
/// an address that cannot be written is an invalid address error.
#[test]
fn copyout_and_copyoutstr_write_the_process_memory() {
    let dir = common::TempPath::dir("copyout");
    let src = dir.path().join("buffers.c");
    std::fs::write(&src, BUFFERS).unwrap();
    let exe = dir.path().join("buffers");
    let built = std::process::Command::new("gcc").arg("-o").arg(&exe).arg(&src).status().unwrap();
    assert!(built.success());
    let p = r#"syscall::write:entry /pid == $target && (int)arg0 == -1/ { copyout(copyin(arg1 + 8, 4), arg1, 4); }
        syscall::write:entry /pid == $target && (int)arg0 == -2/ { copyoutstr("hi", arg1, 16); }
        syscall::write:entry /pid == $target && (int)arg0 == -3/ { copyoutstr("hello", arg1, 3); copyout(arg1, arg1, 0); }
        syscall::write:entry /pid == $target && (int)arg0 == -4/ { copyoutstr("no", 8, 3); }
        ERROR { printf("error %d %d\n", arg4, arg5); }"#;
    let out = run(&["-w", "-q", "-e", p, "-c", exe.to_str().unwrap()]);
    // A kernel in lockdown (this host's) refuses the helper: a clear error, nothing
    // attached. The guest lane runs the writes (tests/guest/tests.sh, crumbs_copyout).
    if lockdown() {
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains("this kernel does not let BPF programs write user memory (kernel lockdown"), "{}", out.dump());
        return;
    }
    out.assert_ok();
    assert_eq!(out.stdout, "ijklefghijkl hi helxxxxxxxxx\nerror 1 8\n\n", "{}", out.dump());
    assert!(out.stderr.contains("invalid address (0x8) in action #1"), "{}", out.dump());
}

/// Whether the kernel is locked down (integrity or confidentiality), which takes
/// bpf_probe_write_user away.
fn lockdown() -> bool {
    let path = std::path::Path::new("/sys/kernel/security/lockdown");
    if !path.exists() {
        // securityfs may not be mounted yet.
        let _ = std::process::Command::new("mount").args(["-t", "securityfs", "none", "/sys/kernel/security"]).status();
    }
    std::fs::read_to_string(path).is_ok_and(|s| !s.contains("[none]"))
}

#[test]
fn copyout_errors() {
    for (program, message, hint) in [
        ("BEGIN { copyout(0, 0, 5000); }", "copyout() of 5000 bytes", "copyout() writes 0 to 4096 bytes per call"),
        ("BEGIN { copyoutstr(1, 0, 4); }", "copyoutstr() needs a string here, but this is", "give a string"),
        ("BEGIN { copyout(\"x\", 0, 4); }", "the buffer given to copyout() must be", ""),
        ("BEGIN { copyoutstr(\"x\", 0); }", "copyoutstr() takes 3 arguments, but 2 given", "usage: copyoutstr(str, addr, maxlen)"),
    ] {
        assert_error(&format!("#pragma D option destructive\n{program}"), message, hint);
    }
    assert_error("BEGIN { copyout(0, 0, 1); }", "copyout() is a destructive action", "allow destructive actions with -w");
}

/// freopen() sends output to the file it names (appended to) until freopen("") sends it
/// back; a file that cannot be opened is an error and output stays where it was.
/// ftruncate() empties the output file, not a pipe.
#[test]
fn freopen_and_ftruncate_move_and_empty_the_output() {
    let dir = common::TempPath::dir("freopen");
    let (main, side) = (dir.path().join("main.out"), dir.path().join("side.1"));
    std::fs::write(&side, "old\n").unwrap();
    let p = format!(
        r#"BEGIN {{ printf("one\n"); freopen("{}/side.%d", 1); printf("two\n"); freopen("{}"); printf("three\n"); freopen(""); printf("four\n"); }}
        BEGIN {{ ftruncate(); printf("five\n"); exit(0); }}"#,
        dir.path().display(),
        dir.path().display()
    );
    let out = run(&["-w", "-q", "-o", main.to_str().unwrap(), "-e", &p]);
    out.assert_ok();
    assert_eq!(std::fs::read_to_string(&main).unwrap(), "five\n\n");
    assert_eq!(std::fs::read_to_string(&side).unwrap(), "old\ntwo\nthree\n");
    assert_eq!(out.stderr, format!("crumbs: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn't freopen() \"{}\": Is a directory\n", dir.path().display()), "{}", out.dump());
    // Standard output is a pipe here: ftruncate() leaves it as it is.
    let out = run(&["-q", "-e", r#"BEGIN { printf("a\n"); ftruncate(); printf("b\n"); exit(0); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "a\nb\n\n", "{}", out.dump());
    assert_error("BEGIN { freopen(\"x\"); }", "freopen() is a destructive action", "allow destructive actions with -w");
    assert_error("#pragma D option destructive\nBEGIN { freopen(\"%d\"); }", "printf() format has 1 conversion(s) but 0 argument(s) follow", "");
}
