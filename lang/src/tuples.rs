//! bpftrace's tuples and `for` over a range, lowered in the AST before checking. A tuple is
//! immutable and its elements are read by constant index, so a scratch variable that holds
//! one is a scratch variable per element (`$t.0`, `$t.1`, `$t.2.0`, ...), a tuple among a
//! map's keys is its elements as keys (bpftrace's multiple keys are a tuple), and two tuples
//! compare element by element. `for ($i : a..b)` becomes a `while` over a hidden counter.
//! A map whose values are tuples is a map per element with the same keys (`@m.0`, `@m.1`,
//! `@m.1.0`, ...: [`element_name`] of the map's name), written, read and deleted together;
//! user space prints them as one map of tuples ([`split_element_name`]).
//! What reaches the checker of tuples: `print()` of one (a tuple of its elements), and a
//! `for` over a map, whose variable is the tuple (key, value) with its elements named as
//! here.

use crate::ast::*;
use crate::diag::Diagnostic;
use std::collections::HashMap;

/// What a value is: one value, a tuple of values, or a record (its fields by name, in
/// name order: records given the same fields in another order are of one type).
#[derive(Clone, Debug, PartialEq)]
enum Shape {
    Scalar,
    Tuple(Vec<Shape>),
    Record(Vec<(String, Shape)>),
}

impl Shape {
    /// The paths of its scalar elements: "" for a scalar, ".0", ".1.0", ... for a tuple,
    /// ".name" for a record's field.
    fn leaves(&self) -> Vec<String> {
        match self {
            Shape::Scalar => vec![String::new()],
            Shape::Tuple(elems) => elems.iter().enumerate().flat_map(|(i, s)| s.leaves().into_iter().map(move |p| format!(".{i}{p}"))).collect(),
            Shape::Record(fields) => fields.iter().flat_map(|(n, s)| s.leaves().into_iter().map(move |p| format!(".{n}{p}"))).collect(),
        }
    }

    /// Whether an empty tuple is in it (it has no element to store, so a map of values
    /// could not give it back).
    fn has_empty(&self) -> bool {
        match self {
            Shape::Scalar => false,
            Shape::Tuple(elems) => elems.is_empty() || elems.iter().any(Shape::has_empty),
            Shape::Record(fields) => fields.iter().any(|(_, s)| s.has_empty()),
        }
    }

    /// The shape of element `name` (an index, or a record's field's name).
    fn element(&self, name: &str) -> Option<&Shape> {
        match self {
            Shape::Scalar => None,
            Shape::Tuple(elems) => name.parse::<usize>().ok().and_then(|i| elems.get(i)),
            Shape::Record(fields) => fields.iter().find(|(n, _)| n == name).map(|(_, s)| s),
        }
    }
}

/// The name of the scratch variable holding the element `path` (".0", ".1.0") of tuple
/// variable `var`.
pub fn element_name(var: &str, path: &str) -> String {
    format!("{var}{path}")
}

/// One step of an element's path: a tuple's element by index, or a record's field by name
/// (a field's name is an identifier, never all digits). Indices sort by number, fields by
/// name, as their values are kept.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    Index(usize),
    Field(String),
}

/// A map's (or variable's) name and the path of its element, if it is one (`@m.1.0` is
/// `@m` and `[1, 0]`, `@r.size` is `@r` and `[size]`); `None` for a name of the program's
/// own.
pub fn split_element_name(name: &str) -> Option<(&str, Vec<Step>)> {
    let (base, path) = name.split_once('.')?;
    let step = |s: &str| match s.parse() {
        Ok(i) => Some(Step::Index(i)),
        Err(_) if s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') => Some(Step::Field(s.to_string())),
        Err(_) => None,
    };
    let path = path.split('.').map(step).collect::<Option<Vec<Step>>>()?;
    Some((base, path))
}

/// Lowers the tuples and range loops of a bpftrace program.
pub fn lower(program: &mut Program) -> Result<(), Diagnostic> {
    for clause in &mut program.clauses {
        let mut seen = HashMap::new();
        clause.body.iter_mut().flatten().for_each(|s| scope_loop_variables(s, &mut seen));
    }
    let mut arity = HashMap::new();
    let mut maps = HashMap::new();
    // Until nothing changes (at least twice): map keys may be tuples held in variables, a
    // `for` variable's shape needs the number of its map's keys, and a map's values may be
    // tuples read from variables or other maps.
    for round in 0..8 {
        let mut found = HashMap::new();
        let mut found_maps = HashMap::new();
        for clause in &program.clauses {
            let shapes = Shapes::infer(clause, &arity, &maps)?;
            clause_map_keys(clause, &shapes, &mut found);
            clause_map_shapes(clause, &shapes, &mut found_maps, false)?;
        }
        let settled = round > 0 && found == arity && found_maps.len() == maps.len() && found_maps.iter().all(|(k, (s, _))| maps.get(k) == Some(s));
        arity = found;
        maps = found_maps.into_iter().map(|(k, (s, _))| (k, s)).collect();
        if settled {
            break;
        }
    }
    // Now that every value's shape is known, a map given a tuple and a number is an error.
    let mut found_maps = HashMap::new();
    for clause in &program.clauses {
        clause_map_shapes(clause, &Shapes::infer(clause, &arity, &maps)?, &mut found_maps, true)?;
    }
    let mut key_paths = HashMap::new();
    for clause in &mut program.clauses {
        let shapes = Shapes::infer(clause, &arity, &maps)?;
        let mut l = Lowering { shapes, key_paths: std::mem::take(&mut key_paths) };
        if let Some(p) = clause.predicate.take() {
            clause.predicate = Some(l.scalar(p)?);
        }
        if let Some(body) = clause.body.take() {
            clause.body = Some(l.stmts(body)?);
        }
        key_paths = l.key_paths;
    }
    program.key_paths = key_paths.into_iter().filter(|(_, (p, _))| p.iter().any(|p| p.matches('.').count() > 1 || !p[1..].chars().all(|c| c.is_ascii_digit()))).map(|(k, (p, _))| (k, p)).collect();
    Ok(())
}

/// The shapes of a clause's scratch variables, from what is assigned to them, and of the
/// program's maps' values (by name without `@`).
#[derive(Default)]
struct Shapes {
    vars: HashMap<String, Shape>,
    maps: HashMap<String, Shape>,
}

impl Shapes {
    fn infer(clause: &Clause, arity: &HashMap<String, Shape>, maps: &HashMap<String, Shape>) -> Result<Shapes, Diagnostic> {
        let mut s = Shapes { maps: maps.clone(), ..Shapes::default() };
        // Until nothing changes: `$b = $a` may come before `$a = (1, 2)` in the text (in
        // another branch), and each round settles at least one more variable.
        for _ in 0..64 {
            let mut changed = false;
            for st in clause.body.iter().flatten() {
                s.visit(st, arity, &mut changed)?;
            }
            // `find(@m, k, $v)` of a map of tuples stores a tuple in `$v`.
            let mut found = Vec::new();
            for e in clause.predicate.iter() {
                find_targets(e, &mut found);
            }
            clause.body.iter().flatten().for_each(|st| each_expr(st, &mut |e| find_targets(e, &mut found)));
            for (map, var) in found {
                let shape = s.map(&map);
                if shape != Shape::Scalar && !s.vars.contains_key(&var) {
                    s.vars.insert(var, shape);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Ok(s)
    }

    fn visit(&mut self, st: &Stmt, arity: &HashMap<String, Shape>, changed: &mut bool) -> Result<(), Diagnostic> {
        match st {
            Stmt::Assign { target: LValue::ClauseLocal(id, _), op: None, value, .. } => {
                let shape = self.of(value);
                if shape != Shape::Scalar {
                    match self.vars.get(&id.name) {
                        Some(old) if *old == shape => {}
                        Some(_) => {
                            return Err(Diagnostic::new(value.span.clone(), format!("`{}` is given tuples of two shapes", id.name))
                                .label("not the shape it had")
                                .hint("a scratch variable keeps one type: use another variable for this tuple"))
                        }
                        None => {
                            self.vars.insert(id.name.clone(), shape);
                            *changed = true;
                        }
                    }
                }
            }
            Stmt::If { then, els, .. } => {
                for s in then.iter().chain(els.iter().flatten()) {
                    self.visit(s, arity, changed)?;
                }
            }
            Stmt::Block(b) | Stmt::While { body: b, .. } => b.iter().try_for_each(|s| self.visit(s, arity, changed))?,
            Stmt::For { var, iter, body, .. } => {
                if let ForIter::Map(m) = iter {
                    let keys = arity.get(&m.name).cloned().unwrap_or(Shape::Scalar);
                    let value = self.maps.get(&m.name).cloned().unwrap_or(Shape::Scalar);
                    if self.vars.insert(var.name.clone(), Shape::Tuple(vec![keys, value])).is_none() {
                        *changed = true;
                    }
                }
                body.iter().try_for_each(|s| self.visit(s, arity, changed))?;
            }
            _ => {}
        }
        Ok(())
    }

    /// A variable's shape, or its element's (`$t.1.0`).
    fn var(&self, name: &str) -> Shape {
        if let Some(s) = self.vars.get(name) {
            return s.clone();
        }
        match name.rsplit_once('.') {
            Some((base, i)) => self.var(base).element(i).cloned().unwrap_or(Shape::Scalar),
            _ => Shape::Scalar,
        }
    }

    /// The shape of map `name`'s values (without `@`), or its element's (`m.1`).
    fn map(&self, name: &str) -> Shape {
        if let Some(s) = self.maps.get(name) {
            return s.clone();
        }
        let Some((base, rest)) = name.split_once('.') else { return Shape::Scalar };
        let mut shape = self.maps.get(base).cloned().unwrap_or(Shape::Scalar);
        for step in rest.split('.') {
            shape = match shape.element(step) {
                Some(s) => s.clone(),
                None => return Shape::Scalar,
            };
        }
        shape
    }

    fn of(&self, e: &Expr) -> Shape {
        match &e.kind {
            ExprKind::Tuple(elems) => Shape::Tuple(elems.iter().map(|x| self.of(x)).collect()),
            ExprKind::Record(fields) => {
                let mut shapes: Vec<(String, Shape)> = fields.iter().map(|(n, x)| (n.name.clone(), self.of(x))).collect();
                shapes.sort_by(|a, b| a.0.cmp(&b.0));
                Shape::Record(shapes)
            }
            ExprKind::ClauseLocal(n) => self.var(n),
            ExprKind::Agg(a) => self.map(&a.name),
            ExprKind::Member { base, member, arrow: false } => self.of(base).element(&member.name).cloned().unwrap_or(Shape::Scalar),
            ExprKind::Index(base, keys) if keys.len() == 1 => match (self.of(base), constant(&keys[0])) {
                (Shape::Tuple(elems), Some(i)) => usize::try_from(i).ok().and_then(|i| elems.get(i).cloned()).unwrap_or(Shape::Scalar),
                _ => Shape::Scalar,
            },
            _ => Shape::Scalar,
        }
    }
}

/// Calls `f` on each expression of a statement, its nested statements' included (not on
/// the expressions inside those expressions: see [`find_targets`]).
fn each_expr<'a>(s: &'a Stmt, f: &mut dyn FnMut(&'a Expr)) {
    match s {
        Stmt::Expr(e) => f(e),
        Stmt::Assign { target, value, .. } => {
            if let LValue::Element { keys, .. } = target {
                keys.iter().for_each(&mut *f);
            }
            f(value);
        }
        Stmt::Declare { value, .. } => value.iter().for_each(f),
        Stmt::IncDec { .. } | Stmt::Jump(..) => {}
        Stmt::Aggregate { agg, args, .. } => agg.keys.iter().chain(args).for_each(f),
        Stmt::If { cond, then, els, .. } => {
            f(cond);
            then.iter().chain(els.iter().flatten()).for_each(|s| each_expr(s, f));
        }
        Stmt::Block(b) => b.iter().for_each(|s| each_expr(s, f)),
        Stmt::While { cond, body, .. } => {
            f(cond);
            body.iter().for_each(|s| each_expr(s, f));
        }
        Stmt::For { iter, body, .. } => {
            if let ForIter::Range(a, b) = iter {
                f(a);
                f(b);
            }
            body.iter().for_each(|s| each_expr(s, f));
        }
    }
}

/// The (map, scratch variable) of each `find(@m, key, $v)` in `e`.
fn find_targets(e: &Expr, out: &mut Vec<(String, String)>) {
    if let ExprKind::Call(f, args) = &e.kind {
        if let (true, [Expr { kind: ExprKind::Agg(m), .. }, _, Expr { kind: ExprKind::ClauseLocal(v), .. }]) = (f.name == "find", &args[..]) {
            if m.keys.is_empty() {
                out.push((m.name.clone(), v.clone()));
            }
        }
    }
    e.children().into_iter().for_each(|c| find_targets(c, out));
}

/// The shape of the keys each map is written with in a clause, as a `for` over it gives
/// them in `$kv.0`: one scalar, or a tuple of the keys (tuples among them nested; a map's
/// keys given as one tuple, `@m[$t]`, are that tuple's elements).
fn clause_map_keys(clause: &Clause, shapes: &Shapes, found: &mut HashMap<String, Shape>) {
    let count = |keys: &[Expr]| match keys {
        [k] => shapes.of(k),
        keys => Shape::Tuple(keys.iter().map(|k| shapes.of(k)).collect()),
    };
    let mut exprs: Vec<&Expr> = clause.predicate.iter().collect();
    fn stmt_exprs<'a>(s: &'a Stmt, out: &mut Vec<&'a Expr>, lv: &mut Vec<&'a LValue>, aggs: &mut Vec<&'a AggRef>) {
        match s {
            Stmt::Expr(e) => out.push(e),
            Stmt::Assign { target, value, .. } => {
                lv.push(target);
                out.push(value);
            }
            Stmt::IncDec { target, .. } => lv.push(target),
            Stmt::Aggregate { agg, args, .. } => {
                aggs.push(agg);
                out.extend(args);
            }
            Stmt::If { cond, then, els, .. } => {
                out.push(cond);
                then.iter().chain(els.iter().flatten()).for_each(|s| stmt_exprs(s, out, lv, aggs));
            }
            Stmt::Block(b) => b.iter().for_each(|s| stmt_exprs(s, out, lv, aggs)),
            Stmt::While { cond, body, .. } => {
                out.push(cond);
                body.iter().for_each(|s| stmt_exprs(s, out, lv, aggs));
            }
            Stmt::For { iter, body, .. } => {
                if let ForIter::Range(a, b) = iter {
                    out.extend([a, b]);
                }
                body.iter().for_each(|s| stmt_exprs(s, out, lv, aggs));
            }
            Stmt::Jump(..) => {}
            Stmt::Declare { value, .. } => out.extend(value),
        }
    }
    let (mut lvalues, mut aggs) = (Vec::new(), Vec::new());
    for s in clause.body.iter().flatten() {
        stmt_exprs(s, &mut exprs, &mut lvalues, &mut aggs);
    }
    let mut note = |name: &str, n: Shape| {
        found.entry(name.to_string()).or_insert(n);
    };
    for a in aggs {
        note(&a.name, count(&a.keys));
    }
    for lv in lvalues {
        if let LValue::Element { name, keys, .. } = lv {
            if let Some(m) = name.name.strip_prefix('@') {
                note(m, count(keys));
            }
        }
    }
    fn walk<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a AggRef)) {
        if let ExprKind::Agg(a) = &e.kind {
            f(a);
        }
        e.children().into_iter().for_each(|c| walk(c, f));
    }
    for e in exprs {
        walk(e, &mut |a| {
            if !a.keys.is_empty() {
                note(&a.name, count(&a.keys));
            }
        });
    }
}

/// The shapes of the values the clause stores into maps (by name without `@`), with where
/// each was first seen: a map holds values of one shape. While shapes are still being found
/// (not `strict`), a value read from a map may not have its shape yet: the fullest shape
/// seen wins, and the strict pass at the end finds the maps given two.
fn clause_map_shapes(clause: &Clause, shapes: &Shapes, found: &mut HashMap<String, (Shape, Span)>, strict: bool) -> Result<(), Diagnostic> {
    fn visit(s: &Stmt, shapes: &Shapes, found: &mut HashMap<String, (Shape, Span)>, strict: bool) -> Result<(), Diagnostic> {
        match s {
            Stmt::Assign { target: LValue::Element { name, thread: false, .. }, op: None, value, .. } if name.name.starts_with('@') => {
                let shape = shapes.of(value);
                if shape.has_empty() {
                    return Err(empty_in_map(&value.span, "value"));
                }
                let map = &name.name[1..];
                match found.get(map) {
                    Some((old, _)) if *old == shape => {}
                    // Elements read from maps may be tuples not known yet: the shape with
                    // the most elements is the nearest to the last.
                    Some((old, _)) if !strict => {
                        if shape.leaves().len() > old.leaves().len() {
                            found.insert(map.to_string(), (shape, value.span.clone()));
                        }
                    }
                    Some((old, first)) if *old != Shape::Scalar || shape != Shape::Scalar => {
                        return Err(Diagnostic::new(value.span.clone(), format!("`{}` is given values of two shapes", name.name))
                            .label(if shape == Shape::Scalar { "not a tuple" } else { "not the shape it had" })
                            .related(first.clone(), "the first")
                            .hint("a map keeps one type of value: use another map for these"));
                    }
                    Some(_) => {}
                    None => {
                        found.insert(map.to_string(), (shape, value.span.clone()));
                    }
                }
            }
            Stmt::If { then, els, .. } => then.iter().chain(els.iter().flatten()).try_for_each(|s| visit(s, shapes, found, strict))?,
            Stmt::Block(b) | Stmt::While { body: b, .. } | Stmt::For { body: b, .. } => b.iter().try_for_each(|s| visit(s, shapes, found, strict))?,
            _ => {}
        }
        Ok(())
    }
    clause.body.iter().flatten().try_for_each(|s| visit(s, shapes, found, strict))
}

/// A `for` loop's variable lives in its loop: a second loop over a map with a variable of
/// the same name gets a name of its own (`$kv#2`), as its elements may have other types.
fn scope_loop_variables(s: &mut Stmt, seen: &mut HashMap<String, usize>) {
    match s {
        Stmt::For { var, iter: ForIter::Map(_), body, .. } => {
            let n = seen.entry(var.name.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                let to = format!("{}#{n}", var.name);
                body.iter_mut().for_each(|s| rename_stmt(s, &var.name, &to));
                var.name = to;
            }
            body.iter_mut().for_each(|s| scope_loop_variables(s, seen));
        }
        Stmt::If { then, els, .. } => then.iter_mut().chain(els.iter_mut().flatten()).for_each(|s| scope_loop_variables(s, seen)),
        Stmt::Block(b) | Stmt::While { body: b, .. } | Stmt::For { body: b, .. } => b.iter_mut().for_each(|s| scope_loop_variables(s, seen)),
        _ => {}
    }
}

/// Scratch variable `from` (and its elements) renamed `to` in a statement.
fn rename_stmt(s: &mut Stmt, from: &str, to: &str) {
    let e = |x: &mut Expr| rename_expr(x, from, to);
    match s {
        Stmt::Expr(x) => e(x),
        Stmt::Assign { target, value, .. } => {
            rename_lvalue(target, from, to);
            e(value);
        }
        Stmt::IncDec { target, .. } => rename_lvalue(target, from, to),
        Stmt::Aggregate { agg, args, .. } => agg.keys.iter_mut().chain(args.iter_mut()).for_each(e),
        Stmt::If { cond, then, els, .. } => {
            e(cond);
            then.iter_mut().chain(els.iter_mut().flatten()).for_each(|s| rename_stmt(s, from, to));
        }
        Stmt::Block(b) => b.iter_mut().for_each(|s| rename_stmt(s, from, to)),
        Stmt::While { cond, body, .. } => {
            e(cond);
            body.iter_mut().for_each(|s| rename_stmt(s, from, to));
        }
        Stmt::For { var, iter, body, .. } => {
            match iter {
                ForIter::Range(a, b) => [a, b].into_iter().for_each(e),
                ForIter::Map(m) => m.keys.iter_mut().for_each(e),
            }
            // An inner loop's own variable of the same name hides this one.
            if var.name != from {
                body.iter_mut().for_each(|s| rename_stmt(s, from, to));
            }
        }
        Stmt::Jump(..) => {}
        Stmt::Declare { var, value, .. } => {
            if let Some(n) = renamed(&var.name, from, to) {
                var.name = n;
            }
            value.iter_mut().for_each(e);
        }
    }
}

fn renamed(name: &str, from: &str, to: &str) -> Option<String> {
    let rest = name.strip_prefix(from)?;
    (rest.is_empty() || rest.starts_with('.')).then(|| format!("{to}{rest}"))
}

fn rename_lvalue(lv: &mut LValue, from: &str, to: &str) {
    match lv {
        LValue::ClauseLocal(id, _) => {
            if let Some(n) = renamed(&id.name, from, to) {
                id.name = n;
            }
        }
        LValue::Element { keys, .. } => keys.iter_mut().for_each(|k| rename_expr(k, from, to)),
        LValue::Member(e) => rename_expr(e, from, to),
        LValue::Global(_) | LValue::ThreadLocal(..) => {}
    }
}

fn rename_expr(e: &mut Expr, from: &str, to: &str) {
    let r = |x: &mut Expr| rename_expr(x, from, to);
    match &mut e.kind {
        ExprKind::ClauseLocal(n) => {
            if let Some(m) = renamed(n, from, to) {
                *n = m;
            }
        }
        ExprKind::Agg(a) => a.keys.iter_mut().for_each(r),
        ExprKind::Call(_, xs) | ExprKind::Tuple(xs) => xs.iter_mut().for_each(r),
        ExprKind::Record(fields) => fields.iter_mut().for_each(|(_, x)| r(x)),
        ExprKind::Block(stmts, value) => {
            stmts.iter_mut().for_each(|s| rename_stmt(s, from, to));
            r(value);
        }
        ExprKind::Comptime(a) => r(a),
        ExprKind::TypeArg(_) => {}
        ExprKind::Unary(_, a) | ExprKind::Cast(_, a) | ExprKind::Deref(a) | ExprKind::AddrOf(a) | ExprKind::SizeofExpr(a) | ExprKind::Xlate(_, a) | ExprKind::Member { base: a, .. } => r(a),
        ExprKind::Binary(_, a, b) => {
            r(a);
            r(b);
        }
        ExprKind::Ternary(a, b, c) => [a, b, c].into_iter().for_each(|x| r(x)),
        ExprKind::Index(a, keys) => {
            r(a);
            keys.iter_mut().for_each(r);
        }
        ExprKind::Assign { target, value, .. } => {
            rename_lvalue(target, from, to);
            r(value);
        }
        ExprKind::IncDec { target, .. } => rename_lvalue(target, from, to),
        ExprKind::Int(..) | ExprKind::Str(_) | ExprKind::Ident(_) | ExprKind::Macro(_) | ExprKind::ThreadLocal(_) | ExprKind::ArgsField(_) | ExprKind::SizeofType(_) | ExprKind::Offsetof(..) => {}
    }
}

/// An integer constant expression (a tuple's index): literals and + - *.
fn constant(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v, _) => Some(*v),
        ExprKind::Unary(UnOp::Neg, a) => constant(a)?.checked_neg(),
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (constant(a)?, constant(b)?);
            match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                _ => None,
            }
        }
        _ => None,
    }
}

struct Lowering {
    shapes: Shapes,
    /// Each map whose keys nest a tuple or a record (by name without `@`): the paths of its
    /// scalar keys (`.0`, `.1.0`, `.1.1` for `@m[1, (2, 3)]`), where it is first stored.
    key_paths: HashMap<String, (Vec<String>, Span)>,
}

fn not_here(span: &Span) -> Diagnostic {
    Diagnostic::new(span.clone(), "a tuple cannot be used here")
        .label("a tuple")
        .hint("read one of its elements ($t.0, $t[1]); a whole tuple can be stored in a scratch variable, used as a map's keys, compared with == or !=, or printed with print()")
}

impl Lowering {
    fn stmts(&mut self, body: Vec<Stmt>) -> Result<Vec<Stmt>, Diagnostic> {
        body.into_iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&mut self, s: Stmt) -> Result<Stmt, Diagnostic> {
        Ok(match s {
            Stmt::Assign { target: LValue::ClauseLocal(id, sp), op, value, span } if self.shapes.var(&id.name) != Shape::Scalar => {
                let shape = self.shapes.var(&id.name);
                if op.is_some() {
                    return Err(Diagnostic::new(span, format!("`{}` holds a tuple, which cannot be computed with", id.name))
                        .label("a tuple")
                        .hint("assign a whole tuple, `$t = (a, b)`, or compute with its elements"));
                }
                let parts = self.components(value, &shape)?;
                // `$t = ($t.1, $t.0)` reads every element before any is written.
                let reads_itself = parts.iter().any(|(_, e)| mentions(e, &id.name));
                let store = |name: String, e: Expr| Stmt::Assign { target: LValue::ClauseLocal(Ident { name, span: id.span.clone() }, sp.clone()), op: None, value: e, span: span.clone() };
                let var = |name: String, sp: &Span| Expr { kind: ExprKind::ClauseLocal(name), span: sp.clone() };
                if reads_itself {
                    let mut out = Vec::new();
                    for (path, e) in &parts {
                        out.push(store(format!("{}#{path}", id.name), e.clone()));
                    }
                    for (path, e) in parts {
                        out.push(store(element_name(&id.name, &path), var(format!("{}#{path}", id.name), &e.span)));
                    }
                    Stmt::Block(out)
                } else {
                    Stmt::Block(parts.into_iter().map(|(path, e)| store(element_name(&id.name, &path), e)).collect())
                }
            }
            Stmt::Assign { target: LValue::Element { name, thread: false, keys, span: tsp }, op, value, span } if self.map_shape(&name.name) != Shape::Scalar => {
                let shape = self.map_shape(&name.name);
                if op.is_some() {
                    return Err(tuple_map_computed(&name.name, &shape, span));
                }
                let keys = self.keys(keys)?;
                let parts = self.components(value, &shape)?;
                // `@m[k] = (@m[k].1, @m[k].0)` reads every element before any is written.
                let map = &name.name[1..];
                let reads_itself = parts.iter().any(|(_, e)| reads_map(e, map));
                let store = |path: &str, e: Expr| Stmt::Assign { target: LValue::Element { name: Ident { name: element_name(&name.name, path), span: name.span.clone() }, thread: false, keys: keys.clone(), span: tsp.clone() }, op: None, value: e, span: span.clone() };
                let temp = |path: &str| Ident { name: format!("$#{map}{path}"), span: name.span.clone() };
                let mut out = Vec::new();
                if reads_itself {
                    for (path, e) in &parts {
                        let t = temp(path);
                        out.push(Stmt::Assign { target: LValue::ClauseLocal(t.clone(), t.span.clone()), op: None, value: e.clone(), span: span.clone() });
                    }
                    out.extend(parts.iter().map(|(path, e)| store(path, Expr { kind: ExprKind::ClauseLocal(temp(path).name), span: e.span.clone() })));
                } else {
                    out.extend(parts.into_iter().map(|(path, e)| store(&path, e)));
                }
                Stmt::Block(out)
            }
            Stmt::IncDec { target: LValue::Element { name, .. }, span, .. } if self.map_shape(&name.name) != Shape::Scalar => return Err(tuple_map_computed(&name.name, &self.map_shape(&name.name), span)),
            Stmt::Assign { target, op, value, span } => Stmt::Assign { target: self.lvalue(target)?, op, value: self.scalar(value)?, span },
            Stmt::IncDec { target, delta, span } => Stmt::IncDec { target: self.lvalue(target)?, delta, span },
            Stmt::Expr(Expr { kind: ExprKind::Call(f, args), span }) if matches!(f.name.as_str(), "delete" | "clear" | "zero") && args.first().is_some_and(|a| self.tuple_map(a).is_some()) => {
                // Each element's map loses the element (or everything).
                let (map, shape) = self.tuple_map(&args[0]).expect("checked");
                let mut out = Vec::new();
                for path in shape.leaves() {
                    let mut args = args.clone();
                    if let ExprKind::Agg(a) = &mut args[0].kind {
                        a.name = element_name(&map, &path);
                    }
                    out.push(Stmt::Expr(self.scalar(Expr { kind: ExprKind::Call(f.clone(), args), span: span.clone() })?));
                }
                Stmt::Block(out)
            }
            Stmt::Expr(e) => Stmt::Expr(self.scalar(e)?),
            Stmt::Aggregate { agg, func, args, span } => {
                let args = args.into_iter().map(|a| self.scalar(a)).collect::<Result<_, _>>()?;
                Stmt::Aggregate { agg: self.agg(agg)?, func, args, span }
            }
            Stmt::If { cond, then, els, span } => Stmt::If { cond: self.scalar(cond)?, then: self.stmts(then)?, els: els.map(|b| self.stmts(b)).transpose()?, span },
            Stmt::Block(b) => Stmt::Block(self.stmts(b)?),
            Stmt::While { cond, body, span } => Stmt::While { cond: self.scalar(cond)?, body: self.stmts(body)?, span },
            Stmt::For { var, iter: ForIter::Range(start, end), body, span } => self.range_loop(var, start, end, body, span)?,
            Stmt::For { var, iter: ForIter::Map(m), body, span } => {
                if !m.keys.is_empty() {
                    return Err(Diagnostic::new(m.span.clone(), format!("`for` runs over a whole map, not an element of @{}", m.name))
                        .label("keys given")
                        .hint(format!("write for ($kv : @{}) {{ ... }}: $kv.0 is each key, $kv.1 its value", m.name)));
                }
                let value = self.shapes.maps.get(&m.name).cloned().unwrap_or(Shape::Scalar);
                if value == Shape::Scalar {
                    return Ok(Stmt::For { var, iter: ForIter::Map(m), body: self.stmts(body)?, span });
                }
                // The loop walks the first element's map; the body starts by reading the
                // others' with the element's keys.
                let Shape::Tuple(parts) = self.shapes.var(&var.name) else { unreachable!("a loop over a map of tuples has a tuple variable") };
                let local = |name: String| Expr { kind: ExprKind::ClauseLocal(name), span: var.span.clone() };
                let keys: Vec<Expr> = parts[0].leaves().iter().map(|p| local(element_name(&var.name, &format!(".0{p}")))).collect();
                let leaves = value.leaves();
                let mut turn = Vec::new();
                for (i, path) in leaves.iter().enumerate() {
                    let read = if i == 0 { local(element_name(&var.name, ".1")) } else { Expr { kind: ExprKind::Agg(AggRef { name: element_name(&m.name, path), keys: keys.clone(), span: m.span.clone() }), span: m.span.clone() } };
                    let id = Ident { name: element_name(&var.name, &format!(".1{path}")), span: var.span.clone() };
                    turn.push(Stmt::Assign { target: LValue::ClauseLocal(id.clone(), id.span.clone()), op: None, value: read, span: span.clone() });
                }
                turn.extend(self.stmts(body)?);
                let first = AggRef { name: element_name(&m.name, &leaves[0]), ..m };
                Stmt::For { var, iter: ForIter::Map(first), body: turn, span }
            }
            j @ Stmt::Jump(..) => j,
            Stmt::Declare { var, ty, value, span } => Stmt::Declare { var, ty, value: value.map(|v| self.scalar(v)).transpose()?, span },
        })
    }

    /// `for ($i : start..end) body`: a counter from start while below end (both read once),
    /// copied into `$i` at the top of each turn (so `continue` and changes to `$i` in the
    /// body do not disturb it).
    fn range_loop(&mut self, var: Ident, start: Expr, end: Expr, body: Vec<Stmt>, span: Span) -> Result<Stmt, Diagnostic> {
        let hidden = |what: &str| Ident { name: format!("{}#{what}", var.name), span: var.span.clone() };
        let local = |id: &Ident| Expr { kind: ExprKind::ClauseLocal(id.name.clone()), span: id.span.clone() };
        let set = |id: &Ident, value: Expr| Stmt::Assign { target: LValue::ClauseLocal(id.clone(), id.span.clone()), op: None, value, span: span.clone() };
        let (next, last) = (hidden("next"), hidden("end"));
        let mut turn = vec![set(&var, local(&next)), Stmt::IncDec { target: LValue::ClauseLocal(next.clone(), next.span.clone()), delta: 1, span: span.clone() }];
        turn.extend(self.stmts(body)?);
        let cond = Expr { kind: ExprKind::Binary(BinOp::Lt, Box::new(local(&next)), Box::new(local(&last))), span: var.span.clone() };
        Ok(Stmt::Block(vec![set(&next, self.scalar(start)?), set(&last, self.scalar(end)?), Stmt::While { cond, body: turn, span }]))
    }

    /// The shape of the values of map `name` (with its `@`).
    fn map_shape(&self, name: &str) -> Shape {
        name.strip_prefix('@').and_then(|m| self.shapes.maps.get(m)).cloned().unwrap_or(Shape::Scalar)
    }

    /// The name (without `@`) and value shape of a whole map of tuples (`@m`, no keys given,
    /// as delete(@m, k), clear(@m) and print(@m) take it).
    fn tuple_map(&self, e: &Expr) -> Option<(String, Shape)> {
        let ExprKind::Agg(a) = &e.kind else { return None };
        let shape = self.shapes.maps.get(&a.name)?;
        (*shape != Shape::Scalar).then(|| (a.name.clone(), shape.clone()))
    }

    fn lvalue(&mut self, lv: LValue) -> Result<LValue, Diagnostic> {
        Ok(match lv {
            LValue::Element { name, thread: false, keys, span } if name.name.starts_with('@') => {
                let keys = self.map_keys(&name.name[1..], keys, &span)?;
                LValue::Element { name, thread: false, keys, span }
            }
            LValue::Element { name, thread, keys, span } => LValue::Element { name, thread, keys: self.keys(keys)?, span },
            LValue::Member(e) => LValue::Member(Box::new(self.scalar(*e)?)),
            LValue::ClauseLocal(id, sp) if self.shapes.var(&id.name) != Shape::Scalar => return Err(not_here(&sp)),
            other => other,
        })
    }

    fn agg(&mut self, a: AggRef) -> Result<AggRef, Diagnostic> {
        let keys = self.map_keys(&a.name, a.keys, &a.span)?;
        Ok(AggRef { keys, ..a })
    }

    /// Map `@name`'s keys, each tuple or record among them as its elements, whose paths
    /// the map keeps to print them nested: every use nests them alike, as bpftrace's keys
    /// keep one type.
    fn map_keys(&mut self, name: &str, keys: Vec<Expr>, span: &Span) -> Result<Vec<Expr>, Diagnostic> {
        let (out, paths) = self.keys_with_paths(keys)?;
        // A map's keys are one tuple: `@m[(1, 2)]` is `@m[1, 2]`.
        let paths = if !paths.is_empty() && paths.iter().all(|p| p.starts_with(".0.")) { paths.iter().map(|p| p[2..].to_string()).collect() } else { paths };
        match self.key_paths.get(name) {
            // A count that differs is the checker's error, which says so.
            Some((first, at)) if *first != paths && first.len() == paths.len() => {
                return Err(Diagnostic::new(span.clone(), format!("@{name}'s keys are nested differently here"))
                    .label("another shape of keys")
                    .related(at.clone(), "first used with these keys")
                    .hint("a map's keys keep one type: nest the tuples among them the same way everywhere"));
            }
            Some(_) => {}
            None => {
                self.key_paths.insert(name.to_string(), (paths, span.clone()));
            }
        }
        Ok(out)
    }

    /// A map's keys, each tuple among them as its elements.
    fn keys(&mut self, keys: Vec<Expr>) -> Result<Vec<Expr>, Diagnostic> {
        Ok(self.keys_with_paths(keys)?.0)
    }

    /// A map's keys, each tuple or record among them as its elements, and each scalar key's
    /// path (`.0`, `.1.0`, `.1.name`).
    fn keys_with_paths(&mut self, keys: Vec<Expr>) -> Result<(Vec<Expr>, Vec<String>), Diagnostic> {
        let mut out = Vec::new();
        let mut paths = Vec::new();
        for (i, k) in keys.into_iter().enumerate() {
            match self.shapes.of(&k) {
                Shape::Scalar => {
                    out.push(self.scalar(k)?);
                    paths.push(format!(".{i}"));
                }
                shape if shape.has_empty() => return Err(empty_in_map(&k.span, "key")),
                shape => {
                    for (p, e) in self.components(k, &shape)? {
                        out.push(e);
                        paths.push(format!(".{i}{p}"));
                    }
                }
            }
        }
        Ok((out, paths))
    }

    /// The scalar elements of a tuple-valued expression of `shape`, with their paths.
    fn components(&mut self, e: Expr, shape: &Shape) -> Result<Vec<(String, Expr)>, Diagnostic> {
        let e = self.reduce(e)?;
        let found = self.shapes.of(&e);
        if let (Shape::Tuple(want), Shape::Tuple(have)) = (shape, &found) {
            if want.len() != have.len() {
                return Err(Diagnostic::new(e.span.clone(), format!("a tuple of {} elements where one of {} is expected", have.len(), want.len()))
                    .label(format!("{} elements", have.len()))
                    .hint("a scratch variable keeps one type: give it tuples of one shape"));
            }
        }
        Ok(match (e.kind, shape) {
            (kind, Shape::Scalar) => vec![(String::new(), self.scalar(Expr { kind, span: e.span })?)],
            (ExprKind::Record(mut fields), Shape::Record(shapes)) => {
                let mut out = Vec::new();
                for (name, s) in shapes {
                    let Some(at) = fields.iter().position(|(n, _)| n.name == *name) else {
                        return Err(Diagnostic::new(e.span.clone(), format!("the record has no field `{name}`")).label("a field missing").hint("a scratch variable keeps one type: give it records with the same fields"));
                    };
                    let x = fields.swap_remove(at).1;
                    out.extend(self.components(x, s)?.into_iter().map(|(p, x)| (format!(".{name}{p}"), x)));
                }
                out
            }
            (ExprKind::Tuple(elems), Shape::Tuple(shapes)) => {
                let mut out = Vec::new();
                for (i, (x, s)) in elems.into_iter().zip(shapes).enumerate() {
                    out.extend(self.components(x, s)?.into_iter().map(|(p, x)| (format!(".{i}{p}"), x)));
                }
                out
            }
            (ExprKind::ClauseLocal(n), shape) => shape.leaves().into_iter().map(|p| (p.clone(), Expr { kind: ExprKind::ClauseLocal(element_name(&n, &p)), span: e.span.clone() })).collect(),
            (ExprKind::Agg(a), shape) => {
                let keys = self.keys(a.keys)?;
                shape.leaves().into_iter().map(|p| (p.clone(), Expr { kind: ExprKind::Agg(AggRef { name: element_name(&a.name, &p), keys: keys.clone(), span: a.span.clone() }), span: e.span.clone() })).collect()
            }
            (_, _) => {
                return Err(Diagnostic::new(e.span, "a tuple is expected here")
                    .label("not a tuple")
                    .hint("give a tuple, (a, b), or a scratch variable that holds one"))
            }
        })
    }

    /// A tuple's element read by `.N` or `[N]`, down to the tuple literal's element or the
    /// element's own scratch variable.
    fn reduce(&mut self, e: Expr) -> Result<Expr, Diagnostic> {
        if let ExprKind::Member { base, member, arrow: false } = &e.kind {
            if let Shape::Record(fields) = self.shapes.of(base) {
                if !fields.iter().any(|(n, _)| *n == member.name) {
                    return Err(Diagnostic::new(member.span.clone(), format!("the record has no field `{}`", member.name))
                        .label("not one of its fields")
                        .hint(format!("its fields: {}", fields.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", "))));
                }
                let ExprKind::Member { base, member, .. } = e.kind else { unreachable!("matched") };
                let base = self.reduce(*base)?;
                return match base.kind {
                    ExprKind::Record(xs) => self.reduce(xs.into_iter().find(|(n, _)| n.name == member.name).expect("checked").1),
                    ExprKind::ClauseLocal(n) => Ok(Expr { kind: ExprKind::ClauseLocal(element_name(&n, &format!(".{}", member.name))), span: e.span }),
                    ExprKind::Agg(a) => Ok(Expr { kind: ExprKind::Agg(AggRef { name: element_name(&a.name, &format!(".{}", member.name)), ..a }), span: e.span }),
                    _ => Err(Diagnostic::new(e.span, "a record's field is read from a record or a scratch variable that holds one")
                        .label("not one")
                        .hint("store the record in a scratch variable first: $r = (a = 1); $r.a")),
                };
            }
        }
        let (base, index, span) = match e.kind {
            ExprKind::Member { base, member, arrow: false } if member.name.chars().all(|c| c.is_ascii_digit()) => {
                let i = member.name.parse::<usize>().map_err(|_| out_of_range(&member.span, &member.name, 0))?;
                (base, i, e.span)
            }
            ExprKind::Index(base, keys) if keys.len() == 1 && self.shapes.of(&base) != Shape::Scalar => {
                let Some(i) = constant(&keys[0]).and_then(|i| usize::try_from(i).ok()) else {
                    return Err(Diagnostic::new(keys[0].span.clone(), "a tuple's index must be a constant")
                        .label("not a constant")
                        .hint("index a tuple with a number written in the program: $t[1], $t.1"));
                };
                (base, i, e.span)
            }
            kind => return Ok(Expr { kind, span: e.span }),
        };
        let base = self.reduce(*base)?;
        match (self.shapes.of(&base), base.kind) {
            (Shape::Tuple(elems), ExprKind::Tuple(mut xs)) if index < elems.len() => self.reduce(xs.swap_remove(index)),
            (Shape::Tuple(elems), ExprKind::ClauseLocal(n)) if index < elems.len() => Ok(Expr { kind: ExprKind::ClauseLocal(element_name(&n, &format!(".{index}"))), span }),
            (Shape::Tuple(elems), ExprKind::Agg(a)) if index < elems.len() => Ok(Expr { kind: ExprKind::Agg(AggRef { name: element_name(&a.name, &format!(".{index}")), ..a }), span }),
            (Shape::Tuple(elems), _) => Err(out_of_range(&span, &index.to_string(), elems.len())),
            (Shape::Record(_), _) => Err(Diagnostic::new(span, "a record's fields are read by name").label("by number").hint("write $r.name")),
            (Shape::Scalar, _) => Err(Diagnostic::new(span, format!("element {index} of something that is not a tuple"))
                .label("not a tuple")
                .hint("`.N` and `[N]` read a tuple's elements: $t = (a, b); $t.0")),
        }
    }

    /// An expression whose value is one value (not a tuple), its tuples lowered.
    fn scalar(&mut self, e: Expr) -> Result<Expr, Diagnostic> {
        let e = self.reduce(e)?;
        if self.shapes.of(&e) != Shape::Scalar {
            return Err(not_here(&e.span));
        }
        let span = e.span;
        let b = |x: Expr| Box::new(x);
        let kind = match e.kind {
            ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne), l, r) if self.shapes.of(&l) != Shape::Scalar || self.shapes.of(&r) != Shape::Scalar => return self.tuples_equal(op, *l, *r, span),
            ExprKind::Call(f, mut args) if matches!(f.name.as_str(), "print" | "has_key" | "len") && args.first().is_some_and(|a| self.tuple_map(a).is_some_and(|_| matches!(&a.kind, ExprKind::Agg(x) if x.keys.is_empty()))) => {
                // The whole map: its first element's map has its keys (user space prints
                // the elements' maps as one).
                let (map, shape) = self.tuple_map(&args[0]).expect("checked");
                if let ExprKind::Agg(a) = &mut args[0].kind {
                    a.name = element_name(&map, &shape.leaves()[0]);
                }
                return self.scalar(Expr { kind: ExprKind::Call(f, args), span });
            }
            ExprKind::Call(f, args) if matches!(f.name.as_str(), "delete" | "clear" | "zero") && args.first().is_some_and(|a| self.tuple_map(a).is_some()) => {
                return Err(Diagnostic::new(span, format!("{}() of a map of tuples gives no value", f.name))
                    .label("used as a value")
                    .hint(format!("call {}() as a statement of its own", f.name)));
            }
            ExprKind::Call(f, args) if f.name == "print" && args.first().is_some_and(|a| self.shapes.of(a) != Shape::Scalar) => {
                let mut args = args.into_iter();
                let first = args.next().expect("checked");
                let shape = self.shapes.of(&first);
                let whole = self.nested(first, &shape)?;
                ExprKind::Call(f, std::iter::once(Ok(whole)).chain(args.map(|a| self.scalar(a))).collect::<Result<_, _>>()?)
            }
            ExprKind::Call(f, args) if f.name == "find" && args.len() == 3 && self.tuple_map(&args[0]).is_some() => {
                // find() of each element's map into each element's variable: all are found
                // or none (the elements' maps are stored and deleted together).
                let (map, shape) = self.tuple_map(&args[0]).expect("checked");
                let ExprKind::ClauseLocal(var) = &args[2].kind else {
                    return Err(Diagnostic::new(args[2].span.clone(), "find() stores the element in a scratch variable").label("not a scratch variable").hint(format!("write find(@{map}, key, $var)")));
                };
                let (map_at, var_at) = (args[0].span.clone(), args[2].span.clone());
                let keys = self.keys(vec![args[1].clone()])?;
                let calls = shape.leaves().into_iter().map(|p| {
                    let m = Expr { kind: ExprKind::Agg(AggRef { name: element_name(&map, &p), keys: Vec::new(), span: map_at.clone() }), span: map_at.clone() };
                    let v = Expr { kind: ExprKind::ClauseLocal(element_name(var, &p)), span: var_at.clone() };
                    Expr { kind: ExprKind::Call(f.clone(), std::iter::once(m).chain(keys.iter().cloned()).chain([v]).collect()), span: span.clone() }
                });
                let all = calls.reduce(|a, b| Expr { kind: ExprKind::Binary(BinOp::LogAnd, Box::new(a), Box::new(b)), span: span.clone() }).expect("a tuple has elements");
                return Ok(all);
            }
            ExprKind::Call(f, args) if f.name == "find" && args.len() == 3 => {
                // A tuple key is its elements: find(@m, k1, k2, $v).
                let mut args = args.into_iter();
                let (map, key, var) = (args.next().expect("3"), args.next().expect("3"), args.next().expect("3"));
                let keys = self.keys(vec![key])?;
                ExprKind::Call(f, std::iter::once(self.scalar(map)?).chain(keys).chain([var]).collect())
            }
            ExprKind::Call(f, args) if matches!(f.name.as_str(), "has_key" | "delete") && !args.is_empty() => {
                let mut args = args.into_iter();
                let map = self.scalar(args.next().expect("checked"))?;
                let keys = self.keys(args.collect())?;
                ExprKind::Call(f, std::iter::once(map).chain(keys).collect())
            }
            ExprKind::Call(f, args) => ExprKind::Call(f, args.into_iter().map(|a| self.scalar(a)).collect::<Result<_, _>>()?),
            ExprKind::Agg(a) => ExprKind::Agg(self.agg(a)?),
            ExprKind::Unary(op, a) => ExprKind::Unary(op, b(self.scalar(*a)?)),
            ExprKind::Binary(op, l, r) => ExprKind::Binary(op, b(self.scalar(*l)?), b(self.scalar(*r)?)),
            ExprKind::Ternary(c, x, y) => ExprKind::Ternary(b(self.scalar(*c)?), b(self.scalar(*x)?), b(self.scalar(*y)?)),
            ExprKind::Cast(t, a) => ExprKind::Cast(t, b(self.scalar(*a)?)),
            ExprKind::Member { base, member, arrow } => ExprKind::Member { base: b(self.scalar(*base)?), member, arrow },
            ExprKind::Index(base, keys) => ExprKind::Index(b(self.scalar(*base)?), keys.into_iter().map(|k| self.scalar(k)).collect::<Result<_, _>>()?),
            ExprKind::Assign { target, op, value } => ExprKind::Assign { target: Box::new(self.lvalue(*target)?), op, value: b(self.scalar(*value)?) },
            ExprKind::IncDec { target, delta, post } => ExprKind::IncDec { target: Box::new(self.lvalue(*target)?), delta, post },
            ExprKind::Deref(a) => ExprKind::Deref(b(self.scalar(*a)?)),
            ExprKind::AddrOf(a) => ExprKind::AddrOf(b(self.scalar(*a)?)),
            ExprKind::SizeofExpr(a) => ExprKind::SizeofExpr(b(self.scalar(*a)?)),
            ExprKind::Xlate(t, a) => ExprKind::Xlate(t, b(self.scalar(*a)?)),
            kind @ (ExprKind::Int(..) | ExprKind::Str(_) | ExprKind::Ident(_) | ExprKind::Macro(_) | ExprKind::ThreadLocal(_) | ExprKind::ArgsField(_) | ExprKind::ClauseLocal(_) | ExprKind::SizeofType(_) | ExprKind::Offsetof(..)) => kind,
            ExprKind::Tuple(_) | ExprKind::Record(_) => return Err(not_here(&span)),
            // The macro pass, which runs first, moved a block's statements out.
            ExprKind::Block(..) => return Err(crate::macros::block_not_here(&span)),
            ExprKind::Comptime(a) => ExprKind::Comptime(b(self.scalar(*a)?)),
            kind @ ExprKind::TypeArg(_) => kind,
        };
        Ok(Expr { kind, span })
    }

    /// A tuple as a tuple literal of its scalar elements (nested as it is): what print()
    /// prints.
    fn nested(&mut self, e: Expr, shape: &Shape) -> Result<Expr, Diagnostic> {
        let span = e.span.clone();
        let mut parts = self.components(e, shape)?.into_iter().map(|(_, x)| x);
        fn build(shape: &Shape, parts: &mut dyn Iterator<Item = Expr>, span: &Span) -> Expr {
            match shape {
                Shape::Scalar => parts.next().expect("one part per leaf"),
                Shape::Tuple(elems) => Expr { kind: ExprKind::Tuple(elems.iter().map(|s| build(s, parts, span)).collect()), span: span.clone() },
                Shape::Record(fields) => Expr { kind: ExprKind::Record(fields.iter().map(|(n, s)| (Ident { name: n.clone(), span: span.clone() }, build(s, parts, span))).collect()), span: span.clone() },
            }
        }
        Ok(build(shape, &mut parts, &span))
    }

    /// `a == b` / `a != b` of tuples: every element equal / some element not.
    fn tuples_equal(&mut self, op: BinOp, l: Expr, r: Expr, span: Span) -> Result<Expr, Diagnostic> {
        let (ls, rs) = (self.shapes.of(&l), self.shapes.of(&r));
        if ls.leaves() != rs.leaves() {
            return Err(Diagnostic::new(span, "tuples of different shapes are compared")
                .label("not the same shape")
                .hint("== and != compare tuples element by element: both sides need the same elements"));
        }
        let (lp, rp) = (self.components(l, &ls)?, self.components(r, &rs)?);
        let join = if op == BinOp::Eq { BinOp::LogAnd } else { BinOp::LogOr };
        let mut out: Option<Expr> = None;
        for ((_, a), (_, b)) in lp.into_iter().zip(rp) {
            let cmp = Expr { kind: ExprKind::Binary(op, Box::new(a), Box::new(b)), span: span.clone() };
            out = Some(match out {
                None => cmp,
                Some(acc) => Expr { kind: ExprKind::Binary(join, Box::new(acc), Box::new(cmp)), span: span.clone() },
            });
        }
        // Two empty tuples are equal.
        let int = crate::types::IntType { name: "int".into(), size: 4, signed: true, char: false, bool: false };
        Ok(out.unwrap_or(Expr { kind: ExprKind::Int(i64::from(op == BinOp::Eq), int), span }))
    }
}

/// The empty tuple has no elements to store: a map per element would be no map at all.
fn empty_in_map(span: &Span, what: &str) -> Diagnostic {
    Diagnostic::new(span.clone(), format!("the empty tuple cannot be a map's {what}"))
        .label("()")
        .hint("a map's keys and values hold at least one value: store a number or a string, or keep () in a scratch variable")
}

fn tuple_map_computed(map: &str, shape: &Shape, span: Span) -> Diagnostic {
    let (what, example) = match shape {
        Shape::Record(_) => ("records", "(a = 1, b = 2)"),
        _ => ("tuples", "(a, b)"),
    };
    Diagnostic::new(span, format!("`{map}` holds {what}, which cannot be computed with"))
        .label(format!("a map of {what}"))
        .hint(format!("store a whole value, `{map}[k] = {example}`, or compute with its elements"))
}

/// Whether `e` reads map `map` (its name without `@`) or one of its elements' maps.
fn reads_map(e: &Expr, map: &str) -> bool {
    match &e.kind {
        ExprKind::Agg(a) if a.name == map || a.name.strip_prefix(map).is_some_and(|rest| rest.starts_with('.')) => true,
        _ => e.children().into_iter().any(|c| reads_map(c, map)),
    }
}

fn out_of_range(span: &Span, index: &str, len: usize) -> Diagnostic {
    Diagnostic::new(span.clone(), format!("the tuple has no element {index}"))
        .label(format!("it has {len}"))
        .hint(format!("a tuple of {len} elements has elements 0 to {}", len.saturating_sub(1)))
}

/// Whether `e` reads scratch variable `var` or one of its elements.
fn mentions(e: &Expr, var: &str) -> bool {
    match &e.kind {
        ExprKind::ClauseLocal(n) => n == var || n.strip_prefix(var).is_some_and(|rest| rest.starts_with('.')),
        _ => e.children().into_iter().any(|c| mentions(c, var)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Dialect;

    fn lowered(src: &str) -> Result<Program, Diagnostic> {
        crate::parse::parse_program_in(src, None, Dialect::Bpftrace)
    }

    fn locals(p: &Program) -> Vec<String> {
        let mut out = Vec::new();
        for c in &p.clauses {
            c.each_target(&mut |t| {
                if let LValue::ClauseLocal(id, _) = t {
                    out.push(id.name.clone());
                }
            });
        }
        out
    }

    #[test]
    fn a_tuple_variable_is_a_variable_per_element() {
        let p = lowered("BEGIN { $a = (1, \"x\"); $b = (2, $a); printf(\"%d %s\\n\", $b.1.0, $b.1[1]); }").unwrap();
        assert_eq!(locals(&p), ["$a.0", "$a.1", "$b.0", "$b.1.0", "$b.1.1"]);
    }

    #[test]
    fn a_tuple_among_keys_is_its_elements() {
        let p = lowered("BEGIN { $k = (1, 2); @m[$k] = 1; @n[(3, 4), 5] = count(); }").unwrap();
        let Some(Stmt::Assign { target: LValue::Element { keys, .. }, .. }) = p.clauses[0].body.as_ref().unwrap().get(1) else { panic!() };
        assert_eq!(keys.len(), 2);
        let Some(Stmt::Aggregate { agg, .. }) = p.clauses[0].body.as_ref().unwrap().get(2) else { panic!() };
        assert_eq!(agg.keys.len(), 3);
    }

    #[test]
    fn a_swap_reads_before_it_writes() {
        let p = lowered("BEGIN { $t = (1, 2); $t = ($t.1, $t.0); }").unwrap();
        assert_eq!(locals(&p), ["$t.0", "$t.1", "$t#.0", "$t#.1", "$t.0", "$t.1"]);
    }

    #[test]
    fn wrong_uses_say_what_a_tuple_is() {
        for (src, msg) in [
            ("BEGIN { $t = (1, 2); $x = $t + 1; }", "a tuple cannot be used here"),
            ("BEGIN { $t = (1, 2); $x = $t.2; }", "the tuple has no element 2"),
            ("BEGIN { $t = (1, 2); $i = 0; $x = $t[$i]; }", "a tuple's index must be a constant"),
            ("BEGIN { $t = (1, 2); $t = (1, 2, 3); }", "given tuples of two shapes"),
            ("BEGIN { $x = 1; $y = $x.0; }", "not a tuple"),
            ("BEGIN { @m[1] = 1; for ($kv : @m[1]) { } }", "not an element"),
        ] {
            let d = lowered(src).expect_err(src);
            assert!(d.message.contains(msg), "{src}: {}", d.message);
        }
    }

    /// The maps each statement of the first clause stores into, by name.
    fn stored_maps(p: &Program) -> Vec<String> {
        let mut out = Vec::new();
        p.clauses[0].each_target(&mut |t| {
            if let LValue::Element { name, .. } = t {
                out.push(name.name.clone());
            }
        });
        out
    }

    #[test]
    fn a_map_of_tuples_is_a_map_per_element() {
        let p = lowered("BEGIN { $t = (1, (\"a\", 2)); @m[1] = $t; @m[2] = @m[1]; @m[3] = (@m[3].1.1, (\"b\", @m[3].0)); }").unwrap();
        let elements = ["@m.0", "@m.1.0", "@m.1.1"];
        let want: Vec<&str> = elements.iter().chain(&elements).chain(&elements).copied().collect();
        assert_eq!(stored_maps(&p), want);
        assert_eq!(split_element_name("@m.1.0"), Some(("@m", vec![Step::Index(1), Step::Index(0)])));
        assert_eq!(split_element_name("@m.1.size"), Some(("@m", vec![Step::Index(1), Step::Field("size".into())])));
        assert_eq!(split_element_name("@m"), None);
        assert_eq!(split_element_name("@m.1x"), None);
    }

    #[test]
    fn wrong_uses_of_a_map_of_tuples() {
        for (src, msg) in [
            ("BEGIN { @m[1] = (1, 2); @m[2] = 3; }", "`@m` is given values of two shapes"),
            ("BEGIN { @m[1] = (1, 2); @m[2] = (1, 2, 3); }", "`@m` is given values of two shapes"),
            ("BEGIN { @m[1] = (1, 2); @m[1] += 1; }", "`@m` holds tuples, which cannot be computed with"),
            ("BEGIN { @m[1] = (1, 2); @m[1]++; }", "`@m` holds tuples, which cannot be computed with"),
            ("BEGIN { @m[1] = (1, 2); $x = delete(@m, 1); }", "delete() of a map of tuples gives no value"),
            ("BEGIN { @m[1] = (1, 2); $x = @m[1] + 1; }", "a tuple cannot be used here"),
            ("BEGIN { @m[1] = (1, 2); $x = @m[1].2; }", "the tuple has no element 2"),
        ] {
            let d = lowered(src).expect_err(src);
            assert!(d.message.contains(msg), "{src}: {}", d.message);
        }
    }

    #[test]
    fn a_record_is_a_variable_per_field_in_name_order() {
        let p = lowered("BEGIN { $a = (size = 2, color = \"green\"); $a = (color = \"blue\", size = 10); $t = (1, $a); printf(\"%s\\n\", $t.1.color); }").unwrap();
        assert_eq!(locals(&p), ["$a.color", "$a.size", "$a.color", "$a.size", "$t.0", "$t.1.color", "$t.1.size"]);
        for (src, msg) in [
            ("BEGIN { $a = (c = 1); $x = $a.d; }", "the record has no field `d`"),
            ("BEGIN { $a = (c = 1, c = 2); }", "the record's field `c` is given twice"),
            ("BEGIN { @m[1, (2, 3)] = 1; @m[1, 2, 3] = 2; }", "@m's keys are nested differently here"),
            ("BEGIN { $r = (c = 1); @m[1, $r] = count(); @m[1, (d = 2)] = count(); }", "@m's keys are nested differently here"),
            ("BEGIN { @m[1] = (c = 1); @m[1]++; }", "`@m` holds records, which cannot be computed with"),
            ("BEGIN { @m[1] = (c = 1); @m[2] = (d = 1); }", "`@m` is given values of two shapes"),
            ("BEGIN { $a = (c = 1, d = 2); $a = (c = 1, e = 2); }", "given tuples of two shapes"),
        ] {
            let d = lowered(src).expect_err(src);
            assert!(d.message.contains(msg), "{src}: {}", d.message);
        }
    }

    /// Tuples and records among a map's keys keep their paths, to print nested; keys that
    /// are one tuple are that tuple's elements, and plain keys keep none.
    #[test]
    fn nested_keys_keep_their_paths() {
        let p = lowered("BEGIN { @m[1, (2, (3, 4))] = 1; $t = (5, (6, 7)); @t[$t] = 1; @r[(b = 1, a = \"x\")] = count(); @q[1, (2, 3)] = 2; @p[(1, 2)] = 1; @s[1, 2] = 3; }").unwrap();
        let paths = |name: &str| p.key_paths.get(name).cloned().unwrap_or_default();
        assert_eq!(paths("m"), [".0", ".1.0", ".1.1.0", ".1.1.1"]);
        assert_eq!(paths("t"), [".0", ".1.0", ".1.1"]);
        assert_eq!(paths("r"), [".a", ".b"]);
        assert_eq!(paths("q"), [".0", ".1.0", ".1.1"]);
        assert!(!p.key_paths.contains_key("p") && !p.key_paths.contains_key("s"), "{:?}", p.key_paths);
    }

    #[test]
    fn the_empty_tuple_has_no_elements() {
        let p = lowered("BEGIN { $t = (); $u = (1, ()); if ($t == ()) { print($u); } }").unwrap();
        assert_eq!(locals(&p), ["$u.0"]);
        for (src, msg, at) in [
            ("BEGIN { @m[1] = (); }", "the empty tuple cannot be a map's value", "()"),
            ("BEGIN { @m[1] = (1, (a = ())); }", "the empty tuple cannot be a map's value", "(1, (a = ()))"),
            ("BEGIN { @m[()] = 1; }", "the empty tuple cannot be a map's key", "()"),
            ("BEGIN { $t = (); @m[1, $t] = count(); }", "the empty tuple cannot be a map's key", "$t"),
            ("BEGIN { $t = (); $x = $t + 1; }", "a tuple cannot be used here", "$t"),
        ] {
            let d = lowered(src).expect_err(src);
            assert_eq!((d.message.as_str(), &src[d.span.start..d.span.end]), (msg, at), "{src}");
            assert!(d.hint.is_some(), "{src}");
        }
    }

    #[test]
    fn a_map_of_records_is_a_map_per_field() {
        let p = lowered("BEGIN { @r[1] = (size = 2, color = \"a\"); @r[2] = (color = @r[1].color, size = 3); $v = @r[2]; printf(\"%d\\n\", $v.size); }").unwrap();
        assert_eq!(stored_maps(&p), ["@r.color", "@r.size", "@r.color", "@r.size"]);
        assert_eq!(locals(&p), ["$#r.color", "$#r.size", "$v.color", "$v.size"], "@r[2] reads @r before it writes it");
    }

    #[test]
    fn a_range_loop_is_a_while_over_a_counter() {
        let p = lowered("BEGIN { for ($i : 0..3) { @s += $i; } }").unwrap();
        let Some(Stmt::Block(b)) = p.clauses[0].body.as_ref().unwrap().first() else { panic!() };
        assert!(matches!(b.as_slice(), [Stmt::Assign { .. }, Stmt::Assign { .. }, Stmt::While { .. }]));
    }
}
