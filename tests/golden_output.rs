//! Aggregation output, byte for byte, in DTrace's layout.
//!
//! Every script runs in BEGIN only (quiet, ending with `exit(0)`), so the values are
//! known. The expected text is built from DTrace's documented formats (illumos
//! `dt_consume.c`, as summarised in runtime/src/output/aggregation.rs):
//!
//! * at exit, one `"\n"` when tracing stops, then every non-empty aggregation in
//!   declaration order, nothing between them;
//! * a row: each key (`"  %-50s"` for a string, `" %16lld"` for an integer), the value
//!   (`" %16lld"`), `"\n"`; rows sorted by value, ties by key (integer keys unsigned);
//! * a distribution: `"\n%16s %41s %-9s\n"` header, then per bucket `"%16s |"`, the bar of
//!   `round(40 * count / total)` `@`s padded to 40, `" %-9lld\n"`, from one bucket before
//!   the first non-empty one to one after the last; then the row's `"\n"`;
//! * `printa(@a)`: `"\n"`, then the rows.

mod common;

use common::{int32_col, int_col, quiet, run, str_col};

/// One row: keys already formatted, then the value column and the newline.
fn row(keys: &[String], value: i64) -> String {
    format!("{}{}\n", keys.concat(), int_col(value))
}

/// A row with one string key.
fn srow(key: &str, value: i64) -> String {
    row(&[str_col(key)], value)
}

/// A row with no key.
fn vrow(value: i64) -> String {
    row(&[], value)
}

/// The distribution header: `"\n%16s %41s %-9s\n"`.
fn dist_header() -> String {
    format!("\n{:>16} {:>41} {:<9}\n", "value", "------------- Distribution -------------", "count")
}

/// One bucket line: `"%16s |"`, `@` x depth padded to 40, `" %-9lld\n"`;
/// depth = (int)(count * 40 / total + 0.5).
fn bucket(label: &str, count: u64, total: u64) -> String {
    let depth = ((count * 40) as f64 / total as f64 + 0.5) as usize;
    format!("{label:>16} |{:<40} {count:<9}\n", "@".repeat(depth))
}

/// A whole distribution value: header, buckets, and the row's own `"\n"`.
fn distribution(buckets: &[(impl AsRef<str>, u64)]) -> String {
    let total: u64 = buckets.iter().map(|(_, c)| c).sum();
    let mut s = dist_header();
    for (label, count) in buckets {
        s += &bucket(label.as_ref(), *count, total);
    }
    s + "\n"
}

/// What DTrace prints at exit for these aggregations' rows: `"\n"` and then the rows.
fn at_exit(rows: &[String]) -> String {
    format!("\n{}", rows.concat())
}

#[test]
fn count_without_key() {
    let out = quiet("BEGIN { @c = count(); @c = count(); @c = count(); exit(0); }");
    assert_eq!(out, at_exit(&[vrow(3)]));
}

#[test]
fn sum_min_max_avg_without_key() {
    // Each aggregation separately, so that exactly one is printed.
    assert_eq!(quiet("BEGIN { @s = sum(5); @s = sum(10); @s = sum(27); exit(0); }"), at_exit(&[vrow(42)]));
    assert_eq!(quiet("BEGIN { @m = min(5); @m = min(-3); @m = min(9); exit(0); }"), at_exit(&[vrow(-3)]));
    assert_eq!(quiet("BEGIN { @m = max(5); @m = max(-3); @m = max(9); exit(0); }"), at_exit(&[vrow(9)]));
    // avg: integer division of the sum by the count: (1 + 2 + 4) / 3 = 2.
    assert_eq!(quiet("BEGIN { @a = avg(1); @a = avg(2); @a = avg(4); exit(0); }"), at_exit(&[vrow(2)]));
}

#[test]
fn negative_values() {
    assert_eq!(quiet("BEGIN { @s = sum(5); @s = sum(-12); exit(0); }"), at_exit(&[vrow(-7)]));
    assert_eq!(quiet("BEGIN { @m = max(-5); @m = max(-12); exit(0); }"), at_exit(&[vrow(-5)]));
    assert_eq!(quiet("BEGIN { @m = min(-5); @m = min(-12); exit(0); }"), at_exit(&[vrow(-12)]));
    // (-5 + -2) / 2 = -3.5, truncated toward zero (C division) = -3.
    assert_eq!(quiet("BEGIN { @a = avg(-5); @a = avg(-2); exit(0); }"), at_exit(&[vrow(-3)]));
    // The most negative value, printed in full.
    assert_eq!(
        quiet("BEGIN { @m = min(-9223372036854775807); @m = min(-1); exit(0); }"),
        at_exit(&[vrow(-9223372036854775807)])
    );
}

#[test]
fn one_string_key_sorted_by_value_then_key() {
    let out = quiet(
        r#"BEGIN {
            @c["x"] = count(); @c["x"] = count();
            @c["y"] = count();
            @c["b"] = count(); @c["b"] = count();
            @c["zz"] = count(); @c["zz"] = count(); @c["zz"] = count();
            exit(0);
        }"#,
    );
    // y 1; b 2 and x 2 tie and sort by key; zz 3.
    assert_eq!(out, at_exit(&[srow("y", 1), srow("b", 2), srow("x", 2), srow("zz", 3)]));
}

#[test]
fn string_key_sum_with_negative_values_sorts_signed() {
    let out = quiet(
        r#"BEGIN {
            @s["read"] = sum(4096);
            @s["write"] = sum(-20);
            @s["close"] = sum(0);
            @s["lseek"] = sum(-1); @s["lseek"] = sum(-99);
            exit(0);
        }"#,
    );
    assert_eq!(out, at_exit(&[srow("lseek", -100), srow("write", -20), srow("close", 0), srow("read", 4096)]));
}

#[test]
fn long_string_key_is_not_truncated() {
    let key = "k".repeat(60);
    let out = quiet(&format!(r#"BEGIN {{ @c["{key}"] = count(); exit(0); }}"#));
    assert_eq!(out, at_exit(&[srow(&key, 1)]));
    assert_eq!(out, format!("\n  {key}{:>17}\n", 1));
}

#[test]
fn two_keys_string_and_int() {
    let out = quiet(
        r#"BEGIN {
            @k["sh", 3] = count(); @k["sh", 3] = count();
            @k["sh", -1] = count(); @k["sh", -1] = count();
            @k["bash", 100] = count();
            @k["bash", 7] = count();
            @k["awk", 7] = count();
            exit(0);
        }"#,
    );
    let r = |s: &str, n: i64, v: i64| row(&[str_col(s), int32_col(n)], v);
    // Value ascending; ties by key: strings bytewise, then integers as unsigned (-1 last).
    assert_eq!(out, at_exit(&[r("awk", 7, 1), r("bash", 7, 1), r("bash", 100, 1), r("sh", 3, 2), r("sh", -1, 2)]));
}

#[test]
fn integer_keys_tie_break_unsigned() {
    // DTrace's tst.signedkeys.d: integer keys compare as unsigned, so -1 sorts after 5.
    let out = quiet("BEGIN { @c[5] = count(); @c[-1] = count(); @c[0] = count(); @c[-2] = count(); exit(0); }");
    let r = |k: i64| row(&[int32_col(k)], 1);
    assert_eq!(out, at_exit(&[r(0), r(5), r(-2), r(-1)]));
}

#[test]
fn avg_min_max_with_keys_sort_by_value() {
    let out = quiet(
        r#"BEGIN {
            @a["a"] = avg(10); @a["a"] = avg(0); @a["a"] = avg(0);
            @a["b"] = avg(2); @a["b"] = avg(3);
            @a["c"] = avg(-5); @a["c"] = avg(0);
            @a["e"] = avg(100);
            exit(0);
        }"#,
    );
    // a: 10/3 = 3, b: 5/2 = 2, c: -5/2 = -2 (truncated), e: 100.
    assert_eq!(out, at_exit(&[srow("c", -2), srow("b", 2), srow("a", 3), srow("e", 100)]));

    let out = quiet("BEGIN { @m[2] = min(-5); @m[1] = min(7); @m[1] = min(8); exit(0); }");
    assert_eq!(out, at_exit(&[row(&[int32_col(2)], -5), row(&[int32_col(1)], 7)]));
}

#[test]
fn quantize_small_values() {
    let out = quiet(
        "BEGIN { @q = quantize(0); @q = quantize(1); @q = quantize(2); @q = quantize(3); \
         @q = quantize(4); @q = quantize(100); exit(0); }",
    );
    // Buckets: 0 -> 0, 1 -> 1, 2 and 3 -> 2, 4 -> 4, 100 -> 64; printed from one below
    // the first (-1) to one above the last (128).
    let table = distribution(&[
        ("-1", 0),
        ("0", 1),
        ("1", 1),
        ("2", 2),
        ("4", 1),
        ("8", 0),
        ("16", 0),
        ("32", 0),
        ("64", 1),
        ("128", 0),
    ]);
    assert_eq!(out, format!("\n{table}"));
    // The rule, spelled out once: a bar of 7 for 1 of 6, 13 for 2 of 6.
    assert!(out.contains("\n               2 |@@@@@@@@@@@@@                            2        \n"), "{out}");
}

#[test]
fn quantize_negative_values_with_key() {
    let out = quiet(
        r#"BEGIN {
            @q["neg"] = quantize(-1);
            @q["neg"] = quantize(-2); @q["neg"] = quantize(-3);
            @q["neg"] = quantize(-5);
            @q["neg"] = quantize(0);
            exit(0);
        }"#,
    );
    // -1 -> -1; -2, -3 -> -2; -5 -> -4 (bucket labels are the magnitude's lower bound).
    let table = distribution(&[("-8", 0), ("-4", 1), ("-2", 2), ("-1", 1), ("0", 1), ("1", 0)]);
    // A keyed distribution: the padded key on its own line, then the table.
    assert_eq!(out, format!("\n{}{table}", str_col("neg")));
}

#[test]
fn lquantize_underflow_and_overflow() {
    let out = quiet(
        "BEGIN { @l = lquantize(-5, 0, 100, 10); @l = lquantize(-5, 0, 100, 10); \
         @l = lquantize(15, 0, 100, 10); @l = lquantize(15, 0, 100, 10); @l = lquantize(19, 0, 100, 10); \
         @l = lquantize(100, 0, 100, 10); @l = lquantize(250, 0, 100, 10); exit(0); }",
    );
    let mut buckets: Vec<(String, u64)> = vec![("< 0".into(), 2)];
    for v in (0..100).step_by(10) {
        buckets.push((v.to_string(), if v == 10 { 3 } else { 0 }));
    }
    buckets.push((">= 100".into(), 2));
    assert_eq!(out, format!("\n{}", distribution(&buckets)));
}

#[test]
fn lquantize_middle_range_only() {
    let out = quiet(
        "BEGIN { @l[1] = lquantize(2, -10, 10, 5); @l[1] = lquantize(4, -10, 10, 5); \
         @l[1] = lquantize(0, -10, 10, 5); exit(0); }",
    );
    // All three in [0, 5): printed from -5 to 5.
    let table = distribution(&[("-5", 0), ("0", 3), ("5", 0)]);
    assert_eq!(out, format!("\n{}{table}", int32_col(1)));
}

#[test]
fn several_aggregations_at_exit() {
    let out = quiet(
        r#"BEGIN {
            @first = count(); @first = count();
            @second["k"] = sum(3); @second["j"] = sum(-3);
            @third = max(11);
            exit(0);
        }
        BEGIN /0/ { @never = count(); }"#,
    );
    // One "\n" when tracing stops, then each aggregation's rows in declaration order,
    // nothing between them; the empty @never prints nothing.
    let want = format!("\n{}{}{}{}", vrow(2), srow("j", -3), srow("k", 3), vrow(11));
    assert_eq!(out, want);
}

#[test]
fn several_aggregations_with_a_distribution() {
    let out = quiet("BEGIN { @c = count(); @q = quantize(1); @s = sum(7); exit(0); }");
    let want = format!("\n{}{}{}", vrow(1), distribution(&[("0", 0), ("1", 1), ("2", 0)]), vrow(7));
    assert_eq!(out, want);
}

#[test]
fn printa_mid_script() {
    // printa() in BEGIN prints the aggregation as it is then (1); END adds one more, but
    // an aggregation printa() has printed is not printed again at the end (DTrace's rule):
    // the end is its newline only. One never printed is.
    let out = run(&["-q", "-e", "BEGIN { @a = count(); printa(@a); printf(\"after\\n\"); exit(0); } END { @a = count(); @b = count(); }"]);
    out.assert_ok();
    let want = format!("\n{}after\n\n{}", vrow(1), vrow(1));
    assert_eq!(out.stdout, want, "{}", out.dump());
    // A printa() that printed no row does not count (DTrace marks an aggregation as it
    // prints a row of it).
    let out = run(&["-q", "-e", "BEGIN { @a = count(); trunc(@a); printa(@a); printf(\"x\\n\"); exit(0); } END { @a = count(); }"]);
    out.assert_ok();
    assert_eq!(out.stdout, format!("x\n\n{}", vrow(1)), "{}", out.dump());
}

#[test]
fn printa_with_keys_then_exit() {
    let out = quiet(r#"BEGIN { @a["b"] = count(); @a["a"] = count(); @a["b"] = count(); printa(@a); printf("--\n"); exit(0); }"#);
    let rows = format!("{}{}", srow("a", 1), srow("b", 2));
    assert_eq!(out, format!("\n{rows}--\n\n"));
}

#[test]
fn pragma_quiet_and_not_quiet() {
    let out = run(&["-e", "#pragma D option quiet\nBEGIN { @c[\"x\"] = count(); exit(0); }"]);
    out.assert_ok();
    assert_eq!(out.stdout, at_exit(&[srow("x", 1)]), "{}", out.dump());

    // Not quiet: the probe line of the firing, then the same aggregation layout.
    let out = run(&["-e", "BEGIN { @c[\"x\"] = count(); exit(0); }"]);
    out.assert_ok();
    let lines: Vec<&str> = out.stdout.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 4, "{}", out.dump());
    assert_eq!(lines[0], "CPU     ID                    FUNCTION:NAME\n");
    assert!(lines[1].ends_with(&format!(" {:>6} {:>32} \n", 1, ":BEGIN")), "{}", out.dump());
    assert_eq!(lines[2..].concat(), at_exit(&[srow("x", 1)]));
}

/// spec §7.5: printa with a format prints each row through it, sorted, with no leading
/// newline; `%@` takes the value, other conversions take the keys in order.
#[test]
fn printa_with_a_format() {
    let out = run(&[
        "-q",
        "-e",
        r#"BEGIN { @a["hello", 123] = count(); @a["goodbye", 456] = count(); @a["goodbye", 456] = count();
                   @v = avg(3); @v = avg(4);
                   printa("%-10s %5d -> %@d\n", @a); printa("%s|%@3u|%@x\n", @a); printa("avg=%@d\n", @v);
                   exit(0); }"#,
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let printed = "hello        123 -> 1\ngoodbye      456 -> 2\nhello|  1|1\ngoodbye|  2|2\navg=3\n";
    // Both were printed by printa(): the end prints neither.
    assert_eq!(out.stdout, format!("{printed}\n"), "{}", out.dump());
}

/// spec §7.6: clear() zeroes values and keeps keys; trunc() keeps the n largest, the -n
/// smallest, or nothing.
#[test]
fn clear_and_trunc() {
    let out = run(&[
        "-q",
        "-e",
        r#"BEGIN { @a["x"] = count(); @a["y"] = count(); @a["y"] = count();
                   @a["z"] = count(); @a["z"] = count(); @a["z"] = count(); @b["k"] = sum(7); @m = max(3); }
           BEGIN { trunc(@a, 2); printa(@a); trunc(@a, -1); printa(@a); clear(@b); clear(@m); printa(@b); trunc(@a); exit(0); }"#,
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let row = |k: &str, v: i64| format!("  {k:<50}{v:>17}\n");
    // @a and @b were printed by printa(), and the cleared @m has no value to print: the end
    // prints nothing but its newline.
    let expected = format!("\n{}{}\n{}\n{}\n", row("y", 2), row("z", 3), row("y", 2), row("k", 0));
    assert_eq!(out.stdout, expected, "{}", out.dump());
}

/// spec §3.2: aggsortkey sorts rows by key, aggsortrev reverses the order.
#[test]
fn aggsortkey_and_aggsortrev() {
    let prog = r#"BEGIN { @["b"] = sum(3); @["a"] = sum(1); @["c"] = sum(2); exit(0); }"#;
    let row = |k: &str, v: i64| format!("  {k:<50}{v:>17}\n");
    type Case<'a> = (&'a [&'a str], [(&'a str, i64); 3]);
    let cases: [Case; 4] = [
        (&[], [("a", 1), ("c", 2), ("b", 3)]),
        (&["-x", "aggsortrev"], [("b", 3), ("c", 2), ("a", 1)]),
        (&["-x", "aggsortkey"], [("a", 1), ("b", 3), ("c", 2)]),
        (&["-x", "aggsortkey", "-x", "aggsortrev"], [("c", 2), ("b", 3), ("a", 1)]),
    ];
    for (opts, rows) in cases {
        let mut args = vec!["-q"];
        args.extend_from_slice(opts);
        args.extend(["-e", prog]);
        let out = run(&args);
        let expected: String = std::iter::once("\n".to_string()).chain(rows.iter().map(|(k, v)| row(k, *v))).collect();
        assert_eq!(out.stdout, expected, "{opts:?}\n{}", out.dump());
    }
}

/// spec §7.7: normalize divides printed values from then on; denormalize undoes it.
#[test]
fn normalize_and_denormalize() {
    let out = run(&[
        "-q",
        "-e",
        r#"BEGIN { @a["x"] = sum(5000); @a["y"] = sum(2500); @q = quantize(1); @q = quantize(1); normalize(@a, 1000); printa(@a); denormalize(@a); printa(@a); normalize(@a, 100); normalize(@q, 2); exit(0); }"#,
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let row = |k: &str, v: i64| format!("  {k:<50}{v:>17}\n");
    let table = "\n           value  ------------- Distribution ------------- count    \n               0 |                                         0        \n               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        \n               2 |                                         0        \n\n";
    // @a was printed by printa(): the end prints only @q, normalized.
    let expected = format!("\n{}{}\n{}{}\n{}", row("y", 2), row("x", 5), row("y", 2500), row("x", 5000), table);
    assert_eq!(out.stdout, expected, "{}", out.dump());
}

/// spec §8.2: stddev() is DTrace's integer standard deviation, exact beyond 64-bit squares.
#[test]
fn stddev_values() {
    let out = quiet(
        "BEGIN { @s = stddev(2); @s = stddev(4); @s = stddev(4); @s = stddev(4); @s = stddev(5); @s = stddev(5); @s = stddev(7); @s = stddev(9);
                 @b = stddev(10000000000); @b = stddev(-10000000000); @b = stddev(30000000000); @b = stddev(-30000000000);
                 @k[\"one\"] = stddev(7); exit(0); }",
    );
    let expected = format!("\n{:>17}\n{:>17}\n  {:<50}{:>17}\n", 2, 22360679774i64, "one", 0);
    assert_eq!(out, expected);
}

/// spec §8.6: llquantize(x, 10, 1, 3, 10) has `< 10`, then 10..90 by 10, 100..900 by 100,
/// 1000..9000 by 1000, then `>= 10000`; negative values count below the low magnitude.
#[test]
fn llquantize_below_low_and_negative() {
    let out = quiet(
        "BEGIN { @l = llquantize(-5, 10, 1, 3, 10); @l = llquantize(3, 10, 1, 3, 10); \
         @l = llquantize(20, 10, 1, 3, 10); @l = llquantize(29, 10, 1, 3, 10); \
         @l = llquantize(99, 10, 1, 3, 10); exit(0); }",
    );
    let mut b = vec![("< 10".to_string(), 2)];
    b.extend((10..=90).step_by(10).map(|v| (v.to_string(), [0, 2, 0, 0, 0, 0, 0, 0, 1][v / 10 - 1])));
    b.push(("100".into(), 0));
    assert_eq!(out, format!("\n{}", distribution(&b)));
}

#[test]
fn llquantize_above_high() {
    let out = quiet(
        "BEGIN { @l = llquantize(9999, 10, 1, 3, 10); @l = llquantize(10000, 10, 1, 3, 10); \
         @l = llquantize(123456789, 10, 1, 3, 10); exit(0); }",
    );
    assert_eq!(out, format!("\n{}", distribution(&[("8000", 0), ("9000", 1), (">= 10000", 2)])));
}

/// Factor 2, 4 steps: [1], [2, 3], then 2 buckets per power of two, `>= 32` above 2^4.
#[test]
fn llquantize_factor_two() {
    let out = quiet(
        "BEGIN { @l = llquantize(1, 2, 0, 4, 4); @l = llquantize(2, 2, 0, 4, 4); @l = llquantize(3, 2, 0, 4, 4); \
         @l = llquantize(5, 2, 0, 4, 4); @l = llquantize(7, 2, 0, 4, 4); @l = llquantize(13, 2, 0, 4, 4); \
         @l = llquantize(40, 2, 0, 4, 4); exit(0); }",
    );
    let table = distribution(&[
        ("< 1", 0),
        ("1", 1),
        ("2", 1),
        ("3", 1),
        ("4", 1),
        ("6", 1),
        ("8", 0),
        ("12", 1),
        ("16", 0),
        ("24", 0),
        (">= 32", 1),
    ]);
    assert_eq!(out, format!("\n{table}"));
}

/// DTrace's tst.llquantstep.d shape: factor 3, magnitudes 3 to 5, 27 steps: 27..78 by 3,
/// 81..234 by 9, 243..702 by 27. Every bucket between the lowest and highest value prints.
#[test]
fn llquantize_factor_three_many_steps() {
    let out = quiet(
        "BEGIN { @l = llquantize(26, 3, 3, 5, 27); @l = llquantize(27, 3, 3, 5, 27); @l = llquantize(80, 3, 3, 5, 27); \
         @l = llquantize(81, 3, 3, 5, 27); @l = llquantize(700, 3, 3, 5, 27); @l = llquantize(729, 3, 3, 5, 27); exit(0); }",
    );
    let mut b = vec![("< 27".to_string(), 1)];
    for (from, to, step) in [(27, 78, 3), (81, 234, 9), (243, 702, 27)] {
        b.extend((from..=to).step_by(step).map(|v| (v.to_string(), 0)));
    }
    b.push((">= 729".into(), 1));
    for (label, count) in &mut b {
        if ["27", "78", "81", "675"].contains(&label.as_str()) {
            *count = 1;
        }
    }
    assert_eq!(out, format!("\n{}", distribution(&b)));
}

/// With no data (cleared) an llquantize prints its first two buckets; normalize divides
/// the counts; rows sort by the weighted sum of their buckets.
#[test]
fn llquantize_cleared_normalized_and_sorted() {
    let out = quiet("BEGIN { @l = llquantize(5, 10, 0, 2, 10); clear(@l); exit(0); }");
    assert_eq!(out, format!("\n{}", distribution(&[("< 1", 0), ("1", 0)])));

    let out = quiet(
        r#"BEGIN { @l["big"] = llquantize(50, 10, 0, 2, 10); @l["big"] = llquantize(50, 10, 0, 2, 10);
                   @l["small"] = llquantize(2, 10, 0, 2, 10); @l["small"] = llquantize(2, 10, 0, 2, 10);
                   @l["small"] = llquantize(2, 10, 0, 2, 10); @l["small"] = llquantize(3, 10, 0, 2, 10);
                   normalize(@l, 2); exit(0); }"#,
    );
    // small: 3 in bucket 2 and 1 in bucket 3, halved to 1 and 0 (so bucket 3 is empty and
    // the table ends there); big: 2 in bucket 50, halved to 1. Sorted by the halved values.
    let small = distribution(&[("1", 0), ("2", 1), ("3", 0)]);
    let big = distribution(&[("40", 0), ("50", 1), ("60", 0)]);
    assert_eq!(out, format!("\n{}{small}{}{big}", str_col("small"), str_col("big")));
}

/// trunc() keeps the largest llquantize rows (by weighted sum); aggsortkey orders by key.
#[test]
fn llquantize_trunc_and_aggsortkey() {
    let prog = r#"BEGIN { @l["c"] = llquantize(5, 10, 0, 2, 10); @l["a"] = llquantize(50, 10, 0, 2, 10);
                          @l["b"] = llquantize(7, 10, 0, 2, 10); trunc(@l, 2); exit(0); }"#;
    let table = |v: u64| match v {
        5 => distribution(&[("4", 0), ("5", 1), ("6", 0)]),
        7 => distribution(&[("6", 0), ("7", 1), ("8", 0)]),
        _ => distribution(&[("40", 0), ("50", 1), ("60", 0)]),
    };
    // c (weight 5) is removed; b (7) then a (50).
    assert_eq!(quiet(prog), format!("\n{}{}{}{}", str_col("b"), table(7), str_col("a"), table(50)));
    let out = run(&["-q", "-x", "aggsortkey", "-e", prog]);
    out.assert_ok();
    assert_eq!(out.stdout, format!("\n{}{}{}{}", str_col("a"), table(50), str_col("b"), table(7)));
}

/// printa's %@ conversion prints an llquantize as its table.
#[test]
fn llquantize_in_printa_format() {
    let out = quiet(r#"BEGIN { @l[7] = llquantize(12, 10, 1, 2, 10); printa("k=%d%@d\n", @l); exit(0); }"#);
    let table = distribution(&[("< 10", 0), ("10", 1), ("20", 0)]);
    // The table ends with its last bucket line; the format's "\n" follows it.
    assert_eq!(out, format!("k=7{}\n\n", &table[..table.len() - 1]));
}
