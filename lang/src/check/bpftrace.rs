//! What the bpftrace dialect reads differently from D: its maps as values (`@m[k]` read,
//! `delete()`, `clear()` of a map that is not an aggregation), `exit()` without a status,
//! positional parameters that are not given (0 or ""), and `$#`.

use super::*;
use crate::dialect::Dialect;

impl Checker<'_> {
    pub(super) fn bpftrace(&self) -> bool {
        self.opts.dialect == Some(Dialect::Bpftrace)
    }

    /// `@m[k]` or `@m` used as a value: the map's element (0 or "" if it has none) or value,
    /// with its C type.
    pub(super) fn map_typed(&mut self, a: &ast::AggRef) -> Result<super::ctypes::Typed, Diagnostic> {
        self.not_aggregation(a)?;
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

    /// `delete(@m[k])` (bpftrace 0.17) or `delete(@m, k)`: the element goes (a map without
    /// keys is 0 or "" again).
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
        let target = map_target(&agg);
        let strings = match self.array(&format!("@{}", agg.name), false) {
            Some(id) => self.holds_strings(vars::VarRef::Array(id)),
            None => self.globals.iter().position(|g| *g == format!("@{}", agg.name)).is_some_and(|g| self.holds_strings(vars::VarRef::Global(g))),
        };
        let zero = if strings { ExprKind::Str(ast::StrLit { value: String::new(), origin: vec![span.start as u32] }) } else { ExprKind::Int(0, crate::types::IntType { name: "int".into(), size: 4, signed: true, char: false, bool: false }) };
        let value = ast::Expr { kind: zero, span: span.clone() };
        body.extend(self.assign(&target, None, Some(&value), 0, span)?);
        Ok(())
    }

    /// `clear(@m)` of a map that holds values: every element deleted (a map without keys
    /// is 0 or "" again). False if `@m` is an aggregation (D's clear()).
    pub(super) fn clear_map(&mut self, arg: &ast::Expr, span: &Span, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<bool, Diagnostic> {
        let ExprKind::Agg(a) = &arg.kind else { return Ok(false) };
        if !self.bpftrace() || !a.keys.is_empty() || self.aggs.iter().any(|x| x.name == a.name) {
            return Ok(false);
        }
        let name = format!("@{}", a.name);
        if let Some(id) = self.array(&name, false) {
            items.push(Item::ClearArray(id));
            body.push(Stmt::Emit { item: items.len() - 1, args: vec![] });
            return Ok(true);
        }
        if self.globals.contains(&name) {
            self.delete(std::slice::from_ref(arg), span, body)?;
            return Ok(true);
        }
        Ok(false)
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

/// The expression `@m[k]` reads in D's terms: the global variable `@m` or an element of the
/// associative array `@m` (the names the parser gives a map that is stored into).
fn map_expr(a: &ast::AggRef) -> ast::Expr {
    let name = ast::Expr { kind: ExprKind::Ident(format!("@{}", a.name)), span: a.span.start..a.span.start + 1 + a.name.len() };
    if a.keys.is_empty() {
        return name;
    }
    ast::Expr { kind: ExprKind::Index(Box::new(name), a.keys.clone()), span: a.span.clone() }
}

fn map_target(a: &ast::AggRef) -> LValue {
    let name = ast::Ident { name: format!("@{}", a.name), span: a.span.start..a.span.start + 1 + a.name.len() };
    if a.keys.is_empty() {
        LValue::Global(name)
    } else {
        LValue::Element { name, thread: false, keys: a.keys.clone(), span: a.span.clone() }
    }
}
