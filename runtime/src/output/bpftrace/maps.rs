//! One bpftrace map printed whole, as bpftrace 0.17 prints it at exit and for `print(@m)`.
//!
//! Each row is `@name[keys]: value`; the rows are joined by a newline, and the map ends
//! with one newline (so an empty map is one empty line), except avg and stats maps, which
//! end with two (an empty one is two empty lines). A hist or lhist row is `@name[keys]: `
//! (with the trailing space), a newline, and the table, which ends in a newline: so every
//! table is followed by an empty line. A map whose values are kernel stacks or symbols
//! joins its rows with nothing (a stack ends in a newline; symbols run together on one
//! line, as bpftrace 0.17 prints them).
//!
//! Order (`BPFtrace::print_map()` and friends):
//! * count, sum, min, max and integer-valued maps by value, ascending (count as unsigned,
//!   the others as their type's sign); bpftrace leaves rows of equal value in the order it
//!   read them from the kernel's hash map, which crumbs cannot reproduce: they are ordered
//!   by key ([`keys::by_key`]) instead.
//! * hist and lhist by the total of their counts, avg and stats by their average; equal
//!   ones by their stored key bytes ([`keys::by_bytes`]), as bpftrace's `std::map` has them.
//! * maps of other values (strings, stacks, symbols) by key.
//!
//! `print(@m, top, div)`: with `top`, only the last `top` rows of that order (the largest);
//! `div` divides count, sum, min, max, integer and avg values and hist counts (not hist
//! bars). stats ignores both, avg honours both, lhist only `top`.
//!
//! A keyless `count()` map is never empty: bpftrace keeps it in an array, so one never
//! updated (or cleared) prints `@name: 0`. Every other empty map prints no rows.

use super::super::{AggRow, Value};
use super::hist::{hist_table, lhist_table, split_table};
use super::keys::{self, map_key};
use crumbs_lang::ir::agg::{AggKind, Summary};
use std::cmp::Ordering;

/// print()'s optional arguments: the number of rows to print (the largest; 0: all) and a
/// divisor (0 or 1: none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub top: u32,
    pub div: u32,
}

impl Limits {
    pub fn div(&self) -> u64 {
        self.div.max(1) as u64
    }

    /// The last `top` of `rows` (all with no top).
    fn keep<T>(&self, rows: Vec<T>) -> Vec<T> {
        let skip = if self.top == 0 { 0 } else { rows.len().saturating_sub(self.top as usize) };
        rows.into_iter().skip(skip).collect()
    }
}

/// What an aggregation map is: its name (without `@`), its function, whether it has keys,
/// and whether its avg() is bpftrace's stats() (printed as count, average and total).
#[derive(Clone, Debug)]
pub struct AggMap<'a> {
    pub name: &'a str,
    pub kind: &'a AggKind,
    pub keyless: bool,
    pub stats: bool,
}

impl<'a> AggMap<'a> {
    /// The map of an aggregation of a program.
    pub fn of(agg: &'a crumbs_lang::ir::Aggregation, stats: bool) -> AggMap<'a> {
        AggMap { name: &agg.name, kind: &agg.kind, keyless: agg.keys.is_empty(), stats: stats || agg.kind.name() == "stats" }
    }
}

/// How a map of an aggregating function prints and orders its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// stats(): count, average and total, by average; print()'s top and divisor ignored.
    Stats,
    /// avg(): the average, by average.
    Avg,
    /// hist() and lhist(): bucket tables, by total count.
    Distribution,
    /// tseries(): a chart per key, by key bytes; print()'s top and divisor ignored.
    Series,
    /// count(), sum(), min(), max() and any other of one number, by value (`count`: the
    /// value is unsigned).
    Scalar { count: bool },
}

impl AggMap<'_> {
    pub fn shape(&self) -> Shape {
        match self.kind.name() {
            "avg" | "stats" if self.stats => Shape::Stats,
            "avg" | "stats" => Shape::Avg,
            _ => match self.kind.summary(&vec![0; self.kind.words()]) {
                Summary::Log2(_) | Summary::Linear { .. } | Summary::Log2Split { .. } => Shape::Distribution,
                Summary::Series { .. } => Shape::Series,
                _ => Shape::Scalar { count: self.kind.name() == "count" },
            },
        }
    }

    /// A keyless `count()` with no row prints as 0 (bpftrace keeps it in an array).
    pub fn is_untouched_count(&self, rows: &[AggRow]) -> bool {
        self.keyless && rows.is_empty() && self.kind.name() == "count"
    }
}

/// One aggregation map with its rows (in any order), as bpftrace prints it.
pub fn print_aggregation(out: &mut String, map: &AggMap, rows: &[AggRow], limits: Limits) {
    if map.is_untouched_count(rows) {
        out.push_str(&format!("{}: 0\n", map_key(map.name, &[])));
        return;
    }
    match map.shape() {
        Shape::Stats => print_stats(out, map.name, rows),
        Shape::Avg => print_avg(out, map.name, rows, limits),
        Shape::Distribution => print_distributions(out, map.name, rows, limits),
        Shape::Series => super::tseries::print_series(out, map.name, rows),
        Shape::Scalar { count } => print_scalars(out, map.name, count, rows, limits),
    }
}

/// The rows of `shape`'s map in bpftrace's order, `limits.top` applied (never to stats).
pub fn ordered(shape: Shape, rows: &[AggRow], limits: Limits) -> Vec<&AggRow> {
    match shape {
        Shape::Stats => by_average(rows),
        Shape::Avg => limits.keep(by_average(rows)),
        Shape::Distribution => limits.keep(by_total(rows)),
        Shape::Series => super::tseries::series(rows).into_iter().map(|(r, _, _)| r).collect(),
        Shape::Scalar { count } => limits.keep(by_value(rows, count)),
    }
}

fn scalar(r: &AggRow) -> i64 {
    match r.data.summary() {
        Summary::Scalar(n) => n,
        _ => 0,
    }
}

/// A count, sum, min or max row's value divided by `limits.div`, as bpftrace prints it
/// (`count`: unsigned).
pub fn scalar_text(r: &AggRow, count: bool, limits: Limits) -> String {
    if count {
        ((scalar(r) as u64) / limits.div()).to_string()
    } else {
        (scalar(r) / limits.div() as i64).to_string()
    }
}

/// Rows by value (`count`: as unsigned), then by key.
fn by_value(rows: &[AggRow], count: bool) -> Vec<&AggRow> {
    let mut sorted: Vec<&AggRow> = rows.iter().collect();
    sorted.sort_by(|a, b| {
        let o = if count { (scalar(a) as u64).cmp(&(scalar(b) as u64)) } else { scalar(a).cmp(&scalar(b)) };
        o.then_with(|| keys::by_key(&a.keys, &b.keys))
    });
    sorted
}

/// A count, sum, min or max map (and any other whose summary is one number): `count` says
/// whether the values are unsigned.
fn print_scalars(out: &mut String, name: &str, count: bool, rows: &[AggRow], limits: Limits) {
    let lines: Vec<String> = ordered(Shape::Scalar { count }, rows, limits).into_iter().map(|r| format!("{}: {}", map_key(name, &r.keys), scalar_text(r, count, limits))).collect();
    out.push_str(&lines.join("\n"));
    out.push('\n');
}

/// avg() state words (see `crumbs_lang::ir::agg::avg`): the number of values and their
/// total.
pub fn count_total(r: &AggRow) -> (i64, i64) {
    (r.data.words.first().copied().unwrap_or(0) as i64, r.data.words.get(1).copied().unwrap_or(0) as i64)
}

/// An avg() or stats() row's average (0 with no values), as bpftrace's integer division.
pub fn average(r: &AggRow) -> i64 {
    let (count, total) = count_total(r);
    if count == 0 {
        0
    } else {
        total.wrapping_div(count)
    }
}

/// An avg() row's average divided by `limits.div`.
pub fn average_divided(r: &AggRow, limits: Limits) -> i64 {
    average(r) / limits.div() as i64
}

/// Rows by average, then stored key bytes.
fn by_average(rows: &[AggRow]) -> Vec<&AggRow> {
    let mut sorted: Vec<&AggRow> = rows.iter().collect();
    sorted.sort_by(|a, b| average(a).cmp(&average(b)).then_with(|| keys::by_bytes(&a.keys, &b.keys)));
    sorted
}

/// An avg() map: `@name[keys]: average`, then an empty line.
fn print_avg(out: &mut String, name: &str, rows: &[AggRow], limits: Limits) {
    let lines: Vec<String> = ordered(Shape::Avg, rows, limits).into_iter().map(|r| format!("{}: {}", map_key(name, &r.keys), average_divided(r, limits))).collect();
    out.push_str(&lines.join("\n"));
    out.push_str("\n\n");
}

/// A stats() map (kept as an avg() aggregation): `@name[keys]: count N, average A, total
/// T`, then an empty line. print()'s top and divisor do not apply (bpftrace warns).
pub fn print_stats(out: &mut String, name: &str, rows: &[AggRow]) {
    let lines: Vec<String> = by_average(rows)
        .into_iter()
        .map(|r| {
            let (count, total) = count_total(r);
            format!("{}: count {count}, average {}, total {total}", map_key(name, &r.keys), average(r))
        })
        .collect();
    out.push_str(&lines.join("\n"));
    out.push_str("\n\n");
}

/// The total of a hist or lhist row's counts.
fn total(r: &AggRow) -> u64 {
    match r.data.summary() {
        Summary::Log2(b) | Summary::Linear { buckets: b, .. } | Summary::Log2Split { buckets: b, .. } => b.iter().fold(0u64, |s, c| s.wrapping_add(*c)),
        _ => 0,
    }
}

/// Rows by total count, then stored key bytes.
fn by_total(rows: &[AggRow]) -> Vec<&AggRow> {
    let mut sorted: Vec<&AggRow> = rows.iter().collect();
    sorted.sort_by(|a, b| total(a).cmp(&total(b)).then_with(|| keys::by_bytes(&a.keys, &b.keys)));
    sorted
}

/// A hist (quantize) or lhist (lquantize) map: each row `@name[keys]: `, a newline and its
/// table, ordered by total count.
fn print_distributions(out: &mut String, name: &str, rows: &[AggRow], limits: Limits) {
    let lines: Vec<String> = ordered(Shape::Distribution, rows, limits)
        .into_iter()
        .map(|r| {
            let table = match r.data.summary() {
                Summary::Log2(b) => hist_table(b, limits.div()),
                Summary::Log2Split { k, buckets } => split_table(k, buckets, limits.div()),
                Summary::Linear { base, limit, step, buckets } => lhist_table(base, limit, step, buckets),
                _ => String::new(),
            };
            format!("{}: \n{table}", map_key(name, &r.keys))
        })
        .collect();
    out.push_str(&lines.join("\n"));
    out.push('\n');
}

/// A map of values' rows (in any order) in bpftrace's order, `limits.top` applied:
/// integers by value, others by key.
pub fn ordered_values(rows: &[(Vec<Value>, Value)], limits: Limits) -> Vec<&(Vec<Value>, Value)> {
    let mut sorted: Vec<&(Vec<Value>, Value)> = rows.iter().collect();
    sorted.sort_by(|(ka, a), (kb, b)| value_order(a, b).then_with(|| keys::by_key(ka, kb)));
    limits.keep(sorted)
}

/// A map of plain values (`@m[k] = v`): its rows (in any order) as keys and value.
pub fn print_value_map(out: &mut String, name: &str, rows: &[(Vec<Value>, Value)], limits: Limits) {
    let lines: Vec<String> = ordered_values(rows, limits).into_iter().map(|(k, v)| format!("{}: {}", map_key(name, k), value_text(v, limits.div()))).collect();
    // Stacks end in a newline; symbols are joined with nothing, as bpftrace 0.17 does.
    let joiner = match rows.first() {
        Some((_, Value::Stack(..) | Value::Sym(..))) => "",
        _ => "\n",
    };
    out.push_str(&lines.join(joiner));
    out.push('\n');
}

/// Integer values order by value as their type's sign says; others do not order.
fn value_order(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Int(x, rx), Value::Int(y, ry)) => {
            let (x, y) = (keys::widened(*x, *rx), keys::widened(*y, *ry));
            if rx.signed {
                x.cmp(&y)
            } else {
                (x as u64).cmp(&(y as u64))
            }
        }
        _ => Ordering::Equal,
    }
}

/// printf()'s text, a stack (`%s` of kstack, which the checker makes `%k`) laid out as
/// bpftrace prints one: each frame on its own line, indented 8, `function+offset`; a kernel
/// symbol (`%s` of ksym(), made `%a`) as its name.
pub fn printf_text(pieces: &[crumbs_lang::printf::Piece], values: &[Value]) -> String {
    use crumbs_lang::printf::Piece;
    if !values.iter().any(|v| matches!(v, Value::Stack(..) | Value::Sym(..))) {
        return super::super::printf::format(pieces, values);
    }
    let pieces: Vec<Piece> = pieces
        .iter()
        .map(|p| match p {
            Piece::Conv(c) if c.conv == 'k' || c.conv == 'a' => {
                let mut c = c.clone();
                c.conv = 's';
                Piece::Conv(c)
            }
            p => p.clone(),
        })
        .collect();
    let values: Vec<Value> = values.iter().map(|v| if matches!(v, Value::Stack(..) | Value::Sym(..)) { Value::Str(value_text(v, 1)) } else { v.clone() }).collect();
    super::super::printf::format(&pieces, &values)
}

/// A map's value as bpftrace prints it: an integer as its type has it (divided by `div`),
/// a string as it is, a stack as a newline and one frame a line indented by 8 (in
/// bpftrace's form, [`keys::frame`]), a symbol by name ([`keys::symbol`]).
pub fn value_text(v: &Value, div: u64) -> String {
    let div = div.max(1);
    match v {
        Value::Int(n, r) if r.signed => (keys::widened(*n, *r) as i128 / div as i128).to_string(),
        Value::Int(n, r) => (r.unsigned(*n) / div).to_string(),
        Value::Str(s) => s.clone(),
        Value::Stack(frames, mode) => keys::stack_text(frames, *mode, 8),
        Value::Sym(_, text) => keys::symbol(text),
        Value::Bytes(b) => Value::bytes_text(b),
        Value::Object(b, layout) => super::structs::object_text(layout, b),
        Value::Tuple(elems) => keys::tuple_text(elems, &|v| value_text(v, 1)),
        Value::Record(fields) => keys::record_text(fields, &|v| value_text(v, 1)),
        Value::Buf(b) => crate::output::buffer::text(b, None),
        Value::Array(a) => Value::array_text(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::AggData;
    use crumbs_lang::ir::agg::{self, Aggregator};
    use crumbs_lang::ir::IntRepr;

    fn kind(func: &'static dyn Aggregator, consts: Vec<i64>) -> AggKind {
        AggKind::new(func, consts)
    }
    fn row(keys: &[i64], kind: &AggKind, words: Vec<u64>) -> AggRow {
        AggRow { keys: keys.iter().map(|k| Value::long(*k)).collect(), data: AggData { kind: kind.clone(), words } }
    }
    fn printed(name: &str, kind: &AggKind, keyless: bool, stats: bool, rows: &[AggRow], limits: Limits) -> String {
        let mut out = String::new();
        print_aggregation(&mut out, &AggMap { name, kind, keyless, stats }, rows, limits);
        out
    }
    fn limits(top: u32, div: u32) -> Limits {
        Limits { top, div }
    }
    fn bar(n: usize) -> String {
        format!("|{:<52}|", "@".repeat(n))
    }

    #[test]
    fn counts_by_value_then_top_and_div() {
        // bpftrace 0.17: BEGIN { @c[1]=count(); @c[2]=count() x2; @c[4]=count() x5;
        //   printf("<"); print(@c); printf(">"); print(@c, 2); printf("|"); print(@c, 0, 2);
        //   printf("|"); print(@c, 1, 3); printf("|"); print(@c, 10); ... } printed
        // "<@c[1]: 1\n@c[2]: 2\n@c[4]: 5\n>@c[2]: 2\n@c[4]: 5\n|@c[1]: 0\n@c[2]: 1\n@c[4]: 2\n
        //  |@c[4]: 1\n|@c[1]: 1\n@c[2]: 2\n@c[4]: 5\n|".
        let k = kind(&agg::count::Count, vec![]);
        let rows = [row(&[4], &k, vec![5]), row(&[1], &k, vec![1]), row(&[2], &k, vec![2])];
        assert_eq!(printed("c", &k, false, false, &rows, Limits::default()), "@c[1]: 1\n@c[2]: 2\n@c[4]: 5\n");
        assert_eq!(printed("c", &k, false, false, &rows, limits(2, 0)), "@c[2]: 2\n@c[4]: 5\n");
        assert_eq!(printed("c", &k, false, false, &rows, limits(0, 2)), "@c[1]: 0\n@c[2]: 1\n@c[4]: 2\n");
        assert_eq!(printed("c", &k, false, false, &rows, limits(1, 3)), "@c[4]: 1\n");
        assert_eq!(printed("c", &k, false, false, &rows, limits(10, 0)), "@c[1]: 1\n@c[2]: 2\n@c[4]: 5\n");
    }

    #[test]
    fn sums_by_signed_value_ties_by_key() {
        // BEGIN { @s["b"]=sum(-5); @s["a"]=sum(3); @s["c"]=sum(3); @s["aa"]=sum(-7); exit(); }
        // printed "@s[aa]: -7\n@s[b]: -5\n@s[a]: 3\n@s[c]: 3\n".
        let k = kind(&agg::sum::Sum, vec![]);
        let r = |key: &str, n: i64| AggRow { keys: vec![Value::Str(key.into())], data: AggData { kind: k.clone(), words: vec![n as u64] } };
        let rows = [r("b", -5), r("c", 3), r("a", 3), r("aa", -7)];
        assert_eq!(printed("s", &k, false, false, &rows, Limits::default()), "@s[aa]: -7\n@s[b]: -5\n@s[a]: 3\n@s[c]: 3\n");
    }

    #[test]
    fn min_max_and_keyless_scalars() {
        // BEGIN { @mn = min(-5); @mn2[1]=min(-3); @mn2[2]=min(5); @mx2[2]=max(4); @s = sum(-3);
        //   @c = count(); exit(); } printed "@c: 1", "@mn: -5", "@mn2[1]: -3\n@mn2[2]: 5",
        //   "@mx2[2]: 4", "@s: -3" (0.17 loses max() of negative values: not reproduced).
        let min = kind(&agg::extreme::MIN, vec![]);
        let max = kind(&agg::extreme::MAX, vec![]);
        assert_eq!(printed("mn", &min, true, false, &[row(&[], &min, vec![1, -5i64 as u64])], Limits::default()), "@mn: -5\n");
        let rows = [row(&[2], &min, vec![1, 5]), row(&[1], &min, vec![1, -3i64 as u64])];
        assert_eq!(printed("mn2", &min, false, false, &rows, Limits::default()), "@mn2[1]: -3\n@mn2[2]: 5\n");
        assert_eq!(printed("mx2", &max, false, false, &[row(&[2], &max, vec![1, 4])], Limits::default()), "@mx2[2]: 4\n");
    }

    #[test]
    fn empty_maps() {
        // BEGIN { exit(); } tracepoint:sched:sched_switch { @c = count(); @h = hist(1);
        //   @s = stats(1); } printed "\n\n@c: 0\n\n\n\n": a keyless count is never empty,
        //   an empty hist is one empty line, an empty stats two.
        let count = kind(&agg::count::Count, vec![]);
        let hist = kind(&agg::quantize::Quantize, vec![]);
        let avg = kind(&agg::avg::Avg, vec![]);
        assert_eq!(printed("c", &count, true, false, &[], Limits::default()), "@c: 0\n");
        assert_eq!(printed("h", &hist, true, false, &[], Limits::default()), "\n");
        assert_eq!(printed("s", &avg, true, true, &[], Limits::default()), "\n\n");
        // BEGIN { @h[1]=avg(1); clear(@h); @z[1]=3; exit(); } printed "\n\n\n\n@z[1]: 3\n".
        assert_eq!(printed("h", &avg, false, false, &[], Limits::default()), "\n\n");
        // BEGIN { @a[1]=count(); delete(@a[1]); exit(); } printed "\n\n\n".
        assert_eq!(printed("a", &count, false, false, &[], Limits::default()), "\n");
    }

    #[test]
    fn avg_and_stats() {
        // BEGIN { @a = avg(-7); @a2 = avg(7); @a2 = avg(-8); @st = stats(-7); @st=stats(-8);
        //   exit(); } printed "@a: -7\n\n@a2: 0\n\n@st: count 2, average -7, total -15\n\n".
        let avg = kind(&agg::avg::Avg, vec![]);
        assert_eq!(printed("a", &avg, true, false, &[row(&[], &avg, vec![1, -7i64 as u64])], Limits::default()), "@a: -7\n\n");
        assert_eq!(printed("a2", &avg, true, false, &[row(&[], &avg, vec![2, -1i64 as u64])], Limits::default()), "@a2: 0\n\n");
        let st = [row(&[], &avg, vec![2, -15i64 as u64])];
        assert_eq!(printed("st", &avg, true, true, &st, Limits::default()), "@st: count 2, average -7, total -15\n\n");
    }

    #[test]
    fn avg_honours_top_and_div_stats_neither() {
        // BEGIN { @a[1] = avg(10); @a[2]=avg(20); @a[3]=avg(30); print(@a, 2, 3); printf("|");
        //   print(@a); printf("|"); print(@a, 0, 3); } printed "@a[2]: 6\n@a[3]: 10\n\n|
        //   @a[1]: 10\n@a[2]: 20\n@a[3]: 30\n\n|@a[1]: 3\n@a[2]: 6\n@a[3]: 10\n\n".
        let avg = kind(&agg::avg::Avg, vec![]);
        let rows = [row(&[3], &avg, vec![1, 30]), row(&[1], &avg, vec![1, 10]), row(&[2], &avg, vec![1, 20])];
        assert_eq!(printed("a", &avg, false, false, &rows, limits(2, 3)), "@a[2]: 6\n@a[3]: 10\n\n");
        assert_eq!(printed("a", &avg, false, false, &rows, Limits::default()), "@a[1]: 10\n@a[2]: 20\n@a[3]: 30\n\n");
        assert_eq!(printed("a", &avg, false, false, &rows, limits(0, 3)), "@a[1]: 3\n@a[2]: 6\n@a[3]: 10\n\n");
        // The same with stats(): print(@s, 1, 3) printed all three, undivided.
        let want = "@s[1]: count 1, average 10, total 10\n@s[2]: count 1, average 20, total 20\n@s[3]: count 1, average 30, total 30\n\n";
        assert_eq!(printed("s", &avg, false, true, &rows, limits(1, 3)), want);
    }

    #[test]
    fn equal_averages_by_stored_key_bytes() {
        // BEGIN { @a[1]=avg(1); @a[256]=avg(1); @a[2]=avg(1); @a[-1]=avg(1); exit(); } printed
        // "@a[256]: 1\n@a[1]: 1\n@a[2]: 1\n@a[-1]: 1\n\n".
        let avg = kind(&agg::avg::Avg, vec![]);
        let rows: Vec<AggRow> = [1, 256, 2, -1].iter().map(|k| row(&[*k], &avg, vec![1, 1])).collect();
        assert_eq!(printed("a", &avg, false, false, &rows, Limits::default()), "@a[256]: 1\n@a[1]: 1\n@a[2]: 1\n@a[-1]: 1\n\n");
    }

    /// Quantize buckets with `n` values in the bucket of `v` (v > 0), for each (v, n).
    fn quantize(k: &AggKind, key: i64, values: &[(i64, u64)]) -> AggRow {
        let mut b = vec![0u64; agg::quantize::BUCKETS];
        for (v, n) in values {
            b[agg::quantize::ZERO_BUCKET + 1 + (63 - v.leading_zeros()) as usize] += n;
        }
        row(&[key], k, b)
    }

    #[test]
    fn keyed_hists_by_total_with_top_and_div() {
        // BEGIN { @h[1]=hist(1); @h[2]=hist(2); @h[2]=hist(2); @h[2]=hist(3); @h[3]=hist(4);
        //   @h[3]=hist(4); printf("<"); print(@h); printf(">"); print(@h, 1); printf("|");
        //   print(@h, 0, 2); printf("|\n"); ... }
        let k = kind(&agg::quantize::Quantize, vec![]);
        let rows = [quantize(&k, 2, &[(2, 3)]), quantize(&k, 1, &[(1, 1)]), quantize(&k, 3, &[(4, 2)])];
        let all = format!(
            "@h[1]: \n[1]                    1 {0}\n\n@h[3]: \n[4, 8)                 2 {0}\n\n@h[2]: \n[2, 4)                 3 {0}\n\n",
            bar(52)
        );
        assert_eq!(printed("h", &k, false, false, &rows, Limits::default()), all);
        assert_eq!(printed("h", &k, false, false, &rows, limits(1, 0)), format!("@h[2]: \n[2, 4)                 3 {}\n\n", bar(52)));
        let halved = format!(
            "@h[1]: \n[1]                    0 {0}\n\n@h[3]: \n[4, 8)                 1 {0}\n\n@h[2]: \n[2, 4)                 1 {0}\n\n",
            bar(52)
        );
        assert_eq!(printed("h", &k, false, false, &rows, limits(0, 2)), halved);
    }

    #[test]
    fn hists_of_zero_counts_print_their_keys_only() {
        // BEGIN { @h[1]=hist(1); @h[2] = hist(3); zero(@h); @l = lhist(3, 0, 10, 1); zero(@l);
        //   exit(); } printed "@h[1]: \n\n@h[2]: \n\n@l: \n\n".
        let k = kind(&agg::quantize::Quantize, vec![]);
        let rows = [quantize(&k, 2, &[]), quantize(&k, 1, &[])];
        assert_eq!(printed("h", &k, false, false, &rows, Limits::default()), "@h[1]: \n\n@h[2]: \n\n");
        let l = kind(&agg::lquantize::Lquantize, vec![0, 10, 1]);
        assert_eq!(printed("l", &l, true, false, &[row(&[], &l, vec![0; 12])], Limits::default()), "@l: \n\n");
    }

    #[test]
    fn lhist_takes_top_but_not_div() {
        // BEGIN { @l[1] = lhist(5, 0, 10, 1); @l[1] = lhist(6,0,10,1) x3; @l[2] = lhist(6,0,10,1);
        //   print(@l, 1, 2); } printed "@l[1]: \n[5, 6)   1 |@ x17|\n[6, 7)   3 |@ x52|\n\n".
        let l = kind(&agg::lquantize::Lquantize, vec![0, 10, 1]);
        let mut one = vec![0u64; 12];
        one[6] = 1;
        one[7] = 3;
        let mut two = vec![0u64; 12];
        two[7] = 1;
        let rows = [row(&[1], &l, one), row(&[2], &l, two)];
        let want = format!("@l[1]: \n[5, 6)                 1 {}\n[6, 7)                 3 {}\n\n", bar(17), bar(52));
        assert_eq!(printed("l", &l, false, false, &rows, limits(1, 2)), want);
    }

    fn value_map(name: &str, rows: &[(Vec<Value>, Value)]) -> String {
        let mut out = String::new();
        print_value_map(&mut out, name, rows, Limits::default());
        out
    }

    #[test]
    fn integer_values_by_value_as_their_type_says() {
        // BEGIN { @m[3]=5; @m[1]=9; @m[2]=-1; @m[7] = 5; @m[-2] = 5; exit(); } printed
        // "@m[2]: -1\n@m[3]: 5\n@m[7]: 5\n@m[-2]: 5\n@m[1]: 9\n".
        let rows: Vec<_> = [(3, 5), (1, 9), (2, -1), (7, 5), (-2, 5)].iter().map(|(k, v)| (vec![Value::long(*k)], Value::long(*v))).collect();
        assert_eq!(value_map("m", &rows), "@m[2]: -1\n@m[3]: 5\n@m[7]: 5\n@m[-2]: 5\n@m[1]: 9\n");
        // BEGIN { @v = (uint64)-1; @w = (uint32)-1; @x = (int8)-1; @y[1] = (uint64)-1;
        //   @y[2] = (uint64)5; exit(); } printed "@v: 18446744073709551615",
        //   "@w: 4294967295", "@x: -1", "@y[2]: 5\n@y[1]: 18446744073709551615".
        assert_eq!(value_map("v", &[(vec![], Value::Int(-1, IntRepr::U64))]), "@v: 18446744073709551615\n");
        assert_eq!(value_map("w", &[(vec![], Value::Int(-1, IntRepr { size: 4, signed: false }))]), "@w: 4294967295\n");
        assert_eq!(value_map("x", &[(vec![], Value::Int(-1, IntRepr { size: 1, signed: true }))]), "@x: -1\n");
        let rows = [(vec![Value::long(1)], Value::Int(-1, IntRepr::U64)), (vec![Value::long(2)], Value::Int(5, IntRepr::U64))];
        assert_eq!(value_map("y", &rows), "@y[2]: 5\n@y[1]: 18446744073709551615\n");
    }

    #[test]
    fn string_values_by_key() {
        // BEGIN { @m["x"]="zz"; @m["a"]="b"; @m["q"]="a"; exit(); } printed
        // "@m[a]: b\n@m[q]: a\n@m[x]: zz\n".
        let s = |v: &str| Value::Str(v.into());
        let rows = [(vec![s("x")], s("zz")), (vec![s("a")], s("b")), (vec![s("q")], s("a"))];
        assert_eq!(value_map("m", &rows), "@m[a]: b\n@m[q]: a\n@m[x]: zz\n");
        // BEGIN { @a[(uint64)-1] = "x"; @a[(uint32)4294967295] = "y"; @a[3] = "z";
        //   @a[-5] = "w"; exit(); } printed "@a[3]: z\n@a[4294967295]: y\n@a[-5]: w\n@a[-1]: x\n".
        let rows = [
            (vec![Value::Int(-1, IntRepr::U64)], s("x")),
            (vec![Value::Int(4294967295, IntRepr { size: 4, signed: false })], s("y")),
            (vec![Value::long(3)], s("z")),
            (vec![Value::long(-5)], s("w")),
        ];
        assert_eq!(value_map("a", &rows), "@a[3]: z\n@a[4294967295]: y\n@a[-5]: w\n@a[-1]: x\n");
    }

    #[test]
    fn stack_and_symbol_values_are_joined_with_nothing() {
        // tracepoint:sched:sched_switch { @s = kstack(2); @w[1] = kstack(2); @w[2]=kstack(2);
        //   exit(); } printed "@s: \n        __schedule+1560\n        schedule+35\n\n" and
        //   "@w[1]: \n        __schedule+1560\n        schedule+35\n@w[2]: \n ...\n\n".
        let stack = Value::Stack(vec!["__schedule+1560".into(), "schedule+35".into()], crumbs_lang::ir::StackMode::Bpftrace);
        let frames = "\n        __schedule+1560\n        schedule+35\n";
        assert_eq!(value_map("s", &[(vec![], stack.clone())]), format!("@s: {frames}\n"));
        let rows = [(vec![Value::long(2)], stack.clone()), (vec![Value::long(1)], stack)];
        assert_eq!(value_map("w", &rows), format!("@w[1]: {frames}@w[2]: {frames}\n"));
        // BEGIN { @v[1] = ksym(0xffffffff81000000); @v[2] = ksym(0xffffffff81000000);
        //   @v[3] = ksym(0); exit(); } printed "@v[1]: _text@v[2]: _text@v[3]: 0\n".
        let text = Value::Sym(0xffffffff81000000, "_text".into());
        let rows = [(vec![Value::long(3)], Value::Sym(0, "0".into())), (vec![Value::long(1)], text.clone()), (vec![Value::long(2)], text)];
        assert_eq!(value_map("v", &rows), "@v[1]: _text@v[2]: _text@v[3]: 0\n");
    }

    #[test]
    fn symbol_keys() {
        // tracepoint:sched:sched_switch { @k[ksym(0xffffffff81000000)] = count(); ... }
        // printed "@k[_text]: 2".
        let k = kind(&agg::count::Count, vec![]);
        let rows = [AggRow { keys: vec![Value::Sym(0xffffffff81000000, "_text".into())], data: AggData { kind: k.clone(), words: vec![2] } }];
        assert_eq!(printed("k", &k, false, false, &rows, Limits::default()), "@k[_text]: 2\n");
    }
}
