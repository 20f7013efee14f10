//! Live tests of USDT probes (spec §6.9) on a program built here with `<sys/sdt.h>`
//! (Debian's systemtap-sdt-dev): both spellings, exact counts, arguments from registers
//! and memory, a string argument, the semaphore that turns a guarded probe on, listing and
//! the errors.

mod common;

use common::{compiled_c, run, TempPath};
use std::process::Command;

/// `step` fires N times with (i, running total), `tick` only while its semaphore is raised
/// (i * 10), `done` once with (n, total, a string on the stack).
const PROGRAM: &str = r#"
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
__extension__ unsigned short crumbs_test_step_semaphore __attribute__((unused, section(".probes")));
__extension__ unsigned short crumbs_test_tick_semaphore __attribute__((unused, section(".probes")));
__extension__ unsigned short crumbs_test_done_semaphore __attribute__((unused, section(".probes")));
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    long total = 0;
    char what[16];
    for (int i = 0; i < n; i++) {
        total += i;
        DTRACE_PROBE2(crumbs_test, step, i, total);
        if (__builtin_expect(crumbs_test_tick_semaphore, 0)) DTRACE_PROBE1(crumbs_test, tick, i * 10);
    }
    snprintf(what, sizeof what, "n=%d", n);
    DTRACE_PROBE3(crumbs_test, done, n, total, what);
    printf("%ld %d\n", total, crumbs_test_tick_semaphore);
    return 0;
}
"#;

/// Needs `<sys/sdt.h>` (Debian's systemtap-sdt-dev).
fn build(dir: &TempPath) -> String {
    compiled_c(dir, "usdt", PROGRAM, &[])
}

fn traced(program: &str, cmd: &str) -> String {
    let out = run(&["-q", "-e", program, "-c", cmd]);
    out.assert_ok();
    out.stdout
}

#[test]
fn counts_arguments_and_semaphores() {
    let dir = TempPath::dir("usdt");
    let exe = build(&dir);
    let out = traced(
        r#"crumbs_test$target:::step { steps++; is += arg0; last = arg1; }
           crumbs_test$target:a.out:main:tick { ticks += arg0; }
           crumbs_test$target:::done { printf("%s %s %s %s %d %d %s\n", probeprov, probemod, probefunc, probename, arg0, arg1, copyinstr(arg2)); }
           END { printf("%d %d %d %d\n", steps, is, last, ticks); }"#,
        &format!("{exe} 6"),
    );
    // The program saw its tick semaphore raised (1: one event counts it).
    assert!(out.lines().any(|l| l == "15 1"), "{out}");
    // probeprov is the provider and the process id.
    let done = out.lines().find(|l| l.ends_with(" usdt main done 6 15 n=6")).unwrap_or_else(|| panic!("{out}"));
    let prov = done.split(' ').next().unwrap();
    assert!(prov.strip_prefix("crumbs_test").is_some_and(|pid| pid.parse::<u32>().is_ok()), "{out}");
    // 0+1+..+5 = 15, the last total 15, ticks 0+10+..+50 = 150.
    assert!(out.lines().any(|l| l == "6 15 15 150"), "{out}");
}

/// The perf-event uprobe path that kernels without uprobe.multi links (6.1) take, here
/// taken by clauses that pass chill()'s callback (aya loads those): the semaphore is
/// raised through the event's reference counter, and arguments read as on the other path.
#[test]
fn perf_event_path_raises_semaphores() {
    let dir = TempPath::dir("usdtperf");
    let exe = build(&dir);
    let program = r#"crumbs_test$target:::step { chill(1); steps++; is += arg0; }
           crumbs_test$target:::tick { chill(1); ticks += arg0; }
           END { printf("%d %d %d\n", steps, is, ticks); }"#;
    let out = run(&["-q", "-w", "-e", program, "-c", &format!("{exe} 4")]);
    out.assert_ok();
    let out = out.stdout;
    // 0+1+2+3 = 6; the program saw its semaphore raised; ticks 0+10+20+30.
    assert!(out.lines().any(|l| l == "6 1"), "{out}");
    assert!(out.lines().any(|l| l == "4 6 60"), "{out}");
}

/// Untraced, the semaphore is 0 and the guarded probe's arguments are not computed.
#[test]
fn semaphore_is_down_untraced() {
    let dir = TempPath::dir("usdtoff");
    let exe = build(&dir);
    let out = Command::new(&exe).arg("3").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "3 0\n");
}

/// bpftrace's spelling: every process running the file (two children of the -c shell).
#[test]
fn usdt_path_in_every_process() {
    let dir = TempPath::dir("usdtpath");
    let exe = build(&dir);
    let out = traced(&format!("usdt:{exe}:crumbs_test:step {{ steps++; }} usdt:{exe}:tick {{ ticks++; }} END {{ printf(\"%d %d\\n\", steps, ticks); }}"), &format!("sh -c '{exe} 3; {exe} 4'"));
    assert!(out.lines().any(|l| l == "7 7"), "{out}");
}

#[test]
fn listing() {
    let dir = TempPath::dir("usdtlist");
    let exe = build(&dir);
    let out = run(&["-l", "-c", &format!("{exe} 1"), "-e", "crumbs_test$target:::"]);
    out.assert_ok();
    let rows: Vec<Vec<&str>> = out.stdout.lines().skip(1).map(|l| l.split_whitespace().collect()).collect();
    let names: Vec<&str> = rows.iter().map(|r| r[4]).collect();
    // In the notes' order.
    assert_eq!(names, ["step", "done", "tick"], "{}", out.dump());
    assert!(rows.iter().all(|r| r[1].starts_with("crumbs_test") && r[2] == "usdt" && r[3] == "main"), "{}", out.dump());
    let out = run(&["-l", "-e", &format!("usdt:{exe}:crumbs_test:d*")]);
    out.assert_ok();
    assert!(out.stdout.contains(&format!("crumbs_test {exe}")) && out.stdout.contains("main done"), "{}", out.dump());
}

#[test]
fn errors() {
    let dir = TempPath::dir("usdterr");
    let exe = build(&dir);
    let cmd = format!("{exe} 1");
    let check = |args: &[&str], message: &str, hint: &str| {
        let out = run(args);
        out.assert_no_panic();
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains(message) && out.stderr.contains(hint), "{message:?} {hint:?}\n{}", out.dump());
    };
    check(&["-e", "crumbs_tset$target:::step { }", "-c", &cmd], "has no USDT provider `crumbs_tset`", "did you mean `crumbs_test`?");
    check(&["-e", "crumbs_test$target:::stpe { }", "-c", &cmd], "does not match any USDT probe", "did you mean `step`?");
    check(&["-e", "usdt:/bin/sh:x:y { }"], "/bin/sh has no USDT probes", "sdt.h");
    check(&["-e", "crumbs_test$target:::step { }"], "$target is not set", "-c CMD");
}
