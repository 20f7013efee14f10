//! Unit tests of current bpftrace's syntax and types (spec §13): typed `let`, block
//! expressions, booleans, `&$a`, `typeof`, `if comptime` and what bpftrace refuses.

use super::*;
use crate::compile;
use crate::dialect::Dialect;

fn compile_bt(src: &str) -> Result<Program, Diagnostic> {
    compile(src, &CheckOptions { dialect: Some(Dialect::Bpftrace), target: Some(42), destructive: true, ..Default::default() })
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
    let (m, at) = err("BEGIN { let $a: uint8[4]; }");
    assert_eq!((m.as_str(), at.as_str()), ("a scratch variable cannot be declared as an array or a sized string", "uint8[4]"));
    assert!(err("BEGIN { let $a: uint16 = \"x\"; }").0.contains("`$a` is `uint16_t`, but this is `string`"));
}
