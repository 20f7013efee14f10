//! Current bpftrace's forms of its builtin variables called with an argument (docs/stdlib.md):
//! `nsecs(clock)`.

use super::*;
use crate::builtins::{KernelValue, Part, VarHook};

impl Checker<'_> {
    /// `nsecs(monotonic)`, `nsecs(boot)`, `nsecs(tai)`, `nsecs(sw_tai)`: the clock's
    /// nanoseconds, a uint64. `tai` needs the kernel's bpf_ktime_get_tai_ns() (Linux 6.1):
    /// a kernel without it is refused in bpftrace's words where crumbs can tell.
    pub(super) fn nsecs(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let clock = match &args[0].kind {
            ExprKind::Ident(m) => m.as_str(),
            _ => "",
        };
        let value = match clock {
            "monotonic" => KernelValue::MonotonicNs,
            "boot" => KernelValue::BootNs,
            "tai" => KernelValue::TaiNs,
            "sw_tai" => KernelValue::SwTaiNs,
            _ => {
                let what = if clock.is_empty() { "not a clock".to_string() } else { format!("Invalid timestamp mode: {clock}") };
                return Err(Diagnostic::new(args[0].span.clone(), what)
                    .label("not a clock")
                    .hint("write nsecs(monotonic), nsecs(boot), nsecs(tai) or nsecs(sw_tai)"));
            }
        };
        if value == KernelValue::TaiNs {
            if let Some(Ok(None)) = self.opts.facts.as_ref().map(|facts| facts.kernel_symbol("bpf_ktime_get_tai_ns")) {
                return Err(Diagnostic::new(span.clone(), "Kernel does not support tai timestamp, please try sw_tai")
                    .label("no bpf_ktime_get_tai_ns() in this kernel")
                    .hint("nsecs(sw_tai) is CLOCK_TAI read without the helper (Linux 6.1 has it)"));
            }
        }
        Ok(TExpr::new(Expr::Var(VarHook::Kernel(value, Part::Whole)), self.c_int("uint64_t")))
    }
}
