//! Destructive actions (spec §7.15): `system()`, `raise()` and `stop()`, allowed only with
//! `-w` or the `destructive` option. Live: each program runs in the kernel.

mod common;

use common::{assert_compile_error as assert_error, run};

#[test]
fn destructive_actions_need_w() {
    for (program, name) in [("BEGIN { raise(10); }", "raise"), ("BEGIN { stop(); }", "stop"), ("BEGIN { system(\"true\"); }", "system")] {
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
