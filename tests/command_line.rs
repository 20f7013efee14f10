//! Command-line errors that are not about the program: `-p` with a number that is not a
//! process id (spec §10.2), and `-l` without root (spec §10.1).

mod common;

use common::{crumbs, run, run_command, TempPath, TIMEOUT};
use std::os::unix::process::CommandExt;
use std::process::Command;

#[test]
fn p_zero_and_negative_numbers_are_not_process_ids() {
    for pid in ["0", "-5", "-1"] {
        for extra in [&[][..], &["--dump-bpf"][..]] {
            let mut args = vec!["-p", pid, "-e", "BEGIN { exit(0); }"];
            args.extend(extra);
            let out = run(&args);
            assert_eq!(out.code(), 2, "{}", out.dump());
            assert_eq!(out.stderr, format!("crumbs: -p {pid}: not a process id (process ids are positive numbers)\n"), "{}", out.dump());
            assert_eq!(out.stdout, "", "{}", out.dump());
        }
    }
}

/// A copy of crumbs that any user can run (the build tree may not be open to them).
fn crumbs_for_everyone() -> TempPath {
    use std::os::unix::fs::PermissionsExt;
    let copy = TempPath::new("crumbs-for-nobody");
    std::fs::copy(crumbs(), copy.path()).expect("copy crumbs");
    std::fs::set_permissions(copy.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut cmd = Command::new(copy.path());
    cmd.arg("--version").uid(65534).gid(65534);
    let o = run_command(cmd, None, TIMEOUT);
    assert!(o.status.success(), "{o:?}");
    copy
}

#[test]
fn list_without_root_says_why_tracepoints_are_missing() {
    // As root, crumbs mounts tracefs if needed: it is mounted below, closed to other users.
    let root = run(&["-l", "-e", "tracepoint:sched:sched_switch"]);
    root.assert_ok();
    assert!(root.stdout.contains("sched_switch"), "{}", root.dump());

    let copy = crumbs_for_everyone();
    let mut cmd = Command::new(copy.path());
    cmd.arg("-l").uid(65534).gid(65534);
    let out = run_command(cmd, None, TIMEOUT);
    out.assert_ok();
    // The probes that need no root are listed; why the tracepoints are not is said once.
    assert!(out.stdout.contains(" dtrace ") && out.stdout.contains(" syscall ") && out.stdout.contains(" profile "), "{}", out.dump());
    assert!(!out.stdout.contains(" tracepoint "), "{}", out.dump());
    assert_eq!(
        out.stderr,
        "crumbs: cannot list tracepoints: /sys/kernel/tracing/events is not readable (Permission denied (os error 13)); reading the kernel's tracepoints needs root\n",
        "{}",
        out.dump()
    );

    // With a description that names tracepoints, the same reason is a diagnostic.
    let mut cmd = Command::new(copy.path());
    cmd.args(["-l", "-e", "tracepoint:sched:sched_switch"]).uid(65534).gid(65534);
    let out = run_command(cmd, None, TIMEOUT);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("/sys/kernel/tracing/events is not readable (Permission denied (os error 13)); reading the kernel's tracepoints needs root"), "{}", out.dump());
    assert!(!out.stderr.contains("not mounted"), "{}", out.dump());
}

/// spec §10.1: `-lv` lists each probe's argument types, as DTrace's does.
#[test]
fn list_verbose_shows_argument_types() {
    let out = run(&["-lv", "-e", "syscall::read:entry, syscall::read:return, BEGIN"]);
    out.assert_ok();
    let want_read = "\n\tArgument Types\n\t\targs[0]: unsigned int\n\t\targs[1]: char * (user)\n\t\targs[2]: size_t\n\n";
    assert!(out.stdout.contains(&format!("read entry\n{want_read}")), "{}", out.dump());
    assert!(out.stdout.contains("read return\n\n\tArgument Types\n\t\targs[0]: long\n\t\targs[1]: long\n"), "{}", out.dump());
    assert!(out.stdout.contains("BEGIN\n\n\tArgument Types\n\t\tNone\n"), "{}", out.dump());
    let bad = run(&["-v", "-e", "BEGIN { exit(0); }"]);
    assert_eq!(bad.code(), 2, "-v needs -l\n{}", bad.dump());
}

#[test]
fn macro_variables_are_crumbs_own_ids() {
    // spec §5.5: BEGIN runs in crumbs' own context, so the kernel's view of the process
    // agrees with the macro variables; crumbs' parent is this test.
    let out = run(&[
        "-q",
        "-e",
        r#"BEGIN { printf("%d %d %d %d %d %d %d %d\n", $pid == pid, $ppid == ppid, $uid == uid, $gid == gid, $euid, $egid, $ppid, sizeof($pid)); exit(0); }"#,
    ]);
    out.assert_ok();
    // SAFETY: reading this process's effective ids.
    let (euid, egid) = unsafe { (libc::geteuid(), libc::getegid()) };
    assert_eq!(out.stdout, format!("1 1 1 1 {euid} {egid} {} 4\n\n", std::process::id()), "{}", out.dump());
    let out = run(&["-q", "-e", "BEGIN { printf(\"%d %d\\n\", $pgid, $sid); exit(0); }"]);
    out.assert_ok();
    // SAFETY: reading this process's group and session (crumbs inherits both).
    let (pgid, sid) = unsafe { (libc::getpgid(0), libc::getsid(0)) };
    assert_eq!(out.stdout, format!("{pgid} {sid}\n\n"), "{}", out.dump());
}
