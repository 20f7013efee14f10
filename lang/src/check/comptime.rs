//! Current bpftrace's `comptime expr`: the value of an expression that must be known when
//! compiling, folded to its constant (`if comptime (probetype == "kprobe") { ... }`: the
//! branch is then decided when compiling, §13.3). One known only when the probe fires is
//! bpftrace's error.

use super::*;

impl Checker<'_> {
    /// `comptime inner`.
    pub(super) fn comptime(&mut self, inner: &ast::Expr, span: &Span) -> Result<TExpr, Diagnostic> {
        let v = self.value(inner)?;
        match crate::ir::fold::constant(&v.expr, &self.strings) {
            Some(c) => Ok(TExpr::new(Expr::Int(c), v.ty)),
            None => Err(Diagnostic::new(span.clone(), "Unable to resolve comptime expression")
                .label("known only when the probe fires")
                .hint("comptime takes what is known when compiling: constants, positional parameters, sizeof, typeof, is_str() and the other type predicates, probetype")),
        }
    }
}
