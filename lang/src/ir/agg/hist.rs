//! bpftrace's `hist(x[, k])`. With k = 0 (or none) it keeps quantize()'s power-of-two
//! buckets, so it prints as bpftrace 0.17's hist(x). With k = 1..=5 each power of two is
//! split into 2^k buckets, as current bpftrace lays them out: bucket 0 counts every
//! negative value, buckets 1..=2^k the values 0..2^k-1 one each, then for a value v >= 2^k
//! whose leftmost 1 is bit l, bucket `((l - k + 1) << k) + (the k bits after that 1) + 1`.

use super::{quantize::Quantize, Aggregator, BadArgs, Index, Op, Summary};

pub struct Hist;

pub static HIST: Hist = Hist;

/// The largest k: 2^5 buckets per power of two.
pub const MAX_K: i64 = 5;

fn k_of(consts: &[i64]) -> u32 {
    consts.first().copied().unwrap_or(0) as u32
}

/// Buckets of a split histogram: the negatives, then (64 - k) groups of 2^k (the last
/// group ends at 2^63 - 1).
pub fn buckets(k: u32) -> usize {
    ((64 - k as usize) << k) + 1
}

/// The bucket of `v` with k bits per power of two (k >= 1), as the BPF code computes it.
pub fn index(v: i64, k: u32) -> usize {
    if v < 0 {
        return 0;
    }
    let mask = (1u64 << k) - 1;
    let v = v as u64;
    if v <= mask {
        return v as usize + 1;
    }
    let l = 63 - v.leading_zeros() - k;
    let x = (v >> l) & mask;
    ((((l + 1) as u64) << k) + x + 1) as usize
}

/// The smallest value of bucket `i` (k >= 1, i >= 1): the values 0..2^k-1 have a bucket
/// each; above, bucket i starts at 2^p × (2^k + j) where i - 1 = ((p + 1) << k) + j.
pub fn low(i: usize, k: u32) -> u64 {
    let n = 1usize << k;
    if i <= n {
        return i as u64 - 1;
    }
    let i = i - 1;
    let p = (i >> k) - 1;
    (1u64 << p) * (n + (i & (n - 1))) as u64
}

impl Aggregator for Hist {
    fn name(&self) -> &'static str {
        "hist"
    }

    fn params(&self) -> &'static [&'static str] {
        &["k"]
    }

    fn check(&self, consts: &[i64]) -> Result<(), BadArgs> {
        let k = consts.first().copied().unwrap_or(0);
        if (0..=MAX_K).contains(&k) {
            return Ok(());
        }
        Err(BadArgs { message: format!("hist: bits {k} must be 0..5"), hint: "hist(x, k) splits each power of two into 2^k buckets, k from 0 to 5".into(), arg: Some(0) })
    }

    fn words(&self, consts: &[i64]) -> usize {
        match k_of(consts) {
            0 => Quantize.words(&[]),
            k => buckets(k),
        }
    }

    fn update(&self, consts: &[i64]) -> Vec<Op> {
        match k_of(consts) {
            0 => Quantize.update(&[]),
            k => vec![Op::Bucket { first: 0, buckets: buckets(k), index: Index::Log2Split(k) }],
        }
    }

    fn normalize(&self, _: &[i64], w: &mut [u64], n: i64) {
        w.iter_mut().for_each(|c| *c /= n as u64);
    }

    fn summary<'a>(&self, consts: &[i64], w: &'a [u64]) -> Summary<'a> {
        match k_of(consts) {
            0 => Quantize.summary(&[], w),
            k => Summary::Log2Split { k, buckets: w },
        }
    }
}

/// (Σ bucket low bound × count, count of the zero bucket): the order of two split
/// histograms, as quantize's weight orders its buckets (negatives weigh -1).
pub fn weight(k: u32, buckets: &[u64]) -> (i128, i128) {
    let mut total: i128 = 0;
    for (i, c) in buckets.iter().enumerate() {
        let at = if i == 0 { -1 } else { low(i, k) as i128 };
        total = total.saturating_add(at * *c as i64 as i128);
    }
    (total, buckets.get(1).copied().unwrap_or(0) as i64 as i128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_current_bpftrace() {
        // bpftrace's own example: 225 = 0b11100001 with k = 2 is bucket 28.
        assert_eq!(index(225, 2), 28);
        assert_eq!(index(-5, 2), 0);
        assert_eq!((0..4).map(|v| index(v, 2)).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
        assert_eq!((4..8).map(|v| index(v, 2)).collect::<Vec<_>>(), vec![5, 6, 7, 8]);
        assert_eq!([8, 9, 10, 12, 14, 15, 16].map(|v| index(v, 2)), [9, 9, 10, 11, 12, 12, 13]);
        assert_eq!(index(i64::MAX, 5), buckets(5) - 1);
        assert_eq!(index(i64::MAX, 1), buckets(1) - 1);
        assert_eq!(index(3, 1), 4);
        assert_eq!(index(1, 1), 2);
    }

    #[test]
    fn every_bucket_starts_at_its_low_bound() {
        for k in 1..=5u32 {
            for i in 1..buckets(k) {
                let lo = low(i, k);
                assert_eq!(index(lo as i64, k), i, "k {k} bucket {i} low {lo}");
                if lo > 0 {
                    assert_eq!(index(lo as i64 - 1, k), i - 1, "k {k} below bucket {i}");
                }
            }
        }
        assert_eq!(low(28, 2), 224);
        assert_eq!(low(29, 2), 256);
    }

    #[test]
    fn k_is_checked() {
        assert!(HIST.check(&[0]).is_ok() && HIST.check(&[5]).is_ok());
        let e = HIST.check(&[6]).unwrap_err();
        assert_eq!(e.message, "hist: bits 6 must be 0..5");
        assert!(HIST.check(&[-1]).is_err());
        assert_eq!(HIST.words(&[0]), 127);
        assert_eq!(HIST.words(&[2]), 249);
    }
}
