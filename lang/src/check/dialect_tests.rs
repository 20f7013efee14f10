//! Unit tests of the builtins table's dialect column: each dialect's names, and only its.

use super::*;
use crate::compile;
use crate::dialect::Dialect;

fn compile_in(dialect: Dialect, src: &str) -> Result<Program, Diagnostic> {
    compile(src, &CheckOptions { dialect: Some(dialect), target: Some(42), destructive: true, ..Default::default() })
}

fn ok(dialect: Dialect, src: &str) -> Program {
    compile_in(dialect, src).unwrap_or_else(|d| panic!("{src}: {} ({:?})", d.message, d.hint))
}

fn err(dialect: Dialect, src: &str) -> (Diagnostic, String) {
    let d = compile_in(dialect, src).expect_err(src);
    let text = src[d.span.clone()].to_string();
    (d, text)
}

#[test]
fn bpftrace_spellings_are_builtins_of_bpftrace_only() {
    ok(Dialect::Bpftrace, "BEGIN { @[probe, kstack, ustack(perf, 3), ksym(0)] = count(); $p = cpid; $e = elapsed; $r = rand; $c = cgroup; signal(\"SIGUSR1\"); }");
    for name in ["probe", "cpid", "elapsed", "kstack", "cgroup"] {
        let (d, text) = err(Dialect::D, &format!("BEGIN {{ trace({name}); }}"));
        assert_eq!((d.message.as_str(), text.as_str()), (format!("unknown variable `{name}`").as_str(), name));
    }
    for call in ["kstack()", "ksym(0)", "signal(9)"] {
        let (d, _) = err(Dialect::D, &format!("BEGIN {{ trace({call}); }}"));
        assert!(d.message.starts_with("unknown function"), "{call}: {}", d.message);
    }
}

#[test]
fn ustack_takes_each_dialects_arguments() {
    ok(Dialect::D, "BEGIN { @[ustack(5, 10)] = count(); }");
    ok(Dialect::Bpftrace, "BEGIN { @[ustack(raw, 5)] = count(); }");
    let (d, text) = err(Dialect::Bpftrace, "BEGIN { @[ustack(5, 10)] = count(); }");
    assert_eq!(text, "ustack(5, 10)");
    assert_eq!(d.hint.as_deref(), Some("usage: ustack([mode,] [n])"));
}

#[test]
fn unknown_names_are_suggested_from_the_dialect() {
    let (d, _) = err(Dialect::Bpftrace, "BEGIN { kstak(); }");
    assert_eq!(d.hint.as_deref(), Some("did you mean `kstack()`?"));
    let (d, _) = err(Dialect::D, "BEGIN { kstak(); }");
    assert_eq!(d.hint.as_deref(), Some("did you mean `stack()`?"));
}

#[test]
fn bswap_and_strcontains_check_their_arguments() {
    let p = ok(Dialect::Bpftrace, "BEGIN { @a = bswap((uint16)1); @b = bswap((uint8)1); @c = strcontains(comm, \"x\"); }");
    assert_eq!(p.arrays.len(), 3);
    let (d, text) = err(Dialect::Bpftrace, "BEGIN { @a = bswap(comm); }");
    assert_eq!((d.message.as_str(), text.as_str()), ("the argument of bswap() must be an integer, but this is a string", "comm"));
    let (d, text) = err(Dialect::Bpftrace, "BEGIN { @a = strcontains(comm, 1); }");
    assert_eq!((d.message.as_str(), text.as_str()), ("strcontains() needs a string here, but this is an integer", "1"));
    let (d, _) = err(Dialect::Bpftrace, "BEGIN { @a = strcontains(comm); }");
    assert_eq!(d.hint.as_deref(), Some("usage: strcontains(haystack, needle)"));
}
