//! Current bpftrace's functions of a string's bytes (docs/stdlib.md): `memcmp(a, b, n)` and
//! `strcap(s)`.

use super::*;
use crate::ir::IntFn;
use crate::types::Type;

impl Checker<'_> {
    /// `memcmp(a, b, n)`: the first n bytes of two strings' buffers compared, an int: the
    /// difference of the first bytes that differ (signed chars), 0 if none. n is a
    /// non-negative constant; bytes past a buffer are 0.
    pub(super) fn memcmp(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let a = self.string_arg(&args[0], f.name)?;
        let b = self.string_arg(&args[1], f.name)?;
        // No buffer is larger than the string size: bytes past it are all 0 on both sides.
        let most = crate::ir::str_buffer(self.strsize);
        let n = match self.int_value(&args[2], "memcmp()'s count")?.expr {
            Expr::Int(n) if n >= 0 => n,
            Expr::Int(_) => {
                return Err(Diagnostic::new(args[2].span.clone(), "memcmp() needs a non-negative count")
                    .label("negative")
                    .hint("write the number of bytes to compare: memcmp(comm, \"bash\", 4)"))
            }
            // Computed, as current bpftrace takes it (its uint64): compared up to the buffers'
            // end, stopping at the count when the probe fires.
            count => return Ok(TExpr::new(Expr::IntCall { f: IntFn::Memcmp(most), args: vec![StrArg::Str(a), StrArg::Str(b), StrArg::Int(count)] }, self.int())),
        };
        let n = n.min(i64::from(most)) as u32;
        Ok(TExpr::new(Expr::IntCall { f: IntFn::Memcmp(n), args: vec![StrArg::Str(a), StrArg::Str(b)] }, self.int()))
    }

    /// `strcap(s)`: a string's capacity, an int64 known when compiling: a literal's bytes
    /// and NUL, `comm`'s 16, another string's the string size (bpftrace's max_strlen); a
    /// char array's length; for a pointer, the length of the string it points to.
    pub(super) fn strcap(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let int64 = self.c_int("int64_t");
        let e = &args[0];
        if let ExprKind::Str(s) = &e.kind {
            return Ok(TExpr::new(Expr::Int(s.value.len() as i64 + 1), int64));
        }
        let t = self.typed(e)?;
        match self.types.real(t.ty).map_err(|x| ctypes::no_types(&e.span, x))? {
            Type::Array { elem, len } if self.types.as_int(elem).ok().flatten().is_some_and(|i| i.size == 1) => return Ok(TExpr::new(Expr::Int(i64::from(len)), int64)),
            Type::Ptr { to, .. } if self.types.as_int(to).ok().flatten().is_some_and(|i| i.size == 1) => {
                let read = ast::Expr { kind: ExprKind::Call(ast::Ident { name: "str".into(), span: e.span.clone() }, vec![e.clone()]), span: e.span.clone() };
                let s = self.string_arg(&read, f.name)?;
                return Ok(TExpr::new(Expr::Strlen(s), int64));
            }
            Type::Array { .. } => return Err(not_string_like(e, "string-like arrays must contain a char-like type")),
            Type::Ptr { .. } => return Err(not_string_like(e, "string-like pointers must point to a char-like type")),
            _ => {}
        }
        let v = self.value_of(t, &e.span)?;
        let Expr::Str(s) = v else { return Err(not_string_like(e, "string-like values must be either strings, arrays or pointers")) };
        let cap = match s {
            StrExpr::Comm => crate::ir::COMM_SIZE,
            StrExpr::Const(id) => self.strings.resolve(id).len() as u32 + 1,
            _ => self.strsize,
        };
        Ok(TExpr::new(Expr::Int(i64::from(cap)), int64))
    }
}

/// An argument of strcap() that is not a string, a char array or a pointer to chars, in
/// bpftrace's words.
fn not_string_like(e: &ast::Expr, message: &str) -> Diagnostic {
    Diagnostic::new(e.span.clone(), message)
        .label("not string-like")
        .hint("give a string (comm, str(p), a literal), a char array or a pointer to chars")
}
