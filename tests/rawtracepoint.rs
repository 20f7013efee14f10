//! The rawtracepoint provider (spec §6.10): raw tracepoints as tp_btf programs, with
//! arguments typed from BTF, by index and by name. Live, as root.

mod common;

use common::{agg_rows, run, TempPath};

/// A program that makes `getppid()` N times (N its argument), through syscall(2) so libc
/// cannot cache it.
const GETPPID: &str = r#"
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 0;
    for (int i = 0; i < n; i++) syscall(SYS_getppid);
    return 0;
}
"#;

fn build_getppid() -> (TempPath, String) {
    let dir = TempPath::dir("getppid");
    let src = dir.path().join("getppid.c");
    std::fs::write(&src, GETPPID).unwrap();
    let exe = dir.path().join("getppid");
    let out = std::process::Command::new("gcc").args(["-O1", "-o"]).arg(&exe).arg(&src).output().expect("gcc runs");
    assert!(out.status.success(), "gcc: {}", String::from_utf8_lossy(&out.stderr));
    let exe = exe.to_str().unwrap().to_string();
    (dir, exe)
}

/// Seven execs of /bin/true by the traced shell fire sched_process_exec seven times, in
/// every spelling, the same as the classic tracepoint; the task argument's struct chain
/// reads the new program's name, and `old_pid` is the exec'ing task's pid.
#[test]
fn exec_counts_are_exact_and_args_are_typed() {
    let program = r#"
        rawtracepoint:sched_process_exec /ppid == $target/ { @raw[stringof(args->p->comm)] = count(); @same = sum(args.old_pid == pid && args[0] == curthread); }
        rt:vmlinux:sched_process_exec, rawtracepoint:vmlinux::sched_process_exec /ppid == $target/ { @spellings = count(); }
        tracepoint:sched:sched_process_exec /ppid == $target/ { @classic = count(); }
    "#;
    let out = run(&["-q", "-e", program, "-c", "sh -c 'for i in 1 2 3 4 5 6 7; do /bin/true; done'"]);
    out.assert_ok();
    let rows = agg_rows(&out.stdout);
    assert!(rows.contains(&(vec!["true".to_string()], 7)), "{}", out.dump());
    // One clause on both spellings of one probe fires once per exec, not twice.
    let values: Vec<i64> = rows.iter().filter(|(k, _)| k.is_empty()).map(|(_, v)| *v).collect();
    assert_eq!(values, [7, 7, 7], "@classic, @same, @spellings\n{}", out.dump());
}

/// sys_enter's arguments: `args->id` (a long) and the registers' struct (`args->regs`),
/// counted exactly for a program that makes 1000 getppid calls; `arg1` is the raw id.
#[test]
fn sys_enter_by_pid_counts_exactly() {
    let (_dir, exe) = build_getppid();
    let program = r#"
        rawtracepoint:sys_enter /pid == $target && args->id == 110/ { @ids = count(); }
        rawtracepoint:sys_enter /pid == $target && args.regs->orig_ax == 110 && arg1 == 110/ { @regs = count(); }
    "#;
    let out = run(&["-q", "-e", program, "-c", &format!("{exe} 1000")]);
    out.assert_ok();
    let values: Vec<i64> = agg_rows(&out.stdout).into_iter().map(|(_, v)| v).collect();
    assert_eq!(values, [1000, 1000], "{}", out.dump());
}

/// sched_switch's `prev` is the task switched out: the current task, whose name its
/// struct chain reads; arithmetic on a pointer argument passes the verifier.
#[test]
fn sched_switch_prev_is_the_current_task() {
    let program = r#"
        rawtracepoint:sched_switch /pid == $target/ {
            @[stringof(args->prev->comm), args[1] == curthread, args.prev->pid == tid] = count();
            @low = sum((arg2 & 7) + (int)args[2] - (int)args[2]);
        }
    "#;
    let out = run(&["-q", "-e", program, "-c", "sleep 0.2"]);
    out.assert_ok();
    let rows = agg_rows(&out.stdout);
    let keys: Vec<&Vec<String>> = rows.iter().map(|(k, _)| k).filter(|k| !k.is_empty()).collect();
    assert_eq!(keys, [&vec!["sleep".to_string(), "1".into(), "1".into()]], "{}", out.dump());
    assert!(rows.iter().any(|(k, v)| k.len() == 3 && *v >= 1), "{}", out.dump());
}

#[test]
fn listing_with_globs_names_and_types() {
    let out = run(&["-l", "-e", "rawtracepoint:sched_switch"]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let rows: Vec<Vec<&str>> = out.stdout.lines().skip(1).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows, [["262144", "rawtracepoint", "vmlinux", "sched_switch"]], "{}", out.dump());
    let out = run(&["-l", "-e", "rawtracepoint:sched_*"]);
    assert!(out.stdout.lines().count() > 10, "{}", out.dump());
    assert!(out.stdout.lines().skip(1).all(|l| l.split_whitespace().nth(3).is_some_and(|n| n.starts_with("sched_"))), "{}", out.dump());
    let out = run(&["-lv", "-e", "rt:sched_switch"]);
    for line in ["args[0]: bool (args->preempt)\n", "args[1]: struct task_struct * (args->prev)\n", "args[3]: unsigned int (args->prev_state)\n"] {
        assert!(out.stdout.contains(line), "{line}{}", out.dump());
    }
    // Every probe: the raw tracepoints are among them.
    let out = run(&["-l"]);
    assert!(out.stdout.lines().any(|l| l.contains(" rawtracepoint ") && l.ends_with(" sched_switch")), "{}", out.dump());
}

#[test]
fn bad_descriptions_and_arguments_are_errors() {
    for (program, says) in [
        ("rawtracepoint:sched_swtch { @ = count(); }", "did you mean `rawtracepoint:sched_switch`?"),
        ("rawtracepoint:sched_switch { trace(args[4]); }", "has 4 arguments, args[0] to args[3]"),
        ("rawtracepoint:sched_switch { trace(args->prevv); }", "did you mean `args->prev`?"),
        ("rawtracepoint:sched_switch { trace(args[1]->no_such); }", "no member `no_such`"),
        ("rawtracepoint:ext4:sched_switch { @ = count(); }", "no kernel module `ext4`"),
        ("rawtracepoint:vmlinux:f:sched_switch { @ = count(); }", "no function `f`"),
        // The kernel's BTF gives sched_waking's hook no parameter names.
        ("rawtracepoint:sched_waking { trace(args->p); }", "the prototype of rawtracepoint:vmlinux::sched_waking does not name its arguments"),
    ] {
        let out = run(&["-e", program]);
        assert_eq!(out.code(), 2, "{program}\n{}", out.dump());
        assert!(out.stderr.contains(says), "{program}: {says}\n{}", out.dump());
        assert!(!out.stderr.contains("panicked"), "{}", out.dump());
    }
}
