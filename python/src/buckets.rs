//! A distribution's buckets as inclusive value ranges with their counts, every bucket of the
//! function's layout in order (the first and last reach i64's ends).

use crumbs_lang::ir::agg::{hist, llquantize, quantize, Summary};

/// (lowest value, highest value, count) of each bucket; None for a plain number.
pub fn ranges(s: &Summary) -> Option<Vec<(i64, i64, u64)>> {
    Some(match *s {
        Summary::Scalar(_) => return None,
        Summary::Log2(b) => (0..quantize::BUCKETS).map(|i| (log2_low(i), log2_high(i), quantize::count_at(b, i))).collect(),
        Summary::Linear { base, limit, step, buckets } => {
            let last = buckets.len().saturating_sub(1);
            let at = |i: usize| base.saturating_add((i as i64 - 1).saturating_mul(step));
            (0..buckets.len())
                .map(|i| match i {
                    0 => (i64::MIN, base.saturating_sub(1), buckets[0]),
                    _ if i == last => (limit, i64::MAX, buckets[i]),
                    _ => (at(i), at(i + 1).saturating_sub(1), buckets[i]),
                })
                .collect()
        }
        Summary::LogLinear { params, buckets } => {
            let layout = llquantize::Layout::new(params);
            let n = layout.buckets();
            (0..n)
                .map(|i| {
                    let low = if i == 0 { i64::MIN } else { layout.bound(i) };
                    let high = match i {
                        0 => layout.low.saturating_sub(1),
                        _ if i + 1 == n => i64::MAX,
                        _ => layout.bound(i + 1).saturating_sub(1),
                    };
                    (low, high, quantize::count_at(buckets, i))
                })
                .collect()
        }
        Summary::Log2Split { k, buckets } => {
            let n = buckets.len();
            let low = |i: usize| i64::try_from(hist::low(i, k)).unwrap_or(i64::MAX);
            (0..n)
                .map(|i| match i {
                    0 => (i64::MIN, -1, buckets[0]),
                    _ if i + 1 == n => (low(i), i64::MAX, buckets[i]),
                    _ => (low(i), low(i + 1).saturating_sub(1), buckets[i]),
                })
                .collect()
        }
    })
}

/// quantize()'s bucket `i` starts here: below zero just past the next bucket down's value.
fn log2_low(i: usize) -> i64 {
    match i {
        0 => i64::MIN,
        _ if i <= quantize::ZERO_BUCKET => quantize::bucket_value(i - 1) + 1,
        _ => quantize::bucket_value(i),
    }
}

fn log2_high(i: usize) -> i64 {
    match i {
        _ if i <= quantize::ZERO_BUCKET => quantize::bucket_value(i),
        _ if i + 1 == quantize::BUCKETS => i64::MAX,
        _ => quantize::bucket_value(i + 1) - 1,
    }
}
