//! Stable providers' probes (proc, sched, io) in a clause: each is its hook, a raw
//! tracepoint or kernel functions, numbered apart from the hook's own probes so its
//! programs name it as the stable probe; the hook's guard is put before the clause's
//! predicate; `args[N]`, `argN` and the translated `args[N]->member` are the probe's
//! definitions (D over the hook's raw arguments, `__tp_argN`), checked where the program
//! uses them.

use super::ctypes::Typed;
use super::*;
use crate::providers::{match_probes_with, provider, At, Probe, StableProbe, STABLE_MODULE};

fn probe_name(p: &Probe) -> String {
    format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name)
}

/// N of `argN` (the probe's own arguments) or of `__tp_argN` (the raw tracepoint's).
fn numbered(name: &str, prefix: &str) -> Option<u8> {
    let n = name.strip_prefix(prefix)?;
    (n.len() == 1).then(|| n.parse().ok()).flatten()
}

impl Checker<'_> {
    /// A probe's stable definition, if its provider is a stable one.
    pub(super) fn stable_def(p: &Probe) -> Option<&'static StableProbe> {
        provider(p.provider)?.stable(p)
    }

    /// The attach points of stable probe `p`: those of the first of its hooks the kernel
    /// has (one raw tracepoint, or every function an fbt hook names).
    pub(super) fn stable_attach(&mut self, opts: &CheckOptions, p: &Probe, def: &'static StableProbe, desc: &ast::ProbeDesc) -> Result<Vec<AttachPoint>, Diagnostic> {
        let what = probe_name(p);
        let Some(facts) = opts.facts.clone() else {
            return Err(Diagnostic::new(desc.span.clone(), format!("{what} is not available here")).label("needs the kernel's BTF").hint("stable providers are built on raw tracepoints and kernel functions, found in /sys/kernel/btf/vmlinux"));
        };
        let cannot = |err: String| Diagnostic::new(desc.span.clone(), format!("cannot read the kernel's hooks for {what}: {err}")).label("here").hint("raw tracepoints and kernel functions are found in the kernel's BTF, /sys/kernel/btf/vmlinux");
        let stable = Some((p.provider, p.name));
        for hook in def.hooks {
            let found: Vec<AttachPoint> = match hook.at {
                At::RawTracepoint(event) => match facts.raw_tracepoint(event).map_err(cannot)? {
                    Some(_) => vec![self.raw_tracepoint(opts, STABLE_MODULE, event, stable, desc)?],
                    None => continue,
                },
                At::Entry(glob) | At::Return(glob) => {
                    let (name, kind) = match hook.at {
                        At::Return(_) => ("return", AttachPoint::FbtReturn(u16::MAX)),
                        _ => ("entry", AttachPoint::FbtEntry(u16::MAX)),
                    };
                    let fbt = ast::ProbeDesc { text: format!("fbt::{glob}:{name}"), fields: vec!["fbt".into(), String::new(), glob.into(), name.into()], span: desc.span.clone() };
                    // A kernel without the function: the next hook.
                    let Ok(functions) = match_probes_with(&fbt, Some(&*facts)) else { continue };
                    let mut found = Vec::with_capacity(functions.len());
                    for f in functions {
                        found.push(self.function(kind, f.module, f.function, stable, (0, None), desc)?);
                    }
                    found
                }
            };
            for a in &found {
                self.stable_hooks.insert(*a, hook);
            }
            return Ok(found);
        }
        let places: Vec<String> = def.hooks.iter().map(|h| match h.at {
            At::RawTracepoint(e) => format!("rawtracepoint:{e}"),
            At::Entry(f) => format!("fbt::{f}:entry"),
            At::Return(f) => format!("fbt::{f}:return"),
        }).collect();
        Err(Diagnostic::new(desc.span.clone(), format!("{what} cannot fire on this kernel: it lacks {}", def.needs))
            .label("not available here")
            .hint(format!("{what} is built on {}; `crumbs -l -e PATTERN` lists what this kernel has", places.join(" or "))))
    }

    /// Whether the clause being checked is on stable probes (then `argN` and `args[N]` are
    /// theirs); an error if it mixes them with other probes.
    pub(super) fn stable_clause(&self, span: &Span) -> Result<bool, Diagnostic> {
        let stable = self.clause_probes.iter().filter(|p| Self::stable_def(p).is_some()).count();
        if stable == 0 {
            return Ok(false);
        }
        if stable < self.clause_probes.len() {
            let (s, o) = (self.clause_probes.iter().find(|p| Self::stable_def(p).is_some()), self.clause_probes.iter().find(|p| Self::stable_def(p).is_none()));
            return Err(Diagnostic::new(span.clone(), format!("the arguments of {} and of {} are not alike", probe_name(s.expect("one")), probe_name(o.expect("one"))))
                .label("arguments read here")
                .hint("split the clause: stable providers' arguments are their own"));
        }
        Ok(true)
    }

    /// The definition of argument `n` shared by every probe of a stable clause, or an error
    /// naming a probe that has none or another.
    fn stable_arg_def(&self, n: usize, span: &Span) -> Result<(&'static crate::providers::StableArg, String), Diagnostic> {
        let mut found: Option<(&'static crate::providers::StableArg, String)> = None;
        for p in &self.clause_probes {
            let def = Self::stable_def(p).expect("a stable clause");
            let Some(a) = def.args.get(n) else {
                let has = match def.args.len() {
                    0 => "no arguments".to_string(),
                    1 => "one argument, args[0]".to_string(),
                    k => format!("{k} arguments, args[0] to args[{}]", k - 1),
                };
                return Err(Diagnostic::new(span.clone(), format!("{} has {has}", probe_name(p))).label("no such argument").hint("count from 0; `crumbs -lv -e 'PROBE'` lists them"));
            };
            match &found {
                Some((b, first)) if b.expr != a.expr || b.xlate != a.xlate => {
                    return Err(Diagnostic::new(span.clone(), format!("args[{n}] is not the same in {first} and {}", probe_name(p))).label("different arguments in this clause's probes").hint("split the clause so each has one prototype"));
                }
                Some(_) => {}
                None => found = Some((a, probe_name(p))),
            }
        }
        Ok(found.expect("the clause has probes"))
    }

    /// crumbs' own D text of a stable definition, parsed; its errors reported at `span`,
    /// where the program uses it.
    fn stable_text(&self, text: &str, what: &str, span: &Span) -> Result<ast::Expr, Diagnostic> {
        crate::parse::parse_expression(text, self.opts.facts.clone()).map_err(|d| Diagnostic::new(span.clone(), format!("internal: {what} does not parse: {}", d.message)).label("here").hint("this is a bug in crumbs' provider table"))
    }

    /// A definition's value checked, its errors said at the use (the kernel's types may not
    /// be what the definition expects).
    fn stable_checked<T>(&mut self, what: &str, span: &Span, f: impl FnOnce(&mut Self) -> Result<T, Diagnostic>) -> Result<T, Diagnostic> {
        f(self).map_err(|d| {
            Diagnostic::new(span.clone(), format!("cannot compute {what} on this kernel: {}", d.message))
                .label("defined by crumbs' provider table")
                .hint("the kernel's types differ from what the definition expects; read the raw tracepoint instead (rawtracepoint:EVENT)")
        })
    }

    /// `args[n]` of a stable clause: the native value, or a translation, which is read a
    /// member at a time (see [`Checker::stable_translation`]).
    pub(super) fn stable_args_index(&mut self, n: usize, span: &Span) -> Result<Typed, Diagnostic> {
        let (a, first) = self.stable_arg_def(n, span)?;
        if a.xlate.is_some() {
            return Err(translators::whole_translation(span));
        }
        let e = self.stable_text(a.expr, &format!("args[{n}] of {first}"), span)?;
        self.stable_checked(&format!("args[{n}] of {first}"), span, |cx| cx.typed(&e))
    }

    /// `argN` of a stable clause: the native value as an int64_t (a string has none).
    fn stable_arg(&mut self, n: usize, span: &Span) -> Result<TExpr, Diagnostic> {
        let (a, first) = self.stable_arg_def(n, span)?;
        if a.native == "string" {
            return Err(Diagnostic::new(span.clone(), format!("arg{n} of {first} is a string")).label("not an integer").hint(format!("read it as args[{n}]")));
        }
        let e = self.stable_text(a.expr, &format!("arg{n} of {first}"), span)?;
        let v = self.stable_checked(&format!("arg{n} of {first}"), span, |cx| cx.value(&e))?;
        Ok(TExpr::new(v.expr, self.c_int("int64_t")))
    }

    /// `args[N]` of a stable clause as `xlate <TYPE> (native)`, where it is translated.
    pub(super) fn stable_translation(&mut self, e: &ast::Expr) -> Result<Option<ast::Expr>, Diagnostic> {
        let ExprKind::Index(base, index) = &e.kind else { return Ok(None) };
        if !matches!(&base.kind, ExprKind::Ident(a) if a == "args") || index.len() != 1 || !self.stable_clause(&e.span)? {
            return Ok(None);
        }
        let ExprKind::Int(n, _) = index[0].kind else { return Ok(None) };
        let Ok(n) = usize::try_from(n) else { return Ok(None) };
        let (a, first) = self.stable_arg_def(n, &e.span)?;
        let Some(to) = a.xlate else { return Ok(None) };
        let text = format!("xlate <{to}> ({})", a.expr);
        self.stable_text(&text, &format!("args[{n}] of {first}"), &e.span).map(Some)
    }

    /// `argN` and `__tp_argN` in a stable clause; None for other names and clauses.
    pub(super) fn stable_ident(&mut self, name: &str, span: &Span) -> Result<Option<TExpr>, Diagnostic> {
        let (own, raw) = (numbered(name, "arg"), numbered(name, "__tp_arg"));
        if own.is_none() && raw.is_none() || !self.stable_clause(span)? {
            return Ok(None);
        }
        if let Some(n) = raw {
            return Ok(Some(TExpr::new(Expr::Var(VarHook::Arg(n)), self.c_int("int64_t"))));
        }
        self.stable_arg(own.expect("one of them") as usize, span).map(Some)
    }

    /// The clause's predicate at attach point `a`: the stable probe's guard first, where
    /// `a` is one.
    pub(super) fn guarded(&mut self, a: AttachPoint, predicate: Option<Expr>, span: &Span) -> Result<Option<Expr>, Diagnostic> {
        let Some(hook) = self.stable_hooks.get(&a).copied() else { return Ok(predicate) };
        let Some(text) = hook.guard else { return Ok(predicate) };
        let what = format!("the guard of {:?}", hook.at);
        let g = self.stable_text(text, &what, span)?;
        // Checked as a clause on this probe alone (the clause may have others).
        let here: Vec<Probe> = self.clause_probes.iter().filter(|p| p.attach == a).cloned().collect();
        let saved = std::mem::replace(&mut self.clause_probes, here);
        let g = self.stable_checked(&what, span, |cx| cx.int_expr(&g, "a guard"));
        self.clause_probes = saved;
        let g = g?;
        Ok(Some(match predicate {
            Some(p) => Expr::Binary(BinOp::LogAnd, Box::new(g), Box::new(p)),
            None => g,
        }))
    }
}
