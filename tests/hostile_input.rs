//! Hostile input (issue 6, findings 1, 6, 7 and 9): inputs a fuzzer or a careless paste
//! produces must end in a diagnostic with status 2, never a panic, an abort or a hang, and
//! the diagnostic must point at the characters the user wrote.
//!
//! These run `crumbs --dump-bpf`, which compiles without touching the kernel.

mod common;

use common::{run, Output, TempPath};
use std::time::Duration;

/// Compiles `program` from a script file (the large ones do not fit in one argument).
fn compile(program: &str) -> Output {
    let script = TempPath::with_contents("hostile.d", program);
    let out = run(&["--dump-bpf", "-s", script.str()]);
    out.assert_no_panic();
    // A hang, not a speed: the 175,000-term sum takes ~7 s in a debug build on a loaded
    // 2-core machine, so the bound is far above that.
    assert!(out.elapsed < Duration::from_secs(40), "hung: {:?}", out.elapsed);
    out
}

/// The diagnostic's status and message, and the text the caret line marks under the
/// source line that contains `line_text`.
fn assert_error(out: &Output, message: &str) {
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains(message), "expected {message:?}\n{}", out.dump());
    assert!(out.stdout.is_empty(), "{}", out.dump());
}

/// The characters marked (`─`, `┬`, `^`) under the shown source line `shown`.
fn marked_under(out: &Output, shown: &str) -> String {
    let lines: Vec<&str> = out.stderr.lines().collect();
    let i = lines.iter().position(|l| l.contains(shown)).unwrap_or_else(|| panic!("{shown:?} not shown\n{}", out.dump()));
    let src: Vec<char> = lines[i].chars().collect();
    let marks: Vec<char> = lines[i + 1].chars().collect();
    src.iter().zip(marks.iter().chain(std::iter::repeat(&' '))).filter(|(_, m)| matches!(m, '─' | '┬' | '^')).map(|(c, _)| *c).collect()
}

/// Finding 1: a multi-byte character right after `%` panicked in the renderer.
#[test]
fn multibyte_character_after_percent() {
    let out = compile("BEGIN { printf(\"\\n%£ ----\\n\", walltimestamp); }\n");
    assert_error(&out, "unknown format conversion %£");
    assert!(out.stderr.contains(":1:19"), "{}", out.dump());
    assert_eq!(marked_under(&out, "printf("), "%£");
}

/// Finding 6: format error spans were offsets into the unescaped string.
#[test]
fn format_errors_point_at_the_source_despite_escapes() {
    // Two escapes (`\?`, `\t`) and a two-byte `é` before the bad conversion.
    let out = compile("BEGIN { printf(\"\\?é\\t%z%d\\n\", 1); }\n");
    assert_error(&out, "format");
    assert!(out.stderr.contains(":1:22"), "{}", out.dump());
    assert!(marked_under(&out, "printf(").starts_with("%z"), "{}", out.dump());
    // Tabs in the source: the caret still lands under `%q`.
    let out = compile("BEGIN { printf(\"\t\t%q\", 1); }\n");
    assert_error(&out, "unknown format conversion %q");
    assert_eq!(marked_under(&out, "printf("), "%q");
    // printa and the @ flag, after escapes.
    let out = compile("BEGIN { @a[\"x\"] = count(); printa(\"\\t\\té %s %@s\\n\", @a); }\n");
    assert_error(&out, "%@s cannot print");
    assert_eq!(marked_under(&out, "printa("), "%@s");
    let out = compile("BEGIN { printf(\"\\t\\té %@d\\n\", 1); }\n");
    assert_error(&out, "only valid in printa()");
    assert_eq!(marked_under(&out, "printf("), "%@d");
    // Bytes that are not UTF-8 (`\377`) before the error.
    let out = compile("BEGIN { printf(\"\\377\\377%£\", 1); }\n");
    assert_error(&out, "unknown format conversion");
    assert_eq!(marked_under(&out, "printf("), "%£");
}

/// Finding 6: deep nesting must be refused before anything runs out of stack.
#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let cases = [
        ("parentheses", format!("BEGIN {{ trace({}1{}); }}", "(".repeat(6000), ")".repeat(6000))),
        ("ternaries", format!("BEGIN {{ trace({}1{}); }}", "1 ? ".repeat(10_000), " : 2".repeat(10_000))),
        ("else-chained ternaries", format!("BEGIN {{ trace({}3); }}", "x ? 1 : ".repeat(10_000))),
        ("unary operators", format!("BEGIN {{ trace({}1); }}", "!".repeat(12_300))),
        ("unary minus", format!("BEGIN {{ trace({}1); }}", "- ".repeat(50_000))),
        ("a long sum", format!("BEGIN {{ trace(1{}); }}", " + 1".repeat(175_000))),
        ("nested calls", format!("BEGIN {{ trace({}1{}); }}", "copyinstr(".repeat(5000), ")".repeat(5000))),
        ("nested keys", format!("BEGIN {{ @[{}1{}] = count(); }}", "@a[".repeat(3000), "]".repeat(3000))),
        ("nested blocks", format!("BEGIN {{ {}x = 1;{} }}", "{ ".repeat(3000), " }".repeat(3000))),
    ];
    for (what, program) in cases {
        let out = compile(&program);
        assert_eq!(out.code(), 2, "{what}\n{}", out.dump());
        assert!(out.stderr.contains("nested more than 100 levels") || out.stderr.contains("nested too deeply"), "{what}\n{}", &out.stderr[..out.stderr.len().min(2000)]);
    }
    // Unclosed blocks (a block statement or, in bpftrace, a block expression at each `{`):
    // a syntax error found at once, not one whose search doubles with each level.
    for program in [format!("BEGIN {}exit(0); }}", "{".repeat(8000)), format!("BEGIN {{ $a = {}1 }}", "{".repeat(8000))] {
        let out = compile(&program);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains("nested too deeply") || out.stderr.contains("syntax error"), "{}", &out.stderr[..out.stderr.len().min(2000)]);
    }
    // Just under the limit still compiles.
    let out = compile(&format!("BEGIN {{ trace({}1{}); exit(0); }}", "(".repeat(99), ")".repeat(99)));
    assert_eq!(out.code(), 0, "{}", out.dump());
    let out = compile(&format!("BEGIN {{ trace(1{}); exit(0); }}", " + 1".repeat(99)));
    assert_eq!(out.code(), 0, "{}", out.dump());
}

/// Finding 6: a huge glob panicked inside the glob matcher.
#[test]
fn huge_globs() {
    let out = compile(&format!("syscall::{}:entry {{ exit(0); }}", "*".repeat(93_622)));
    assert_error(&out, "probe description field of 93622 characters");
    // Long runs of stars within the limit behave as one star.
    let out = compile(&format!("syscall::{}read:entry {{ exit(0); }}", "*".repeat(500)));
    assert_eq!(out.code(), 0, "{}", out.dump());
    let out = compile(&format!("syscall::{}:entry {{ exit(0); }}", "[ab]".repeat(2000)));
    assert_error(&out, "characters");
}

/// Finding 9: five fields were taken as a description plus the start of another clause.
#[test]
fn too_many_fields_in_a_probe_description() {
    let out = compile("profile::::tick-1sec { exit(0); }\n");
    assert_error(&out, "probe description `profile::::tick-1sec` has 5 fields");
    assert!(out.stderr.contains(":1:11"), "{}", out.dump());
    assert!(out.stderr.contains("provider:module:function:name"), "{}", out.dump());
    for program in ["syscall::read:entry: { }", "::::: { }", "BEGIN, a:b:c:d:e:f { }", "syscall:::entry:x:y /1/ { }"] {
        let out = compile(program);
        assert_error(&out, "fields");
    }
    // Four fields and fewer are fine.
    let out = compile("profile:::tick-1sec, tick-2s, ::read:entry { exit(0); }");
    assert_eq!(out.code(), 0, "{}", out.dump());
}

/// Finding 7: control and bidirectional characters in the source are shown escaped.
#[test]
fn diagnostics_escape_control_characters() {
    let out = compile("BEGIN { x = \"\u{1b}[2J\u{202e}\" + @; }\n");
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(!out.stderr.contains('\u{1b}') && !out.stderr.contains('\u{202e}'), "{:?}", out.stderr);
    assert!(out.stderr.contains("\\u{1b}[2J\\u{202e}"), "{}", out.dump());
    let out = compile("BEGIN { \0 }\n");
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(!out.stderr.contains('\0'), "{:?}", out.stderr);
    assert!(out.stderr.contains("\\u{0}"), "{}", out.dump());
}

/// Found by the fuzzer: lquantize() constants at the ends of i64's range overflowed the
/// range check.
#[test]
fn lquantize_with_extreme_constants() {
    for args in ["9223372036854775808, 0, 1", "-9223372036854775807, 9223372036854775807, 6148914691236517205", "0, 9223372036854775807, 1"] {
        let out = compile(&format!("BEGIN {{ @ = lquantize(1, {args}); }}"));
        assert_error(&out, "bad lquantize() range");
    }
}

/// Found by the fuzzer: a clause whose output record outgrew a BPF store offset panicked in
/// the code generator; one larger than the event buffer could never be sent.
#[test]
fn records_too_large_to_send() {
    let body = r#"printf("%d %s\n", arg0, execname); "#.repeat(2000);
    let out = compile(&format!("syscall:::entry {{ {body} }}"));
    assert_error(&out, "over the 32767 a record can hold");
    let out = compile(&format!("#pragma D option bufsize=4k\nBEGIN {{ {} }}", r#"printf("%s", copyinstr(arg0)); "#.repeat(80)));
    assert_error(&out, "more than the 4096-byte event buffer holds");
}

/// Found by the fuzzer: a clause too branchy for the verifier (over 8192 pending branches)
/// is the kernel's limit, said as such, not reported as a code generation bug.
#[test]
fn programs_too_complex_for_the_verifier() {
    let clause = format!("BEGIN {{ {} }}\n", "self->a = self->a + 1; ".repeat(700));
    let script = TempPath::with_contents("complex.d", &format!("{}BEGIN {{ exit(0); }}", clause.repeat(12)));
    let out = run(&["-q", "-s", script.str()]);
    out.assert_no_panic();
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("too complex to check"), "{}", out.dump());
    assert!(!out.stderr.contains("internal error"), "{}", out.dump());
}
