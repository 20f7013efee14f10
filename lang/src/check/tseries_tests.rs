//! Unit tests of tseries()'s checks (check/actions.rs and ir/agg/tseries.rs): its
//! constants, the function named by its last argument, the value's sign, and each error's
//! span, message (current bpftrace's words) and hint.

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
fn constants_function_and_sign() {
    let p = compile_bt(r#"BEGIN { @a = tseries(1, 100ms, 20); @b = tseries((uint32)2, 1s, 5, "max"); @c[1] = tseries(-3, 5, 1, "avg"); }"#).unwrap_or_else(|d| panic!("{}", d.message));
    let kinds: Vec<(String, Vec<i64>)> = p.aggregations.iter().map(|a| (a.name.clone(), a.kind.consts.clone())).collect();
    assert_eq!(kinds, [("a".to_string(), vec![100_000_000, 20, 0, 1]), ("b".to_string(), vec![1_000_000_000, 5, 3, 0]), ("c".to_string(), vec![5, 1, 1, 1])]);
    // Three words per interval.
    assert_eq!(p.aggregations[0].kind.words(), 60);
}

#[test]
fn bad_constants_in_bpftraces_words() {
    let (m, at, hint) = err("BEGIN { @a = tseries(1, 0, 5); }");
    assert_eq!((m.as_str(), at.as_str()), ("tseries() interval_ns must be >= 1 (0 provided)", "0"));
    assert!(hint.contains("100ms"), "{hint}");
    let (m, at, _) = err("BEGIN { @a = tseries(1, 1s, -1); }");
    assert_eq!((m.as_str(), at.as_str()), ("tseries() num_intervals must be >= 1 (-1 provided)", "-1"));
    let (m, _, _) = err("BEGIN { @a = tseries(1, 1s, 1000001); }");
    assert_eq!(m, "tseries() num_intervals must be < 1000000 (1000001 provided)");
    let (m, _, hint) = err("BEGIN { @a = tseries(1, 1s, 4001); }");
    assert_eq!(m, "tseries() num_intervals must be at most 4000 in crumbs (4001 provided)");
    assert!(hint.contains("longer interval_ns"), "{hint}");
    let (m, at, _) = err("BEGIN { $i = 1; @a = tseries(1, $i, 5); }");
    assert_eq!((m.as_str(), at.as_str()), ("tseries: invalid interval_ns value (must be non-negative literal)", "$i"));
    let (m, at, _) = err("BEGIN { $i = 1; @a = tseries(1, 1s, $i); }");
    assert_eq!((m.as_str(), at.as_str()), ("tseries: invalid num_intervals value (must be non-negative literal)", "$i"));
}

#[test]
fn bad_function_names_the_four() {
    let (m, at, hint) = err(r#"BEGIN { @a = tseries(1, 1s, 5, "last"); }"#);
    assert_eq!((m.as_str(), at.as_str()), (r#"tseries() expects one of the following aggregation functions: avg, max, min, sum ("last" provided)"#, r#""last""#));
    assert!(hint.contains("leave it out"), "{hint}");
    let (m, at, _) = err(r#"BEGIN { @a = tseries(1, 1s, 5, 2); }"#);
    assert_eq!((m.as_str(), at.as_str()), ("tseries() needs a string literal here", "2"));
    let (m, _, _) = err(r#"BEGIN { @a = tseries(1, 1s); }"#);
    assert_eq!(m, "tseries() takes 3 or 4 arguments, but 2 given");
}

#[test]
fn one_function_per_aggregation_and_bpftrace_only() {
    let (m, at, _) = err(r#"BEGIN { @a = tseries(1, 1s, 5); @a = tseries(1, 1s, 5, "sum"); }"#);
    assert_eq!((m.as_str(), at.as_str()), ("aggregation `@a` is already tseries() with other constant arguments", r#"@a = tseries(1, 1s, 5, "sum")"#));
    let d = compile("BEGIN { @a = tseries(1, 1, 5); }", &CheckOptions { dialect: Some(Dialect::D), ..Default::default() }).expect_err("D");
    assert!(d.message.contains("tseries"), "{}", d.message);
}
