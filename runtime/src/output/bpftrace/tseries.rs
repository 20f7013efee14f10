//! Current bpftrace's time series (`tseries()`), as its `types_format.cpp` lays one out and
//! its `output/text.cpp` and `output/json.cpp` print it (bpftrace 0.17 has none).
//!
//! Every key of a map shares one range of epochs: the last is the latest epoch any key
//! holds, the first `num_intervals - 1` before it. A key's series starts at its first epoch
//! in that range and runs to the last; an epoch it holds no value for is a gap (`-` in the
//! text, left out of the JSON). Keys are in their stored bytes' order; print()'s top and
//! divisor do not apply. An interval's time is its epoch × interval_ns, TAI nanoseconds
//! read as the time since 1970 (as bpftrace reads them).
//!
//! Text: `@name:` (or `@name[keys]:`), a newline, then the chart: the lowest and highest
//! value over a 53-column axis, one line a interval (its local time, to the unit of the
//! interval, the axis with `*` at the value and `.` at zero, and the value), the axis's
//! foot and the two values again; then an empty line.

use super::super::AggRow;
use super::keys::{self, map_key};
use crate::output::local_time;
use crumbs_lang::ir::agg::tseries::{self, Params};
use crumbs_lang::ir::agg::Summary;

/// A row's series: (time in nanoseconds, value) from its first interval to the map's last.
pub type Series = Vec<(u64, Option<i64>)>;

const GRAPH_WIDTH: usize = 53;
const PADDING: usize = 21;

/// A key's (epoch, value) pairs.
type Points = Vec<(u64, i64)>;

fn points(r: &AggRow) -> Option<(Params, Points)> {
    match r.data.summary() {
        Summary::Series { params, words } => Some((params, tseries::points(params, words))),
        _ => None,
    }
}

/// The rows in bpftrace's order (by stored key bytes), each with its series.
pub fn series(rows: &[AggRow]) -> Vec<(&AggRow, bool, Series)> {
    let mut sorted: Vec<&AggRow> = rows.iter().collect();
    sorted.sort_by(|a, b| keys::by_bytes(&a.keys, &b.keys));
    let all: Vec<(&AggRow, Params, Points)> = sorted.into_iter().filter_map(|r| points(r).map(|(p, v)| (r, p, v))).collect();
    let last = all.iter().map(|(_, _, v)| v.iter().map(|(e, _)| *e).max().unwrap_or(0)).max().unwrap_or(u64::MAX);
    all.into_iter().map(|(r, p, values)| (r, p.signed, in_range(p, &values, last))).collect()
}

/// One key's series alone (its own latest epoch the last).
pub fn alone(p: Params, words: &[u64]) -> Series {
    let values = tseries::points(p, words);
    let last = values.iter().map(|(e, _)| *e).max().unwrap_or(0);
    in_range(p, &values, last)
}

/// A key's (epoch, value) pairs as its series up to epoch `last`: from its first epoch of
/// the `num_intervals` up to `last`, each interval's value or a gap.
fn in_range(p: Params, values: &[(u64, i64)], last: u64) -> Series {
    let first = last.wrapping_sub(p.intervals as u64).wrapping_add(1);
    let start = values.iter().map(|(e, _)| *e).filter(|e| *e >= first).min().unwrap_or(last).min(last);
    let mut out = Vec::new();
    if first <= last {
        for epoch in first.max(start)..=last {
            let v = values.iter().find(|(e, _)| *e == epoch).map(|(_, v)| *v);
            out.push((epoch.wrapping_mul(p.interval_ns), v));
        }
    }
    out
}

/// A map of time series as current bpftrace prints it (nothing for no rows).
pub fn print_series(out: &mut String, name: &str, rows: &[AggRow]) {
    for (r, signed, s) in series(rows) {
        out.push_str(&format!("{}:\n", map_key(name, &r.keys)));
        out.push_str(&chart(&s, signed));
        out.push('\n');
    }
}

/// A value as its sign says; `None` (a series with no value at all) as bpftrace's `null`.
fn text(v: Option<i128>) -> String {
    v.map_or_else(|| "null".to_string(), |v| v.to_string())
}

fn widen(v: i64, signed: bool) -> i128 {
    if signed {
        v as i128
    } else {
        v as u64 as i128
    }
}

/// `a - b` in 64 bits, as bpftrace's `distance()` computes it.
fn distance(a: Option<i128>, b: Option<i128>) -> i64 {
    match (a, b) {
        (Some(a), Some(b)) => (a as i64).wrapping_sub(b as i64),
        _ => 0,
    }
}

/// The fraction of a second an interval's unit shows: (name, digits, scale in ns).
fn unit(interval: u64) -> Option<(&'static str, usize, u64)> {
    match interval {
        i if i >= 1_000_000_000 => None,
        i if i >= 1_000_000 => Some(("ms", 3, 1_000_000)),
        i if i >= 1_000 => Some(("μs", 6, 1_000)),
        _ => Some(("ns", 9, 1)),
    }
}

/// The chart of one series (see the module's comment), ending in a newline; `<no data>`
/// (no newline) for an empty one.
pub fn chart(s: &[(u64, Option<i64>)], signed: bool) -> String {
    let Some(front) = s.first() else { return "<no data>".to_string() };
    let values = || s.iter().filter_map(|(_, v)| v.map(|v| widen(v, signed)));
    let (mut min, mut max) = (front.1.map(|v| widen(v, signed)), front.1.map(|v| widen(v, signed)));
    for v in values() {
        // As a variant compares: no value is below every value.
        if Some(v) < min {
            min = Some(v);
        }
        if Some(v) > max {
            max = Some(v);
        }
    }
    if min == max {
        let (lo, hi) = if signed { (i64::MIN as i128, i64::MAX as i128) } else { (0, u64::MAX as i128) };
        min = min.map(|v| if v > lo { v - 1 } else { v });
        max = max.map(|v| if v < hi { v + 1 } else { v });
    }
    let interval = (s[s.len() - 1].0.wrapping_sub(s[0].0)) / (if s.len() > 1 { s.len() as u64 - 1 } else { 1 });
    let unit = unit(interval);
    let (time_fmt, time_size) = match unit {
        Some((name, digits, _)) => (format!("hh:mm:ss.{name}"), 8 + 1 + digits),
        None => ("hh:mm:ss".to_string(), 8),
    };
    let mut out = String::new();
    let bounds = |out: &mut String| out.push_str(&format!("{:<PADDING$}{:>w$}\n", text(min), text(max), w = GRAPH_WIDTH - PADDING));
    out.push_str(&" ".repeat(time_size + 1));
    bounds(&mut out);
    // Padded by bytes, as a C++ stream pads (μ is two).
    out.push_str(&time_fmt);
    out.push_str(&" ".repeat((time_size + 1).saturating_sub(time_fmt.len())));
    out.push_str(&format!("|{}|\n", "_".repeat(GRAPH_WIDTH - 2)));
    let zero = Some(0);
    let mut zero_offset = 0i32;
    if distance(min, zero) < 0 && distance(zero, max) < 0 {
        zero_offset = (GRAPH_WIDTH as f32 * distance(min, zero) as f32 / distance(min, max) as f32) as i32;
    }
    for (ns, v) in s {
        out.push_str(&local_time::at("%H:%M:%S", (ns / 1_000_000_000) as libc::time_t));
        if let Some((_, digits, scale)) = unit {
            out.push_str(&format!(".{:0digits$}", (ns % 1_000_000_000) / scale));
        }
        out.push(' ');
        let mut line = vec![b' '; GRAPH_WIDTH];
        line[0] = b'|';
        line[GRAPH_WIDTH - 1] = b'|';
        if zero_offset > 0 {
            line[zero_offset as usize] = b'.';
        }
        match v {
            Some(v) => {
                let v = Some(widen(*v, signed));
                let mut point = (GRAPH_WIDTH / 2) as i32;
                if min != max {
                    point = ((GRAPH_WIDTH - 1) as f32 * distance(min, v) as f32 / distance(min, max) as f32) as i32;
                }
                line[point.clamp(0, GRAPH_WIDTH as i32 - 1) as usize] = b'*';
                out.push_str(&String::from_utf8_lossy(&line));
                out.push(' ');
                out.push_str(&text(v));
            }
            None => {
                out.push_str(&String::from_utf8_lossy(&line));
                out.push_str(" -");
            }
        }
        out.push('\n');
    }
    let mut bottom = vec![b'_'; GRAPH_WIDTH];
    bottom[0] = b'v';
    bottom[GRAPH_WIDTH - 1] = b'v';
    out.push_str(&" ".repeat(time_size));
    out.push(' ');
    out.push_str(&String::from_utf8_lossy(&bottom));
    out.push('\n');
    out.push_str(&" ".repeat(time_size));
    out.push(' ');
    bounds(&mut out);
    out
}

/// A series as current bpftrace's JSON has it: its values with the UTC time their
/// interval starts at, nanoseconds included (`{"interval_start":"1970-01-01
/// 00:00:00.500000000","value":9}`), gaps left out.
pub fn json(s: &[(u64, Option<i64>)], signed: bool) -> String {
    let points: Vec<String> = s
        .iter()
        .filter_map(|(ns, v)| {
            let v = (*v)?;
            let at = format!("{}.{:09}", local_time::utc("%Y-%m-%d %H:%M:%S", (ns / 1_000_000_000) as libc::time_t), ns % 1_000_000_000);
            Some(format!("{{\"interval_start\":\"{at}\",\"value\":{}}}", widen(v, signed)))
        })
        .collect();
    format!("[{}]", points.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::{AggData, Value};
    use crumbs_lang::ir::agg::{tseries::TSERIES, AggKind};

    /// Times of the local day's start, so that the printed hours are 00.
    fn local_midnight() -> u64 {
        let now = 1_700_000_000i64;
        let hms = local_time::at("%H %M %S", now);
        let p: Vec<i64> = hms.split(' ').map(|x| x.parse().unwrap()).collect();
        (now - p[0] * 3600 - p[1] * 60 - p[2]) as u64 * 1_000_000_000
    }

    fn row(key: Option<&str>, consts: Vec<i64>, words: Vec<u64>) -> AggRow {
        AggRow { keys: key.map(|k| vec![Value::Str(k.into())]).unwrap_or_default(), data: AggData { kind: AggKind::new(&TSERIES, consts), words } }
    }

    /// Buckets (value, meta, epoch) of `n` intervals from the (epoch, value) pairs.
    fn words(n: usize, points: &[(u64, i64)]) -> Vec<u64> {
        let mut w = vec![0u64; 3 * n];
        for (e, v) in points {
            let b = (*e as usize % n) * 3;
            w[b] = *v as u64;
            w[b + 1] = 1;
            w[b + 2] = *e;
        }
        w
    }

    #[test]
    fn a_flat_series_as_bpftraces_test_prints_it() {
        // current bpftrace's runtime test `tseries` (outputs/tseries.txt): five intervals of
        // 100 ms, 9 in each.
        let base = local_midnight() / 100_000_000;
        let r = row(None, vec![100_000_000, 5, 0, 0], words(5, &(5..10).map(|e| (base + e, 9)).collect::<Vec<_>>()));
        let mut out = String::new();
        print_series(&mut out, "a", &[r]);
        let want = "@a:\n             8                                                  10\nhh:mm:ss.ms  |___________________________________________________|\n\
            00:00:00.500 |                         *                         | 9\n00:00:00.600 |                         *                         | 9\n\
            00:00:00.700 |                         *                         | 9\n00:00:00.800 |                         *                         | 9\n\
            00:00:00.900 |                         *                         | 9\n             v___________________________________________________v\n\
            \x20            8                                                  10\n\n";
        assert_eq!(out, want);
    }

    #[test]
    fn keys_share_the_range_and_gaps_print_a_dash() {
        // outputs/tseries_multiple.txt: "one" holds 5 in intervals 1..=4, "two" 4 in 5..=9.
        let base = local_midnight() / 100_000_000;
        let one = row(Some("one"), vec![100_000_000, 10, 0, 1], words(10, &(1..5).map(|e| (base + e, 5)).collect::<Vec<_>>()));
        let two = row(Some("two"), vec![100_000_000, 10, 0, 1], words(10, &(5..10).map(|e| (base + e, 4)).collect::<Vec<_>>()));
        let mut out = String::new();
        print_series(&mut out, "a", &[two, one]);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "@a[one]:");
        assert_eq!(lines[1], "             4                                                   6");
        assert_eq!(lines[3], "00:00:00.100 |                         *                         | 5");
        assert_eq!(lines[7], "00:00:00.500 |                                                   | -");
        assert_eq!(lines[14], "");
        assert_eq!(lines[15], "@a[two]:");
        assert_eq!(lines[18], "00:00:00.500 |                         *                         | 4");
    }

    #[test]
    fn zero_is_marked_between_negative_and_positive() {
        // The zigzag of bpftrace's docs: -5 to 5, `.` at column 26.
        let s: Series = (0..11).map(|i| (local_midnight() + i * 100_000_000, Some(i as i64 - 5))).collect();
        let c = chart(&s, true);
        let lines: Vec<&str> = c.lines().collect();
        assert_eq!(lines[0], "             -5                                                  5");
        assert_eq!(lines[2], "00:00:00.000 *                         .                         | -5");
        assert_eq!(lines[3], "00:00:00.100 |    *                    .                         | -4");
        assert_eq!(lines[7], "00:00:00.500 |                         *                         | 0");
        assert_eq!(lines[12], "00:00:01.000 |                         .                         * 5");
    }

    #[test]
    fn units_follow_the_interval() {
        let at = local_midnight();
        let s: Series = vec![(at, Some(1)), (at + 2_000, Some(2))];
        let c = chart(&s, false);
        assert!(c.starts_with("                1                    "), "{c}");
        assert!(c.contains("\nhh:mm:ss.μs    |___"), "{c}");
        assert!(c.contains("\n00:00:00.000002 |"), "{c}");
        let s: Series = vec![(at, Some(0))];
        // One value, unsigned 0: the axis runs from 0 (no lower) to 1; the unit is ns.
        let c = chart(&s, false);
        assert!(c.starts_with(&format!("{}0{}1\n", " ".repeat(19), " ".repeat(51))), "{c}");
        assert_eq!(chart(&[], true), "<no data>");
    }

    #[test]
    fn json_leaves_gaps_out() {
        let s: Series = vec![(500_000_000, Some(9)), (600_000_000, None), (1_700_000_000_000_000_123, Some(-1))];
        assert_eq!(json(&s, true), r#"[{"interval_start":"1970-01-01 00:00:00.500000000","value":9},{"interval_start":"2023-11-14 22:13:20.000000123","value":-1}]"#);
    }

    #[test]
    fn zeroed_keys_have_no_data() {
        // outputs/tseries_zero.json: zero(@a) leaves no interval.
        let r = row(None, vec![100_000_000, 5, 1, 0], vec![0; 15]);
        let s = series(std::slice::from_ref(&r));
        assert!(s[0].2.is_empty());
        let mut out = String::new();
        print_series(&mut out, "a", &[r]);
        assert_eq!(out, "@a:\n<no data>\n");
    }
}
