//! Unit tests of current bpftrace's standard library functions (check/bpftrace_std.rs):
//! what each lowers to, and each error's span, message and hint.

use super::*;
use crate::compile;
use crate::dialect::Dialect;
use crate::facts::sample::SampleKernel;
use std::rc::Rc;

fn compile_with(src: &str, target: Option<i64>) -> Result<Program, Diagnostic> {
    compile(src, &CheckOptions { facts: Some(Rc::new(SampleKernel)), dialect: Some(Dialect::Bpftrace), target, args: vec!["stdin".into(), "1".into()], ..Default::default() })
}

fn ok(src: &str) -> Program {
    compile_with(src, None).unwrap_or_else(|d| panic!("{src}: {} ({:?})", d.message, d.hint))
}

/// The error, the source text its span covers, and its hint.
fn err(src: &str) -> (String, String, String) {
    let d = compile_with(src, None).expect_err(src);
    (d.message.clone(), src[d.span.clone()].to_string(), d.hint.clone().unwrap_or_else(|| panic!("{src}: no hint for {}", d.message)))
}

/// The expressions the program's clauses emit (printf's arguments, in order).
pub(super) fn emitted(p: &Program) -> Vec<Expr> {
    let mut out = Vec::new();
    for c in p.groups.iter().flat_map(|g| &g.clauses) {
        c.any(&mut |n| {
            if let Node::Stmt(Stmt::Emit { args, .. }) = n {
                out.extend(args.iter().cloned());
            }
            false
        });
    }
    out
}

/// The constant strings of a program's emitted string expressions.
fn texts(p: &Program) -> Vec<String> {
    emitted(p).iter().map(|e| match e {
        Expr::Str(StrExpr::Const(id)) => p.strings.resolve(*id),
        e => format!("{e:?}"),
    }).collect()
}

#[test]
fn has_cpid_is_known_when_compiling() {
    let src = "BEGIN { printf(\"%d %d\\n\", has_cpid, has_cpid()); }";
    assert_eq!(emitted(&ok(src)), [Expr::Int(0), Expr::Int(0)]);
    assert_eq!(emitted(&compile_with(src, Some(7)).unwrap()), [Expr::Int(1), Expr::Int(1)]);
}

#[test]
fn ncpus_is_the_code_generators_number() {
    let p = ok("BEGIN { printf(\"%ld %ld\\n\", ncpus, ncpus()); }");
    assert_eq!(emitted(&p), [Expr::IntCall { f: crate::ir::IntFn::Ncpus, args: vec![] }, Expr::IntCall { f: crate::ir::IntFn::Ncpus, args: vec![] }]);
}

#[test]
fn is_err_is_the_last_4095_values_unsigned() {
    let p = ok("kretprobe:vfs_read { printf(\"%d\\n\", is_err(retval)); }");
    let e = emitted(&p);
    let [Expr::Unsigned(BinOp::Ge, _, bound)] = e.as_slice() else { panic!("{e:?}") };
    assert_eq!(**bound, Expr::Int(-4095));
    let (m, text, hint) = err("BEGIN { printf(\"%d\\n\", is_err(comm)); }");
    assert_eq!((m.as_str(), text.as_str()), ("the argument of is_err() must be an integer, but this is a string", "comm"));
    assert!(!hint.is_empty());
}

#[test]
fn probetype_names_each_probes_type() {
    for (probe, kind) in [
        ("BEGIN", "special"),
        ("END", "special"),
        ("kprobe:vfs_read", "kprobe"),
        ("kretprobe:vfs_read", "kretprobe"),
        // As current bpftrace's table of probe types names the spelled provider.
        ("fentry:vfs_read", "fentry"),
        ("kfunc:vfs_read", "fentry"),
        ("f:vfs_read", "fentry"),
        ("fexit:vfs_read", "fexit"),
        ("kretfunc:vfs_read", "fexit"),
        ("fr:vfs_read", "fexit"),
        ("k:vfs_read", "kprobe"),
        ("kr:vfs_read", "kretprobe"),
        ("fbt::vfs_read:entry", "kprobe"),
        ("rt:sched_switch", "rawtracepoint"),
        ("i:s:1", "interval"),
        ("p:hz:99", "profile"),
        ("syscall::read:entry", "tracepoint"),
        ("rawtracepoint:sched_switch", "rawtracepoint"),
        ("profile:hz:99", "profile"),
        ("interval:s:1", "interval"),
        ("software:cpu-clock:1000", "software"),
    ] {
        let p = ok(&format!("{probe} {{ printf(\"%s\\n\", probetype); }}"));
        assert_eq!(texts(&p), [kind], "{probe}");
    }
}

#[test]
fn probetype_of_several_types_is_chosen_by_probe_id() {
    let p = ok("BEGIN, kprobe:vfs_read, kprobe:vfs_write { printf(\"%s\\n\", probetype()); }");
    // One program per attach point: each has the whole choice; kprobe, the most common, is
    // what is left when the probe is not BEGIN.
    let e = emitted(&p);
    let Expr::Str(StrExpr::Ternary(cond, special, kprobe)) = &e[0] else { panic!("{e:?}") };
    assert!(matches!(**cond, Expr::Binary(BinOp::Eq, ref id, _) if **id == Expr::Var(VarHook::ProbeId)), "{cond:?}");
    assert_eq!([special.as_ref(), kprobe.as_ref()].map(|s| match s { StrExpr::Const(id) => p.strings.resolve(*id), s => format!("{s:?}") }), ["special", "kprobe"]);
}

#[test]
fn usermode_reads_cs_where_the_context_is_registers() {
    let p = ok("profile:hz:99 { printf(\"%d\\n\", usermode); }");
    let e = emitted(&p);
    let [Expr::Binary(BinOp::Eq, level, three)] = e.as_slice() else { panic!("{e:?}") };
    assert_eq!(**three, Expr::Int(3));
    assert!(matches!(**level, Expr::Binary(BinOp::BitAnd, ref cs, _) if **cs == Expr::IntCall { f: crate::ir::IntFn::ProbeReg(17), args: vec![] }));
    // As bpftrace folds it: BEGIN and END are user mode, probes without registers are not.
    assert_eq!(emitted(&ok("BEGIN { printf(\"%d\\n\", usermode()); }")), [Expr::Int(1)]);
    assert_eq!(emitted(&ok("syscall::read:entry { printf(\"%d\\n\", usermode()); }")), [Expr::Int(0)]);
}

#[test]
fn signal_name_is_named_when_printed() {
    let p = ok("BEGIN { printf(\"%s\\n\", signal_name(2)); @[signal_name(9)] = count(); }");
    assert_eq!(emitted(&p), [Expr::Named(crate::ir::NameOf::Signal, Box::new(Expr::Int(2)))]);
    let (m, text, _) = err("BEGIN { if (signal_name(2) == \"Interrupt\") { exit(); } }");
    assert!(m.contains("a signal's name"), "{m}");
    assert_eq!(text, "signal_name(2)");
}

#[test]
fn type_predicates_are_constants_and_choose_branches() {
    let p = ok("BEGIN { $s = \"x\"; $n = (uint32)1; printf(\"%d %d %d %d %d %d %d %d\\n\", is_str($s), is_str($n), is_integer($n), is_unsigned_integer($n), is_unsigned_integer(-1), is_ptr(curtask), is_array(curtask->comm), is_literal(\"a\")); }");
    assert_eq!(emitted(&p)[..8], [1, 0, 1, 1, 0, 1, 1, 1].map(Expr::Int));
    assert_eq!(emitted(&ok("BEGIN { $x = 1; printf(\"%d %d %d %d\\n\", is_literal($x), is_literal(-5), is_ptr($x), is_literal(true)); }"))[..4], [0, 1, 0, 1].map(Expr::Int));
    // The branch a constant condition leaves out is not checked (strlen() of an integer).
    let p = ok("BEGIN { $x = 5; if (is_str($x)) { printf(\"%d\\n\", strlen($x)); } else { printf(\"%d\\n\", $x + 1); } }");
    assert_eq!(emitted(&p).len(), 1);
}

#[test]
fn str_concat_is_strjoin() {
    let p = ok("BEGIN { printf(\"%s\\n\", str_concat(comm, \"x\")); }");
    assert!(matches!(&emitted(&p)[0], Expr::Str(StrExpr::Call { f: StrFn::Join, .. })));
}

#[test]
fn find_stores_the_element_where_there_is_one() {
    let p = ok("BEGIN { @m[2] = 5; let $v; if (find(@m, 2, $v)) { printf(\"%d\\n\", $v); } }");
    let mut found = false;
    for c in p.groups.iter().flat_map(|g| &g.clauses) {
        c.any(&mut |n| {
            if let Node::Expr(Expr::Ternary(has, seq, none)) = n {
                found = matches!(**has, Expr::HasElement { .. }) && matches!(**seq, Expr::Seq(_, ref one) if **one == Expr::Int(1)) && **none == Expr::Int(0);
            }
            found
        });
    }
    assert!(found);
    for (src, message, text) in [
        ("BEGIN { @x = 1; @y[1] = find(@x, 1, $v); }", "call to find expects a map with explicit keys (non-scalar map)", "@x"),
        ("BEGIN { @x[1] = 1; @y[1] = find(@x, 1, @z); }", "find() stores the element in a scratch variable", "@z"),
        ("BEGIN { @x[1] = 1; @y[1] = find(@x[1], 1, $v); }", "find() takes a whole map", "@x[1]"),
        ("BEGIN { @x[1] = count(); @y[1] = find(@x, 1, $v); }", "find() reads a map of values; @x holds count()", "@x"),
        ("BEGIN { @x[1] = 1; @y[1] = find(1, 1, $v); }", "find() takes a map first", "1"),
        ("BEGIN { @x[1] = 1; @y[1] = find(@x, 1); }", "find() takes 3 arguments, but 2 given", "find(@x, 1)"),
    ] {
        let (m, t, _) = err(src);
        assert_eq!((m.as_str(), t.as_str()), (message, text), "{src}");
    }
}

#[test]
fn errorf_and_warnf_are_printf_with_their_place() {
    let p = ok("BEGIN { errorf(\"Something bad with args: %d, %s\", 10, \"arg2\"); }\nBEGIN { warnf(\"w\"); }");
    let messages: Vec<_> = p.records.iter().flat_map(|r| &r.items).filter_map(|i| match i { Item::Message { error, at, .. } => Some((*error, at.describe("stdin"))), _ => None }).collect();
    assert_eq!(messages, [(true, "stdin:1:9-62".to_string()), (false, "stdin:2:9-19".to_string())]);
    let (m, _, _) = err("BEGIN { errorf(\"%d\"); }");
    assert!(m.contains("1 conversion(s) but 0 argument(s)"), "{m}");
}

#[test]
fn assert_is_errorf_and_exit_where_the_condition_fails() {
    let p = ok("BEGIN { assert(pid > 1, \"pid\"); }");
    let items: Vec<_> = p.records.iter().flat_map(|r| &r.items).collect();
    assert!(matches!(items.as_slice(), [Item::Message { error: true, .. }, Item::Exit]), "{items:?}");
    // A condition known to hold leaves nothing.
    assert!(ok("BEGIN { assert(1, \"never\"); }").records.iter().all(|r| r.items.is_empty()));
}

#[test]
fn fail_and_static_assert_stop_compilation_where_reached() {
    // Where a constant condition leaves it out, fail() is not reached.
    ok("BEGIN { if ($1 > 2) { fail(\"too big: %d\", $1); } static_assert(1 < 2, \"order\"); }");
    for (src, message, text) in [
        ("BEGIN { if ($1 < 2) { fail(\"Expected the first positional param to be greater than 1. Got %d\", $1); } }", "Expected the first positional param to be greater than 1. Got 1", "fail(\"Expected the first positional param to be greater than 1. Got %d\", $1)"),
        ("BEGIN { fail(\"%-4s|%03d|%x\", \"ab\", 7, 255); }", "ab  |007|ff", "fail(\"%-4s|%03d|%x\", \"ab\", 7, 255)"),
        ("BEGIN { fail(\"%d\", pid); }", "fail()'s arguments must be known when compiling", "pid"),
        ("BEGIN { fail(\"%d\", \"s\"); }", "%d cannot print a string", "\"s\""),
        ("BEGIN { static_assert(sizeof(int) == 8, \"int is 8 bytes\"); }", "int is 8 bytes", "static_assert(sizeof(int) == 8, \"int is 8 bytes\")"),
        ("BEGIN { static_assert(pid == 1, \"x\"); }", "static_assert()'s condition must be known when compiling", "pid == 1"),
        ("BEGIN { $m = \"x\"; static_assert(0, $m); }", "static_assert() takes a string literal as its message", "$m"),
    ] {
        let (m, t, _) = err(src);
        assert_eq!((m.as_str(), t.as_str()), (message, text), "{src}");
    }
}
