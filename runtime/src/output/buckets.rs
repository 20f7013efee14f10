//! The buckets of a distribution as ranges of values, for the structured outputs: each
//! bucket that counted something, with the smallest and largest value it holds (both
//! included; `None` where the bucket has no bound: below the lowest or above the highest).

use crumbs_lang::ir::agg::{hist, llquantize, quantize, Summary};

/// One bucket: `[min, max]` and its count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bucket {
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub count: u64,
}

/// The non-empty buckets of a distribution, lowest first; `None` for a number.
pub fn buckets(s: &Summary) -> Option<Vec<Bucket>> {
    Some(every_bucket(s)?.into_iter().filter(|b| b.count != 0).collect())
}

/// Every bucket of a distribution's layout, lowest first, counted or not (python-dtrace's
/// walk gets them all); `None` for a number.
pub fn every_bucket(s: &Summary) -> Option<Vec<Bucket>> {
    let all: Vec<Bucket> = match *s {
        // A time series is points in time, not ranges of values: JSON lines write it as
        // `series`.
        Summary::Scalar(_) | Summary::Series { .. } => return None,
        Summary::Log2(counts) => (0..counts.len()).map(|i| quantize_bucket(i, counts)).collect(),
        Summary::Linear { base, limit, step, buckets } => {
            let levels = super::aggregation::lquantize_levels(base, limit, step, buckets);
            let at = |i: usize| base.saturating_add((i as i64).saturating_mul(step));
            (0..levels + 2)
                .map(|i| {
                    let count = quantize::count_at(buckets, i);
                    match i {
                        0 => Bucket { min: None, max: Some(base.saturating_sub(1)), count },
                        i if i == levels + 1 => Bucket { min: Some(at(levels)), max: None, count },
                        i => Bucket { min: Some(at(i - 1)), max: Some(at(i).saturating_sub(1)), count },
                    }
                })
                .collect()
        }
        Summary::LogLinear { params, buckets } => {
            let layout = llquantize::Layout::new(params);
            let n = layout.buckets();
            (0..n)
                .map(|i| {
                    let count = quantize::count_at(buckets, i);
                    if i == 0 {
                        Bucket { min: None, max: Some(layout.low.saturating_sub(1)), count }
                    } else if layout.overflow() == Some(i) || i + 1 == n {
                        Bucket { min: Some(layout.bound(i)), max: None, count }
                    } else {
                        Bucket { min: Some(layout.bound(i)), max: Some(layout.bound(i + 1).saturating_sub(1)), count }
                    }
                })
                .collect()
        }
        Summary::Log2Split { k, buckets } => {
            let n = hist::buckets(k);
            (0..n)
                .map(|i| {
                    let count = quantize::count_at(buckets, i);
                    let low = |i: usize| i64::try_from(hist::low(i, k)).ok();
                    match i {
                        0 => Bucket { min: None, max: Some(-1), count },
                        i if i + 1 == n => Bucket { min: low(i), max: None, count },
                        i => Bucket { min: low(i), max: low(i + 1).map(|l| l - 1), count },
                    }
                })
                .collect()
        }
    };
    Some(all)
}

/// quantize()'s bucket `i`: 0 alone, [2^k, 2^(k+1) - 1] above it, [-(2^(k+1) - 1), -2^k]
/// below.
fn quantize_bucket(i: usize, counts: &[u64]) -> Bucket {
    let count = quantize::count_at(counts, i);
    let value = quantize::bucket_value;
    let last = quantize::BUCKETS - 1;
    match i {
        0 => Bucket { min: None, max: Some(value(0)), count },
        i if i < quantize::ZERO_BUCKET => Bucket { min: Some(value(i - 1) + 1), max: Some(value(i)), count },
        i if i == quantize::ZERO_BUCKET => Bucket { min: Some(0), max: Some(0), count },
        i if i >= last => Bucket { min: Some(value(i)), max: None, count },
        i => Bucket { min: Some(value(i)), max: Some(value(i + 1) - 1), count },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(min: Option<i64>, max: Option<i64>, count: u64) -> Bucket {
        Bucket { min, max, count }
    }

    #[test]
    fn quantize_ranges() {
        let mut counts = vec![0u64; quantize::BUCKETS];
        counts[quantize::ZERO_BUCKET] = 1;
        counts[quantize::ZERO_BUCKET + 1] = 2; // 1
        counts[quantize::ZERO_BUCKET + 3] = 3; // 4..7
        counts[quantize::ZERO_BUCKET - 2] = 4; // -3..-2
        assert_eq!(buckets(&Summary::Log2(&counts)).unwrap(), vec![b(Some(-3), Some(-2), 4), b(Some(0), Some(0), 1), b(Some(1), Some(1), 2), b(Some(4), Some(7), 3)]);
        assert_eq!(buckets(&Summary::Scalar(3)), None);
    }

    #[test]
    fn lquantize_ranges() {
        // lquantize(x, 0, 10, 5): < 0, [0,4], [5,9], >= 10
        let counts = [1, 2, 0, 3];
        assert_eq!(buckets(&Summary::Linear { base: 0, limit: 10, step: 5, buckets: &counts }).unwrap(), vec![b(None, Some(-1), 1), b(Some(0), Some(4), 2), b(Some(10), None, 3)]);
    }

    #[test]
    fn hist_ranges() {
        // k = 1: negatives, 0, 1, [2,2], [3,3], [4,5], [6,7], ...
        let mut counts = vec![0u64; hist::buckets(1)];
        counts[hist::index(-4, 1)] = 1;
        counts[hist::index(5, 1)] = 2;
        assert_eq!(buckets(&Summary::Log2Split { k: 1, buckets: &counts }).unwrap(), vec![b(None, Some(-1), 1), b(Some(4), Some(5), 2)]);
    }
}
