//! `sum(x)`: the total of the values.

use super::{Aggregator, Op, Summary};

pub struct Sum;

impl Aggregator for Sum {
    fn name(&self) -> &'static str {
        "sum"
    }

    fn words(&self, _: &[i64]) -> usize {
        1
    }

    fn update(&self, _: &[i64]) -> Vec<Op> {
        vec![Op::Add(0)]
    }

    fn normalize(&self, _: &[i64], w: &mut [u64], n: i64) {
        w[0] = (w[0] as i64 / n) as u64;
    }

    fn summary<'a>(&self, _: &[i64], w: &'a [u64]) -> Summary<'a> {
        Summary::Scalar(w[0] as i64)
    }
}
