//! Unit tests of current bpftrace's postfix type syntax (spec §13.2): `int32*[4]`,
//! `int32[4]*`, `string[64]`, integer–array casts and `let` of arrays and sized strings.

use super::*;
use crate::compile;
use crate::dialect::Dialect;

fn compile_bt(src: &str) -> Result<Program, Diagnostic> {
    compile(src, &CheckOptions { dialect: Some(Dialect::Bpftrace), ..Default::default() })
}

fn ok(src: &str) -> Program {
    compile_bt(src).unwrap_or_else(|d| panic!("{src}: {} ({:?})", d.message, d.hint))
}

/// The error's message and the text its span covers.
fn err(src: &str) -> (String, String) {
    let d = compile_bt(src).expect_err(src);
    (d.message.clone(), src[d.span.clone()].to_string())
}

fn body(p: &Program) -> String {
    format!("{:?}", p.groups[0].clauses[0].body)
}

#[test]
fn modifiers_read_left_to_right_in_sizeof() {
    for (t, size) in [("uint32*[10]", 80), ("uint32[10]*", 8), ("int32[4]", 16), ("int16[2][3]", 12), ("uint8*[2]*", 8), ("string[64]", 64), ("typeof(int32[4])", 16)] {
        let p = ok(&format!("BEGIN {{ @s = sizeof({t}); }}"));
        assert!(body(&p).contains(&format!("Int({size})")), "{t}: {}", body(&p));
    }
    // offsetof through a pointer-to-array type names its base's members as before.
    ok("struct s { int a; int b; }; BEGIN { @o = offsetof(struct s, b); @z = sizeof(struct s*[3]); }");
    assert_eq!(err("BEGIN { @s = sizeof(int32[]); }"), ("an array type without a length".into(), "int32[]".into()));
}

#[test]
fn an_integer_casts_to_an_array_of_its_size_and_back() {
    let p = ok("BEGIN { $a = (uint8[8])(uint64)12345; $b = (uint8[])12345; @x = (uint64)$a; @y = (uint32)pton(\"1.2.3.4\"); @w = (int16[4])12345; }");
    assert!(body(&p).contains("SetMember"), "{}", body(&p));
    // Sizes that differ: bpftrace's words.
    assert_eq!(err("BEGIN { $a = (uint8[4])(uint64)1; }"), ("Cannot cast from \"uint64\" to \"uint8[4]\"".into(), "(uint8[4])(uint64)1".into()));
    assert_eq!(err("BEGIN { $a = pton(\"1.2.3.4\"); @x = (uint64)$a; }").0, "Cannot cast from \"uint8[4]\" to \"uint64\"");
    assert_eq!(err("BEGIN { $a = (uint16[])(uint8)1; }").0, "Cannot determine array size: the element size is incompatible with the cast integer size");
    // Arrays of pointers are no cast's target, as in bpftrace.
    assert_eq!(err("BEGIN { $a = (int32*[4])(uint64)0; }").0, "Cannot cast from \"uint64\" to \"int32 *[4]\"");
    // A pointer to an array is a pointer.
    ok("struct t { int a; }; BEGIN { $p = (int32[4]*)0; $q = (struct t*[2]*)0; }");
}

#[test]
fn a_sized_string_type_keeps_strings_that_fit() {
    ok("BEGIN { $s = (string[64])\"abc\"; $t = (string[16])comm; let $u: string[4] = \"abc\"; $u = \"xy\"; }");
    assert_eq!(err("BEGIN { $t = (string[2])\"abc\"; }").0, "Cannot cast from \"string[4]\" to \"string[2]\"");
    // A char array member is a string of its length; a number is no string.
    ok("struct t { char c[8]; }; BEGIN { $s = (string[8])((struct t *)0)->c; }");
    assert_eq!(err("struct t { char c[8]; }; BEGIN { $s = (string[4])((struct t *)0)->c; }").0, "Cannot cast from \"string[8]\" to \"string[4]\"");
    assert_eq!(err("BEGIN { $s = (string[8])5; }").0, "Cannot cast from \"int32\" to \"string[8]\"");
    let mismatch = |v: &str, t: &str| format!("Type mismatch for $x: trying to assign value of type '{v}' when variable already has a type '{t}'");
    assert_eq!(err("BEGIN { let $x: string[3] = \"helloooooo\"; }"), (mismatch("string[11]", "string[3]"), "\"helloooooo\"".into()));
    assert_eq!(err("BEGIN { let $x: string[3] = \"hi\"; $x = \"hello\"; }").0, mismatch("string[6]", "string[3]"));
    assert_eq!(err("BEGIN { let $x: string[8] = comm; }").0, mismatch("string[16]", "string[8]"));
    assert_eq!(err("BEGIN { $b = (buffer[8])\"x\"; }"), ("the `buffer` type is not in crumbs".into(), "buffer[8]".into()));
}

#[test]
fn let_declares_arrays_of_integers_zeroed() {
    let p = ok("BEGIN { let $a: uint8[4]; $a = pton(\"1.2.3.4\"); let $b: int32[2] = (int32[2])(uint64)7; let $c: uint16[2]; print($c); }");
    assert!(body(&p).matches("SetMember").count() >= 3, "{}", body(&p));
    let mismatch = |v: &str, t: &str| format!("Type mismatch for $a: trying to assign value of type '{v}' when variable already has a type '{t}'");
    assert_eq!(err("BEGIN { let $a: uint8[4] = pton(\"::1\"); }").0, mismatch("uint8[16]", "uint8[4]"));
    assert_eq!(err("BEGIN { let $a: uint8[4]; $a = (uint64)5; }").0, mismatch("uint64", "uint8[4]"));
    assert_eq!(err("BEGIN { let $a: int32*[4]; }"), ("a scratch variable of type `int32 *[4]` is not in crumbs".into(), "int32*[4]".into()));
    // A pointer to an array is a pointer variable.
    ok("BEGIN { let $p: int32[4]*; $p = (int32[4]*)0; }");
}

#[test]
fn d_keeps_its_element_sizes_and_refuses_postfix_types() {
    let d = CheckOptions { dialect: Some(Dialect::D), ..Default::default() };
    crate::compile("int a[4]; BEGIN { trace(sizeof(a[1])); x = (a[1]) - 1; }", &d).expect("D");
    let e = crate::compile("BEGIN { x = (int[4])1; }", &d).expect_err("D");
    assert_eq!(e.message, "a type with `[N]` is bpftrace's, not D's");
}
