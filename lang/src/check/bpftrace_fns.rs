//! bpftrace's functions that D spells otherwise or lacks, in D's machinery: `bswap()` is
//! D's htonl() family at the argument's width, `strcontains()` D's index().

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
}
