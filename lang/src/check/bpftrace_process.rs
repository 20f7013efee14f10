//! Current bpftrace's unsafe functions on the thread that fired the probe (docs/stdlib.md):
//! where `signal_thread(sig)` may be called.

use super::*;

impl Checker<'_> {
    /// `signal_thread()` at the probe types current bpftrace's standard library allows it
    /// at (kprobes, kretprobes, uprobes, uretprobes, USDT probes, tracepoints, raw
    /// tracepoints, profile); elsewhere (BEGIN, END, interval, software and hardware
    /// events) an error in its words.
    pub(super) fn signal_thread_probes(&mut self, f: &builtins::BuiltinFn, span: &Span) -> Result<(), Diagnostic> {
        const ALLOWED: &[&str] = &["kprobe", "kretprobe", "uprobe", "uretprobe", "usdt", "tracepoint", "rawtracepoint", "profile"];
        match self.clause_probes.iter().map(bpftrace_std::probe_type).find(|t| !ALLOWED.contains(t)) {
            Some(t) => Err(Diagnostic::new(span.clone(), format!("{}() can not be used for this probetype {t}", f.name))
                .label("not at this probe")
                .hint("signal the thread from a kprobe, uprobe, USDT probe, tracepoint, raw tracepoint or profile probe")),
            None => Ok(()),
        }
    }
}

impl Checker<'_> {
    /// `write_user(dst, src, len)`: the first `len` bytes of string `src`'s buffer written
    /// to the process's memory at `dst` (bpf_probe_write_user), an int: 1 if written, else 0.
    /// Unsafe; `len` is a constant from 1 to the size of `src`'s buffer.
    pub(super) fn write_user(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        if !self.destructive {
            return Err(Diagnostic::new(span.clone(), format!("{}() is an unsafe function being used in safe mode", f.name))
                .label("unsafe")
                .hint("allow unsafe functions with --unsafe (crumbs -w)"));
        }
        let dst = self.int_expr(&args[0], "the user address given to write_user()")?;
        let src = self.string_arg(&args[1], f.name)?;
        let room = match src.repr() {
            crate::ir::Repr::Str(n) => n,
            _ => crate::ir::str_buffer(self.strsize),
        };
        let len = match self.int_value(&args[2], "write_user()'s length")?.expr {
            Expr::Int(n) if (1..=i64::from(room)).contains(&n) => n as u32,
            Expr::Int(_) => {
                return Err(Diagnostic::new(args[2].span.clone(), format!("write_user() writes 1 to {room} bytes of this string"))
                    .label("not a length of the string's buffer")
                    .hint("give the number of bytes to write, the NUL included: write_user(args.filename, \"/tmp/x\", 7)"))
            }
            // Computed: the verifier needs the helper's length within the buffer, so it is
            // bounded by it when the probe fires (none written, 0, for 0).
            len => return Ok(TExpr::new(Expr::IntCall { f: crate::ir::IntFn::WriteUser(room), args: vec![StrArg::Int(dst), StrArg::Str(src), StrArg::Int(len)] }, self.int())),
        };
        Ok(TExpr::new(Expr::IntCall { f: crate::ir::IntFn::WriteUser(len), args: vec![StrArg::Int(dst), StrArg::Str(src)] }, self.int()))
    }
}
