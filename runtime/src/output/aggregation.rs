//! Printing one aggregation the way DTrace does at exit and for `printa(@a)`.
//!
//! Sources: illumos libdtrace `dt_consume.c` (`dt_print_aggs()`, `dt_print_datum()`,
//! `dt_print_bytes()`, `dt_print_quantize()`, `dt_print_lquantize()`,
//! `dt_print_quantline()`, `dt_print_average()`), `dt_aggregate.c` (the sort
//! comparators) and `cmd/dtrace/dtrace.c` (`main()`).
//!
//! Layout of one row (`dt_print_aggs()`):
//!
//! * each key: an integer as `" %16lld"`, a string as `"  %-50s"` (`dt_print_bytes()` with
//!   width -50);
//! * the value: `count`, `sum`, `min`, `max` as `" %16lld"`; `avg` as `" %16lld"` of
//!   `sum / count` (integer division, 0 when the count is 0; `dt_print_average()`);
//!   `quantize`/`lquantize` as a table (below);
//! * then `"\n"`.
//!
//! A distribution table is `"\n%16s %41s %-9s\n"` of `"value"`,
//! `"------------- Distribution -------------"`, `"count"`, then one line per bucket:
//! the bucket label as `"%16lld "` (lquantize: `"< base"` and `">= limit"` as `"%16s "`),
//! then `"|"`, `depth` `@`s, `40 - depth` spaces, `" %-9lld\n"` of the count, where
//! `depth = (uint)(count * 40 / total + 0.5)` and `total` is the sum of the counts of the
//! printed buckets (`dt_print_quantline()`). The printed buckets run from one before the
//! first non-zero bucket to one after the last non-zero bucket (clamped to the bucket
//! range); with no data at all, quantize prints the buckets -1, 0, 1 and lquantize its
//! first three buckets. Because the row's `"\n"` follows the table, a distribution row
//! ends with an empty line, and a keyed one starts with the padded key on its own line.
//!
//! Order (`dt_aggregate_varvalcmp()` → `dt_aggregate_valkeycmp()`): by value ascending,
//! ties by key ascending. Values compare as signed 64-bit (`avg` by its integer average;
//! `quantize` by the sum of bucket value × count over all buckets, then by the zero
//! bucket's count; `lquantize` likewise with the weights `base - 1` for the underflow
//! bucket, `base + i*step` for bucket `i` and `base + levels*step + 1` for the overflow
//! bucket, then by the count of the bucket whose weight is 0). Keys compare position by
//! position: integers as *unsigned* 64-bit values (so -1 sorts after every non-negative
//! key, as DTrace's own test `tst.signedkeys.d` documents), strings bytewise.
//!
//! Blank lines: `printa(@a)` prints `"\n"` and then the rows. At exit, `dtrace(1M)`
//! prints one `"\n"` when tracing stops (even when quiet) and then every non-empty
//! aggregation, in declaration order, with nothing between them. So
//! [`print_aggregation`] (blank line + rows) is right for `printa(@a)` and for an exit
//! with one aggregation; with several, print [`super::record::end_of_tracing`] once and
//! then [`print_rows`] for each.

use std::cmp::Ordering;

use super::printf::{pad, push_n};
use super::{AggData, AggRow, Value};

/// Index of the zero bucket of [`AggData::Quantize`].
pub const QUANTIZE_ZERO_BUCKET: usize = 63;
/// Number of buckets of [`AggData::Quantize`].
pub const QUANTIZE_NBUCKETS: usize = 127;

const BAR_WIDTH: u64 = 40;
const DISTRIBUTION: &str = "------------- Distribution -------------";

/// Print one aggregation as `printa(@a)` with no format does (and as DTrace's exit does
/// when there is a single aggregation): a blank line, then the rows in DTrace's default
/// order. Prints nothing at all if `rows` is empty (DTrace's exit skips empty
/// aggregations; note that DTrace's `printa()` of an empty aggregation still prints the
/// lone `"\n"`).
pub fn print_aggregation(out: &mut String, rows: &[AggRow]) {
    print_aggregation_in(out, rows, Order::default());
}

/// [`print_aggregation`] in the given order.
pub fn print_aggregation_in(out: &mut String, rows: &[AggRow], order: Order) {
    if rows.is_empty() {
        return;
    }
    out.push('\n');
    print_rows_in(out, rows, order);
}

/// Print the rows of one aggregation in DTrace's default order, without the leading
/// blank line.
pub fn print_rows(out: &mut String, rows: &[AggRow]) {
    print_rows_in(out, rows, Order::default());
}

/// [`print_rows`] in the given order.
pub fn print_rows_in(out: &mut String, rows: &[AggRow], order: Order) {
    for row in sort_rows_by(rows, order) {
        print_row(out, row);
    }
}

/// The order rows print in: DTrace's options `aggsortkey` (by key first, then value) and
/// `aggsortrev` (reversed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Order {
    pub by_key: bool,
    pub reverse: bool,
}

/// The rows in DTrace's default order: value ascending, then key ascending.
pub fn sort_rows(rows: &[AggRow]) -> Vec<&AggRow> {
    sort_rows_by(rows, Order::default())
}

/// The rows in the given order.
pub fn sort_rows_by(rows: &[AggRow], order: Order) -> Vec<&AggRow> {
    let mut sorted: Vec<&AggRow> = rows.iter().collect();
    sorted.sort_by(|a, b| {
        let o = if order.by_key {
            a.keys.len().cmp(&b.keys.len()).then_with(|| compare_keys(&a.keys, &b.keys)).then_with(|| compare_values(&a.data, &b.data))
        } else {
            compare_rows(a, b)
        };
        if order.reverse { o.reverse() } else { o }
    });
    sorted
}

/// DTrace's default comparison of two rows of the same aggregation: fewer keys first
/// (`dt_aggregate_hashcmp()`), then by value, then by key.
pub fn compare_rows(a: &AggRow, b: &AggRow) -> Ordering {
    a.keys
        .len()
        .cmp(&b.keys.len())
        .then_with(|| compare_values(&a.data, &b.data))
        .then_with(|| compare_keys(&a.keys, &b.keys))
}

/// DTrace's value comparison (`dt_aggregate_valcmp()`).
pub fn compare_values(a: &AggData, b: &AggData) -> Ordering {
    use AggData::*;
    match (a, b) {
        (Count(x), Count(y)) => (*x as i64).cmp(&(*y as i64)),
        (Sum(x), Sum(y)) | (Min(x), Min(y)) | (Max(x), Max(y)) => x.cmp(y),
        (Avg { count: c1, sum: s1 }, Avg { count: c2, sum: s2 }) => {
            average(*c1, *s1).cmp(&average(*c2, *s2))
        }
        (Stddev { count: c1, sum: s1, squares: q1 }, Stddev { count: c2, sum: s2, squares: q2 }) => {
            stddev(*c1, *s1, *q1).cmp(&stddev(*c2, *s2, *q2))
        }
        (Quantize(x), Quantize(y)) => {
            let (sx, zx) = quantize_weight(x);
            let (sy, zy) = quantize_weight(y);
            sx.cmp(&sy).then(zx.cmp(&zy))
        }
        (
            Lquantize {
                base: b1,
                step: st1,
                buckets: k1,
                ..
            },
            Lquantize {
                base: b2,
                step: st2,
                buckets: k2,
                ..
            },
        ) => {
            let (sx, zx) = lquantize_weight(*b1, *st1, k1);
            let (sy, zy) = lquantize_weight(*b2, *st2, k2);
            sx.cmp(&sy).then(zx.cmp(&zy))
        }
        // Different aggregating functions never share an aggregation; order them by kind
        // so that sorting stays total.
        _ => kind(a).cmp(&kind(b)),
    }
}

/// DTrace's key comparison (`dt_aggregate_keycmp()`): position by position; integers as
/// unsigned 64-bit values, strings bytewise, an integer before a string.
/// Order between keys of different kinds (only mixed in hand-made rows).
fn rank(v: &Value) -> u8 {
    match v {
        Value::Int(_) => 0,
        Value::Str(_) => 1,
        Value::Stack(_) => 2,
    }
}

pub fn compare_keys(a: &[Value], b: &[Value]) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| {
        for (x, y) in a.iter().zip(b) {
            let o = match (x, y) {
                (Value::Int(x), Value::Int(y)) => (*x as u64).cmp(&(*y as u64)),
                (Value::Str(x), Value::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
                (Value::Stack(x), Value::Stack(y)) => x.cmp(y),
                (x, y) => rank(x).cmp(&rank(y)),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    })
}

fn kind(d: &AggData) -> u8 {
    match d {
        AggData::Count(_) => 0,
        AggData::Sum(_) => 1,
        AggData::Min(_) => 2,
        AggData::Max(_) => 3,
        AggData::Avg { .. } => 4,
        AggData::Stddev { .. } => 7,
        AggData::Quantize(_) => 5,
        AggData::Lquantize { .. } => 6,
    }
}

/// `stddev()`'s printed and compared value, as DTrace's dt_stddev computes it: the integer
/// square root of (sum of squares / count) - (sum / count)^2, 0 for no samples.
pub fn stddev(count: u64, sum: i64, squares: u128) -> i64 {
    if count == 0 {
        return 0;
    }
    let mean_of_squares = squares / count as u128;
    let mean = (sum / count as i64).unsigned_abs() as u128;
    let var = mean_of_squares.saturating_sub(mean * mean);
    // Integer square root: a float estimate, corrected to the exact floor.
    if var == 0 {
        return 0;
    }
    let mut x = (var as f64).sqrt() as u128;
    while x * x > var {
        x -= 1;
    }
    while (x + 1) * (x + 1) <= var {
        x += 1;
    }
    x as i64
}

/// `avg()`'s printed and compared value: `sum / count` truncated, 0 for no samples.
pub fn average(count: u64, sum: i64) -> i64 {
    if count == 0 {
        0
    } else {
        sum.checked_div(count as i64).unwrap_or(0)
    }
}

/// DTrace's quantize bucket value (`DTRACE_QUANTIZE_BUCKETVAL`): the lower bound of a
/// bucket in magnitude; 0 for the zero bucket, `2^k` for bucket `64+k`, `-2^k` for
/// bucket `62-k`.
pub fn quantize_bucket_value(i: usize) -> i64 {
    match i.cmp(&QUANTIZE_ZERO_BUCKET) {
        Ordering::Less => -(1i64 << (QUANTIZE_ZERO_BUCKET - 1 - i).min(63)),
        Ordering::Equal => 0,
        Ordering::Greater => 1i64 << (i - QUANTIZE_ZERO_BUCKET - 1).min(62),
    }
}

fn count_at(buckets: &[u64], i: usize) -> u64 {
    buckets.get(i).copied().unwrap_or(0)
}

/// (Σ bucket value × count, zero bucket count) — `dt_aggregate_quantizedcmp()`.
fn quantize_weight(buckets: &[u64]) -> (i128, i128) {
    let mut total: i128 = 0;
    for i in 0..QUANTIZE_NBUCKETS {
        let c = count_at(buckets, i) as i64 as i128;
        total = total.saturating_add(quantize_bucket_value(i) as i128 * c);
    }
    (
        total,
        count_at(buckets, QUANTIZE_ZERO_BUCKET) as i64 as i128,
    )
}

/// Number of linear buckets (DTrace's `levels`) of an lquantize.
fn lquantize_levels(base: i64, limit: i64, step: i64, buckets: &[u64]) -> usize {
    if buckets.len() >= 3 {
        buckets.len() - 2
    } else if step > 0 && limit > base {
        (((limit - base) / step).max(1)) as usize
    } else {
        1
    }
}

/// (weighted sum, count of the zero-weight bucket) — `dt_aggregate_lquantizedsum()` and
/// `dt_aggregate_lquantizedzero()`.
fn lquantize_weight(base: i64, step: i64, buckets: &[u64]) -> (i128, i128) {
    let levels = buckets.len().saturating_sub(2);
    let c = |i: usize| count_at(buckets, i) as i64 as i128;
    let (base, step) = (base as i128, step as i128);
    let mut total = c(0).saturating_mul(base - 1);
    let mut zero = if base - 1 == 0 { Some(c(0)) } else { None };
    for i in 0..levels {
        let w = base + i as i128 * step;
        total = total.saturating_add(c(i + 1).saturating_mul(w));
        if w == 0 && zero.is_none() {
            zero = Some(c(i + 1));
        }
    }
    let over = base + levels as i128 * step + 1;
    total = total.saturating_add(c(levels + 1).saturating_mul(over));
    if over == 0 && zero.is_none() {
        zero = Some(c(levels + 1));
    }
    (total, zero.unwrap_or(0))
}

/// Rows with their values divided by `n` (normalize(); 1 leaves them as they are). Counts of
/// distributions are divided too, as DTrace's dt_print_quantline does.
pub fn normalized(mut rows: Vec<AggRow>, n: i64) -> Vec<AggRow> {
    if n <= 1 {
        return rows;
    }
    for row in &mut rows {
        row.data = match std::mem::replace(&mut row.data, AggData::Count(0)) {
            AggData::Count(c) => AggData::Count(c / n as u64),
            AggData::Sum(v) => AggData::Sum(v / n),
            AggData::Min(v) => AggData::Min(v / n),
            AggData::Max(v) => AggData::Max(v / n),
            AggData::Avg { count, sum } => AggData::Avg { count, sum: sum / n },
            AggData::Stddev { count, sum, squares } => AggData::Stddev { count, sum: sum / n, squares: squares / (n as u128 * n as u128) },
            AggData::Quantize(b) => AggData::Quantize(b.into_iter().map(|c| c / n as u64).collect()),
            AggData::Lquantize { base, limit, step, buckets } => AggData::Lquantize { base, limit, step, buckets: buckets.into_iter().map(|c| c / n as u64).collect() },
        };
    }
    rows
}

/// The value printa's `%@` conversions print: the number, or a distribution's table.
pub fn value_of(data: &AggData) -> Value {
    match data {
        AggData::Count(n) => Value::Int(*n as i64),
        AggData::Sum(n) | AggData::Min(n) | AggData::Max(n) => Value::Int(*n),
        AggData::Avg { count, sum } => Value::Int(average(*count, *sum)),
        AggData::Stddev { count, sum, squares } => Value::Int(stddev(*count, *sum, *squares)),
        AggData::Quantize(buckets) => {
            let mut s = String::new();
            print_quantize(&mut s, buckets);
            Value::Str(s)
        }
        AggData::Lquantize { base, limit, step, buckets } => {
            let mut s = String::new();
            print_lquantize(&mut s, *base, *limit, *step, buckets);
            Value::Str(s)
        }
    }
}

/// Print one row: its keys, its value, `"\n"`.
pub fn print_row(out: &mut String, row: &AggRow) {
    for key in &row.keys {
        print_key(out, key);
    }
    match &row.data {
        AggData::Count(n) => print_i64(out, *n as i64),
        AggData::Sum(n) | AggData::Min(n) | AggData::Max(n) => print_i64(out, *n),
        AggData::Avg { count, sum } => print_i64(out, average(*count, *sum)),
        AggData::Stddev { count, sum, squares } => print_i64(out, stddev(*count, *sum, *squares)),
        AggData::Quantize(buckets) => print_quantize(out, buckets),
        AggData::Lquantize {
            base,
            limit,
            step,
            buckets,
        } => print_lquantize(out, *base, *limit, *step, buckets),
    }
    out.push('\n');
}

/// A key column: `" %16lld"` or `"  %-50s"`.
fn print_key(out: &mut String, key: &Value) {
    match key {
        Value::Int(n) => print_i64(out, *n),
        Value::Str(s) => {
            push_n(out, ' ', 2);
            pad(out, s, s.len(), 50, true);
        }
        Value::Stack(frames) => out.push_str(&Value::stack_text(frames)),
    }
}

/// `" %16lld"`.
fn print_i64(out: &mut String, n: i64) {
    let s = n.to_string();
    out.push(' ');
    pad(out, &s, s.len(), 16, false);
}

fn print_table_header(out: &mut String) {
    out.push('\n');
    pad(out, "value", 5, 16, false);
    out.push(' ');
    pad(out, DISTRIBUTION, DISTRIBUTION.len(), 41, false);
    out.push(' ');
    pad(out, "count", 5, 9, true);
    out.push('\n');
}

/// One `dt_print_quantline()` line after its label: `"|"`, the bar, `" %-9lld\n"`.
fn print_bar(out: &mut String, count: u64, total: u128) {
    let depth = if total == 0 {
        0
    } else {
        // (uint)(count * 40 / total + 0.5), in exact arithmetic.
        let d = (2 * count as u128 * BAR_WIDTH as u128 + total) / (2 * total);
        d.min(BAR_WIDTH as u128) as usize
    };
    out.push('|');
    push_n(out, '@', depth);
    push_n(out, ' ', BAR_WIDTH as usize - depth);
    out.push(' ');
    let c = (count as i64).to_string();
    pad(out, &c, c.len(), 9, true);
    out.push('\n');
}

/// The first and last bucket to print (`dt_print_quantize()`/`dt_print_lquantize()`):
/// one zero bucket around the non-zero ones; `None` when every bucket is zero.
fn bucket_range(n: usize, counts: impl Fn(usize) -> u64) -> Option<(usize, usize)> {
    let first = (0..n).find(|&i| counts(i) != 0)?;
    let last = (0..n).rev().find(|&i| counts(i) != 0)?;
    Some((first.saturating_sub(1), (last + 1).min(n - 1)))
}

fn print_quantize(out: &mut String, buckets: &[u64]) {
    let n = QUANTIZE_NBUCKETS;
    // DTrace scans for the first non-zero bucket below the last one; data only in the
    // last bucket (values >= 2^62) is treated like no data.
    let range = if (0..n - 1).all(|i| count_at(buckets, i) == 0) {
        None
    } else {
        bucket_range(n, |i| count_at(buckets, i))
    };
    let (first, last) = range.unwrap_or((QUANTIZE_ZERO_BUCKET - 1, QUANTIZE_ZERO_BUCKET + 1));
    let total: u128 = (first..=last).map(|i| count_at(buckets, i) as u128).sum();

    print_table_header(out);
    for i in first..=last {
        let label = quantize_bucket_value(i).to_string();
        pad(out, &label, label.len(), 16, false);
        out.push(' ');
        print_bar(out, count_at(buckets, i), total);
    }
}

fn print_lquantize(out: &mut String, base: i64, limit: i64, step: i64, buckets: &[u64]) {
    let levels = lquantize_levels(base, limit, step, buckets);
    let n = levels + 2;
    let (first, last) = bucket_range(n, |i| count_at(buckets, i)).unwrap_or((0, 2.min(n - 1)));
    let total: u128 = (first..=last).map(|i| count_at(buckets, i) as u128).sum();

    print_table_header(out);
    for i in first..=last {
        let label = if i == 0 {
            format!("< {base}")
        } else if i == levels + 1 {
            format!(
                ">= {}",
                base.saturating_add((levels as i64).saturating_mul(step))
            )
        } else {
            base.saturating_add((i as i64 - 1).saturating_mul(step))
                .to_string()
        };
        pad(out, &label, label.len(), 16, false);
        out.push(' ');
        print_bar(out, count_at(buckets, i), total);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(keys: Vec<Value>, data: AggData) -> AggRow {
        AggRow { keys, data }
    }
    fn s(v: &str) -> Value {
        Value::Str(v.into())
    }
    fn i(n: i64) -> Value {
        Value::Int(n)
    }
    fn printed(rows: &[AggRow]) -> String {
        let mut out = String::new();
        print_aggregation(&mut out, rows);
        out
    }

    /// Quantize buckets from (value, count) pairs, bucketed as DTrace does.
    fn quantize(samples: &[(i64, u64)]) -> AggData {
        let mut b = vec![0u64; QUANTIZE_NBUCKETS];
        for &(v, c) in samples {
            let idx = if v == 0 {
                QUANTIZE_ZERO_BUCKET
            } else if v > 0 {
                QUANTIZE_ZERO_BUCKET + 1 + (63 - v.leading_zeros() as usize)
            } else {
                // DTrace's bucket 0 holds everything <= -2^62.
                let m = v.unsigned_abs();
                (QUANTIZE_ZERO_BUCKET - 1).saturating_sub(63 - m.leading_zeros() as usize)
            };
            b[idx] += c;
        }
        AggData::Quantize(b)
    }

    const HEADER: &str = "           value  ------------- Distribution ------------- count    \n";

    #[test]
    fn empty_prints_nothing() {
        assert_eq!(printed(&[]), "");
        let mut out = String::new();
        print_rows(&mut out, &[]);
        assert_eq!(out, "");
        assert!(sort_rows(&[]).is_empty());
    }

    #[test]
    fn count_with_string_keys() {
        let rows = vec![
            row(vec![s("sshd")], AggData::Count(12)),
            row(vec![s("bash")], AggData::Count(3)),
            row(vec![s("dtrace")], AggData::Count(1234)),
            row(vec![s("awk")], AggData::Count(3)),
        ];
        let want = concat!(
            "\n",
            "  awk                                                               3\n",
            "  bash                                                              3\n",
            "  sshd                                                             12\n",
            "  dtrace                                                         1234\n",
        );
        assert_eq!(printed(&rows), want);
    }

    #[test]
    fn long_string_key_is_not_truncated() {
        let k = "k".repeat(55);
        let want = format!("\n  {k}                1\n");
        assert_eq!(printed(&[row(vec![s(&k)], AggData::Count(1))]), want);
    }

    #[test]
    fn two_keys_string_and_int() {
        let rows = vec![
            row(vec![s("bash"), i(100)], AggData::Count(5)),
            row(vec![s("bash"), i(7)], AggData::Count(5)),
            row(vec![s("sh"), i(-1)], AggData::Count(2)),
            row(vec![s("sh"), i(3)], AggData::Count(2)),
        ];
        let want = concat!(
            "\n",
            "  sh                                                                3                2\n",
            "  sh                                                               -1                2\n",
            "  bash                                                              7                5\n",
            "  bash                                                            100                5\n",
        );
        assert_eq!(printed(&rows), want);
    }

    #[test]
    fn integer_keys_sort_unsigned() {
        // tst.signedkeys.d (aggsortkey there; here equal values fall back to the key).
        let rows: Vec<AggRow> = [-2, -1, 0, 1, 2]
            .iter()
            .map(|&k| row(vec![i(k)], AggData::Count(1)))
            .collect();
        let want = concat!(
            "\n",
            "                0                1\n",
            "                1                1\n",
            "                2                1\n",
            "               -2                1\n",
            "               -1                1\n",
        );
        assert_eq!(printed(&rows), want);
    }

    #[test]
    fn no_key() {
        assert_eq!(
            printed(&[row(vec![], AggData::Count(10))]),
            "\n               10\n"
        );
        assert_eq!(
            printed(&[row(vec![], AggData::Sum(12345678))]),
            "\n         12345678\n"
        );
        assert_eq!(
            printed(&[row(vec![], AggData::Max(-100))]),
            "\n             -100\n"
        );
    }

    #[test]
    fn sum_with_negative_values() {
        let rows = vec![
            row(vec![s("read")], AggData::Sum(4096)),
            row(vec![s("write")], AggData::Sum(-20)),
            row(vec![s("close")], AggData::Sum(0)),
            row(vec![s("lseek")], AggData::Sum(i64::MIN)),
        ];
        let want = concat!(
            "\n",
            "  lseek                                              -9223372036854775808\n",
            "  write                                                           -20\n",
            "  close                                                             0\n",
            "  read                                                           4096\n",
        );
        assert_eq!(printed(&rows), want);
    }

    #[test]
    fn avg_is_integer_division_and_sorts_by_average() {
        let rows = vec![
            row(vec![s("a")], AggData::Avg { count: 3, sum: 10 }), // 3
            row(vec![s("b")], AggData::Avg { count: 2, sum: 5 }),  // 2
            row(vec![s("c")], AggData::Avg { count: 2, sum: -5 }), // -2 (truncated)
            row(vec![s("d")], AggData::Avg { count: 0, sum: 0 }),  // 0
            row(vec![s("e")], AggData::Avg { count: 1, sum: 100 }), // 100
        ];
        let want = concat!(
            "\n",
            "  c                                                                -2\n",
            "  d                                                                 0\n",
            "  b                                                                 2\n",
            "  a                                                                 3\n",
            "  e                                                               100\n",
        );
        assert_eq!(printed(&rows), want);
    }

    #[test]
    fn min_and_max() {
        let rows = vec![
            row(vec![i(2)], AggData::Min(-5)),
            row(vec![i(1)], AggData::Min(7)),
        ];
        let want = concat!(
            "\n",
            "                2               -5\n",
            "                1                7\n",
        );
        assert_eq!(printed(&rows), want);
        let rows = vec![
            row(vec![s("x")], AggData::Max(1 << 40)),
            row(vec![s("y")], AggData::Max(-1)),
        ];
        let want = concat!(
            "\n",
            "  y                                                                -1\n",
            "  x                                                     1099511627776\n",
        );
        assert_eq!(printed(&rows), want);
    }

    #[test]
    fn quantize_small_values() {
        // @ = quantize(x) for x in {0, 1, 2, 3, 4, 100}; total 6.
        let q = quantize(&[(0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (100, 1)]);
        let want = [
            "\n",
            HEADER,
            "              -1 |                                         0        \n",
            "               0 |@@@@@@@                                  1        \n",
            "               1 |@@@@@@@                                  1        \n",
            "               2 |@@@@@@@@@@@@@                            2        \n",
            "               4 |@@@@@@@                                  1        \n",
            "               8 |                                         0        \n",
            "              16 |                                         0        \n",
            "              32 |                                         0        \n",
            "              64 |@@@@@@@                                  1        \n",
            "             128 |                                         0        \n",
            "\n",
        ]
        .concat();
        assert_eq!(printed(&[row(vec![], q)]), format!("\n{want}"));
    }

    #[test]
    fn quantize_negative_values_with_key() {
        // -5 -> bucket -4, -1 -> -1, 0 -> 0; counts 3, 1, 4; total 8.
        let q = quantize(&[(-5, 3), (-1, 1), (0, 4)]);
        let want = [
            "\n",
            "  bash                                              \n",
            HEADER,
            "              -8 |                                         0        \n",
            "              -4 |@@@@@@@@@@@@@@@                          3        \n",
            "              -2 |                                         0        \n",
            "              -1 |@@@@@                                    1        \n",
            "               0 |@@@@@@@@@@@@@@@@@@@@                     4        \n",
            "               1 |                                         0        \n",
            "\n",
        ]
        .concat();
        assert_eq!(printed(&[row(vec![s("bash")], q)]), want);
    }

    #[test]
    fn quantize_empty_and_edges() {
        let want = [
            "\n",
            HEADER,
            "              -1 |                                         0        \n",
            "               0 |                                         0        \n",
            "               1 |                                         0        \n",
            "\n",
        ]
        .concat();
        assert_eq!(
            printed(&[row(vec![], AggData::Quantize(vec![0; QUANTIZE_NBUCKETS]))]),
            format!("\n{want}")
        );
        // A short or empty vector must not panic.
        assert_eq!(
            printed(&[row(vec![], AggData::Quantize(vec![]))]),
            format!("\n{want}")
        );
        // Largest and smallest buckets: the range is clamped.
        let q = quantize(&[(i64::MAX, 1), (i64::MIN, 1)]);
        let mut out = String::new();
        print_aggregation(&mut out, &[row(vec![], q)]);
        assert!(
            out.contains(
                "\n-4611686018427387904 |@@@@@@@@@@@@@@@@@@@@                     1        \n"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "\n4611686018427387904 |@@@@@@@@@@@@@@@@@@@@                     1        \n"
            ),
            "{out}"
        );
        assert_eq!(out.lines().count(), 3 + 127 + 1);
    }

    #[test]
    fn quantize_rows_sort_by_weighted_sum() {
        let rows = vec![
            row(vec![s("big")], quantize(&[(1000, 1)])),
            row(vec![s("neg")], quantize(&[(-1000, 1)])),
            row(vec![s("small")], quantize(&[(1, 5)])),
            row(vec![s("zeros")], quantize(&[(0, 2)])),
            row(vec![s("zero1")], quantize(&[(0, 1)])),
        ];
        let order: Vec<&str> = sort_rows(&rows)
            .iter()
            .map(|r| match &r.keys[0] {
                Value::Str(s) => s.as_str(),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(order, vec!["neg", "zero1", "zeros", "small", "big"]);
    }

    #[test]
    fn lquantize_with_underflow_and_overflow() {
        // lquantize(x, 0, 100, 10): 10 linear buckets; samples -5 (x2), 15, 15, 15, 250.
        let mut buckets = vec![0u64; 12];
        buckets[0] = 2; // < 0
        buckets[2] = 3; // [10, 20)
        buckets[11] = 1; // >= 100
        let l = AggData::Lquantize {
            base: 0,
            limit: 100,
            step: 10,
            buckets,
        };
        let want = [
            "\n",
            HEADER,
            "             < 0 |@@@@@@@@@@@@@                            2        \n",
            "               0 |                                         0        \n",
            "              10 |@@@@@@@@@@@@@@@@@@@@                     3        \n",
            "              20 |                                         0        \n",
            "              30 |                                         0        \n",
            "              40 |                                         0        \n",
            "              50 |                                         0        \n",
            "              60 |                                         0        \n",
            "              70 |                                         0        \n",
            "              80 |                                         0        \n",
            "              90 |                                         0        \n",
            "          >= 100 |@@@@@@@                                  1        \n",
            "\n",
        ]
        .concat();
        assert_eq!(printed(&[row(vec![], l)]), format!("\n{want}"));
    }

    #[test]
    fn lquantize_middle_and_empty() {
        // lquantize(x, -10, 10, 5): buckets <-10, -10, -5, 0, 5, >=10.
        let mut buckets = vec![0u64; 6];
        buckets[3] = 7; // [0, 5)
        let l = AggData::Lquantize {
            base: -10,
            limit: 10,
            step: 5,
            buckets,
        };
        let want = [
            "\n",
            "                1\n",
            HEADER,
            "              -5 |                                         0        \n",
            "               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 7        \n",
            "               5 |                                         0        \n",
            "\n",
        ]
        .concat();
        assert_eq!(printed(&[row(vec![i(1)], l)]), want);

        let empty = AggData::Lquantize {
            base: 5,
            limit: 50,
            step: 5,
            buckets: vec![0; 11],
        };
        let want = [
            "\n",
            HEADER,
            "             < 5 |                                         0        \n",
            "               5 |                                         0        \n",
            "              10 |                                         0        \n",
            "\n",
        ]
        .concat();
        assert_eq!(printed(&[row(vec![], empty)]), format!("\n{want}"));
        // Malformed bucket vectors must not panic.
        let bad = AggData::Lquantize {
            base: 0,
            limit: 10,
            step: 1,
            buckets: vec![],
        };
        assert!(printed(&[row(vec![], bad)]).contains("             < 0 |"));
    }

    #[test]
    fn lquantize_rows_sort() {
        let l = |under: u64, b0: u64, over: u64| AggData::Lquantize {
            base: 0,
            limit: 2,
            step: 1,
            buckets: vec![under, b0, 0, over],
        };
        // weights: under -1, bucket0 0, bucket1 1, over 3
        let rows = vec![
            row(vec![s("over")], l(0, 0, 1)),
            row(vec![s("under")], l(1, 0, 0)),
            row(vec![s("zero2")], l(0, 2, 0)),
            row(vec![s("zero1")], l(0, 1, 0)),
        ];
        let order: Vec<String> = sort_rows(&rows)
            .iter()
            .map(|r| format!("{:?}", r.keys[0]))
            .collect();
        assert_eq!(
            order,
            vec![
                r#"Str("under")"#,
                r#"Str("zero1")"#,
                r#"Str("zero2")"#,
                r#"Str("over")"#
            ]
        );
    }

    #[test]
    fn bar_rounding() {
        // 1 of 3: 13.33 -> 13; 2 of 3: 26.67 -> 27; 1 of 80: 0.5 -> 1 (rounds half up).
        let mut out = String::new();
        print_bar(&mut out, 1, 3);
        print_bar(&mut out, 2, 3);
        print_bar(&mut out, 1, 80);
        print_bar(&mut out, 1234567890, 1234567890);
        assert_eq!(
            out,
            concat!(
                "|@@@@@@@@@@@@@                            1        \n",
                "|@@@@@@@@@@@@@@@@@@@@@@@@@@@              2        \n",
                "|@                                        1        \n",
                "|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1234567890\n",
            )
        );
    }

    #[test]
    fn exit_with_two_aggregations() {
        // dtrace's main(): one "\n", then each aggregation's rows, nothing between.
        let a = vec![row(vec![s("x")], AggData::Count(1))];
        let b = vec![row(vec![], AggData::Sum(5))];
        let mut out = String::from(super::super::record::end_of_tracing());
        print_rows(&mut out, &a);
        print_rows(&mut out, &b);
        assert_eq!(
            out,
            "\n  x                                                                 1\n                5\n"
        );
    }
}
