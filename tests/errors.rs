//! Bad input: every error exits with status 2 and says where and what, like a compiler:
//! `file:line:col` (`<command line>` for -e, the script's path for -s), the offending
//! source line with a caret/underline under the column, and a hint. Nothing is left
//! behind (crumbs exits promptly; a `-c` command is not left running), and crumbs never
//! panics.

mod common;

use common::{assert_no_process_with, crumbs, run, run_command, unique, Output, TempPath};
use std::process::Command;
use std::time::Duration;

const CMDLINE: &str = "<command line>";

/// Characters ariadne (or a plain caret renderer) draws under the error's column.
const MARKS: &[char] = &['^', '┬', '─', '╰', '│', '~'];

/// Asserts a diagnostic: status 2, `file:line:col`, the source line with a mark under
/// column `col`, a hint, nothing on stdout, no panic. `hint` must appear in the hint text.
fn assert_diag(out: &Output, file: &str, line: usize, col: usize, source_line: &str, hint: &str) {
    out.assert_no_panic();
    assert_eq!(out.code(), 2, "exit status\n{}", out.dump());
    assert_eq!(out.stdout, "", "nothing on stdout\n{}", out.dump());
    let err = &out.stderr;
    let loc = format!("{file}:{line}:{col}");
    assert!(err.contains(&loc), "location `{loc}` missing\n{}", out.dump());
    assert_hint(out, hint);
    if source_line.trim().is_empty() {
        return;
    }
    // The source line, then a line with a mark in the same column.
    let lines: Vec<&str> = err.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.ends_with(source_line) || l.contains(&format!(" {source_line}")))
        .unwrap_or_else(|| panic!("source line {source_line:?} not shown\n{}", out.dump()));
    let shown: Vec<char> = lines[i].chars().collect();
    let src: Vec<char> = source_line.chars().collect();
    let start = (0..=shown.len() - src.len())
        .rev()
        .find(|&s| shown[s..s + src.len()] == src[..])
        .expect("source text in its line");
    let at = start + col - 1;
    let marked = lines[i + 1..].iter().take(3).any(|l| {
        let c: Vec<char> = l.chars().collect();
        c.get(at).is_some_and(|ch| MARKS.contains(ch))
    });
    assert!(marked, "no caret/underline under column {col} of {source_line:?}\n{}", out.dump());
}

fn assert_hint(out: &Output, hint: &str) {
    let lower = out.stderr.to_lowercase();
    let at = lower.find("help:").or_else(|| lower.find("hint:"));
    let Some(at) = at else { panic!("no hint (help:/hint:)\n{}", out.dump()) };
    assert!(out.stderr[at..].contains(hint), "hint does not mention {hint:?}\n{}", out.dump());
}

/// `crumbs -e PROGRAM`, with a `-c` command that must not be left running.
fn run_e(program: &str) -> Output {
    let sleep = format!("sleep 29.{:06}", (unique() * 7919 + std::process::id() as usize) % 1_000_000);
    let out = run(&["-e", program, "-c", &sleep]);
    assert!(out.elapsed < Duration::from_secs(5), "slow to fail: {:?}\n{}", out.elapsed, out.dump());
    assert_no_process_with(&sleep, Duration::from_secs(3));
    out
}

// ---------------------------------------------------------------- syntax

#[test]
fn syntax_unclosed_block() {
    let p = r#"BEGIN { printf("x");"#;
    assert_diag(&run_e(p), CMDLINE, 1, 21, p, "");
}

#[test]
fn syntax_bad_token() {
    let p = "BEGIN { x = 1 $ 2; }";
    assert_diag(&run_e(p), CMDLINE, 1, 15, p, "");
}

#[test]
fn syntax_missing_predicate_close() {
    let p = "syscall::read:entry /pid == 1 { }";
    assert_diag(&run_e(p), CMDLINE, 1, 31, p, "/");
}

#[test]
fn syntax_error_on_a_later_line() {
    let p = "BEGIN\n{\n  x = = 2;\n}";
    assert_diag(&run_e(p), CMDLINE, 3, 7, "  x = = 2;", "");
}

#[test]
fn syntax_error_in_a_script_file() {
    let f = TempPath::with_contents("syntax.d", "/* comment */\nBEGIN\n{\n  trace(1 +);\n}\n");
    let out = run(&["-s", f.str()]);
    assert_diag(&out, f.str(), 4, 12, "  trace(1 +);", "");
    // The positional form names the file the same way.
    let out = run(&[f.str()]);
    assert_diag(&out, f.str(), 4, 12, "  trace(1 +);", "");
}

#[test]
fn operators_are_single_tokens() {
    // spec §4.6: `< =` is not `<=`; `--` written together is a decrement, which needs a
    // variable, not two minus signs.
    let p = "BEGIN { trace(1 < = 2); }";
    assert_diag(&run_e(p), CMDLINE, 1, 19, p, "");
    let p = "BEGIN { trace(--3); }";
    let out = run_e(p);
    assert_diag(&out, CMDLINE, 1, 17, p, "assign to a variable");
    assert!(out.stderr.starts_with("Error: cannot decrement this expression\n"), "{}", out.dump());
    // `5--` then `3`, as C reads it.
    let p = "BEGIN { trace(5 --3); }";
    assert_diag(&run_e(p), CMDLINE, 1, 19, p, "");
}

#[test]
fn interpreter_line_only_at_the_start() {
    // spec §3.1: one `#!` line, before anything but whitespace and comments.
    let f = TempPath::with_contents("late-shebang.d", "BEGIN { exit(0); }\n#!/usr/sbin/crumbs -s\n");
    let out = run(&["-s", f.str()]);
    assert_diag(&out, f.str(), 2, 1, "#!/usr/sbin/crumbs -s", "");
    let f = TempPath::with_contents("two-shebangs.d", "#!/usr/sbin/crumbs -s\n#!/usr/sbin/crumbs -s\nBEGIN { exit(0); }\n");
    let out = run(&["-s", f.str()]);
    assert_diag(&out, f.str(), 2, 1, "#!/usr/sbin/crumbs -s", "");
}

// ---------------------------------------------------------------- constants

#[test]
fn invalid_octal_constant() {
    // spec §2.2: a leading 0 means octal; 8 and 9 get their own message.
    for p in ["BEGIN { trace(09); }", "BEGIN { trace(0128UL); }"] {
        let out = run_e(p);
        assert_diag(&out, CMDLINE, 1, 15, p, "drop the leading 0 for decimal");
        assert!(out.stderr.starts_with("Error: invalid octal constant\n"), "{}", out.dump());
        assert!(out.stderr.contains("8 and 9 are not octal digits"), "{}", out.dump());
    }
    // A constant that is too large is still "out of range".
    let p = "BEGIN { trace(0x1ffffffffffffffff); }";
    let out = run_e(p);
    assert_diag(&out, CMDLINE, 1, 15, p, "integers are 64-bit");
    assert!(out.stderr.starts_with("Error: integer constant out of range\n"), "{}", out.dump());
    assert!(out.stderr.contains("does not fit in 64 bits"), "{}", out.dump());
}

#[test]
fn unknown_escape_sequence_has_a_label() {
    // spec §2.4: the mark is on the escape, labelled, with the known escapes as the hint.
    let p = r#"BEGIN { printf("a\qb"); }"#;
    let out = run_e(p);
    assert_diag(&out, CMDLINE, 1, 18, p, r#"known escapes: \n \t"#);
    assert!(out.stderr.starts_with("Error: unknown escape sequence `\\q`\n"), "{}", out.dump());
    assert!(out.stderr.contains("not a C escape"), "{}", out.dump());
    let p = r#"BEGIN { trace('\q'); }"#;
    let out = run_e(p);
    assert_diag(&out, CMDLINE, 1, 16, p, "known escapes");
    assert!(out.stderr.contains("not a C escape"), "{}", out.dump());
}

// ---------------------------------------------------------------- probes

#[test]
fn unknown_provider() {
    let p = "sycall:::entry { @ = count(); }";
    assert_diag(&run_e(p), CMDLINE, 1, 1, p, "syscall");
}

#[test]
fn probe_matching_nothing() {
    let p = "syscall::nosuchcall:entry { @ = count(); }";
    assert_diag(&run_e(p), CMDLINE, 1, 1, p, "nosuchcall");
}

#[test]
fn probe_typo_suggests_the_syscall() {
    let p = "BEGIN { } syscall::raed:entry { @ = count(); }";
    assert_diag(&run_e(p), CMDLINE, 1, 11, p, "`read`");
}

// ---------------------------------------------------------------- names

#[test]
fn unknown_builtin_variable_with_did_you_mean() {
    let p = "BEGIN { trace(execnme); }";
    assert_diag(&run_e(p), CMDLINE, 1, 15, p, "did you mean `execname`");
}

#[test]
fn unknown_variable_on_a_later_line() {
    let p = "BEGIN\n{\n  trace(probfunc);\n}";
    assert_diag(&run_e(p), CMDLINE, 3, 9, "  trace(probfunc);", "probefunc");
}

#[test]
fn unknown_function() {
    let p = "BEGIN { xyzzy(1); }";
    assert_diag(&run_e(p), CMDLINE, 1, 9, p, "printf");
    let p = r#"BEGIN { printt("x"); }"#;
    assert_diag(&run_e(p), CMDLINE, 1, 9, p, "did you mean `printf()`");
}

#[test]
fn unknown_macro_variable() {
    let p = "BEGIN { trace($tagret); }";
    assert_diag(&run_e(p), CMDLINE, 1, 15, p, "$target");
}

// ---------------------------------------------------------------- arguments and types

#[test]
fn wrong_argument_count() {
    let p = "BEGIN { @ = sum(); }";
    assert_diag(&run_e(p), CMDLINE, 1, 9, p, "sum(x)");
    let p = "BEGIN { @ = lquantize(1, 1); }";
    assert_diag(&run_e(p), CMDLINE, 1, 9, p, "lquantize(x, low, high, step)");
    let p = "BEGIN { commit(); }";
    assert_diag(&run_e(p), CMDLINE, 1, 9, p, "commit(id)");
}

#[test]
fn wrong_argument_type() {
    let p = r#"BEGIN { printf("%d\n", execname); }"#;
    assert_diag(&run_e(p), CMDLINE, 1, 24, p, "%s");
    let p = "BEGIN { @ = sum(execname); }";
    assert_diag(&run_e(p), CMDLINE, 1, 17, p, "");
    let p = r#"BEGIN { printf("%s\n", pid); }"#;
    assert_diag(&run_e(p), CMDLINE, 1, 24, p, "%d");
}

#[test]
fn printf_argument_count_mismatch() {
    let p = r#"BEGIN { printf("%d %d\n", 1); }"#;
    assert_diag(&run_e(p), CMDLINE, 1, 9, p, "one argument per % conversion");
    let p = r#"BEGIN { printf("%d\n", 1, 2); }"#;
    assert_diag(&run_e(p), CMDLINE, 1, 9, p, "one argument per % conversion");
}

#[test]
fn printf_bad_conversion() {
    let p = r#"BEGIN { printf("%q\n", 1); }"#;
    let out = run_e(p);
    out.assert_no_panic();
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("<command line>:1:"), "{}", out.dump());
    assert_hint(&out, "");
}

#[test]
fn aggregation_redefined_with_another_function() {
    let p = "BEGIN { @a = count(); } BEGIN { @a = sum(1); }";
    assert_diag(&run_e(p), CMDLINE, 1, 38, p, "count()");
}

// ---------------------------------------------------------------- programs and options

#[test]
fn empty_program() {
    let out = run(&["-e", ""]);
    assert_diag(&out, CMDLINE, 1, 1, "", "clause");
}

#[test]
fn script_with_only_comments() {
    let f = TempPath::with_contents("comments.d", "/* only a comment */\n// and another\n");
    let out = run(&["-s", f.str()]);
    assert_diag(&out, f.str(), 3, 1, "", "clause");
}

#[test]
fn unknown_pragma_option() {
    let f = TempPath::with_contents("pragma.d", "BEGIN { exit(0); }\n#pragma D option quite\n");
    let out = run(&["-s", f.str()]);
    assert_diag(&out, f.str(), 2, 1, "#pragma D option quite", "did you mean `quiet`");
}

#[test]
fn unknown_x_option() {
    let out = run(&["-x", "quite", "-e", "BEGIN { exit(0); }"]);
    out.assert_no_panic();
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.dump());
    assert!(out.stderr.contains("quiet"), "{}", out.dump());
    assert_eq!(out.stdout, "");
}

#[test]
fn bufsize_out_of_range() {
    // spec §3.2: bufsize is 4k to 1g; -x gives one line, a pragma a diagnostic; status 2.
    for size in ["4095", "1k", "1025m", "2g", "4g", "0"] {
        let out = run(&["-q", "-x", &format!("bufsize={size}"), "-e", r#"BEGIN { printf("ran\n"); exit(0); }"#]);
        out.assert_no_panic();
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert_eq!(out.stdout, "", "{}", out.dump());
        assert_eq!(
            out.stderr,
            format!("crumbs: -x bufsize={size}: bufsize={size} is out of range (the event buffer can be 4k to 1g)\n"),
            "{}",
            out.dump()
        );
    }
    let f = TempPath::with_contents("bufsize.d", "#pragma D option bufsize=8g\nBEGIN { exit(0); }\n");
    let out = run(&["-s", f.str()]);
    assert_diag(&out, f.str(), 1, 1, "#pragma D option bufsize=8g", "the event buffer can be 4k to 1g");
    assert!(out.stderr.starts_with("Error: bufsize=8g is out of range\n"), "{}", out.dump());
    // The smallest size is accepted, by -x and by a pragma.
    let out = run(&["-q", "-x", "bufsize=4k", "-e", r#"BEGIN { printf("ran\n"); exit(0); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "ran\n\n");
    let out = run(&["-q", "-e", "#pragma D option bufsize=4096\nBEGIN { printf(\"ran\\n\"); exit(0); }"]);
    out.assert_ok();
    assert_eq!(out.stdout, "ran\n\n");
}

#[test]
fn target_without_c_or_p() {
    let p = "BEGIN { trace($target); }";
    let out = run(&["-e", p]);
    assert_diag(&out, CMDLINE, 1, 15, p, "-c");
}

#[test]
fn unreadable_script_file() {
    let missing = format!("/nonexistent-{}/script.d", unique());
    let out = run(&["-s", &missing]);
    out.assert_no_panic();
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.dump());
    assert!(out.stderr.contains(&missing), "{}", out.dump());
    // A directory is not a script either.
    let dir = std::env::temp_dir();
    let out = run(&["-s", dir.to_str().unwrap()]);
    out.assert_no_panic();
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.dump());
}

#[test]
fn no_program_given() {
    let out = run(&[]);
    out.assert_no_panic();
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("-e"), "{}", out.dump());
    assert_eq!(out.stdout, "");
}

#[test]
fn c_command_that_cannot_run() {
    // dtrace(1M): "dtrace: failed to execute CMD: No such file or directory", exit 1.
    let cmd = format!("/nonexistent-{}/cmd", unique());
    let out = run(&["-q", "-e", "BEGIN { }", "-c", &cmd]);
    out.assert_no_panic();
    assert!(out.elapsed < Duration::from_secs(10), "{}", out.dump());
    assert_ne!(out.code(), 0, "a -c command that cannot run is an error\n{}", out.dump());
    assert!(out.stderr.contains(&cmd), "the message names the command\n{}", out.dump());
}

// ---------------------------------------------------------------- not root

fn as_nobody(args: &[&str]) -> Output {
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(crumbs()).args(args);
    run_command(cmd, None, Duration::from_secs(20))
}

#[test]
fn not_root_is_one_line_quiet() {
    let out = as_nobody(&["-q", "-e", "BEGIN { exit(0); }"]);
    out.assert_no_panic();
    assert_ne!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stderr.lines().count(), 1, "exactly one line on stderr\n{}", out.dump());
    assert!(out.stderr.contains("root"), "{}", out.dump());
    assert_eq!(out.stdout, "");
}

#[test]
fn not_root_is_one_line() {
    let out = as_nobody(&["-e", "syscall::read:entry { @ = count(); }"]);
    out.assert_no_panic();
    assert_ne!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stderr.lines().count(), 1, "exactly one line on stderr\n{}", out.dump());
    assert_eq!(out.stdout, "");
}

#[test]
fn not_root_with_c_leaves_no_process() {
    let sleep = format!("sleep 28.{:06}", (unique() * 7919 + std::process::id() as usize) % 1_000_000);
    let out = as_nobody(&["-q", "-e", "syscall:::entry { @ = count(); }", "-c", &sleep]);
    out.assert_no_panic();
    assert_ne!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.dump());
    assert!(out.elapsed < Duration::from_secs(5), "{}", out.dump());
    assert_no_process_with(&sleep, Duration::from_secs(3));
}

/// spec §7.5: printa format conversions are checked against the aggregation's keys.
#[test]
fn printa_format_errors() {
    let p = r#"BEGIN { @a[1] = count(); printa("%s %@d\n", @a); }"#;
    assert_diag(&run_e(p), CMDLINE, 1, 34, p, "%d");
    let p = r#"BEGIN { @a[1] = count(); printa("%d %d %@d\n", @a); }"#;
    assert_diag(&run_e(p), CMDLINE, 1, 37, p, "%@d");
    let p = r#"BEGIN { printf("%@d\n", 1); }"#;
    assert_diag(&run_e(p), CMDLINE, 1, 17, p, "printa");
}

/// spec §8.2: llquantize's parameters are checked as DTrace checks them, each error at the
/// argument at fault.
#[test]
fn llquantize_parameter_errors() {
    let p = "BEGIN { @ = llquantize(1, 10, 0, 6, 25); }";
    assert_diag(&run_e(p), CMDLINE, 1, 37, p, "20 for factor 10");
    let p = "BEGIN { @ = llquantize(1, 0, 0, 6, 10); }";
    assert_diag(&run_e(p), CMDLINE, 1, 27, p, "base of the magnitudes");
    let p = "BEGIN { @ = llquantize(1, 10, 3, 2, 10); }";
    assert_diag(&run_e(p), CMDLINE, 1, 34, p, "llquantize(x, 10, 0, 6, 20)");
    let p = "BEGIN { @ = llquantize(1, 2, 0, 70, 2); }";
    assert_diag(&run_e(p), CMDLINE, 1, 33, p, "smaller high magnitude");
    let p = "BEGIN { @ = llquantize(1, 10, 0, 6, -1); }";
    assert_diag(&run_e(p), CMDLINE, 1, 37, p, "0 to 65535");
}

/// spec §7.5: printa() of several aggregations needs the same keys in each, and at least
/// one aggregation.
#[test]
fn printa_joined_errors() {
    let p = r#"BEGIN { @a[1] = count(); @b["k"] = count(); printa(@a, @b); }"#;
    assert_diag(&run_e(p), CMDLINE, 1, 56, p, "same type");
    let p = r#"BEGIN { @a[1] = count(); @b[1, 2] = count(); printa("%d %@d\n", @a, @b); }"#;
    assert_diag(&run_e(p), CMDLINE, 1, 69, p, "with the same keys together");
    let p = r#"BEGIN { printa("%d\n"); }"#;
    assert_diag(&run_e(p), CMDLINE, 1, 9, p, "printa(@name)");
    // -x with a bad position: one line.
    let out = run(&["-x", "aggsortpos=two", "-e", "BEGIN { exit(0); }"]);
    out.assert_no_panic();
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert_eq!(out.stderr, "crumbs: -x aggsortpos=two: option `aggsortpos` needs a position, got `two` (write a number from 0, e.g. `aggsortpos=1`)\n", "{}", out.dump());
}

/// spec §7.6: trunc's count must be a constant; clear takes a whole aggregation.
#[test]
fn clear_and_trunc_errors() {
    let p = "BEGIN { @a[1] = count(); trunc(@a, x); x = 1; }";
    assert_diag(&run_e(p), CMDLINE, 1, 36, p, "constant");
    let p = "BEGIN { @a[1] = count(); clear(@a[1]); }";
    assert_diag(&run_e(p), CMDLINE, 1, 32, p, "clear(@a)");
}

/// spec §4.7: expressions nest at most 100 levels; deeper is an error, never a crash.
#[test]
fn expression_too_deep() {
    let p = format!("BEGIN {{ trace(1{}); }}", "+1".repeat(3000));
    let out = run_e(&p);
    out.assert_no_panic();
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("nested more than 100 levels"), "{}", out.dump());
}

/// spec §7.8: a stack is only an aggregation key or traced.
#[test]
fn stack_misuse() {
    let p = r#"BEGIN { printf("%s", stack()); }"#;
    assert_diag(&run_e(p), CMDLINE, 1, 22, p, "@[stack()]");
    let p = "BEGIN { @ = sum(stack()); }";
    assert_diag(&run_e(p), CMDLINE, 1, 17, p, "aggregation key");
    let p = "BEGIN { @[stack(0)] = count(); }";
    assert_diag(&run_e(p), CMDLINE, 1, 17, p, "1 to 64 frames");
    let p = "BEGIN { @[stack(arg0)] = count(); }";
    assert_diag(&run_e(p), CMDLINE, 1, 17, p, "stack(5)");
    let p = "BEGIN { @[stack(2)] = count(); @[stack(3)] = count(); }";
    assert_diag(&run_e(p), CMDLINE, 1, 34, p, "same number of frames");
}
