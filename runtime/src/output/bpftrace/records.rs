//! bpftrace 0.17's JSON records (`-f json`), byte for byte: pure functions, values in, one
//! line of text out. Every record is `{"type": "T", "data": D}` and a newline, with `": "`
//! and `", "` between the parts of an object and nothing after `[` or before `]`.
//!
//! * `printf` (a string), `time` (a string), `value` (print() of a value: an integer as a
//!   number, anything else as a string), `syscall` (system()'s output, a string),
//!   `attached_probes` (`{"probes": N}`).
//! * `map` (count, sum, min, max, maps of values), `stats` (avg: the average; stats: an
//!   object of count, average and total), `hist` (hist and lhist: a list of buckets): data
//!   is `{"@name": V}`, V being the value of a keyless map, else an object of its rows,
//!   each key printed as the text format prints it (several joined by `,`, no space) as
//!   the member's name. Rows are in the text format's order ([`super::maps`]). An empty
//!   map prints no record, except a keyless count(), which is 0.
//! * a bucket is `{"min": A, "max": B, "count": N}`, the first without `min`, lhist's last
//!   without `max`; the buckets are those the text format prints (first to last non-empty).
//!   bpftrace 0.17 computes hist bounds in 32 bits (its bucket for 2^31 and up prints
//!   `"min": -2147483648, "max": 0`); crumbs prints the true 64-bit bounds.
//!
//! Strings are escaped as bpftrace escapes them, which is not quite JSON: `"` `\` and
//! newline, carriage return and tab as `\"` `\\` `\n` `\r` `\t`, `/` as it is, and every
//! other byte that is a control character *or has its top bit set* (bpftrace tests a signed
//! `char`) as `\u` with the byte sign-extended to 32 bits in hex: `\u0001`,
//! `\uffffffc3` for the first byte of `é`. serde_json (not a dependency of the workspace
//! anyway) would write valid JSON for those bytes, which is not what bpftrace writes, so
//! the escaper is this module's own.

use super::super::{AggRow, Value};
use super::hist::{hist_bounds, hist_buckets, lhist_bounds, printed_buckets, split_bounds};
use super::keys::key_text;
use super::maps::{self, AggMap, Limits, Shape};
use crumbs_lang::ir::agg::Summary;

/// `s` as a JSON string as bpftrace writes it, quotes included.
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for &b in s.as_bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            // As a signed char: control characters and every byte >= 0x80.
            0..=0x1f | 0x80.. => out.push_str(&format!("\\u{:04x}", b as i8 as i32)),
            _ => out.push(b as char),
        }
    }
    out.push('"');
    out
}

/// One record: `{"type": "kind", "data": data}` and a newline; `data` is JSON already.
pub fn record(kind: &str, data: &str) -> String {
    format!("{{\"type\": \"{kind}\", \"data\": {data}}}\n")
}

/// What bpftrace writes before tracing instead of `Attaching N probes...`.
pub fn attached_probes(n: usize) -> String {
    record("attached_probes", &format!("{{\"probes\": {n}}}"))
}

/// A value as print() and maps of values write it: an integer as a number (as its type's
/// sign says, divided by `div`), a tuple as an array of its elements (`[1,"a"]`, as
/// bpftrace 0.17 writes one), anything else as the text format prints it, as a string.
pub fn value(v: &Value, div: u64) -> String {
    match v {
        Value::Int(..) => maps::value_text(v, div),
        Value::Tuple(elems) => format!("[{}]", elems.iter().map(|e| value(e, 1)).collect::<Vec<_>>().join(",")),
        // An array as a JSON array of its numbers, `[1,2,3,4]`, as bpftrace 0.17 writes one.
        Value::Array(elems) => Value::array_text(elems),
        // A struct kept in a map: an object of its members, as 0.17 writes one.
        Value::Object(bytes, layout) => super::structs::object_json(layout, bytes),
        // Current bpftrace's record: an object of its fields, spaced (`{"a": 1, "b": "x"}`).
        Value::Record(fields) => format!("{{{}}}", fields.iter().map(|(n, e)| format!("{}: {}", string(n), value(e, 1))).collect::<Vec<_>>().join(", ")),
        _ => string(&maps::value_text(v, 1)),
    }
}

/// One key in a JSON member's name: as the text format prints it, a tuple or record among
/// the keys (current bpftrace's) without its spaces, as current bpftrace writes them.
fn json_key(key: &Value) -> String {
    match key {
        Value::Tuple(_) | Value::Record(_) => key_text(key).replace(' ', ""),
        _ => key_text(key),
    }
}

/// A map record of type `kind`: a keyless map's one value, or an object of its rows
/// (`(keys, value JSON)`, in order); none for no rows.
fn map_record(kind: &str, name: &str, keyless: bool, rows: Vec<(&[Value], String)>) -> Option<String> {
    let data = if keyless {
        rows.into_iter().next()?.1
    } else if rows.is_empty() {
        return None;
    } else {
        let members: Vec<String> = rows.into_iter().map(|(k, v)| format!("{}: {v}", string(&k.iter().map(json_key).collect::<Vec<_>>().join(",")))).collect();
        format!("{{{}}}", members.join(", "))
    };
    Some(record(kind, &format!("{{{}: {data}}}", string(&format!("@{name}")))))
}

/// An aggregation map with its rows (in any order) as bpftrace writes it (none if empty).
pub fn aggregation(map: &AggMap, rows: &[AggRow], limits: Limits) -> Option<String> {
    if map.is_untouched_count(rows) {
        return map_record("map", map.name, true, vec![(&[], "0".to_string())]);
    }
    let shape = map.shape();
    let kind = match shape {
        Shape::Stats | Shape::Avg => "stats",
        Shape::Distribution => "hist",
        Shape::Series => "tseries",
        Shape::Scalar { .. } => "map",
    };
    if shape == Shape::Series {
        let rows = super::tseries::series(rows).into_iter().map(|(r, signed, s)| (&r.keys[..], super::tseries::json(&s, signed))).collect();
        return map_record(kind, map.name, map.keyless, rows);
    }
    let rows = maps::ordered(shape, rows, limits)
        .into_iter()
        .map(|r| {
            let v = match shape {
                Shape::Stats => {
                    let (count, total) = maps::count_total(r);
                    format!("{{\"count\": {count}, \"average\": {}, \"total\": {total}}}", maps::average(r))
                }
                Shape::Avg => maps::average_divided(r, limits).to_string(),
                Shape::Distribution => buckets(r, limits),
                Shape::Scalar { count } => maps::scalar_text(r, count, limits),
                Shape::Series => String::new(),
            };
            (&r.keys[..], v)
        })
        .collect();
    map_record(kind, map.name, map.keyless, rows)
}

/// A map of values with its rows (in any order) as bpftrace writes it (none if empty).
pub fn value_map(name: &str, rows: &[(Vec<Value>, Value)], limits: Limits) -> Option<String> {
    let keyless = rows.first().is_some_and(|(k, _)| k.is_empty());
    let rows = maps::ordered_values(rows, limits).into_iter().map(|(k, v)| (&k[..], value(v, limits.div()))).collect();
    map_record("map", name, keyless, rows)
}

/// A hist or lhist row's buckets: hist counts divided by `limits.div`, lhist's not.
fn buckets(r: &AggRow, limits: Limits) -> String {
    type Bounds = Box<dyn Fn(usize) -> (Option<i64>, Option<i64>)>;
    let (counts, div, bounds): (Vec<u64>, u64, Bounds) = match r.data.summary() {
        Summary::Log2(q) => (hist_buckets(q), limits.div(), Box::new(hist_bounds)),
        Summary::Log2Split { k, buckets } => (buckets.to_vec(), limits.div(), Box::new(move |i| split_bounds(k, i))),
        Summary::Linear { base, limit, step, buckets } => {
            let levels = buckets.len().saturating_sub(2);
            (buckets.to_vec(), 1, Box::new(move |i| lhist_bounds(base, limit, step, levels, i)))
        }
        _ => (Vec::new(), 1, Box::new(hist_bounds)),
    };
    let list: Vec<String> = printed_buckets(&counts)
        .map(|i| {
            let (min, max) = bounds(i);
            let mut fields = Vec::new();
            if let Some(min) = min {
                fields.push(format!("\"min\": {min}"));
            }
            if let Some(max) = max {
                fields.push(format!("\"max\": {max}"));
            }
            fields.push(format!("\"count\": {}", counts[i] / div));
            format!("{{{}}}", fields.join(", "))
        })
        .collect();
    format!("[{}]", list.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::AggData;
    use crumbs_lang::ir::agg::{self, AggKind, Aggregator};
    use crumbs_lang::ir::IntRepr;

    fn kind(func: &'static dyn Aggregator, consts: Vec<i64>) -> AggKind {
        AggKind::new(func, consts)
    }
    fn row(keys: Vec<Value>, kind: &AggKind, words: Vec<u64>) -> AggRow {
        AggRow { keys, data: AggData { kind: kind.clone(), words } }
    }
    fn long(n: i64) -> Value {
        Value::long(n)
    }
    fn str(s: &str) -> Value {
        Value::Str(s.into())
    }
    fn written(name: &str, kind: &AggKind, keyless: bool, stats: bool, rows: &[AggRow], limits: Limits) -> String {
        aggregation(&AggMap { name, kind, keyless, stats }, rows, limits).unwrap_or_default()
    }
    fn limits(top: u32, div: u32) -> Limits {
        Limits { top, div }
    }

    #[test]
    fn strings_escape_as_bpftrace_escapes_them() {
        // bpftrace 0.17 -f json: printf("x\"y\\z\t\n") wrote "x\"y\\z\t\n";
        // printf("a\x01b\x7f\xc3\xa9 \x1f\r/%c%c%c<%s>\n", 8, 12, 0x80, "q\"\\") wrote
        // "a\u0001b<DEL>\uffffffc3\uffffffa9 \u001f\r/\u0008\u000c\uffffff80<q\"\\>\n".
        assert_eq!(string("x\"y\\z\t\n"), r#""x\"y\\z\t\n""#);
        let s = "a\u{1}b\u{7f}é \u{1f}\r/\u{8}\u{c}<q\"\\>\n";
        assert_eq!(string(s), "\"a\\u0001b\u{7f}\\uffffffc3\\uffffffa9 \\u001f\\r/\\u0008\\u000c<q\\\"\\\\>\\n\"");
        assert_eq!(string("\u{80}"), "\"\\uffffffc2\\uffffff80\"");
    }

    #[test]
    fn plain_records() {
        assert_eq!(attached_probes(1), "{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}\n");
        // print(5); print("hi\"x"); print(-3); time();
        assert_eq!(record("value", &value(&long(5), 1)), "{\"type\": \"value\", \"data\": 5}\n");
        assert_eq!(record("value", &value(&str("hi\"x"), 1)), "{\"type\": \"value\", \"data\": \"hi\\\"x\"}\n");
        assert_eq!(record("value", &value(&long(-3), 1)), "{\"type\": \"value\", \"data\": -3}\n");
        assert_eq!(record("time", &string("13:17:28\n")), "{\"type\": \"time\", \"data\": \"13:17:28\\n\"}\n");
        // print(kstack(2)) wrote the text format's stack, frames indented by 8.
        let stack = Value::Stack(vec!["__schedule+1560".into(), "schedule+35".into()], crumbs_lang::ir::StackMode::Bpftrace);
        assert_eq!(value(&stack, 1), r#""\n        __schedule+1560\n        schedule+35\n""#);
        // @u[1] = (uint64)-1 wrote 18446744073709551615.
        assert_eq!(value(&Value::Int(-1, IntRepr::U64), 1), "18446744073709551615");
    }

    #[test]
    fn keyless_scalars_avg_and_stats() {
        // BEGIN { @c = count(); @s = sum(5); @a = avg(7); @a = avg(8); @mn = min(3);
        //   @st = stats(7); @st = stats(8); exit(); } wrote (among others):
        let count = kind(&agg::count::Count, vec![]);
        let sum = kind(&agg::sum::Sum, vec![]);
        let min = kind(&agg::extreme::MIN, vec![]);
        let avg = kind(&agg::avg::Avg, vec![]);
        let d = Limits::default();
        assert_eq!(written("c", &count, true, false, &[row(vec![], &count, vec![1])], d), "{\"type\": \"map\", \"data\": {\"@c\": 1}}\n");
        assert_eq!(written("s", &sum, true, false, &[row(vec![], &sum, vec![5])], d), "{\"type\": \"map\", \"data\": {\"@s\": 5}}\n");
        assert_eq!(written("mn", &min, true, false, &[row(vec![], &min, vec![1, 3])], d), "{\"type\": \"map\", \"data\": {\"@mn\": 3}}\n");
        assert_eq!(written("a", &avg, true, false, &[row(vec![], &avg, vec![2, 15])], d), "{\"type\": \"stats\", \"data\": {\"@a\": 7}}\n");
        let st = written("st", &avg, true, true, &[row(vec![], &avg, vec![2, 15])], d);
        assert_eq!(st, "{\"type\": \"stats\", \"data\": {\"@st\": {\"count\": 2, \"average\": 7, \"total\": 15}}}\n");
    }

    #[test]
    fn keyed_maps_in_the_text_formats_order() {
        // BEGIN { @c[1]=count(); @c[2]=count() x2; @m[1,"a"]=count(); @a[1]=avg(10);
        //   @a[2]=avg(20); @st[1]=stats(3); @st[2]=stats(5); exit(); } wrote:
        let count = kind(&agg::count::Count, vec![]);
        let avg = kind(&agg::avg::Avg, vec![]);
        let d = Limits::default();
        let c = [row(vec![long(2)], &count, vec![2]), row(vec![long(1)], &count, vec![1])];
        assert_eq!(written("c", &count, false, false, &c, d), "{\"type\": \"map\", \"data\": {\"@c\": {\"1\": 1, \"2\": 2}}}\n");
        let m = [row(vec![long(1), str("a")], &count, vec![1])];
        assert_eq!(written("m", &count, false, false, &m, d), "{\"type\": \"map\", \"data\": {\"@m\": {\"1,a\": 1}}}\n");
        let a = [row(vec![long(2)], &avg, vec![1, 20]), row(vec![long(1)], &avg, vec![1, 10])];
        assert_eq!(written("a", &avg, false, false, &a, d), "{\"type\": \"stats\", \"data\": {\"@a\": {\"1\": 10, \"2\": 20}}}\n");
        let st = [row(vec![long(2)], &avg, vec![1, 5]), row(vec![long(1)], &avg, vec![1, 3])];
        let want = "{\"type\": \"stats\", \"data\": {\"@st\": {\"1\": {\"count\": 1, \"average\": 3, \"total\": 3}, \"2\": {\"count\": 1, \"average\": 5, \"total\": 5}}}}\n";
        assert_eq!(written("st", &avg, false, true, &st, d), want);
        // The unnamed map: @ = count() wrote {"@": 1}.
        assert_eq!(written("", &count, true, false, &[row(vec![], &count, vec![1])], d), "{\"type\": \"map\", \"data\": {\"@\": 1}}\n");
    }

    #[test]
    fn print_with_top_and_div() {
        // @c[1]=1, @c[2]=2 (and @c[3]=1): print(@c, 2) wrote {"1": 1, "2": 2}; print(@c, 0, 2)
        // {"3": 0, "1": 0, "2": 1} (equal values in hash order there; crumbs by key).
        let count = kind(&agg::count::Count, vec![]);
        let c = [row(vec![long(3)], &count, vec![1]), row(vec![long(2)], &count, vec![2]), row(vec![long(1)], &count, vec![1])];
        assert_eq!(written("c", &count, false, false, &c, limits(2, 0)), "{\"type\": \"map\", \"data\": {\"@c\": {\"3\": 1, \"2\": 2}}}\n");
        assert_eq!(written("c", &count, false, false, &c, limits(0, 2)), "{\"type\": \"map\", \"data\": {\"@c\": {\"1\": 0, \"3\": 0, \"2\": 1}}}\n");
        // @a = avg(3); print(@a, 0, 2) wrote {"@a": 1}; print(@st, 1, 2) ignored both.
        let avg = kind(&agg::avg::Avg, vec![]);
        assert_eq!(written("a", &avg, true, false, &[row(vec![], &avg, vec![1, 3])], limits(0, 2)), "{\"type\": \"stats\", \"data\": {\"@a\": 1}}\n");
        let st = [row(vec![long(1)], &avg, vec![1, 10]), row(vec![long(2)], &avg, vec![1, 20])];
        let want = "{\"type\": \"stats\", \"data\": {\"@st\": {\"1\": {\"count\": 1, \"average\": 10, \"total\": 10}, \"2\": {\"count\": 1, \"average\": 20, \"total\": 20}}}}\n";
        assert_eq!(written("st", &avg, false, true, &st, limits(1, 2)), want);
    }

    #[test]
    fn empty_maps_write_nothing_but_a_keyless_count() {
        // tracepoint:sched:sched_switch { @e = count(); @eh = hist(1); @es = stats(1); } with
        // BEGIN { exit(); } wrote only {"@e": 0}; print(@z) of a cleared @z wrote nothing.
        let count = kind(&agg::count::Count, vec![]);
        let hist = kind(&agg::quantize::Quantize, vec![]);
        let avg = kind(&agg::avg::Avg, vec![]);
        let d = Limits::default();
        assert_eq!(written("e", &count, true, false, &[], d), "{\"type\": \"map\", \"data\": {\"@e\": 0}}\n");
        assert_eq!(aggregation(&AggMap { name: "z", kind: &count, keyless: false, stats: false }, &[], d), None);
        assert_eq!(aggregation(&AggMap { name: "eh", kind: &hist, keyless: true, stats: false }, &[], d), None);
        assert_eq!(aggregation(&AggMap { name: "es", kind: &avg, keyless: true, stats: true }, &[], d), None);
        assert_eq!(value_map("em", &[], d), None);
        // zero(@h) of @h[1], @h[2] wrote {"@h": {"1": [], "2": []}}; zero(@s) of a stats()
        // {"@s": {"count": 0, "average": 0, "total": 0}}.
        let h = [row(vec![long(2)], &hist, vec![0; 127]), row(vec![long(1)], &hist, vec![0; 127])];
        assert_eq!(written("h", &hist, false, false, &h, d), "{\"type\": \"hist\", \"data\": {\"@h\": {\"1\": [], \"2\": []}}}\n");
        let s = written("s", &avg, true, true, &[row(vec![], &avg, vec![0, 0])], d);
        assert_eq!(s, "{\"type\": \"stats\", \"data\": {\"@s\": {\"count\": 0, \"average\": 0, \"total\": 0}}}\n");
    }

    use super::super::hist::tests::quantize;

    #[test]
    fn hist_buckets_from_first_to_last_non_empty() {
        // BEGIN { @h = hist(-3); @h=hist(0); @h=hist(1); @h=hist(1); @h=hist(5);
        //   @h=hist(1000); @h=hist(1024); exit(); } wrote:
        let hist = kind(&agg::quantize::Quantize, vec![]);
        let h = [row(vec![], &hist, quantize(&[-3, 0, 1, 1, 5, 1000, 1024]))];
        let want = r#"{"type": "hist", "data": {"@h": [{"max": -1, "count": 1}, {"min": 0, "max": 0, "count": 1}, {"min": 1, "max": 1, "count": 2}, {"min": 2, "max": 3, "count": 0}, {"min": 4, "max": 7, "count": 1}, {"min": 8, "max": 15, "count": 0}, {"min": 16, "max": 31, "count": 0}, {"min": 32, "max": 63, "count": 0}, {"min": 64, "max": 127, "count": 0}, {"min": 128, "max": 255, "count": 0}, {"min": 256, "max": 511, "count": 0}, {"min": 512, "max": 1023, "count": 1}, {"min": 1024, "max": 2047, "count": 1}]}}
"#;
        assert_eq!(written("h", &hist, true, false, &h, Limits::default()), want);
        // @hk[1]=hist(3); @hk[2]=hist(8) x2 wrote {"@hk": {"1": [...], "2": [...]}}, by total;
        // print(@hk, 0, 2) divides the counts.
        let hk = [row(vec![long(2)], &hist, quantize(&[8, 8])), row(vec![long(1)], &hist, quantize(&[3]))];
        let want = r#"{"type": "hist", "data": {"@hk": {"1": [{"min": 2, "max": 3, "count": 1}], "2": [{"min": 8, "max": 15, "count": 2}]}}}
"#;
        assert_eq!(written("hk", &hist, false, false, &hk, Limits::default()), want);
        assert!(written("hk", &hist, false, false, &hk, limits(0, 2)).contains(r#"{"1": [{"min": 2, "max": 3, "count": 0}], "2": [{"min": 8, "max": 15, "count": 1}]}"#));
        // hist(1<<30) wrote min 1073741824, max 2147483647. Above, bpftrace's 32-bit bounds
        // go wrong; crumbs' are the true ones, up to 2^63 - 1.
        let big = [row(vec![], &hist, quantize(&[1 << 30, i64::MAX]))];
        let w = written("h", &hist, true, false, &big, Limits::default());
        assert!(w.contains(r#"[{"min": 1073741824, "max": 2147483647, "count": 1}, {"min": 2147483648, "max": 4294967295, "count": 0}"#), "{w}");
        assert!(w.ends_with(r#"{"min": 4611686018427387904, "max": 9223372036854775807, "count": 1}]}}
"#), "{w}");
    }

    #[test]
    fn lhist_buckets_and_their_open_ends() {
        // @l = lhist(-5, 0, 100, 10); lhist(35, ...); lhist(1000, ...) wrote:
        let lhist = kind(&agg::lquantize::Lquantize, vec![0, 100, 10]);
        let mut b = vec![0u64; 12];
        b[0] = 1;
        b[4] = 1;
        b[11] = 1;
        let want = r#"{"type": "hist", "data": {"@l": [{"max": -1, "count": 1}, {"min": 0, "max": 9, "count": 0}, {"min": 10, "max": 19, "count": 0}, {"min": 20, "max": 29, "count": 0}, {"min": 30, "max": 39, "count": 1}, {"min": 40, "max": 49, "count": 0}, {"min": 50, "max": 59, "count": 0}, {"min": 60, "max": 69, "count": 0}, {"min": 70, "max": 79, "count": 0}, {"min": 80, "max": 89, "count": 0}, {"min": 90, "max": 99, "count": 0}, {"min": 100, "count": 1}]}}
"#;
        assert_eq!(written("l", &lhist, true, false, &[row(vec![], &lhist, b)], Limits::default()), want);
        // @l2[3] = lhist(2048, 0, 4096, 1024) wrote {"@l2": {"3": [{"min": 2048, "max": 3071,
        // "count": 1}]}}; print(@l, 0, 2) leaves lhist counts undivided.
        let l2 = kind(&agg::lquantize::Lquantize, vec![0, 4096, 1024]);
        let mut b = vec![0u64; 6];
        b[3] = 2;
        let want = "{\"type\": \"hist\", \"data\": {\"@l2\": {\"3\": [{\"min\": 2048, \"max\": 3071, \"count\": 2}]}}}\n";
        assert_eq!(written("l2", &l2, false, false, &[row(vec![long(3)], &l2, b)], limits(0, 2)), want);
    }

    #[test]
    fn maps_of_values_and_their_keys() {
        // BEGIN { @v[1]="s"; @v[2]="t"; @i["k"]=5; @i["j"]=-2; @t[1,2]="a"; @w["x","y,z"]=1;
        //   @q["a\"b\\c\n"]=1; @str = "hi"; exit(); } wrote:
        let d = Limits::default();
        let v = [(vec![long(2)], str("t")), (vec![long(1)], str("s"))];
        assert_eq!(value_map("v", &v, d).unwrap(), "{\"type\": \"map\", \"data\": {\"@v\": {\"1\": \"s\", \"2\": \"t\"}}}\n");
        let i = [(vec![str("k")], long(5)), (vec![str("j")], long(-2))];
        assert_eq!(value_map("i", &i, d).unwrap(), "{\"type\": \"map\", \"data\": {\"@i\": {\"j\": -2, \"k\": 5}}}\n");
        assert_eq!(value_map("t", &[(vec![long(1), long(2)], str("a"))], d).unwrap(), "{\"type\": \"map\", \"data\": {\"@t\": {\"1,2\": \"a\"}}}\n");
        assert_eq!(value_map("w", &[(vec![str("x"), str("y,z")], long(1))], d).unwrap(), "{\"type\": \"map\", \"data\": {\"@w\": {\"x,y,z\": 1}}}\n");
        assert_eq!(value_map("q", &[(vec![str("a\"b\\c\n")], long(1))], d).unwrap(), "{\"type\": \"map\", \"data\": {\"@q\": {\"a\\\"b\\\\c\\n\": 1}}}\n");
        assert_eq!(value_map("str", &[(vec![], str("hi"))], d).unwrap(), "{\"type\": \"map\", \"data\": {\"@str\": \"hi\"}}\n");
        // @a[(uint64)-1] = 1; @a[-5] = 2; @a[(uint32)4294967295] = 3 wrote
        // {"@a": {"-1": 1, "-5": 2, "4294967295": 3}}.
        let a = [(vec![Value::Int(-1, IntRepr::U64)], long(1)), (vec![long(-5)], long(2)), (vec![Value::Int(-1, IntRepr { size: 4, signed: false })], long(3))];
        assert_eq!(value_map("a", &a, d).unwrap(), "{\"type\": \"map\", \"data\": {\"@a\": {\"-1\": 1, \"-5\": 2, \"4294967295\": 3}}}\n");
        // print(@i, 1) wrote {"@i": {"j": 7}} of k=5, a=6, j=7.
        let i = [(vec![str("k")], long(5)), (vec![str("a")], long(6)), (vec![str("j")], long(7))];
        assert_eq!(value_map("i", &i, limits(1, 0)).unwrap(), "{\"type\": \"map\", \"data\": {\"@i\": {\"j\": 7}}}\n");
    }

    #[test]
    fn stack_keys_and_values() {
        // tracepoint:sched:sched_switch { @k[kstack(2)] = count(); @x[kstack(2), 5] = 3;
        //   @ks[1] = kstack(2); @ss = ksym(0xffffffff81000000); } wrote keys indented by 4,
        //   values by 8, and a symbol by name:
        let stack = Value::Stack(vec!["__schedule+1560".into(), "schedule+35".into()], crumbs_lang::ir::StackMode::Bpftrace);
        let count = kind(&agg::count::Count, vec![]);
        let k = [row(vec![stack.clone()], &count, vec![97])];
        assert_eq!(written("k", &count, false, false, &k, Limits::default()), "{\"type\": \"map\", \"data\": {\"@k\": {\"\\n    __schedule+1560\\n    schedule+35\\n\": 97}}}\n");
        let d = Limits::default();
        let x = value_map("x", &[(vec![stack.clone(), long(5)], long(3))], d).unwrap();
        assert_eq!(x, "{\"type\": \"map\", \"data\": {\"@x\": {\"\\n    __schedule+1560\\n    schedule+35\\n,5\": 3}}}\n");
        let ks = value_map("ks", &[(vec![long(1)], stack)], d).unwrap();
        assert_eq!(ks, "{\"type\": \"map\", \"data\": {\"@ks\": {\"1\": \"\\n        __schedule+1560\\n        schedule+35\\n\"}}}\n");
        let ss = value_map("ss", &[(vec![], Value::Sym(0xffffffff81000000, "_text".into()))], d).unwrap();
        assert_eq!(ss, "{\"type\": \"map\", \"data\": {\"@ss\": \"_text\"}}\n");
    }

    /// bpftrace's arrays (pton(), a record's `__u8 saddr[4]`): a value as a JSON array, a key
    /// as its text, elements by their type's sign, as bpftrace 0.17 writes them.
    #[test]
    fn arrays_as_values_and_keys() {
        let u8s = |b: &[u8]| Value::Array(b.iter().map(|x| Value::Int(*x as i64, IntRepr { size: 1, signed: false })).collect());
        let d = Limits::default();
        assert_eq!(value(&u8s(&[1, 2, 3, 4]), 1), "[1,2,3,4]");
        assert_eq!(value(&Value::Array(vec![Value::Int(-1, IntRepr { size: 2, signed: true }), Value::Int(-1, IntRepr { size: 2, signed: false })]), 1), "[-1,65535]");
        assert_eq!(value_map("k", &[(vec![u8s(&[10, 0, 0, 1]), str("x")], long(7))], d).unwrap(), "{\"type\": \"map\", \"data\": {\"@k\": {\"[10,0,0,1],x\": 7}}}\n");
        assert_eq!(value_map("v", &[(vec![], u8s(&[0, 1]))], d).unwrap(), "{\"type\": \"map\", \"data\": {\"@v\": [0,1]}}\n");
    }
}
