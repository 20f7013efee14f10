//! `stddev(x)`: the integer standard deviation of the values. State: the number of values,
//! their sum, and the 128-bit sum of their squares (low word, high word).

use super::{Aggregator, Op, Summary};

pub struct Stddev;

impl Aggregator for Stddev {
    fn name(&self) -> &'static str {
        "stddev"
    }

    fn words(&self, _: &[i64]) -> usize {
        4
    }

    fn update(&self, _: &[i64]) -> Vec<Op> {
        vec![Op::Count(0), Op::Add(1), Op::AddSquare(2)]
    }

    fn normalize(&self, _: &[i64], w: &mut [u64], n: i64) {
        w[1] = (w[1] as i64 / n) as u64;
        let squares = squares(w) / (n as u128 * n as u128);
        (w[2], w[3]) = (squares as u64, (squares >> 64) as u64);
    }

    fn summary<'a>(&self, _: &[i64], w: &'a [u64]) -> Summary<'a> {
        Summary::Scalar(stddev(w[0], w[1] as i64, squares(w)))
    }
}

fn squares(w: &[u64]) -> u128 {
    (w[3] as u128) << 64 | w[2] as u128
}

/// `stddev()`'s printed and compared value, as DTrace's dt_stddev computes it: the integer
/// square root of (sum of squares / count) - (sum / count)^2, 0 for no samples.
pub fn stddev(count: u64, sum: i64, squares: u128) -> i64 {
    if count == 0 {
        return 0;
    }
    let mean_of_squares = squares / count as u128;
    let mean = (sum / count as i64).unsigned_abs() as u128;
    let var = mean_of_squares.saturating_sub(mean * mean);
    // Integer square root: a float estimate, corrected to the exact floor.
    if var == 0 {
        return 0;
    }
    let mut x = (var as f64).sqrt() as u128;
    while x * x > var {
        x -= 1;
    }
    while (x + 1) * (x + 1) <= var {
        x += 1;
    }
    x as i64
}
