//! What the bpftrace dialect reads differently from D: its maps as values (`@m[k]` read,
//! `delete()`, `clear()` of a map that is not an aggregation), `exit()` without a status,
//! positional parameters that are not given (0 or ""), and `$#`.

use super::*;
use crate::dialect::Dialect;

impl Checker<'_> {
    pub(super) fn bpftrace(&self) -> bool {
        self.opts.dialect == Some(Dialect::Bpftrace)
    }

    /// `@m[k]` or `@m` used as a value: the map's element (0 or "" if it has none), with its
    /// C type.
    pub(super) fn map_typed(&mut self, a: &ast::AggRef) -> Result<super::ctypes::Typed, Diagnostic> {
        self.not_aggregation(a)?;
        self.map_array(a)?;
        self.typed(&map_expr(a))
    }

    fn not_aggregation(&mut self, a: &ast::AggRef) -> Result<(), Diagnostic> {
        if let Some(id) = self.aggs.iter().position(|x| x.name == a.name) {
            let func = self.agg_spans[id].1.clone();
            return Err(Diagnostic::new(a.span.clone(), format!("map `@{}` holds {func}(), which cannot be read in an expression", a.name))
                .label("an aggregation")
                .related(self.agg_spans[id].0.clone(), "made an aggregation here")
                .hint(format!("keep a value to read back in a map of its own: `@{}_n[...]++` or `@{}_v[...] = value`", a.name, a.name)));
        }
        Ok(())
    }

    /// `delete(@m[k])` (bpftrace 0.17) or `delete(@m, k)`: the element goes.
    pub(super) fn delete(&mut self, args: &[ast::Expr], span: &Span, body: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        let usage = || Diagnostic::new(span.clone(), "delete() takes a map's element").label("not a map element").hint("write delete(@map[key]) or delete(@map, key)");
        let Some(ast::Expr { kind: ExprKind::Agg(a), .. }) = args.first() else { return Err(usage()) };
        let mut agg = a.clone();
        match (&args[1..], a.keys.is_empty()) {
            ([], _) => {}
            (keys, true) => agg.keys = keys.to_vec(),
            (_, false) => return Err(usage()),
        }
        if self.aggs.iter().any(|x| x.name == agg.name) {
            return Err(Diagnostic::new(agg.span.clone(), format!("delete() of aggregation `@{}`'s element", agg.name))
                .label("an aggregation")
                .hint(format!("clear(@{}) empties a whole aggregation", agg.name)));
        }
        let array = self.map_array(&agg)?;
        let keys = self.array_keys(array, &agg.keys, &agg.span)?;
        body.push(Stmt::DeleteElement { array, keys });
        Ok(())
    }

    /// The associative array that holds map `@m`: a compile error if nothing stores into it.
    pub(super) fn map_array(&mut self, a: &ast::AggRef) -> Result<usize, Diagnostic> {
        self.array(&format!("@{}", a.name), false).ok_or_else(|| {
            Diagnostic::new(a.span.clone(), format!("map `@{}` is never assigned", a.name))
                .label("no value anywhere")
                .hint(format!("store into it somewhere: `@{}[key] = value;` (or make it an aggregation: `@{} = count();`)", a.name, a.name))
        })
    }

    /// `clear(@m)` of a map that holds values: every element deleted. False if `@m` is an
    /// aggregation (D's clear()).
    pub(super) fn clear_map(&mut self, arg: &ast::Expr, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<bool, Diagnostic> {
        let ExprKind::Agg(a) = &arg.kind else { return Ok(false) };
        if !self.bpftrace() || !a.keys.is_empty() || self.aggs.iter().any(|x| x.name == a.name) {
            return Ok(false);
        }
        let id = self.map_array(a)?;
        items.push(Item::ClearArray(id));
        body.push(Stmt::Emit { item: items.len() - 1, args: vec![] });
        Ok(true)
    }

    /// `$N` that is not given: 0 (or "" where a string is wanted, which bpftrace decides
    /// by use; here an integer), and `$#`, how many are given.
    pub(super) fn positional(&mut self, m: &str) -> Option<TExpr> {
        if m == "#" {
            return Some(TExpr::new(Expr::Int(self.opts.args.len().saturating_sub(1) as i64), self.c_int("int64_t")));
        }
        let n: usize = m.parse().ok()?;
        (n >= self.opts.args.len()).then(|| TExpr::new(Expr::Int(0), self.c_int("int64_t")))
    }
}

/// The expression `@m[k]` reads in D's terms: an element of the associative array `@m` (the
/// name the parser gives a map that is stored into; `@m` without keys: its one element).
fn map_expr(a: &ast::AggRef) -> ast::Expr {
    let name = ast::Expr { kind: ExprKind::Ident(format!("@{}", a.name)), span: a.span.start..a.span.start + 1 + a.name.len() };
    ast::Expr { kind: ExprKind::Index(Box::new(name), a.keys.clone()), span: a.span.clone() }
}
