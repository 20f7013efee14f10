//! Output formats: how crumbs prints what the kernel sent, in DTrace's layouts.
//!
//! Everything here is pure (no kernel, no I/O): values in, text out.

use crumbs_lang::ir::agg::{AggKind, Summary};

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

/// The aggregated data of one key, merged over all CPUs: its function's state words, read
/// through the function (see `crumbs_lang::ir::agg`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AggData {
    pub kind: AggKind,
    pub words: Vec<u64>,
}

impl AggData {
    /// What the value means: a number or a distribution.
    pub fn summary(&self) -> Summary<'_> {
        self.kind.summary(&self.words)
    }
}

/// One row of an aggregation: its key tuple (empty for `@a = count()`) and data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AggRow {
    pub keys: Vec<Value>,
    pub data: AggData,
}
