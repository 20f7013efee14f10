//! `printa()` of several aggregations, joined by key, as DTrace's
//! `dtrace_aggregate_walk_joined()` does (illumos `dt_aggregate.c`), printed by
//! `dt_print_aggs()` (`dt_consume.c`) or through a format by `dt_printf_format()`
//! (`dt_printf.c`).
//!
//! * Rows are the union of the aggregations' keys. Where an aggregation has no value for a
//!   key, its value is zero-filled data: it prints as 0 (a distribution as an empty table)
//!   and compares as 0. A row's keys are printed as the lowest-numbered aggregation
//!   holding them has them.
//! * Order (`dt_aggregate_bundlecmp()`): by the values, the aggregation at `aggsortpos`
//!   (0 when past the last) first, then the next ones in order, wrapping around; ties by
//!   key. With `aggsortkey`, by key first. `aggsortrev` reverses the whole order and
//!   `aggsortkeypos` says which key compares first.
//! * Default layout: the keys, each aggregation's value in its own column (as a single
//!   aggregation's value prints), `"\n"`.
//! * Through a format: other conversions take the keys in order; `%@` conversions take the
//!   aggregations' values in order, and every `%@` past the last aggregation prints the
//!   last one's value again.

use std::cmp::Ordering;

use super::aggregation::{self, compare_keys, compare_values, Order};
use super::{AggData, AggRow, Value};
use crumbs_lang::ir::AggKind;
use crumbs_lang::printf::Piece;

/// One key and every aggregation's value at it, in printa()'s order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Joined {
    pub keys: Vec<Value>,
    pub values: Vec<AggData>,
}

/// The union of the keys of `sets` (the rows of each aggregation printed, in printa()'s
/// order), each with every aggregation's value. `ids` are the aggregations' ids (the
/// lowest holding a key gives its printed form) and `kinds` their functions (for the zero
/// value of a missing key). Unsorted.
pub fn join(sets: &[Vec<AggRow>], ids: &[usize], kinds: &[&AggKind]) -> Vec<Joined> {
    let mut entries: Vec<(usize, &AggRow)> = sets.iter().enumerate().flat_map(|(j, rows)| rows.iter().map(move |r| (j, r))).collect();
    entries.sort_by(|(i, a), (j, b)| compare_keys(&a.keys, &b.keys).then(ids[*i].cmp(&ids[*j])).then(i.cmp(j)));
    let mut out: Vec<Joined> = Vec::new();
    for group in entries.chunk_by(|(_, a), (_, b)| compare_keys(&a.keys, &b.keys) == Ordering::Equal) {
        let mut values: Vec<AggData> = kinds.iter().map(|k| AggData { kind: (*k).clone(), words: vec![0; k.words()] }).collect();
        for (j, row) in group {
            values[*j] = row.data.clone();
        }
        out.push(Joined { keys: group[0].1.keys.clone(), values });
    }
    out
}

/// The rows in DTrace's order for a printa() of several aggregations.
pub fn sort(rows: &mut [Joined], order: Order) {
    // Every joined row has as many keys: the key count decides nothing.
    rows.sort_by(|a, b| order.compare(&a.keys, &b.keys, || compare_all(a, b, order.sort_pos)));
}

/// The values compared from aggregation `pos` on, wrapping around.
fn compare_all(a: &Joined, b: &Joined, pos: u64) -> Ordering {
    let n = a.values.len().min(b.values.len());
    let pos = if pos < n as u64 { pos as usize } else { 0 };
    (0..n).map(|i| (pos + i) % n).map(|j| compare_values(&a.values[j], &b.values[j])).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
}

/// The default layout: `"\n"`, then each row's keys, values and `"\n"`; nothing for no rows.
pub fn print(out: &mut String, rows: &[Joined]) {
    if rows.is_empty() {
        return;
    }
    out.push('\n');
    for row in rows {
        for key in &row.keys {
            aggregation::print_key(out, key);
        }
        for value in &row.values {
            aggregation::print_value(out, &value.summary());
        }
        out.push('\n');
    }
}

/// printf arguments for one row under a printa format: `%@` conversions take the values in
/// order, repeating the last; the others take the keys in order.
pub fn format_args(pieces: &[Piece], keys: &[Value], values: &[AggData]) -> Vec<Value> {
    let mut keys = keys.iter();
    let mut next = 0;
    crumbs_lang::printf::conversions(pieces)
        .map(|c| {
            if c.is_agg_value() {
                let v = values.get(next).map_or(Value::long(0), aggregation::value_of);
                next = (next + 1).min(values.len().saturating_sub(1));
                v
            } else {
                keys.next().cloned().unwrap_or(Value::long(0))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::ir::agg::{self, Aggregator};

    fn data(func: &'static dyn Aggregator, words: Vec<u64>) -> AggData {
        AggData { kind: AggKind::new(func, vec![]), words }
    }
    fn count(n: u64) -> AggData {
        data(&agg::count::Count, vec![n])
    }
    fn sum(n: i64) -> AggData {
        data(&agg::sum::Sum, vec![n as u64])
    }
    fn s(v: &str) -> Value {
        Value::Str(v.into())
    }
    fn row(k: &str, d: AggData) -> AggRow {
        AggRow { keys: vec![s(k)], data: d }
    }
    fn keys_of(rows: &[Joined]) -> Vec<String> {
        rows.iter().map(|r| format!("{:?}", r.keys[0])).collect()
    }

    fn joined() -> Vec<Joined> {
        let counts = AggKind::new(&agg::count::Count, vec![]);
        let sums = AggKind::new(&agg::sum::Sum, vec![]);
        let a = vec![row("x", count(3)), row("y", count(1)), row("z", count(2))];
        let b = vec![row("y", sum(10)), row("w", sum(-4)), row("z", sum(10))];
        join(&[a, b], &[0, 1], &[&counts, &sums])
    }

    #[test]
    fn union_of_keys_with_zero_where_missing() {
        let mut rows = joined();
        sort(&mut rows, Order::default());
        // By @a's value (w's missing count is 0), then by @b's, then by key.
        assert_eq!(keys_of(&rows), [r#"Str("w")"#, r#"Str("y")"#, r#"Str("z")"#, r#"Str("x")"#]);
        assert_eq!(rows[0].values, [count(0), sum(-4)]);
        assert_eq!(rows[3].values, [count(3), sum(0)]);
        let mut out = String::new();
        print(&mut out, &rows[..1]);
        assert_eq!(out, format!("\n  {:<50}{:>17}{:>17}\n", "w", 0, -4));
    }

    #[test]
    fn sort_position_and_key_order() {
        let mut rows = joined();
        sort(&mut rows, Order { sort_pos: 1, ..Order::default() });
        // By @b: w -4, x 0, then y and z tie at 10 and fall back to @a: y 1, z 2.
        assert_eq!(keys_of(&rows), [r#"Str("w")"#, r#"Str("x")"#, r#"Str("y")"#, r#"Str("z")"#]);
        // A position past the last aggregation is 0.
        let mut past = joined();
        sort(&mut past, Order { sort_pos: 2, reverse: true, ..Order::default() });
        assert_eq!(keys_of(&past), [r#"Str("x")"#, r#"Str("z")"#, r#"Str("y")"#, r#"Str("w")"#]);
        sort(&mut past, Order { by_key: true, ..Order::default() });
        assert_eq!(keys_of(&past), [r#"Str("w")"#, r#"Str("x")"#, r#"Str("y")"#, r#"Str("z")"#]);
    }

    #[test]
    fn value_conversions_take_the_aggregations_in_order() {
        let pieces = crumbs_lang::printf::parse("%s %@d %@d %@d").unwrap();
        let args = format_args(&pieces, &[s("k")], &[count(1), sum(2)]);
        assert_eq!(args, [s("k"), Value::long(1), Value::long(2), Value::long(2)]);
    }
}
