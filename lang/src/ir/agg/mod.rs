//! Aggregating functions, one file each. A file says what its function keeps per key (its
//! state words), what one firing does to them (a short list of generic [`Op`]s that every
//! back end implements once), how normalize() divides them and what the merged state means
//! (a [`Summary`]: a number or a distribution). The rest follows from those, here, for all
//! of them: how CPUs' copies merge (from the ops) and how two values order (from the
//! summaries). Nothing here knows how a back end stores the words.
//!
//! To add a function: a file here, its `mod` line, a row in `builtins::FUNCTIONS` pointing
//! at it, and, if its summary has a new shape, how each text sink prints that shape.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

pub mod avg;
pub mod bpftrace;
pub mod count;
pub mod extreme;
pub mod hist;
pub mod llquantize;
pub mod lquantize;
pub mod quantize;
pub mod stddev;
pub mod sum;
pub mod tseries;

/// One aggregating function. The `consts` passed to every method are its constant
/// arguments in order (lquantize's base, limit and step), already checked by
/// [`Aggregator::check`].
pub trait Aggregator: Sync {
    /// Its name in D.
    fn name(&self) -> &'static str;

    /// Names of its constant arguments, in order (for the IR's printed form).
    fn params(&self) -> &'static [&'static str] {
        &[]
    }

    /// Its own words for constant argument `param` given a value that is no constant (None:
    /// the checker's usual message).
    fn not_constant(&self, _param: &str) -> Option<String> {
        None
    }

    /// Whether the constant arguments make sense.
    fn check(&self, _consts: &[i64]) -> Result<(), BadArgs> {
        Ok(())
    }

    /// The constant a string argument names (tseries()'s `"avg"`), for a function that takes one.
    fn named(&self, s: &str) -> Result<i64, BadArgs> {
        Err(BadArgs { message: format!("{}() takes no string argument (\"{s}\" given)", self.name()), hint: "write an integer constant".into(), arg: None })
    }

    /// Whether the value's sign is a constant of its own (the last one, 1 signed, 0
    /// unsigned), for a function whose state or output depends on it.
    fn takes_sign(&self) -> bool {
        false
    }

    /// Number of 64-bit state words one CPU keeps per key (all zero before the first update).
    fn words(&self, consts: &[i64]) -> usize;

    /// What one firing does to the state words, in order.
    fn update(&self, consts: &[i64]) -> Vec<Op>;

    /// normalize(@a, n) with n > 1: the state as printed divided by `n`.
    fn normalize(&self, consts: &[i64], words: &mut [u64], n: i64);

    /// What merged state words mean, for sorting and printing.
    fn summary<'a>(&self, consts: &[i64], words: &'a [u64]) -> Summary<'a>;
}

/// Constant arguments an aggregating function rejects: the message, a hint, and which
/// constant argument (from 0) is at fault, if one is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadArgs {
    pub message: String,
    pub hint: String,
    pub arg: Option<usize>,
}

// An aggregating function is known by its name: one value per function.
impl PartialEq for dyn Aggregator {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for dyn Aggregator {}

impl Hash for dyn Aggregator {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.name().hash(h);
    }
}

impl fmt::Debug for dyn Aggregator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One step of an update on a key's state words; `value` is the function's argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `words[w] += 1`.
    Count(usize),
    /// `words[w] += value`.
    Add(usize),
    /// The 128-bit sum in `words[w]` (low) and `words[w + 1]` (high) `+= value * value`.
    AddSquare(usize),
    /// Keep the smallest or largest value in `words[value]`; `words[seen]` counts the
    /// updates, so 0 means there is no value yet.
    Keep { seen: usize, value: usize, keep: Keep },
    /// `words[first + index(value)] += 1`, for `buckets` words from `first`.
    Bucket { first: usize, buckets: usize, index: Index },
    /// tseries()'s update of the bucket of the current interval (see [`tseries`]): the
    /// state words are all the buckets, so nothing follows it.
    Series(tseries::Params),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    Min,
    Max,
}

/// How a value picks its bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    /// DTrace's power-of-two buckets (see [`quantize`]).
    Log2,
    /// 0 below `base`, `1 + (value - base) / step` up to `limit`, the last at or above it.
    Linear { base: i64, limit: i64, step: i64 },
    /// DTrace's log-linear buckets (see [`llquantize::Layout`]).
    LogLinear(llquantize::Params),
    /// current bpftrace's hist(x, k) buckets, 2^k per power of two (see [`hist`]).
    Log2Split(u32),
}

impl Op {
    /// Whether the op needs the function's argument (count() evaluates none).
    pub fn reads_value(&self) -> bool {
        !matches!(self, Op::Count(_))
    }
}

/// What an aggregation's merged value means, as sinks print it and sorting compares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Summary<'a> {
    /// One number: count, sum, min, max, avg, stddev.
    Scalar(i64),
    /// Counts in DTrace's power-of-two buckets (see [`quantize`]).
    Log2(&'a [u64]),
    /// Counts in linear buckets: below `base`, one per `step`, at or above `limit`.
    Linear { base: i64, limit: i64, step: i64, buckets: &'a [u64] },
    /// Counts in log-linear buckets (see [`llquantize::Layout`]).
    LogLinear { params: llquantize::Params, buckets: &'a [u64] },
    /// Counts in hist(x, k)'s buckets, 2^k per power of two (see [`hist`]).
    Log2Split { k: u32, buckets: &'a [u64] },
    /// A time series' merged buckets (see [`tseries`]).
    Series { params: tseries::Params, words: &'a [u64] },
}

impl Summary<'_> {
    /// DTrace's value comparison (`dt_aggregate_valcmp()`): numbers as signed 64-bit
    /// values; distributions by the sum of bucket weight × count, then by the count of the
    /// bucket whose weight is 0.
    pub fn order(&self, other: &Summary) -> Ordering {
        match (self, other) {
            (Summary::Scalar(a), Summary::Scalar(b)) => a.cmp(b),
            (Summary::Log2(a), Summary::Log2(b)) => quantize::weight(a).cmp(&quantize::weight(b)),
            (Summary::Linear { base: b1, step: s1, buckets: k1, .. }, Summary::Linear { base: b2, step: s2, buckets: k2, .. }) => {
                lquantize::weight(*b1, *s1, k1).cmp(&lquantize::weight(*b2, *s2, k2))
            }
            (Summary::LogLinear { params: p1, buckets: k1 }, Summary::LogLinear { params: p2, buckets: k2 }) => llquantize::weight(*p1, k1).cmp(&llquantize::weight(*p2, k2)),
            (Summary::Log2Split { k: a, buckets: k1 }, Summary::Log2Split { k: b, buckets: k2 }) => hist::weight(*a, k1).cmp(&hist::weight(*b, k2)),
            // Different shapes never share an aggregation; keep sorting total.
            _ => self.shape().cmp(&other.shape()),
        }
    }

    fn shape(&self) -> u8 {
        match self {
            Summary::Scalar(_) => 0,
            Summary::Log2(_) => 1,
            Summary::Linear { .. } => 2,
            Summary::LogLinear { .. } => 3,
            Summary::Log2Split { .. } => 4,
            Summary::Series { .. } => 5,
        }
    }
}

/// An aggregation's function with its constant arguments.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct AggKind {
    pub func: &'static dyn Aggregator,
    pub consts: Vec<i64>,
}

impl AggKind {
    pub fn new(func: &'static dyn Aggregator, consts: Vec<i64>) -> AggKind {
        AggKind { func, consts }
    }

    pub fn name(&self) -> &'static str {
        self.func.name()
    }

    pub fn words(&self) -> usize {
        self.func.words(&self.consts)
    }

    /// Size in bytes of one CPU's value.
    pub fn value_size(&self) -> usize {
        8 * self.words()
    }

    pub fn update(&self) -> Vec<Op> {
        self.func.update(&self.consts)
    }

    pub fn summary<'a>(&self, words: &'a [u64]) -> Summary<'a> {
        self.func.summary(&self.consts, words)
    }

    /// The state divided by `n` (normalize(); `n` <= 1 leaves it as it is).
    pub fn normalize(&self, words: &mut [u64], n: i64) {
        if n > 1 {
            self.func.normalize(&self.consts, words, n);
        }
    }

    /// One key's state, merged from its copies (one per CPU, or more), as the update ops
    /// say: counters and buckets add up, a kept minimum or maximum is the extreme of the
    /// copies that saw a value. `None` if a min()/max() saw no value at all.
    pub fn merge(&self, copies: &[&[u64]]) -> Option<Vec<u64>> {
        let word = |c: &[u64], i: usize| c.get(i).copied().unwrap_or(0);
        let mut out: Vec<u64> = (0..self.words()).map(|i| copies.iter().fold(0u64, |s, c| s.wrapping_add(word(c, i)))).collect();
        for op in self.update() {
            match op {
                Op::Count(_) | Op::Add(_) | Op::Bucket { .. } => {}
                Op::Series(p) => out = tseries::merge(p, copies),
                Op::AddSquare(w) => {
                    let sum = copies.iter().map(|c| (word(c, w + 1) as u128) << 64 | word(c, w) as u128).fold(0u128, u128::wrapping_add);
                    out[w] = sum as u64;
                    out[w + 1] = (sum >> 64) as u64;
                }
                Op::Keep { seen, value, keep } => {
                    let seen = copies.iter().filter(|c| word(c, seen) != 0).map(|c| word(c, value) as i64);
                    out[value] = match keep {
                        Keep::Min => seen.min()?,
                        Keep::Max => seen.max()?,
                    } as u64;
                }
            }
        }
        Some(out)
    }
}

/// What one update does to a map of values that keeps an aggregation's merged value where
/// the program reads it (current bpftrace reads a `count`, `sum`, `min`, `max` or `avg` in
/// an expression and walks one with `for`): the kernel keeps those in a shared hash map
/// beside the per-CPU tables, updated atomically, so a read is one lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadPart {
    /// `+= 1`.
    Count,
    /// `+= value`.
    Add,
    /// The smallest or largest value (a new key starts at the value).
    Keep(Keep),
}

impl AggKind {
    /// The maps of values a readable aggregation keeps, in order (avg: its sum, then its
    /// count); `None` for a function whose value is not a number (hist(), stats(), ...).
    pub fn read_parts(&self) -> Option<&'static [ReadPart]> {
        match self.name() {
            "count" => Some(&[ReadPart::Count]),
            "sum" => Some(&[ReadPart::Add]),
            "min" => Some(&[ReadPart::Keep(Keep::Min)]),
            "max" => Some(&[ReadPart::Keep(Keep::Max)]),
            "avg" => Some(&[ReadPart::Add, ReadPart::Count]),
            _ => None,
        }
    }
}

/// As the IR printed it when every function was a variant: `Count`, `Lquantize { base: 0, .. }`.
impl fmt::Debug for AggKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name();
        let mut title = name[..1].to_ascii_uppercase();
        title.push_str(&name[1..]);
        let params = self.func.params();
        if params.is_empty() {
            return f.write_str(&title);
        }
        let mut s = f.debug_struct(&title);
        for (p, v) in params.iter().zip(&self.consts) {
            s.field(p, v);
        }
        s.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_copies() {
        let count = AggKind::new(&count::Count, vec![]);
        assert_eq!(count.merge(&[&[3], &[4]]), Some(vec![7]));
        let min = AggKind::new(&extreme::MIN, vec![]);
        assert_eq!(min.merge(&[&[0, 0], &[2, -5i64 as u64]]), Some(vec![2, -5i64 as u64]));
        let max = AggKind::new(&extreme::MAX, vec![]);
        assert_eq!(max.merge(&[&[0, 0], &[0, 0]]), None);
        let sd = AggKind::new(&stddev::Stddev, vec![]);
        assert_eq!(sd.merge(&[&[1, 1, u64::MAX, 0], &[1, 1, 1, 0]]), Some(vec![2, 2, 0, 1]));
    }

    #[test]
    fn prints_as_variants_did() {
        assert_eq!(format!("{:?}", AggKind::new(&count::Count, vec![])), "Count");
        assert_eq!(format!("{:?}", AggKind::new(&lquantize::Lquantize, vec![0, 1024, 64])), "Lquantize { base: 0, limit: 1024, step: 64 }");
        assert_eq!(format!("{:?}", AggKind::new(&llquantize::Llquantize, vec![10, 0, 6, 20])), "Llquantize { factor: 10, low: 0, high: 6, steps: 20 }");
    }
}
