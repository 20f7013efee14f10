//! Printing one aggregation the way DTrace does at exit and for `printa(@a)`.
//!
//! Sources: illumos libdtrace `dt_consume.c` (`dt_print_aggs()`, `dt_print_datum()`,
//! `dt_print_bytes()`, `dt_print_quantize()`, `dt_print_lquantize()`,
//! `dt_print_quantline()`, `dt_print_llquantize()`, `dt_print_average()`), `dt_aggregate.c` (the sort
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
//! first three buckets, llquantize its first two (its labels: `"< factor^low"`, each
//! bucket's lower bound, `">= factor^(high+1)"`). Because the row's `"\n"` follows the table, a distribution row
//! ends with an empty line, and a keyed one starts with the padded key on its own line.
//!
//! Order (`dt_aggregate_varvalcmp()` → `dt_aggregate_valkeycmp()`; values by
//! `crumbs_lang::ir::agg::Summary::order`): by value ascending,
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
use crumbs_lang::ir::agg::llquantize;
use crumbs_lang::ir::agg::quantize::{self, bucket_value as quantize_bucket_value, count_at};
use crumbs_lang::ir::agg::Summary;
use crumbs_lang::ir::IntRepr;

/// Index of the zero bucket of a power-of-two distribution.
pub const QUANTIZE_ZERO_BUCKET: usize = quantize::ZERO_BUCKET;
/// Number of buckets of a power-of-two distribution.
pub const QUANTIZE_NBUCKETS: usize = quantize::BUCKETS;

const BAR_WIDTH: u64 = 40;
const DISTRIBUTION: &str = "------------- Distribution -------------";

/// Print one aggregation as `printa(@a)` with no format does (and as DTrace's exit does
/// when there is a single aggregation): a blank line, then the rows in DTrace's default
/// order. Prints nothing at all if `rows` is empty (DTrace's exit skips empty
/// aggregations; note that DTrace's `printa()` of an empty aggregation still prints the
/// lone `"\n"`).
pub fn print_aggregation(out: &mut String, rows: &[AggRow]) {
    if rows.is_empty() {
        return;
    }
    out.push('\n');
    print_rows(out, rows);
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

/// The order rows print in: DTrace's options `aggsortkey` (by key first, then value),
/// `aggsortrev` (reversed), `aggsortkeypos` (the key compared first; the others follow in
/// order, wrapping around) and `aggsortpos` (the aggregation whose values sort a printa()
/// of several; the others break ties in order, wrapping around).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Order {
    pub by_key: bool,
    pub reverse: bool,
    pub key_pos: u64,
    pub sort_pos: u64,
}

impl Order {
    /// The order the aggsort options ask for.
    pub fn of(o: &crumbs_lang::ir::Options) -> Order {
        Order { by_key: o.aggsortkey, reverse: o.aggsortrev, key_pos: o.aggsortkeypos, sort_pos: o.aggsortpos }
    }
}

/// The rows in DTrace's default order: value ascending, then key ascending.
pub fn sort_rows(rows: &[AggRow]) -> Vec<&AggRow> {
    sort_rows_by(rows, Order::default())
}

/// The rows in the given order.
pub fn sort_rows_by(rows: &[AggRow], order: Order) -> Vec<&AggRow> {
    let mut sorted: Vec<&AggRow> = rows.iter().collect();
    sorted.sort_by(|a, b| order.compare(&a.keys, &b.keys, || compare_values(&a.data, &b.data)));
    sorted
}

impl Order {
    /// Two rows in this order, by their keys and their values' comparison `values`: by key
    /// then value with `by_key`, else fewer keys first (`dt_aggregate_hashcmp()`), then by
    /// value, then by key; reversed with `reverse`.
    pub fn compare(&self, a: &[Value], b: &[Value], values: impl Fn() -> Ordering) -> Ordering {
        let keys = || compare_keys_from(a, b, self.key_pos);
        let o = if self.by_key { keys().then_with(&values) } else { a.len().cmp(&b.len()).then_with(values).then_with(keys) };
        if self.reverse { o.reverse() } else { o }
    }
}

/// DTrace's default comparison of two rows of the same aggregation: fewer keys first
/// (`dt_aggregate_hashcmp()`), then by value, then by key.
pub fn compare_rows(a: &AggRow, b: &AggRow) -> Ordering {
    Order::default().compare(&a.keys, &b.keys, || compare_values(&a.data, &b.data))
}

/// DTrace's value comparison (`dt_aggregate_valcmp()`), as the function's summary orders.
pub fn compare_values(a: &AggData, b: &AggData) -> Ordering {
    if a.kind.func != b.kind.func {
        // Different aggregating functions never share an aggregation; order them by name
        // so that sorting stays total.
        return a.kind.name().cmp(b.kind.name());
    }
    a.summary().order(&b.summary())
}

/// Order between keys of different kinds (only mixed in hand-made rows).
fn rank(v: &Value) -> u8 {
    match v {
        Value::Int(..) => 0,
        Value::Str(_) => 1,
        Value::Stack(..) => 2,
        Value::Bytes(_) | Value::Object(..) => 3,
        Value::Sym(..) => 4,
        Value::Tuple(_) => 5,
        Value::Buf(_) => 6,
        Value::Record(_) => 7,
        Value::Array(_) => 8,
    }
}

/// DTrace's key comparison (`dt_aggregate_keycmp()`): position by position; integers as
/// unsigned 64-bit values, strings bytewise, an integer before a string.
pub fn compare_keys(a: &[Value], b: &[Value]) -> Ordering {
    compare_keys_from(a, b, 0)
}

/// [`compare_keys`] starting at key `pos` (`aggsortkeypos`, as `dt_aggregate_keycmp()`
/// uses it): keys `pos`, `pos + 1`, ..., then the ones before `pos`; a position past the
/// last key is 0.
pub fn compare_keys_from(a: &[Value], b: &[Value], pos: u64) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| {
        let n = a.len();
        let pos = if pos < n as u64 { pos as usize } else { 0 };
        for i in 0..n {
            let (x, y) = (&a[(pos + i) % n], &b[(pos + i) % n]);
            let o = match (x, y) {
                (Value::Int(x, _), Value::Int(y, _)) => (*x as u64).cmp(&(*y as u64)),
                (Value::Str(x), Value::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
                (Value::Stack(x, _), Value::Stack(y, _)) => x.cmp(y),
                // By address, as DTrace compares the recorded (function-start) addresses.
                (Value::Sym(x, _), Value::Sym(y, _)) => x.cmp(y),
                (x, y) => rank(x).cmp(&rank(y)),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    })
}

/// Number of linear buckets (DTrace's `levels`) of an lquantize.
pub(super) fn lquantize_levels(base: i64, limit: i64, step: i64, buckets: &[u64]) -> usize {
    if buckets.len() >= 3 {
        buckets.len() - 2
    } else if step > 0 && limit > base {
        (((limit - base) / step).max(1)) as usize
    } else {
        1
    }
}

/// Rows with their values divided by `n` (normalize(); 1 leaves them as they are), as each
/// function divides its state.
pub fn normalized(mut rows: Vec<AggRow>, n: i64) -> Vec<AggRow> {
    for row in &mut rows {
        let d = &mut row.data;
        d.kind.normalize(&mut d.words, n);
    }
    rows
}

/// The value printa's `%@` conversions print: the number, or a distribution's table.
pub fn value_of(data: &AggData) -> Value {
    match data.summary() {
        Summary::Scalar(n) => Value::long(n),
        s => {
            let mut out = String::new();
            print_value(&mut out, &s);
            Value::Str(out)
        }
    }
}

/// Print one row: its keys, its value, `"\n"`.
pub fn print_row(out: &mut String, row: &AggRow) {
    for key in &row.keys {
        print_key(out, key);
    }
    print_value(out, &row.data.summary());
    out.push('\n');
}

/// A value: a number as `" %16lld"`, a distribution as its table.
pub(super) fn print_value(out: &mut String, s: &Summary) {
    match *s {
        Summary::Scalar(n) => print_i64(out, n),
        Summary::Log2(buckets) => print_quantize(out, buckets),
        Summary::Linear { base, limit, step, buckets } => print_lquantize(out, base, limit, step, buckets),
        Summary::LogLinear { params, buckets } => print_llquantize(out, &llquantize::Layout::new(params), buckets),
        // Only bpftrace has hist(x, k): its own table, on the line after the key.
        Summary::Log2Split { k, buckets } => {
            out.push('\n');
            out.push_str(&super::bpftrace::hist::split_table(k, buckets, 1));
        }
        // Only bpftrace has tseries(): its chart of this row alone, on the line after the key.
        Summary::Series { params, words } => {
            out.push('\n');
            out.push_str(&super::bpftrace::tseries::chart(&super::bpftrace::tseries::alone(params, words), params.signed));
        }
    }
}

/// A key column: an integer as `" %16lld"`, `" %8d"`, `" %5d"` or `" %3d"` by its type's
/// size (`dt_print_datum()`), in decimal as its type has it; a string as `"  %-50s"`.
pub(super) fn print_key(out: &mut String, key: &Value) {
    match key {
        Value::Int(n, r) => int_column(out, *n, *r),
        Value::Str(s) => {
            push_n(out, ' ', 2);
            pad(out, s, s.len(), 50, true);
        }
        Value::Stack(frames, _) => out.push_str(&Value::stack_text(frames)),
        Value::Sym(_, text) => Value::sym_column(out, text),
        Value::Bytes(b) | Value::Object(b, _) => bytes_column(out, b),
        Value::Tuple(t) => out.push_str(&Value::tuple_text(t)),
        Value::Record(r) => out.push_str(&Value::record_text(r)),
        Value::Array(a) => out.push_str(&Value::array_text(a)),
        Value::Buf(b) => {
            push_n(out, ' ', 2);
            let text = super::buffer::text(b, None);
            pad(out, &text, text.len(), 50, true);
        }
    }
}

/// A struct key as `dt_print_datum()` prints a record of its size: 8, 4, 2 or 1 bytes as an
/// integer of that size (8 and 4 signed, 2 and 1 unsigned, as DTrace's `%d` of them);
/// other sizes as `dt_print_bytes()`: text (printable bytes, perhaps NUL-terminated and
/// NUL-padded) in `"  %-50s"`, else a hex dump.
fn bytes_column(out: &mut String, b: &[u8]) {
    let word = |n: usize| b[..n].iter().rev().fold(0u64, |w, x| w << 8 | *x as u64);
    match b.len() {
        8 => int_column(out, word(8) as i64, IntRepr::I64),
        4 => int_column(out, word(4) as u32 as i32 as i64, IntRepr::I32),
        2 => int_column(out, word(2) as i64, IntRepr { size: 2, signed: false }),
        1 => int_column(out, word(1) as i64, IntRepr { size: 1, signed: false }),
        _ => {
            let printable = |c: u8| (b' '..=b'~').contains(&c) || matches!(c, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x08 | 0x07);
            let text = match b.iter().position(|c| !printable(*c)) {
                None => Some(b),
                Some(i) if i > 0 && b[i..].iter().all(|c| *c == 0) => Some(&b[..i]),
                Some(_) => None,
            };
            match text {
                Some(t) => {
                    let t = String::from_utf8_lossy(t);
                    push_n(out, ' ', 2);
                    pad(out, &t, t.len(), 50, true);
                }
                None => out.push_str(&super::record::raw_bytes(b)),
            }
        }
    }
}

/// An integer in the column DTrace prints one of its type's size in: a space, then right
/// aligned in 16, 8, 5 or 3 for 8, 4, 2 or 1 bytes (`dt_print_datum()`, and `trace()` in
/// `dt_consume_cpu()`), in decimal as its type has it.
pub fn int_column(out: &mut String, n: i64, r: IntRepr) {
    let s = r.decimal(n);
    out.push(' ');
    pad(out, &s, s.len(), column(r.size), false);
}

pub(super) fn column(size: u8) -> usize {
    match size {
        1 => 3,
        2 => 5,
        4 => 8,
        _ => 16,
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

/// `dt_print_llquantize()`: as lquantize, but with no data only the first two buckets; the
/// labels are `< factor^low`, each bucket's lower bound, and `>= factor^(high+1)`.
fn print_llquantize(out: &mut String, layout: &llquantize::Layout, buckets: &[u64]) {
    let n = layout.buckets();
    let (first, last) = bucket_range(n, |i| count_at(buckets, i)).unwrap_or((0, 1.min(n - 1)));
    let total: u128 = (first..=last).map(|i| count_at(buckets, i) as u128).sum();

    print_table_header(out);
    for i in first..=last {
        let label = if i == 0 {
            format!("< {}", layout.low)
        } else if layout.overflow() == Some(i) {
            format!(">= {}", layout.limit())
        } else {
            layout.bound(i).to_string()
        };
        pad(out, &label, label.len(), 16, false);
        out.push(' ');
        print_bar(out, count_at(buckets, i), total);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::ir::agg::{self, AggKind, Aggregator};

    fn row(keys: Vec<Value>, data: AggData) -> AggRow {
        AggRow { keys, data }
    }
    fn data(func: &'static dyn Aggregator, consts: Vec<i64>, words: Vec<u64>) -> AggData {
        AggData { kind: AggKind::new(func, consts), words }
    }
    fn count(n: u64) -> AggData {
        data(&agg::count::Count, vec![], vec![n])
    }
    fn sum(n: i64) -> AggData {
        data(&agg::sum::Sum, vec![], vec![n as u64])
    }
    fn min(n: i64) -> AggData {
        data(&agg::extreme::MIN, vec![], vec![1, n as u64])
    }
    fn max(n: i64) -> AggData {
        data(&agg::extreme::MAX, vec![], vec![1, n as u64])
    }
    fn avg(count: u64, sum: i64) -> AggData {
        data(&agg::avg::Avg, vec![], vec![count, sum as u64])
    }
    fn quantize_counts(buckets: Vec<u64>) -> AggData {
        data(&agg::quantize::Quantize, vec![], buckets)
    }
    fn lquantize(base: i64, limit: i64, step: i64, buckets: Vec<u64>) -> AggData {
        data(&agg::lquantize::Lquantize, vec![base, limit, step], buckets)
    }
    fn s(v: &str) -> Value {
        Value::Str(v.into())
    }
    fn i(n: i64) -> Value {
        Value::long(n)
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
        quantize_counts(b)
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
            row(vec![s("sshd")], count(12)),
            row(vec![s("bash")], count(3)),
            row(vec![s("dtrace")], count(1234)),
            row(vec![s("awk")], count(3)),
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
        assert_eq!(printed(&[row(vec![s(&k)], count(1))]), want);
    }

    #[test]
    fn two_keys_string_and_int() {
        let rows = vec![
            row(vec![s("bash"), i(100)], count(5)),
            row(vec![s("bash"), i(7)], count(5)),
            row(vec![s("sh"), i(-1)], count(2)),
            row(vec![s("sh"), i(3)], count(2)),
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
            .map(|&k| row(vec![i(k)], count(1)))
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
            printed(&[row(vec![], count(10))]),
            "\n               10\n"
        );
        assert_eq!(
            printed(&[row(vec![], sum(12345678))]),
            "\n         12345678\n"
        );
        assert_eq!(
            printed(&[row(vec![], max(-100))]),
            "\n             -100\n"
        );
    }

    #[test]
    fn sum_with_negative_values() {
        let rows = vec![
            row(vec![s("read")], sum(4096)),
            row(vec![s("write")], sum(-20)),
            row(vec![s("close")], sum(0)),
            row(vec![s("lseek")], sum(i64::MIN)),
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
            row(vec![s("a")], avg(3, 10)), // 3
            row(vec![s("b")], avg(2, 5)),  // 2
            row(vec![s("c")], avg(2, -5)), // -2 (truncated)
            row(vec![s("d")], avg(0, 0)),  // 0
            row(vec![s("e")], avg(1, 100)), // 100
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
            row(vec![i(2)], min(-5)),
            row(vec![i(1)], min(7)),
        ];
        let want = concat!(
            "\n",
            "                2               -5\n",
            "                1                7\n",
        );
        assert_eq!(printed(&rows), want);
        let rows = vec![
            row(vec![s("x")], max(1 << 40)),
            row(vec![s("y")], max(-1)),
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
            printed(&[row(vec![], quantize_counts(vec![0; QUANTIZE_NBUCKETS]))]),
            format!("\n{want}")
        );
        // A short or empty vector must not panic.
        assert_eq!(
            printed(&[row(vec![], quantize_counts(vec![]))]),
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
        let l = lquantize(0, 100, 10, buckets);
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
        let l = lquantize(-10, 10, 5, buckets);
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

        let empty = lquantize(5, 50, 5, vec![0; 11]);
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
        let bad = lquantize(0, 10, 1, vec![]);
        assert!(printed(&[row(vec![], bad)]).contains("             < 0 |"));
    }

    #[test]
    fn lquantize_rows_sort() {
        let l = |under: u64, b0: u64, over: u64| lquantize(0, 2, 1, vec![under, b0, 0, over]);
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
        let a = vec![row(vec![s("x")], count(1))];
        let b = vec![row(vec![], sum(5))];
        let mut out = String::from(super::super::record::end_of_tracing());
        print_rows(&mut out, &a);
        print_rows(&mut out, &b);
        assert_eq!(
            out,
            "\n  x                                                                 1\n                5\n"
        );
    }
}
