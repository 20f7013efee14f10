//! `-c CMD` in bpftrace's order (spec §10.6): the command is forked and held before its
//! exec, and execs once every probe is attached, so probes see its own execve; what is read
//! of its executable before then comes from the file it will exec. Invoked as `bpftrace`,
//! and under crumbs' own name for a bpftrace program. D's `-c` keeps DTrace's order.
//! Checked against bpftrace 0.17 (`-c /bin/true` under tools/execsnoop.bt's probe).

mod common;

use common::{compiled_c, run, Output, TempPath, CALLS};

/// crumbs as `bpftrace` (a symlink) with `args`.
fn bpftrace(args: &[&str]) -> Output {
    common::bpftrace_dropin(args, None, &[])
}

const EXECS: &str = r#"tracepoint:syscalls:sys_enter_execve /pid == cpid/ { printf("%s\n", str(args->filename)); }"#;

#[test]
fn probes_see_the_commands_own_exec() {
    let out = bpftrace(&["-e", EXECS, "-c", "/bin/true"]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stdout, "Attaching 1 probe...\n/bin/true\n\n\n", "{}", out.dump());
    // A name is looked up in PATH, and the file found is what is exec'd.
    let out = bpftrace(&["-e", EXECS, "-c", "true"]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let execs: Vec<&str> = out.stdout.lines().filter(|l| l.contains('/')).collect();
    assert!(execs.len() == 1 && execs[0].ends_with("/true"), "{}", out.dump());
    // Under crumbs' own name, a bpftrace program's command too.
    let out = run(&["--dialect", "bpftrace", "-e", EXECS, "-c", "/bin/true"]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n/bin/true\n\n\n", "{}", out.dump());
}

/// D's -c: the command has exec'd before the probes are attached, as under DTrace.
#[test]
fn d_keeps_dtraces_order() {
    let out = run(&["-q", "-e", "syscall::execve:entry /pid == $target/ { printf(\"exec\\n\"); } syscall::exit_group:entry /pid == $target/ { printf(\"exit\\n\"); }", "-c", "/bin/true"]);
    out.assert_ok();
    assert_eq!(out.stdout, "exit\n\n", "{}", out.dump());
}

/// A C program calling work() seven times.
const WORKER: &str = r#"
#include <stdio.h>
__attribute__((noinline)) int work(int i) { __asm__ volatile(""); return i * 2; }
int main(void) { int s = 0; for (int i = 0; i < 7; i++) s += work(i); printf("%d\n", s); return 0; }
"#;

/// Probes on the command's own functions, by its file and as the target's (`pid$target`,
/// read from the file it will exec while it has not), count every call.
#[test]
fn probes_on_the_commands_functions_count_every_call() {
    let dir = TempPath::dir("btcmd-uprobe");
    let exe = compiled_c(&dir, "worker", WORKER, &[]);
    let out = bpftrace(&["-e", &format!("uprobe:{exe}:work {{ @u = count(); }} pid$target:a.out:work:entry {{ @p = count(); }}"), "-c", &exe]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stdout, "Attaching 2 probes...\n42\n\n\n@p: 7\n@u: 7\n", "{}", out.dump());
    // cpid is the command's pid.
    let out = bpftrace(&["-e", &format!("uprobe:{exe}:work /pid == cpid/ {{ @ = count(); }}"), "-c", &exe]);
    assert_eq!(out.stdout, "Attaching 1 probe...\n42\n\n\n@: 7\n", "{}", out.dump());
}

/// The command's user stacks are symbolized at exit, after it has gone.
#[test]
fn user_stacks_of_the_command_print_at_exit() {
    let dir = TempPath::dir("btcmd-ustack");
    let exe = compiled_c(&dir, "calls", CALLS, &["-O0", "-fno-omit-frame-pointer"]);
    let out = bpftrace(&["-e", &format!("uprobe:{exe}:c {{ @[ustack(3)] = count(); }}"), "-c", &exe]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert!(out.stdout.contains("@[\n    c+0\n    b+") && out.stdout.contains("\n    a+") && out.stdout.ends_with("]: 1\n"), "{}", out.dump());
}

/// A command that is not an executable file: bpftrace's error and its status, before
/// anything is attached.
#[test]
fn a_command_that_cannot_run_is_bpftraces_error() {
    for command in ["/nonexistent", "no-such-command-xyz", "/etc/passwd", "/tmp"] {
        let out = bpftrace(&["-e", EXECS, "-c", command]);
        assert_eq!(out.code(), 255, "{}", out.dump());
        assert_eq!(out.stdout, "", "{}", out.dump());
        assert_eq!(out.stderr, format!("ERROR: Failed to fork child: path '{command}' does not exist or is not executable\n"), "{}", out.dump());
    }
    let out = run(&["--dialect", "bpftrace", "-e", EXECS, "-c", "no-such-command-xyz"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.starts_with("crumbs: -c: cannot execute `no-such-command-xyz`: no such executable file"), "{}", out.dump());
}

/// An executable file that exec refuses (no `#!`, not ELF): found, then refused once the
/// probes are attached; crumbs says why and ends, its probes detached, without hanging.
#[test]
fn an_exec_that_fails_after_attaching_ends_tracing() {
    let file = TempPath::with_contents("btcmd-not-elf", "just text\n");
    std::fs::set_permissions(file.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = bpftrace(&["-e", EXECS, "-c", file.str()]);
    assert_eq!(out.code(), 1, "{}", out.dump());
    assert!(out.stdout.starts_with("Attaching 1 probe...\n"), "{}", out.dump());
    assert_eq!(out.stderr, format!("ERROR: cannot execute `{}`: Exec format error (os error 8)\n", file.str()), "{}", out.dump());
}

/// A command held before its exec goes when crumbs does not trace: a program that does not
/// compile, or whose probes were all taken out (missing_probes).
#[test]
fn a_held_command_never_runs_when_tracing_does_not_start() {
    for program in ["BEGIN { nosuch_function(); }", "config = { missing_probes = ignore } kprobe:nosuch_function { }"] {
        let marker = format!("btcmd-held-{}", common::unique());
        let command = format!("/bin/sh -c 'echo ran > /dev/null' {marker}");
        let out = bpftrace(&["-e", program, "-c", &command]);
        assert_eq!(out.code(), 1, "{}", out.dump());
        common::assert_no_process_with(&marker, std::time::Duration::from_secs(5));
    }
}
