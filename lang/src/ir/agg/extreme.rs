//! `min(x)` and `max(x)`: the smallest or largest value. One CPU's state is the number of
//! values it saw (0: none yet, whatever the value word holds) and the value kept; a key no
//! CPU saw a value for is not printed.

use super::{Aggregator, Keep, Op, Summary};

pub struct Extreme {
    keep: Keep,
}

pub const MIN: Extreme = Extreme { keep: Keep::Min };
pub const MAX: Extreme = Extreme { keep: Keep::Max };

impl Aggregator for Extreme {
    fn name(&self) -> &'static str {
        match self.keep {
            Keep::Min => "min",
            Keep::Max => "max",
        }
    }

    fn words(&self, _: &[i64]) -> usize {
        2
    }

    fn update(&self, _: &[i64]) -> Vec<Op> {
        vec![Op::Keep { seen: 0, value: 1, keep: self.keep }]
    }

    fn normalize(&self, _: &[i64], w: &mut [u64], n: i64) {
        w[1] = (w[1] as i64 / n) as u64;
    }

    fn summary<'a>(&self, _: &[i64], w: &'a [u64]) -> Summary<'a> {
        Summary::Scalar(w[1] as i64)
    }
}
