//! printa() of several aggregations and the aggregation options (sort order, aggpack),
//! byte for byte (spec §7.5, §3.2, §8.5). Scripts run in BEGIN only, quiet, so the values are known. The expected text
//! follows DTrace's documented rules (illumos `dtrace_aggregate_walk_joined()`,
//! `dt_aggregate_bundlecmp()`, `dt_aggregate_keycmp()`, `dt_print_aggs()`):
//!
//! * one row per key any of the aggregations holds; a missing value is zero-filled data;
//! * a row without a format: the keys, then each value (`" %16lld"`), then `"\n"`;
//! * rows sorted by the first aggregation's value (or `aggsortpos`'s), then the next, ...,
//!   then by key;
//! * `%@` conversions take the values in order, the last one repeating.

mod common;

use common::{crumbs_cmd, int32_col, int_col, quiet, run, run_command, str_col, TIMEOUT};

/// A joined row: keys already formatted, then each value's column.
fn jrow(keys: &[String], values: &[i64]) -> String {
    let v: String = values.iter().map(|v| int_col(*v)).collect();
    format!("{}{v}\n", keys.concat())
}

/// A joined row with one string key.
fn srow(key: &str, values: &[i64]) -> String {
    jrow(&[str_col(key)], values)
}

/// `crumbs -q OPTS -e PROGRAM`, expected to succeed.
fn quiet_with(opts: &[&str], program: &str) -> String {
    let mut args = vec!["-q"];
    args.extend_from_slice(opts);
    args.extend(["-e", program]);
    let out = run(&args);
    out.assert_ok();
    out.stdout
}

const THREE: &str = r#"BEGIN {
    @a["x"] = count(); @a["x"] = count(); @a["x"] = count(); @a["y"] = count(); @a["z"] = count(); @a["z"] = count();
    @b["y"] = sum(10); @b["w"] = sum(-4); @b["z"] = sum(10);
    @c["x"] = avg(7); @c["x"] = avg(8);
}"#;

#[test]
fn joined_default_layout_with_missing_keys() {
    let out = quiet(&format!("{THREE} BEGIN {{ printa(@a, @b, @c); exit(0); }}"));
    // By @a: w (missing, 0), y 1, z 2, x 3. Missing values print 0 (avg of none too).
    let rows = [srow("w", &[0, -4, 0]), srow("y", &[1, 10, 0]), srow("z", &[2, 10, 0]), srow("x", &[3, 0, 7])];
    // printa() printed all three: the end prints only its newline.
    assert_eq!(out, format!("\n{}\n", rows.concat()));
}

#[test]
fn joined_with_a_format() {
    let out = quiet(&format!(
        r#"{THREE} BEGIN {{ printa("%-3s|%@d|%@d|%@d\n", @a, @b, @c); printa("%s %@d %@d %@d %@d\n", @a, @b); printa("%s\n", @a, @b); exit(0); }}"#
    ));
    let all = "w  |0|-4|0\ny  |1|10|0\nz  |2|10|0\nx  |3|0|7\n";
    // %@ past the last aggregation prints the last one's value again.
    let repeated = "w 0 -4 -4 -4\ny 1 10 10 10\nz 2 10 10 10\nx 3 0 0 0\n";
    // No %@: the keys only, still every key of both and in @a's order.
    let keys = "w\ny\nz\nx\n";
    assert_eq!(out, format!("{all}{repeated}{keys}\n"));
}

#[test]
fn missing_distribution_and_extremes_print_as_zero_data() {
    let out = quiet(
        r#"BEGIN { @n["a"] = min(-7); @m["b"] = max(9); @q["b"] = quantize(1);
                   printa(@n, @m); printa("%s %@d %@d\n", @n, @m); printa(@n, @q); exit(0); }"#,
    );
    let empty = "\n           value  ------------- Distribution ------------- count    \n              -1 |                                         0        \n               0 |                                         0        \n               1 |                                         0        \n";
    let one = "\n           value  ------------- Distribution ------------- count    \n               0 |                                         0        \n               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        \n               2 |                                         0        \n";
    let want = [
        // By @n: a -7 first; b has no min, so 0.
        format!("\n{}{}", srow("a", &[-7, 0]), srow("b", &[0, 9])),
        "a -7 0\nb 0 9\n".to_string(),
        // By @n again: a's quantize is missing (an empty table), b's min is 0.
        format!("\n{}{}{empty}\n{}{}{one}\n", str_col("a"), int_col(-7), str_col("b"), int_col(0)),
        "\n".to_string(),
    ];
    assert_eq!(out, want.concat());
}

#[test]
fn aggsortpos_picks_the_sorting_aggregation() {
    let prog = format!("{THREE} BEGIN {{ printa(\"%s %@d %@d\\n\", @a, @b); exit(0); }}");
    // @c, not printed by printa(), is printed at the end.
    let end = format!("\n{}", srow("x", &[7]));
    // By @b: w -4, x 0, then y and z tie at 10 and fall back to @a (1 < 2).
    let by_b = format!("w 0 -4\nx 3 0\ny 1 10\nz 2 10\n{end}");
    assert_eq!(quiet_with(&["-x", "aggsortpos=1"], &prog), by_b);
    assert_eq!(quiet(&format!("#pragma D option aggsortpos=1\n{prog}")), by_b);
    // Past the last aggregation: the first.
    let by_a = format!("w 0 -4\ny 1 10\nz 2 10\nx 3 0\n{end}");
    assert_eq!(quiet_with(&["-x", "aggsortpos=2"], &prog), by_a);
    assert_eq!(quiet_with(&["-x", "aggsortpos=0x1", "-x", "aggsortrev"], &prog), format!("z 2 10\ny 1 10\nx 3 0\nw 0 -4\n{end}"));
    assert_eq!(quiet_with(&["-x", "aggsortkey"], &prog), format!("w 0 -4\nx 3 0\ny 1 10\nz 2 10\n{end}"));
    // Not an error, and no effect, for one aggregation.
    assert_eq!(quiet_with(&["-x", "aggsortpos=1"], r#"BEGIN { @a["q"] = sum(2); @a["p"] = sum(1); printa(@a); exit(0); }"#), format!("\n{}{}\n", srow("p", &[1]), srow("q", &[2])));
}

#[test]
fn aggsortkeypos_picks_the_first_key_compared() {
    let prog = r#"BEGIN { @k["b", 1] = count(); @k["a", 2] = count(); @k["c", 0] = count(); @k["a", 3] = count(); @k["a", 3] = count(); exit(0); }"#;
    let r = |s: &str, n: i64, v: i64| jrow(&[str_col(s), int32_col(n)], &[v]);
    // By key from key 1 (the integer), then key 0.
    let by_int = [r("c", 0, 1), r("b", 1, 1), r("a", 2, 1), r("a", 3, 2)].concat();
    assert_eq!(quiet_with(&["-x", "aggsortkey", "-x", "aggsortkeypos=1"], prog), format!("\n{by_int}"));
    // Ties of value are broken from key 1 too.
    let ties = [r("c", 0, 1), r("b", 1, 1), r("a", 2, 1), r("a", 3, 2)].concat();
    assert_eq!(quiet_with(&["-x", "aggsortkeypos=1"], prog), format!("\n{ties}"));
    // Without it (or past the last key), key 0 first.
    let by_str = [r("a", 2, 1), r("a", 3, 2), r("b", 1, 1), r("c", 0, 1)].concat();
    assert_eq!(quiet_with(&["-x", "aggsortkey"], prog), format!("\n{by_str}"));
    assert_eq!(quiet_with(&["-x", "aggsortkey", "-x", "aggsortkeypos=2"], prog), format!("\n{by_str}"));
    assert_eq!(quiet_with(&["-x", "aggsortkey", "-x", "aggsortkeypos=yes"], prog), format!("\n{by_int}"));
}

#[test]
fn joined_keys_print_as_the_first_aggregation_has_them() {
    // Integer keys of different types join by value; @w (used first) prints them as its
    // 8-byte keys, @n's 4-byte ones would be narrower.
    let out = quiet("BEGIN { @w[(long)5] = count(); @n[5] = sum(2); @n[6] = sum(3); printa(@n, @w); exit(0); }");
    assert_eq!(out, format!("\n{}{}\n", jrow(&[int_col(5)], &[2, 1]), jrow(&[int32_col(6)], &[3, 0])));
    // The same aggregation twice.
    let out = quiet(r#"BEGIN { @a["k"] = count(); printa("%s %@d %@d\n", @a, @a); exit(0); }"#);
    assert_eq!(out, "k 1 1\n\n");
}

#[test]
fn joined_printa_marks_each_aggregation_printed() {
    // Printed by a joined printa: neither is printed again at the end; @f is. (printa()
    // reads the aggregations when its record is read, after the clause's last statement.)
    let out = quiet(r#"BEGIN /0/ { @e["y"] = count(); } BEGIN { @a["x"] = count(); printa(@a, @e); @e["x"] = count(); @f = count(); exit(0); }"#);
    assert_eq!(out, format!("\n{}\n{}", srow("x", &[1, 1]), jrow(&[], &[1])));
}

/// `crumbs -q -x aggpack -e PROGRAM` on a terminal called `term`.
fn packed(term: &str, program: &str) -> String {
    let mut cmd = crumbs_cmd(&["-q", "-x", "aggpack", "-e", program]);
    cmd.env("TERM", term);
    let out = run_command(cmd, None, TIMEOUT);
    out.assert_ok();
    out.stdout
}

const PACKED: &str = r#"BEGIN {
    @q["a"] = quantize(1); @q["a"] = quantize(1); @q["a"] = quantize(1); @q["a"] = quantize(4);
    @q["b"] = quantize(2); @q["b"] = quantize(2);
    @l[3] = lquantize(5, 0, 50, 10); @l[3] = lquantize(25, 0, 50, 10); @l[4] = lquantize(-5, 0, 50, 10);
    @c = count(); @z = quantize(0);
    printa(@q); exit(0);
}"#;

/// spec §3.2: aggpack packs quantize and lquantize values on one line, after a header per
/// aggregation; ASCII on a `dumb` terminal.
#[test]
fn aggpack_ascii() {
    let want = [
        // printa(@q): its "\n", the header (buckets 0 to 8 for both rows), b (2 in bucket 2:
        // 7 of 7, "X"), a (3 of 4 in bucket 1: 5.25, "x"; 1 of 4 in bucket 4: 1.75, "x").
        "\n",
        "\n              key  min .-----. max  | count\n",
        "                b    0 :  X  : 8    | 2\n",
        "                a    0 : x x : 8    | 4\n",
        // The end: "\n", then @l (all 7 buckets), @c as always, @z (the zero bucket is the
        // lowest: no bucket below it).
        "\n",
        "\n      key     min .-------. max      | count\n",
        "        4     < 0 :X      : >= 50    | 1\n",
        "        3     < 0 : x x   : >= 50    | 2\n",
        "                1\n",
        "\n  min .--. max  | count\n",
        "    0 :X : 1    | 1\n",
    ];
    assert_eq!(packed("dumb", PACKED), want.concat());
}

/// On other terminals the buckets are the Unicode blocks U+2581 to U+2588.
#[test]
fn aggpack_unicode() {
    let out = packed("xterm-256color", PACKED);
    assert!(out.contains("\n                b    0 :  \u{2588}  : 8    | 2\n                a    0 : \u{2586} \u{2583} : 8    | 4\n"), "{out}");
    assert!(out.contains("\n        3     < 0 : \u{2585} \u{2585}   : >= 50    | 2\n"), "{out}");
}

/// aggpack leaves printa() with a format, printa() of several aggregations and llquantize
/// as they are.
#[test]
fn aggpack_leaves_other_layouts() {
    let out = packed(
        "dumb",
        r#"BEGIN { @q[1] = quantize(1); @s[1] = sum(2); @ll = llquantize(5, 10, 0, 1, 10);
                   printa("%d%@d\n", @q); printa(@q, @s); exit(0); }"#,
    );
    let table = "\n           value  ------------- Distribution ------------- count    \n               0 |                                         0        \n               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        \n               2 |                                         0        \n";
    let ll = "\n           value  ------------- Distribution ------------- count    \n               4 |                                         0        \n               5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        \n               6 |                                         0        \n";
    let want = format!("1{table}\n\n{}{table}{}\n\n{ll}\n", int32_col(1), int_col(2));
    assert_eq!(out, want);
}
