//! The checker: resolves names against the builtin and provider tables, checks types and
//! arity, and lowers the AST to the typed IR. Every error carries the span it is about.

use crate::ast::{self, BinOp, ExprKind, LValue, Span, UnOp};
use crate::builtins::{self, ArgSpec, FnHook, FnKind, VarHook, VarType};
use crate::diag::{closest, Diagnostic};
use crate::ir::*;
use crate::printf;
use crate::providers::{match_probes_with, AttachPoint, PROFILE_ID_BASE, SYSCALL_ID_BASE};
use crate::syscalls::SyscallTable;
use crate::tracepoints::{parse_format, Catalog, FieldKind, Tracepoint};
use std::collections::{BTreeMap, BTreeSet};

/// What the checker needs from the command line.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// The kernel's tracepoints (None: tracepoint probes are an error).
    pub catalog: Option<std::rc::Rc<dyn Catalog>>,
    /// `$target`: the pid of the `-c` command or the `-p` process.
    pub target: Option<i64>,
    /// `$0` (the script's name) and `$1`, `$2`, ...: the words after the script.
    pub args: Vec<String>,
}

/// Checks a parsed program and lowers it to IR.
pub fn check(program: &ast::Program, opts: &CheckOptions) -> Result<Program, Diagnostic> {
    let mut cx = Checker {
        opts,
        globals: Vec::new(),
        thread_locals: Vec::new(),
        clause_locals: Vec::new(),
        aggs: Vec::new(),
        agg_spans: Vec::new(),
        records: Vec::new(),
        strings: Strings::default(),
        printa_uses: Vec::new(),
        uses_stack: false,
        tracepoints: Vec::new(),
        clause_tracepoints: Vec::new(),
        clause_has_others: false,
    };
    cx.declare_globals(program);
    let options = options(&program.pragmas)?;
    let mut groups: BTreeMap<AttachPoint, Vec<Clause>> = BTreeMap::new();
    let mut order: Vec<AttachPoint> = Vec::new();
    let mut matched = 0;
    let mut profile_probes: Vec<ProfileProbe> = Vec::new();
    for (index, clause) in program.clauses.iter().enumerate() {
        let mut per_attach: BTreeMap<AttachPoint, BTreeSet<u32>> = BTreeMap::new();
        cx.clause_tracepoints.clear();
        cx.clause_has_others = false;
        for desc in &clause.probes {
            for mut p in match_probes_with(desc, opts.catalog.as_deref())? {
                matched += 1;
                if let AttachPoint::Tracepoint(_) = p.attach {
                    let i = cx.tracepoint(opts, p.module, p.name, desc)?;
                    p.attach = AttachPoint::Tracepoint(i as u16);
                    cx.clause_tracepoints.push(i);
                } else {
                    cx.clause_has_others = true;
                }
                if matches!(p.attach, AttachPoint::Profile { .. }) && !profile_probes.iter().any(|q| q.attach == p.attach) {
                    let id = PROFILE_ID_BASE + profile_probes.len() as u32;
                    if id >= SYSCALL_ID_BASE {
                        return Err(Diagnostic::new(desc.span.clone(), "too many profile and tick rates in one program")
                            .label("one too many")
                            .hint(format!("a program can use at most {} different rates", SYSCALL_ID_BASE - PROFILE_ID_BASE)));
                    }
                    profile_probes.push(ProfileProbe { attach: p.attach, id, name: p.name.to_string() });
                }
                // Probe names are interned so the backend can use them as constants.
                for text in [p.provider, p.module, p.name] {
                    cx.strings.intern(text);
                }
                if p.nr.is_none() {
                    cx.strings.intern(p.function);
                }
                let set = per_attach.entry(p.attach).or_default();
                if let Some(nr) = p.nr {
                    set.insert(nr);
                }
            }
        }
        let lowered = cx.clause(clause)?;
        for (attach, nrs) in per_attach {
            let filter = match attach {
                AttachPoint::SyscallEntry | AttachPoint::SyscallReturn
                    if nrs.len() < SyscallTable::get().iter().count() =>
                {
                    Filter::Syscalls(nrs.into_iter().collect())
                }
                _ => Filter::All,
            };
            if !order.contains(&attach) {
                order.push(attach);
            }
            groups.entry(attach).or_default().push(Clause {
                index,
                span: clause.span.clone(),
                filter,
                predicate: lowered.0.clone(),
                body: lowered.1.clone(),
                locals: lowered.3,
                record: lowered.2,
            });
        }
    }
    for (name, span) in &cx.printa_uses {
        if !cx.aggs.iter().any(|a| &a.name == name) {
            return Err(Diagnostic::new(span.clone(), format!("aggregation `@{name}` is never given a value"))
                .label("printed here")
                .hint(format!("assign it first, e.g. `@{name} = count();`")));
        }
    }
    order.sort();
    Ok(Program {
        options,
        groups: order
            .into_iter()
            .map(|a| Group { attach: a, clauses: groups.remove(&a).unwrap_or_default() })
            .collect(),
        aggregations: cx.aggs,
        globals: cx.globals,
        thread_locals: cx.thread_locals,
        records: cx.records,
        strings: cx.strings,
        matched_probes: matched,
        profile_probes,
        uses_stack: cx.uses_stack,
        tracepoints: cx.tracepoints,
    })
}

const KNOWN_OPTIONS: &[&str] = &["quiet", "bufsize", "aggsortkey", "aggsortrev", "switchrate", "aggrate", "strsize", "dynvarsize"];

fn options(pragmas: &[ast::Pragma]) -> Result<Options, Diagnostic> {
    let mut o = Options::default();
    for p in pragmas {
        apply_option(&mut o, &p.name, p.value.as_deref())
            .map_err(|(msg, hint)| Diagnostic::new(p.span.clone(), msg).label("here").hint(hint))?;
    }
    Ok(o)
}

/// Applies one DTrace option (`#pragma D option` or `-x name=value`).
pub fn apply_option(o: &mut Options, name: &str, value: Option<&str>) -> Result<(), (String, String)> {
    match name {
        "quiet" => o.quiet = value.is_none_or(|v| v != "0" && v != "false"),
        "aggsortkey" => o.aggsortkey = value.is_none_or(|v| v != "0" && v != "false"),
        "aggsortrev" => o.aggsortrev = value.is_none_or(|v| v != "0" && v != "false"),
        "bufsize" => {
            let v = value.and_then(parse_size).ok_or((
                format!("option `bufsize` needs a size, got `{}`", value.unwrap_or("")),
                "write a size such as `bufsize=4m`".to_string(),
            ))?;
            if !(4096..=1 << 30).contains(&v) {
                return Err((format!("bufsize={} is out of range", value.unwrap_or("")), "the event buffer can be 4k to 1g".to_string()));
            }
            o.bufsize = Some(v);
        }
        n if KNOWN_OPTIONS.contains(&n) => {}
        n => {
            let hint = match closest(n, KNOWN_OPTIONS.iter().copied()) {
                Some(c) => format!("did you mean `{c}`? supported options: {}", KNOWN_OPTIONS.join(", ")),
                None => format!("supported options: {}", KNOWN_OPTIONS.join(", ")),
            };
            return Err((format!("unknown option `{n}`"), hint));
        }
    }
    Ok(())
}

fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, mult) = match s.chars().last()?.to_ascii_lowercase() {
        'k' => (&s[..s.len() - 1], 1u64 << 10),
        'm' => (&s[..s.len() - 1], 1 << 20),
        'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    digits.parse::<u64>().ok().map(|v| v * mult)
}

struct Checker<'a> {
    opts: &'a CheckOptions,
    globals: Vec<String>,
    thread_locals: Vec<String>,
    /// `this->` names assigned so far in the clause being checked.
    clause_locals: Vec<String>,
    aggs: Vec<Aggregation>,
    agg_spans: Vec<(Span, String)>,
    records: Vec<Record>,
    strings: Strings,
    printa_uses: Vec<(String, Span)>,
    uses_stack: bool,
    tracepoints: Vec<Tracepoint>,
    /// The tracepoints the clause being checked fires on, and whether it fires on others.
    clause_tracepoints: Vec<usize>,
    clause_has_others: bool,
}

type Lowered = (Option<Expr>, Vec<Stmt>, Option<usize>, usize);
/// Builds the statement that stores a value into a variable.
type Store = Box<dyn Fn(Expr) -> Stmt>;

impl Checker<'_> {
    /// The index of a tracepoint in the program, reading its record format on first use.
    fn tracepoint(&mut self, opts: &CheckOptions, category: &str, event: &str, desc: &ast::ProbeDesc) -> Result<usize, Diagnostic> {
        if let Some(i) = self.tracepoints.iter().position(|t| t.category == category && t.event == event) {
            return Ok(i);
        }
        if self.tracepoints.len() >= 4096 {
            return Err(Diagnostic::new(desc.span.clone(), "too many tracepoints in one program").label("over 4096").hint("narrow the pattern"));
        }
        let catalog = opts.catalog.as_deref().expect("matched through the catalog");
        let text = catalog.format(category, event).map_err(|e| Diagnostic::new(desc.span.clone(), format!("cannot read the format of tracepoint {category}:{event}: {e}")).label("here").hint("crumbs reads /sys/kernel/tracing/events; run it as root"))?;
        self.tracepoints.push(Tracepoint { category: category.into(), event: event.into(), fields: parse_format(&text) });
        Ok(self.tracepoints.len() - 1)
    }

    /// `args->name`: a field every tracepoint of the clause has, with one kind.
    fn args_field(&mut self, name: &str, span: &Span) -> Result<Expr, Diagnostic> {
        if self.clause_has_others || self.clause_tracepoints.is_empty() {
            return Err(Diagnostic::new(span.clone(), "args-> is only for tracepoint probes")
                .label("this clause fires on other probes")
                .hint("use args->NAME in clauses whose probes are all tracepoint:CATEGORY:EVENT"));
        }
        let mut kind: Option<FieldKind> = None;
        for &i in &self.clause_tracepoints {
            let t = &self.tracepoints[i];
            let Some(f) = t.field(name) else {
                let names: Vec<&str> = t.fields.iter().map(|f| f.name.as_str()).collect();
                let hint = match closest(name, names.iter().copied()) {
                    Some(c) => format!("did you mean `args->{c}`? fields: {}", names.join(", ")),
                    None => format!("fields of {}:{}: {}", t.category, t.event, names.join(", ")),
                };
                return Err(Diagnostic::new(span.clone(), format!("tracepoint {}:{} has no field `{name}`", t.category, t.event)).label("no such field").hint(hint));
            };
            if let FieldKind::Other(ty) = &f.kind {
                return Err(Diagnostic::new(span.clone(), format!("field `{name}` has type `{ty}`, which crumbs cannot read yet"))
                    .label("unsupported field type")
                    .hint("integer, pointer and char[N] (N <= 16) fields can be read"));
            }
            match &kind {
                Some(k) if *k != f.kind => {
                    return Err(Diagnostic::new(span.clone(), format!("field `{name}` has different types in this clause's tracepoints")).label("ambiguous").hint("split the clause by tracepoint"));
                }
                _ => kind = Some(f.kind.clone()),
            }
        }
        Ok(match kind {
            Some(FieldKind::Chars) => Expr::Str(StrExpr::TpField(name.to_string())),
            _ => Expr::TpField(name.to_string()),
        })
    }

    /// D globals are declared by assignment anywhere in the program.
    fn declare_globals(&mut self, program: &ast::Program) {
        for c in &program.clauses {
            for s in c.body.iter().flatten() {
                let target = match s {
                    ast::Stmt::Assign { target, .. } | ast::Stmt::IncDec { target, .. } => target,
                    _ => continue,
                };
                if let LValue::ThreadLocal(i, _) = target {
                    if !self.thread_locals.contains(&i.name) {
                        self.thread_locals.push(i.name.clone());
                    }
                    continue;
                }
                let LValue::Global(target) = target else { continue };
                if builtins::variable(&target.name).is_none() && !self.globals.contains(&target.name) {
                    self.globals.push(target.name.clone());
                }
            }
        }
    }

    fn clause(&mut self, c: &ast::Clause) -> Result<Lowered, Diagnostic> {
        self.clause_locals.clear();
        let predicate = match &c.predicate {
            Some(p) => Some(self.int_expr(p, "a predicate")?),
            None => None,
        };
        let mut items = Vec::new();
        let mut body = Vec::new();
        match &c.body {
            None => {}
            Some(stmts) if stmts.is_empty() => {}
            Some(stmts) => {
                for s in stmts {
                    self.stmt(s, &mut body, &mut items)?;
                }
            }
        }
        let default_action = c.body.as_ref().is_none_or(|b| b.is_empty());
        let record = if default_action || !items.is_empty() {
            self.records.push(Record { items });
            Some(self.records.len() - 1)
        } else {
            None
        };
        Ok((predicate, body, record, self.clause_locals.len()))
    }

    fn stmt(&mut self, s: &ast::Stmt, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
        match s {
            ast::Stmt::Assign { target, op, value, .. } => {
                let v = self.int_expr(value, "a variable")
                    .map_err(|d| if d.message.contains("string") { d.hint("crumbs variables hold 64-bit integers; use an aggregation key to group by a string") } else { d })?;
                let (read, set) = self.var_target(target, op.is_some())?;
                let v = match op {
                    None => v,
                    Some(op) => Expr::Binary(*op, Box::new(read), Box::new(v)),
                };
                body.push(set(v));
            }
            ast::Stmt::IncDec { target, delta, .. } => {
                let (read, set) = self.var_target(target, true)?;
                body.push(set(Expr::Binary(BinOp::Add, Box::new(read), Box::new(Expr::Int(*delta)))));
            }
            ast::Stmt::Aggregate { agg, func, args, span } => self.aggregate(agg, func, args, span, body)?,
            ast::Stmt::Expr(e) => match &e.kind {
                ExprKind::Call(name, args) => self.action(name, args, &e.span, body, items)?,
                _ => {
                    let v = self.expr(e)?;
                    items.push(Item::Trace(v.repr()));
                    body.push(Stmt::Emit { item: items.len() - 1, args: vec![v] });
                }
            },
        }
        Ok(())
    }

    /// An assignable variable: how to read it and how to store into it. `reads`: the
    /// statement reads it first (`x += 1`), which a `this->` variable must allow.
    fn var_target(&mut self, target: &LValue, reads: bool) -> Result<(Expr, Store), Diagnostic> {
        match target {
            LValue::Global(i) => {
                if builtins::variable(&i.name).is_some() {
                    return Err(Diagnostic::new(i.span.clone(), format!("cannot assign to builtin variable `{}`", i.name))
                        .label("read-only")
                        .hint("choose another name for your variable"));
                }
                let g = self.globals.iter().position(|g| g == &i.name).expect("declared");
                Ok((Expr::Global(g), Box::new(move |v| Stmt::SetGlobal(g, v))))
            }
            LValue::ThreadLocal(i, _) => {
                let t = self.thread_locals.iter().position(|g| g == &i.name).expect("declared");
                Ok((Expr::ThreadLocal(t), Box::new(move |v| Stmt::SetThreadLocal(t, v))))
            }
            LValue::ClauseLocal(i, sp) => {
                let l = match self.clause_locals.iter().position(|g| g == &i.name) {
                    Some(l) => l,
                    None if reads => return Err(unassigned_local(&i.name, sp)),
                    None => {
                        self.clause_locals.push(i.name.clone());
                        self.clause_locals.len() - 1
                    }
                };
                Ok((Expr::ClauseLocal(l), Box::new(move |v| Stmt::SetClauseLocal(l, v))))
            }
        }
    }

    fn aggregate(&mut self, agg: &ast::AggRef, func: &ast::Ident, args: &[ast::Expr], span: &Span, body: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        let f = builtins::function(&func.name).ok_or_else(|| unknown_function(func))?;
        if f.kind != FnKind::Aggregating {
            return Err(Diagnostic::new(func.span.clone(), format!("`{}` is not an aggregating function", func.name))
                .label("cannot be assigned to an aggregation")
                .hint("aggregating functions: count, sum, min, max, avg, quantize, lquantize"));
        }
        check_arity(f, args, func, span)?;
        let value = match args.first() {
            Some(a) => self.int_expr(a, &format!("the argument of {}()", f.name))?,
            None => Expr::Int(1),
        };
        let mut consts = Vec::new();
        for (a, spec) in args.iter().zip(f.args) {
            if *spec == ArgSpec::ConstInt {
                consts.push(const_int(a).ok_or_else(|| {
                    Diagnostic::new(a.span.clone(), format!("{}() needs a constant here", f.name))
                        .label("not a constant")
                        .hint(format!("write an integer constant: {}", f.signature))
                })?);
            }
        }
        if f.hook == FnHook::Lquantize {
            let (base, limit, step) = (consts[0], consts[1], consts[2]);
            if step <= 0 || limit <= base || (limit - base) / step > 4000 || (limit - base) % step != 0 {
                return Err(Diagnostic::new(span.clone(), "bad lquantize() range")
                    .label("here")
                    .hint("need low < high, step > 0, (high - low) a multiple of step, and at most 4000 steps"));
            }
        }
        let kind = AggKind::from_hook(f.hook, &consts).expect("aggregating");
        let mut keys = Vec::new();
        for k in &agg.keys {
            keys.push(self.expr(k)?);
        }
        let reprs: Vec<Repr> = keys.iter().map(Expr::repr).collect();
        let id = match self.aggs.iter().position(|a| a.name == agg.name) {
            Some(id) => {
                let def = &self.aggs[id];
                let (def_span, def_fn) = &self.agg_spans[id];
                if def.kind != kind {
                    return Err(Diagnostic::new(func.span.clone(), format!("aggregation `@{}` is already {}(), not {}()", agg.name, def_fn, f.name))
                        .label(format!("redefined with {}()", f.name))
                        .related(def_span.clone(), format!("first used with {def_fn}() here"))
                        .hint(format!("an aggregation keeps the function it was first used with, {def_fn}(); use another name, e.g. `@{}_{}`", if agg.name.is_empty() { "a" } else { &agg.name }, f.name)));
                }
                if def.keys.len() != reprs.len() {
                    return Err(Diagnostic::new(agg.span.clone(), format!("aggregation `@{}` has {} key(s) elsewhere, {} here", agg.name, def.keys.len(), reprs.len()))
                        .label("key count differs")
                        .hint("use the same number of keys everywhere"));
                }
                for (i, (a, b)) in def.keys.iter().zip(&reprs).enumerate() {
                    if a != b {
                        return Err(Diagnostic::new(agg.keys[i].span.clone(), format!("key {} of `@{}` has another type elsewhere", i + 1, agg.name))
                            .label("type differs")
                            .hint("keys at one position must all be integers, all process names, or all other strings"));
                    }
                }
                id
            }
            None => {
                self.aggs.push(Aggregation { name: agg.name.clone(), kind, keys: reprs });
                self.agg_spans.push((func.span.clone(), f.name.to_string()));
                self.aggs.len() - 1
            }
        };
        body.push(Stmt::Aggregate { agg: id, keys, value });
        Ok(())
    }

    fn action(&mut self, name: &ast::Ident, args: &[ast::Expr], span: &Span, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
        let f = builtins::function(&name.name).ok_or_else(|| unknown_function(name))?;
        if f.kind == FnKind::Subroutine {
            // `stack();` as a statement traces its value, as in DTrace.
            let v = self.expr(&ast::Expr { kind: ExprKind::Call(name.clone(), args.to_vec()), span: span.clone() })?;
            items.push(Item::Trace(v.repr()));
            body.push(Stmt::Emit { item: items.len() - 1, args: vec![v] });
            return Ok(());
        }
        if f.kind == FnKind::Aggregating {
            return Err(Diagnostic::new(name.span.clone(), format!("`{}()` is an aggregating function", f.name))
                .label("used as a statement")
                .hint(format!("assign it to an aggregation: `@name[key] = {}`", f.signature)));
        }
        if f.hook == FnHook::Printa && args.len() == 2 {
            return self.printa(name, &args[1], Some(&args[0]), body, items);
        }
        if f.hook == FnHook::Trunc && args.len() == 2 {
            let keep = const_int(&args[1]).ok_or_else(|| {
                Diagnostic::new(args[1].span.clone(), "trunc() needs a constant count")
                    .label("not a constant")
                    .hint("write an integer constant: trunc(@a, 10)")
            })?;
            let agg = self.whole_aggregation(name, &args[0])?;
            items.push(Item::Trunc { agg, keep: Some(keep) });
            body.push(Stmt::Emit { item: items.len() - 1, args: vec![] });
            return Ok(());
        }
        check_arity(f, args, name, span)?;
        let (item, lowered) = match f.hook {
            FnHook::Printf => {
                let fmt = &args[0];
                let pieces = self.format(fmt, "printf()")?;
                if let Some(c) = printf::conversions(&pieces).find(|c| c.is_agg_value()) {
                    let at = fmt.span.start + 1 + c.start;
                    return Err(Diagnostic::new(at..(fmt.span.start + 1 + c.end).min(fmt.span.end), "the @ flag is only valid in printa()")
                        .label("printa-only flag")
                        .hint("remove the @, or print an aggregation with printa(\"...%@d\", @name)"));
                }
                let convs: Vec<&printf::Conv> = pieces.iter().filter_map(|p| match p { printf::Piece::Conv(c) => Some(c), _ => None }).collect();
                let rest = &args[1..];
                if convs.len() != rest.len() {
                    return Err(Diagnostic::new(span.clone(), format!("printf() format has {} conversion(s) but {} argument(s) follow", convs.len(), rest.len()))
                        .label("argument count differs")
                        .hint("give one argument per % conversion (%% prints a percent sign)"));
                }
                let mut lowered = Vec::new();
                for (c, a) in convs.iter().zip(rest) {
                    let v = self.expr(a)?;
                    if v.repr() == Repr::Stack {
                        return Err(Diagnostic::new(a.span.clone(), "printf() cannot print a stack")
                            .label("a stack")
                            .hint("trace it with stack(); or count it with @[stack()] = count()"));
                    }
                    let want_str = matches!(c.arg_kind(), printf::ArgKind::Str);
                    let is_str = v.repr() != Repr::Int;
                    if want_str != is_str {
                        let conv = format!("%{}", c.conv);
                        return Err(Diagnostic::new(a.span.clone(), format!("{conv} expects {}, but this is {}", if want_str { "a string" } else { "an integer" }, if is_str { "a string" } else { "an integer" }))
                            .label("wrong type")
                            .hint(if want_str { "use %d for integers" } else { "use %s for strings" }));
                    }
                    lowered.push(v);
                }
                let reprs = lowered.iter().map(Expr::repr).collect();
                (Item::Printf { pieces, args: reprs }, lowered)
            }
            FnHook::Trace => {
                let v = self.expr(&args[0])?;
                (Item::Trace(v.repr()), vec![v])
            }
            FnHook::Exit => (Item::Exit, vec![self.int_expr(&args[0], "exit()'s status")?]),
            FnHook::Printa => return self.printa(name, &args[0], None, body, items),
            FnHook::Clear => (Item::Clear(self.whole_aggregation(name, &args[0])?), vec![]),
            FnHook::Trunc => (Item::Trunc { agg: self.whole_aggregation(name, &args[0])?, keep: None }, vec![]),
            _ => unreachable!("action hook"),
        };
        items.push(item);
        body.push(Stmt::Emit { item: items.len() - 1, args: lowered });
        Ok(())
    }

    /// `printa(@a)` or `printa(format, @a)`: the format's plain conversions take the keys in
    /// order (fewer than the keys is fine), `%@` conversions the value.
    /// The argument of printa/clear/trunc: a whole aggregation assigned earlier.
    fn whole_aggregation(&mut self, name: &ast::Ident, agg: &ast::Expr) -> Result<usize, Diagnostic> {
        let f = &name.name;
        let ExprKind::Agg(a) = &agg.kind else {
            return Err(Diagnostic::new(agg.span.clone(), format!("{f}() takes an aggregation"))
                .label("not an aggregation")
                .hint(format!("write {f}(@name)")));
        };
        if !a.keys.is_empty() {
            return Err(Diagnostic::new(a.span.clone(), format!("{f}() takes a whole aggregation"))
                .label("keys not allowed here")
                .hint(format!("write {f}(@{})", a.name)));
        }
        self.printa_uses.push((a.name.clone(), a.span.clone()));
        self.aggs.iter().position(|x| x.name == a.name).ok_or_else(|| {
            Diagnostic::new(a.span.clone(), format!("aggregation `@{}` is not defined before this {f}()", a.name))
                .label("unknown aggregation")
                .hint("D needs the aggregation assigned in an earlier clause or statement")
        })
    }

    fn printa(&mut self, name: &ast::Ident, agg: &ast::Expr, fmt: Option<&ast::Expr>, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
        let id = self.whole_aggregation(name, agg)?;
        let ExprKind::Agg(a) = &agg.kind else { unreachable!("checked") };
        let format = match fmt {
            None => None,
            Some(fmt) => {
                let pieces = self.format(fmt, &format!("{}()", name.name))?;
                let keys = self.aggs[id].keys.clone();
                let mut next = 0;
                for c in printf::conversions(&pieces) {
                    let at = (fmt.span.start + 1 + c.start)..(fmt.span.start + 1 + c.end).min(fmt.span.end);
                    let want_str = matches!(c.arg_kind(), printf::ArgKind::Str);
                    if c.is_agg_value() {
                        if want_str {
                            return Err(Diagnostic::new(at, "%@s cannot print an aggregation's value")
                                .label("value conversion")
                                .hint("values are integers (or tables): use %@d, %@u or %@x"));
                        }
                        continue;
                    }
                    let Some(key) = keys.get(next) else {
                        return Err(Diagnostic::new(at, format!("printa() format has more key conversions than `@{}` has keys ({})", a.name, keys.len()))
                            .label("no key left for this")
                            .hint("print the value with %@d; other conversions take the keys in order"));
                    };
                    if want_str != (*key != Repr::Int) {
                        return Err(Diagnostic::new(at, format!("key {} of `@{}` is {}, but this conversion expects {}", next + 1, a.name, if want_str { "an integer" } else { "a string" }, if want_str { "a string" } else { "an integer" }))
                            .label("wrong type")
                            .hint(if want_str { "use %d for integer keys" } else { "use %s for string keys" }));
                    }
                    next += 1;
                }
                Some(pieces)
            }
        };
        items.push(Item::Printa { agg: id, format });
        body.push(Stmt::Emit { item: items.len() - 1, args: vec![] });
        Ok(())
    }

    /// A format string argument: a string literal that parses as a format.
    fn format(&mut self, fmt: &ast::Expr, what: &str) -> Result<Vec<printf::Piece>, Diagnostic> {
        let ExprKind::Str(text) = &fmt.kind else {
            return Err(Diagnostic::new(fmt.span.clone(), format!("{what} needs a string literal format"))
                .label("not a string literal")
                .hint("write the format inline: printf(\"%d\\n\", x)"));
        };
        printf::parse(text).map_err(|e| {
            let at = (fmt.span.start + 1 + e.start).min(fmt.span.end);
            let end = (fmt.span.start + 1 + e.end).clamp(at, fmt.span.end);
            let d = Diagnostic::new(at..end.max(at + 1), e.message).label("in this format");
            match e.hint { Some(h) => d.hint(h), None => d }
        })
    }

    fn int_expr(&mut self, e: &ast::Expr, what: &str) -> Result<Expr, Diagnostic> {
        let v = self.expr(e)?;
        if v.repr() != Repr::Int {
            let hint = if v.repr() == Repr::Stack { "a stack can be an aggregation key (@[stack()] = count()) or traced (stack();)" } else { "compare strings with == or !=, e.g. execname == \"cat\"" };
            return Err(Diagnostic::new(e.span.clone(), format!("{what} must be an integer, but this is {}", v.repr().describe()))
                .label(v.repr().describe())
                .hint(hint));
        }
        Ok(v)
    }

    fn expr(&mut self, e: &ast::Expr) -> Result<Expr, Diagnostic> {
        Ok(match &e.kind {
            ExprKind::Int(v) => Expr::Int(*v),
            ExprKind::Str(s) => Expr::Str(StrExpr::Const(self.strings.intern(s))),
            ExprKind::Ident(name) => {
                if let Some(v) = builtins::variable(name) {
                    match (v.ty, v.hook) {
                        (VarType::Int, h) => Expr::Var(h),
                        (VarType::Str, VarHook::Comm) => Expr::Str(StrExpr::Comm),
                        (VarType::Str, h) => Expr::Str(StrExpr::Probe(h)),
                    }
                } else if let Some(g) = self.globals.iter().position(|g| g == name) {
                    Expr::Global(g)
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
            ExprKind::Call(name, args) if builtins::function(&name.name).is_some_and(|f| f.hook == FnHook::CopyInStr) => {
                let f = builtins::function(&name.name).expect("checked");
                check_arity(f, args, name, &e.span)?;
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
                match (lv, rv) {
                    (Expr::Str(a), Expr::Str(b)) if op.is_comparison() => {
                        let relational = !matches!(op, BinOp::Eq | BinOp::Ne);
                        let probe = matches!(a, StrExpr::Probe(_)) || matches!(b, StrExpr::Probe(_));
                        if relational && probe {
                            return Err(Diagnostic::new(e.span.clone(), "probe names can only be compared with == and !=")
                                .label("ordering not supported")
                                .hint("compare with == or != instead"));
                        }
                        let name_vs_const = matches!((&a, &b), (StrExpr::Comm | StrExpr::TpField(_) | StrExpr::UserStr(_), StrExpr::Const(_)) | (StrExpr::Const(_), StrExpr::Comm | StrExpr::TpField(_) | StrExpr::UserStr(_)));
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

fn unop_symbol(op: UnOp) -> &'static str {
    match op {
        UnOp::Not => "!",
        UnOp::BitNot => "~",
        UnOp::Neg => "-",
        UnOp::Plus => "+",
    }
}

fn const_int(e: &ast::Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v) => Some(*v),
        ExprKind::Unary(UnOp::Neg, inner) => const_int(inner).map(i64::wrapping_neg),
        ExprKind::Unary(UnOp::Plus, inner) => const_int(inner),
        _ => None,
    }
}

fn check_arity(f: &builtins::BuiltinFn, args: &[ast::Expr], name: &ast::Ident, span: &Span) -> Result<(), Diagnostic> {
    let rest = f.args.contains(&ArgSpec::Rest);
    let fixed = f.args.iter().filter(|a| **a != ArgSpec::Rest).count();
    let ok = if rest { args.len() >= fixed } else { args.len() == fixed };
    if ok {
        return Ok(());
    }
    let want = match (rest, fixed) {
        (true, n) => format!("at least {n} argument{}", if n == 1 { "" } else { "s" }),
        (false, n) => format!("{n} argument{}", if n == 1 { "" } else { "s" }),
    };
    let _ = name;
    Err(Diagnostic::new(span.clone(), format!("{}() takes {want}, but {} given", f.name, args.len()))
        .label("wrong number of arguments")
        .hint(format!("usage: {}", f.signature)))
}

fn unknown_function(name: &ast::Ident) -> Diagnostic {
    let d = Diagnostic::new(name.span.clone(), format!("unknown function `{}`", name.name)).label("not a D function");
    match closest(&name.name, builtins::FUNCTIONS.iter().map(|f| f.name)) {
        Some(c) => d.hint(format!("did you mean `{c}()`?")),
        None => d.hint(format!("functions: {}", builtins::FUNCTIONS.iter().map(|f| f.name).collect::<Vec<_>>().join(", "))),
    }
}

fn unassigned_local(name: &str, span: &Span) -> Diagnostic {
    Diagnostic::new(span.clone(), format!("clause-local variable `this->{name}` is read before it is assigned"))
        .label("no value yet")
        .hint(format!("assign `this->{name} = ...;` earlier in this clause"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile;

    fn ok(src: &str) -> Program {
        compile(src, &CheckOptions { target: Some(42), args: vec!["t.d".into(), "7".into(), "word".into()], ..Default::default() }).unwrap_or_else(|d| panic!("{src}: {} ({:?})", d.message, d.hint))
    }

    /// The error for `src`, and the source text its span covers.
    fn err(src: &str) -> (Diagnostic, String) {
        let d = compile(src, &CheckOptions::default()).expect_err(src);
        let text = src[d.span.clone()].to_string();
        (d, text)
    }

    #[test]
    fn clauses_group_by_attach_point_in_program_order() {
        let p = ok("syscall::read:entry { x = 1; } BEGIN { x = 2; } syscall::write:entry, syscall::read:return { x = 3; } syscall:::entry { x = 4; }");
        let attach: Vec<_> = p.groups.iter().map(|g| g.attach).collect();
        assert_eq!(attach, [AttachPoint::Begin, AttachPoint::SyscallEntry, AttachPoint::SyscallReturn]);
        let entry = p.group(AttachPoint::SyscallEntry).unwrap();
        assert_eq!(entry.clauses.iter().map(|c| c.index).collect::<Vec<_>>(), [0, 2, 3]);
        assert_eq!(entry.clauses[0].filter, Filter::Syscalls(vec![0]));
        assert_eq!(entry.clauses[1].filter, Filter::Syscalls(vec![1]));
        assert_eq!(entry.clauses[2].filter, Filter::All);
    }

    #[test]
    fn globals_are_declared_by_assignment_anywhere() {
        // The L41 script reads in_benchmark before the clause that assigns it.
        let p = ok("syscall::read:entry /!flag/ { @ = count(); } BEGIN { flag = 1; }");
        assert_eq!(p.globals, ["flag"]);
        let (d, text) = err("BEGIN { trace(flga); } END { flag = 1; }");
        assert_eq!(text, "flga");
        assert!(d.hint.unwrap().contains("`flag`"));
    }

    #[test]
    fn builtins_and_aliases_resolve() {
        let p = ok("BEGIN { @[comm, execname, probefunc] = count(); trace(nsecs); trace($target); }");
        assert_eq!(p.aggregations[0].keys, [Repr::Comm, Repr::Comm, Repr::StrId]);
        let (d, text) = err("BEGIN { trace(execnme); }");
        assert_eq!(text, "execnme");
        assert!(d.hint.unwrap().contains("execname"));
    }

    #[test]
    fn string_comparisons_are_typed() {
        let p = ok("syscall:::entry /execname == \"cat\" && probefunc != \"read\"/ { @ = count(); }");
        let c = &p.groups[0].clauses[0];
        assert!(matches!(c.predicate, Some(Expr::Binary(BinOp::LogAnd, ..))));
        let (d, text) = err("BEGIN { trace(execname + 1); }");
        assert_eq!(text, "execname");
        assert!(d.message.contains("integers"));
        let (d, _) = err("BEGIN { trace(probefunc < \"x\"); }");
        assert!(d.message.contains("== and !="));
    }

    #[test]
    fn aggregations_keep_one_function_and_key_shape() {
        let (d, text) = err("BEGIN { @a = count(); } END { @a = sum(1); }");
        assert_eq!(text, "sum");
        assert!(d.message.contains("already count()"), "{}", d.message);
        let (d, _) = err("BEGIN { @a[1] = count(); @a[1, 2] = count(); }");
        assert!(d.message.contains("key"));
        let (d, _) = err("BEGIN { @a[1] = count(); @a[execname] = count(); }");
        assert!(d.message.contains("another type"));
        let (d, text) = err("BEGIN { @a = lquantize(1, 0, x, 1); } BEGIN { x = 1; }");
        assert_eq!(text, "x");
        assert!(d.message.contains("constant"));
        let (d, _) = err("BEGIN { @a = lquantize(1, 10, 0, 1); }");
        assert!(d.message.contains("lquantize"));
    }

    #[test]
    fn arity_and_argument_types() {
        let (d, text) = err("BEGIN { @ = sum(); }");
        assert_eq!(text, "@ = sum()");
        assert!(d.message.contains("takes 1 argument, but 0 given"), "{}", d.message);
        let (d, text) = err("BEGIN { printf(\"%d\\n\", execname); }");
        assert_eq!(text, "execname");
        assert!(d.message.contains("%d expects an integer"));
        let (d, _) = err("BEGIN { printf(\"%d %s\\n\", 1); }");
        assert!(d.message.contains("2 conversion(s) but 1 argument(s)"));
        let (d, text) = err("BEGIN { printf(\"%q\", 1); }");
        assert_eq!(text, "%q");
        let _ = d;
        let (d, _) = err("BEGIN { count(); }");
        assert!(d.message.contains("aggregating function"));
        let (d, text) = err("BEGIN { prinft(\"x\"); }");
        assert_eq!(text, "prinft");
        assert!(d.hint.unwrap().contains("printf"));
        let (d, _) = err("BEGIN { x = count(); }");
        assert!(d.message.contains("no value"));
    }

    #[test]
    fn records_hold_output_items_in_order() {
        let p = ok("BEGIN { printf(\"%s %d\\n\", execname, pid); x = 1; trace(\"s\"); exit(2); } END");
        assert_eq!(p.records.len(), 2);
        let items = &p.records[0].items;
        assert!(matches!(&items[0], Item::Printf { args, .. } if args == &[Repr::Comm, Repr::Int]));
        assert_eq!(items[1], Item::Trace(Repr::StrId));
        assert_eq!(items[2], Item::Exit);
        // header 16, comm 16, pid 8, string id 8, exit status 8
        assert_eq!(p.records[0].layout().1, 16 + 16 + 8 + 8 + 8);
        // END without a block: the default action, an empty record.
        assert!(p.records[1].items.is_empty());
        // A block with only assignments prints nothing.
        assert_eq!(ok("BEGIN { x = 1; }").records.len(), 0);
    }

    #[test]
    fn locals() {
        let p = ok("syscall::read:entry { self->ts = timestamp; } syscall::read:return /self->ts/ { this->d = timestamp - self->ts; @ = quantize(this->d); self->ts = 0; }");
        assert_eq!(p.thread_locals, ["ts"]);
        assert_eq!(p.group(AttachPoint::SyscallReturn).unwrap().clauses[0].locals, 1);
        let (d, text) = err("BEGIN { trace(this->x); }");
        assert_eq!(text, "this->x");
        assert!(d.message.contains("before it is assigned"));
        let (d, _) = err("BEGIN { trace(self->never); }");
        assert!(d.message.contains("never assigned"));
    }

    #[test]
    fn options_and_macros() {
        assert!(ok("#pragma D option quiet\nBEGIN {}").options.quiet);
        assert_eq!(ok("#pragma D option bufsize=2m\nBEGIN {}").options.bufsize, Some(2 << 20));
        let (d, _) = err("#pragma D option quite\nBEGIN {}");
        assert!(d.hint.unwrap().contains("quiet"));
        let (d, text) = err("BEGIN { trace($target); }");
        assert_eq!(text, "$target");
        assert!(d.hint.unwrap().contains("-c"));
        assert!(matches!(&ok("BEGIN { trace($target); }").groups[0].clauses[0].body[0], Stmt::Emit { args, .. } if args == &[Expr::Int(42)]));
    }

    #[test]
    fn macro_arguments() {
        let body = |src: &str| ok(src).groups[0].clauses[0].body.clone();
        assert!(matches!(&body("BEGIN { trace($1); }")[0], Stmt::Emit { args, .. } if args == &[Expr::Int(7)]));
        assert!(matches!(&body("BEGIN { trace($$1); }")[0], Stmt::Emit { args, .. } if matches!(args[0], Expr::Str(_))));
        assert!(matches!(&body("BEGIN { trace($2); }")[0], Stmt::Emit { args, .. } if matches!(args[0], Expr::Str(_))));
        assert!(matches!(&body("BEGIN { trace($0); }")[0], Stmt::Emit { args, .. } if matches!(args[0], Expr::Str(_))));
        let (d, text) = err("BEGIN { trace($3); }");
        assert_eq!(text, "$3");
        assert!(d.message.contains("not given"));
        assert_eq!(crate::parse::integer_literal("-0x10"), Some(-16));
        assert_eq!(crate::parse::integer_literal("12abc"), None);
    }

    #[test]
    fn probe_errors() {
        let (d, text) = err("sycall:::entry {}");
        assert_eq!(text, "sycall:::entry");
        assert!(d.message.contains("unknown provider"));
        let (d, _) = err("syscall::nosuchcall:entry {}");
        assert!(d.message.contains("does not match any probes"));
    }
}
