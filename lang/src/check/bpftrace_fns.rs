//! bpftrace's functions that D spells otherwise or lacks, in D's machinery: `bswap()` is
//! D's htonl() family at the argument's width, `strcontains()` D's index(), `ntop()` of an
//! integer D's lltostr() and strjoin().

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

impl Checker<'_> {
    /// `ntop([af,] addr)` of an integer: the IPv4 address whose bytes are the integer's
    /// low four in memory order (bpftrace's `ntop(0x0100007f)` is 127.0.0.1), dotted, made
    /// of D's lltostr() and strjoin(). An `af` must be AF_INET (2).
    pub(super) fn ntop(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let (af, addr) = match args {
            [af, addr] => (Some(af), addr),
            [addr] => (None, addr),
            _ => unreachable!("arity checked"),
        };
        if let Some(af) = af {
            match self.int_expr(af, "ntop()'s address family")? {
                Expr::Int(2) => {}
                Expr::Int(10) => {
                    return Err(Diagnostic::new(af.span.clone(), "ntop() of an IPv6 address is not in crumbs yet")
                        .label("AF_INET6")
                        .hint("read the 16 bytes at a kernel address with inet_ntoa6(addr, 1), or with inet_ntop(AF_INET6, addr)"))
                }
                _ => return Err(Diagnostic::new(af.span.clone(), "ntop()'s address family must be AF_INET (2)").label("not AF_INET").hint("write ntop(AF_INET, addr) or ntop(addr)")),
            }
        }
        let v = self.value(addr)?;
        if !v.expr.is_int() {
            return Err(Diagnostic::new(addr.span.clone(), format!("ntop() takes an IPv4 address as an integer, but this is {}", v.expr.repr().describe()))
                .label("not an integer")
                .hint("pass the address as an integer (uint32, network order); a char[4] or char[16] array is not in crumbs yet: read it at a kernel address with inet_ntop(af, addr)"));
        }
        let size = self.strsize;
        let byte = |i: i64| {
            let shifted = Expr::Binary(BinOp::Shr, Box::new(v.expr.clone()), Box::new(Expr::Int(8 * i)));
            let b = Expr::Binary(BinOp::BitAnd, Box::new(shifted), Box::new(Expr::Int(0xff)));
            StrExpr::Call { f: StrFn::Lltostr, args: vec![StrArg::Int(b)], size }
        };
        let join = |a: StrExpr, b: StrExpr| StrExpr::Call { f: StrFn::Join, args: vec![StrArg::Str(a), StrArg::Str(b)], size };
        let dot = StrExpr::Const(self.strings.intern("."));
        let mut text = byte(0);
        for i in 1..4 {
            text = join(join(text, dot.clone()), byte(i));
        }
        Ok(TExpr::new(Expr::Str(text), self.c_string()))
    }
}
