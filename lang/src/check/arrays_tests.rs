//! Unit tests of bpftrace's arrays of integers as values (pton()'s bytes, a struct's
//! `unsigned char b[6]`): how variables, maps and keys keep them, what they compare with,
//! and the diagnostics for the uses that stay refused.

use super::*;
use crate::compile;
use crate::dialect::Dialect;

fn compile_in(dialect: Dialect, src: &str) -> Result<Program, Diagnostic> {
    compile(src, &CheckOptions { dialect: Some(dialect), target: Some(42), ..Default::default() })
}

fn ok(dialect: Dialect, src: &str) -> Program {
    compile_in(dialect, src).unwrap_or_else(|d| panic!("{src}: {} ({:?})", d.message, d.hint))
}

/// The diagnostic's message, the text its span covers and its hint.
fn err(src: &str) -> (String, String, String) {
    let d = compile_in(Dialect::Bpftrace, src).expect_err(src);
    (d.message.clone(), src[d.span.clone()].to_string(), d.hint.clone().unwrap_or_default())
}

fn array<'a>(p: &'a Program, name: &str) -> &'a crate::ir::Array {
    p.arrays.iter().find(|a| a.name == name).unwrap_or_else(|| panic!("no {name}"))
}

const U8: IntRepr = IntRepr { size: 1, signed: false };

#[test]
fn arrays_are_kept_whole_in_variables_maps_and_keys() {
    let p = ok(
        Dialect::Bpftrace,
        r#"struct six { unsigned char b[6]; unsigned short w[3]; }
        BEGIN { $a = pton("1.2.3.4"); @v = $a; @six[1] = ((struct six *)8)->b; @w = ((struct six *)8)->w;
            @k[pton("::1")] = 1; @c[$a, 2] = count(); print($a); }"#,
    );
    assert_eq!(array(&p, "@v").value, Repr::Array(U8, 4));
    assert_eq!(array(&p, "@six").value, Repr::Array(U8, 6));
    assert_eq!(array(&p, "@w").value, Repr::Array(IntRepr { size: 2, signed: false }, 3));
    assert_eq!(array(&p, "@k").keys, vec![Repr::Array(U8, 16)]);
    assert_eq!(p.aggregations[0].keys, vec![Repr::Array(U8, 4), Repr::Int(IntRepr::I32)]);
    // A place of whole words: 4 bytes in 8, 6 in 8, 16 in 16.
    assert_eq!((Repr::Array(U8, 4).size(), Repr::Array(U8, 6).size(), Repr::Array(U8, 16).size()), (8, 8, 16));
    let c = &p.groups[0].clauses[0];
    assert_eq!(c.locals.iter().filter(|l| l.repr == Repr::Array(U8, 4)).count(), 2, "$a and pton()'s own place");
    assert!(c.body.iter().any(|s| matches!(s, Stmt::SetObject(StrVar::Clause(_), Expr::Stored(Repr::Array(_, 4), _)))));
}

#[test]
fn arrays_compare_with_arrays_of_their_size() {
    let p = ok(
        Dialect::Bpftrace,
        r#"struct two { unsigned char a[4]; unsigned char b[4]; } BEGIN { $p = (struct two *)8; $a = $p->a;
            @eq = $a == $p->b; @ne = $p->a != $a; @pton = $a == pton("1.2.3.4"); @m[1] = $a; @e = @m[1] == $a; }"#,
    );
    // One 4-byte word each side: no byte of the arrays is left out.
    let text = format!("{:?}", p.groups[0].clauses[0].body);
    assert!(text.contains("Load { addr: VarAddr(Clause("), "{text}");
    assert!(text.contains("size: 4, signed: false }"), "{text}");
}

#[test]
fn d_arrays_stay_addresses() {
    // In D an array used as a value is its address, as in C.
    let p = ok(Dialect::D, "struct six { unsigned char b[6]; } BEGIN { x = ((struct six *)8)->b; }");
    assert_eq!(p.globals[0].repr, Repr::Int(IntRepr::U64));
}

#[test]
fn refused_uses_of_arrays_say_what_works() {
    for (src, message, span, hint) in [
        (r#"BEGIN { $a = pton("1.2.3.4"); printf("%s\n", $a); }"#, "an array (`uint8_t [4]`) cannot be used as a value here", "$a", "print it with print()"),
        (r#"BEGIN { $a = pton("1.2.3.4"); @x = $a + 1; }"#, "an array (`uint8_t [4]`) cannot be used as a value here", "$a", "print it with print()"),
        (r#"BEGIN { $a = pton("1.2.3.4"); if ($a) { exit(); } }"#, "an array (`uint8_t [4]`) cannot be used as a value here", "$a", "print it with print()"),
        (r#"BEGIN { $a = pton("1.2.3.4"); $a++; }"#, "`++`/`--` of `$a`, a `uint8_t [4]`", "$a++", "an array is assigned whole"),
        (r#"BEGIN { $a = pton("1.2.3.4"); $a = pton("::1"); }"#, "`$a` is `uint8_t [4]`, but this is `uint8_t [16]`", "pton(\"::1\")", "a variable keeps the type"),
        (r#"BEGIN { @m[1] = pton("1.2.3.4"); @m[2] = 5; }"#, "`@m[...]` is `uint8_t [4]`, but this is `int`", "5", "a variable keeps the type"),
        (r#"BEGIN { @m[pton("1.2.3.4")] = 1; @m[pton("::1")] = 2; }"#, "key 1 of `@m` has another type elsewhere", "pton(\"::1\")", "keys at one position"),
        (r#"BEGIN { $a = pton("1.2.3.4"); $b = pton("::1"); @x = $a == $b; }"#, "arrays of the same size and element size compare, but these are `uint8_t [4]` and `uint8_t [16]`", "$a == $b", "compare arrays of one type"),
        (r#"BEGIN { printf("%s", ntop("ab")); }"#, "ntop() argument must be 4 or 16 bytes in size, but this string is 3 (its NUL included)", "\"ab\"", "write the address as pton("),
        (r#"BEGIN { $s = "abc"; printf("%s", macaddr($s)); }"#, "macaddr() argument must be 6 bytes in size, but this is a string", "$s", "pass a 6-byte array"),
    ] {
        let (m, text, h) = err(src);
        assert_eq!((m.as_str(), text.as_str()), (message, span), "{src}");
        assert!(h.starts_with(hint), "{src}: {h}");
    }
}

#[test]
fn ntop_of_a_string_literal_reads_its_bytes() {
    // bpftrace 0.17 prints "abc" and its NUL as 97.98.99.0, 15 letters and a NUL as IPv6.
    let p = ok(Dialect::Bpftrace, r#"BEGIN { @a = ntop("abc"); @b = ntop("abcdefghijklmno"); @c = ntop(2, "abcdefghijklmno"); }"#);
    let text = format!("{p:?}");
    assert!(!text.contains("Ntop("), "folded when compiling: {text}");
    for want in ["97.98.99.0", "6162:6364:6566:6768:696a:6b6c:6d6e:6f00", "97.98.99.100"] {
        assert!(p.strings.table.iter().any(|s| s == want), "{want}");
    }
}
