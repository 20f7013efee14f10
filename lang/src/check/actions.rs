//! Aggregations and actions: function lookup, arity, argument types, output records.

use super::*;
use crate::ir::ArgSource;

impl Checker<'_> {
    pub(super) fn aggregate(&mut self, agg: &ast::AggRef, func: &ast::Ident, args: &[ast::Expr], span: &Span, body: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        let f = builtins::function(&func.name, self.dialect()).ok_or_else(|| unknown_function(func, self.dialect()))?;
        if f.kind != FnKind::Aggregating {
            return Err(Diagnostic::new(func.span.clone(), format!("`{}` is not an aggregating function", func.name))
                .label("cannot be assigned to an aggregation")
                .hint(format!("aggregating functions: {}", builtins::FUNCTIONS.iter().filter(|f| f.kind == FnKind::Aggregating).map(|f| f.name).collect::<Vec<_>>().join(", "))));
        }
        check_arity(f, args, span)?;
        self.note_action(f.hook, f.name, span);
        let (value, signed) = match args.first() {
            Some(a) => {
                let v = self.int_value(a, &format!("the argument of {}()", f.name))?;
                let signed = !self.is_unsigned(v.ty);
                (v.expr, signed)
            }
            None => (Expr::Int(1), true),
        };
        let FnHook::Aggregate(aggregator) = f.hook else { unreachable!("aggregating function without an aggregator") };
        let mut consts = Vec::new();
        let mut const_spans = Vec::new();
        for (i, spec) in f.args.iter().enumerate() {
            // A constant left out is 0 (hist(x) is hist(x, 0)), so both forms are one kind.
            let Some(a) = args.get(i) else {
                if *spec == ArgSpec::OptConstInt {
                    consts.push(0);
                    const_spans.push(span.clone());
                }
                continue;
            };
            if matches!(spec, ArgSpec::ConstInt | ArgSpec::OptConstInt) {
                consts.push(const_int(a).ok_or_else(|| {
                    let param = aggregator.params().get(consts.len()).copied().unwrap_or_default();
                    let message = aggregator.not_constant(param).unwrap_or_else(|| format!("{}() needs a constant here", f.name));
                    Diagnostic::new(a.span.clone(), message).label("not a constant").hint(format!("write an integer constant: {}", f.signature))
                })?);
                const_spans.push(a.span.clone());
            }
            if *spec == ArgSpec::OptFormat {
                let ExprKind::Str(s) = &a.kind else {
                    return Err(Diagnostic::new(a.span.clone(), format!("{}() needs a string literal here", f.name)).label("not a string literal").hint(format!("usage: {}", f.signature)));
                };
                let c = aggregator.named(&s.value).map_err(|e| Diagnostic::new(a.span.clone(), e.message).label("here").hint(e.hint))?;
                consts.push(c);
                const_spans.push(a.span.clone());
            }
        }
        // A string constant left out is the function's default (0).
        if f.args.last() == Some(&ArgSpec::OptFormat) && args.len() < f.args.len() {
            consts.push(0);
            const_spans.push(span.clone());
        }
        if aggregator.takes_sign() {
            consts.push(signed as i64);
            const_spans.push(span.clone());
        }
        aggregator.check(&consts).map_err(|e| {
            let at = e.arg.and_then(|i| const_spans.get(i)).unwrap_or(span);
            Diagnostic::new(at.clone(), e.message).label("here").hint(e.hint)
        })?;
        let kind = AggKind::new(aggregator, consts);
        let at = self.aggs.iter().position(|a| a.name == agg.name);
        let first = at.map(|id| self.aggs[id].keys.clone());
        let display = format!("@{}", agg.name);
        let (keys, reprs) = self.keys(&agg.keys, first.as_deref(), keys::KeyOwner { kind: "aggregation", name: &display }, &agg.span)?;
        let id = match at {
            Some(id) => {
                let def = &self.aggs[id];
                let (def_span, def_fn) = &self.agg_spans[id];
                if def.kind != kind && def.kind.func == kind.func {
                    // The same function with other constants (hist's k, lhist's range).
                    let message = if self.bpftrace() && f.name == "hist" { "Different bits in a single hist unsupported".to_string() } else { format!("aggregation `@{}` is already {}() with other constant arguments", agg.name, f.name) };
                    return Err(Diagnostic::new(span.clone(), message)
                        .label("other constant arguments")
                        .related(def_span.clone(), format!("first used with {def_fn}() here"))
                        .hint(format!("an aggregation keeps the constants it was first used with; use another name, e.g. `@{}_2`", if agg.name.is_empty() { "a" } else { &agg.name })));
                }
                if def.kind != kind {
                    return Err(Diagnostic::new(func.span.clone(), format!("aggregation `@{}` is already {}(), not {}()", agg.name, def_fn, f.name))
                        .label(format!("redefined with {}()", f.name))
                        .related(def_span.clone(), format!("first used with {def_fn}() here"))
                        .hint(format!("an aggregation keeps the function it was first used with, {def_fn}(); use another name, e.g. `@{}_{}`", if agg.name.is_empty() { "a" } else { &agg.name }, f.name)));
                }
                id
            }
            None => {
                self.aggs.push(Aggregation { name: agg.name.clone(), kind, keys: reprs, declared: None, read: Vec::new() });
                self.agg_spans.push((func.span.clone(), f.name.to_string()));
                self.aggs.len() - 1
            }
        };
        body.push(Stmt::Aggregate { agg: id, keys, value });
        Ok(())
    }

    pub(super) fn action(&mut self, name: &ast::Ident, args: &[ast::Expr], span: &Span, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
        let before = items.len();
        self.action_call(name, args, span, body, items)?;
        self.pinned_output(&items[before..], span)?;
        // bpftrace's exit() ends the probe's run there: what follows it in the clause does not
        // run (DTrace's exit() is an action like any other; the rest of the clause runs).
        if self.bpftrace() && builtins::function(&name.name, self.dialect()).is_some_and(|f| f.hook == FnHook::Exit) {
            body.push(Stmt::Return);
        }
        Ok(())
    }

    fn action_call(&mut self, name: &ast::Ident, args: &[ast::Expr], span: &Span, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
        let f = builtins::function(&name.name, self.dialect()).ok_or_else(|| unknown_function(name, self.dialect()))?;
        if f.hook == FnHook::Speculate {
            check_arity(f, args, span)?;
            return self.speculate(&args[0], span, body);
        }
        match f.hook {
            FnHook::Fail => return self.fail(f, args, span),
            FnHook::StaticAssert => return self.static_assert(f, args, span),
            FnHook::Assert => return self.assert(f, args, span, body, items),
            _ => {}
        }
        if matches!(f.hook, FnHook::CopyInto | FnHook::Bcopy) {
            return self.copy_into(f, args, span, body);
        }
        if f.hook.is_destructive() && !self.destructive && self.bpftrace() {
            return Err(Diagnostic::new(span.clone(), format!("{}() is an unsafe function being used in safe mode", f.name))
                .label("unsafe")
                .hint("allow unsafe functions with --unsafe (crumbs -w)"));
        }
        if f.hook.is_destructive() && !self.destructive {
            return Err(Diagnostic::new(span.clone(), format!("{}() is a destructive action", f.name))
                .label("not allowed")
                .hint("allow destructive actions with -w (or #pragma D option destructive)"));
        }
        self.note_action(f.hook, f.name, span);
        if matches!(f.hook, FnHook::CopyOut | FnHook::CopyOutStr) {
            return self.copy_out(f, args, span, body);
        }
        if f.hook == FnHook::Chill {
            check_arity(f, args, span)?;
            let ns = self.int_expr(&args[0], "chill()'s time")?;
            if let Expr::Int(n) = ns {
                if !(0..=CHILL_MAX as i64).contains(&n) {
                    return Err(Diagnostic::new(args[0].span.clone(), format!("chill() cannot spin for {n} ns"))
                        .label("out of range")
                        .hint(format!("a CPU spins at most {CHILL_MAX} ns (500 ms) in each second")));
                }
            }
            body.push(Stmt::Chill(ns));
            return Ok(());
        }
        if f.hook == FnHook::Override {
            return self.override_return(f, args, span, body);
        }
        if f.hook == FnHook::SignalThread {
            self.signal_thread_probes(f, span)?;
        }
        if matches!(f.hook, FnHook::Raise | FnHook::Stop | FnHook::SignalThread) {
            check_arity(f, args, span)?;
            let signal = match args.first() {
                Some(a) => {
                    let sig = self.int_expr(a, &format!("{}()'s signal", f.name))?;
                    if let Expr::Int(n) = sig {
                        if !(1..=64).contains(&n) {
                            if f.hook == FnHook::SignalThread {
                                return Err(Diagnostic::new(a.span.clone(), "signal_thread() accepts a string literal or an integer between 1 and 64 (inclusive)").label("no such signal").hint("name the signal, signal_thread(\"SIGSTOP\"), or give its number from 1 to 64"));
                            }
                            return Err(Diagnostic::new(a.span.clone(), format!("{n} is not a signal")).label("no such signal").hint("signals are 1 to 64, e.g. raise(SIGUSR1) as raise(10)"));
                        }
                    }
                    sig
                }
                None => Expr::Int(SIGSTOP),
            };
            body.push(Stmt::Signal { sig: signal, thread: f.hook == FnHook::SignalThread });
            return Ok(());
        }
        if f.kind == FnKind::Subroutine {
            // `stack();` as a statement traces its value, as in DTrace.
            let (item, v) = self.printed(&ast::Expr { kind: ExprKind::Call(name.clone(), args.to_vec()), span: span.clone() }, false)?;
            self.item_sources.insert(items.len(), vec![ArgSource { span: span.clone(), text: String::new() }]);
            items.push(item);
            body.push(Stmt::Emit { item: items.len() - 1, args: vec![v] });
            return Ok(());
        }
        if f.kind == FnKind::Aggregating {
            return Err(Diagnostic::new(name.span.clone(), format!("`{}()` is an aggregating function", f.name))
                .label("used as a statement")
                .hint(format!("assign it to an aggregation: `@name[key] = {}`", f.signature)));
        }
        if f.hook == FnHook::Printa {
            return self.printa(name, args, span, body, items);
        }
        if f.hook == FnHook::Delete {
            return self.delete(args, span, body);
        }
        if f.hook == FnHook::Clear && name.name == "zero" && args.len() == 1 && self.zero_map(&args[0], body, items)? {
            return Ok(());
        }
        if f.hook == FnHook::Clear && name.name == "clear" && args.len() == 1 && self.clear_map(&args[0], body, items)? {
            return Ok(());
        }
        // An element of a map of tuples (`print(@m[k].0)`, lowered to its element's map) is a
        // value, as bpftrace prints it.
        let tuple_element = |a: &ast::AggRef| !a.keys.is_empty() && crate::tuples::split_element_name(&a.name).is_some();
        if f.hook == FnHook::Print && self.bpftrace() && matches!(args.first().map(|a| &a.kind), Some(ExprKind::Agg(a)) if !tuple_element(a)) {
            check_arity(f, args, span)?;
            let item = self.print_map(args)?;
            items.push(item);
            body.push(Stmt::Emit { item: items.len() - 1, args: vec![] });
            return Ok(());
        }
        if f.hook == FnHook::Print && self.bpftrace() && matches!(args.first().map(|a| &a.kind), Some(ExprKind::Tuple(_) | ExprKind::Record(_))) {
            check_arity(f, args, span)?;
            return self.print_tuple(&args[0], body, items);
        }
        if f.hook == FnHook::Print && args.len() > 1 {
            return Err(Diagnostic::new(args[1].span.clone(), "print() of a value takes one argument").label("one too many").hint("top and div are for maps: print(@map, 10, 1000)"));
        }
        if f.hook == FnHook::Exit && args.is_empty() && self.bpftrace() {
            items.push(Item::Exit);
            body.push(Stmt::Emit { item: items.len() - 1, args: vec![Expr::Int(0)] });
            return Ok(());
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
        check_arity(f, args, span)?;
        let (item, lowered) = match f.hook {
            FnHook::Printf | FnHook::System | FnHook::Freopen | FnHook::Cat | FnHook::Message { .. } => {
                let fmt = &args[0];
                let pieces = self.format(fmt, "printf()")?;
                if let Some(c) = printf::conversions(&pieces).find(|c| c.is_agg_value()) {
                    return Err(Diagnostic::new(conv_span(fmt, c), "the @ flag is only valid in printa()")
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
                let mut reprs = Vec::new();
                // bpftrace prints a stack, a kernel symbol (ksym()) or a user one (usym()) with
                // %s: the first two conversions become %k and %a.
                let mut stacks_as_s = Vec::new();
                for (n, (c, a)) in convs.iter().zip(rest).enumerate() {
                    let mut t = self.value(a)?;
                    // (A user symbol read back from a variable prints as it was stored.)
                    if c.conv == 'A' && !t.expr.repr().is_frames() && !matches!(t.expr, Expr::Stored(Repr::USym(_), _)) {
                        // The address is recorded with the process it belongs to, and
                        // printed as uaddr() prints it.
                        t = self.user_symbol(USymKind::Addr, t.expr, a, "%A's argument")?;
                    }
                    let v = &t.expr;
                    // A user symbol (usym()) is recorded with its process and printed by
                    // name as bpftrace prints it: it keeps %s.
                    if c.conv == 's' && (v.repr().is_frames() || matches!(v.repr(), Repr::Sym(_) | Repr::USym(_))) && self.bpftrace() {
                        stacks_as_s.push((n, match v.repr() { r if r.is_frames() => 'k', Repr::Sym(_) => 'a', _ => 's' }));
                        reprs.push(self.repr_of(&t));
                        lowered.push(self.own(&t));
                        continue;
                    }
                    // Current bpftrace's %gr: an integer's GFP flags by name.
                    if c.conv == 'g' && !self.bpftrace() {
                        return Err(Diagnostic::new(conv_span(fmt, c), "%gr is bpftrace's conversion")
                            .label("not in D")
                            .hint("print GFP flags by name in a bpftrace program (--dialect bpftrace); in D print the number, %x"));
                    }
                    // bpftrace's buffers print with %r, %rx and %rh, and those print nothing else.
                    if let Some(d) = buffers::conversion(c, v.repr(), &a.span) {
                        return Err(d);
                    }
                    if matches!(v.repr(), Repr::Buf(_)) {
                        reprs.push(self.repr_of(&t));
                        lowered.push(self.own(&t));
                        continue;
                    }
                    if let Some(d) = symbols::stack_conversion(c, v.repr(), &a.span) {
                        return Err(d);
                    }
                    let want_str = matches!(c.arg_kind(), printf::ArgKind::Str);
                    let is_str = !symbols::int_like(v.repr()) && c.conv != 'k';
                    if want_str && !is_str && self.is_user_pointer(t.ty) {
                        let name = self.types.name(t.ty);
                        return Err(Diagnostic::new(a.span.clone(), format!("%{} of `{name}`, a user-space pointer", c.conv))
                            .label("points into the traced process")
                            .hint("read the string with copyinstr(), e.g. copyinstr(arg0)"));
                    }
                    if want_str != is_str {
                        let conv = format!("%{}", c.conv);
                        let pointer = matches!(self.types.real(t.ty), Ok(crate::types::Type::Ptr { .. }));
                        let got = if is_str { "a string".to_string() } else if pointer { format!("a pointer (`{}`)", self.types.name(t.ty)) } else { format!("an integer (`{}`)", self.types.name(t.ty)) };
                        let hint = match (want_str, pointer) {
                            (true, true) => "print a pointer with %p; a kernel string is a `char *` or `char[]` member, read with stringof() if it has another type",
                            (true, false) => "use %d for integers",
                            _ => "use %s for strings",
                        };
                        return Err(Diagnostic::new(a.span.clone(), format!("{conv} expects {}, but this is {got}", if want_str { "a string" } else { "an integer" })).label("wrong type").hint(hint));
                    }
                    if let Some(to) = self.bpftrace_conversion_int(c, &t) {
                        let own = TExpr::new(self.own(&t), t.ty);
                        reprs.push(Repr::Int(to));
                        lowered.push(self.fit(&own, to));
                        continue;
                    }
                    reprs.push(self.repr_of(&t));
                    lowered.push(self.own(&t));
                }
                let mut pieces = pieces;
                for (n, c) in pieces.iter_mut().filter_map(|p| match p { printf::Piece::Conv(c) => Some(c), _ => None }).enumerate() {
                    if let Some((_, conv)) = stacks_as_s.iter().find(|(i, _)| *i == n) {
                        c.conv = *conv;
                    }
                }
                match f.hook {
                    FnHook::System => (Item::System { pieces, args: reprs }, lowered),
                    FnHook::Freopen => (Item::Freopen { pieces, args: reprs }, lowered),
                    FnHook::Cat => (Item::Cat { pieces, args: reprs, max: self.cat_bytes }, lowered),
                    FnHook::Message { error } => (Item::Message { error, pieces, args: reprs, at: SourceAt { span: span.clone(), ..Default::default() } }, lowered),
                    _ => (Item::Printf { pieces, args: reprs }, lowered),
                }
            }
            FnHook::Trace | FnHook::Print => {
                // bpftrace's print(value) prints the value as trace() does (its sink: and a newline).
                let args_record = if f.hook == FnHook::Print { self.print_args(&args[0])? } else { None };
                let (item, v) = match args_record {
                    Some(printed) => printed,
                    None => self.printed(&args[0], f.hook == FnHook::Print && !self.bpftrace())?,
                };
                (item, vec![v])
            }
            FnHook::Exit => (Item::Exit, vec![self.int_expr(&args[0], "exit()'s status")?]),
            FnHook::Commit => (Item::Commit, vec![self.int_expr(&args[0], "commit()'s speculation id")?]),
            FnHook::Discard => (Item::Discard, vec![self.int_expr(&args[0], "discard()'s speculation id")?]),
            FnHook::Clear => (Item::Clear(self.whole_aggregation(name, &args[0])?), vec![]),
            FnHook::Normalize => {
                let agg = self.whole_aggregation(name, &args[0])?;
                (Item::Normalize { agg, by_arg: true }, vec![self.int_expr(&args[1], "normalize()'s divisor")?])
            }
            FnHook::SetOpt => (self.setopt(args)?, vec![]),
            FnHook::Denormalize => (Item::Normalize { agg: self.whole_aggregation(name, &args[0])?, by_arg: false }, vec![]),
            FnHook::Trunc => (Item::Trunc { agg: self.whole_aggregation(name, &args[0])?, keep: None }, vec![]),
            FnHook::Tracemem => self.tracemem(args)?,
            FnHook::Ftruncate => (Item::Ftruncate, vec![]),
            FnHook::Time => {
                if let Some(extra) = args.get(1) {
                    return Err(Diagnostic::new(extra.span.clone(), "time() takes at most one argument").label("one too many").hint("usage: time([format])"));
                }
                let format = match args.first() {
                    Some(ast::Expr { kind: ExprKind::Str(s), .. }) => s.value.clone(),
                    Some(a) => return Err(Diagnostic::new(a.span.clone(), "time() takes a format string").label("not a string literal").hint("write time(\"%H:%M:%S\\n\"): strftime(3)'s conversions")),
                    None => "%H:%M:%S\n".to_string(),
                };
                (Item::Time(format), vec![])
            }
            FnHook::Pcap => self.pcap(args, span)?,
            FnHook::SkbOutput => self.skboutput(args, span)?,
            FnHook::Join => self.join(args, span)?,
            _ => unreachable!("action hook"),
        };
        // The values' sources, for columns named after them: printf()'s after its format.
        let valued = match &item {
            Item::Trace(_) | Item::Print(..) => &args[..args.len().min(1)],
            Item::Printf { .. } => args.get(1..).unwrap_or_default(),
            _ => &[],
        };
        self.item_sources.insert(items.len(), valued.iter().map(|a| ArgSource { span: a.span.clone(), text: String::new() }).collect());
        items.push(item);
        body.push(Stmt::Emit { item: items.len() - 1, args: lowered });
        Ok(())
    }

    /// tracemem(addr, size[, dsize]): `size` bytes at kernel address `addr`, recorded whole.
    fn tracemem(&mut self, args: &[ast::Expr]) -> Result<(Item, Vec<Expr>), Diagnostic> {
        /// A record holds at most 32 KiB; DTrace's own limit is its record size too.
        const MAX: i64 = 16384;
        let size = match const_int(&args[1]) {
            Some(n) if (1..=MAX).contains(&n) => n as u32,
            Some(n) => {
                return Err(Diagnostic::new(args[1].span.clone(), format!("tracemem() size {n} is out of range"))
                    .label("not 1 to 16384")
                    .hint("give the number of bytes to record, 1 to 16384"))
            }
            None => {
                return Err(Diagnostic::new(args[1].span.clone(), "tracemem() needs a constant size")
                    .label("not a constant")
                    .hint("write an integer constant: tracemem(addr, 64), and the bytes to show as the third argument: tracemem(addr, 64, n)"))
            }
        };
        let addr = self.kernel_address(&args[0], "the address given to tracemem()", "tracemem")?;
        let mut lowered = vec![Expr::Object { addr: Box::new(addr), size }];
        if let Some(d) = args.get(2) {
            lowered.push(self.int_expr(d, "tracemem()'s bytes to show")?);
        }
        Ok((Item::Tracemem { size, dynamic: args.len() == 3 }, lowered))
    }

    /// The argument of printa/clear/trunc: a whole aggregation assigned earlier.
    pub(super) fn whole_aggregation(&mut self, name: &ast::Ident, agg: &ast::Expr) -> Result<usize, Diagnostic> {
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

    /// `printa([format,] @a, @b, ...)`: the aggregations, joined by key, must have keys of
    /// the same types (DTrace's `dt_printa_validate()`); the format's plain conversions take
    /// the keys in order (fewer than the keys is fine), its `%@` conversions the values of
    /// the aggregations in order (as in DTrace, any number: past the last aggregation they
    /// print its value again, and aggregations past the last `%@` are not printed).
    pub(super) fn printa(&mut self, name: &ast::Ident, args: &[ast::Expr], span: &Span, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
        let (fmt, aggs) = match args.first() {
            Some(a) if matches!(a.kind, ExprKind::Str(_)) => (Some(a), &args[1..]),
            _ => (None, args),
        };
        if aggs.is_empty() {
            return Err(Diagnostic::new(span.clone(), "printa() needs an aggregation")
                .label(if fmt.is_some() { "a format, but no aggregation to print" } else { "nothing to print" })
                .hint("write printa(@name), or printa(\"format\", @name)"));
        }
        let ids = aggs.iter().map(|a| self.whole_aggregation(name, a)).collect::<Result<Vec<_>, _>>()?;
        let agg_name = |e: &ast::Expr| match &e.kind {
            ExprKind::Agg(a) => a.name.clone(),
            _ => unreachable!("checked"),
        };
        let first = &self.aggs[ids[0]];
        for (e, &id) in aggs.iter().zip(&ids).skip(1) {
            let other = &self.aggs[id];
            let (a, b) = (agg_name(&aggs[0]), agg_name(e));
            if other.keys.len() != first.keys.len() {
                let keys = |n: usize| format!("{n} key{}", if n == 1 { "" } else { "s" });
                return Err(Diagnostic::new(e.span.clone(), format!("`@{b}` has {} and `@{a}` has {}: printa() joins aggregations by key", keys(other.keys.len()), keys(first.keys.len())))
                    .label(keys(other.keys.len()))
                    .related(aggs[0].span.clone(), keys(first.keys.len()))
                    .hint("print aggregations with the same keys together, or each with its own printa()"));
            }
            if let Some(i) = (0..first.keys.len()).find(|&i| !joinable(first.keys[i], other.keys[i])) {
                return Err(Diagnostic::new(e.span.clone(), format!("key {} of `@{b}` is {}, but key {} of `@{a}` is {}", i + 1, other.keys[i].describe(), i + 1, first.keys[i].describe()))
                    .label("key type differs")
                    .related(aggs[0].span.clone(), format!("key {} is {} here", i + 1, first.keys[i].describe()))
                    .hint("printa() joins aggregations by key: the keys at each position must have the same type"));
            }
        }
        let format = match fmt {
            None => None,
            Some(fmt) => {
                let pieces = self.format(fmt, &format!("{}()", name.name))?;
                let keys = self.aggs[ids[0]].keys.clone();
                let a = agg_name(&aggs[0]);
                let mut next = 0;
                for c in printf::conversions(&pieces) {
                    let at = conv_span(fmt, c);
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
                        return Err(Diagnostic::new(at, format!("printa() format has more key conversions than `@{a}` has keys ({})", keys.len()))
                            .label("no key left for this")
                            .hint("print the value with %@d; other conversions take the keys in order"));
                    };
                    if matches!(c.arg_kind(), printf::ArgKind::Stack) != key.is_frames() && (c.conv == 'k' || !want_str) {
                        return Err(Diagnostic::new(at, format!("key {} of `@{a}` is {}, but %{} expects {}", next + 1, key.describe(), c.conv, if c.conv == 'k' { "a stack" } else { "an integer" }))
                            .label("wrong type")
                            .hint(if c.conv == 'k' { "use %k for stack keys, %d or %a for integers" } else { "print a stack key with %k" }));
                    }
                    // DTrace's conversions print scalars and strings: a struct key prints in
                    // printa()'s default layout only.
                    if matches!(key, Repr::Object(_)) {
                        return Err(Diagnostic::new(at, format!("key {} of `@{a}` is a struct or union, which no conversion prints", next + 1))
                            .label("not a scalar or string")
                            .hint(format!("print `@{a}` with printa(@{a}) (its default layout), or key it by the members")));
                    }
                    if !key.is_frames() && want_str == symbols::int_like(*key) {
                        return Err(Diagnostic::new(at, format!("key {} of `@{a}` is {}, but this conversion expects {}", next + 1, if want_str { "an integer" } else { "a string" }, if want_str { "a string" } else { "an integer" }))
                            .label("wrong type")
                            .hint(if want_str { "use %d for integer keys" } else { "use %s for string keys" }));
                    }
                    next += 1;
                }
                Some(pieces)
            }
        };
        items.push(Item::Printa { aggs: ids, format });
        body.push(Stmt::Emit { item: items.len() - 1, args: vec![] });
        Ok(())
    }

    /// The integer bpftrace's printf() reads for integer conversion `c` of `t`: C's, of the
    /// 64-bit value it passes (`%d` an int, `%hu` an unsigned short, `%lx` an unsigned long),
    /// so `printf("%d", 5000000000)` prints 705032704 and `%hhu` of 257 prints 1, as in
    /// bpftrace; D's conversions print the argument's own type.
    fn bpftrace_conversion_int(&mut self, c: &printf::Conv, t: &TExpr) -> Option<crate::ir::IntRepr> {
        if !self.bpftrace() || !matches!(c.conv, 'd' | 'i' | 'u' | 'x' | 'X' | 'o') || !matches!(t.expr.repr(), Repr::Int(_)) {
            return None;
        }
        let size = match c.length.as_str() {
            "hh" => 1,
            "h" => 2,
            "" => 4,
            _ => 8,
        };
        Some(crate::ir::IntRepr { size, signed: matches!(c.conv, 'd' | 'i') })
    }

    /// A format string argument: a string literal that parses as a format.
    pub(super) fn format(&mut self, fmt: &ast::Expr, what: &str) -> Result<Vec<printf::Piece>, Diagnostic> {
        let ExprKind::Str(lit) = &fmt.kind else {
            return Err(Diagnostic::new(fmt.span.clone(), format!("{what} needs a string literal format"))
                .label("not a string literal")
                .hint("write the format inline: printf(\"%d\\n\", x)"));
        };
        printf::parse(&lit.value).map_err(|e| {
            let d = Diagnostic::new(lit.source_span(e.start, e.end), e.message).label("in this format");
            match e.hint { Some(h) => d.hint(h), None => d }
        })
    }
}

/// Where conversion `c` of the format literal `fmt` was written in the source.
fn conv_span(fmt: &ast::Expr, c: &printf::Conv) -> Span {
    match &fmt.kind {
        ExprKind::Str(lit) => lit.source_span(c.start, c.end),
        _ => fmt.span.clone(),
    }
}

/// Whether keys stored as `a` and `b` can be joined by printa(): both integers (of any
/// type, compared by value), both strings, both stacks, or objects of one size.
fn joinable(a: Repr, b: Repr) -> bool {
    match (a, b) {
        (Repr::Int(_), Repr::Int(_)) => true,
        (Repr::StrId | Repr::Str(_), Repr::StrId | Repr::Str(_)) => true,
        (a, b) => a == b,
    }
}

/// SIGSTOP on Linux (`stop()`'s signal).
const SIGSTOP: i64 = 19;

/// The options `setopt()` can change while tracing: those that only change how output is
/// printed (the others size what is loaded).
pub const RUNTIME_OPTIONS: &[&str] = &["quiet", "aggsortkey", "aggsortrev", "aggsortpos", "aggsortkeypos", "aggpack"];

impl Checker<'_> {
    /// `setopt(name [, value])`: both string literals; an option that can change while
    /// tracing, with a value it takes.
    fn setopt(&mut self, args: &[ast::Expr]) -> Result<Item, Diagnostic> {
        let literal = |e: &ast::Expr| match &e.kind {
            ExprKind::Str(s) => Ok(s.value.clone()),
            _ => Err(Diagnostic::new(e.span.clone(), "setopt() takes string literals").label("not a string literal").hint("write the option and its value as strings: setopt(\"aggsortkey\"), setopt(\"aggsortpos\", \"1\")")),
        };
        let name = literal(&args[0])?;
        let value = args.get(1).map(literal).transpose()?;
        if !RUNTIME_OPTIONS.contains(&name.as_str()) {
            let msg = if KNOWN_OPTIONS.contains(&name.as_str()) { format!("option `{name}` cannot change while tracing") } else { format!("unknown option `{name}`") };
            return Err(Diagnostic::new(args[0].span.clone(), msg).label("not a run-time option").hint(format!("setopt() changes {}; set the others with #pragma D option or -x", RUNTIME_OPTIONS.join(", "))));
        }
        apply_option(&mut Options::default(), &name, value.as_deref()).map_err(|(msg, hint)| Diagnostic::new(args.get(1).unwrap_or(&args[0]).span.clone(), msg).label("here").hint(hint))?;
        Ok(Item::SetOpt { name, value })
    }
}
