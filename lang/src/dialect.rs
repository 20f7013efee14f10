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

/// bpftrace's positional parameters: `$1`, `$2`, ... and `$#` (`$$1` is D's string form,
/// which crumbs' bpftrace reads as `str($1)`). Any other `$name` is a scratch variable.
pub fn is_positional(name: &str) -> bool {
    name == "#" || (!name.is_empty() && name.trim_start_matches('$').chars().all(|c| c.is_ascii_digit()))
}

/// bpftrace's aggregating functions and D's: `@m = f(...)` with one of these is an
/// aggregation; with anything else (in bpftrace) it stores a value in a map.
pub fn is_aggregating(name: &str) -> bool {
    crate::builtins::FUNCTIONS.iter().any(|f| f.name == name && f.kind == crate::builtins::FnKind::Aggregating)
}

use crate::ast::{Expr, ExprKind, Ident, Span};
use crate::builtins::{FnHook, VarHook};
use crate::diag::Diagnostic;

/// A name alone in a bpftrace program, as its row in the builtins table says: a call
/// without arguments (`kstack` is `kstack()`) or `elapsed` (nanoseconds since tracing
/// began: `timestamp - $__start`, the start given when checking); any other name stays
/// itself, for the checker.
pub fn bpftrace_ident(name: &str, sp: &Span) -> ExprKind {
    let ident = |n: &str| Box::new(Expr { kind: ExprKind::Ident(n.into()), span: sp.clone() });
    match crate::builtins::variable(name, Dialect::Bpftrace).map(|v| v.hook) {
        Some(VarHook::Call(f)) => ExprKind::Call(Ident { name: f.into(), span: sp.clone() }, Vec::new()),
        Some(VarHook::Elapsed) => ExprKind::Binary(crate::ast::BinOp::Sub, ident("timestamp"), Box::new(Expr { kind: ExprKind::Macro("__start".into()), span: sp.clone() })),
        _ => ExprKind::Ident(name.into()),
    }
}

/// bpftrace's signal names, as `signal("SIGKILL")` and `signal("KILL")` take them.
const SIGNALS: &[(&str, i64)] = &[
    ("HUP", 1), ("INT", 2), ("QUIT", 3), ("ILL", 4), ("TRAP", 5), ("ABRT", 6), ("BUS", 7), ("FPE", 8), ("KILL", 9), ("USR1", 10),
    ("SEGV", 11), ("USR2", 12), ("PIPE", 13), ("ALRM", 14), ("TERM", 15), ("STKFLT", 16), ("CHLD", 17), ("CONT", 18), ("STOP", 19),
    ("TSTP", 20), ("TTIN", 21), ("TTOU", 22), ("URG", 23), ("XCPU", 24), ("XFSZ", 25), ("VTALRM", 26), ("PROF", 27), ("WINCH", 28),
    ("IO", 29), ("PWR", 30), ("SYS", 31),
];

/// The arguments of a call in a bpftrace program as the function's row takes them:
/// `signal(sig)` with a signal's name as its number. (`kstack([mode,] [n])` and
/// `ustack([mode,] [n])` keep their mode: the checker reads it.)
pub fn bpftrace_call(name: Ident, mut args: Vec<Expr>) -> Result<ExprKind, Diagnostic> {
    // (A function of the same name keeps its calls with arguments: D's `func(pc)`.)
    if CALLED_VARIABLES.contains(&name.name.as_str()) && (args.is_empty() || crate::builtins::function(&name.name, Dialect::Bpftrace).is_none()) {
        return called_variable(name, &args);
    }
    if let Some(FnHook::Raise | FnHook::SignalThread) = crate::builtins::function(&name.name, Dialect::Bpftrace).map(|f| f.hook) {
        if let Some(ExprKind::Str(s)) = args.first().map(|a| &a.kind) {
                let bare = s.value.strip_prefix("SIG").unwrap_or(&s.value);
                let Some((_, n)) = SIGNALS.iter().find(|(n, _)| *n == bare) else {
                    return Err(Diagnostic::new(args[0].span.clone(), format!("`{}` is not a signal", s.value))
                        .label("no such signal")
                        .hint("name a signal as bpftrace does: signal(\"SIGKILL\"), signal(\"KILL\") or signal(9)"));
                };
                args[0] = Expr { kind: ExprKind::Int(*n, crate::types::IntType { name: "int".into(), size: 4, signed: true, char: false, bool: false }), span: args[0].span.clone() };
        }
    }
    Ok(ExprKind::Call(name, args))
}

/// bpftrace's builtin variables that current bpftrace's standard library also calls
/// (docs/stdlib.md: `pid` and `pid()` are the same).
const CALLED_VARIABLES: &[&str] = &[
    "cgroup", "comm", "cpid", "cpu", "curtask", "elapsed", "func", "gid", "jiffies", "leader_comm", "leader_tid", "numaid", "nsecs", "pcomm", "pid",
    "ppid", "probe", "retval", "tid", "uid", "username",
];

/// Whether `name()` is one of bpftrace's variables called (`pid()`).
pub fn is_called_variable(name: &str) -> bool {
    CALLED_VARIABLES.contains(&name)
}

/// `pid()` as `pid`; `pid(curr_ns)` and `pid(init)` (and `tid`'s) as `pid` too: crumbs reads
/// the ids the initial pid namespace sees, which are the current one's where crumbs runs
/// in it; `pcomm(task)`, `ppid(task)`, `leader_comm(task)` and `leader_tid(task)` as the
/// members current bpftrace reads ([`task_members`]). Other arguments are errors.
/// (`nsecs(clock)` is a function of its own.)
fn called_variable(name: Ident, args: &[Expr]) -> Result<ExprKind, Diagnostic> {
    let f = name.name.as_str();
    let arg = |a: &Expr| match &a.kind {
        ExprKind::Ident(n) => Some(n.clone()),
        _ => None,
    };
    let modes: &[&str] = match f {
        "pid" | "tid" => &["curr_ns", "init"],
        _ => &[],
    };
    match args {
        [] => Ok(bpftrace_ident(f, &name.span)),
        [a] if arg(a).is_some_and(|m| modes.contains(&m.as_str())) => Ok(bpftrace_ident(f, &name.span)),
        [task] if task_members(f).is_some() => Ok(members_of(task, task_members(f).unwrap_or_default(), &name.span)),
        [a, ..] if !modes.is_empty() => Err(Diagnostic::new(a.span.clone(), format!("{f}() takes {} or nothing", modes.join(" or ")))
            .label("not a mode")
            .hint(format!("write {f} or {f}(), or {}", modes.iter().map(|m| format!("{f}({m})")).collect::<Vec<_>>().join(", ")))),
        [_, a, ..] if task_members(f).is_some() => Err(Diagnostic::new(a.span.clone(), format!("{f}() takes a task or nothing"))
            .label("one too many")
            .hint(format!("write {f} for the current task's, or {f}(task) for a `struct task_struct *`'s"))),
        [a, ..] => Err(Diagnostic::new(a.span.clone(), format!("{f}() takes no arguments"))
            .label("one too many")
            .hint(format!("write {f} or {f}(): they are the same (crumbs has no form of {f}() with an argument)"))),
    }
}

/// The members current bpftrace's standard library reads of a task for `f(task)`:
/// `pcomm(t)` is `t->real_parent->comm`, `ppid(t)` `t->real_parent->pid` (the parent
/// thread's id, as current bpftrace has it; `ppid` alone stays 0.17's, the parent's
/// process id), `leader_comm(t)` `t->group_leader->comm`, `leader_tid(t)`
/// `t->group_leader->pid`.
fn task_members(f: &str) -> Option<&'static [&'static str]> {
    Some(match f {
        "pcomm" => &["real_parent", "comm"],
        "ppid" => &["real_parent", "pid"],
        "leader_comm" => &["group_leader", "comm"],
        "leader_tid" => &["group_leader", "pid"],
        _ => return None,
    })
}

/// `base->m1->m2...`, the members named where the call is.
fn members_of(base: &Expr, members: &[&str], at: &Span) -> ExprKind {
    let mut e = base.clone();
    for m in members {
        let span = at.start.min(e.span.start)..at.end.max(e.span.end);
        e = Expr { kind: ExprKind::Member { base: Box::new(e), member: Ident { name: (*m).into(), span: at.clone() }, arrow: true }, span };
    }
    e.kind
}

/// bpftrace's integer type names as D's: `uint64` is `uint64_t`, `int8` is `int8_t`.
pub fn bpftrace_type(name: &str) -> &str {
    match name {
        "int8" => "int8_t",
        "int16" => "int16_t",
        "int32" => "int32_t",
        "int64" => "int64_t",
        "uint8" => "uint8_t",
        "uint16" => "uint16_t",
        "uint32" => "uint32_t",
        "uint64" => "uint64_t",
        _ => name,
    }
}
