//! bpftrace's `missing_probes` config variable (spec §13.8), live: descriptions that match
//! nothing on this machine taken out with bpftrace's warnings (`warn`), silently (`ignore`),
//! or reported (`error`, the default), under crumbs' own name and invoked as `bpftrace`.
//! bpftrace 0.17 has no config block: the warnings are its current ones.

mod common;

use common::{compiled_c, io_benchmark, run, Output, TempPath, CALLS};

/// crumbs as `bpftrace` (a symlink) with `args` and the environment variables `env`.
fn bpftrace_with(args: &[&str], env: &[(&str, &str)]) -> Output {
    common::bpftrace_dropin(args, None, env)
}

/// A tracepoint that does not exist beside one that does, and a kernel function that does
/// not exist in a clause of its own; `MODE` is replaced.
const READS: &str = r#"config = { missing_probes = "MODE" }
tracepoint:syscalls:sys_enter_nosuch, tracepoint:syscalls:sys_enter_read /pid == cpid/ { @reads = count(); }
kprobe:nosuch_function { @k = count(); }
"#;

/// io-benchmark reading 64K in 128 reads of 512 bytes.
fn reader(file: &TempPath) -> String {
    format!("{} -c -r -b 512 -s 64K {}", io_benchmark().display(), file.str())
}

const NO_TRACEPOINT: &str = "stdin:2:1-37: WARNING: No matches for tracepoint syscalls:sys_enter_nosuch. Skipping.\n\
    tracepoint:syscalls:sys_enter_nosuch, tracepoint:syscalls:sys_enter_read /pid == cpid/ { @reads = count(); }\n\
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n";
const NO_FUNCTION: &str = "stdin:3:1-23: WARNING: No matches for kprobe nosuch_function. Skipping.\n\
    kprobe:nosuch_function { @k = count(); }\n\
    ~~~~~~~~~~~~~~~~~~~~~~\n";
const CLAUSE_GONE: &str = "stdin:3:1-23: WARNING: Probe has no valid attach points. It is being removed which may cause issues with program behavior.\n\
    kprobe:nosuch_function { @k = count(); }\n\
    ~~~~~~~~~~~~~~~~~~~~~~\n";

#[test]
fn warn_takes_out_what_matches_nothing_and_says_so() {
    let file = TempPath::new("btmiss-reads");
    let out = bpftrace_with(&["-e", &READS.replace("MODE", "warn"), "-c", &reader(&file)], &[]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stdout, "Attaching 1 probe...\n\n\n@reads: 128\n", "{}", out.dump());
    assert_eq!(out.stderr, format!("{NO_TRACEPOINT}{NO_FUNCTION}{CLAUSE_GONE}"), "{}", out.dump());
    // --no-warnings: the same, silently.
    let out = bpftrace_with(&["--no-warnings", "-e", &READS.replace("MODE", "warn"), "-c", &reader(&file)], &[]);
    assert_eq!((out.code(), out.stderr.as_str()), (0, ""), "{}", out.dump());
    assert!(out.stdout.ends_with("@reads: 128\n"), "{}", out.dump());
    // Under crumbs' own name too, the program's name in the warnings.
    let out = run(&["-e", &READS.replace("MODE", "warn"), "-c", &reader(&file)]);
    out.assert_ok();
    assert!(out.stdout.ends_with("@reads: 128\n"), "{}", out.dump());
    assert!(out.stderr.starts_with("<command line>:2:1-37: WARNING: No matches for tracepoint syscalls:sys_enter_nosuch. Skipping.\n"), "{}", out.dump());
}

#[test]
fn ignore_is_silent_and_the_environment_wins() {
    let file = TempPath::new("btmiss-ignore");
    let out = bpftrace_with(&["-e", &READS.replace("MODE", "ignore"), "-c", &reader(&file)], &[]);
    assert_eq!((out.code(), out.stderr.as_str()), (0, ""), "{}", out.dump());
    assert_eq!(out.stdout, "Attaching 1 probe...\n\n\n@reads: 128\n", "{}", out.dump());
    let out = bpftrace_with(&["-e", &READS.replace("MODE", "warn"), "-c", &reader(&file)], &[("BPFTRACE_MISSING_PROBES", "ignore")]);
    assert_eq!((out.code(), out.stderr.as_str()), (0, ""), "{}", out.dump());
    // The environment alone, a program without a config block.
    let program = READS.lines().skip(1).collect::<Vec<_>>().join("\n");
    let out = bpftrace_with(&["-e", &program, "-c", &reader(&file)], &[("BPFTRACE_MISSING_PROBES", "ignore")]);
    assert_eq!((out.code(), out.stderr.as_str()), (0, ""), "{}", out.dump());
    assert!(out.stdout.ends_with("@reads: 128\n"), "{}", out.dump());
    let out = bpftrace_with(&["-e", "BEGIN { exit(); }"], &[("BPFTRACE_MISSING_PROBES", "often")]);
    assert_eq!(out.code(), 1, "{}", out.dump());
    assert_eq!(out.stderr, "ERROR: BPFTRACE_MISSING_PROBES: Invalid value for missing_probes: valid values are ignore, warn, and error.\n");
}

/// `error`, and no setting at all: the compiler's diagnostic, status 2 (bpftrace's 1 invoked
/// as bpftrace).
#[test]
fn error_is_a_diagnostic() {
    let file = TempPath::new("btmiss-error");
    for program in [READS.replace("MODE", "error"), READS.lines().skip(1).collect::<Vec<_>>().join("\n")] {
        let out = run(&["-e", &program, "-c", &reader(&file)]);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains("probe description `tracepoint:syscalls:sys_enter_nosuch` does not match any tracepoint") && out.stderr.contains("Help: "), "{}", out.dump());
        let out = bpftrace_with(&["-e", &program, "-c", &reader(&file)], &[]);
        assert_eq!(out.code(), 1, "{}", out.dump());
        assert!(out.stderr.contains("does not match any tracepoint"), "{}", out.dump());
        assert_eq!(out.stdout, "", "{}", out.dump());
    }
    let out = bpftrace_with(&["-e", &READS.replace("MODE", "warn")], &[("BPFTRACE_MISSING_PROBES", "error")]);
    assert_eq!(out.code(), 1, "{}", out.dump());
}

/// A description wrong otherwise than by matching nothing stays an error under warn.
#[test]
fn wrong_descriptions_stay_errors() {
    let program = "config = { missing_probes = warn } uprobe:/no/such/file:f, tracepoint:syscalls:sys_enter_read { exit(); }";
    let out = run(&["-e", program]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("cannot read the functions of /no/such/file"), "{}", out.dump());
    assert!(!out.stderr.contains("WARNING"), "{}", out.dump());
}

/// Nothing left at all: bpftrace's line on standard output (not with -q) and its status;
/// under crumbs' own name a diagnostic at the setting.
#[test]
fn nothing_left() {
    let program = "config = { missing_probes = ignore }\nkprobe:nosuch_function, tracepoint:syscalls:sys_enter_nosuch { exit(); }";
    let out = bpftrace_with(&["-e", program], &[]);
    assert_eq!((out.code(), out.stdout.as_str(), out.stderr.as_str()), (1, "No probes to attach\n", ""), "{}", out.dump());
    let out = bpftrace_with(&["-q", "-e", program], &[]);
    assert_eq!((out.code(), out.stdout.as_str(), out.stderr.as_str()), (1, "", ""), "{}", out.dump());
    let out = run(&["-e", program]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("no probes to attach: no probe description of the program matches a probe here") && out.stderr.contains("<command line>:1:12") && out.stderr.contains("Help: set missing_probes = error"), "{}", out.dump());
}

/// As bpftrace's tools/sslsnoop.bt and threadsnoop.bt: a probe list naming functions a file
/// lacks beside one it has; the calls of the one it has are counted exactly.
#[test]
fn a_uprobe_list_with_a_function_the_file_lacks() {
    let dir = TempPath::dir("btmiss-uprobe");
    let exe = compiled_c(&dir, "calls", CALLS, &["-O0"]);
    let program = format!("config = {{ missing_probes = ignore }}\nuprobe:libc:no_such_libc_function, uprobe:{exe}:no_such_function, uprobe:{exe}:c, uprobe:{exe}:b {{ @[func] = count(); }}");
    let out = bpftrace_with(&["-e", &program, "-c", &exe], &[]);
    assert_eq!((out.code(), out.stderr.as_str()), (0, ""), "{}", out.dump());
    assert_eq!(out.stdout, "Attaching 2 probes...\n\n\n@[b]: 1\n@[c]: 1\n", "{}", out.dump());
}
