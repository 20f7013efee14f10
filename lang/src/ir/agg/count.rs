//! `count()`: the number of firings.

use super::{Aggregator, Op, Summary};

pub struct Count;

impl Aggregator for Count {
    fn name(&self) -> &'static str {
        "count"
    }

    fn words(&self, _: &[i64]) -> usize {
        1
    }

    fn update(&self, _: &[i64]) -> Vec<Op> {
        vec![Op::Count(0)]
    }

    fn normalize(&self, _: &[i64], w: &mut [u64], n: i64) {
        w[0] /= n as u64;
    }

    fn summary<'a>(&self, _: &[i64], w: &'a [u64]) -> Summary<'a> {
        Summary::Scalar(w[0] as i64)
    }
}
