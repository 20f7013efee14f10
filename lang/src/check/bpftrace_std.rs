//! Current bpftrace's standard library functions (its docs/stdlib.md) that 0.17 lacks:
//! `has_cpid()`, `is_err()`, `probetype()`, `usermode()`, `signal_name()`, the type
//! predicates (`is_integer()`, `is_str()`, ...), `find()`, `assert()` and the compile-time
//! `fail()` and `static_assert()`. (`ncpus()` and `str_concat()` are rows of the builtins
//! table over crumbs' own machinery; `errorf()`/`warnf()` are printf's.)

use super::*;
use crate::builtins::TypeTest;
use crate::ir::IntFn;
use crate::providers::Probe;

/// The kernel's largest error number an `ERR_PTR()` encodes (`MAX_ERRNO`).
const MAX_ERRNO: i64 = 4095;

/// Most probes a clause of several probe types may name for `probetype()` to tell them
/// apart when the probe fires (one comparison each).
const PROBETYPE_COMPARISONS_MAX: usize = 64;

/// The word of `struct pt_regs` that is the saved `cs`: its low two bits are the privilege
/// level the CPU was interrupted in (3: user mode).
const CS_WORD: u8 = 17;

/// Probe type names as current bpftrace's `probetype` gives them: `special` for BEGIN and
/// END (and crumbs' ERROR), a kernel function's entry and return as the description named
/// its provider (`fentry` and `fexit` for those and their aliases `kfunc` and `kretfunc`,
/// else `kprobe` and `kretprobe`: bpftrace's table of probe types), and for the others the
/// kind `probe` names them by.
pub(super) fn probe_type(p: &Probe) -> &'static str {
    match (p.attach, p.spelled) {
        (AttachPoint::Begin | AttachPoint::End | AttachPoint::Error | AttachPoint::SelfSignal, _) => "special",
        (AttachPoint::FbtEntry(_), "fentry" | "kfunc") => "fentry",
        (AttachPoint::FbtReturn(_), "fexit" | "kretfunc") => "fexit",
        _ => registers::bpftrace_kind(p),
    }
}

/// Whether the probe's context is the registers it interrupted (`struct pt_regs`).
pub(super) fn has_registers(a: AttachPoint) -> bool {
    matches!(a, AttachPoint::FbtEntry(_) | AttachPoint::FbtReturn(_) | AttachPoint::UserEntry(_) | AttachPoint::UserReturn(_) | AttachPoint::Profile { .. } | AttachPoint::Perf { .. } | AttachPoint::Watchpoint { .. })
}

impl Checker<'_> {
    /// `has_cpid()`: whether the program has a process to call cpid, known now.
    pub(super) fn has_cpid(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        Ok(TExpr::new(Expr::Int(self.opts.target.is_some() as i64), self.int()))
    }

    /// `is_err(ptr)`: `ptr` (as an unsigned 64-bit number, evaluated once) is one of the last
    /// MAX_ERRNO values, the kernel's IS_ERR_VALUE().
    pub(super) fn is_err(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let p = self.int_value(&args[0], "the argument of is_err()")?;
        Ok(TExpr::new(Expr::Unsigned(BinOp::Ge, Box::new(p.expr), Box::new(Expr::Int(-MAX_ERRNO))), self.int()))
    }

    /// `probetype()`: the clause's probes' type, a constant where they share one; else chosen
    /// by the id of the probe that fired.
    pub(super) fn probetype(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span, string: crate::types::TypeId) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let mut kinds: BTreeMap<&'static str, Vec<u32>> = BTreeMap::new();
        for p in &self.clause_probes {
            kinds.entry(probe_type(p)).or_default().push(p.id);
        }
        // The most common type is what is left when the others' ids do not match.
        let mut by_count: Vec<(&'static str, Vec<u32>)> = kinds.into_iter().collect();
        by_count.sort_by_key(|(name, ids)| (std::cmp::Reverse(ids.len()), *name));
        let Some((last, _)) = by_count.first().cloned() else {
            return Ok(TExpr::new(Expr::Str(StrExpr::Const(self.strings.intern("special"))), string));
        };
        let compared: usize = by_count[1..].iter().map(|(_, ids)| ids.len()).sum();
        if compared > PROBETYPE_COMPARISONS_MAX {
            let names: Vec<String> = by_count.iter().map(|(n, ids)| format!("{} {n}", ids.len())).collect();
            return Err(Diagnostic::new(span.clone(), format!("probetype in a clause of probes of several types ({})", names.join(", ")))
                .label("too many probes to tell apart")
                .hint("give each probe type a clause of its own, where probetype is a constant"));
        }
        let mut value = StrExpr::Const(self.strings.intern(last));
        for (name, ids) in by_count[1..].iter().rev() {
            let fired = ids
                .iter()
                .map(|id| Expr::Binary(BinOp::Eq, Box::new(Expr::Var(VarHook::ProbeId)), Box::new(Expr::Int(i64::from(*id)))))
                .reduce(|a, b| Expr::Binary(BinOp::LogOr, Box::new(a), Box::new(b)))
                .expect("a probe type has probes");
            value = StrExpr::Ternary(Box::new(fired), Box::new(StrExpr::Const(self.strings.intern(name))), Box::new(value));
        }
        Ok(TExpr::new(Expr::Str(value), string))
    }

    /// `usermode()`: whether the saved `cs` says user mode, at probes whose context is the
    /// interrupted registers; elsewhere a constant, as bpftrace folds it (1 at BEGIN and END).
    pub(super) fn usermode(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let ty = self.c_int("uint8_t");
        if let Some(p) = self.clause_probes.iter().find(|p| !has_registers(p.attach)) {
            return Ok(TExpr::new(Expr::Int((probe_type(p) == "special") as i64), ty));
        }
        let cs = Expr::IntCall { f: IntFn::ProbeReg(CS_WORD), args: Vec::new() };
        let level = Expr::Binary(BinOp::BitAnd, Box::new(cs), Box::new(Expr::Int(3)));
        Ok(TExpr::new(Expr::Binary(BinOp::Eq, Box::new(level), Box::new(Expr::Int(3))), ty))
    }

    /// `is_integer(e)`, `is_str(e)`, ...: what e's type is, a constant; e is checked, not run.
    pub(super) fn type_test(&mut self, f: &builtins::BuiltinFn, test: TypeTest, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let yes = match test {
            TypeTest::Literal => is_literal(&args[0]),
            _ => {
                let t = self.typed(&args[0])?;
                let real = self.types.real(t.ty).map_err(|e| ctypes::no_types(&args[0].span, e))?;
                let int = matches!(real, crate::types::Type::Int(_) | crate::types::Type::Enum { .. });
                match test {
                    TypeTest::Integer => int,
                    TypeTest::Unsigned => int && self.is_unsigned(t.ty),
                    TypeTest::Str => matches!(real, crate::types::Type::String { .. }),
                    TypeTest::Pointer => matches!(real, crate::types::Type::Ptr { .. }),
                    TypeTest::Array => matches!(real, crate::types::Type::Array { .. }),
                    TypeTest::Literal => unreachable!("read from the syntax"),
                }
            }
        };
        Ok(TExpr::new(Expr::Int(yes as i64), self.int()))
    }

    /// `find(@map, key, $var)`: 1 and the element stored in `$var` if the map has one at
    /// `key`, else 0 and `$var` as it was.
    pub(super) fn find(&mut self, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        let usage = "write find(@map, key, $var): @map a map of values with keys, $var a scratch variable";
        // A tuple key is its elements by now (tuples.rs): find(@m, k1, k2, ..., $v).
        let [map @ ast::Expr { kind: ExprKind::Agg(a), .. }, keys @ .., var] = args else {
            let at = if args.len() >= 3 { args[0].span.clone() } else { span.clone() };
            let message = if args.len() >= 3 { "find() takes a map first".to_string() } else { format!("find() takes 3 arguments, but {} given", args.len()) };
            return Err(Diagnostic::new(at, message).label("not find(@map, key, $var)").hint(usage));
        };
        if keys.is_empty() {
            return Err(Diagnostic::new(span.clone(), format!("find() takes 3 arguments, but {} given", args.len())).label("not find(@map, key, $var)").hint(usage));
        }
        if !a.keys.is_empty() {
            return Err(Diagnostic::new(a.span.clone(), "find() takes a whole map").label("keys given").hint(format!("write find(@{}, key, $var)", a.name)));
        }
        let ExprKind::ClauseLocal(name) = &var.kind else {
            return Err(Diagnostic::new(var.span.clone(), "find() stores the element in a scratch variable").label("not a scratch variable").hint(usage));
        };
        if !name.starts_with('$') {
            return Err(Diagnostic::new(var.span.clone(), "find() stores the element in a scratch variable").label("not a scratch variable").hint(usage));
        }
        self.refuse_aggregation(a, |func| format!("find() reads a map of values; @{} holds {func}()", a.name), "aggregations cannot be read: store values with `@m[key] = value;` to find them".to_string())?;
        let array = self.map_array(a)?;
        if matches!(self.arrays[array].keys.as_deref(), Some([])) {
            return Err(Diagnostic::new(a.span.clone(), "call to find expects a map with explicit keys (non-scalar map)")
                .label("a map without keys")
                .hint(format!("read it whole: `$v = @{};`", a.name)));
        }
        let has = self.has_key(&std::iter::once(map.clone()).chain(keys.iter().cloned()).collect::<Vec<_>>(), span)?;
        let element = ast::Expr { kind: ExprKind::Agg(ast::AggRef { name: a.name.clone(), keys: keys.to_vec(), span: a.span.clone() }), span: map.span.start..keys[keys.len() - 1].span.end };
        let target = LValue::ClauseLocal(ast::Ident { name: name.clone(), span: var.span.clone() }, var.span.clone());
        let store = self.assign(&target, None, Some(&element), 0, span)?;
        let found = Expr::Seq(store, Box::new(Expr::Int(1)));
        Ok(TExpr::new(Expr::Ternary(Box::new(has.expr), Box::new(found), Box::new(Expr::Int(0))), self.int()))
    }

    /// `fail(format, literals...)`: a compile error, its message printf's text.
    pub(super) fn fail(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<(), Diagnostic> {
        check_arity(f, args, span)?;
        let pieces = self.format(&args[0], "fail()")?;
        let convs: Vec<&printf::Conv> = printf::conversions(&pieces).collect();
        if convs.len() != args.len() - 1 {
            return Err(Diagnostic::new(span.clone(), format!("fail() format has {} conversion(s) but {} argument(s) follow", convs.len(), args.len() - 1))
                .label("argument count differs")
                .hint("give one argument per % conversion (%% prints a percent sign)"));
        }
        let mut values = Vec::new();
        for a in &args[1..] {
            let v = self.value(a)?;
            values.push(match v.expr {
                Expr::Str(StrExpr::Const(id)) => Literal::Str(self.strings.resolve(id)),
                e => match crate::ir::fold::constant(&e, &self.strings) {
                    Some(n) => Literal::Int(n, self.is_unsigned(v.ty)),
                    None => {
                        return Err(Diagnostic::new(a.span.clone(), "fail()'s arguments must be known when compiling")
                            .label("known only when the probe fires")
                            .hint("fail() stops the compilation: give it literals, constants or positional parameters ($1)"))
                    }
                },
            });
        }
        for (c, (v, a)) in convs.iter().zip(values.iter().zip(&args[1..])) {
            let is_str = matches!(v, Literal::Str(_));
            if matches!(c.arg_kind(), printf::ArgKind::Str) != is_str {
                return Err(Diagnostic::new(a.span.clone(), format!("%{} cannot print {}", c.conv, if is_str { "a string" } else { "an integer" }))
                    .label("wrong type")
                    .hint(if is_str { "use %s for strings" } else { "use %d for integers" }));
            }
        }
        Err(Diagnostic::new(span.clone(), format_literals(&pieces, &values))
            .label("fail() reached")
            .hint("fail() stops the compilation wherever it is reached: put it in a branch of an `if` whose condition is known when compiling (is_str($x), $1 < 2, ...) and leaves it out"))
    }

    /// `static_assert(cond, msg)`: a compile error with message `msg` where `cond`, known
    /// when compiling, is 0.
    pub(super) fn static_assert(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<(), Diagnostic> {
        check_arity(f, args, span)?;
        let ExprKind::Str(msg) = &args[1].kind else {
            return Err(Diagnostic::new(args[1].span.clone(), "static_assert() takes a string literal as its message").label("not a string literal").hint("write static_assert(cond, \"what must hold\")"));
        };
        let cond = self.condition(&args[0], "static_assert()'s condition")?;
        match crate::ir::fold::constant(&cond, &self.strings) {
            Some(0) => Err(Diagnostic::new(span.clone(), msg.value.clone()).label("static_assert() failed").hint("the condition is 0 when compiling")),
            Some(_) => Ok(()),
            None => Err(Diagnostic::new(args[0].span.clone(), "static_assert()'s condition must be known when compiling")
                .label("known only when the probe fires")
                .hint("test constants, positional parameters ($1) or types (is_str($x)); test values when the probe fires with assert(cond, msg)")),
        }
    }

    /// `assert(cond, msg)`: `if (!cond) { errorf("assert failed: %s", msg); exit(1); }`, as
    /// bpftrace's standard library defines it, with the message at the assert's place.
    pub(super) fn assert(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
        check_arity(f, args, span)?;
        let expr = |kind: ExprKind| ast::Expr { kind, span: span.clone() };
        let ident = |name: &str| ast::Ident { name: name.into(), span: span.clone() };
        let format = "assert failed: %s";
        let format = ast::StrLit { value: format.into(), origin: vec![span.start as u32; format.len() + 1] };
        let errorf = expr(ExprKind::Call(ident("errorf"), vec![expr(ExprKind::Str(format)), args[1].clone()]));
        let int = crate::types::IntType { name: "int".into(), size: 4, signed: true, char: false, bool: false };
        let exit = expr(ExprKind::Call(ident("exit"), vec![expr(ExprKind::Int(1, int))]));
        let failed = expr(ExprKind::Unary(UnOp::Not, Box::new(args[0].clone())));
        let stmt = ast::Stmt::If { cond: failed, then: vec![ast::Stmt::Expr(errorf), ast::Stmt::Expr(exit)], els: None, span: span.clone() };
        self.stmt(&stmt, body, items)
    }
}

/// Whether an expression is written as a literal: a number (negated too), a string, `true`
/// or `false`.
fn is_literal(e: &ast::Expr) -> bool {
    match &e.kind {
        ExprKind::Int(..) | ExprKind::Str(_) => true,
        ExprKind::Ident(b) => b == "true" || b == "false",
        ExprKind::Unary(UnOp::Neg | UnOp::Plus, inner) => matches!(inner.kind, ExprKind::Int(..)),
        _ => false,
    }
}

/// A literal argument of `fail()`.
enum Literal {
    /// The value, and whether its type is unsigned.
    Int(i64, bool),
    Str(String),
}

/// What printf would print of literal arguments (fail()'s message, made when compiling).
fn format_literals(pieces: &[printf::Piece], values: &[Literal]) -> String {
    let mut out = String::new();
    let mut values = values.iter();
    for p in pieces {
        match p {
            printf::Piece::Lit(s) => out.push_str(s),
            printf::Piece::Conv(c) => {
                let text = match values.next() {
                    Some(Literal::Str(s)) => match c.precision {
                        Some(n) => s.chars().take(n).collect(),
                        None => s.clone(),
                    },
                    Some(Literal::Int(n, unsigned)) => match c.conv {
                        'x' | 'p' => format!("{:x}", *n as u64),
                        'X' => format!("{:X}", *n as u64),
                        'o' => format!("{:o}", *n as u64),
                        'u' => (*n as u64).to_string(),
                        'c' => char::from(*n as u8).to_string(),
                        _ if *unsigned => (*n as u64).to_string(),
                        _ => n.to_string(),
                    },
                    None => String::new(),
                };
                let width = c.width.unwrap_or(0);
                let pad = width.saturating_sub(text.chars().count());
                if c.has_flag('-') {
                    out.push_str(&text);
                    out.extend(std::iter::repeat_n(' ', pad));
                } else {
                    let fill = if c.has_flag('0') && !matches!(c.arg_kind(), printf::ArgKind::Str) { '0' } else { ' ' };
                    match (fill, text.strip_prefix('-')) {
                        ('0', Some(digits)) => {
                            out.push('-');
                            out.extend(std::iter::repeat_n('0', pad));
                            out.push_str(digits);
                        }
                        _ => {
                            out.extend(std::iter::repeat_n(fill, pad));
                            out.push_str(&text);
                        }
                    }
                }
            }
        }
    }
    out
}
