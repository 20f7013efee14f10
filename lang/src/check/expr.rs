//! Expressions: names, types and operators, lowered to typed IR expressions.

use super::*;
use crate::types::{Type, TypeId};

impl Checker<'_> {
    pub(super) fn int_expr(&mut self, e: &ast::Expr, what: &str) -> Result<Expr, Diagnostic> {
        Ok(self.int_value(e, what)?.expr)
    }

    pub(super) fn expr(&mut self, e: &ast::Expr) -> Result<Expr, Diagnostic> {
        Ok(self.value(e)?.expr)
    }

    /// An integer operand with its C type.
    pub(super) fn int_value(&mut self, e: &ast::Expr, what: &str) -> Result<TExpr, Diagnostic> {
        let v = self.value(e)?;
        self.int_expr_check(&v.expr, e, what)?;
        Ok(v)
    }

    pub(super) fn int_expr_check(&self, v: &Expr, e: &ast::Expr, what: &str) -> Result<(), Diagnostic> {
        if !v.is_int() {
            let hint = match v.repr() {
                r if r.printed_only() => symbols::printed_only_hint(r),
                _ => "compare strings with == or !=, e.g. execname == \"cat\"",
            };
            return Err(Diagnostic::new(e.span.clone(), format!("{what} must be an integer, but this is {}", v.repr().describe()))
                .label(v.repr().describe())
                .hint(hint));
        }
        Ok(())
    }

    /// Any expression, checked and lowered, with its C type. A kernel `char [N]` or
    /// `char *` is a string here (see [`Checker::lower_typed`]).
    pub(super) fn value(&mut self, e: &ast::Expr) -> Result<TExpr, Diagnostic> {
        // Each level of nesting takes several frames; expressions nest up to the parser's
        // limit, so the stack grows on demand rather than overflowing a small thread stack.
        stacker::maybe_grow(128 * 1024, 2 * 1024 * 1024, || self.lower_typed(e))
    }

    /// The forms that are not C-typed places: constants, names, calls, operators.
    pub(super) fn plain(&mut self, e: &ast::Expr) -> Result<TExpr, Diagnostic> {
        let string = self.c_string();
        // argN at a stable probe is its own argument (and __tp_argN its tracepoint's).
        if let ExprKind::Ident(name) = &e.kind {
            if let Some(v) = self.stable_ident(name, &e.span)? {
                return Ok(v);
            }
        }
        Ok(match &e.kind {
            ExprKind::Cast(..) | ExprKind::Member { .. } | ExprKind::Index(..) | ExprKind::Deref(_) | ExprKind::AddrOf(_) | ExprKind::SizeofType(_) | ExprKind::SizeofExpr(_) | ExprKind::Offsetof(..) => unreachable!("typed forms are checked by typed()"),
            ExprKind::Xlate(..) => return Err(translators::whole_translation(&e.span)),
            ExprKind::Block(..) => return Err(crate::macros::block_not_here(&e.span)),
            ExprKind::TypeArg(_) => {
                return Err(Diagnostic::new(e.span.clone(), "When used as a call argument, `typeof` builtin only valid for macro calls that are expecting a type parameter")
                    .label("a type, not a value")
                    .hint("use typeof() where a type goes: a cast `(typeof($b))x`, `let $a: typeof($b);`, sizeof(), or a macro's argument"))
            }
            ExprKind::Comptime(inner) => return self.comptime(inner, &e.span),
            ExprKind::Call(f, _) if f.name == "typeinfo" && self.bpftrace() => return Err(typeinfo::whole(&e.span)),
            ExprKind::Record(_) => {
                return Err(Diagnostic::new(e.span.clone(), "a record cannot be used here")
                    .label("a record")
                    .hint("a record can be stored in a scratch variable, compared with == or !=, or printed with print(); read a field with $r.name"))
            }
            ExprKind::Tuple(_) => {
                return Err(Diagnostic::new(e.span.clone(), "a tuple cannot be used here")
                    .label("a tuple")
                    .hint("a whole tuple can be stored in a scratch variable, used as a map's keys, compared with == or !=, or printed with print(); read one of its elements with $t.0"))
            }
            ExprKind::Int(v, t) => TExpr::new(Expr::Int(*v), self.types.int_of(t.clone())),
            ExprKind::Str(s) => TExpr::new(Expr::Str(StrExpr::Const(self.strings.intern(&s.value))), string),
            ExprKind::Ident(name) if name == "retval" => self.retval(&e.span)?,
            ExprKind::Ident(name) => {
                if let Some(v) = builtins::variable(name, self.dialect()) {
                    match (v.ty, v.hook) {
                        // The probe's id, named when printed.
                        (_, VarHook::BpftraceProbe) => TExpr::new(Expr::Probe, string),
                        (_, VarHook::Username) => {
                            let uid = Expr::Var(VarHook::Kernel(builtins::KernelValue::UidGid, builtins::Part::Low32));
                            TExpr::new(Expr::Named(crate::ir::NameOf::User, Box::new(uid)), string)
                        }
                        (_, VarHook::StackArg(n)) => self.stack_arg(name, n, &e.span)?,
                        (_, VarHook::Target) => self.plain(&ast::Expr { kind: ExprKind::Macro("target".into()), span: e.span.clone() })?,
                        (_, VarHook::Elapsed | VarHook::Call(_)) | (VarType::Stack, _) => unreachable!("the parser makes bpftrace's {name} an expression"),
                        (VarType::Int(c), h) => TExpr::new(Expr::Var(h), self.c_int(c)),
                        (VarType::Str, VarHook::Comm) => TExpr::new(Expr::Str(StrExpr::Comm), string),
                        (VarType::Str, VarHook::Cwd) => TExpr::new(Expr::Str(StrExpr::Cwd { offsets: self.cwd_offsets(&e.span)?, size: self.strsize }), string),
                        (VarType::Str, VarHook::ProbeFunc) if name == "func" && self.bpftrace() && self.clause_on_fbt() => self.function_symbol(),
                        (VarType::Str, h) => TExpr::new(Expr::Str(StrExpr::Probe(h)), string),
                        (VarType::Kernel(_), _) => unreachable!("typed builtins are checked by typed()"),
                    }
                } else if let Some(v) = self.inline_value(name, &e.span) {
                    v?
                } else if let Some((v, ty)) = self.types.enum_constant(name) {
                    TExpr::new(Expr::Int(v), ty)
                } else if let Some(k) = builtins::constant(name) {
                    TExpr::new(Expr::Int(k.value), self.c_int(k.c_type))
                } else if let Some(g) = self.globals.iter().position(|g| g == name) {
                    self.var_expr(VarRef::Global(g), Vec::new())
                } else if let Some((v, ty)) = self.types.kernel_enum_constant(name) {
                    TExpr::new(Expr::Int(v), ty)
                } else if self.array(name, false).is_some() {
                    return Err(unindexed_array(name, &e.span));
                } else {
                    let mut d = Diagnostic::new(e.span.clone(), format!("unknown variable `{name}`")).label("not a builtin and never assigned");
                    let mut names: Vec<&str> = builtins::variable_names(self.dialect()).collect();
                    names.extend(self.globals.iter().map(String::as_str));
                    d = match closest(name, names) {
                        Some(c) => d.hint(format!("did you mean `{c}`?")),
                        None if self.bpftrace() => d.hint("builtins include comm, pid, tid, nsecs, func, probe, retval, arg0..arg9 and args; scratch variables are $name, maps @name"),
                        None => d.hint("builtins include execname, pid, tid, timestamp, probefunc, arg0..arg9; globals are declared by assigning them"),
                    };
                    return Err(d);
                }
            }
            // bpftrace's $N not given, and $#.
            ExprKind::Macro(m) => match self.bpftrace().then(|| self.positional(m)).flatten() {
                Some(v) => v,
                None => match (m.as_str(), self.opts.target) {
                    ("target", Some(pid)) => TExpr::new(Expr::Int(pid), self.c_int("pid_t")),
                    // As D's lexer reads them: integer constants, typed as C types a literal.
                    (m, _) if self.opts.ids.get(m).is_some() => {
                        let v = self.opts.ids.get(m).expect("checked");
                        let ty = crate::types::literal_type(v as u64, true, false, false);
                        TExpr::new(Expr::Int(v), self.types.int_of(ty))
                    }
                    ("target", None) => {
                        return Err(Diagnostic::new(e.span.clone(), "$target is not set")
                            .label("needs a target process")
                            .hint("run with -c 'command' or -p PID"))
                    }
                    (m, _) if m.trim_start_matches('$').chars().all(|c| c.is_ascii_digit()) => {
                        let as_string = m.starts_with('$');
                        let n: usize = m.trim_start_matches('$').parse().unwrap_or(usize::MAX);
                        let Some(value) = self.opts.args.get(n) else {
                            return Err(Diagnostic::new(e.span.clone(), format!("macro argument `${m}` is not given"))
                                .label("no such argument")
                                .hint(format!("pass {} argument(s) after the script: crumbs -s script.d ARG...", n.max(1))));
                        };
                        match crate::parse::integer_literal(value) {
                            Some(v) if !as_string && n > 0 => TExpr::new(Expr::Int(v), self.long()),
                            _ => TExpr::new(Expr::Str(StrExpr::Const(self.strings.intern(value))), string),
                        }
                    }
                    _ => {
                        return Err(Diagnostic::new(e.span.clone(), format!("unknown macro variable `${m}`"))
                            .label("not defined")
                            .hint("crumbs knows $target (the -c command or -p process), $pid, $ppid, $pgid, $sid, $uid, $euid, $gid, $egid (crumbs' own), $0 and $1, $2, ... (the arguments after the script)"))
                    }
                },
            },
            ExprKind::ArgsField(n) => self.args_field(n, &e.span)?,
            ExprKind::ThreadLocal(n) => match self.thread_locals.iter().position(|t| t == n) {
                Some(t) => self.var_expr(VarRef::Thread(t), Vec::new()),
                None if self.array(n, true).is_some() => return Err(unindexed_array(&format!("self->{n}"), &e.span)),
                None => {
                    return Err(Diagnostic::new(e.span.clone(), format!("thread-local variable `self->{n}` is never assigned"))
                        .label("no value anywhere")
                        .hint(format!("assign it in some clause first, e.g. `self->{n} = timestamp;`")))
                }
            },
            ExprKind::ClauseLocal(n) => match self.clause_locals.iter().position(|t| t == n).or_else(|| self.declared_local(n)) {
                Some(l) => self.var_expr(VarRef::Clause(l), Vec::new()),
                None => return Err(unassigned_local(n, &e.span)),
            },
            ExprKind::Agg(a) => {
                return Err(Diagnostic::new(a.span.clone(), "an aggregation cannot be read in an expression")
                    .label("aggregations are write-only in D")
                    .hint("print it with printa() or at exit"))
            }
            ExprKind::Call(name, args) => self.call_value(name, args, &e.span, string)?,
            ExprKind::Unary(op, inner) => {
                let v = self.int_value(inner, &format!("the operand of `{}`", unop_symbol(*op)))?;
                // `!` gives an int; `-`, `~` and `+` the operand's type, promoted.
                let ty = match op {
                    UnOp::Not => self.int(),
                    _ => self.promoted(v.ty),
                };
                let expr = match (op, v.expr) {
                    (UnOp::Neg, Expr::Int(n)) => Expr::Int(n.wrapping_neg()),
                    (UnOp::Plus, x) => x,
                    (op, x) => Expr::Unary(*op, Box::new(x)),
                };
                TExpr::new(expr, ty)
            }
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r)?,
            ExprKind::Assign { target, op, value } => self.assign_value(target, *op, Some(value), 0, false, &e.span)?,
            ExprKind::IncDec { target, delta, post } => self.assign_value(target, None, None, *delta, *post, &e.span)?,
            ExprKind::Ternary(c, a, b) => {
                let c = self.int_expr(c, "a condition")?;
                let (av, bv) = (self.value(a)?, self.value(b)?);
                if let (Expr::Str(x), Expr::Str(y)) = (&av.expr, &bv.expr) {
                    let (x, y) = self.same_layout(x.clone(), y.clone());
                    return Ok(TExpr::new(Expr::Str(StrExpr::Ternary(Box::new(c), Box::new(x), Box::new(y))), string));
                }
                self.int_expr_check(&av.expr, a, "a branch of ?: whose other branch is an integer")?;
                self.int_expr_check(&bv.expr, b, "a branch of ?: whose other branch is an integer")?;
                let ty = self.common_type(av.ty, bv.ty);
                TExpr::new(Expr::Ternary(Box::new(c), Box::new(av.expr), Box::new(bv.expr)), ty)
            }
        })
    }

    /// Two strings that become one value (the branches of `?:`): both ids, or both in
    /// buffers of one size (an id then laid out as a `strsize` buffer).
    fn same_layout(&mut self, a: StrExpr, b: StrExpr) -> (StrExpr, StrExpr) {
        let (ra, rb) = (a.repr(), b.repr());
        if ra == rb {
            return (a, b);
        }
        let size = if ra == Repr::StrId || rb == Repr::StrId { self.strsize } else { ra.size().max(rb.size()) as u32 };
        (self.in_buffer(a, size), self.in_buffer(b, size))
    }

    /// String `s` in a buffer of `size` bytes: constants padded, buffers converted.
    pub(super) fn in_buffer(&mut self, s: StrExpr, size: u32) -> StrExpr {
        match s {
            StrExpr::Const(id) => StrExpr::Padded { id, size },
            s if s.repr() == Repr::Str(size) => s,
            s => StrExpr::Call { f: StrFn::Copy, args: vec![StrArg::Str(s)], size },
        }
    }

    /// `l op r` of two values.
    fn binary(&mut self, op: BinOp, l: &ast::Expr, r: &ast::Expr) -> Result<TExpr, Diagnostic> {
        if let Some(v) = self.address_compare(op, l, r)? {
            return Ok(v);
        }
        if let Some(v) = self.arrays_compare(op, l, r)? {
            return Ok(v);
        }
        let (lv, rv) = (self.value(l)?, self.value(r)?);
        for (v, e) in [(&lv, l), (&rv, r)] {
            if v.expr.repr().printed_only() {
                self.int_expr_check(&v.expr, e, &format!("an operand of `{}`", op.symbol()))?;
            }
        }
        if let Some(v) = self.null_compare(op, &lv, &rv, l, r) {
            return Ok(v);
        }
        self.combine(op, lv, rv, &l.span, &r.span)
    }

    /// `s == NULL` and `s != NULL` of a D string (not a kernel `char *`, which is a
    /// pointer): a subroutine that finds nothing gives "" where DTrace gives NULL
    /// (strtok(), strstr(), strchr(), ...), so they compare the string with "".
    fn null_compare(&mut self, op: BinOp, lv: &TExpr, rv: &TExpr, l: &ast::Expr, r: &ast::Expr) -> Option<TExpr> {
        if !matches!(op, BinOp::Eq | BinOp::Ne) {
            return None;
        }
        let null = |e: &ast::Expr| matches!(&e.kind, ExprKind::Ident(n) if n == "NULL");
        let s = match (&lv.expr, &rv.expr) {
            (Expr::Str(s), _) if null(r) => s,
            (_, Expr::Str(s)) if null(l) => s,
            _ => return None,
        };
        if matches!(s, StrExpr::KernelStr(..)) {
            return None;
        }
        let empty = StrExpr::Const(self.strings.intern(""));
        let int = self.int();
        Some(TExpr::new(Expr::StrCmp(op, s.clone(), empty), int))
    }

    /// `lv op rv`, typed by C's rules: the usual arithmetic conversions, pointer arithmetic
    /// scaled by the size of what the pointer points at, comparisons giving an `int`.
    pub(super) fn combine(&mut self, op: BinOp, lv: TExpr, rv: TExpr, lspan: &Span, rspan: &Span) -> Result<TExpr, Diagnostic> {
        if op.is_comparison() {
            if let Some((why, hint)) = self.pointer_mismatch(lv.ty, rv.ty) {
                return Err(Diagnostic::new(rspan.clone(), format!("operator `{}`: {why}", op.symbol())).label("incompatible pointer").hint(hint));
            }
        } else if !matches!(op, BinOp::Add | BinOp::Sub | BinOp::LogAnd | BinOp::LogOr | BinOp::LogXor) {
            for (v, span) in [(&lv, lspan), (&rv, rspan)] {
                if matches!(self.types.real(v.ty), Ok(Type::Ptr { .. })) {
                    let name = self.types.name(v.ty);
                    return Err(Diagnostic::new(span.clone(), format!("operator `{}` needs integers, but this is a pointer (`{name}`)", op.symbol()))
                        .label("a pointer")
                        .hint("pointers are added to and subtracted from; to compute with the address, cast it: (uintptr_t)p"));
                }
            }
        }
        // A kernel `char *` compared with or added to an integer is a pointer.
        let unwrap = |v: TExpr| match v.expr {
            Expr::Str(StrExpr::KernelStr(a, _)) => TExpr::new(*a, v.ty),
            x => TExpr::new(x, v.ty),
        };
        // Two kernel `char *` (not D strings) are pointers to each other too, as in C.
        let pointer = |cx: &mut Self, v: &TExpr| matches!(v.expr, Expr::Str(StrExpr::KernelStr(..))) && !matches!(cx.types.real(v.ty), Ok(Type::String { .. }));
        let (lp, rp) = (pointer(self, &lv), pointer(self, &rv));
        let (lv, rv) = match (lv.expr.is_int(), rv.expr.is_int()) {
            (false, true) if matches!(lv.expr, Expr::Str(StrExpr::KernelStr(..))) => (unwrap(lv), rv),
            (true, false) if matches!(rv.expr, Expr::Str(StrExpr::KernelStr(..))) => (lv, unwrap(rv)),
            (false, false) if lp && rp => (unwrap(lv), unwrap(rv)),
            _ => (lv, rv),
        };
        let int = self.int();
        if matches!(op, BinOp::Add | BinOp::Sub) && lv.expr.is_int() && rv.expr.is_int() {
            if let Some(v) = self.pointer_arithmetic(op, &lv, &rv, lspan, rspan)? {
                return Ok(v);
            }
        }
        // Current bpftrace's docs: a difference of integers is always an `int64`, unsigned
        // operands' too (`(uint64)1 - (uint64)2` is -1, `(uint32)5 - 10` is -5; C's rules would
        // keep `uint32_t`'s 4294967291). Pointers' are pointer arithmetic, above.
        if op == BinOp::Sub && self.bpftrace() && lv.expr.is_int() && rv.expr.is_int() {
            let (l, r) = (self.own(&lv), self.own(&rv));
            let int64 = self.c_int("int64_t");
            return Ok(TExpr::new(Expr::Binary(op, Box::new(l), Box::new(r)), int64));
        }
        match (lv.expr, rv.expr) {
            (Expr::Str(a), Expr::Str(b)) if op.is_comparison() => Ok(TExpr::new(Expr::StrCmp(op, a, b), int)),
            (_, Expr::Int(0)) if matches!(op, BinOp::Div | BinOp::Rem) => Err(Diagnostic::new(rspan.clone(), "expression contains division by zero")
                .label("always zero")
                .hint(format!("`{}` by a variable that is zero when the probe fires is a run-time error instead (the ERROR probe fires)", op.symbol()))),
            (le, re) if le.is_int() && re.is_int() => {
                let (lt, rt) = (lv.ty, rv.ty);
                let (ty, unsigned) = match op {
                    _ if op.is_comparison() => {
                        let common = self.common_type(lt, rt);
                        (int, self.is_unsigned(common))
                    }
                    BinOp::LogAnd | BinOp::LogOr | BinOp::LogXor => (int, false),
                    // A shift has the type of its left operand, promoted.
                    BinOp::Shl | BinOp::Shr => {
                        let t = self.promoted(lt);
                        (t, self.is_unsigned(t))
                    }
                    _ => {
                        let t = self.common_type(lt, rt);
                        (t, self.is_unsigned(t))
                    }
                };
                let ordered = matches!(op, BinOp::Div | BinOp::Rem | BinOp::Shr | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
                let expr = if unsigned && ordered { Expr::Unsigned(op, Box::new(le), Box::new(re)) } else { Expr::Binary(op, Box::new(le), Box::new(re)) };
                Ok(TExpr::new(expr, ty))
            }
            (le, _) => {
                let bad = if !le.is_int() { lspan } else { rspan };
                Err(Diagnostic::new(bad.clone(), format!("operator `{}` needs {}", op.symbol(), if op.is_comparison() { "two integers or two strings" } else { "integers" }))
                    .label("this is a string")
                    .hint(if op.is_comparison() { "compare strings with strings and integers with integers" } else { "arithmetic works on integers only" }))
            }
        }
    }

    /// `p + n`, `n + p`, `p - n` (scaled by the pointee's size, a pointer) and `p - q` (the
    /// number of elements between them, a `long`); None if neither operand is a pointer.
    fn pointer_arithmetic(&mut self, op: BinOp, lv: &TExpr, rv: &TExpr, lspan: &Span, rspan: &Span) -> Result<Option<TExpr>, Diagnostic> {
        let elem = |cx: &mut Self, t: TypeId, sp: &Span| -> Result<Option<(TypeId, TypeId)>, Diagnostic> {
            Ok(match cx.types.real(t).map_err(|e| ctypes::no_types(sp, e))? {
                Type::Ptr { to, .. } => Some((to, t)),
                Type::Array { elem, .. } => Some((elem, cx.types.pointer(elem, crate::types::AddrSpace::Kernel))),
                _ => None,
            })
        };
        let (lp, rp) = (elem(self, lv.ty, lspan)?, elem(self, rv.ty, rspan)?);
        let scale = ctypes::scaled;
        Ok(match (lp, rp, op) {
            (Some((to, pty)), None, _) => {
                let size = self.sized(to, lspan)? as i64;
                Some(TExpr::new(Expr::Binary(op, Box::new(lv.expr.clone()), Box::new(scale(rv.expr.clone(), size))), pty))
            }
            (None, Some((to, pty)), BinOp::Add) => {
                let size = self.sized(to, rspan)? as i64;
                Some(TExpr::new(Expr::Binary(op, Box::new(scale(lv.expr.clone(), size)), Box::new(rv.expr.clone())), pty))
            }
            (Some((to, _)), Some(_), BinOp::Sub) => {
                let size = self.sized(to, lspan)? as i64;
                let diff = Expr::Binary(BinOp::Sub, Box::new(lv.expr.clone()), Box::new(rv.expr.clone()));
                let long = self.long();
                Some(TExpr::new(if size == 1 { diff } else { Expr::Binary(BinOp::Div, Box::new(diff), Box::new(Expr::Int(size))) }, long))
            }
            (None, None, _) => None,
            _ => {
                return Err(Diagnostic::new(rspan.clone(), format!("cannot {} two pointers", if op == BinOp::Add { "add" } else { "subtract an integer by" }))
                    .label("a pointer")
                    .hint("add an integer to a pointer, or subtract two pointers"))
            }
        })
    }
}

fn unindexed_array(name: &str, span: &Span) -> Diagnostic {
    Diagnostic::new(span.clone(), format!("`{name}` is an associative array, used here without a key"))
        .label("needs a key")
        .hint(format!("read an element: `{name}[key]`"))
}

impl Checker<'_> {
    /// A function call used as a value: its one lookup in the table, then what its hook
    /// makes of it; an action or aggregating function has no value.
    fn call_value(&mut self, name: &ast::Ident, args: &[ast::Expr], span: &Span, string: TypeId) -> Result<TExpr, Diagnostic> {
        let Some(f) = builtins::function(&name.name, self.dialect()) else { return Err(unknown_function(name, self.dialect())) };
        Ok(match f.hook {
            FnHook::StringOf => {
                check_arity(f, args, span)?;
                TExpr::new(self.string_of(&args[0])?, string)
            }
            FnHook::Str(_) | FnHook::Strlen | FnHook::Int(_) => {
                check_arity(f, args, span)?;
                self.string_call(f, args)?
            }
            FnHook::Kernel(k) => self.kernel_call(f, k, args, span)?,
            FnHook::Bswap => self.bswap(f, args, span)?,
            FnHook::Strcontains => self.strcontains(f, args, span)?,
            FnHook::Strncmp => self.strncmp(f, args, span)?,
            FnHook::PtrSpace(user) => self.pointer_space(f, args, span, user)?,
            FnHook::Ntop => self.ntop(f, args, span)?,
            FnHook::Pton => self.pton(args, span)?,
            FnHook::Macaddr => self.macaddr(f, args, span)?,
            FnHook::Buf => self.buf(f, args, span)?,
            FnHook::Register => self.register(f, args, span)?,
            FnHook::HasKey => self.has_key(args, span)?,
            FnHook::HasCpid => self.has_cpid(f, args, span)?,
            FnHook::IsErr => self.is_err(f, args, span)?,
            FnHook::ProbeType => self.probetype(f, args, span, string)?,
            FnHook::Usermode => self.usermode(f, args, span)?,
            FnHook::TypeTest(t) => self.type_test(f, t, args, span)?,
            FnHook::Find => self.find(args, span)?,
            FnHook::Nsecs => self.nsecs(f, args, span)?,
            FnHook::Memcmp => self.memcmp(f, args, span)?,
            FnHook::Strcap => self.strcap(f, args, span)?,
            FnHook::Kfunc { allowed } => self.kfunc_question(f, args, span, allowed)?,
            FnHook::WriteUser => self.write_user(f, args, span)?,
            FnHook::SocketCookie => self.socket_cookie(f, args, span)?,
            FnHook::CommOfPid => self.comm_of_pid(f, args, span)?,
            FnHook::PercpuKaddr => self.percpu_kaddr(f, args, span)?,
            FnHook::SignalName => {
                check_arity(f, args, span)?;
                let sig = self.int_expr(&args[0], "signal_name()'s signal number")?;
                TExpr::new(Expr::Named(crate::ir::NameOf::Signal, Box::new(sig)), string)
            }
            FnHook::Len => self.map_len(args, span)?,
            FnHook::Strftime => {
                check_arity(f, args, span)?;
                let ExprKind::Str(s) = &args[0].kind else {
                    return Err(Diagnostic::new(args[0].span.clone(), "strftime() takes a format string").label("not a string literal").hint("write strftime(\"%H:%M:%S\", nsecs): strftime(3)'s conversions"));
                };
                let format = self.strings.intern(&s.value) as u32;
                let ns = self.int_expr(&args[1], "strftime()'s time")?;
                TExpr::new(Expr::Strftime { format, ns: Box::new(ns) }, string)
            }
            FnHook::KernelAddr | FnHook::CgroupId => self.compiled_constant(f, args, span)?,
            FnHook::Getopt => self.getopt(args, span)?,
            FnHook::CgroupPath => self.cgroup_path(f, args, span, string)?,
            FnHook::KernelPath => self.kernel_path(f, args, span, string)?,
            FnHook::Strerror => {
                check_arity(f, args, span)?;
                let errno = self.int_expr(&args[0], "strerror()'s error number")?;
                TExpr::new(Expr::Named(crate::ir::NameOf::Errno, Box::new(errno)), string)
            }
            FnHook::SyscallName => {
                check_arity(f, args, span)?;
                let nr = self.int_expr(&args[0], "syscall_name()'s system call number")?;
                let unknown = self.strings.intern("Unknown syscall");
                TExpr::new(Expr::Str(StrExpr::SyscallName { nr: Box::new(nr), unknown }), string)
            }
            FnHook::AnyStr => {
                check_arity(f, args, span)?;
                TExpr::new(self.any_str(args)?, string)
            }
            FnHook::CopyInStr => {
                check_arity(f, args, span)?;
                let addr = self.int_expr(&args[0], &format!("the address given to {}()", f.name))?;
                TExpr::new(Expr::Str(StrExpr::UserStr(Box::new(addr), self.strsize)), string)
            }
            FnHook::Psargs => {
                check_arity(f, args, span)?;
                let task = self.int_expr(&args[0], "the task given to __psargs()")?;
                let offsets = self.psargs_offsets(span)?;
                TExpr::new(Expr::Str(StrExpr::Psargs { task: Box::new(task), offsets }), string)
            }
            FnHook::Alloca | FnHook::CopyIn => self.alloc(f, args, span)?,
            FnHook::Speculation => {
                check_arity(f, args, span)?;
                TExpr::new(Expr::Speculation, self.int())
            }
            _ if f.kind == FnKind::Subroutine => self.stack_or_symbol(f, args, span)?,
            FnHook::Delete if self.bpftrace() => self.delete_value(args, span)?,
            _ => {
                return Err(Diagnostic::new(span.clone(), format!("`{}()` has no value", f.name))
                    .label("used as a value")
                    .hint(match f.kind {
                        FnKind::Aggregating => format!("assign it to an aggregation: `@name = {}`", f.signature),
                        FnKind::Action | FnKind::Subroutine => format!("call {}() as a statement of its own", f.name),
                    }))
            }
        })
    }
}

impl Checker<'_> {
    /// `retval`: at fbt return probes `args[1]` (the function's return type), at syscall
    /// return probes `arg0`; elsewhere an error.
    fn retval(&mut self, span: &Span) -> Result<TExpr, Diagnostic> {
        let all = |cx: &Self, f: &dyn Fn(AttachPoint) -> bool| !cx.clause_probes.is_empty() && cx.clause_probes.iter().all(|p| f(p.attach));
        if all(self, &|a| matches!(a, AttachPoint::FbtReturn(_))) {
            let ident = |n: &str| ast::Expr { kind: ExprKind::Ident(n.into()), span: span.clone() };
            let one = ast::Expr { kind: ExprKind::Int(1, crate::types::IntType { name: "int".into(), size: 4, signed: true, char: false, bool: false }), span: span.clone() };
            return self.value(&ast::Expr { kind: ExprKind::Index(Box::new(ident("args")), vec![one]), span: span.clone() });
        }
        if all(self, &|a| a == AttachPoint::SyscallReturn) {
            return Ok(TExpr::new(Expr::Var(VarHook::Arg(0)), self.c_int("int64_t")));
        }
        // User functions have no prototypes here: arg1, the return register, as a 64-bit value.
        if all(self, &|a| matches!(a, AttachPoint::UserReturn(_))) {
            return Ok(TExpr::new(Expr::Var(VarHook::Arg(1)), self.c_int("int64_t")));
        }
        Err(Diagnostic::new(span.clone(), "`retval` is the value a function returns, read at its return probe")
            .label("not every probe of this clause is a return probe")
            .hint("use it in fbt::FUNC:return (kretprobe:FUNC), syscall::FUNC:return, pid$target::FUNC:return or uretprobe:PATH:FUNC clauses; elsewhere arg0..arg9 or args[N] are the arguments"))
    }
}
