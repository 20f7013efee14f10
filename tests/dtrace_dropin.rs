//! crumbs invoked as `dtrace` (spec §10.5): dtrace(1)'s command line, messages and exit
//! statuses, through a symlink named dtrace to the crumbs binary.

mod common;

use common::{compiled_c, crumbs, int_col, run, run_command, Output, TempPath, CALLS, TIMEOUT};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A directory holding `dtrace`, a symlink to crumbs; removed when dropped.
struct Dropin {
    dir: TempPath,
}

impl Dropin {
    fn new() -> Dropin {
        let dir = TempPath::dir("dtrace-dir");
        std::os::unix::fs::symlink(crumbs(), dir.path().join("dtrace")).expect("symlink dtrace -> crumbs");
        Dropin { dir }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("dtrace")
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(self.path());
        c.args(args);
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        run_command(self.cmd(args), None, TIMEOUT)
    }

    /// Runs on CPU 0 only, with the -c command (which inherits that): flow indentation is
    /// per CPU.
    fn run_on_cpu0(&self, args: &[&str]) -> Output {
        let mut c = Command::new("taskset");
        c.args(["-c", "0"]).arg(self.path()).args(args);
        run_command(c, None, TIMEOUT)
    }
}

fn dtrace(args: &[&str]) -> Output {
    let out = Dropin::new().run(args);
    out.assert_no_panic();
    out
}

fn assert_status(out: &Output, status: i32) {
    assert_eq!(out.code(), status, "{}", out.dump());
}

fn version() -> String {
    format!("dtrace: crumbs D 1.13 (crumbs {})\n", env!("CARGO_PKG_VERSION"))
}

#[test]
fn usage_errors_print_dtraces_usage_with_status_2() {
    let out = dtrace(&[]);
    assert_status(&out, 2);
    assert!(out.stderr.starts_with("Usage: dtrace [-32|-64] [-CeFGhHlqSvVwZ] [-b bufsz] [-c cmd] [-D name[=def]]\n"), "{}", out.dump());
    assert!(out.stderr.ends_with("\t-Z  permit probe descriptions that match zero probes\n"), "{}", out.dump());
    for (args, line) in [
        (&["-k"][..], "dtrace: invalid option -- 'k'\n"),
        (&["--help"][..], "dtrace: invalid option -- '-'\n"),
        (&["-n"][..], "dtrace: option requires an argument -- 'n'\n"),
        (&["-35"][..], "dtrace: illegal option -- 35\n"),
    ] {
        let out = dtrace(args);
        assert_status(&out, 2);
        assert!(out.stderr.starts_with(&format!("{line}Usage: dtrace ")), "{}", out.dump());
    }
    let out = dtrace(&["-l", "-V"]);
    assert_status(&out, 2);
    assert_eq!(out.stderr, "dtrace: only one of the [-GhlV] options can be specified at a time\n");
    for (args, msg) in [
        (&["-G", "-n", "BEGIN"][..], "dtrace: -G is not supported: crumbs has no statically defined user-space probes to link\n"),
        (&["-32", "-n", "BEGIN"][..], "dtrace: -32 is not supported: crumbs compiles for the 64-bit data model\n"),
        (&["-c", "true", "-p", "1", "-n", "BEGIN"][..], "dtrace: crumbs traces one process at a time: give one -c or one -p\n"),
    ] {
        let out = dtrace(args);
        assert_status(&out, 2);
        assert_eq!(out.stderr, msg);
    }
}

#[test]
fn v_upper_reports_the_version() {
    let out = dtrace(&["-V"]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, version());
}

#[test]
fn descriptions_and_scripts_say_what_they_matched() {
    let script = TempPath::with_contents("three.d", "syscall::read:entry, syscall::write:entry { }\nBEGIN { exit(0); }\n");
    let out = dtrace(&["-s", script.str(), "-n", "syscall::read:entry", "-n", "BEGIN { exit(0); }"]);
    assert_status(&out, 0);
    assert_eq!(
        out.stderr,
        format!("dtrace: script '{}' matched 3 probes\ndtrace: description 'syscall::read:entry' matched 1 probe\ndtrace: description 'BEGIN ' matched 1 probe\n", script.str())
    );
    // The firings print as DTrace's do: the heading, then CPU, ID, FUNCTION:NAME.
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "CPU     ID                    FUNCTION:NAME", "{}", out.dump());
    assert!(lines[1].ends_with("      1                           :BEGIN "), "{}", out.dump());
    // -P, -f and -i name their descriptions as given.
    let out = dtrace(&["-P", "dtrace", "-f", "openat", "-i", "1", "-n", "BEGIN { exit(0); }"]);
    assert_status(&out, 0);
    assert_eq!(
        out.stderr,
        "dtrace: description 'dtrace' matched 3 probes\ndtrace: description 'openat' matched 2 probes\ndtrace: description '1' matched 1 probe\ndtrace: description 'BEGIN ' matched 1 probe\n"
    );
    // -q: no banner, no heading.
    let out = dtrace(&["-q", "-n", "BEGIN { printf(\"hi\\n\"); exit(3); }"]);
    assert_status(&out, 3);
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("hi\n\n", ""));
}

#[test]
fn compile_errors_start_with_dtraces_line_and_exit_1() {
    let out = dtrace(&["-n", "syscall::nope:entry"]);
    assert_status(&out, 1);
    assert!(
        out.stderr.starts_with(
            "dtrace: invalid probe specifier syscall::nope:entry: probe description `syscall::nope:entry` does not match any probes\nError: probe description `syscall::nope:entry` does not match any probes\n  --> <command line>:1:1\n"
        ),
        "{}",
        out.dump()
    );
    assert!(out.stderr.contains("Help: there is no system call `nope`"), "{}", out.dump());
    let script = TempPath::with_contents("bad.d", "BEGIN\n{\n\ttrace(foo);\n}\n");
    let out = dtrace(&["-s", script.str()]);
    assert_status(&out, 1);
    let first = format!("dtrace: failed to compile script {}: line 3: unknown variable `foo`\nError: unknown variable `foo`\n  --> {}:3:8\n", script.str(), script.str());
    assert!(out.stderr.starts_with(&first), "{}", out.dump());
    let out = dtrace(&["-s", "/nonexistent/x.d"]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "dtrace: failed to open /nonexistent/x.d: No such file or directory\n");
}

#[test]
fn errtags_put_dtraces_tag_first() {
    let script = TempPath::with_contents("syntax.d", "BEGIN\n{\n\tx = ;\n}\n");
    for (args, first) in [
        (vec!["-n", "nosuch:::probe"], "dtrace: invalid probe specifier nosuch:::probe: [D_PDESC_ZERO] unknown provider `nosuch`\n".to_string()),
        (vec!["-n", "BEGIN { trace(foo); }"], "dtrace: invalid probe specifier BEGIN { trace(foo); }: [D_IDENT_UNDEF] unknown variable `foo`\n".to_string()),
        (vec!["-s", script.str()], format!("dtrace: failed to compile script {}: [D_SYNTAX] line 3: syntax error: unexpected `;`\n", script.str())),
    ] {
        let mut with = vec!["-x", "errtags"];
        with.extend(&args);
        let out = dtrace(&with);
        assert_status(&out, 1);
        assert!(out.stderr.starts_with(&first), "{}", out.dump());
        assert!(!dtrace(&args).stderr.contains("[D_"));
    }
}

#[test]
fn x_options_are_dtraces() {
    for (args, msg) in [
        (&["-x", "nosuch", "-n", "BEGIN"][..], "dtrace: failed to set -x nosuch: Invalid option name\n"),
        (&["-x", "bufsize=lots", "-n", "BEGIN"][..], "dtrace: failed to set -x bufsize: Invalid value for specified option\n"),
        (&["-x", "errtags=1", "-n", "BEGIN"][..], "dtrace: failed to set -x errtags: Invalid value for specified option\n"),
        (&["-b", "lots", "-n", "BEGIN"][..], "dtrace: failed to set -b lots: Invalid value for specified option\n"),
        (&["-X", "q", "-n", "BEGIN"][..], "dtrace: failed to set -X q: Invalid value for specified option\n"),
    ] {
        let out = dtrace(args);
        assert_status(&out, 1);
        assert_eq!(out.stderr, msg);
    }
    // Options crumbs has are honoured; dtrace's others are accepted.
    let out = dtrace(&["-x", "quiet", "-b", "8m", "-x", "temporal", "-x", "aggpack", "-x", "amin=Evolving/Evolving/Common", "-n", "BEGIN { printf(\"x\"); exit(0); }"]);
    assert_status(&out, 0);
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("x\n", ""));
    // As pragmas too.
    let script = TempPath::with_contents("pragmas.d", "#pragma D option quiet\n#pragma D option temporal\nBEGIN { printf(\"y\"); exit(0); }\n");
    let out = dtrace(&["-s", script.str()]);
    assert_status(&out, 0);
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("y\n", ""));
}

#[test]
fn e_compiles_and_enables_nothing() {
    let marker = TempPath::new("e-marker");
    let out = dtrace(&["-e", "-n", "BEGIN { printf(\"no\"); exit(0); }", "-c", &format!("touch {}", marker.str())]);
    assert_status(&out, 0);
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("", ""));
    assert!(!marker.path().exists(), "-c ran under -e");
    assert_status(&dtrace(&["-e", "-n", "BEGIN { x = ; }"]), 1);
}

#[test]
fn big_c_runs_the_preprocessor() {
    let inc = TempPath::dir("inc-dir");
    std::fs::write(inc.path().join("limits.h"), "#define LIMIT 40\n").unwrap();
    let src = "#include \"limits.h\"\n#define GREETING \"hello\"\n#define TWICE(x) ((x) * 2)\n\nBEGIN\n{\n\tprintf(\"%s %d %d\\n\", GREETING, TWICE(LIMIT), CRUMBS_EXTRA);\n\texit(0);\n}\n";
    let script = TempPath::with_contents("cpp.d", src);
    let inc_arg = format!("-I{}", inc.str());
    let out = dtrace(&["-q", "-C", &inc_arg, "-DCRUMBS_EXTRA=7", "-s", script.str()]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "hello 80 7\n\n", "{}", out.dump());
    // -H lists what the preprocessor includes.
    let out = dtrace(&["-qCH", &inc_arg, "-DCRUMBS_EXTRA=7", "-s", script.str()]);
    assert_status(&out, 0);
    assert!(out.stderr.contains(&format!(". {}", inc.path().join("limits.h").display())), "{}", out.dump());
    // -U undoes a -D, and a line in an error is the script's own.
    let out = dtrace(&["-C", &inc_arg, "-DCRUMBS_EXTRA=7", "-UCRUMBS_EXTRA", "-s", script.str()]);
    assert_status(&out, 1);
    assert!(out.stderr.starts_with(&format!("dtrace: failed to compile script {}: line 7: unknown variable `CRUMBS_EXTRA`\n", script.str())), "{}", out.dump());
    // Without -C a #define is D's syntax error; -D, -U and -I are harmless.
    let out = dtrace(&["-DCRUMBS_EXTRA=7", &inc_arg, "-s", script.str()]);
    assert_status(&out, 1);
    assert!(out.stderr.starts_with(&format!("dtrace: failed to compile script {}: line 2: syntax error: unexpected `#`", script.str())), "{}", out.dump());
}

#[test]
fn big_z_permits_descriptions_that_match_nothing() {
    let out = dtrace(&["-Z", "-n", "syscall::nope:entry", "-n", "BEGIN { exit(0); }"]);
    assert_status(&out, 0);
    assert_eq!(out.stderr, "dtrace: description 'syscall::nope:entry' matched 0 probes\ndtrace: description 'BEGIN ' matched 1 probe\n");
    // A clause keeps the descriptions that match.
    let out = dtrace(&["-Zq", "-n", "nosuch:::x, BEGIN, syscall::nope:entry { printf(\"ran\\n\"); exit(0); }"]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "ran\n\n");
    // Nothing matched at all: tracing waits for the command, as dtrace's does.
    let out = dtrace(&["-Z", "-n", "nosuch:::x", "-c", "true"]);
    assert_status(&out, 0);
    assert!(out.stderr.starts_with("dtrace: description 'nosuch:::x' matched 0 probes\ndtrace: pid "), "{}", out.dump());
    assert!(out.stderr.ends_with(" has exited\n"), "{}", out.dump());
    let out = dtrace(&["-q"]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "dtrace: no probes specified\n");
    // A function the command's executable does not define, as dtrace's pid provider.
    let dir = TempPath::dir("dtrace-z-pid");
    let exe = compiled_c(&dir, "calls", CALLS, &["-O0"]);
    let out = dtrace(&["-Zq", "-n", "pid$target:a.out:no_such_function:entry, pid$target:a.out:c:entry { printf(\"c\\n\"); }", "-c", &exe]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "c\n\n", "{}", out.dump());
}

#[test]
fn big_z_leaves_a_malformed_description_to_the_compiler() {
    // Only a description that matches nothing goes; one that is wrong is still an error.
    for desc in ["profile:::tick-abc", "syscall::[:entry"] {
        let out = dtrace(&["-Z", "-n", desc, "-n", "BEGIN { exit(0); }"]);
        assert_status(&out, 1);
        assert!(out.stderr.starts_with(&format!("dtrace: invalid probe specifier {desc}: ")), "{}", out.dump());
    }
}

#[test]
fn w_allows_destructive_actions_and_says_so() {
    let out = dtrace(&["-w", "-n", "BEGIN { exit(0); }"]);
    assert_status(&out, 0);
    assert_eq!(out.stderr, "dtrace: description 'BEGIN ' matched 1 probe\ndtrace: allowing destructive actions\n");
    assert_eq!(dtrace(&["-qw", "-n", "BEGIN { exit(0); }"]).stderr, "");
}

#[test]
fn v_reports_stability() {
    let out = dtrace(&["-v", "-n", "dtrace:::BEGIN{exit(0);}"]);
    assert_status(&out, 0);
    let report = "\nStability attributes for description dtrace:::BEGIN:\n\n\tMinimum Probe Description Attributes\n\t\tIdentifier Names: Evolving\n\t\tData Semantics:   Evolving\n\t\tDependency Class: Common\n\n\tMinimum Statement Attributes\n\t\tIdentifier Names: Stable\n\t\tData Semantics:   Stable\n\t\tDependency Class: Common\n";
    assert!(out.stdout.starts_with(&format!("{report}\nCPU ")), "{}", out.dump());
    // With -e, each description's own attributes and argument types follow.
    let out = dtrace(&["-ev", "-n", "syscall::read:entry { trace(args[0]); }"]);
    assert_status(&out, 0);
    assert!(out.stdout.contains("\tMinimum Statement Attributes\n\t\tIdentifier Names: Private\n\t\tData Semantics:   Private\n\t\tDependency Class: ISA\n"), "{}", out.dump());
    assert!(
        out.stdout.ends_with("\nsyscall::read:entry\n\n\tProbe Description Attributes\n\t\tIdentifier Names: Private\n\t\tData Semantics:   Private\n\t\tDependency Class: ISA\n\n\tArgument Attributes\n\t\tIdentifier Names: Private\n\t\tData Semantics:   Private\n\t\tDependency Class: ISA\n\n\tArgument Types\n\t\targs[0]: unsigned int\n\t\targs[1]: char * (user)\n\t\targs[2]: size_t\n\n"),
        "{}",
        out.dump()
    );
}

#[test]
fn c_and_p_name_the_process() {
    let out = dtrace(&["-n", "syscall::openat:entry /pid == $target/ { @ = count(); }", "-c", "cat /etc/hostname"]);
    assert_status(&out, 0);
    let banner = "dtrace: description 'syscall::openat:entry ' matched 1 probe\ndtrace: pid ";
    assert!(out.stderr.starts_with(banner) && out.stderr.ends_with(" has exited\n"), "{}", out.dump());
    let out = dtrace(&["-n", "BEGIN", "-c", "nosuch-command-xyz"]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "dtrace: failed to execute nosuch-command-xyz: No such file or directory\n");

    let mut sleeper = Command::new("sleep").arg("1").spawn().unwrap();
    let pid = sleeper.id().to_string();
    let out = dtrace(&["-p", &pid, "-n", "BEGIN { printf(\"%d\", $target); }"]);
    let _ = sleeper.wait();
    assert_status(&out, 0);
    assert_eq!(out.stderr, format!("dtrace: description 'BEGIN ' matched 1 probe\ndtrace: pid {pid} has exited\n"));
    assert!(out.stdout.contains(&format!(":BEGIN {pid}\n")), "{}", out.dump());
    for (p, msg) in [("abc", "dtrace: invalid pid: abc\n"), ("2147483647", "dtrace: failed to grab pid 2147483647: No such process\n")] {
        let out = dtrace(&["-p", p, "-n", "BEGIN"]);
        assert_status(&out, 1);
        assert_eq!(out.stderr, msg);
    }
}

#[test]
fn o_appends_to_the_file() {
    let file = TempPath::with_contents("out.txt", "old\n");
    let out = dtrace(&["-q", "-o", file.str(), "-n", "BEGIN { printf(\"new\\n\"); exit(0); }"]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, "");
    assert_eq!(std::fs::read_to_string(file.path()).unwrap(), "old\nnew\n\n");
    let out = dtrace(&["-o", "/nonexistent/dir/out", "-n", "BEGIN"]);
    assert_status(&out, 1);
    assert_eq!(out.stderr, "dtrace: failed to open output file '/nonexistent/dir/out': No such file or directory\n");
}

#[test]
fn l_lists_what_each_option_names() {
    let crumbs_list = |desc: &str| {
        let out = run(&["-l", "-e", desc]);
        out.assert_ok();
        out.stdout
    };
    for (args, same_as) in [
        (&["-l", "-n", "syscall::openat:entry"][..], "syscall::openat:entry"),
        (&["-l", "-f", "openat"][..], "::openat:"),
        (&["-l", "-P", "profile"][..], "profile:::"),
        (&["-l", "-m", "vmlinux"][..], ":vmlinux::"),
        (&["-l", "-i", "1"][..], "dtrace:::BEGIN"),
    ] {
        let out = dtrace(args);
        assert_status(&out, 0);
        assert_eq!(out.stdout, crumbs_list(same_as), "{args:?}");
    }
    // A description matching nothing is said, and listing goes on.
    let out = dtrace(&["-l", "-n", "nosuch:::x", "-n", "BEGIN"]);
    assert_status(&out, 0);
    assert_eq!(out.stderr, "dtrace: failed to match nosuch:::x: No probe matches description\n");
    assert_eq!(out.stdout, crumbs_list("BEGIN"));
    // -lv: each probe's stability and argument types.
    let out = dtrace(&["-lv", "-n", "BEGIN"]);
    assert_status(&out, 0);
    assert!(out.stdout.ends_with("BEGIN\n\n\tProbe Description Attributes\n\t\tIdentifier Names: Evolving\n\t\tData Semantics:   Evolving\n\t\tDependency Class: Common\n\n\tArgument Attributes\n\t\tIdentifier Names: Stable\n\t\tData Semantics:   Stable\n\t\tDependency Class: Common\n\n\tArgument Types\n\t\tNone\n\n"), "{}", out.dump());
    // Everything.
    let out = dtrace(&["-l"]);
    assert_status(&out, 0);
    assert_eq!(out.stdout, run(&["-l"]).stdout);
}

#[test]
fn big_s_shows_the_compiled_program() {
    let program = "BEGIN { exit(0); }";
    let dump = run(&["--dump-bpf", "-e", program]);
    dump.assert_ok();
    let out = dtrace(&["-S", "-e", "-n", program]);
    assert_status(&out, 0);
    assert_eq!(out.stderr, dump.stdout);
}

#[test]
fn h_writes_a_header_for_the_scripts_providers() {
    let dir = TempPath::dir("h-dir");
    std::fs::write(dir.path().join("probes.d"), "BEGIN { exit(0); }\n").unwrap();
    let dropin = Dropin::new();
    let mut cmd = dropin.cmd(&["-h", "-s", "probes.d"]);
    cmd.current_dir(dir.path());
    let out = run_command(cmd, None, TIMEOUT);
    assert_status(&out, 0);
    let h = std::fs::read_to_string(dir.path().join("probes.h")).unwrap();
    assert!(h.starts_with("/*\n * Generated by dtrace(1M).\n */\n\n#ifndef\t_PROBES_H\n#define\t_PROBES_H\n"), "{h}");
    let out = dtrace(&["-h", "-n", "BEGIN"]);
    assert_status(&out, 2);
    assert_eq!(out.stderr, "dtrace: -h requires an output file if no scripts are specified\n");
    let out = dtrace(&["-h"]);
    assert_status(&out, 2);
    assert_eq!(out.stderr, "dtrace: -h requires one or more scripts or enabling options\n");
}

/// The lines of `-F` output for the `cat` of the workload: its `openat` probes.
fn flow_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.contains("openat")).collect()
}

#[test]
fn big_f_indents_the_flow_of_system_calls() {
    let dropin = Dropin::new();
    let out_file = TempPath::new("flow.txt");
    let program = ["-F", "-o", out_file.str(), "-n", "syscall::openat:entry,syscall::openat:return /pid == $target/", "-c", "cat /etc/hostname"];
    let out = dropin.run_on_cpu0(&program);
    assert_status(&out, 0);
    let text = std::fs::read_to_string(out_file.path()).unwrap();
    assert!(text.starts_with(&format!("CPU {:<41}\n", "FUNCTION")), "{text}");
    let lines = flow_lines(&text);
    assert!(lines.len() >= 4 && lines.len().is_multiple_of(2), "{text}");
    // Each call enters and returns at the left margin.
    for pair in lines.chunks(2) {
        assert_eq!(pair, [format!("  0 {:<41} ", " => openat"), format!("  0 {:<41} ", " <= openat")], "{text}");
    }

    // With what the actions print, quiet: the last open is the file cat reads.
    let out_file = TempPath::new("flow-q.txt");
    let entry = "syscall::openat:entry /pid == $target/ { printf(\"%s\\n\", copyinstr(arg1)); }";
    let ret = "syscall::openat:return /pid == $target/ { printf(\"%d\\n\", arg1); }";
    let out = dropin.run_on_cpu0(&["-qF", "-o", out_file.str(), "-n", entry, "-n", ret, "-c", "cat /etc/hostname"]);
    assert_status(&out, 0);
    let text = std::fs::read_to_string(out_file.path()).unwrap();
    let lines = flow_lines(&text);
    let n = lines.len();
    assert_eq!(lines[n - 2], format!("  0 {:<41} /etc/hostname", " => openat"), "{text}");
    // The descriptor it got (which depends on what the test harness leaves open).
    let fd = lines[n - 1].strip_prefix(&format!("  0 {:<41} ", " <= openat")).and_then(|fd| fd.parse::<u32>().ok());
    assert!(fd.is_some(), "{text}");

    // Entries alone: each indents the next by two.
    let out_file = TempPath::new("flow-in.txt");
    let out = dropin.run_on_cpu0(&["-F", "-o", out_file.str(), "-n", "syscall::openat:entry /pid == $target/", "-c", "cat /etc/hostname"]);
    assert_status(&out, 0);
    let text = std::fs::read_to_string(out_file.path()).unwrap();
    for (i, line) in flow_lines(&text).iter().enumerate() {
        assert_eq!(*line, format!("  0 {:<41} ", format!("{}{}", " ".repeat(2 * i), " => openat")), "{text}");
    }

    // The option as a pragma.
    let script = TempPath::with_contents("flow.d", "#pragma D option flowindent\nBEGIN { exit(0); }\n");
    let out = dropin.run(&["-s", script.str()]);
    assert_status(&out, 0);
    assert!(out.stdout.starts_with(&format!("CPU {:<41}\n", "FUNCTION")), "{}", out.dump());
    assert!(out.stdout.contains(&format!(" {:<41} \n", "| :BEGIN")), "{}", out.dump());
}

#[test]
fn a_shebang_script_runs_through_the_symlink() {
    let dropin = Dropin::new();
    let script = TempPath::with_contents(
        "lab.d",
        &format!("#!{} -qs\n\nBEGIN\n{{\n\tprintf(\"%s says %s\\n\", $1, $2);\n\texit(0);\n}}\n", dropin.path().display()),
    );
    std::fs::set_permissions(script.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = run_shebang(script.path(), &["crumbs", "hello"]);
    assert_status(&out, 0);
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("crumbs says hello\n\n", ""), "{}", out.dump());
}

/// Runs an executable script.
fn run_shebang(path: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(path);
    cmd.args(args);
    run_command(cmd, None, TIMEOUT)
}

#[test]
fn tracing_and_listing_need_root() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempPath::dir("dtrace-nobody");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let copy = dir.path().join("dtrace");
    std::fs::copy(crumbs(), &copy).unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    for args in [&["-n", "BEGIN"][..], &["-l"][..]] {
        let mut cmd = Command::new(&copy);
        cmd.args(args).uid(65534).gid(65534);
        let out = run_command(cmd, None, TIMEOUT);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert_eq!(out.stderr, "dtrace: run as root for tracing and listing probes\n");
    }
}

/// Run-time errors are reported in dtrace's voice (spec §4.10).
#[test]
fn runtime_errors_are_reported_as_dtrace() {
    let out = dtrace(&["-q", "-n", "BEGIN { x = 1 / arg0; } BEGIN { exit(0); }"]);
    assert_status(&out, 0);
    assert!(out.stderr.starts_with("dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): divide-by-zero in action #1 at BPF pc "), "{}", out.dump());
}

/// pid$target in the drop-in: matched (the banner counts the probe), traced and listed
/// (-l -c holds the command to read its files, and kills it).
#[test]
fn pid_target_probes() {
    let exe = io_benchmark_path();
    let out = dtrace(&["-qn", "pid$target:a.out:main:entry { @ = count(); }", "-c", &exe]);
    assert_status(&out, 0);
    assert!(out.stdout.contains(&int_col(1)), "{}", out.dump());
    let out = dtrace(&["-n", "pid$target:a.out:main:entry { }", "-c", &exe]);
    assert!(out.stderr.contains("matched 1 probe"), "{}", out.dump());
    let out = dtrace(&["-l", "-n", "pid$target:a.out:main:", "-c", &exe]);
    assert_status(&out, 0);
    assert_eq!(out.stdout.lines().count(), 3, "{}", out.dump());
    assert!(out.stdout.contains("main entry") && out.stdout.contains("main return"), "{}", out.dump());
}

fn io_benchmark_path() -> String {
    common::io_benchmark().display().to_string()
}
