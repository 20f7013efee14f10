//! Run-time faults: what aborts a clause when its probe fires (DTrace's `DTRACEFLT_*`), so
//! the `ERROR` probe fires and the error is reported.

/// A fault, with DTrace's code (`arg4` of the ERROR probe) and words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A kernel or user address that cannot be read; `arg5` is the address.
    BadAddr,
    /// An operation with an argument it cannot take (a subroutine's).
    IllOp,
    /// `/` or `%` by zero.
    DivZero,
    /// More scratch memory than `alloca()` or `copyin()` has room for.
    NoScratch,
    /// An array index past the array's end; `arg5` is the index.
    BadIndex,
}

impl Fault {
    pub const ALL: [Fault; 5] = [Fault::BadAddr, Fault::IllOp, Fault::DivZero, Fault::NoScratch, Fault::BadIndex];

    /// DTrace's fault code (`DTRACEFLT_BADADDR` is 1, ...).
    pub fn code(self) -> u32 {
        match self {
            Fault::BadAddr => 1,
            Fault::IllOp => 3,
            Fault::DivZero => 4,
            Fault::NoScratch => 5,
            Fault::BadIndex => 11,
        }
    }

    pub fn from_code(code: u32) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| f.code() == code)
    }

    /// The words of DTrace's message (dtrace_faultstr()), then what it shows of `arg5`.
    pub fn describe(self, value: u64) -> String {
        match self {
            Fault::BadAddr => format!("invalid address (0x{value:x})"),
            Fault::IllOp => "illegal operation".into(),
            Fault::DivZero => "divide-by-zero".into(),
            Fault::NoScratch => "out of scratch space".into(),
            Fault::BadIndex => format!("index out of bounds ({})", value as i64),
        }
    }
}
