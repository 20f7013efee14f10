//! Current bpftrace's `tseries(n, interval_ns, num_intervals[, agg])`: a time series of the
//! last `num_intervals` intervals of `interval_ns` nanoseconds. The clock is TAI nanoseconds
//! (`bpf_ktime_get_tai_ns()`, bpftrace's `nsecs(tai)`); a firing at time t is in epoch `t / interval_ns`, kept in
//! bucket `epoch % num_intervals`. Each bucket is three words per CPU: the value, a word
//! the function needs (avg: the number of values; min and max: 1 once a value is kept;
//! none: the time of the value) and the epoch the bucket holds (0: never used). A firing
//! in a newer epoch than its bucket's starts the bucket afresh (except with no function,
//! where the last value wins anyway).
//!
//! CPUs' copies merge bucket by bucket as current bpftrace's `reduce_tseries_value()`
//! does: the copies of the latest epoch combine (the last value by its time, sums and
//! counts add, the extreme of the extremes), older ones are dropped.
//!
//! Constants: interval_ns, num_intervals, the function ([`Series`]) and whether the
//! value is signed (1) or unsigned (0), which min, max, avg and the output follow.

use super::{Aggregator, BadArgs, Op, Summary};

pub struct Tseries;

pub static TSERIES: Tseries = Tseries;

/// The most intervals: current bpftrace's limit is "< 1000000", but crumbs keeps every
/// bucket of a key in one value of its per-CPU table, so it takes fewer.
pub const MAX_INTERVALS: i64 = 4000;

/// How the values of one interval combine (tseries()'s last argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Series {
    /// None given: the last value recorded.
    Last,
    Avg,
    Sum,
    Max,
    Min,
}

impl Series {
    /// The functions by name, in the order bpftrace's message lists them.
    pub const NAMED: [(&'static str, Series); 4] = [("avg", Series::Avg), ("max", Series::Max), ("min", Series::Min), ("sum", Series::Sum)];

    pub fn code(self) -> i64 {
        self as i64
    }

    pub fn of_code(c: i64) -> Series {
        [Series::Last, Series::Avg, Series::Sum, Series::Max, Series::Min].get(c as usize).copied().unwrap_or(Series::Last)
    }
}

/// Words per bucket: value, meta, epoch.
pub const BUCKET_WORDS: usize = 3;

/// The constants of a `tseries()` aggregation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    pub interval_ns: u64,
    pub intervals: usize,
    pub func: Series,
    pub signed: bool,
}

impl Params {
    pub fn of(consts: &[i64]) -> Params {
        let c = |i: usize| consts.get(i).copied().unwrap_or(0);
        Params { interval_ns: c(0).max(1) as u64, intervals: c(1).max(1) as usize, func: Series::of_code(c(2)), signed: c(3) != 0 }
    }
}

impl Aggregator for Tseries {
    fn name(&self) -> &'static str {
        "tseries"
    }

    fn params(&self) -> &'static [&'static str] {
        &["interval_ns", "num_intervals", "agg", "signed"]
    }

    /// current bpftrace's words.
    fn not_constant(&self, param: &str) -> Option<String> {
        Some(format!("tseries: invalid {param} value (must be non-negative literal)"))
    }

    fn check(&self, c: &[i64]) -> Result<(), BadArgs> {
        let (interval, n) = (c[0], c[1]);
        if interval <= 0 {
            return Err(BadArgs { message: format!("tseries() interval_ns must be >= 1 ({interval} provided)"), hint: "the length of one interval in nanoseconds, e.g. `100ms` or `1s`".into(), arg: Some(0) });
        }
        if n <= 0 {
            return Err(BadArgs { message: format!("tseries() num_intervals must be >= 1 ({n} provided)"), hint: "how many of the latest intervals to keep, e.g. 20".into(), arg: Some(1) });
        }
        if n > 1_000_000 {
            return Err(BadArgs { message: format!("tseries() num_intervals must be < 1000000 ({n} provided)"), hint: format!("crumbs keeps at most {MAX_INTERVALS} intervals"), arg: Some(1) });
        }
        if n > MAX_INTERVALS {
            return Err(BadArgs {
                message: format!("tseries() num_intervals must be at most {MAX_INTERVALS} in crumbs ({n} provided)"),
                hint: "crumbs keeps a key's intervals in one value of its per-CPU table; use a longer interval_ns".into(),
                arg: Some(1),
            });
        }
        Ok(())
    }

    fn named(&self, s: &str) -> Result<i64, BadArgs> {
        Series::NAMED.iter().find(|(n, _)| *n == s).map(|(_, f)| f.code()).ok_or_else(|| {
            let names: Vec<&str> = Series::NAMED.iter().map(|(n, _)| *n).collect();
            BadArgs {
                message: format!("tseries() expects one of the following aggregation functions: {} (\"{s}\" provided)", names.join(", ")),
                hint: "leave it out to keep the last value of each interval".into(),
                arg: None,
            }
        })
    }

    fn takes_sign(&self) -> bool {
        true
    }

    fn words(&self, c: &[i64]) -> usize {
        BUCKET_WORDS * Params::of(c).intervals
    }

    fn update(&self, c: &[i64]) -> Vec<Op> {
        vec![Op::Series(Params::of(c))]
    }

    // current bpftrace's print() ignores its divisor for a time series.
    fn normalize(&self, _: &[i64], _: &mut [u64], _: i64) {}

    fn summary<'a>(&self, c: &[i64], w: &'a [u64]) -> Summary<'a> {
        Summary::Series { params: Params::of(c), words: w }
    }
}

/// Merges the copies of one key's buckets (see the module's comment) into one copy.
pub fn merge(p: Params, copies: &[&[u64]]) -> Vec<u64> {
    let word = |c: &[u64], i: usize| c.get(i).copied().unwrap_or(0);
    let mut out = vec![0u64; BUCKET_WORDS * p.intervals];
    for b in 0..p.intervals {
        let at = BUCKET_WORDS * b;
        let latest = copies.iter().map(|c| word(c, at + 2)).max().unwrap_or(0);
        if latest == 0 {
            continue;
        }
        let mut merged: Option<(u64, u64)> = None;
        for c in copies.iter().filter(|c| word(c, at + 2) == latest) {
            let (v, m) = (word(c, at), word(c, at + 1));
            merged = Some(match merged {
                None => (v, m),
                Some((cv, cm)) => match p.func {
                    Series::Last if m > cm => (v, m),
                    Series::Last => (cv, cm),
                    Series::Avg => (cv.wrapping_add(v), cm.wrapping_add(m)),
                    Series::Sum => (cv.wrapping_add(v), cm),
                    Series::Max | Series::Min => {
                        let less = if p.signed { (v as i64) < (cv as i64) } else { v < cv };
                        let take = if p.func == Series::Min { less } else { !less && v != cv };
                        (if take { v } else { cv }, cm)
                    }
                },
            });
        }
        let (v, m) = merged.unwrap_or_default();
        out[at] = v;
        out[at + 1] = m;
        out[at + 2] = latest;
    }
    out
}

/// One key's merged buckets as (epoch, value) in epoch order; an avg is the sum over the
/// count, divided as the value's sign says. A key whose buckets were all zeroed (zero())
/// is epoch 0 with value 0, as current bpftrace reads a bucket that holds no epoch.
pub fn points(p: Params, words: &[u64]) -> Vec<(u64, i64)> {
    let mut out: Vec<(u64, i64)> = words
        .chunks(BUCKET_WORDS)
        .filter(|b| b.len() == BUCKET_WORDS && b[2] != 0)
        .map(|b| {
            let v = match p.func {
                Series::Avg if b[1] == 0 => 0,
                Series::Avg if p.signed => (b[0] as i64).wrapping_div(b[1] as i64),
                Series::Avg => (b[0] / b[1]) as i64,
                _ => b[0] as i64,
            };
            (b[2], v)
        })
        .collect();
    if out.is_empty() {
        out.push((0, 0));
    }
    out.sort_by_key(|(e, _)| *e);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(func: Series, signed: bool) -> Params {
        Params { interval_ns: 100, intervals: 2, func, signed }
    }

    #[test]
    fn checks_in_bpftraces_words() {
        assert_eq!(TSERIES.check(&[0, 5, 0, 0]).unwrap_err().message, "tseries() interval_ns must be >= 1 (0 provided)");
        assert_eq!(TSERIES.check(&[1, -2, 0, 0]).unwrap_err().message, "tseries() num_intervals must be >= 1 (-2 provided)");
        assert_eq!(TSERIES.check(&[1, 1000001, 0, 0]).unwrap_err().message, "tseries() num_intervals must be < 1000000 (1000001 provided)");
        assert!(TSERIES.check(&[1, 5000, 0, 0]).is_err());
        assert!(TSERIES.check(&[1, MAX_INTERVALS, 0, 0]).is_ok());
        assert_eq!(TSERIES.named("max"), Ok(Series::Max.code()));
        assert_eq!(TSERIES.named("mean").unwrap_err().message, "tseries() expects one of the following aggregation functions: avg, max, min, sum (\"mean\" provided)");
    }

    #[test]
    fn copies_of_the_latest_epoch_combine() {
        // Bucket 0: CPU 0 holds epoch 4, CPU 1 epoch 6 (newer): CPU 1's alone. Bucket 1: both
        // epoch 7.
        let a: &[u64] = &[5, 1, 4, 3, 2, 7];
        let b: &[u64] = &[-2i64 as u64, 1, 6, 9, 4, 7];
        assert_eq!(merge(params(Series::Sum, true), &[a, b]), vec![-2i64 as u64, 1, 6, 12, 2, 7]);
        assert_eq!(merge(params(Series::Avg, true), &[a, b]), vec![-2i64 as u64, 1, 6, 12, 6, 7]);
        assert_eq!(merge(params(Series::Min, true), &[a, b])[3], 3);
        assert_eq!(merge(params(Series::Max, true), &[a, b])[3], 9);
        // No function: the value with the later time.
        assert_eq!(merge(params(Series::Last, true), &[a, b])[3..5], [9, 4]);
        // Signed or not decides min and max.
        let c: &[u64] = &[0, 0, 0, -1i64 as u64, 1, 7];
        assert_eq!(merge(params(Series::Min, true), &[a, c])[3], -1i64 as u64);
        assert_eq!(merge(params(Series::Min, false), &[a, c])[3], 3);
    }

    #[test]
    fn points_in_epoch_order() {
        let p = params(Series::Avg, true);
        assert_eq!(points(p, &[12, 4, 9, -9i64 as u64, 2, 8]), vec![(8, -4), (9, 3)]);
        assert_eq!(points(p, &[0; 6]), vec![(0, 0)]);
    }
}
