//! crumbs invoked as `bpftrace` (spec §10.6): bpftrace 0.17's command line, messages and
//! exit statuses, through a symlink named bpftrace to the crumbs binary. The expected
//! strings are what bpftrace 0.17 prints, where crumbs' behaviour matches it.

mod common;

use common::{Output, TempPath};

/// Runs crumbs as `bpftrace` with `args`, `stdin` and the environment variables `env`.
fn bpftrace_with(args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
    common::bpftrace_dropin(args, stdin, env)
}

fn bpftrace(args: &[&str]) -> Output {
    bpftrace_with(args, None, &[])
}

fn assert_status(out: &Output, status: i32) {
    assert_eq!(out.code(), status, "{}", out.dump());
}

const HI: &str = r#"BEGIN { printf("hi\n"); exit(); }"#;

#[test]
fn help_is_the_usage_on_standard_error() {
    for flag in ["-h", "--help"] {
        let out = bpftrace(&[flag]);
        assert_status(&out, 0);
        assert_eq!(out.stdout, "");
        assert!(out.stderr.starts_with("USAGE:\n    bpftrace [options] filename\n    bpftrace [options] - <stdin input>\n    bpftrace [options] -e 'program'\n\nOPTIONS:\n"), "{}", out.dump());
        assert!(out.stderr.contains("\n    -l [search]    list probes\n"), "{}", out.dump());
    }
}

#[test]
fn version_names_bpftrace_and_crumbs() {
    for flag in ["-V", "--version"] {
        let out = bpftrace(&[flag]);
        assert_status(&out, 0);
        assert_eq!(out.stdout, format!("bpftrace v0.17.0 (crumbs {})\n", env!("CARGO_PKG_VERSION")));
    }
}

#[test]
fn usage_errors_are_getopts_lines_then_the_usage_with_status_1() {
    for (args, line) in [
        (&["-Z"][..], "bpftrace: invalid option -- 'Z'\n"),
        (&["--bogus"], "bpftrace: unrecognized option '--bogus'\n"),
        (&["-e"], "bpftrace: option requires an argument -- 'e'\n"),
        (&["--emit-elf"], "bpftrace: option '--emit-elf' requires an argument\n"),
        (&["--unsafe=1"], "bpftrace: option '--unsafe' doesn't allow an argument\n"),
        (&["--e"], "bpftrace: option '--e' is ambiguous; possibilities: '--emit-llvm' '--emit-elf'\n"),
    ] {
        let out = bpftrace(args);
        assert_status(&out, 1);
        assert!(out.stderr.starts_with(&format!("{line}USAGE:\n")), "{}", out.dump());
    }
    // No program: the usage alone.
    let out = bpftrace(&[]);
    assert_status(&out, 1);
    assert!(out.stderr.starts_with("USAGE:\n"), "{}", out.dump());
}

#[test]
fn bad_settings_are_bpftraces_errors() {
    let out = bpftrace(&["no-such-file.bt"]);
    assert_status(&out, 255);
    assert_eq!(out.stderr, "ERROR: failed to open file 'no-such-file.bt': No such file or directory\n");
    let out = bpftrace(&["-f", "xml", "-e", HI]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "ERROR: Invalid output format \"xml\"\nValid formats: 'text', 'json'\n");
    let out = bpftrace(&["-B", "foo", "-e", HI]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "ERROR: USAGE: -B must be either 'line', 'full', or 'none'.\n");
    let out = bpftrace(&["-p", "abc", "-e", HI]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "ERROR: pid 'abc' is not a valid decimal number\n");
    let out = bpftrace_with(&["-e", HI], None, &[("BPFTRACE_STRLEN", "abc")]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "ERROR: Env var 'BPFTRACE_STRLEN' did not contain a valid uint64_t, or was zero-valued.\n");
    let out = bpftrace(&["-o", "/nonexistent-dir/x", "-e", HI]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "ERROR: Failed to open output file: \"/nonexistent-dir/x\": No such file or directory\n");
}

#[test]
fn a_program_that_does_not_compile_is_crumbs_diagnostic_with_status_1() {
    let out = bpftrace(&["-e", "BEGIN { foo }"]);
    assert_status(&out, 1);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains("unknown variable `foo`") && out.stderr.contains("stdin:1:9"), "{}", out.dump());
    // system() needs --unsafe, as in bpftrace.
    let out = bpftrace(&["-e", r#"BEGIN { system("true"); exit(); }"#]);
    assert_status(&out, 1);
}

#[test]
fn a_program_runs_after_the_attaching_line() {
    let out = bpftrace(&["-e", HI]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "Attaching 1 probe...\nhi\n\n\n");
    let two = r#"BEGIN { printf("hi\n"); } END { printf("bye\n"); } BEGIN { exit(); }"#;
    assert!(bpftrace(&["-e", two]).stdout.starts_with("Attaching 3 probes...\n"));
}

#[test]
fn quiet_leaves_out_the_attaching_line() {
    let out = bpftrace(&["-q", "-e", HI]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "hi\n\n\n");
    // Options after the program are options (GNU getopt's permutation).
    assert_eq!(bpftrace(&["-e", HI, "-q"]).stdout, "hi\n\n\n");
}

#[test]
fn the_last_program_given_is_the_one_run() {
    let out = bpftrace(&["-e", r#"BEGIN { printf("a\n"); exit(); }"#, "-e", r#"BEGIN { printf("b\n"); exit(); }"#]);
    assert_eq!(out.stdout, "Attaching 1 probe...\nb\n\n\n");
}

#[test]
fn probes_attached_is_announced_on_stderr_before_begin_runs() {
    let out = bpftrace_with(&["-e", HI], None, &[("__BPFTRACE_NOTIFY_PROBES_ATTACHED", "1")]);
    assert_status(&out, 0);
    assert_eq!(out.stderr, "__BPFTRACE_NOTIFY_PROBES_ATTACHED\n");
    assert_eq!(out.stdout, "Attaching 1 probe...\nhi\n\n\n");
}

#[test]
fn output_to_a_file_holds_the_attaching_line() {
    let file = TempPath::new("bpftrace-o");
    let out = bpftrace(&["-o", file.str(), "-e", HI]);
    assert_status(&out, 0);
    let written = std::fs::read_to_string(file.path()).unwrap();
    assert!(written.starts_with("Attaching 1 probe...\nhi\n"), "{written:?}");
    // As bpftrace 0.17: the file holds the output and the maps, standard output the two
    // newlines that end tracing.
    let out = bpftrace(&["-o", file.str(), "-e", r#"BEGIN { printf("x\n"); @a = 1; exit(); }"#]);
    assert_status(&out, 0);
    assert_eq!(std::fs::read_to_string(file.path()).unwrap(), "Attaching 1 probe...\nx\n@a: 1\n");
    assert_eq!(out.stdout, "\n\n");
}

#[test]
fn positional_parameters_follow_the_program_and_missing_ones_are_zero() {
    let out = bpftrace(&["-e", r#"BEGIN { printf("%d %d %d\n", $1, $#, $4); exit(); }"#, "5", "6", "7"]);
    assert_eq!(out.stdout, "Attaching 1 probe...\n5 3 0\n\n\n");
    let script = TempPath::with_contents("params.bt", r#"BEGIN { printf("%d %d\n", $2, $#); exit(); }"#);
    let out = bpftrace(&[script.str(), "1", "22"]);
    assert_eq!(out.stdout, "Attaching 1 probe...\n22 2\n\n\n", "{}", out.dump());
}

#[test]
fn dash_reads_the_program_from_standard_input() {
    let out = bpftrace_with(&["-"], Some(HI), &[]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "Attaching 1 probe...\nhi\n\n\n");
}

#[test]
fn unsafe_allows_system() {
    let out = bpftrace(&["--unsafe", "-e", r#"BEGIN { system("echo x"); exit(); }"#]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "Attaching 1 probe...\nx\n\n\n");
}

#[test]
fn dry_runs_write_the_program_and_attach_nothing() {
    let elf = TempPath::new("bpftrace-elf");
    let out = bpftrace(&["--emit-elf", elf.str(), "-e", HI]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "");
    assert_eq!(&std::fs::read(elf.path()).unwrap()[..4], b"\x7fELF");
    let out = bpftrace(&["-d", "-e", HI]);
    assert_status(&out, 0);
    assert!(out.stdout.contains("instructions"), "{}", out.dump());
}

#[test]
fn listing_names_probes_as_bpftrace_does() {
    let out = bpftrace(&["-l", "tracepoint:syscalls:sys_enter_openat*"]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "tracepoint:syscalls:sys_enter_openat\ntracepoint:syscalls:sys_enter_openat2\n");
    // `*` crosses the colons.
    let out = bpftrace(&["-l", "t*:sched:sched_switch"]);
    assert_eq!(out.stdout, "tracepoint:sched:sched_switch\n");
    let out = bpftrace(&["-l", "*sleep*"]);
    assert!(out.stdout.lines().any(|l| l == "tracepoint:syscalls:sys_enter_nanosleep"), "{}", out.dump());
    assert!(out.stdout.lines().all(|l| l.contains("sleep")), "{}", out.dump());
    let out = bpftrace(&["-l", "rawtracepoint:sched_switch"]);
    assert_eq!(out.stdout, "rawtracepoint:sched_switch\n");
    // Short provider names list the long names' probes, named long.
    let out = bpftrace(&["-l", "t:syscalls:*openat*"]);
    assert_eq!(out.stdout, "tracepoint:syscalls:sys_enter_openat\ntracepoint:syscalls:sys_enter_openat2\ntracepoint:syscalls:sys_exit_openat\ntracepoint:syscalls:sys_exit_openat2\n");
    let out = bpftrace(&["-l", "rt:sched_switch"]);
    assert_eq!(out.stdout, "rawtracepoint:sched_switch\n");
    let out = bpftrace(&["-l", "ur:/bin/bash:readline_internal_c*"]);
    assert_eq!(out.stdout, "uretprobe:/bin/bash:readline_internal_char\n", "{}", out.dump());
    // bpftrace's -l takes a pattern, not a program.
    let out = bpftrace(&["-l", "sched_switch"]);
    assert_status(&out, 1);
    assert!(out.stderr.starts_with("ERROR: 'sched_switch' is not a probe pattern"), "{}", out.dump());
}

#[test]
fn verbose_listing_shows_tracepoint_fields() {
    let out = bpftrace(&["-lv", "tracepoint:syscalls:sys_enter_openat"]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "tracepoint:syscalls:sys_enter_openat\n    int __syscall_nr\n    int dfd\n    const char * filename\n    int flags\n    umode_t mode\n");
    let out = bpftrace(&["-lv", "tracepoint:sched:sched_process_exec"]);
    assert_eq!(out.stdout, "tracepoint:sched:sched_process_exec\n    __data_loc char[] filename\n    pid_t pid\n    pid_t old_pid\n");
}

/// Kernel functions are kprobes and kfuncs (named with their module, as bpftrace 0.17 reads
/// them from BTF); `-lv` gives a kfunc's parameters and return value from BTF.
#[test]
fn listing_kfuncs_with_their_parameters() {
    let out = bpftrace(&["-l", "kfunc:vfs_read"]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "kfunc:vmlinux:vfs_read\n");
    let out = bpftrace(&["-lv", "kfunc:vfs_read"]);
    assert_eq!(out.stdout, "kfunc:vmlinux:vfs_read\n    struct file * file\n    char * buf\n    size_t count\n    loff_t * pos\n    ssize_t retval\n");
    let out = bpftrace(&["-l", "k*:vfs_fsync"]);
    assert_eq!(out.stdout, "kfunc:vmlinux:vfs_fsync\nkprobe:vfs_fsync\n");
    assert_eq!(bpftrace(&["-l", "kfunc:vmlinux:vfs_fsync"]).stdout, "kfunc:vmlinux:vfs_fsync\n");
    // A return probe type named lists its own names.
    assert_eq!(bpftrace(&["-l", "kretprobe:vfs_fsync"]).stdout, "kretprobe:vfs_fsync\n");
    assert_eq!(bpftrace(&["-l", "kretfunc:vfs_fsync"]).stdout, "kretfunc:vmlinux:vfs_fsync\n");
}

/// Current bpftrace's fentry/fexit (`f:`/`fr:`) list in their own spelling; fentry has no
/// return value to list, fexit has.
#[test]
fn listing_fentry_and_fexit_in_their_own_names() {
    let out = bpftrace(&["-l", "fentry:vfs_read*"]);
    assert_status(&out, 0);
    assert!(out.stdout.lines().any(|l| l == "fentry:vmlinux:vfs_read") && out.stdout.lines().all(|l| l.starts_with("fentry:vmlinux:vfs_read")), "{}", out.dump());
    assert_eq!(bpftrace(&["-l", "fr:vfs_fsync"]).stdout, "fexit:vmlinux:vfs_fsync\n");
    let out = bpftrace(&["-lv", "fentry:vfs_read"]);
    assert_eq!(out.stdout, "fentry:vmlinux:vfs_read\n    struct file * file\n    char * buf\n    size_t count\n    loff_t * pos\n");
    let out = bpftrace(&["-lv", "fexit:vfs_read"]);
    assert_eq!(out.stdout, "fexit:vmlinux:vfs_read\n    struct file * file\n    char * buf\n    size_t count\n    loff_t * pos\n    ssize_t retval\n");
}

/// `-lv` of a raw tracepoint: its arguments from BTF, as current bpftrace lists them.
#[test]
fn listing_raw_tracepoints_with_their_arguments() {
    let out = bpftrace(&["-lv", "rawtracepoint:sched_process_fork"]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "rawtracepoint:sched_process_fork\n    struct task_struct * parent\n    struct task_struct * child\n", "{}", out.dump());
}

/// Several patterns joined by commas list one after the other.
#[test]
fn listing_patterns_joined_by_commas() {
    let out = bpftrace(&["-l", "kprobe:vfs_fsync,tracepoint:sched:sched_switch"]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "kprobe:vfs_fsync\ntracepoint:sched:sched_switch\n");
}

/// `-l 'struct NAME'` lists kernel types by name, `-lv` their definitions, as bpftrace 0.17
/// prints them (its libbpf's C layout, then an empty line).
#[test]
fn listing_kernel_types_and_their_definitions() {
    let out = bpftrace(&["-l", "struct path"]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "struct path\n");
    let out = bpftrace(&["-lv", "struct path"]);
    assert_eq!(out.stdout, "struct path {\n\tstruct vfsmount *mnt;\n\tstruct dentry *dentry;\n};\n\n");
    let out = bpftrace(&["-lv", "enum pid_type"]);
    assert_eq!(out.stdout, "enum pid_type {\n\tPIDTYPE_PID = 0,\n\tPIDTYPE_TGID = 1,\n\tPIDTYPE_PGID = 2,\n\tPIDTYPE_SID = 3,\n\tPIDTYPE_MAX = 4,\n};\n\n");
    // Holes, bitfields, anonymous members and function pointers, as bpftrace 0.17 wrote them
    // for this kernel's task_struct.
    let out = bpftrace(&["-lv", "struct task_struct"]);
    for line in ["\tconst struct sched_class *sched_class;\n", "\tunsigned int sched_reset_on_fork: 1;\n", "\tlong: 64;\n", "\tchar comm[16];\n"] {
        assert!(out.stdout.contains(line), "{line:?}\n{}", out.dump());
    }
    assert!(out.stdout.starts_with("struct task_struct {\n\tstruct thread_info thread_info;\n"), "{}", out.dump());
    assert!(out.stdout.ends_with("\tlong: 64;\n\tlong: 64;\n};\n\n"), "{}", out.dump());
    let out = bpftrace(&["-l", "struct pat*"]);
    assert!(out.stdout.lines().any(|l| l == "struct path") && out.stdout.lines().all(|l| l.starts_with("struct pat")), "{}", out.dump());
}

/// `-l -e PROGRAM` and `-l FILE`: the probes the program would attach (current bpftrace's
/// listing), BEGIN and END left out.
#[test]
fn listing_the_probes_of_a_program() {
    let program = "BEGIN { } tracepoint:sched:sched_switch, kprobe:vfs_fsync, fentry:vfs_fsync { } interval:s:1 { } END { }";
    let out = bpftrace(&["-l", "-e", program]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "tracepoint:sched:sched_switch\nkprobe:vfs_fsync\nfentry:vmlinux:vfs_fsync\ninterval:s:1\n", "{}", out.dump());
    let out = bpftrace(&["-lv", "-e", "rt:sched_process_fork { }"]);
    assert_eq!(out.stdout, "rawtracepoint:sched_process_fork\n    struct task_struct * parent\n    struct task_struct * child\n", "{}", out.dump());
    let script = TempPath::with_contents("list.bt", "tracepoint:syscalls:sys_enter_openat* { }\n");
    let out = bpftrace(&["-l", script.str()]);
    assert_eq!(out.stdout, "tracepoint:syscalls:sys_enter_openat\ntracepoint:syscalls:sys_enter_openat2\n", "{}", out.dump());
    // A program that does not parse is reported as any other.
    let out = bpftrace(&["-l", "-e", "kprobe:vfs_fsync {"]);
    assert_status(&out, 1);
    assert!(out.stderr.contains("stdin:1:"), "{}", out.dump());
}

#[test]
fn listing_a_files_functions_as_uprobes() {
    let out = bpftrace(&["-l", "uprobe:/bin/bash:*"]);
    assert_status(&out, 0);
    assert!(!out.stdout.is_empty() && out.stdout.lines().all(|l| l.starts_with("uprobe:/bin/bash:")), "{}", out.dump());
    let out = bpftrace(&["-l", "uprobe:/bin/bash:no_such_function_anywhere"]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "");
}

#[test]
fn info_reports_the_kernel() {
    let out = bpftrace(&["--info"]);
    assert_status(&out, 0);
    assert!(out.stderr.starts_with("System\n  OS: Linux "), "{}", out.dump());
    assert!(out.stderr.contains("\nProbe types\n  kprobe: ") && out.stderr.contains("\n  tracepoint: yes\n"), "{}", out.dump());
}

#[test]
fn json_output_is_one_record_a_line() {
    let out = bpftrace(&["-f", "json", "-e", HI]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}\n{\"type\": \"printf\", \"data\": \"hi\\n\"}\n\n\n", "{}", out.dump());
    // The last -f counts.
    assert_eq!(bpftrace(&["-f", "json", "-f", "text", "-e", HI]).stdout, "Attaching 1 probe...\nhi\n\n\n");
    assert!(bpftrace(&["-f", "text", "-f", "json", "-e", HI]).stdout.starts_with("{\"type\": \"attached_probes\""));
}

#[test]
fn json_maps_at_exit_and_printed() {
    // What bpftrace 0.17 -f json -q wrote for this program.
    let program = r#"BEGIN { @c["x"] = count(); @s = sum(-3); @a[1, "x"] = avg(10); @st = stats(4); @h = hist(5);
        @l[2] = lhist(7, 0, 20, 5); @v["k\"ey"] = "va\tl"; print(@h); print("done"); print(-1); exit(); }"#;
    let out = bpftrace(&["-q", "-f", "json", "-e", program]);
    assert_status(&out, 0);
    let want = r#"{"type": "hist", "data": {"@h": [{"min": 4, "max": 7, "count": 1}]}}
{"type": "value", "data": "done"}
{"type": "value", "data": -1}


{"type": "stats", "data": {"@a": {"1,x": 10}}}
{"type": "map", "data": {"@c": {"x": 1}}}
{"type": "hist", "data": {"@h": [{"min": 4, "max": 7, "count": 1}]}}
{"type": "hist", "data": {"@l": {"2": [{"min": 5, "max": 9, "count": 1}]}}}
{"type": "map", "data": {"@s": -3}}
{"type": "stats", "data": {"@st": {"count": 1, "average": 4, "total": 4}}}
{"type": "map", "data": {"@v": {"k\"ey": "va\tl"}}}
"#;
    assert_eq!(out.stdout, want, "{}", out.dump());
}

#[test]
fn json_system_and_time() {
    let out = bpftrace(&["--unsafe", "-q", "-f", "json", "-e", r#"BEGIN { system("echo sys"); time("%%"); exit(); }"#]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "{\"type\": \"syscall\", \"data\": \"sys\\n\"}\n{\"type\": \"time\", \"data\": \"%\"}\n\n\n", "{}", out.dump());
}

#[test]
fn json_output_to_a_file_leaves_the_end_newlines_on_standard_output() {
    // bpftrace 0.17 -f json -o F: F held the records, standard output "\n\n".
    let file = TempPath::new("bpftrace-json-o");
    let out = bpftrace(&["-f", "json", "-o", file.str(), "-e", r#"BEGIN { printf("x"); @a = 1; exit(); }"#]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "\n\n");
    let written = std::fs::read_to_string(file.path()).unwrap();
    assert_eq!(written, "{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}\n{\"type\": \"printf\", \"data\": \"x\"}\n{\"type\": \"map\", \"data\": {\"@a\": 1}}\n");
}

/// A map of tuples in `-f json`: each tuple an array, as bpftrace 0.17 writes it.
#[test]
fn json_of_a_map_of_tuples() {
    let out = bpftrace(&["-f", "json", "-e", r#"BEGIN { @m[2] = (1, "a"); @n = (5, (6, "x")); exit(); }"#]);
    assert!(out.stdout.ends_with("{\"type\": \"map\", \"data\": {\"@m\": {\"2\": [1,\"a\"]}}}\n{\"type\": \"map\", \"data\": {\"@n\": [5,[6,\"x\"]]}}\n"), "{}", out.dump());
}

/// errorf() and warnf() name a `-e` program `stdin`, as current bpftrace does, and
/// `--no-warnings` silences warnf().
#[test]
fn errorf_and_warnf_name_stdin_and_no_warnings_silences_warnf() {
    let program = r#"BEGIN { warnf("w"); errorf("e %d", 1); exit(); }"#;
    let out = bpftrace(&["-e", program]);
    assert_status(&out, 0);
    assert_eq!(out.stderr, "stdin:1:9-19: WARNING: w\nstdin:1:21-38: ERROR: e 1\n", "{}", out.dump());
    let out = bpftrace(&["--no-warnings", "-e", program]);
    assert_status(&out, 0);
    assert_eq!(out.stderr, "stdin:1:21-38: ERROR: e 1\n", "{}", out.dump());
}

/// A map of records in `-f json`: each record an object of its fields, as current bpftrace
/// writes one (`{"n": 1, "s": "a"}`, spaced; 0.17 lacks records).
#[test]
fn json_of_a_map_of_records() {
    let out = bpftrace(&["-f", "json", "-e", r#"BEGIN { @r[2] = (s = "a", n = 1); @t = (x = (1, "b")); exit(); }"#]);
    assert!(out.stdout.ends_with("{\"type\": \"map\", \"data\": {\"@r\": {\"2\": {\"n\": 1, \"s\": \"a\"}}}}\n{\"type\": \"map\", \"data\": {\"@t\": {\"x\": [1,\"b\"]}}}\n"), "{}", out.dump());
}

/// An unsafe function without --unsafe is refused in bpftrace's words; with it, it runs.
#[test]
fn unsafe_functions_need_unsafe() {
    let out = bpftrace(&["-e", r#"BEGIN { system("echo hi"); exit(); }"#]);
    assert_status(&out, 1);
    assert!(out.stderr.contains("system() is an unsafe function being used in safe mode"), "{}", out.dump());
    assert!(out.stderr.contains("--unsafe"), "{}", out.dump());
    let out = bpftrace(&["--unsafe", "-e", r#"BEGIN { system("echo hi"); exit(); }"#]);
    assert_status(&out, 0);
    assert!(out.stdout.starts_with("Attaching 1 probe...\nhi\n"), "{}", out.dump());
}

/// `--dry-run` attaches every probe and ends: nothing runs, nothing is printed. A probe that
/// cannot attach here (this kernel has no kprobes) still fails it: it does attach.
#[test]
fn dry_run_attaches_and_ends() {
    let out = bpftrace(&["--dry-run", "-e", r#"BEGIN { printf("hi\n"); } tracepoint:sched:sched_switch { @ = count(); }"#]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "", "{}", out.dump());
    if !std::path::Path::new("/sys/bus/event_source/devices/kprobe").exists() {
        let out = bpftrace(&["--dry-run", "-e", "kprobe:vfs_read { @ = count(); }"]);
        assert_ne!(out.code(), 0, "{}", out.dump());
    }
}

/// `--probe-filter REGEX` keeps the probes whose names it matches; BEGIN always runs.
#[test]
fn probe_filter_keeps_the_probes_it_matches() {
    let program = r#"BEGIN { printf("go\n"); } tracepoint:syscalls:sys_enter_read* /pid == cpid/ { @[probe] = count(); }"#;
    let out = bpftrace(&["--probe-filter", "enter_read$", "-c", "cat /etc/hostname", "-e", program]);
    assert_status(&out, 0);
    assert!(out.stdout.starts_with("Attaching 2 probes...\ngo\n"), "{}", out.dump());
    assert!(out.stdout.contains("@[tracepoint:syscalls:sys_enter_read]: "), "{}", out.dump());
    assert_eq!(out.stdout.matches("@[").count(), 1, "{}", out.dump());
    let out = bpftrace(&["--probe-filter", "nothing", "-e", "tracepoint:syscalls:sys_enter_read* { @ = count(); }"]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "ERROR: Attachment failed for all probes.\n");
    let out = bpftrace(&["--probe-filter", "(", "-e", HI]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "ERROR: Invalid --probe-filter regex '(': unclosed group\n");
}

#[test]
fn no_feature_takes_bpftraces_features() {
    let out = bpftrace(&["--no-feature", "kprobe_multi,uprobe_multi,kprobe_session", "-e", HI]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "Attaching 1 probe...\nhi\n\n\n");
    let out = bpftrace(&["--no-feature", "fentry", "-e", HI]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "ERROR: USAGE: --no-feature can only have values 'kprobe_multi,kprobe_session,uprobe_multi'.\n");
}

/// `--debug dis` prints the BPF, then traces; bpftrace's other stages are not crumbs'.
#[test]
fn debug_stages() {
    let out = bpftrace(&["--debug", "dis", "-e", HI]);
    assert_status(&out, 0);
    assert!(out.stdout.starts_with("crumbs_begin (BEGIN (run once)), ") && out.stdout.ends_with("Attaching 1 probe...\nhi\n\n\n"), "{}", out.dump());
    let out = bpftrace(&["--debug=ast", "-e", HI]);
    assert_status(&out, 2);
    assert!(out.stderr.starts_with("ERROR: --debug ast is not supported: "), "{}", out.dump());
    let out = bpftrace(&["--debug", "nope", "-e", HI]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "ERROR: USAGE: invalid option for -d: nope\n");
}

/// Current bpftrace's options crumbs has not: said by name, status 2 (not getopt's usage).
#[test]
fn newer_options_crumbs_lacks_are_named() {
    for args in [&["--fmt", "x.bt"][..], &["--debuginfo", "/usr/lib/debug", "-e", HI], &["--traceable-functions=/tmp/f", "-e", HI], &["--test", "x.bt"], &["--bench", "x.bt"], &["--mode", "test", "x.bt"]] {
        let out = bpftrace(args);
        assert_status(&out, 2);
        let option = args[0].split('=').next().unwrap();
        assert!(out.stderr.starts_with(&format!("ERROR: {option} is not supported: ")) && !out.stderr.contains("USAGE"), "{}", out.dump());
    }
}

/// Named program parameters mix with positional ones after `--`, as current bpftrace reads
/// them: `$1`, `$2` are the words without `--`; a name no getopt() reads is an error, and
/// `--help` lists the program's with their descriptions.
#[test]
fn named_parameters_mix_with_positional_ones() {
    let program = r#"BEGIN { printf("%s %s %d %d\n", str($1), str($2), getopt("aa", 1), getopt("bb")); exit(); }"#;
    let out = bpftrace(&["-e", program, "p1", "--", "--aa=20", "--bb", "p2"]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "Attaching 1 probe...\np1 p2 20 1\n\n\n", "{}", out.dump());
    let script = TempPath::with_contents("named.bt", program);
    let out = bpftrace(&[script.str(), "--", "p1", "--aa=20", "p2"]);
    assert_eq!(out.stdout, "Attaching 1 probe...\np1 p2 20 0\n\n\n", "{}", out.dump());
    let out = bpftrace(&["-e", program, "--", "--cc=1"]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "ERROR: unexpected program command line options: --cc\nHINT: expected program options: --aa: --bb\n");
    let out = bpftrace(&["-e", r#"BEGIN { printf("%d\n", getopt("depth", 3, "how deep")); exit(); }"#, "--", "--help"]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "HINT: expected program options:\n--depth: how deep\n");
}

/// `self:signal:SIGUSR1` runs at each SIGUSR1 crumbs receives: here from BEGIN's own
/// signal() (BEGIN fires in crumbs) and from the `-c` command's kill of its parent.
#[test]
fn self_signal_probe_runs_at_sigusr1() {
    let out = bpftrace(&["--unsafe", "-e", r#"BEGIN { printf("begin\n"); signal("SIGUSR1"); } self:signal:SIGUSR1 { printf("got %s %s\n", probe, probetype); exit(); }"#]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "Attaching 2 probes...\nbegin\ngot self:signal:SIGUSR1 special\n\n\n", "{}", out.dump());
    let out = bpftrace(&["-c", "sh -c 'kill -USR1 $PPID; sleep 0.5; kill -USR1 $PPID; sleep 5'", "-e", r#"self:signal:SIGUSR1 { @n++; if (@n == 2) { exit(); } }"#]);
    assert_eq!(out.stdout.lines().last(), Some("@n: 2"), "{}", out.dump());
    let out = bpftrace(&["-l", "self:*"]);
    assert_eq!(out.stdout, "self:signal:SIGUSR1\n");
}

#[test]
fn test_and_bench_probes_are_refused_with_why() {
    let out = bpftrace(&["-e", "test:okay { }"]);
    assert_status(&out, 1);
    assert!(out.stderr.contains("test probes run only in bpftrace's test mode (bpftrace --test), which crumbs does not have"), "{}", out.dump());
}
