//! Which language a program is written in: D, or bpftrace's. Both share the grammar's
//! machinery and everything after the AST; the dialect decides how a few spellings read
//! (`$x` is a scratch variable in bpftrace, a macro variable in D; `@m[k] = v` stores into
//! a map in bpftrace) and how the output looks.

use std::fmt;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    #[default]
    D,
    Bpftrace,
}

impl Dialect {
    /// `d` or `bpftrace` (`bt` too), as `--dialect` takes it.
    pub fn from_name(name: &str) -> Option<Dialect> {
        match name {
            "d" | "D" => Some(Dialect::D),
            "bpftrace" | "bt" => Some(Dialect::Bpftrace),
            _ => None,
        }
    }

    /// The dialect a script file's name says: `.bt` is bpftrace, `.d` is D.
    pub fn of_path(path: &str) -> Option<Dialect> {
        match std::path::Path::new(path).extension()?.to_str()? {
            "bt" => Some(Dialect::Bpftrace),
            "d" => Some(Dialect::D),
            _ => None,
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::D => "D",
            Dialect::Bpftrace => "bpftrace",
        })
    }
}

/// D's macro variables: `$target`, crumbs' own process ids, and `$0`, `$1`, ... (`$$1` as
/// strings). Any other `$name` is one of bpftrace's scratch variables.
pub fn is_d_macro(name: &str) -> bool {
    let n = name.trim_start_matches('$');
    n.chars().all(|c| c.is_ascii_digit())
        || matches!(n, "target" | "pid" | "ppid" | "pgid" | "sid" | "uid" | "euid" | "gid" | "egid" | "projid" | "taskid" | "zoneid")
}

/// bpftrace's aggregating functions and D's: `@m = f(...)` with one of these is an
/// aggregation; with anything else (in bpftrace) it stores a value in a map.
pub fn is_aggregating(name: &str) -> bool {
    crate::builtins::function(name).is_some_and(|f| f.kind == crate::builtins::FnKind::Aggregating)
}
