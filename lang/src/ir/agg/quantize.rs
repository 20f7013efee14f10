//! `quantize(x)`: a power-of-two frequency distribution in DTrace's 127 buckets: bucket
//! [`ZERO_BUCKET`] (63) counts zeros, bucket 64+k counts values in [2^k, 2^(k+1)), bucket
//! 62-k values in (-2^(k+1), -2^k].

use super::{Aggregator, Index, Op, Summary};
use std::cmp::Ordering;

pub const BUCKETS: usize = 127;
pub const ZERO_BUCKET: usize = 63;

pub struct Quantize;

impl Aggregator for Quantize {
    fn name(&self) -> &'static str {
        "quantize"
    }

    fn words(&self, _: &[i64]) -> usize {
        BUCKETS
    }

    fn update(&self, _: &[i64]) -> Vec<Op> {
        vec![Op::Bucket { first: 0, buckets: BUCKETS, index: Index::Log2 }]
    }

    // Counts are divided too, as DTrace's dt_print_quantline does.
    fn normalize(&self, _: &[i64], w: &mut [u64], n: i64) {
        w.iter_mut().for_each(|c| *c /= n as u64);
    }

    fn summary<'a>(&self, _: &[i64], w: &'a [u64]) -> Summary<'a> {
        Summary::Log2(w)
    }
}

/// DTrace's quantize bucket value (`DTRACE_QUANTIZE_BUCKETVAL`): the lower bound of a
/// bucket in magnitude; 0 for the zero bucket, `2^k` for bucket `64+k`, `-2^k` for
/// bucket `62-k`.
pub fn bucket_value(i: usize) -> i64 {
    match i.cmp(&ZERO_BUCKET) {
        Ordering::Less => -(1i64 << (ZERO_BUCKET - 1 - i).min(63)),
        Ordering::Equal => 0,
        Ordering::Greater => 1i64 << (i - ZERO_BUCKET - 1).min(62),
    }
}

/// The count of bucket `i`, 0 past the end (hand-made or malformed values).
pub fn count_at(buckets: &[u64], i: usize) -> u64 {
    buckets.get(i).copied().unwrap_or(0)
}

/// (Σ bucket value × count, zero bucket count) — `dt_aggregate_quantizedcmp()`.
pub fn weight(buckets: &[u64]) -> (i128, i128) {
    let mut total: i128 = 0;
    for i in 0..BUCKETS {
        let c = count_at(buckets, i) as i64 as i128;
        total = total.saturating_add(bucket_value(i) as i128 * c);
    }
    (total, count_at(buckets, ZERO_BUCKET) as i64 as i128)
}
