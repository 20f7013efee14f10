//! bpftrace's syntax as its docs and bpftrace 0.17 accept it (spec §13): casts before unary
//! operators, short probe names, positional parameters, offsets and quoted parts in probe
//! names, builtins called with parentheses and duration literals. Each expected output was
//! compared with bpftrace 0.17 running the same program here, where 0.17 has the form (noted
//! where it does not: current bpftrace's docs are the reference then).

mod common;

use common::{run, Output};

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
