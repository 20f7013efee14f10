//! bpftrace's syntax as its docs and bpftrace 0.17 accept it (spec §13): casts before unary
//! operators, short probe names, positional parameters, offsets and quoted parts in probe
//! names, builtins called with parentheses and duration literals. Each expected output was
//! compared with bpftrace 0.17 running the same program here, where 0.17 has the form (noted
//! where it does not: current bpftrace's docs are the reference then).

mod common;

use common::{compiled_c, run, Output, TempPath};

/// `crumbs --dialect bpftrace ARGS...`, which must not panic.
fn bt(args: &[&str]) -> Output {
    let mut all = vec!["--dialect", "bpftrace"];
    all.extend_from_slice(args);
    let out = run(&all);
    out.assert_no_panic();
    out
}

/// A bad form: exit status 2, the message and hint on stderr, with a labelled span.
fn assert_bt_error(args: &[&str], message: &str, hint: &str) {
    let out = bt(args);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains(message), "message {message:?}\n{}", out.dump());
    assert!(out.stderr.contains(hint), "hint {hint:?}\n{}", out.dump());
    assert!(out.stderr.contains('┬') && out.stderr.contains("╰─"), "a span with a label\n{}", out.dump());
}

/// `(uint32)-1`: bpftrace's integer type names cast a unary minus (and `*`), as 0.17 prints.
#[test]
fn casts_of_bpftrace_integer_names_before_a_minus() {
    let out = bt(&["-e", r#"BEGIN { $x = 5; printf("%u %d %d %d %d\n", (uint32)-1, (int64)-1, (uint16)-1, (int32)-$x, (uint8)-1); print((uint32)-1); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n4294967295 -1 65535 -5 255\n4294967295\n\n\n", "{}", out.dump());
    // Found bpftrace by the cast alone, without --dialect.
    let out = run(&["-e", r#"BEGIN { printf("%d\n", (int16)-2); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n-2\n\n\n", "{}", out.dump());
}

/// `work` in assembly, so that its instructions are known whatever the compiler: four
/// one-byte `nop`s, then `lea` and `ret` (offsets 0 to 4 start instructions). main calls it
/// N times (its argument), fires a USDT probe once, and with `addr` prints work's address
/// (built without PIE: the address in the file is the address in the process).
const WORK: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
__asm__(".text\n.globl work\n.type work,@function\nwork:\n nop\n nop\n nop\n nop\n lea 1(%rdi,%rdi,2), %eax\n ret\n.size work, .-work\n");
int work(int);
int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "addr") == 0) {
        printf("%#lx\n", (unsigned long)work);
        return 0;
    }
    int n = argc > 1 ? atoi(argv[1]) : 0, s = 0;
    for (int i = 0; i < n; i++)
        s += work(i);
    DTRACE_PROBE1(btsyn, done, s);
    return 0;
}
"#;

fn work(dir: &TempPath) -> String {
    compiled_c(dir, "work", WORK, &["-no-pie"])
}

/// bpftrace's short probe names read as the long ones (language.md's "Probes" table), and
/// `probe` names them long, as bpftrace 0.17 does.
#[test]
fn short_probe_names() {
    let out = bt(&["-e", r#"t:syscalls:sys_enter_clock_nanosleep /pid == cpid/ { printf("%s\n", probe); }"#, "-c", "/bin/sleep 0.01"]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\ntracepoint:syscalls:sys_enter_clock_nanosleep\n\n\n", "{}", out.dump());
    let out = bt(&["-e", r#"i:ms:50 { printf("%s\n", probe); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\ninterval:ms:50\n\n\n", "{}", out.dump());
    let dir = TempPath::dir("btshort");
    let exe = work(&dir);
    let program = format!("u:{exe}:work {{ @calls = count(); }} ur:{exe}:work {{ @sum = sum(retval); }} U:{exe}:btsyn:done {{ @done = arg0; }}");
    let out = bt(&["-e", &program, "-c", &format!("{exe} 5")]);
    out.assert_ok();
    // work(i) is 3i + 1: 1 + 4 + 7 + 10 + 13.
    assert_eq!(out.stdout, "Attaching 3 probes...\n\n\n@calls: 5\n@done: 35\n@sum: 35\n", "{}", out.dump());
    // Kernel functions (this host has no kprobes or fentry: compiled only).
    for program in ["k:vfs_read { @ = count(); }", "kr:vfs_read { @ = count(); }", "f:vfs_read { @ = count(); }", "fr:vfs_read { @ = count(); }", "s:faults:10 { @ = count(); }", "w:0x1000:8:rw { @ = count(); }", "it:task { @ = count(); }"] {
        let out = bt(&["--dump-bpf", "-e", program]);
        out.assert_ok();
    }
    // w: is watchpoint (live in tests/bpftrace_watchpoint.rs), checked as bpftrace checks it.
    assert_bt_error(&["-e", "w:0x1000:8:r { exit(); }"], "invalid watchpoint mode: r", "supported modes: rw,w,x");
}

/// Positional parameters in probe names are their text, inside the part they are in
/// (`interval:ms:$1`, `uprobe:$1:work`, `tracepoint:$1:$2`), as bpftrace 0.17 substitutes them;
/// in quotes they are as written.
#[test]
fn positional_parameters_in_probe_names() {
    let out = bt(&["-e", r#"interval:ms:$1 { printf("%s\n", probe); exit(); }"#, "50"]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\ninterval:ms:50\n\n\n", "{}", out.dump());
    let out = bt(&["-e", r#"tracepoint:$1:$2 /pid == cpid/ { printf("%s %s\n", probe, str($1)); }"#, "-c", "/bin/sleep 0.01", "syscalls", "sys_enter_clock_nanosleep"]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\ntracepoint:syscalls:sys_enter_clock_nanosleep syscalls\n\n\n", "{}", out.dump());
    let dir = TempPath::dir("btparams");
    let exe = work(&dir);
    let out = bt(&["-e", r#"uprobe:$1:"work" { @calls = count(); }"#, "-c", &format!("{exe} 3"), &exe]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n\n\n@calls: 3\n", "{}", out.dump());
    // A parameter not given is empty, which bpftrace 0.17 refuses too (`stoull`).
    assert_bt_error(&["-e", "interval:ms:$2 { exit(); }", "50"], "bad interval probe `interval:ms:`", "interval:ms:100");
    // Quoted, it is not a parameter.
    assert_bt_error(&["-e", r#"uprobe:"$1":work { exit(); }"#, "/bin/true"], "cannot read the functions of $1", "a uprobe names");
    // D reads $N in a probe description too, and refuses one not given.
    let out = run(&["-q", "-e", "profile:::tick-$1 { printf(\"tick\\n\"); exit(0); }", "50ms"]);
    out.assert_ok();
    assert_eq!(out.stdout, "tick\n\n", "{}", out.dump());
    let out = run(&["-e", "syscall::$1:entry { exit(0); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("macro argument `$1` is not given"), "{}", out.dump());
}

/// `uprobe:PATH:FUNCTION+N` and `uprobe:PATH:ADDRESS` attach inside a function, with exact
/// counts; crumbs does not disassemble to check that N starts an instruction, so they need
/// -w (--unsafe), as bpftrace refuses what it cannot check unless unsafe. bpftrace 0.17 here
/// is built without offset support: the forms are current bpftrace's docs'.
#[test]
fn uprobes_at_offsets_and_addresses() {
    let dir = TempPath::dir("btoffsets");
    let exe = work(&dir);
    let addr = std::process::Command::new(&exe).arg("addr").output().unwrap();
    let addr = u64::from_str_radix(String::from_utf8_lossy(&addr.stdout).trim().trim_start_matches("0x"), 16).unwrap();
    let program = format!(
        r#"uprobe:{exe}:work+4 {{ @at[probe] = count(); @di[reg("di")] = count(); }} uprobe:"{exe}":"work+0x2" {{ @two = count(); }}
           u:{exe}:work+0 {{ @zero = count(); }} uprobe:{exe}:{start:#x} {{ @start = count(); }} uprobe:{exe}:{end} {{ @end = count(); }}
           uretprobe:{exe}:{start:#x} {{ @ret = sum(retval); }}"#,
        start = addr,
        end = addr + 4
    );
    let out = bt(&["-w", "-e", &program, "-c", &format!("{exe} 3")]);
    out.assert_ok();
    let want = format!("Attaching 6 probes...\n\n\n@at[uprobe:{exe}:work+4]: 3\n@di[0]: 1\n@di[1]: 1\n@di[2]: 1\n@end: 3\n@ret: 12\n@start: 3\n@two: 3\n@zero: 3\n");
    assert_eq!(out.stdout, want, "{}", out.dump());
    // Without -w: refused, as crumbs cannot check the instruction boundary.
    assert_bt_error(&["-e", &format!("uprobe:{exe}:work+4 {{ exit(); }}")], "crumbs cannot check that work+4", "give --unsafe (-w)");
    assert_bt_error(&["-e", &format!("uprobe:{exe}:{:#x} {{ exit(); }}", addr + 1)], "crumbs cannot check that work+1", "give --unsafe (-w)");
    // Bad forms.
    assert_bt_error(&["-w", "-e", &format!("uprobe:{exe}:work+9 {{ exit(); }}")], "offset 0x9 is past the end of work (9 bytes)", "an offset probe names an instruction");
    assert_bt_error(&["-w", "-e", &format!("uprobe:{exe}:work+x {{ exit(); }}")], "`work+x` is not a function and an offset", "uprobe:/bin/bash:readline+4");
    assert_bt_error(&["-w", "-e", &format!("uprobe:{exe}:work+1+2 {{ exit(); }}")], "has more than one offset", "FUNCTION+N");
    assert_bt_error(&["-w", "-e", &format!("uretprobe:{exe}:work+1 {{ exit(); }}")], "a uretprobe has no offset", "for a uprobe");
    assert_bt_error(&["-w", "-e", &format!("uretprobe:{exe}:{:#x} {{ exit(); }}", addr + 1)], "a uretprobe cannot be at an offset", "where it starts");
    assert_bt_error(&["-w", "-e", &format!("uprobe:{exe}:0x10 {{ exit(); }}")], "could not resolve address", "as `nm` shows");
    // A kernel function at an offset is a kprobe of its own (live in the guest lane); at an
    // address it is not in crumbs yet.
    assert_bt_error(&["--dump-bpf", "-e", "kretprobe:vfs_read+4 { exit(); }"], "kretprobe probes take no offset", "kretprobe:vfs_read");
    assert_bt_error(&["--dump-bpf", "-e", "kprobe:0xffffffff81000000 { exit(); }"], "a kernel probe at an address is not in crumbs yet", "kprobe:FUNCTION+N");
}

/// Counts and intervals read as bpftrace reads numbers: `hardware:cache-misses:1e6`, and a
/// number without a unit is nanoseconds (`interval:100000000`, current bpftrace's; 0.17
/// refuses it).
#[test]
fn counts_and_bare_intervals() {
    let out = bt(&["-e", r#"interval:100000000 { printf("%s\n", probe); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\ninterval:ns:100000000\n\n\n", "{}", out.dump());
    let out = bt(&["-e", r#"i:1e8 { printf("%s\n", probe); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\ninterval:ns:100000000\n\n\n", "{}", out.dump());
    let out = bt(&["-e", r#"s:cpu-clock:1e6 { printf("%s\n", probe); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\nsoftware:cpu:1000000\n\n\n", "{}", out.dump());
    let out = bt(&["--dump-bpf", "-e", "hardware:cache-misses:1e6 { @ = count(); }"]);
    out.assert_ok();
    assert_bt_error(&["-e", "interval:100 { exit(); }"], "bad interval probe `interval:100`", "at least 10us apart");
    assert_bt_error(&["-e", "hardware:cache-misses:1x { exit(); }"], "bad count in `hardware:cache-misses:1x`", "not a positive number");
}

/// Builtin variables called with parentheses, as current bpftrace's docs have them (`pid`
/// and `pid()` are the same; 0.17 has only the variables): each equals its variable.
#[test]
fn builtins_called_with_parentheses() {
    let program = r#"BEGIN { printf("%d %d %d %d %d %d %d %d %d %d %d\n", pid() == pid, tid() == tid, pid(init) == pid, tid(curr_ns) == tid,
        nsecs() > 0, nsecs(monotonic) > 0, uid() == uid, cpu() == cpu, curtask() == curtask, cgroup() == cgroup, elapsed() >= 0);
        printf("%s %s %s %s %s\n", comm(), username(), pcomm(), probe(), comm); exit(); }"#;
    let out = bt(&["-e", program]);
    out.assert_ok();
    let want = format!("Attaching 1 probe...\n1 1 1 1 1 1 1 1 1 1 1\ncrumbs {} {} BEGIN crumbs\n\n\n", user_name(), parent_comm());
    assert_eq!(out.stdout, want, "{}", out.dump());
    // Found bpftrace by the call alone.
    let out = run(&["-e", r#"BEGIN { printf("%d\n", pid() == pid); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n1\n\n\n", "{}", out.dump());
    assert_bt_error(&["-e", "BEGIN { print(pid(x)); }"], "pid() takes curr_ns or init or nothing", "pid(init)");
    assert_bt_error(&["-e", "BEGIN { print(comm(1)); }"], "comm() takes no arguments", "comm or comm()");
    assert_bt_error(&["-e", "BEGIN { print(nsecs(boot)); }"], "nsecs(boot) is not in crumbs yet", "CLOCK_MONOTONIC");
}

/// The user name of this process's real uid, as bpftrace's `username` prints it.
fn user_name() -> String {
    let uid = std::fs::read_to_string("/proc/self/status").unwrap().lines().find_map(|l| l.strip_prefix("Uid:").map(|r| r.split_whitespace().next().unwrap().to_string())).unwrap();
    std::fs::read_to_string("/etc/passwd").unwrap().lines().find_map(|l| {
        let f: Vec<&str> = l.split(':').collect();
        (f.get(2) == Some(&uid.as_str())).then(|| f[0].to_string())
    }).unwrap_or(uid)
}

/// The command name of crumbs' parent: the test thread that starts it (pcomm at BEGIN).
fn parent_comm() -> String {
    std::fs::read_to_string("/proc/thread-self/comm").unwrap().trim().to_string()
}
