//! Unit tests of current bpftrace's syntax and types (spec §13): typed `let`, block
//! expressions, booleans, `&$a`, `typeof`, `if comptime` and what bpftrace refuses.

use super::*;
use crate::compile;
use crate::dialect::Dialect;

fn compile_bt(src: &str) -> Result<Program, Diagnostic> {
    compile(src, &CheckOptions { dialect: Some(Dialect::Bpftrace), target: Some(42), destructive: true, ..Default::default() })
}

fn d_only() -> CheckOptions {
    CheckOptions { dialect: Some(Dialect::D), ..Default::default() }
}

fn ok(src: &str) -> Program {
    compile_bt(src).unwrap_or_else(|d| panic!("{src}: {} ({:?})", d.message, d.hint))
}

/// The error's message and the text its span covers.
fn err(src: &str) -> (String, String) {
    let d = compile_bt(src).expect_err(src);
    (d.message.clone(), src[d.span.clone()].to_string())
}

#[test]
fn typed_let_gives_the_type_and_refuses_literals_that_do_not_fit() {
    ok("struct s { int a; }; BEGIN { let $a: uint16 = 5; $a = (uint32)70000; let $b: uint16; let $s: string; $s = comm; let $c: int8 = -3; let $p: struct s *; $p = (struct s *)0; }");
    // The same declaration again (an unrolled loop's copies) is the same variable.
    ok("BEGIN { unroll (2) { let $a: uint16 = 1; } }");
    let mismatch = |lit: &str, var: &str| format!("Type mismatch for $a: trying to assign value of type '{lit}' when variable already has a type '{var}'");
    assert_eq!(err("BEGIN { let $a: uint16 = -1; }"), (mismatch("int8", "uint16"), "-1".into()));
    assert_eq!(err("BEGIN { let $a: uint16 = 70000; }"), (mismatch("int32", "uint16"), "70000".into()));
    assert_eq!(err("BEGIN { let $a: int8; $a = 128; }"), (mismatch("int16", "int8"), "128".into()));
    assert_eq!(err("BEGIN { let $a: int64 = 18446744073709551615; }").0, mismatch("uint64", "int64"));
    ok("BEGIN { let $a: int8 = -128; let $b: uint64 = 18446744073709551615; let $c: uint16 = (uint16)-1; }");
    let (m, at) = err("BEGIN { $a = \"s\"; let $a: uint16 = 1; }");
    assert_eq!((m.as_str(), at.as_str()), ("Variable $a was already declared. Variable shadowing is not allowed.", "$a"));
    assert_eq!(err("BEGIN { let $a: uint16 = \"x\"; }").0, mismatch("string", "uint16"));
}

#[test]
fn block_expressions_run_their_statements_before_the_statement_that_uses_them() {
    ok("BEGIN { let $a = { let $b = 2; $b + 1 }; $c = { 1 } + { $d = 5; $d * 2 }; print({ printf(\"hi\"); 7 }); $e = { { 4 } }; $f = { 2 /* value */ }; }");
    // Where that would change what runs: refused.
    let (m, at) = err("BEGIN { $a = 1; if ($a > 0 && { $a++; $a }) { } }");
    assert_eq!((m.as_str(), at.as_str()), ("a block with statements cannot be a value in the right of && or ||", "{ $a++; $a }"));
    assert!(err("BEGIN { $a = 1; $b = $a ? { $a = 2; 3 } : 4; }").0.ends_with("in a branch of ?:"));
    // A block without a value where one is needed.
    let (m, at) = err("BEGIN { $a = { 1; }; }");
    assert_eq!((m.as_str(), at.as_str()), ("a block used as a value must end with an expression", "{ 1; }"));
    // A block alone as a statement is a block, as before; `_ = v;` discards a value.
    ok("BEGIN { { $x = 1; } { 2 } @m[1] = 1; _ = has_key(@m, 1); }");
    let d = crate::compile("BEGIN { x = { 1 }; }", &d_only()).expect_err("D");
    assert_eq!(d.message, "a block expression is bpftrace's, not D's");
    for deep in [format!("BEGIN {{ $a = {}1{}; }}", "{ $b = ".repeat(150), " }".repeat(150)), format!("BEGIN {{ $a = {}1{}; }}", "{".repeat(3000), "}".repeat(3000))] {
        let m = compile_bt(&deep).expect_err("deep").message;
        assert!(m.contains("nested more than 100 levels") || m.contains("nested too deeply"), "{m}");
    }
}

#[test]
fn a_block_passed_to_a_macro_runs_where_the_body_names_it() {
    let p = crate::parse::parse_program_in("macro three(x) { x; x; x; } BEGIN { three({ printf(\"hi\") }); $n = 0; three({ $n++; $n }); }", None, Dialect::Bpftrace).expect("expands");
    let body = format!("{:?}", p.clauses[0].body);
    assert_eq!(body.matches("\"printf\"").count(), 3, "{body}");
    assert_eq!(body.matches("IncDec").count(), 3, "{body}");
    let (m, _) = err("macro w(x) { while (x < 3) { } } BEGIN { $n = 0; w({ $n++; $n }); }");
    assert_eq!(m, "a block with statements cannot be a value in a while condition");
}

#[test]
fn a_conversion_to_bool_is_one_for_any_value_not_zero() {
    let p = ok("BEGIN { @a = (bool)256; }");
    let body = format!("{:?}", p.groups[0].clauses[0].body);
    assert!(body.contains("Binary(Ne, Int(256), Int(0))"), "{body}");
}

#[test]
fn the_address_of_a_scratch_variable_is_a_kernel_pointer_to_its_type() {
    let p = ok("BEGIN { $a = (uint16)5; $p = &$a; @v = *$p; $s = \"ab\"; @s = str(&$s); }");
    let body = format!("{:?}", p.groups[0].clauses[0].body);
    assert!(body.contains("VarAddr(Clause(0))"), "{body}");
    assert_eq!(err("BEGIN { $b = &$x; }"), ("Undefined or undeclared variable: $x".into(), "$x".into()));
    // `&@map` is the map's own address, a pointer to its value type as bpftrace types it.
    let p = ok("BEGIN { @a = 1; @b[1] = (uint16)2; $x = &@a; $y = &@b; @p = (uint64)$y; }");
    assert!(format!("{:?}", p.groups[0].clauses[0].body).contains("MapAddr(1)"));
    assert_eq!(err("BEGIN { @a = 1; $b = *&@a; }"), ("`&@a` points at the map, not at a value".into(), "&@a".into()));
    assert_eq!(err("BEGIN { @a[1] = 1; $b = &@a[1]; }"), ("`&` takes a whole map, not an element of `@a`".into(), "@a[1]".into()));
    assert_eq!(err("BEGIN { @c = count(); $b = &@c; }").0, "the address of aggregation `@c` is not in crumbs");
    // A map of tuples is a map per element: the tuples pass refuses it as any tuple operand.
    assert_eq!(err("BEGIN { @t = (1, 2); $b = &@t; }").0, "a tuple cannot be used here");
    assert!(err("BEGIN { $k = kstack; $p = &$k; }").0.starts_with("cannot take the address of $k"));
}

#[test]
fn typeof_names_a_type_in_lets_casts_sizeof_and_macro_arguments() {
    ok("BEGIN { $b = (uint16)3; let $a: typeof($b) = 5; $c = (typeof($b))65537; @s = sizeof(typeof($b)); $s = \"x\"; let $t: typeof($s); }");
    ok("macro p_cast(a, b) { (a*)b } macro sz(t) { sizeof(t) } BEGIN { @p = p_cast(typeof(uint8), -1); @z = sz(typeof(uint32 *)); }");
    let p = ok("macro sz(t) { sizeof(t) } BEGIN { @z = sz(typeof(uint32 *)); @y = sz(typeof(int16)); }");
    let body = format!("{:?}", p.groups[0].clauses[0].body);
    assert!(body.contains("Int(8)") && body.contains("Int(2)"), "{body}");
    // The typed let's literal check uses the type typeof gives.
    assert_eq!(err("BEGIN { $b = (uint8)1; let $a: typeof($b) = 256; }").0, "Type mismatch for $a: trying to assign value of type 'int16' when variable already has a type 'uint8'");
    let (m, at) = err("BEGIN { print(typeof(1)); }");
    assert_eq!((m.as_str(), at.as_str()), ("When used as a call argument, `typeof` builtin only valid for macro calls that are expecting a type parameter", "typeof(1)"));
    let d = crate::compile("BEGIN { x = (typeof(1))2; }", &d_only()).expect_err("D");
    assert_eq!(d.message, "`typeof` is bpftrace's, not D's");
}

#[test]
fn comptime_is_a_value_known_when_compiling() {
    // The branch not taken is not checked (fail() there is no error).
    ok("BEGIN { if comptime (1 == 1) { @a = 1; } else { fail(\"no\"); } if comptime is_str(\"x\") { @b = 2; } @c = comptime 5 + 1; }");
    let (m, at) = err("BEGIN { $x = pid; if comptime ($x > 1) { @a = 1; } }");
    assert_eq!((m.as_str(), at.as_str()), ("Unable to resolve comptime expression", "comptime ($x > 1)"));
    // In D `comptime` stays a name.
    crate::compile("BEGIN { comptime = 1; trace(comptime + 1); }", &d_only()).expect("D");
}

#[test]
fn a_d_variable_assigned_is_bpftraces_syntax_error() {
    for (src, op) in [("BEGIN { x = 1; }", "="), ("BEGIN { x += 1; }", "+="), ("BEGIN { x[1] = 2; }", "="), ("BEGIN { if (1) { y = 2; } }", "=")] {
        let (m, at) = err(src);
        assert_eq!((m, at.as_str()), (format!("syntax error, unexpected {op}, expecting }}"), op), "{src}");
    }
    assert_eq!(err("BEGIN { x++; }"), ("The ++ operator must be applied to a map or variable".into(), "x".into()));
    // `(x = 1)` is a record, `_ = v` a discard, and D keeps its globals.
    ok("BEGIN { $r = (x = 1); _ = 2; }");
    crate::compile("BEGIN { x = 1; x++; a[1] = 2; }", &d_only()).expect("D");
}

#[test]
fn a_difference_of_unsigned_operands_is_int64() {
    // Eight bytes (C would keep `uint32_t`'s four), and signed.
    let p = ok("BEGIN { @s = sizeof((uint32)3 - (uint32)5); }");
    assert!(format!("{:?}", p.groups[0].clauses[0].body).contains("Int(8)"));
    let (m, _) = err("BEGIN { let $x: typeof((uint64)1 - (uint64)2) = 18446744073709551615; }");
    assert_eq!(m, "Type mismatch for $x: trying to assign value of type 'uint64' when variable already has a type 'int64'");
}

#[test]
fn the_build_id_stack_mode_is_for_user_stacks() {
    use crate::ir::{StackMode, UStackUse};
    let p = ok("profile:hz:99 { @u[ustack(build_id, 4)] = count(); @k[kstack] = count(); }");
    assert_eq!(p.aggregations[0].keys, [Repr::UStack(UStackUse::Frames(4, StackMode::BuildId))]);
    assert!(p.uses_build_id_ustack);
    // The config's build_id is ustack's; kstack falls back to raw, as bpftrace's does.
    let p = ok("config = { stack_mode = build_id } profile:hz:99 { @u[ustack] = count(); @k[kstack(2)] = count(); }");
    assert_eq!(p.aggregations[0].keys, [Repr::UStack(UStackUse::Frames(0, StackMode::BuildId))]);
    assert_eq!(p.aggregations[1].keys, [Repr::Stack(StackUse::Frames(2, StackMode::Raw))]);
    assert!(!ok("profile:hz:99 { @u[ustack(raw)] = count(); }").uses_build_id_ustack);
    assert_eq!(err("profile:hz:99 { @k[kstack(build_id)] = count(); }"), ("'build_id' stack mode can only be used for ustack".into(), "build_id".into()));
}

#[test]
fn typeinfo_fields_are_constants_comptime_compares() {
    let on = "config = { unstable_typeinfo = enable } ";
    let p = ok(&format!("{on}BEGIN {{ $a = (uint64)1; if comptime (typeinfo($a).full_type == \"uint64\") {{ @y = 1; }} else {{ fail(\"no\"); }} @b = typeinfo(int32*[4]).base_type; @f = typeinfo(int32*[4]).full_type; @i = typeinfo($a).btf_id; @c = typeinfo(comm).full_type; }}"));
    let strings = format!("{:?}", p.strings);
    assert!(strings.contains("\"array\"") && strings.contains("\"int32 *[4]\"") && strings.contains("\"string[16]\""), "{strings}");
    let (m, at) = err("BEGIN { $a = typeinfo(1).full_type; }");
    assert_eq!((m.as_str(), at.as_str()), ("typeinfo feature is not enabled by default. To enable this unstable feature, set the config flag to enable. unstable_typeinfo=enable", "typeinfo(1)"));
    assert_eq!(err(&format!("{on}BEGIN {{ print(typeinfo(1)); }}")).0, "typeinfo() is read by its fields in crumbs");
    assert_eq!(err(&format!("{on}BEGIN {{ $x = typeinfo(1).foo; }}")), ("typeinfo() has no field `foo`".into(), "foo".into()));
    assert_eq!(err("config = { unstable_typeinfo = maybe } BEGIN { }").0, "unstable_typeinfo: Invalid value for unstable config: valid values are enable, warn, and error.");
    let d = crate::compile("BEGIN { x = typeinfo(1); }", &d_only()).expect_err("D");
    assert_eq!(d.message, "`typeinfo` is bpftrace's, not D's");
}
