//! bpftrace's `buf(addr, length)` and `buf(array)`: bytes in memory, kept with their count
//! ([`Repr::Buf`]) and printed in user space (`%r`, `%rx`, `%rh`, keys, values, print()).
//! Where the bytes are read from is decided as str() decides it: a user-space pointer's
//! from the process, a kernel pointer's or an array's from the kernel, an integer's by its
//! half of the address space.

use super::*;
use crate::ir::ReadFrom;
use crate::types::{AddrSpace, Type};
use ctypes::Val;

const USAGE: &str = "buf(addr, length) reads length bytes at an address (buf(args->buf, args->count)); buf(array) an array in memory whole";

impl Checker<'_> {
    /// `buf(addr, length)` / `buf(array)`: at most `max_strlen` bytes; a constant length
    /// sizes the buffer (a larger one is cut to `max_strlen`, as bpftrace cuts it), a
    /// computed one takes `max_strlen` bytes' place.
    pub(super) fn buf(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let e = &args[0];
        let t = self.typed(e)?;
        if let Val::Value(Expr::Str(s)) = &t.val {
            let s = s.clone();
            return self.string_buf(s, args, span);
        }
        let real = self.types.real(t.ty).map_err(|x| ctypes::no_types(&e.span, x))?;
        let (from, whole) = match (&real, &t.val) {
            (Type::Ptr { space: AddrSpace::User, .. }, _) => (ReadFrom::User, None),
            (Type::Ptr { .. }, _) => (ReadFrom::Kernel, None),
            (Type::Int(_) | Type::Enum { .. }, _) => (ReadFrom::ByAddress, None),
            (Type::Array { .. }, Val::Place(_)) => (ReadFrom::Kernel, Some(self.sized(t.ty, &e.span)?)),
            _ => {
                let name = self.types.name(t.ty);
                return Err(Diagnostic::new(e.span.clone(), format!("buf() of a `{name}`")).label("not an address or an array in memory").hint(USAGE));
            }
        };
        let name = self.types.name(t.ty);
        let (len, cap) = self.buf_length(args, whole, &name, span)?;
        let addr = match t.val {
            Val::Place(a) if whole.is_some() => a,
            _ => self.value_of(t, &e.span)?,
        };
        let ty = self.types.printed(Repr::Buf(cap));
        Ok(TExpr::new(Expr::Buf { addr: Box::new(addr), from, len: Box::new(len), cap }, ty))
    }

    /// `buf(s, length)` of a string: the first `length` bytes of its buffer (bpftrace 0.17
    /// copies them from the string's own place). Without a length, bpftrace's error.
    fn string_buf(&mut self, s: StrExpr, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        let (len, cap) = self.buf_length(args, None, "string", span)?;
        let ty = self.types.printed(Repr::Buf(cap));
        Ok(TExpr::new(Expr::StrBuf { s, len: Box::new(len), cap }, ty))
    }

    /// buf()'s length (`args[1]`, or an array's size, `whole`) and the buffer's size.
    fn buf_length(&mut self, args: &[ast::Expr], whole: Option<u64>, type_name: &str, span: &Span) -> Result<(Expr, u32), Diagnostic> {
        let max = self.max_strlen;
        Ok(match (args.get(1), whole) {
            (None, Some(size)) => {
                let n = size.min(max as u64) as u32;
                (Expr::Int(n as i64), n)
            }
            (None, None) => {
                return Err(Diagnostic::new(span.clone(), format!("buf() expects a length argument for non-array type `{type_name}`"))
                    .label("how many bytes?")
                    .hint(USAGE));
            }
            (Some(n), _) => match const_int(n) {
                Some(k) if k < 0 => {
                    return Err(Diagnostic::new(n.span.clone(), format!("buf cannot use negative length ({k})")).label("negative").hint(USAGE));
                }
                Some(k) => {
                    let k = (k as u64).min(max as u64) as u32;
                    (Expr::Int(k as i64), k)
                }
                None => (self.int_expr(n, "buf()'s length")?, max),
            },
        })
    }
}

/// The error of printf's conversion `c` of a value kept as `r` where one is a buffer and the
/// other is not (bpftrace's words).
pub(super) fn conversion(c: &crate::printf::Conv, r: Repr, span: &Span) -> Option<Diagnostic> {
    let buffer = matches!(r, Repr::Buf(_));
    let conv = format!("%r{}", c.suffix.map(String::from).unwrap_or_default());
    match (c.arg_kind() == crate::printf::ArgKind::Buffer, buffer) {
        (true, false) => Some(Diagnostic::new(span.clone(), format!("{conv} expects a buffer, but this is {}", r.describe())).label("not a buffer").hint("%r prints what buf(addr, length) read; print this with the conversion of its type (%d, %s)")),
        (false, true) => Some(Diagnostic::new(span.clone(), format!("%{} of a buffer", c.conv)).label("a buffer").hint("print a buffer with %r (printable bytes as they are), %rx or %rh (every byte in hex)")),
        _ => None,
    }
}
