//! bpftrace 0.17's `hist()` and `lhist()` tables.
//!
//! One line per bucket, from the first bucket with a count to the last (none at all when
//! every count is 0): the bucket's label left-aligned in 16 columns, the count
//! right-aligned in 8, `" |"`, the bar of `@` left-aligned in 52 columns, `"|"`, newline.
//! The bar is `count / max * 52` in single-precision floating point, truncated, where
//! `max` is the largest count of the distribution.
//!
//! hist's buckets are `(..., 0)` (every negative value), `[0]`, `[1]`, then `[2^k,
//! 2^(k+1))` with the bounds written as `1`, `2`, ... `512`, then `1K` ... `512K`, `1M`,
//! `1G`, `1T` (a bound of 2^p with p >= 40 is `2^(p-40)` followed by `T`). DTrace's
//! quantize buckets (`crumbs_lang::ir::agg::quantize`) hold the same counts: its negative
//! buckets summed are bpftrace's first.
//!
//! hist(v, k) with k = 1..=5 (current bpftrace; `crumbs_lang::ir::agg::hist`) prints as
//! current bpftrace does: `(..., 0)`, then a single value `[v]` for each of the 2^(k+1)
//! buckets that hold one, then `[low, high)`, a bound 2^p × m written `m` with K, M, G, T,
//! P or E for p >= 10, 20, ... 60 (as `5K` for 5120, `2560` for 2^9 × 5). Its bars are
//! drawn from the divided counts, as current bpftrace draws them.
//!
//! lhist(v, min, max, step)'s buckets are `(..., min)`, `[min, min+step)`, ...,
//! `[max, ...)`; a bound divisible by 2^20 is written `nM`, by 2^10 `nK`, 0 as `0`.

use crumbs_lang::ir::agg::hist::low;
use crumbs_lang::ir::agg::quantize::{count_at, BUCKETS, ZERO_BUCKET};

const BAR: usize = 52;

/// bpftrace's 65 hist buckets from DTrace's 127 quantize buckets: negatives, zero, then
/// `[2^k, 2^(k+1))` for k = 0..=62.
pub fn hist_buckets(quantize: &[u64]) -> Vec<u64> {
    let negative = (0..ZERO_BUCKET).map(|i| count_at(quantize, i)).fold(0u64, u64::wrapping_add);
    let mut out = vec![negative];
    out.extend((ZERO_BUCKET..BUCKETS).map(|i| count_at(quantize, i)));
    out
}

/// The hist table of DTrace quantize buckets, each count divided by `div` (print()'s
/// third argument; the bars are drawn from the undivided counts, as bpftrace does).
pub fn hist_table(quantize: &[u64], div: u64) -> String {
    let b = hist_buckets(quantize);
    table(&b, div.max(1), |i| match i {
        0 => "(..., 0)".to_string(),
        1 => "[0]".to_string(),
        2 => "[1]".to_string(),
        _ => format!("[{}, {})", power_label(i as u32 - 2), power_label(i as u32 - 1)),
    })
}

/// The hist(x, k) table (k >= 1) of its buckets, each count divided by `div`.
pub fn split_table(k: u32, buckets: &[u64], div: u64) -> String {
    let divided: Vec<u64> = buckets.iter().map(|c| c / div.max(1)).collect();
    let shown = printed_buckets(buckets);
    // The first and last buckets are those counted before the division.
    rows(&divided, shown, 1, |i| split_label(i, k))
}

/// The label of hist(x, k)'s bucket `i`: `(..., 0)`, `[v]` for a bucket of one value,
/// else `[low, high)`.
pub fn split_label(i: usize, k: u32) -> String {
    if i == 0 {
        return "(..., 0)".to_string();
    }
    if i <= 2 << k {
        return format!("[{}]", i - 1);
    }
    format!("[{}, {})", split_bound(i, k), split_bound(i + 1, k))
}

/// hist(x, k)'s bucket `i`'s low bound 2^p × m (2^k <= m < 2^(k+1)) with current
/// bpftrace's suffix for the largest power of 2^10 in 2^p.
fn split_bound(i: usize, k: u32) -> String {
    let n = 1u64 << k;
    let p = ((i - 1) >> k) as u32 - 1;
    let m = n + ((i - 1) as u64 & (n - 1));
    let decade = p / 10;
    format!("{}{}", m << (p - 10 * decade), ["", "K", "M", "G", "T", "P", "E"][decade as usize])
}

/// The smallest and largest value of hist(x, k)'s bucket `i` (`None`: unbounded).
pub fn split_bounds(k: u32, i: usize) -> (Option<i64>, Option<i64>) {
    match i {
        0 => (None, Some(-1)),
        _ => (Some(low(i, k) as i64), Some(low(i + 1, k).wrapping_sub(1) as i64)),
    }
}

/// The lhist table of lquantize buckets: below `base`, one per `step`, at or above
/// `limit` (`buckets.len() - 2` linear buckets). print()'s divisor does not apply to lhist.
pub fn lhist_table(base: i64, limit: i64, step: i64, buckets: &[u64]) -> String {
    let levels = buckets.len().saturating_sub(2);
    table(buckets, 1, |i| {
        if i == 0 {
            format!("(..., {})", linear_label(base))
        } else if i == levels + 1 {
            format!("[{}, ...)", linear_label(limit))
        } else {
            let low = base.saturating_add((i as i64 - 1).saturating_mul(step));
            format!("[{}, {})", linear_label(low), linear_label(low.saturating_add(step)))
        }
    })
}

/// The buckets bpftrace prints of `counts`: from the first non-zero one to the last (none
/// when every count is 0).
pub fn printed_buckets(counts: &[u64]) -> std::ops::Range<usize> {
    match (counts.iter().position(|c| *c != 0), counts.iter().rposition(|c| *c != 0)) {
        (Some(first), Some(last)) => first..last + 1,
        _ => 0..0,
    }
}

/// The smallest and largest value of [`hist_buckets`]' bucket `i` (`None`: unbounded).
pub fn hist_bounds(i: usize) -> (Option<i64>, Option<i64>) {
    match i {
        0 => (None, Some(-1)),
        1 => (Some(0), Some(0)),
        // [2^(i-2), 2^(i-1)), i <= 64: the largest bound is 2^63 - 1.
        _ => (Some(1i64 << (i - 2)), Some(((1u64 << (i - 1)) - 1) as i64)),
    }
}

/// The smallest and largest value of lhist bucket `i` of `levels + 2` (`None`: unbounded):
/// below `base`, one per `step`, at or above `limit`.
pub fn lhist_bounds(base: i64, limit: i64, step: i64, levels: usize, i: usize) -> (Option<i64>, Option<i64>) {
    if i == 0 {
        (None, Some(base.saturating_sub(1)))
    } else if i == levels + 1 {
        (Some(limit), None)
    } else {
        let low = base.saturating_add((i as i64 - 1).saturating_mul(step));
        (Some(low), Some(low.saturating_add(step).saturating_sub(1)))
    }
}

/// The lines of buckets `counts` from the first non-zero one to the last.
fn table(counts: &[u64], div: u64, label: impl Fn(usize) -> String) -> String {
    rows(counts, printed_buckets(counts), div, label)
}

/// The lines of buckets `shown` of `counts`.
fn rows(counts: &[u64], shown: std::ops::Range<usize>, div: u64, label: impl Fn(usize) -> String) -> String {
    let mut out = String::new();
    let max = counts.iter().copied().max().unwrap_or(0);
    for i in shown {
        let count = counts[i];
        // As bpftrace computes it: count / (float)max * 52, truncated.
        let bar = ((count as f32 / max as f32) * BAR as f32) as usize;
        out.push_str(&format!("{:<16}{:>8} |{:<BAR$}|\n", label(i), count / div, "@".repeat(bar.min(BAR))));
    }
    out
}

/// 2^p with bpftrace's suffixes: K, M, G for p >= 10, 20, 30; T for p >= 40.
fn power_label(p: u32) -> String {
    let (p, suffix) = match p {
        40.. => (p - 40, "T"),
        30.. => (p - 30, "G"),
        20.. => (p - 20, "M"),
        10.. => (p - 10, "K"),
        _ => (p, ""),
    };
    format!("{}{suffix}", 1u64 << p)
}

/// An lhist bound: `nM` when divisible by 2^20, `nK` by 2^10, else the number.
fn linear_label(n: i64) -> String {
    const KILO: i64 = 1 << 10;
    const MEGA: i64 = 1 << 20;
    if n != 0 && n % MEGA == 0 {
        format!("{}M", n / MEGA)
    } else if n != 0 && n % KILO == 0 {
        format!("{}K", n / KILO)
    } else {
        n.to_string()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crumbs_lang::ir::agg::quantize::BUCKETS;

    #[test]
    fn split_labels_as_current_bpftrace() {
        assert_eq!(split_label(0, 2), "(..., 0)");
        assert_eq!((1..=8).map(|i| split_label(i, 2)).collect::<Vec<_>>(), ["[0]", "[1]", "[2]", "[3]", "[4]", "[5]", "[6]", "[7]"]);
        assert_eq!(split_label(9, 2), "[8, 10)");
        assert_eq!(split_label(28, 2), "[224, 256)");
        // 2^9 × 5 = 2560 keeps its digits; 2^10 × 5 is 5K.
        assert_eq!(split_label(38, 2), "[1280, 1536)");
        assert_eq!(split_label(41, 2), "[2048, 2560)");
        assert_eq!(split_label(44, 2), "[3584, 4K)");
        assert_eq!(split_label(45, 2), "[4K, 5K)");
        assert_eq!(split_label(3, 1), "[2]");
        assert_eq!(split_label(4, 1), "[3]");
        assert_eq!(split_label(5, 1), "[4, 6)");
        let last = crumbs_lang::ir::agg::hist::buckets(5) - 1;
        assert_eq!(split_label(last, 5), "[8064P, 8192P)");
        assert_eq!(split_bounds(2, 0), (None, Some(-1)));
        assert_eq!(split_bounds(2, 9), (Some(8), Some(9)));
        assert_eq!(split_bounds(5, last), (Some(63i64 << 57), Some(i64::MAX)));
    }

    #[test]
    fn split_table_layout() {
        let mut b = vec![0u64; crumbs_lang::ir::agg::hist::buckets(1)];
        b[2] = 4; // the value 1
        b[5] = 2; // [4, 6)
        let want = "[1]                    4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\
                    [2]                    0 |                                                    |\n\
                    [3]                    0 |                                                    |\n\
                    [4, 6)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n";
        assert_eq!(split_table(1, &b, 1), want);
        // Divided counts draw the bars (current bpftrace); the rows stay.
        assert_eq!(split_table(1, &b, 4).lines().map(|l| l[..24].trim_end().to_string()).collect::<Vec<_>>(), ["[1]                    1", "[2]                    0", "[3]                    0", "[4, 6)                 0"]);
        assert_eq!(split_table(1, &[0; 10], 1), "");
    }

    /// DTrace quantize buckets holding `values` (the JSON records' tests use them too).
    pub(in super::super) fn quantize(values: &[i64]) -> Vec<u64> {
        let mut b = vec![0u64; BUCKETS];
        for v in values {
            let i = match *v {
                0 => ZERO_BUCKET,
                v if v > 0 => ZERO_BUCKET + 1 + (63 - v.leading_zeros()) as usize,
                v => ZERO_BUCKET - 1 - (63 - v.unsigned_abs().leading_zeros()) as usize,
            };
            b[i] += 1;
        }
        b
    }

    #[test]
    fn hist_labels_counts_and_bars() {
        // bpftrace 0.17: BEGIN { @h = hist(-3); @h=hist(0); @h=hist(1); @h=hist(1);
        //   @h=hist(1); @h=hist(2); @h=hist(5); @h=hist(1000); @h=hist(1024);
        //   @h = hist(3000000); exit(); } (its table, cut after [2M, 4M)).
        let t = hist_table(&quantize(&[-3, 0, 1, 1, 1, 2, 5, 1000, 1024, 3000000]), 1);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "(..., 0)               1 |@@@@@@@@@@@@@@@@@                                   |");
        assert_eq!(lines[1], "[0]                    1 |@@@@@@@@@@@@@@@@@                                   |");
        assert_eq!(lines[2], "[1]                    3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|");
        assert_eq!(lines[3], "[2, 4)                 1 |@@@@@@@@@@@@@@@@@                                   |");
        assert_eq!(lines[4], "[4, 8)                 1 |@@@@@@@@@@@@@@@@@                                   |");
        assert_eq!(lines[5], "[8, 16)                0 |                                                    |");
        assert_eq!(lines[11], "[512, 1K)              1 |@@@@@@@@@@@@@@@@@                                   |");
        assert_eq!(lines[12], "[1K, 2K)               1 |@@@@@@@@@@@@@@@@@                                   |");
        assert_eq!(lines[21], "[512K, 1M)             0 |                                                    |");
        assert_eq!(lines[23], "[2M, 4M)               1 |@@@@@@@@@@@@@@@@@                                   |");
        assert_eq!(lines.len(), 24);
        assert!(t.ends_with("|\n"));
    }

    #[test]
    fn hist_from_the_first_to_the_last_non_empty_bucket() {
        // BEGIN { @h = hist(1<<31); exit(); } prints only
        // "[2G, 4G)               1 |@@@...@|" (bpftrace 0.17 puts larger values there too,
        // a bug of its log2 that crumbs' buckets do not have).
        assert_eq!(hist_table(&quantize(&[1 << 31]), 1), format!("[2G, 4G)               1 |{}|\n", "@".repeat(52)));
        // Above 2^40 the labels go on in T (as bpftrace's label function writes them).
        assert!(hist_table(&quantize(&[1 << 41]), 1).starts_with("[2T, 4T)  "));
        assert!(hist_table(&quantize(&[i64::MAX]), 1).starts_with("[4194304T, 8388608T)       1 |"));
        assert_eq!(hist_table(&quantize(&[]), 1), "");
        // BEGIN { @j = hist(-1); @j = hist(-(1<<40)); exit(); }: one negative bucket.
        assert_eq!(hist_table(&quantize(&[-1, -(1 << 40)]), 1), format!("(..., 0)               2 |{}|\n", "@".repeat(52)));
    }

    #[test]
    fn hist_divided_counts_keep_their_bars() {
        // BEGIN { @h[1]=hist(1); print(@h, 0, 2); } printed "[1]   0 |@@@...@|".
        assert_eq!(hist_table(&quantize(&[1]), 2), format!("[1]                    0 |{}|\n", "@".repeat(52)));
    }

    #[test]
    fn lhist_labels_and_trimming() {
        // bpftrace 0.17: BEGIN { @l = lhist(-5, 0, 100, 10); @l = lhist(0, 0, 100, 10);
        //   @l = lhist(5, 0, 100, 10); @l = lhist(35, 0, 100, 10) twice;
        //   @l = lhist(100, 0, 100, 10); @l = lhist(1000, 0, 100, 10); exit(); }
        let mut b = vec![0u64; 12];
        b[0] = 1;
        b[1] = 2;
        b[4] = 2;
        b[11] = 2;
        let expected = "\
(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[0, 10)                2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[10, 20)               0 |                                                    |
[20, 30)               0 |                                                    |
[30, 40)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[40, 50)               0 |                                                    |
[50, 60)               0 |                                                    |
[60, 70)               0 |                                                    |
[70, 80)               0 |                                                    |
[80, 90)               0 |                                                    |
[90, 100)              0 |                                                    |
[100, ...)             2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
";
        assert_eq!(lhist_table(0, 100, 10, &b), expected);
        // @m = lhist(55, 0, 100, 10): one line.
        let mut b = vec![0u64; 12];
        b[6] = 1;
        assert_eq!(lhist_table(0, 100, 10, &b), format!("[50, 60)               1 |{}|\n", "@".repeat(52)));
    }

    #[test]
    fn lhist_bounds_in_k_and_m() {
        // @k = lhist(2048, 0, 4096, 1024) printed "[2K, 3K)   1 |...|".
        let mut b = vec![0u64; 6];
        b[3] = 1;
        assert_eq!(lhist_table(0, 4096, 1024, &b), format!("[2K, 3K)               1 |{}|\n", "@".repeat(52)));
        // @n = lhist(-3000, 1024, 3145728, 1048576); @n = lhist(1048577, ...) printed
        // "(..., 1K)" and "[1K, 1025K)".
        let mut b = vec![0u64; 5];
        b[0] = 1;
        b[1] = 1;
        let t = lhist_table(1024, 3145728, 1048576, &b);
        assert_eq!(t, format!("(..., 1K)              1 |{0}|\n[1K, 1025K)            1 |{0}|\n", "@".repeat(52)));
    }
}
