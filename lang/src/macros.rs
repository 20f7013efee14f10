//! bpftrace's macros, expanded into the program before it is checked: `macro name(params)
//! { statements; value }` defines one, `name(args)` (or `name` alone, for a macro without
//! parameters) uses it.
//!
//! A parameter says what its argument must be: `$x` a scratch variable and `@m` a map, which
//! the body reads and changes as the caller's own; `x` any expression, put (again) wherever
//! the body names `x`. The body sees nothing else of its caller (hygiene): a map it was not
//! given is an error, and its own scratch variables are renamed (`$y` in `macro f` is
//! `$$f_$y`, `$$f_2_$y` two expansions deep, as bpftrace names them) so that they are not the
//! caller's. A macro may use other macros, but not itself, however indirectly.
//!
//! A macro used as a value whose body has statements before its value gets them run just
//! before the statement that uses it (they can only touch what the call passes), as a block
//! expression's are, which is refused where that would change what runs (in a predicate, a
//! `while` condition, or after `&&`, `||` or `?`). A block passed for an expression parameter
//! runs wherever the body names the parameter.

use crate::ast::*;
use crate::diag::Diagnostic;
use std::collections::HashMap;

/// Expands every macro call of `program` and drops the definitions.
pub fn expand(program: &mut Program) -> Result<(), Diagnostic> {
    let macros = std::mem::take(&mut program.macros);
    let registry = Registry::new(&macros)?;
    for clause in &mut program.clauses {
        let mut ex = Expander { registry: &registry, stack: Vec::new(), scope: None };
        if let Some(p) = &mut clause.predicate {
            ex.expr(p, &mut Vec::new(), Hoist::Never("a predicate"))?;
        }
        if let Some(body) = clause.body.take() {
            clause.body = Some(ex.stmts(body)?);
        }
    }
    Ok(())
}

/// What a call's argument is, as a parameter asks for it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ArgKind {
    Var,
    Map,
    Expr,
}

fn kind_of(e: &Expr) -> ArgKind {
    match &e.kind {
        ExprKind::ClauseLocal(n) if n.starts_with('$') => ArgKind::Var,
        ExprKind::Agg(a) if a.keys.is_empty() => ArgKind::Map,
        _ => ArgKind::Expr,
    }
}

/// How far `m` is from taking arguments of `kinds`, as bpftrace measures it: a different
/// count is far, each argument of the wrong kind a step.
fn distance(m: &MacroDef, kinds: &[ArgKind]) -> usize {
    let count = 1024 * m.params.len().abs_diff(kinds.len());
    count + m.params.iter().zip(kinds).filter(|(p, k)| matches!((p, k), (MacroParam::Map(_), ArgKind::Var | ArgKind::Expr) | (MacroParam::Var(_), ArgKind::Map | ArgKind::Expr))).count()
}

/// The program's macros by name; several of one name must differ in what they take.
struct Registry<'m> {
    by_name: HashMap<&'m str, Vec<&'m MacroDef>>,
}

impl<'m> Registry<'m> {
    fn new(macros: &'m [MacroDef]) -> Result<Registry<'m>, Diagnostic> {
        let mut r = Registry { by_name: HashMap::new() };
        for m in macros {
            validate(m)?;
            let kinds: Vec<ArgKind> = m.params.iter().map(|p| match p {
                MacroParam::Var(_) => ArgKind::Var,
                MacroParam::Map(_) => ArgKind::Map,
                MacroParam::Expr(_) => ArgKind::Expr,
            }).collect();
            if let Ok(first) = r.lookup(&m.name.name, &kinds) {
                return Err(Diagnostic::new(m.name.span.clone(), format!("Redefinition of macro: {}", m.name.name))
                    .label("defined again")
                    .related(first.name.span.clone(), "This is the original definition.")
                    .hint("give the macro another name, or parameters of other kinds"));
            }
            r.by_name.entry(&m.name.name).or_default().push(m);
        }
        Ok(r)
    }

    /// The definition of `name` that takes exactly these kinds of arguments, or the closest
    /// ones (none: no macro has that name).
    fn lookup(&self, name: &str, kinds: &[ArgKind]) -> Result<&'m MacroDef, Vec<&'m MacroDef>> {
        let Some(defs) = self.by_name.get(name) else { return Err(Vec::new()) };
        if let Some(m) = defs.iter().find(|m| distance(m, kinds) == 0) {
            return Ok(m);
        }
        let best = defs.iter().map(|m| distance(m, kinds)).min().unwrap_or(0);
        Err(defs.iter().filter(|m| distance(m, kinds) == best).copied().collect())
    }
}

/// A macro's parameters are named once each.
fn validate(m: &MacroDef) -> Result<(), Diagnostic> {
    for (i, p) in m.params.iter().enumerate() {
        if m.params[..i].iter().any(|q| q.ident().name == p.ident().name) {
            let what = match p {
                MacroParam::Var(_) => "Variable",
                MacroParam::Map(_) => "Map",
                MacroParam::Expr(_) => "Ident",
            };
            return Err(Diagnostic::new(p.ident().span.clone(), format!("{what} for macro argument has already been used: {}", p.ident().name))
                .label("named twice")
                .hint("give each parameter its own name"));
        }
    }
    Ok(())
}

/// Where a macro's statements may be moved before the statement that uses its value.
#[derive(Clone, Copy)]
enum Hoist {
    Yes,
    /// Not here (what the place is): they would run when it does not, or once for many.
    Never(&'static str),
}

/// Inside one expansion: what its parameters stand for.
struct Scope<'m> {
    def: &'m MacroDef,
    /// How many expansions deep (1: called from a probe).
    depth: usize,
    /// `$x` to the caller's scratch variable.
    vars: HashMap<String, String>,
    /// `m` (of `@m`) to the caller's map's name.
    maps: HashMap<String, String>,
    /// `x` to the caller's expression.
    exprs: HashMap<String, Expr>,
}

struct Expander<'r, 'm> {
    registry: &'r Registry<'m>,
    /// The macros being expanded, outermost first.
    stack: Vec<&'m MacroDef>,
    scope: Option<Scope<'m>>,
}

impl<'m> Expander<'_, 'm> {
    /// A block's statements, each macro call in them expanded.
    fn stmts(&mut self, stmts: Vec<Stmt>) -> Result<Vec<Stmt>, Diagnostic> {
        let mut out = Vec::with_capacity(stmts.len());
        for s in stmts {
            self.stmt(s, &mut out)?;
        }
        Ok(out)
    }

    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        let mut pre = Vec::new();
        let s = match s {
            // A macro used as a statement: its statements, then its value as one.
            Stmt::Expr(mut e) if self.names_macro(&e) => {
                let (mut body, value) = self.expand(&mut e, &mut pre, Hoist::Yes)?;
                // bpftrace drops the value of a statement; one that does something stays
                // (an expression statement alone is D's trace()).
                body.extend(value.filter(has_effects).map(Stmt::Expr));
                out.append(&mut pre);
                out.push(Stmt::Block(body));
                return Ok(());
            }
            Stmt::Expr(mut e) => {
                self.expr(&mut e, &mut pre, Hoist::Yes)?;
                // In a macro's body, a statement that does nothing (`x;` of an expression
                // parameter) is dropped as bpftrace drops it, not traced as D would.
                if self.scope.is_some() && !has_effects(&e) {
                    out.append(&mut pre);
                    return Ok(());
                }
                Stmt::Expr(e)
            }
            Stmt::Assign { mut target, op, mut value, span } => {
                self.lvalue(&mut target, &mut pre)?;
                self.expr(&mut value, &mut pre, Hoist::Yes)?;
                Stmt::Assign { target, op, value, span }
            }
            Stmt::IncDec { mut target, delta, span } => {
                self.lvalue(&mut target, &mut pre)?;
                Stmt::IncDec { target, delta, span }
            }
            Stmt::Aggregate { mut agg, func, mut args, span } => {
                self.agg(&mut agg, &mut pre)?;
                for a in &mut args {
                    self.expr(a, &mut pre, Hoist::Yes)?;
                }
                Stmt::Aggregate { agg, func, args, span }
            }
            Stmt::If { mut cond, then, els, span } => {
                self.expr(&mut cond, &mut pre, Hoist::Yes)?;
                let then = self.stmts(then)?;
                let els = els.map(|e| self.stmts(e)).transpose()?;
                Stmt::If { cond, then, els, span }
            }
            Stmt::While { mut cond, body, span } => {
                self.expr(&mut cond, &mut pre, Hoist::Never("a while condition"))?;
                Stmt::While { cond, body: self.stmts(body)?, span }
            }
            Stmt::For { mut var, iter, body, span } => {
                var.name = self.var(&var.name);
                let iter = match iter {
                    ForIter::Range(mut a, mut b) => {
                        self.expr(&mut a, &mut pre, Hoist::Yes)?;
                        self.expr(&mut b, &mut pre, Hoist::Yes)?;
                        ForIter::Range(a, b)
                    }
                    ForIter::Map(mut m) => {
                        self.agg(&mut m, &mut pre)?;
                        ForIter::Map(m)
                    }
                };
                Stmt::For { var, iter, body: self.stmts(body)?, span }
            }
            Stmt::Block(b) => Stmt::Block(self.stmts(b)?),
            j @ Stmt::Jump(..) => j,
            Stmt::Declare { mut var, mut ty, mut value, span } => {
                var.name = self.var(&var.name);
                self.type_name(&mut ty)?;
                if let Some(v) = &mut value {
                    self.expr(v, &mut pre, Hoist::Yes)?;
                }
                Stmt::Declare { var, ty, value, span }
            }
        };
        out.append(&mut pre);
        out.push(s);
        Ok(())
    }

    /// Whether `e` is a call of a macro (`name(...)` or `name` alone), not a parameter.
    fn names_macro(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Call(name, _) => self.registry.by_name.contains_key(name.name.as_str()),
            ExprKind::Ident(n) => self.registry.by_name.contains_key(n.as_str()) && !self.scope.as_ref().is_some_and(|s| s.exprs.contains_key(n)),
            _ => false,
        }
    }

    /// `e` with its macro calls expanded, parameters replaced and scratch variables renamed;
    /// statements a macro runs before its value go to `pre`.
    fn expr(&mut self, e: &mut Expr, pre: &mut Vec<Stmt>, hoist: Hoist) -> Result<(), Diagnostic> {
        if self.names_macro(e) {
            let (body, value) = self.expand(e, pre, hoist)?;
            let name = match &e.kind {
                ExprKind::Call(n, _) => n.name.clone(),
                ExprKind::Ident(n) => n.clone(),
                _ => unreachable!(),
            };
            let Some(value) = value else {
                return Err(Diagnostic::new(e.span.clone(), format!("Call to {name}() has no value"))
                    .label("used as a value")
                    .hint("end the macro's body with an expression and no `;` after it, or call it as a statement"));
            };
            if !body.is_empty() {
                if let Hoist::Never(place) = hoist {
                    return Err(Diagnostic::new(e.span.clone(), format!("{name}() runs statements before its value, which cannot be done in {place}"))
                        .label("a macro with statements")
                        .hint("crumbs runs a macro's statements before the statement that uses its value: assign the value to a scratch variable before, `$v = f(...);`, and use `$v`"));
                }
                pre.push(Stmt::Block(body));
            }
            *e = value;
            return Ok(());
        }
        if matches!(e.kind, ExprKind::Block(..)) {
            return self.block_value(e, pre, hoist);
        }
        match &mut e.kind {
            ExprKind::Ident(n) => {
                if let Some(arg) = self.scope.as_ref().and_then(|s| s.exprs.get(n.as_str())) {
                    // The caller's expression, as the caller wrote it (its names are the
                    // caller's: nothing in it is renamed).
                    *e = arg.clone();
                    if let ExprKind::Block(stmts, value) = &mut e.kind {
                        // A block argument: its statements (the caller's, expanded) run here.
                        if !stmts.is_empty() {
                            if let Hoist::Never(place) = hoist {
                                return Err(Diagnostic::new(e.span.clone(), format!("a block with statements cannot be a value in {place}"))
                                    .label("a block argument, used here")
                                    .hint("crumbs runs a block's statements before the statement that uses its value: in the macro, assign the parameter to a scratch variable first, `let $v = x;`"));
                            }
                            pre.push(Stmt::Block(std::mem::take(stmts)));
                        }
                        let value = std::mem::replace(&mut **value, Expr { kind: ExprKind::Tuple(Vec::new()), span: e.span.clone() });
                        *e = value;
                    }
                }
            }
            ExprKind::ClauseLocal(n) => *n = self.var(n),
            ExprKind::Agg(a) => self.agg(a, pre)?,
            ExprKind::Call(_, args) | ExprKind::Tuple(args) => {
                for a in args {
                    self.expr(a, pre, hoist)?;
                }
            }
            ExprKind::Record(fields) => {
                for (_, a) in fields {
                    self.expr(a, pre, hoist)?;
                }
            }
            ExprKind::Unary(_, a) | ExprKind::Deref(a) | ExprKind::AddrOf(a) | ExprKind::SizeofExpr(a) | ExprKind::Xlate(_, a) => self.expr(a, pre, hoist)?,
            ExprKind::Member { base, .. } => self.expr(base, pre, hoist)?,
            ExprKind::Binary(op, a, b) => {
                self.expr(a, pre, hoist)?;
                let right = if matches!(op, BinOp::LogAnd | BinOp::LogOr) { Hoist::Never("the right of && or ||") } else { hoist };
                self.expr(b, pre, right)?;
            }
            ExprKind::Ternary(c, a, b) => {
                self.expr(c, pre, hoist)?;
                self.expr(a, pre, Hoist::Never("a branch of ?:"))?;
                self.expr(b, pre, Hoist::Never("a branch of ?:"))?;
            }
            ExprKind::Index(base, keys) => {
                self.expr(base, pre, hoist)?;
                for k in keys {
                    self.expr(k, pre, hoist)?;
                }
            }
            ExprKind::Assign { target, value, .. } => {
                self.lvalue(target, pre)?;
                self.expr(value, pre, hoist)?;
            }
            ExprKind::IncDec { target, .. } => self.lvalue(target, pre)?,
            ExprKind::Block(..) => unreachable!("taken above"),
            ExprKind::Comptime(a) => self.expr(a, pre, hoist)?,
            ExprKind::Cast(t, a) => {
                self.type_name(t)?;
                self.expr(a, pre, hoist)?;
            }
            ExprKind::SizeofType(t) | ExprKind::Offsetof(t, _) | ExprKind::TypeArg(t) => self.type_name(t)?,
            ExprKind::Int(..) | ExprKind::Str(_) | ExprKind::Macro(_) | ExprKind::ThreadLocal(_) | ExprKind::ArgsField(_) => {}
        }
        Ok(())
    }

    /// Block expression `e`, `{ statements; value }`: its statements (expanded) run before
    /// the statement that uses it, where that runs them as often as the block would run; the
    /// value takes its place.
    fn block_value(&mut self, e: &mut Expr, pre: &mut Vec<Stmt>, hoist: Hoist) -> Result<(), Diagnostic> {
        let ExprKind::Block(stmts, value) = std::mem::replace(&mut e.kind, ExprKind::Tuple(Vec::new())) else { unreachable!("a block") };
        let mut body = self.stmts(stmts)?;
        let mut value = *value;
        self.expr(&mut value, &mut body, Hoist::Yes)?;
        if !body.is_empty() {
            if let Hoist::Never(place) = hoist {
                return Err(Diagnostic::new(e.span.clone(), format!("a block with statements cannot be a value in {place}"))
                    .label("statements before its value")
                    .hint("crumbs runs a block's statements before the statement that uses its value: assign it to a scratch variable first, `$v = { ... };`, and use `$v`"));
            }
            pre.push(Stmt::Block(body));
        }
        *e = value;
        Ok(())
    }

    /// A type name in the body: a parameter given `typeof(T)` is T (its `*`s added to the
    /// name's), and the expression of a `typeof(expr)` is expanded (never run: what it
    /// would run first is dropped).
    fn type_name(&mut self, t: &mut TypeName) -> Result<(), Diagnostic> {
        match &mut t.base {
            BaseType::Named(words) if words.len() == 1 => {
                if let Some(ExprKind::TypeArg(given)) = self.scope.as_ref().and_then(|s| s.exprs.get(&words[0])).map(|e| &e.kind) {
                    *t = t.applied_to(given);
                }
            }
            BaseType::TypeOf(e) => self.expr(&mut e.0, &mut Vec::new(), Hoist::Yes)?,
            _ => {}
        }
        Ok(())
    }

    fn lvalue(&mut self, t: &mut LValue, pre: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        match t {
            LValue::Global(i) => {
                if self.scope.as_ref().is_some_and(|s| s.exprs.contains_key(&i.name)) {
                    return Err(Diagnostic::new(i.span.clone(), format!("cannot assign to macro argument `{}`: it stands for an expression", i.name))
                        .label("an expression parameter")
                        .hint(format!("a macro changes what its caller passes through `${0}` (a scratch variable) or `@{0}` (a map) parameters", i.name)));
                }
            }
            LValue::ClauseLocal(i, _) => i.name = self.var(&i.name),
            LValue::Element { name, keys, span, .. } => {
                if let Some(m) = name.name.strip_prefix('@') {
                    name.name = format!("@{}", self.map(m, span)?);
                }
                for k in keys {
                    self.expr(k, pre, Hoist::Yes)?;
                }
            }
            LValue::ThreadLocal(..) => {}
            LValue::Member(e) => self.expr(e, pre, Hoist::Yes)?,
        }
        Ok(())
    }

    fn agg(&mut self, a: &mut AggRef, pre: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        a.name = self.map(&a.name, &a.span)?;
        for k in &mut a.keys {
            self.expr(k, pre, Hoist::Yes)?;
        }
        Ok(())
    }

    /// Scratch variable `n` as the expansion names it: a parameter's is the caller's, any
    /// other the macro's own.
    fn var(&self, n: &str) -> String {
        let Some(s) = &self.scope else { return n.to_string() };
        if !n.starts_with('$') {
            return n.to_string();
        }
        match s.vars.get(n) {
            Some(v) => v.clone(),
            None if s.depth == 1 => format!("$${}_{n}", s.def.name.name),
            None => format!("$${}_{}_{n}", s.def.name.name, s.depth),
        }
    }

    /// Map `m` (its name without `@`) as the expansion names it: a parameter's is the
    /// caller's; a macro sees no other.
    fn map(&self, m: &str, span: &Span) -> Result<String, Diagnostic> {
        let Some(s) = &self.scope else { return Ok(m.to_string()) };
        s.maps.get(m).cloned().ok_or_else(|| {
            Diagnostic::new(span.clone(), format!("Unhygienic access to map: @{m}. Maps must be passed into the macro as arguments."))
                .label("not a parameter")
                .hint(format!("add `@{m}` to the macro's parameters and pass the map in the call"))
        })
    }

    /// The call `e` of a macro expanded: its statements and its value. Its arguments are
    /// expanded first, in the caller's scope.
    fn expand(&mut self, e: &mut Expr, pre: &mut Vec<Stmt>, hoist: Hoist) -> Result<(Vec<Stmt>, Option<Expr>), Diagnostic> {
        let (name, args) = match &mut e.kind {
            ExprKind::Call(n, args) => (n.name.clone(), std::mem::take(args)),
            ExprKind::Ident(n) => (n.clone(), Vec::new()),
            _ => unreachable!("not a macro call"),
        };
        let mut args = args;
        for a in &mut args {
            match &mut a.kind {
                // A block argument runs wherever the body names its parameter, as bpftrace
                // puts it there (`f({ printf("hi") })` prints at each use): expanded here, in
                // the caller's scope, and kept a block.
                ExprKind::Block(stmts, value) => {
                    *stmts = self.stmts(std::mem::take(stmts))?;
                    self.expr(value, stmts, Hoist::Yes)?;
                }
                _ => self.expr(a, pre, hoist)?,
            }
        }
        let kinds: Vec<ArgKind> = args.iter().map(kind_of).collect();
        let def = match self.registry.lookup(&name, &kinds) {
            Ok(d) => d,
            Err(closest) => return Err(mismatch(&name, e, &args, &kinds, closest[0])),
        };
        if let Some(i) = self.stack.iter().position(|m| std::ptr::eq(*m, def)) {
            let chain: Vec<&str> = self.stack[i..].iter().map(|m| m.name.name.as_str()).chain([name.as_str()]).collect();
            return Err(Diagnostic::new(e.span.clone(), format!("Recursive macro call detected. Call chain: {}", chain.join(" > ")))
                .label("called again inside itself")
                .hint("a macro cannot use itself, directly or through other macros"));
        }
        let mut scope = Scope { def, depth: self.stack.len() + 1, vars: HashMap::new(), maps: HashMap::new(), exprs: HashMap::new() };
        for (p, a) in def.params.iter().zip(args) {
            match (p, a.kind) {
                (MacroParam::Var(v), ExprKind::ClauseLocal(n)) => _ = scope.vars.insert(v.name.clone(), n),
                (MacroParam::Map(m), ExprKind::Agg(agg)) => _ = scope.maps.insert(m.name[1..].to_string(), agg.name),
                (MacroParam::Expr(x), kind) => _ = scope.exprs.insert(x.name.clone(), Expr { kind, span: a.span }),
                _ => unreachable!("lookup matched the kinds"),
            }
        }
        self.stack.push(def);
        let outer = self.scope.replace(scope);
        let expanded = self.body(def);
        self.scope = outer;
        self.stack.pop();
        expanded
    }

    /// A fresh copy of `def`'s body and value, expanded in the current scope.
    fn body(&mut self, def: &MacroDef) -> Result<(Vec<Stmt>, Option<Expr>), Diagnostic> {
        let mut body = self.stmts(def.body.clone())?;
        let value = match def.value.clone() {
            Some(mut v) => {
                let mut pre = Vec::new();
                self.expr(&mut v, &mut pre, Hoist::Yes)?;
                body.append(&mut pre);
                Some(v)
            }
            None => None,
        };
        Ok((body, value))
    }
}

/// A block expression where none can be: after the macro pass moved it (a bug), or in D.
pub fn block_not_here(span: &Span) -> Diagnostic {
    Diagnostic::new(span.clone(), "a block expression cannot be used here")
        .label("a block as a value")
        .hint("assign the block to a scratch variable in a statement of its own: `$v = { ... };`")
}

/// Whether evaluating `e` does anything besides giving its value: a call, or a store.
fn has_effects(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Call(..) | ExprKind::Assign { .. } | ExprKind::IncDec { .. }) || e.children().into_iter().any(has_effects)
}

/// Why a call matches no definition of `name`, against the closest one, in bpftrace's words.
fn mismatch(name: &str, call: &Expr, args: &[Expr], kinds: &[ArgKind], def: &MacroDef) -> Diagnostic {
    let whole = format!("Call to {name}() has arguments that do not match any definition.");
    if def.params.len() != args.len() {
        return Diagnostic::new(call.span.clone(), whole)
            .label(format!("{} argument{}", args.len(), if args.len() == 1 { "" } else { "s" }))
            .related(def.name.span.clone(), "the closest definition")
            .hint(format!("The closest definition of {name}() has a different number of arguments. Expected: {} but got {}", def.params.len(), args.len()));
    }
    for ((p, a), k) in def.params.iter().zip(args).zip(kinds) {
        let (wanted, param) = match p {
            MacroParam::Map(m) if *k != ArgKind::Map => ("a map", m),
            MacroParam::Var(v) if *k != ArgKind::Var => ("a variable", v),
            _ => continue,
        };
        let got = match k {
            ArgKind::Var => "a variable",
            ArgKind::Map => "a map",
            ArgKind::Expr => "an expression",
        };
        let pass = if wanted == "a map" { "a map, `@name`" } else { "a scratch variable, `$name`" };
        return Diagnostic::new(a.span.clone(), format!("Mismatched arg. {name}() expects {wanted} for arg {} but got {got}.", param.name))
            .label(got)
            .related(param.span.clone(), "This is the argument in the closest definition.")
            .hint(format!("{whole} Pass {pass}."));
    }
    Diagnostic::new(call.span.clone(), whole).label("this call")
}

#[cfg(test)]
mod tests {
    use crate::dialect::Dialect;
    use crate::parse::parse_program_in;

    /// The program's clauses after expansion, as the parser's debug form of their bodies.
    fn expanded(src: &str) -> String {
        let p = parse_program_in(src, None, Dialect::Bpftrace).unwrap_or_else(|d| panic!("{}", d.message));
        assert!(p.macros.is_empty());
        format!("{:?}", p.clauses.iter().map(|c| &c.body).collect::<Vec<_>>())
    }

    fn error(src: &str) -> crate::diag::Diagnostic {
        parse_program_in(src, None, Dialect::Bpftrace).expect_err("an error")
    }

    /// The names of scratch variables and maps in the debug form.
    fn names(debug: &str) -> Vec<String> {
        let mut out = Vec::new();
        for (i, _) in debug.match_indices("ClauseLocal(") {
            let rest = &debug[i + 12..];
            let start = rest.find('"').unwrap() + 1;
            let end = start + rest[start..].find('"').unwrap();
            out.push(rest[start..end].to_string());
        }
        out
    }

    #[test]
    fn values_parameters_and_hygiene() {
        let d = expanded("macro one() { 1 } macro add_one(x) { x + 1 } BEGIN { $a = 10; @r = add_one($a) + one; @s = add_one(one()); }");
        assert!(!d.contains("\"add_one\"") && !d.contains("\"one\""), "{d}");
        // `$a` passed as an expression is read where the body names x.
        assert_eq!(names(&d), ["$a", "$a"]);
        let d = expanded("macro inc($x, @m) { $x += 1; @m += 1; $t = 2; } BEGIN { $v = 1; @b = 5; inc($v, @b); print($v + @b); }");
        assert_eq!(names(&d), ["$v", "$v", "$$inc_$t", "$v"]);
        assert!(d.contains("name: \"@b\""), "{d}");
        // Nested expansions name their own variables by depth.
        let d = expanded("macro inner() { $t = 1; $t } macro outer() { $t = inner(); $t + 1 } BEGIN { @x = outer(); }");
        // inner's statement first, then outer's `$t = ` its value, then outer's value.
        assert_eq!(names(&d), ["$$inner_2_$t", "$$outer_$t", "$$inner_2_$t", "$$outer_$t"]);
    }

    #[test]
    fn a_value_with_statements_runs_them_first_where_that_is_the_same() {
        let d = expanded("macro f($x) { $x++; $x * 2 } BEGIN { $a = 1; @r = f($a); }");
        let block = d.find("Block").unwrap();
        let store = d.find("name: \"@r\"").unwrap();
        assert!(block < store, "{d}");
        let e = error("macro f($x) { $x++; $x } BEGIN { $a = 1; if ($a > 0 && f($a)) { exit(); } }");
        assert_eq!(e.message, "f() runs statements before its value, which cannot be done in the right of && or ||");
        let e = error("macro f($x) { $x++; $x } BEGIN { $a = 1; while (f($a) < 5) { } }");
        assert!(e.message.ends_with("in a while condition"), "{}", e.message);
        let e = error("macro f() { printf(\"x\"); } BEGIN { @x = f(); }");
        assert_eq!(e.message, "Call to f() has no value");
    }

    #[test]
    fn wrong_arguments_recursion_and_unhygienic_maps_are_errors() {
        let src = "macro w($x) { $x++ } BEGIN { @x = 1; w(@x); }";
        let e = error(src);
        assert_eq!(e.message, "Mismatched arg. w() expects a variable for arg $x but got a map.");
        assert_eq!(&src[e.span.clone()], "@x");
        let e = error("macro w($x) { $x++ } BEGIN { w(1 + 1); }");
        assert_eq!(e.message, "Mismatched arg. w() expects a variable for arg $x but got an expression.");
        let e = error("macro m(@a) { @a++ } BEGIN { $v = 1; m($v); }");
        assert_eq!(e.message, "Mismatched arg. m() expects a map for arg @a but got a variable.");
        let e = error("macro two(a, b) { a + b } BEGIN { @x = two(1); }");
        assert_eq!(e.message, "Call to two() has arguments that do not match any definition.");
        assert_eq!(e.hint.as_deref(), Some("The closest definition of two() has a different number of arguments. Expected: 2 but got 1"));
        let e = error("macro a() { b() } macro b() { a() } BEGIN { @x = a(); }");
        assert_eq!(e.message, "Recursive macro call detected. Call chain: a > b > a");
        let e = error("macro u() { @x++ } BEGIN { @x = 1; u(); }");
        assert_eq!(e.message, "Unhygienic access to map: @x. Maps must be passed into the macro as arguments.");
        let e = error("macro d($x, $x) { 1 } BEGIN { }");
        assert_eq!(e.message, "Variable for macro argument has already been used: $x");
        let e = error("macro r(x) { 1 } macro r(y) { 2 } BEGIN { }");
        assert_eq!(e.message, "Redefinition of macro: r");
        // An expression parameter assigned: bpftrace's syntax error, as for any name without
        // `$` or `@`; through a call's argument, crumbs' own error.
        let e = error("macro s(x) { x = 1; } BEGIN { s(2); }");
        assert_eq!(e.message, "syntax error, unexpected =, expecting }");
        let e = error("macro s(x) { print(x = 1); } BEGIN { s(2); }");
        assert!(e.message.starts_with("cannot assign to macro argument `x`"), "{}", e.message);
    }

    #[test]
    fn definitions_of_one_name_are_chosen_by_their_arguments_kinds() {
        let d = expanded("macro f($x) { $x = 7; } macro f(x) { x; } BEGIN { $v = 1; f($v); f(printf(\"3\")); f(4); }");
        assert_eq!(names(&d), ["$v", "$v"]);
        assert!(d.contains("\"printf\""), "{d}");
        // A value that does nothing is dropped, as bpftrace drops it.
        assert!(!d.contains("Int(4"), "{d}");
    }
}
