//! bpftrace's functions that D spells otherwise or lacks, in D's machinery: `bswap()` is
//! D's htonl() family at the argument's width, `strcontains()` D's index(), `strncmp()` a
//! comparison of D's substr()s, `kptr()`/`uptr()` a pointer's type in the other memory.

use super::*;
use crate::ir::IntFn;

impl Checker<'_> {
    /// `bswap(n)`: the bytes of n's type reversed, unsigned of that width (bpftrace returns
    /// a 1-byte integer as it is).
    pub(super) fn bswap(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let n = self.int_value(&args[0], "the argument of bswap()")?;
        Ok(match self.int_repr(n.ty).size {
            1 => TExpr::new(Expr::Binary(BinOp::BitAnd, Box::new(n.expr), Box::new(Expr::Int(0xff))), self.c_int("uint8_t")),
            2 => TExpr::new(Expr::IntCall { f: IntFn::Swap(2), args: vec![StrArg::Int(n.expr)] }, self.c_int("uint16_t")),
            4 => TExpr::new(Expr::IntCall { f: IntFn::Swap(4), args: vec![StrArg::Int(n.expr)] }, self.c_int("uint32_t")),
            _ => TExpr::new(Expr::IntCall { f: IntFn::Swap(8), args: vec![StrArg::Int(n.expr)] }, self.c_int("uint64_t")),
        })
    }

    /// `strcontains(haystack, needle)`: `index(haystack, needle) != -1`.
    pub(super) fn strcontains(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let haystack = self.string_arg(&args[0], f.name)?;
        let needle = self.string_arg(&args[1], f.name)?;
        let index = Expr::IntCall { f: IntFn::Index, args: vec![StrArg::Str(haystack), StrArg::Str(needle)] };
        Ok(TExpr::new(Expr::Binary(BinOp::Ne, Box::new(index), Box::new(Expr::Int(-1))), self.int()))
    }

    /// `strncmp(a, b, n)`: `substr(a, 0, n) != substr(b, 0, n)`, with n a constant as
    /// bpftrace has it.
    pub(super) fn strncmp(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let a = self.string_arg(&args[0], f.name)?;
        let b = self.string_arg(&args[1], f.name)?;
        let n = match self.int_value(&args[2], "strncmp()'s length")?.expr {
            Expr::Int(n) if n >= 0 => n,
            _ => {
                return Err(Diagnostic::new(args[2].span.clone(), "strncmp() needs a constant length")
                    .label("not a constant")
                    .hint("write the number of bytes to compare: strncmp(comm, \"bash\", 4)"))
            }
        };
        // A length beyond the string size compares whole strings (the length may not fit
        // 32 bits).
        let size = (n.min(i64::from(self.strsize)) as u32 + 1).next_multiple_of(8).min(self.strsize.next_multiple_of(8));
        let cut = |s: StrExpr| StrExpr::Call { f: crate::ir::StrFn::Substr, args: vec![StrArg::Str(s), StrArg::Int(Expr::Int(0)), StrArg::Int(Expr::Int(n))], size };
        Ok(TExpr::new(Expr::StrCmp(BinOp::Ne, cut(a), cut(b)), self.int()))
    }

    /// `kptr(p)` / `uptr(p)`: p as a pointer into kernel / user memory (an integer stays one:
    /// str() of it reads where its address says).
    pub(super) fn pointer_space(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span, user: bool) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let p = self.int_value(&args[0], &format!("the argument of {}()", f.name))?;
        let space = if user { crate::types::AddrSpace::User } else { crate::types::AddrSpace::Kernel };
        let ty = match self.types.real(p.ty) {
            Ok(crate::types::Type::Ptr { to, .. }) => self.types.pointer(to, space),
            _ => p.ty,
        };
        Ok(TExpr::new(p.expr, ty))
    }
}
