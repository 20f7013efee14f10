//! DTrace's `aggpack` option: a quantize or lquantize value packed on its row's line, one
//! character per bucket (illumos `dt_consume.c`: `dt_print_quanthdr_packed()`,
//! `dt_print_quantize_packed()`, `dt_print_lquantize_packed()`, `dt_print_packed()`,
//! `dt_ndigits()`, and the bucket range of `dt_aggregate_minmaxbin()`).
//!
//! Before an aggregation's first row, a header: `"\n"`, `"key"` right-aligned over the key
//! columns (nothing without keys), a space, `"min"` right-aligned in the width of the
//! lowest bucket's label, `" ."`, one `-` per bucket, `". "`, `"max"` left-aligned in the
//! width of the highest bucket's label, `" | count\n"`.
//!
//! A row: its keys (integers as without aggpack; a string right-aligned in 16 columns after
//! one space), then for quantize `" %*d :"` of the lowest bucket's label, the buckets, then
//! `": %-*d | %d\n"` of the highest bucket's label and the total count; for lquantize
//! `"%8s :"` of `"< base"`, every bucket, `": %-8s | %d\n"` of `">= limit"` and the count.
//! A bucket is a space when empty, else `round(7 · count / total)` picking one of
//! `▁▂▃▄▅▆▇█` (U+2581–U+2588), or of `__xxxxXX` on a terminal that cannot show them.
//!
//! quantize's buckets are the same for every row of the aggregation: from one below the
//! lowest non-empty bucket of any row (not below the zero bucket when that is the lowest)
//! to one above the highest; lquantize shows all of its buckets. Other functions print as
//! without aggpack, and so do printa() with a format and printa() of several aggregations.

use super::aggregation::{self, column, lquantize_levels};
use super::printf::pad;
use super::{AggRow, Value};
use crumbs_lang::ir::agg::quantize::{bucket_value, count_at, BUCKETS, ZERO_BUCKET};
use crumbs_lang::ir::agg::Summary;

/// Whether the value is one aggpack packs.
pub fn packs(row: &AggRow) -> bool {
    matches!(row.data.summary(), Summary::Log2(_) | Summary::Linear { .. })
}

/// Whether DTrace would draw packed buckets with Unicode blocks on the terminal `TERM`
/// names (it keeps to ASCII on `sun`, `sun-color` and `dumb`).
pub fn unicode_terminal(term: Option<&str>) -> bool {
    !matches!(term, Some("sun" | "sun-color" | "dumb"))
}

/// The header, then each row (already in order), of one aggregation whose rows [`packs`].
pub fn print_rows(out: &mut String, rows: &[&AggRow], unicode: bool) {
    let Some(first) = rows.first() else { return };
    let bins = quantize_bins(rows);
    let width: usize = first.keys.iter().map(|k| key_width(k) + 1).sum();
    let (min, max, buckets) = match first.data.summary() {
        Summary::Linear { base, limit, step, buckets } => (7, 8, lquantize_levels(base, limit, step, buckets) + 2),
        _ => (ndigits(bucket_value(bins.0)), ndigits(bucket_value(bins.1)), bins.1 - bins.0 + 1),
    };
    let key = if width > 0 { "key" } else { "" };
    out.push_str(&format!("\n{key:>width$} {:>min$} .{}. {:<max$} | count\n", "min", "-".repeat(buckets), "max"));
    for row in rows {
        for key in &row.keys {
            print_key(out, key);
        }
        let (low, counts, high) = parts(&row.data.summary(), bins);
        out.push_str(&low);
        out.push_str(" :");
        print_buckets(out, &counts, unicode);
        let count = counts.iter().fold(0u64, |s, c| s.wrapping_add(*c)) as i64;
        out.push_str(&format!(": {high} | {count}\n"));
    }
}

/// A row's packed value: the label before the buckets and the one after them, as printed,
/// and the counts of the buckets shown.
fn parts(s: &Summary, (lo, hi): (usize, usize)) -> (String, Vec<u64>, String) {
    match *s {
        Summary::Linear { base, limit, step, buckets } => {
            let levels = lquantize_levels(base, limit, step, buckets);
            let over = base.saturating_add((levels as i64).saturating_mul(step));
            let counts = (0..levels + 2).map(|i| count_at(buckets, i)).collect();
            (format!("{:>8}", format!("< {base}")), counts, format!("{:<8}", format!(">= {over}")))
        }
        Summary::Log2(buckets) => {
            let (low, high) = (bucket_value(lo), bucket_value(hi));
            let counts = (lo..=hi).map(|i| count_at(buckets, i)).collect();
            (format!(" {low:>0$}", ndigits(low)), counts, format!("{high:<0$}", ndigits(high)))
        }
        _ => (String::new(), Vec::new(), String::new()),
    }
}

/// The first and last quantize bucket shown for every row (`dt_aggregate_minmaxbin()`,
/// widened as `dt_print_quantize_packed()` widens it).
fn quantize_bins(rows: &[&AggRow]) -> (usize, usize) {
    let (mut lo, mut hi) = (usize::MAX, 0);
    for row in rows {
        if let Summary::Log2(b) = row.data.summary() {
            let first = (0..BUCKETS).find(|&i| count_at(b, i) != 0).unwrap_or(ZERO_BUCKET);
            let last = (0..BUCKETS).rev().find(|&i| count_at(b, i) != 0).unwrap_or(ZERO_BUCKET);
            (lo, hi) = (lo.min(first), hi.max(last));
        }
    }
    if lo == usize::MAX {
        return (ZERO_BUCKET, ZERO_BUCKET);
    }
    if lo != 0 && lo != ZERO_BUCKET {
        lo -= 1;
    }
    (lo, (hi + 1).min(BUCKETS - 1))
}

/// One character per bucket (`dt_print_packed()`).
fn print_buckets(out: &mut String, counts: &[u64], unicode: bool) {
    let total: u128 = counts.iter().map(|c| *c as u128).sum();
    for &c in counts {
        if c == 0 {
            out.push(' ');
            continue;
        }
        // (uint)(7 * count / total + 0.5), exactly.
        let level = ((14 * c as u128 + total) / (2 * total)).min(7) as usize;
        out.push(if unicode { char::from_u32(0x2581 + level as u32).unwrap_or('#') } else { b"__xxxxXX"[level] as char });
    }
}

/// Columns a key takes, without its leading space (`dt_print_datum()`'s packed widths).
fn key_width(key: &Value) -> usize {
    match key {
        Value::Int(_, r) => column(r.size),
        _ => 16,
    }
}

fn print_key(out: &mut String, key: &Value) {
    match key {
        // A packed row's string key is narrower than an unpacked one's.
        Value::Str(s) => {
            out.push(' ');
            pad(out, s, s.len(), 16, false);
        }
        k => aggregation::print_key(out, k),
    }
}

/// `dt_ndigits()`: the columns DTrace gives a bucket label, at least 4 (it counts an exact
/// power of ten one digit short, and so do we).
fn ndigits(v: i64) -> usize {
    let mut n = 1;
    let mut v = v;
    if v < 0 {
        v = if v == i64::MIN { i64::MAX } else { -v };
        n += 1;
    }
    let mut cmp: i64 = 10;
    while v > cmp && cmp > 0 {
        n += 1;
        cmp = cmp.wrapping_mul(10);
    }
    n.max(4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::AggData;
    use crumbs_lang::ir::agg::{self, AggKind};

    fn quantize(samples: &[(usize, u64)]) -> AggData {
        let mut words = vec![0; BUCKETS];
        for (i, c) in samples {
            words[*i] = *c;
        }
        AggData { kind: AggKind::new(&agg::quantize::Quantize, vec![]), words }
    }

    #[test]
    fn digits_as_dtrace_counts_them() {
        assert_eq!([ndigits(0), ndigits(10), ndigits(99999), ndigits(100000), ndigits(1 << 40), ndigits(-1), ndigits(i64::MIN)], [4, 4, 5, 5, 13, 4, 20]);
    }

    #[test]
    fn quantize_rows_share_their_buckets() {
        // Row a: values 1 (x3) and 4; row b: 2. Buckets 0 (one below 1) to 8 (one above 4).
        let a = AggRow { keys: vec![Value::Str("a".into())], data: quantize(&[(ZERO_BUCKET + 1, 3), (ZERO_BUCKET + 3, 1)]) };
        let b = AggRow { keys: vec![Value::Str("b".into())], data: quantize(&[(ZERO_BUCKET + 2, 2)]) };
        let mut out = String::new();
        print_rows(&mut out, &[&b, &a], false);
        let want = concat!(
            "\n              key  min .-----. max  | count\n",
            "                b    0 :  X  : 8    | 2\n",
            "                a    0 : x x : 8    | 4\n",
        );
        assert_eq!(out, want);
        let mut out = String::new();
        print_rows(&mut out, &[&a], true);
        assert!(out.ends_with("                a    0 : ▆ ▃ : 8    | 4\n"), "{out}");
    }
}
