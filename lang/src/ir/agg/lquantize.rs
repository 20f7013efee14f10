//! `lquantize(x, base, limit, step)`: a linear frequency distribution. Bucket 0 counts
//! x < base, bucket 1+i counts base+i*step <= x < base+(i+1)*step, the last x >= limit.

use super::quantize::count_at;
use super::{Aggregator, BadArgs, Index, Op, Summary};

pub struct Lquantize;

impl Aggregator for Lquantize {
    fn name(&self) -> &'static str {
        "lquantize"
    }

    fn params(&self) -> &'static [&'static str] {
        &["base", "limit", "step"]
    }

    fn check(&self, c: &[i64]) -> Result<(), BadArgs> {
        // In i128: the constants may be anywhere in i64's range.
        let (base, limit, step) = (c[0] as i128, c[1] as i128, c[2] as i128);
        if step <= 0 || limit <= base || limit - base > i64::MAX as i128 || (limit - base) / step > 4000 || (limit - base) % step != 0 {
            return Err(BadArgs {
                message: "bad lquantize() range".into(),
                hint: "need low < high, step > 0, (high - low) a multiple of step, and at most 4000 steps".into(),
                arg: None,
            });
        }
        Ok(())
    }

    /// One bucket below `base`, one per step, one at or above `limit`.
    fn words(&self, c: &[i64]) -> usize {
        ((c[1] - c[0]) / c[2]) as usize + 2
    }

    fn update(&self, c: &[i64]) -> Vec<Op> {
        vec![Op::Bucket { first: 0, buckets: self.words(c), index: Index::Linear { base: c[0], limit: c[1], step: c[2] } }]
    }

    // Counts are divided too, as DTrace's dt_print_quantline does.
    fn normalize(&self, _: &[i64], w: &mut [u64], n: i64) {
        w.iter_mut().for_each(|c| *c /= n as u64);
    }

    fn summary<'a>(&self, c: &[i64], w: &'a [u64]) -> Summary<'a> {
        Summary::Linear { base: c[0], limit: c[1], step: c[2], buckets: w }
    }
}

/// (weighted sum, count of the zero-weight bucket) — `dt_aggregate_lquantizedsum()` and
/// `dt_aggregate_lquantizedzero()`: the weights are `base - 1` for the underflow bucket,
/// `base + i*step` for bucket `i` and `base + levels*step + 1` for the overflow bucket.
pub fn weight(base: i64, step: i64, buckets: &[u64]) -> (i128, i128) {
    let levels = buckets.len().saturating_sub(2);
    let c = |i: usize| count_at(buckets, i) as i64 as i128;
    let (base, step) = (base as i128, step as i128);
    let mut total = c(0).saturating_mul(base - 1);
    let mut zero = if base - 1 == 0 { Some(c(0)) } else { None };
    for i in 0..levels {
        let w = base + i as i128 * step;
        total = total.saturating_add(c(i + 1).saturating_mul(w));
        if w == 0 && zero.is_none() {
            zero = Some(c(i + 1));
        }
    }
    let over = base + levels as i128 * step + 1;
    total = total.saturating_add(c(levels + 1).saturating_mul(over));
    if over == 0 && zero.is_none() {
        zero = Some(c(levels + 1));
    }
    (total, zero.unwrap_or(0))
}
