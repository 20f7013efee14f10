//! Expressions: names, types and operators, lowered to typed IR expressions.

use super::*;

impl Checker<'_> {
    pub(super) fn int_expr(&mut self, e: &ast::Expr, what: &str) -> Result<Expr, Diagnostic> {
        let v = self.expr(e)?;
        if v.repr() != Repr::Int {
            let hint = if v.repr() == Repr::Stack { "a stack can be an aggregation key (@[stack()] = count()) or traced (stack();)" } else { "compare strings with == or !=, e.g. execname == \"cat\"" };
            return Err(Diagnostic::new(e.span.clone(), format!("{what} must be an integer, but this is {}", v.repr().describe()))
                .label(v.repr().describe())
                .hint(hint));
        }
        Ok(v)
    }

    pub(super) fn expr(&mut self, e: &ast::Expr) -> Result<Expr, Diagnostic> {
        if self.is_typed_form(e) {
            return self.lower_typed(e);
        }
        Ok(match &e.kind {
            ExprKind::Cast(..) | ExprKind::Member { .. } | ExprKind::Index(..) | ExprKind::Deref(_) | ExprKind::AddrOf(_) | ExprKind::SizeofType(_) | ExprKind::SizeofExpr(_) | ExprKind::Offsetof(..) => unreachable!("typed forms are checked by lower_typed"),
            ExprKind::Int(v) => Expr::Int(*v),
            ExprKind::Str(s) => Expr::Str(StrExpr::Const(self.strings.intern(&s.value))),
            ExprKind::Ident(name) => {
                if let Some(v) = builtins::variable(name) {
                    match (v.ty, v.hook) {
                        (VarType::Int, h) => Expr::Var(h),
                        (VarType::Str, VarHook::Comm) => Expr::Str(StrExpr::Comm),
                        (VarType::Str, h) => Expr::Str(StrExpr::Probe(h)),
                        (VarType::Kernel(_), _) => unreachable!("typed builtins are checked by lower_typed"),
                    }
                } else if let Some((v, _)) = self.types.enum_constant(name) {
                    Expr::Int(v)
                } else if let Some(g) = self.globals.iter().position(|g| g == name) {
                    Expr::Global(g)
                } else if let Some((v, _)) = self.types.kernel_enum_constant(name) {
                    Expr::Int(v)
                } else {
                    let mut d = Diagnostic::new(e.span.clone(), format!("unknown variable `{name}`")).label("not a builtin and never assigned");
                    let mut names: Vec<&str> = builtins::variable_names().collect();
                    names.extend(self.globals.iter().map(String::as_str));
                    d = match closest(name, names) {
                        Some(c) => d.hint(format!("did you mean `{c}`?")),
                        None => d.hint("builtins include execname, pid, tid, timestamp, probefunc, arg0..arg5; globals are declared by assigning them"),
                    };
                    return Err(d);
                }
            }
            ExprKind::Macro(m) => match (m.as_str(), self.opts.target) {
                ("target", Some(pid)) => Expr::Int(pid),
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
                        Some(v) if !as_string && n > 0 => Expr::Int(v),
                        _ => Expr::Str(StrExpr::Const(self.strings.intern(value))),
                    }
                }
                _ => {
                    return Err(Diagnostic::new(e.span.clone(), format!("unknown macro variable `${m}`"))
                        .label("not defined")
                        .hint("crumbs knows $target (the -c command or -p process), $0 and $1, $2, ... (the arguments after the script)"))
                }
            },
            ExprKind::ArgsField(n) => self.args_field(n, &e.span)?,
            ExprKind::ThreadLocal(n) => match self.thread_locals.iter().position(|t| t == n) {
                Some(t) => Expr::ThreadLocal(t),
                None => {
                    return Err(Diagnostic::new(e.span.clone(), format!("thread-local variable `self->{n}` is never assigned"))
                        .label("no value anywhere")
                        .hint(format!("assign it in some clause first, e.g. `self->{n} = timestamp;`")))
                }
            },
            ExprKind::ClauseLocal(n) => match self.clause_locals.iter().position(|t| t == n) {
                Some(l) => Expr::ClauseLocal(l),
                None => return Err(unassigned_local(n, &e.span)),
            },
            ExprKind::Agg(a) => {
                return Err(Diagnostic::new(a.span.clone(), "an aggregation cannot be read in an expression")
                    .label("aggregations are write-only in D")
                    .hint("print it with printa() or at exit"))
            }
            ExprKind::Call(name, args) if builtins::function(&name.name).is_some_and(|f| f.hook == FnHook::StringOf) => {
                let f = builtins::function(&name.name).expect("checked");
                check_arity(f, args, &e.span)?;
                self.string_of(&args[0])?
            }
            ExprKind::Call(name, args) if builtins::function(&name.name).is_some_and(|f| f.hook == FnHook::CopyInStr) => {
                let f = builtins::function(&name.name).expect("checked");
                check_arity(f, args, &e.span)?;
                let addr = self.int_expr(&args[0], &format!("the address given to {}()", f.name))?;
                Expr::Str(StrExpr::UserStr(Box::new(addr)))
            }
            ExprKind::Call(name, args) if builtins::function(&name.name).is_some_and(|f| f.kind == FnKind::Subroutine) => {
                if !args.is_empty() {
                    return Err(Diagnostic::new(e.span.clone(), format!("{}() takes no arguments", name.name))
                        .label("wrong number of arguments")
                        .hint("write stack(); a frame count is not supported yet"));
                }
                self.uses_stack = true;
                Expr::Stack
            }
            ExprKind::Call(name, _) => {
                return Err(match builtins::function(&name.name) {
                    Some(f) => Diagnostic::new(e.span.clone(), format!("`{}()` has no value", f.name))
                        .label("used as a value")
                        .hint(match f.kind {
                            FnKind::Aggregating => format!("assign it to an aggregation: `@name = {}`", f.signature),
                            FnKind::Action | FnKind::Subroutine => format!("call {}() as a statement of its own", f.name),
                        }),
                    None => unknown_function(name),
                })
            }
            ExprKind::Unary(op, inner) => {
                let v = self.int_expr(inner, &format!("the operand of `{}`", unop_symbol(*op)))?;
                match (op, &v) {
                    (UnOp::Neg, Expr::Int(n)) => Expr::Int(n.wrapping_neg()),
                    (UnOp::Plus, _) => v,
                    _ => Expr::Unary(*op, Box::new(v)),
                }
            }
            ExprKind::Binary(op, l, r) => {
                let (lv, rv) = (self.expr(l)?, self.expr(r)?);
                // A kernel `char *` compared with or added to an integer is a pointer.
                let (lv, rv) = match (lv, rv) {
                    (Expr::Str(StrExpr::KernelStr(a)), rv) if rv.repr() == Repr::Int => (*a, rv),
                    (lv, Expr::Str(StrExpr::KernelStr(b))) if lv.repr() == Repr::Int => (lv, *b),
                    pair => pair,
                };
                match (lv, rv) {
                    (Expr::Str(a), Expr::Str(b)) if op.is_comparison() => {
                        let relational = !matches!(op, BinOp::Eq | BinOp::Ne);
                        let probe = matches!(a, StrExpr::Probe(_)) || matches!(b, StrExpr::Probe(_));
                        if relational && probe {
                            return Err(Diagnostic::new(e.span.clone(), "probe names can only be compared with == and !=")
                                .label("ordering not supported")
                                .hint("compare with == or != instead"));
                        }
                        let copied = |s: &StrExpr| matches!(s, StrExpr::Comm | StrExpr::TpField(_) | StrExpr::UserStr(_) | StrExpr::KernelStr(_));
                        let name_vs_const = (copied(&a) && matches!(b, StrExpr::Const(_))) || (matches!(a, StrExpr::Const(_)) && copied(&b));
                        if a.repr() == Repr::Buf && b.repr() == Repr::Buf {
                            return Err(Diagnostic::new(e.span.clone(), "comparing two copied strings is not supported yet")
                                .label("unsupported comparison")
                                .hint("compare each with a string literal"));
                        }
                        if a.repr() == Repr::Comm && b.repr() == Repr::Comm && a != b {
                            return Err(Diagnostic::new(e.span.clone(), "comparing two different names is not supported yet")
                                .label("unsupported comparison")
                                .hint("compare each with a string literal"));
                        }
                        if a.repr() != b.repr() && !name_vs_const {
                            return Err(Diagnostic::new(e.span.clone(), "cannot compare a process name with a probe name")
                                .label("unsupported comparison")
                                .hint("compare execname with a string literal, e.g. execname == \"cat\""));
                        }
                        Expr::StrCmp(*op, a, b)
                    }
                    (lv, rv) if lv.repr() == Repr::Int && rv.repr() == Repr::Int => Expr::Binary(*op, Box::new(lv), Box::new(rv)),
                    (lv, _) => {
                        let bad = if lv.repr() != Repr::Int { l } else { r };
                        return Err(Diagnostic::new(bad.span.clone(), format!("operator `{}` needs {}", op.symbol(), if op.is_comparison() { "two integers or two strings" } else { "integers" }))
                            .label("this is a string")
                            .hint(if op.is_comparison() { "compare strings with strings and integers with integers" } else { "arithmetic works on integers only" }));
                    }
                }
            }
            ExprKind::Ternary(c, a, b) => {
                let c = self.int_expr(c, "a condition")?;
                let a = self.int_expr(a, "a branch of ?:")?;
                let b = self.int_expr(b, "a branch of ?:")?;
                Expr::Ternary(Box::new(c), Box::new(a), Box::new(b))
            }
        })
    }
}
