//! Unit tests of printed-only values (stacks, symbols, probes, formatted times, names) kept
//! in variables and maps: what each kind of variable may hold, the representation a read
//! keeps, and the diagnostics for what stays refused.

use super::*;
use crate::compile;
use crate::dialect::Dialect;
use crate::ir::{NameOf, StackMode, SymKind, UStackUse, USymKind};

fn compile_in(dialect: Dialect, src: &str) -> Result<Program, Diagnostic> {
    compile(src, &CheckOptions { dialect: Some(dialect), target: Some(42), destructive: true, ..Default::default() })
}

fn ok(dialect: Dialect, src: &str) -> Program {
    compile_in(dialect, src).unwrap_or_else(|d| panic!("{src}: {} ({:?})", d.message, d.hint))
}

/// The diagnostic, the text its span covers and its hint.
fn err(dialect: Dialect, src: &str) -> (String, String, String) {
    let d = compile_in(dialect, src).expect_err(src);
    (d.message.clone(), src[d.span.clone()].to_string(), d.hint.clone().unwrap_or_default())
}

fn array<'a>(p: &'a Program, name: &str) -> &'a crate::ir::Array {
    p.arrays.iter().find(|a| a.name == name).unwrap_or_else(|| panic!("no {name}"))
}

fn agg<'a>(p: &'a Program, name: &str) -> &'a crate::ir::Aggregation {
    p.aggregations.iter().find(|a| a.name == name).unwrap_or_else(|| panic!("no @{name}"))
}

#[test]
fn bpftrace_maps_hold_each_printed_kind_with_its_representation() {
    let p = ok(
        Dialect::Bpftrace,
        r#"profile:hz:99 { @k[tid] = kstack(3); @u[tid] = ustack; @p[tid] = probe; @n[tid] = username;
            @e[tid] = strerror(2); @t[tid] = strftime("%H", nsecs); @s[tid] = ksym(reg("ip")); @y[tid] = usym(reg("ip")); }"#,
    );
    let stack = Repr::Stack(StackUse::Frames(3, StackMode::Bpftrace));
    assert_eq!(array(&p, "@k").value, stack);
    assert!(matches!(array(&p, "@u").value, Repr::UStack(UStackUse::Frames(_, StackMode::Bpftrace))));
    assert_eq!(array(&p, "@p").value, Repr::Probe);
    assert_eq!(array(&p, "@n").value, Repr::Named(NameOf::User));
    assert_eq!(array(&p, "@e").value, Repr::Named(NameOf::Errno));
    assert!(matches!(array(&p, "@t").value, Repr::Strftime(_)));
    assert_eq!(array(&p, "@s").value, Repr::Sym(SymKind::Func));
    assert_eq!(array(&p, "@y").value, Repr::USym(USymKind::Func));
    assert_eq!(array(&p, "@y").value.size(), 16, "a user symbol keeps its process");
}

#[test]
fn a_read_back_keeps_the_representation_as_a_key_and_in_scratch_variables() {
    let p = ok(
        Dialect::Bpftrace,
        r#"profile:hz:99 { @s[tid] = kstack; @p[tid] = probe; }
           interval:s:1 { $s = @s[tid]; @c[$s, @p[tid]] = count(); @last = $s; print($s); printf("%s %s\n", $s, @p[tid]); }"#,
    );
    let stack = Repr::Stack(StackUse::Frames(0, StackMode::Bpftrace));
    assert_eq!(agg(&p, "c").keys, vec![stack, Repr::Probe]);
    assert_eq!(array(&p, "@last").value, stack);
    // biostacks.bt's pattern: a map of stacks keyed by a tuple, its element as a key.
    let p = ok(
        Dialect::Bpftrace,
        "profile:hz:99 { $key = (cpu, tid); @reqstack[$key] = kstack; @reqts[$key] = nsecs; }
         interval:s:1 /@reqts[cpu, tid]/ { $key = (cpu, tid);
             @usecs[@reqstack[$key]] = hist(nsecs - @reqts[$key]); delete(@reqstack, $key); }",
    );
    assert_eq!(agg(&p, "usecs").keys, vec![stack]);
}

#[test]
fn d_globals_and_clause_locals_hold_stacks_and_symbols() {
    let p = ok(Dialect::D, "syscall::read:entry { s = stack(2); this->u = ustack(); this->a = uaddr(uregs[R_PC]); @[s, this->u] = count(); printf(\"%k %A\\n\", s, this->a); }");
    assert_eq!(p.globals[0].repr, Repr::Stack(StackUse::Frames(2, StackMode::Bpftrace)));
    assert!(matches!(agg(&p, "").keys[1], Repr::UStack(_)));
}

#[test]
fn d_thread_locals_and_associative_arrays_refuse_them() {
    let (m, at, hint) = err(Dialect::D, "syscall::read:entry { self->s = stack(); }");
    assert_eq!(m, "`self->s` cannot hold a stack: storing 0 deletes a thread-local variable, and this value may be 0");
    assert_eq!(at, "self->s = stack()");
    assert_eq!(hint, "keep it in a global, a this-> variable or a bpftrace map (@s[tid] = kstack)");
    let (m, _, _) = err(Dialect::D, "syscall::read:entry { a[tid] = probefunc; b[tid] = func(arg0); }");
    assert_eq!(m, "`b[...]` cannot hold a kernel symbol: storing 0 deletes an associative array's element, and this value may be 0");
}

#[test]
fn arithmetic_comparison_and_other_types_stay_refused() {
    let bt = |body: &str| err(Dialect::Bpftrace, &format!("profile:hz:99 {{ @s[tid] = kstack; $p = probe; {body} }}"));
    let (m, at, hint) = bt("@s[tid] += 1;");
    assert_eq!((m.as_str(), at.as_str()), ("a compound assignment of `@s[...]`, which holds a stack", "@s[tid] += 1"));
    assert_eq!(hint, "it is printed as text, never computed with: assign it with `=`");
    let (m, at, _) = bt("$p++;");
    assert_eq!((m.as_str(), at.as_str()), ("`++`/`--` of `$p`, which holds a probe's name", "$p++"));
    let (m, at, hint) = bt("@s[tid] = kstack(3);");
    assert_eq!((m.as_str(), at.as_str()), ("`@s[...]` is `kstack`, but this is `kstack(3)`", "kstack(3)"));
    assert_eq!(hint, "a variable keeps the type of its first assignment; use another variable");
    let (m, _, _) = bt("@s[tid] = 0;");
    assert_eq!(m, "`@s[...]` is `kstack`, but this is `int`");
    let (m, _, _) = bt("$p = 1;");
    assert_eq!(m, "`$p` is `probe`, but this is `int`");
    let (m, at, _) = bt("if (@s[tid] == 1) { }");
    assert_eq!((m.as_str(), at.as_str()), ("an operand of `==` must be an integer, but this is a stack", "@s[tid]"));
    let (m, _, _) = bt("$x = $p + 1;");
    assert!(m.contains("a probe's name"), "{m}");
    let (m, at, _) = bt("@m[@s[tid]] = 1;");
    assert_eq!((m.as_str(), at.as_str()), ("an associative array's key cannot be a stack", "@s[tid]"));
}

/// A map read in a clause before the clause that assigns it: the second pass types the
/// scratch variable from the map, and what is assigned from it from that (a string, a
/// stack), not from the first pass's guess of a `long`.
#[test]
fn variables_assigned_from_maps_typed_later_take_the_maps_types() {
    let p = ok(Dialect::Bpftrace, "BEGIN { $p = @p[1]; @q = $p; $s = @s[1]; @t = $s; @n = @c[1] + 1; } END { @p[tid] = comm; @s[tid] = kstack; @c[tid] = 2; }");
    assert!(matches!(array(&p, "@q").value, Repr::Str(_)));
    assert!(matches!(array(&p, "@t").value, Repr::Stack(_)));
    assert!(matches!(array(&p, "@n").value, Repr::Int(_)));
    // A real mismatch stays an error, found by the second pass.
    let (m, text, hint) = err(Dialect::Bpftrace, "BEGIN { $p = @p[1]; @q = $p; @q = 1; } END { @p[tid] = comm; }");
    assert_eq!((m.as_str(), text.as_str()), ("`@q[...]` is `string`, but this is `int`", "1"));
    assert!(!hint.is_empty());
}

/// bpftrace prints a user symbol with `%s` (by name); D keeps %A for it.
#[test]
fn a_user_symbol_prints_with_percent_s_in_bpftrace() {
    ok(Dialect::Bpftrace, r#"profile:hz:99 { printf("%s %s\n", usym(reg("ip")), usym(0)); $u = usym(reg("ip")); printf("%s\n", $u); }"#);
    let (m, text, _) = err(Dialect::D, r#"profile-99 { printf("%s\n", usym(arg1)); }"#);
    assert!(m.starts_with("%s expects a string"), "{m}");
    assert_eq!(text, "usym(arg1)");
}
