//! bpftrace's aggregating functions that keep what one of DTrace's keeps: `lhist(x, min, max, step)`
//! lquantize()'s linear buckets and `stats(x)` avg()'s count and total. Their own names tell the output which layout to
//! print.

use super::{avg::Avg, lquantize::Lquantize, Aggregator, BadArgs, Op, Summary};

/// An aggregating function under another name, keeping and updating what `of` does.
pub struct Alias {
    name: &'static str,
    of: &'static dyn Aggregator,
}

pub static LHIST: Alias = Alias { name: "lhist", of: &Lquantize };
pub static STATS: Alias = Alias { name: "stats", of: &Avg };

impl Aggregator for Alias {
    fn name(&self) -> &'static str {
        self.name
    }

    fn params(&self) -> &'static [&'static str] {
        self.of.params()
    }

    fn check(&self, consts: &[i64]) -> Result<(), BadArgs> {
        self.of.check(consts)
    }

    fn words(&self, consts: &[i64]) -> usize {
        self.of.words(consts)
    }

    fn update(&self, consts: &[i64]) -> Vec<Op> {
        self.of.update(consts)
    }

    fn normalize(&self, consts: &[i64], words: &mut [u64], n: i64) {
        self.of.normalize(consts, words, n)
    }

    fn summary<'a>(&self, consts: &[i64], words: &'a [u64]) -> Summary<'a> {
        self.of.summary(consts, words)
    }
}
