//! Unit tests of reads of an aggregation's value (agg_reads.rs): which functions can be
//! read, the maps of values that keep the value, and what stays refused.

use super::*;
use crate::compile;
use crate::dialect::Dialect;

fn compile_bt(src: &str) -> Result<Program, Diagnostic> {
    compile(src, &CheckOptions { dialect: Some(Dialect::Bpftrace), ..Default::default() })
}

fn ok(src: &str) -> Program {
    compile_bt(src).unwrap_or_else(|d| panic!("{src}: {} ({:?})", d.message, d.hint))
}

/// The diagnostic, the text its span covers and its hint.
fn err(src: &str) -> (String, String, String) {
    let d = compile_bt(src).expect_err(src);
    (d.message.clone(), src[d.span.clone()].to_string(), d.hint.clone().unwrap_or_default())
}

#[test]
fn a_read_aggregation_keeps_its_value_in_maps_that_are_not_printed() {
    let p = ok(r#"BEGIN { @c[comm] = count(); @a[1, "x"] = avg(3); @h = hist(2); @s = sum(1); } END { $x = @c[comm] + @a[1, "x"]; }"#);
    let agg = |name: &str| p.aggregations.iter().find(|a| a.name == name).unwrap();
    let c = agg("c");
    assert_eq!(c.read.len(), 1);
    let shadow = &p.arrays[c.read[0]];
    assert_eq!((shadow.keys.clone(), shadow.keeps_zero, shadow.key_size()), (c.keys.clone(), false, c.key_size()));
    assert_eq!(shadow.value, Repr::Int(crate::ir::IntRepr { size: 8, signed: false }), "a count reads unsigned");
    assert_eq!(agg("a").read.len(), 2, "avg keeps its sum and its count");
    assert!(agg("h").read.is_empty() && agg("s").read.is_empty(), "only what is read keeps a value");
    assert!(p.arrays.iter().all(|a| !a.name.starts_with('@')), "none is a map printed at exit");
}

#[test]
fn min_max_and_loops_read_too() {
    let p = ok("BEGIN { @m[1] = min(3); @n = max(2); @v[2] = avg(4); } END { for ($kv : @m) { @o[$kv.0] = $kv.1 + @n; } for ($kv : @v) { @w[$kv.0] = $kv.1; } }");
    assert!(p.aggregations.iter().all(|a| !a.read.is_empty()));
}

#[test]
fn functions_whose_value_is_not_a_number_are_refused() {
    for (src, message, at) in [
        ("BEGIN { @h = hist(3); $x = @h; }", "map `@h` holds hist(), which cannot be read in an expression", "@h"),
        ("BEGIN { @s[1] = stats(3); if (@s[1] > 0) { } }", "map `@s` holds stats(), which cannot be read in an expression", "@s[1]"),
        ("BEGIN { @l = lhist(3, 0, 10, 1); for ($kv : @l) { } }", "map `@l` holds lhist(), which cannot be walked by `for`", "@l"),
    ] {
        let (m, a, hint) = err(src);
        assert_eq!((m.as_str(), a.as_str()), (message, at), "{src}");
        assert!(hint.contains("count(), sum(), min(), max() and avg() can be read"), "{hint}");
    }
}

#[test]
fn reads_check_the_keys_and_aggregations_stay_unassignable() {
    let (m, _, _) = err(r#"BEGIN { @c[1] = count(); $x = @c[1, "a"]; }"#);
    assert_eq!(m, "aggregation `@c` has 1 key(s) elsewhere, 2 here");
    let (m, _, _) = err("BEGIN { @c = count(); @c = 1; }");
    assert_eq!(m, "`@c` is an aggregation and is given a value");
}
