//! Live tests of the profile provider (spec §6.4): tick-N and profile-N on cpu-clock perf
//! events.

mod common;

use common::{agg_value, run};

/// tick-N fires on one CPU at that interval: five firings, numbered in order, then exit.
#[test]
fn tick_fires_in_order_and_names_itself() {
    let out = run(&[
        "-q",
        "-e",
        r#"tick-50ms { n++; printf("%d %s %s %s|\n", n, probeprov, probefunc, probename); }
           tick-50ms /n == 5/ { exit(0); }"#,
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let expected: String = (1..=5).map(|i| format!("{i} profile  tick-50ms|\n")).collect();
    assert_eq!(out.stdout, format!("{expected}\n"), "{}", out.dump());
}

/// bpftrace's spellings: interval:ms:50 is tick-50ms (one CPU, in order), profile:hz:97 a
/// profile probe on every CPU.
#[test]
fn bpftrace_interval_and_profile() {
    let out = run(&[
        "-q",
        "-e",
        r#"interval:ms:50 { n++; printf("%d %s|\n", n, probename); }
           i:50ms /n == 4/ { exit(0); }
           profile:hz:97 { @samples = count(); }
           begin { printf("begun\n"); } end { printf("ended\n"); }"#,
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let expected: String = (1..=4).map(|i| format!("{i} tick-50ms|\n")).collect();
    // begin and end are BEGIN and END.
    assert!(out.stdout.starts_with(&format!("begun\n{expected}ended\n")), "{}", out.dump());
}

/// The probe line names the probe (id 3, the first profile probe of the program).
#[test]
fn tick_default_action_prints_the_probe() {
    let out = run(&["-e", "profile:::tick-10ms { n++; } tick-10ms /n == 3/ { exit(0); } tick-10ms"]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let line = format!("{:>3} {:>6} {:>32} \n", 0, 3, ":tick-10ms");
    assert!(out.stdout.starts_with("CPU     ID                    FUNCTION:NAME\n"), "{}", out.dump());
    assert!(out.stdout.lines().skip(1).all(|l| format!("{l}\n").ends_with(":tick-10ms \n") || l.is_empty()), "{line}\n{}", out.dump());
}

/// profile-N samples the CPUs that are busy: a CPU-bound command is sampled many times, in
/// user mode (arg1) or in the kernel (arg0), never both.
#[test]
fn profile_samples_a_busy_process() {
    let out = run(&[
        "-q",
        "-e",
        r#"profile-997 /pid == $target/ { @n = count(); @both = sum(arg0 != 0 && arg1 != 0); @none = sum(arg0 == 0 && arg1 == 0); }
           END { printa("samples %@d\n", @n); printa("both %@d\n", @both); printa("none %@d\n", @none); }"#,
        "-c",
        "dd if=/dev/zero of=/dev/null bs=1 count=1000000",
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let get = |name: &str| {
        out.stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")).and_then(|v| v.parse::<i64>().ok()))
            .unwrap_or_else(|| panic!("no {name} line\n{}", out.dump()))
    };
    assert!(get("samples") >= 20, "{}", out.dump());
    assert_eq!(get("both"), 0, "{}", out.dump());
    assert_eq!(get("none"), 0, "{}", out.dump());
    let _ = agg_value;
}

/// Bad rates are compile-time errors with a hint; -l lists DTrace's usual rates.
#[test]
fn bad_rates_and_listing() {
    for bad in ["tick-0", "tick-1parsec", "profile-1000000"] {
        let out = run(&["-e", &format!("{bad} {{ }}")]);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains("bad profile probe") && out.stderr.contains("tick-1s"), "{}", out.dump());
    }
    let out = run(&["-l", "-e", "profile:::profile-*"]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert!(out.stdout.contains(" profile-997\n") && !out.stdout.contains("tick-"), "{}", out.dump());
}

/// spec §7.8: @[stack()] rows: a blank line, frames indented by 14 as module`symbol+0xoff,
/// then the value on its own line.
#[test]
fn stacks_as_aggregation_keys() {
    let out = run(&[
        "-q",
        "-e",
        "profile-997 /pid == $target/ { @[stack()] = count(); }",
        "-c",
        "dd if=/dev/zero of=/dev/null bs=1 count=500000",
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    // vmlinux's frames, and any other module's: a sample taken while another test's BPF
    // program runs in dd's system call has that program's frame (`bpf`bpf_prog_...`).
    let frame = |l: &str| l.len() > 14 && l[..14].trim().is_empty() && (l[14..].contains('`') || l[14..].starts_with("0x"));
    let value = |l: &str| l.len() == 17 && l.trim().parse::<u64>().is_ok();
    // Two stacks can hash to one slot of the stack map: the later one is reported lost.
    let lost = |l: &str| l == format!("{:14}<stack lost: another stack holds its slot in the stack map>", "");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines.iter().any(|l| frame(l) && l.contains("vmlinux`") && l.contains("+0x")), "{}", out.dump());
    // Every line is blank, a frame, or a value; every value closes a row.
    assert!(lines.iter().all(|l| l.is_empty() || frame(l) || value(l) || lost(l)), "{}", out.dump());
    let total: u64 = lines.iter().filter(|l| value(l)).map(|l| l.trim().parse::<u64>().unwrap()).sum();
    assert!(total >= 20, "{}", out.dump());
}

/// spec §7.8: `stack();` traces the stack; a syscall probe's stack starts below the tracing
/// machinery and reaches the system call entry.
#[test]
fn traced_stack_of_a_syscall() {
    let out = run(&["-q", "-e", "syscall::getppid:entry /pid == $target/ { stack(); exit(0); }", "-c", "sh -c 'true'"]);
    // sh may not call getppid; use a workload that does.
    let out = if out.stdout.trim().is_empty() {
        run(&["-q", "-e", "syscall::read:entry /pid == $target/ { stack(); exit(0); }", "-c", "dd if=/dev/zero of=/dev/null bs=1 count=1"])
    } else {
        out
    };
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert!(out.stdout.starts_with("\n              vmlinux`"), "{}", out.dump());
    assert!(!out.stdout.contains("bpf`") && !out.stdout.contains("bpf_trace_run"), "{}", out.dump());
    assert!(out.stdout.contains("`entry_SYSCALL_64"), "{}", out.dump());
}
