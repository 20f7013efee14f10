//! Output formats: how crumbs prints what the kernel sent, in DTrace's layouts.
//!
//! Everything here is pure (no kernel, no I/O): values in, text out.

pub mod aggregation;
pub mod printf;
pub mod record;

/// One value as user space sees it after decoding a record or a map key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    Int(i64),
    Str(String),
    /// A kernel stack: its frames, innermost first, already symbolized.
    Stack(Vec<String>),
}

impl Value {
    /// DTrace's dt_print_stack: a newline, then each frame on its own line indented by 14.
    pub fn stack_text(frames: &[String]) -> String {
        let mut s = String::from("\n");
        for f in frames {
            s.push_str(&format!("{:14}{f}\n", ""));
        }
        s
    }
}

/// The aggregated data of one key, merged over all CPUs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AggData {
    Count(u64),
    Sum(i64),
    Min(i64),
    Max(i64),
    Avg { count: u64, sum: i64 },
    /// stddev(): count, sum, and the sum of squares.
    Stddev { count: u64, sum: i64, squares: u128 },
    /// DTrace's 127 power-of-two buckets: index 63 is the zero bucket; index 64+k counts
    /// values in [2^k, 2^(k+1)); index 62-k counts values in (-2^(k+1), -2^k].
    Quantize(Vec<u64>),
    /// lquantize(x, base, limit, step): buckets[0] counts x < base, buckets[1+i] counts
    /// base+i*step <= x < base+(i+1)*step, the last bucket counts x >= limit.
    Lquantize { base: i64, limit: i64, step: i64, buckets: Vec<u64> },
}

/// One row of an aggregation: its key tuple (empty for `@a = count()`) and data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AggRow {
    pub keys: Vec<Value>,
    pub data: AggData,
}
