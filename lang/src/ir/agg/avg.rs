//! `avg(x)`: the integer mean of the values. State: the number of values, their sum.

use super::{Aggregator, Op, Summary};

pub struct Avg;

impl Aggregator for Avg {
    fn name(&self) -> &'static str {
        "avg"
    }

    fn words(&self, _: &[i64]) -> usize {
        2
    }

    fn update(&self, _: &[i64]) -> Vec<Op> {
        vec![Op::Count(0), Op::Add(1)]
    }

    fn normalize(&self, _: &[i64], w: &mut [u64], n: i64) {
        w[1] = (w[1] as i64 / n) as u64;
    }

    fn summary<'a>(&self, _: &[i64], w: &'a [u64]) -> Summary<'a> {
        Summary::Scalar(average(w[0], w[1] as i64))
    }
}

/// `avg()`'s printed and compared value: `sum / count` truncated, 0 for no samples.
pub fn average(count: u64, sum: i64) -> i64 {
    if count == 0 {
        0
    } else {
        sum.checked_div(count as i64).unwrap_or(0)
    }
}
