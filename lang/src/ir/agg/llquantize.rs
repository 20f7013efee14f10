//! `llquantize(x, factor, low, high, steps)`: DTrace's log-linear frequency distribution.
//! Bucket 0 counts x < factor^low. Then each order of magnitude m from `low` to `high`
//! covers [factor^m, factor^(m+1)) in linear buckets of width factor^(m+1) / steps (1 while
//! factor^(m+1) <= steps); the first factor^m of that range is the orders below, so an
//! order has steps - steps/factor buckets. The last bucket counts x >= factor^(high+1).
//!
//! As DTrace's `dtrace_aggregate_llquantize_bucket()` does, an order whose next power,
//! factor^(m+2), does not fit in 64 bits is the last: values above it fall into its last
//! bucket, and there is no overflow bucket. The argument checks are DTrace's
//! (`dt_compile_agg()`), with the power of the high magnitude checked exactly.

use super::quantize::count_at;
use super::{Aggregator, BadArgs, Index, Op, Summary};

pub struct Llquantize;

/// The most buckets an llquantize may have (as lquantize's 4000 steps and two more).
pub const MAX_BUCKETS: usize = 4002;

/// The constant arguments, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    pub factor: u16,
    pub low: u16,
    pub high: u16,
    pub steps: u16,
}

impl Params {
    fn of(c: &[i64]) -> Params {
        Params { factor: c[0] as u16, low: c[1] as u16, high: c[2] as u16, steps: c[3] as u16 }
    }
}

/// One order of magnitude: buckets `first ..first + buckets` hold `start + i * width ..`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Magnitude {
    /// factor^m.
    pub start: i64,
    /// factor^(m+1), if it fits in an i64 (no value reaches it otherwise).
    pub end: Option<i64>,
    pub width: i64,
    pub first: usize,
    pub buckets: usize,
}

/// Where each value goes: bucket 0 below `low`, then the magnitudes, then the overflow
/// bucket unless the last magnitude is `clamped` (takes every value above it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// factor^low.
    pub low: i64,
    pub magnitudes: Vec<Magnitude>,
    pub clamped: bool,
}

impl Layout {
    pub fn new(p: Params) -> Layout {
        // In i128: factor^(m+2) may pass i64 (the checks keep factor^high within u64).
        let f = p.factor.max(2) as i128;
        let low = f.saturating_pow(p.low as u32).min(i64::MAX as i128);
        let (mut last, mut this) = (low, low * f);
        let mut magnitudes = Vec::new();
        let mut first = 1;
        for _ in p.low..=p.high {
            let per = this.min(p.steps.max(1) as i128);
            let buckets = (per - per / f) as usize;
            let end = i64::try_from(this).ok();
            let width = (this / per).min(i64::MAX as i128) as i64;
            magnitudes.push(Magnitude { start: last as i64, end, width, first, buckets });
            first += buckets;
            let next = this * f;
            if next > i64::MAX as i128 {
                return Layout { low: low as i64, magnitudes, clamped: true };
            }
            (last, this) = (this, next);
        }
        Layout { low: low as i64, magnitudes, clamped: false }
    }

    /// Number of buckets.
    pub fn buckets(&self) -> usize {
        let top = self.magnitudes.last().map_or(1, |m| m.first + m.buckets);
        top + usize::from(!self.clamped)
    }

    /// The index of the overflow bucket, if there is one.
    pub fn overflow(&self) -> Option<usize> {
        (!self.clamped).then(|| self.buckets() - 1)
    }

    /// factor^(high+1), the overflow bucket's lower bound (when there is one).
    pub fn limit(&self) -> i64 {
        self.magnitudes.last().and_then(|m| m.end).unwrap_or(i64::MAX)
    }

    /// The bucket `value` goes into.
    pub fn bucket(&self, value: i64) -> usize {
        if value < self.low {
            return 0;
        }
        for (i, m) in self.magnitudes.iter().enumerate() {
            let inside = m.end.is_none_or(|e| value < e);
            if inside {
                return m.first + ((value - m.start) / m.width) as usize;
            }
            if self.clamped && i + 1 == self.magnitudes.len() {
                return m.first + m.buckets - 1;
            }
        }
        self.buckets() - 1
    }

    /// The lower bound of bucket `i` (bucket 0: `low`, the overflow bucket: `limit`).
    pub fn bound(&self, i: usize) -> i64 {
        if i == 0 {
            return self.low;
        }
        match self.magnitudes.iter().find(|m| (m.first..m.first + m.buckets).contains(&i)) {
            Some(m) => m.start.saturating_add((i - m.first) as i64 * m.width),
            None => self.limit(),
        }
    }
}

impl Aggregator for Llquantize {
    fn name(&self) -> &'static str {
        "llquantize"
    }

    fn params(&self) -> &'static [&'static str] {
        &["factor", "low", "high", "steps"]
    }

    fn check(&self, c: &[i64]) -> Result<(), BadArgs> {
        const NAMES: [&str; 4] = ["factor", "low magnitude", "high magnitude", "linear steps per magnitude"];
        let bad = |arg: Option<usize>, message: String, hint: &str| Err(BadArgs { message, hint: hint.into(), arg });
        for (i, (v, name)) in c.iter().zip(NAMES).enumerate() {
            if !(0..=u16::MAX as i64).contains(v) {
                return bad(Some(i), format!("llquantize() argument #{} ({name}) must be an unsigned 16-bit quantity", i + 1), "write a constant from 0 to 65535");
            }
        }
        let (factor, low, high, steps) = (c[0] as u64, c[1] as u64, c[2] as u64, c[3] as u64);
        if factor < 2 {
            return bad(Some(0), "llquantize() factor (argument #1) must be two or more".into(), "the factor is the base of the magnitudes, e.g. 10");
        }
        if low >= high {
            return bad(Some(2), "llquantize() high magnitude (argument #3) must be greater than low magnitude (argument #2)".into(), "e.g. llquantize(x, 10, 0, 6, 20) covers 1 to 10^7");
        }
        if steps < factor {
            return bad(Some(3), "llquantize() factor (argument #1) must be less than or equal to the number of linear steps per magnitude (argument #4)".into(), "use at least as many steps as the factor");
        }
        let mut power = factor;
        while power < steps {
            power *= factor;
        }
        if steps % factor != 0 || power % steps != 0 {
            return bad(
                Some(3),
                "llquantize() factor (argument #1) must evenly divide the number of steps per magnitude (argument #4), and the number of steps per magnitude must evenly divide a power of the factor".into(),
                "e.g. 10 steps or 20 for factor 10; 2, 4 or 8 for factor 2",
            );
        }
        if factor.checked_pow(high as u32).is_none() {
            return bad(Some(2), format!("llquantize() factor ({factor}) raised to power of high magnitude ({high}) overflows 64-bits"), "use a smaller high magnitude");
        }
        let n = Layout::new(Params::of(c)).buckets();
        if n > MAX_BUCKETS {
            return bad(None, format!("llquantize() has {n} buckets, more than {MAX_BUCKETS}"), "use fewer steps per magnitude or fewer magnitudes");
        }
        Ok(())
    }

    fn words(&self, c: &[i64]) -> usize {
        Layout::new(Params::of(c)).buckets()
    }

    fn update(&self, c: &[i64]) -> Vec<Op> {
        let p = Params::of(c);
        vec![Op::Bucket { first: 0, buckets: self.words(c), index: Index::LogLinear(p) }]
    }

    // Counts are divided too, as for lquantize.
    fn normalize(&self, _: &[i64], w: &mut [u64], n: i64) {
        w.iter_mut().for_each(|c| *c /= n as u64);
    }

    fn summary<'a>(&self, c: &[i64], w: &'a [u64]) -> Summary<'a> {
        Summary::LogLinear { params: Params::of(c), buckets: w }
    }
}

/// (weighted sum, count of bucket 0) — `dt_aggregate_llquantizedsum()` and
/// `dt_aggregate_llquantizedcmp()`: each bucket weighs its lower bound, bucket 0
/// factor^low - 1; ties go to the count of bucket 0.
pub fn weight(p: Params, buckets: &[u64]) -> (i128, i128) {
    let layout = Layout::new(p);
    let c = |i: usize| count_at(buckets, i) as i64 as i128;
    let mut total = c(0).saturating_mul(layout.low as i128 - 1);
    for i in 1..layout.buckets() {
        total = total.saturating_add(c(i).saturating_mul(layout.bound(i) as i128));
    }
    (total, c(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(factor: u16, low: u16, high: u16, steps: u16) -> Params {
        Params { factor, low, high, steps }
    }

    /// DTrace's `dtrace_aggregate_llquantize_bucket()`, read from its description: in i128
    /// so that nothing wraps, clamping where the next power would pass i64.
    fn dtrace_bucket(p: Params, value: i64) -> usize {
        let (f, steps, value) = (p.factor as i128, p.steps as i128, value as i128);
        let mut this: i128 = f.pow(p.low as u32);
        let last0 = this;
        if value < last0 {
            return 0;
        }
        let mut last = this;
        this *= f;
        let mut base = 1i128;
        let mut value = value;
        for _ in p.low..=p.high {
            let n = if this > steps { steps } else { this };
            let next = this * f;
            if next > i64::MAX as i128 {
                value = value.min(this - 1);
            }
            if value < this {
                return (base + (value - last) / (this / n)) as usize;
            }
            base += n - n / f;
            last = this;
            this = next;
        }
        base as usize
    }

    fn checked(c: [i64; 4]) -> Result<(), BadArgs> {
        Llquantize.check(&c)
    }

    #[test]
    fn buckets_match_dtrace() {
        let cases = [p(10, 0, 6, 20), p(10, 1, 3, 10), p(2, 0, 10, 4), p(3, 3, 5, 27), p(10, 0, 18, 10), p(2, 0, 63, 2), p(4, 2, 6, 16), p(10, 3, 5, 100)];
        for c in cases {
            let l = Layout::new(c);
            let mut values: Vec<i64> = vec![i64::MIN, -1, 0, 1, 2, i64::MAX, i64::MAX - 1];
            for m in &l.magnitudes {
                for d in [-1, 0, 1] {
                    values.push(m.start.saturating_add(d));
                    values.push(m.end.unwrap_or(i64::MAX).saturating_add(d));
                    values.push(m.start.saturating_add(m.width).saturating_add(d));
                }
            }
            values.extend((0..3000).map(|i| i * 7 + i * i * 13));
            for v in values {
                assert_eq!(l.bucket(v), dtrace_bucket(c, v), "{c:?} value {v}");
                assert!(l.bucket(v) < l.buckets(), "{c:?} value {v}");
            }
            // DTrace sizes the buckets from the bucket of INT64_MAX.
            assert_eq!(l.buckets(), dtrace_bucket(c, i64::MAX) + 1, "{c:?}");
        }
    }

    #[test]
    fn layout_of_factor_10() {
        // 0 goes below 1; 1..9 in steps of 1; 10..95 in steps of 5; ...; >= 10^7 above.
        let l = Layout::new(p(10, 0, 6, 20));
        assert_eq!(l.buckets(), 1 + 9 + 6 * 18 + 1);
        assert_eq!((l.bound(0), l.bound(1), l.bound(9), l.bound(10), l.bound(11)), (1, 1, 9, 10, 15));
        assert_eq!(l.bound(l.buckets() - 1), 10_000_000);
        assert_eq!(l.overflow(), Some(l.buckets() - 1));
        assert_eq!((l.bucket(0), l.bucket(1), l.bucket(14), l.bucket(15), l.bucket(10_000_000)), (0, 1, 10, 11, l.buckets() - 1));
        // Clamped: 10^19 does not fit, so order 17 takes everything from 10^17 up.
        let l = Layout::new(p(10, 0, 18, 10));
        assert!(l.clamped);
        assert_eq!(l.overflow(), None);
        assert_eq!(l.bucket(i64::MAX), l.buckets() - 1);
        assert_eq!(l.bound(l.buckets() - 1), 900_000_000_000_000_000);
    }

    #[test]
    fn weights() {
        // Bucket 0 weighs factor^low - 1 = 9; bucket 1 (10) 10; the overflow 1000.
        let c = p(10, 1, 2, 10);
        let l = Layout::new(c);
        let mut b = vec![0u64; l.buckets()];
        b[0] = 2;
        b[1] = 1;
        b[l.buckets() - 1] = 1;
        assert_eq!(weight(c, &b), (18 + 10 + 1000, 2));
    }

    #[test]
    fn checks_are_dtraces() {
        assert!(checked([10, 0, 6, 20]).is_ok());
        assert!(checked([2, 0, 63, 2]).is_ok());
        assert!(checked([3, 3, 5, 27]).is_ok());
        let msg = |c| checked(c).unwrap_err();
        assert_eq!(msg([1, 0, 6, 20]).message, "llquantize() factor (argument #1) must be two or more");
        assert_eq!(msg([1, 0, 6, 20]).arg, Some(0));
        assert!(msg([10, 6, 6, 20]).message.contains("high magnitude (argument #3) must be greater"));
        assert!(msg([10, 0, 6, 5]).message.contains("less than or equal to the number of linear steps"));
        assert!(msg([10, 0, 6, 15]).message.contains("evenly divide"));
        assert!(msg([10, 0, 6, 30]).message.contains("evenly divide"));
        assert!(msg([10, 2, 6, 80]).message.contains("evenly divide"));
        assert!(msg([10, 0, 6, 65536]).message.contains("argument #4 (linear steps per magnitude) must be an unsigned 16-bit quantity"));
        assert!(msg([10, -1, 6, 10]).message.contains("argument #2 (low magnitude)"));
        assert_eq!(msg([2, 0, 64, 2]).message, "llquantize() factor (2) raised to power of high magnitude (64) overflows 64-bits");
        assert!(msg([1000, 0, 7, 1000]).message.contains("overflows 64-bits"));
        assert!(msg([10, 0, 18, 1000]).message.contains("more than 4002"));
    }
}
