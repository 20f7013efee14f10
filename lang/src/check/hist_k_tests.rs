//! Unit tests of hist(x, k)'s checks (check/actions.rs): k's default, its range, one k per
//! aggregation, and each error's span, message and hint.

use super::*;
use crate::compile;
use crate::dialect::Dialect;

fn compile_bt(src: &str) -> Result<Program, Diagnostic> {
    compile(src, &CheckOptions { dialect: Some(Dialect::Bpftrace), ..Default::default() })
}

/// The error, the source text its span covers, and its hint.
fn err(src: &str) -> (String, String, String) {
    let d = compile_bt(src).expect_err(src);
    (d.message.clone(), src[d.span.clone()].to_string(), d.hint.clone().unwrap_or_else(|| panic!("{src}: no hint for {}", d.message)))
}

#[test]
fn k_defaults_to_zero_and_is_kept() {
    let p = compile_bt("BEGIN { @a = hist(1); @a = hist(2, 0); @b = hist(3, 5); }").unwrap_or_else(|d| panic!("{}", d.message));
    let kinds: Vec<(String, Vec<i64>)> = p.aggregations.iter().map(|a| (a.name.clone(), a.kind.consts.clone())).collect();
    assert_eq!(kinds, [("a".to_string(), vec![0]), ("b".to_string(), vec![5])]);
    // k = 0 keeps quantize's 127 buckets; k = 5 has 59 × 32 + 1.
    assert_eq!(p.aggregations[0].kind.words(), 127);
    assert_eq!(p.aggregations[1].kind.words(), 1889);
}

#[test]
fn bad_k_is_an_error_at_k() {
    let (m, at, hint) = err("BEGIN { @a = hist(1, 6); }");
    assert_eq!((m.as_str(), at.as_str()), ("hist: bits 6 must be 0..5", "6"));
    assert!(hint.contains("k from 0 to 5"), "{hint}");
    let (m, at, _) = err("BEGIN { $k = 1; @a = hist(1, $k); }");
    assert_eq!((m.as_str(), at.as_str()), ("hist() needs a constant here", "$k"));
    let (m, at, _) = err("BEGIN { @a = hist(1, 2, 3); }");
    assert_eq!((m.as_str(), at.as_str()), ("hist() takes 1 or 2 arguments, but 3 given", "@a = hist(1, 2, 3)"));
}

#[test]
fn one_k_per_aggregation() {
    let (m, at, hint) = err("BEGIN { @a = hist(1, 2); @a = hist(1); }");
    assert_eq!((m.as_str(), at.as_str()), ("Different bits in a single hist unsupported", "@a = hist(1)"));
    assert!(hint.contains("`@a_2`"), "{hint}");
    // In D the same mismatch says so in crumbs' words.
    let d = compile("BEGIN { @a = hist(1, 2); @a = hist(1); }", &CheckOptions { dialect: Some(Dialect::D), ..Default::default() }).expect_err("D");
    assert_eq!(d.message, "aggregation `@a` is already hist() with other constant arguments");
}
