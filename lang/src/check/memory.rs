//! Scratch memory: `alloca()`, `copyin()`, `copyinto()` and `bcopy()`. What they give is a
//! `void *` into the kernel's memory (this CPU's scratch space), so the usual casts,
//! members, `stringof()` and `*` read it.

use super::*;
use crate::types::AddrSpace;

/// Bytes kept for an allocation whose size is only known when the probe fires (a larger
/// size is a run-time error, out of scratch space).
pub(super) const ALLOC_ROOM: u32 = 4096;
/// The largest allocation of a size known when compiling.
pub(super) const ALLOC_LIMIT: i64 = 16384;

impl Checker<'_> {
    /// `alloca(size)`, `copyin(addr, size)`.
    pub(super) fn alloc(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let (from, size_arg) = match f.hook {
            FnHook::CopyIn => (Some(Box::new(self.address(&args[0], "the address given to copyin()")?)), &args[1]),
            _ => (None, &args[0]),
        };
        let size = self.int_expr(size_arg, &format!("the size given to {}()", f.name))?;
        let max = match size {
            Expr::Int(n) if !(0..=ALLOC_LIMIT).contains(&n) => {
                return Err(Diagnostic::new(size_arg.span.clone(), format!("{}() of {n} bytes", f.name))
                    .label("too large")
                    .hint(format!("scratch memory holds 0 to {ALLOC_LIMIT} bytes per call")));
            }
            Expr::Int(n) => n as u32,
            _ => ALLOC_ROOM,
        };
        let site = self.alloc_sites;
        self.alloc_sites += 1;
        let void = self.types.void();
        let ty = self.types.pointer(void, AddrSpace::Kernel);
        Ok(TExpr::new(Expr::Alloc { site, size: Box::new(size), max: max.next_multiple_of(8), from }, ty))
    }

    /// An address: an integer or a pointer, a kernel `char *` too (elsewhere a string).
    pub(super) fn address(&mut self, e: &ast::Expr, what: &str) -> Result<Expr, Diagnostic> {
        let v = self.value(e)?;
        if let Expr::Str(StrExpr::KernelStr(addr, _)) = v.expr {
            return Ok(*addr);
        }
        self.int_expr_check(&v.expr, e, what)?;
        Ok(v.expr)
    }

    /// An address the kernel's memory is read at (`bcopy()`'s source, `tracemem()`,
    /// `copyout()`'s buffer): a pointer typed as the traced process's is an error, as it is
    /// for `*` and `->`. (The other way round cannot be told: kernels built with GCC do not
    /// mark `__user` pointers in their BTF, so a kernel-typed pointer may well be a user one.)
    pub(super) fn kernel_address(&mut self, e: &ast::Expr, what: &str, func: &str) -> Result<Expr, Diagnostic> {
        let v = self.value(e)?;
        if self.is_user_pointer(v.ty) {
            let name = self.types.name(v.ty);
            return Err(Diagnostic::new(e.span.clone(), format!("{func}() reads kernel memory, but this is a user-space pointer (`{name}`)"))
                .label("points into the traced process")
                .hint("copy user memory in first: copyin(addr, size) gives a kernel copy to read"));
        }
        if let Expr::Str(StrExpr::KernelStr(addr, _)) = v.expr {
            return Ok(*addr);
        }
        self.int_expr_check(&v.expr, e, what)?;
        Ok(v.expr)
    }

    /// `copyinto(addr, size, dest)`, `bcopy(src, dest, size)`.
    pub(super) fn copy_into(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span, body: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        check_arity(f, args, span)?;
        let user = f.hook == FnHook::CopyInto;
        let (dest_at, size_at) = if user { (2, 1) } else { (1, 2) };
        let src = if user { self.address(&args[0], "the source given to copyinto()")? } else { self.kernel_address(&args[0], "the source given to bcopy()", f.name)? };
        let dest = self.address(&args[dest_at], &format!("the destination given to {}()", f.name))?;
        let size = self.int_expr(&args[size_at], &format!("the size given to {}()", f.name))?;
        body.push(Stmt::Copy { user, src, dest, size });
        Ok(())
    }

    /// `copyout(buf, addr, nbytes)`, `copyoutstr(str, addr, maxlen)` (destructive).
    pub(super) fn copy_out(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span, body: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        check_arity(f, args, span)?;
        let src = match f.hook {
            FnHook::CopyOutStr => CopyOutSrc::Str(self.string_arg(&args[0], f.name)?),
            _ => CopyOutSrc::Memory(self.kernel_address(&args[0], "the buffer given to copyout()", f.name)?),
        };
        let addr = self.int_expr(&args[1], &format!("the user address given to {}()", f.name))?;
        let size = self.int_expr(&args[2], &format!("the size given to {}()", f.name))?;
        if let Expr::Int(n) = size {
            if !(0..=COPYOUT_LIMIT as i64).contains(&n) {
                return Err(Diagnostic::new(args[2].span.clone(), format!("{}() of {n} bytes", f.name))
                    .label("too large")
                    .hint(format!("{}() writes 0 to {COPYOUT_LIMIT} bytes per call", f.name)));
            }
        }
        body.push(Stmt::CopyOut { src, addr, size });
        Ok(())
    }
}
