//! The size bpftrace 0.17 gives a string kept in a scratch variable or a map. There a
//! string's type has a size: `comm` is 16 bytes, a literal its characters and NUL, every
//! other string the string size; a variable or map takes the largest size assigned to it
//! anywhere (`$c = comm` is 16 bytes, `$c = comm; $c = str(x)` 64). ntop() reads a string
//! of 4 or 16 bytes as an address (`$c = comm; ntop($c)`), so crumbs, whose strings all
//! have the string size, finds those sizes here, from the syntax, before checking.

use crate::ast::{self, ExprKind, LValue, Stmt};
use std::collections::HashMap;

/// A size no 4- or 16-byte read is taken from: the string size, or a value that is no
/// string at all.
const OTHER: u32 = u32::MAX;

/// bpftrace 0.17's string sizes of a program's maps (by name, `@` included) and of each
/// clause's scratch variables (by clause, then name, `$` included).
#[derive(Default)]
pub(super) struct StrSizes {
    maps: HashMap<String, u32>,
    scratch: Vec<HashMap<String, u32>>,
}

/// Where a value is stored.
enum Into<'a> {
    Map(&'a str),
    Scratch(&'a str),
}

impl StrSizes {
    /// The sizes in `program`: every assignment of a string, taken until none grows.
    pub(super) fn of(program: &ast::Program) -> StrSizes {
        let stores: Vec<Vec<(Into, Option<&ast::Expr>)>> = program.clauses.iter().map(stores_of).collect();
        let mut sizes = StrSizes { maps: HashMap::new(), scratch: vec![HashMap::new(); program.clauses.len()] };
        // Each round a size only grows, to one of finitely many: this ends.
        loop {
            let mut grew = false;
            for (clause, stores) in stores.iter().enumerate() {
                for (into, value) in stores {
                    let n = value.map_or(OTHER, |v| sizes.expr(clause, v));
                    let (table, name) = match into {
                        Into::Map(m) => (&mut sizes.maps, *m),
                        Into::Scratch(s) => (&mut sizes.scratch[clause], *s),
                    };
                    let was = table.entry(name.to_string()).or_insert(0);
                    if n > *was {
                        *was = n;
                        grew = true;
                    }
                }
            }
            if !grew {
                return sizes;
            }
        }
    }

    /// The 0.17 size of a string kept in the variable or map `e` reads, in `clause`; None if
    /// `e` reads neither, or what it reads is assigned nowhere.
    pub(super) fn kept(&self, clause: usize, e: &ast::Expr) -> Option<u32> {
        Some(self.stored(clause, e)).filter(|n| *n != 0 && *n != OTHER)
    }

    /// The size so far of what the variable or map `e` reads holds: 0 where nothing is
    /// assigned to it (yet), OTHER if `e` reads neither.
    fn stored(&self, clause: usize, e: &ast::Expr) -> u32 {
        match &e.kind {
            ExprKind::ClauseLocal(name) => self.scratch.get(clause).and_then(|s| s.get(name)).copied().unwrap_or(0),
            ExprKind::Agg(a) => self.maps.get(&format!("@{}", a.name)).copied().unwrap_or(0),
            _ => OTHER,
        }
    }

    /// The 0.17 size of the string `e` is (OTHER if it is another string, or none).
    fn expr(&self, clause: usize, e: &ast::Expr) -> u32 {
        match &e.kind {
            ExprKind::Str(s) => s.value.len() as u32 + 1,
            // `comm()` reads as `comm`.
            ExprKind::Ident(n) if n == "comm" => crate::ir::COMM_SIZE,
            ExprKind::ClauseLocal(_) | ExprKind::Agg(_) => self.stored(clause, e),
            _ => OTHER,
        }
    }
}

/// Every plain assignment (`=`) into a map or scratch variable in a clause, with its value
/// (None for one whose value is no string: `+=`, `++`, a declaration).
fn stores_of(c: &ast::Clause) -> Vec<(Into<'_>, Option<&ast::Expr>)> {
    let mut out = Vec::new();
    if let Some(p) = &c.predicate {
        expr_stores(p, &mut out);
    }
    for s in c.body.iter().flatten() {
        stmt_stores(s, &mut out);
    }
    out
}

fn into(t: &LValue) -> Option<Into<'_>> {
    match t {
        LValue::ClauseLocal(i, _) if i.name.starts_with('$') => Some(Into::Scratch(&i.name)),
        LValue::Element { name, thread: false, .. } if name.name.starts_with('@') => Some(Into::Map(&name.name)),
        _ => None,
    }
}

fn stmt_stores<'a>(s: &'a Stmt, out: &mut Vec<(Into<'a>, Option<&'a ast::Expr>)>) {
    match s {
        Stmt::Expr(e) => expr_stores(e, out),
        Stmt::Assign { target, op, value, .. } => {
            target.keys().iter().for_each(|k| expr_stores(k, out));
            expr_stores(value, out);
            if let Some(i) = into(target) {
                out.push((i, op.is_none().then_some(value)));
            }
        }
        Stmt::IncDec { target, .. } => {
            target.keys().iter().for_each(|k| expr_stores(k, out));
            if let Some(i) = into(target) {
                out.push((i, None));
            }
        }
        Stmt::Aggregate { agg, args, .. } => agg.keys.iter().chain(args).for_each(|e| expr_stores(e, out)),
        Stmt::If { cond, then, els, .. } => {
            expr_stores(cond, out);
            then.iter().chain(els.iter().flatten()).for_each(|s| stmt_stores(s, out));
        }
        Stmt::Block(b) => b.iter().for_each(|s| stmt_stores(s, out)),
        Stmt::While { cond, body, .. } => {
            expr_stores(cond, out);
            body.iter().for_each(|s| stmt_stores(s, out));
        }
        Stmt::For { iter, body, .. } => {
            match iter {
                ast::ForIter::Range(a, b) => [a, b].into_iter().for_each(|e| expr_stores(e, out)),
                ast::ForIter::Map(m) => m.keys.iter().for_each(|e| expr_stores(e, out)),
            }
            body.iter().for_each(|s| stmt_stores(s, out));
        }
        Stmt::Jump(..) => {}
        // A declared variable has its declared type: bpftrace 0.17 has no declarations.
        Stmt::Declare { var, value, .. } => {
            value.iter().for_each(|e| expr_stores(e, out));
            out.push((Into::Scratch(&var.name), None));
        }
    }
}

fn expr_stores<'a>(e: &'a ast::Expr, out: &mut Vec<(Into<'a>, Option<&'a ast::Expr>)>) {
    match &e.kind {
        ExprKind::Assign { target, op, value } => {
            if let Some(i) = into(target) {
                out.push((i, op.is_none().then_some(&**value)));
            }
        }
        ExprKind::IncDec { target, .. } => {
            if let Some(i) = into(target) {
                out.push((i, None));
            }
        }
        // A block's statements are moved out by the macro pass; a record's are none.
        ExprKind::Block(stmts, _) => stmts.iter().for_each(|s| stmt_stores(s, out)),
        _ => {}
    }
    for c in e.children() {
        expr_stores(c, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(src: &str) -> (StrSizes, ast::Program) {
        let p = crate::parse::parse_program_in(src, None, crate::dialect::Dialect::Bpftrace).expect("parses");
        (StrSizes::of(&p), p)
    }

    fn var(s: &StrSizes, clause: usize, name: &str) -> Option<u32> {
        let kind = match name.strip_prefix('@') {
            Some(m) => ExprKind::Agg(ast::AggRef { name: m.into(), keys: vec![], span: 0..0 }),
            None => ExprKind::ClauseLocal(name.into()),
        };
        s.kept(clause, &ast::Expr { kind, span: 0..0 })
    }

    #[test]
    fn largest_string_assigned_anywhere() {
        let (s, _) = sizes("BEGIN { $c = comm; $l = \"abc\"; $g = \"ab\"; $g = comm; $s = comm; $s = str(0); @m[1] = comm; } END { @n = @m[2]; $d = $x; $x = comm(); }");
        assert_eq!(var(&s, 0, "$c"), Some(16));
        assert_eq!(var(&s, 0, "$l"), Some(4));
        assert_eq!(var(&s, 0, "$g"), Some(16));
        assert_eq!(var(&s, 0, "$s"), None, "str() is the string size");
        assert_eq!(var(&s, 0, "@m"), Some(16));
        assert_eq!(var(&s, 1, "@n"), Some(16));
        assert_eq!(var(&s, 1, "$d"), Some(16), "from a variable assigned after it");
        assert_eq!(var(&s, 1, "$c"), None, "scratch variables are the clause's");
    }

    #[test]
    fn no_size_for_numbers_or_compound_stores() {
        let (s, _) = sizes("BEGIN { $i = 1; $j = comm; $j += 1; @k = comm; @k++; }");
        assert_eq!(var(&s, 0, "$i"), None);
        assert_eq!(var(&s, 0, "$j"), None);
        assert_eq!(var(&s, 0, "@k"), None);
    }
}
