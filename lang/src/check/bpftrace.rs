//! What the bpftrace dialect reads differently from D: its maps as values (`@m[k]` read,
//! `delete()`, `clear()` of a map that is not an aggregation), `exit()` without a status,
//! positional parameters that are not given (0 or ""), and `$#`.

use super::*;
use crate::builtins;
use crate::dialect::Dialect;

impl Checker<'_> {
    pub(super) fn bpftrace(&self) -> bool {
        self.opts.dialect == Some(Dialect::Bpftrace)
    }

    /// The dialect the program is read in: which builtins it has.
    pub(super) fn dialect(&self) -> Dialect {
        self.opts.dialect.unwrap_or_default()
    }

    /// A bpftrace map is an aggregation or a map of values (a map of tuples' element maps
    /// count as their map), not both: the program's first store into a map that is also an
    /// aggregation is an error, as in bpftrace (else both printed under one name).
    pub(super) fn maps_of_one_kind(&self) -> Result<(), Diagnostic> {
        let aggregation = |array: &str| {
            let name = crate::tuples::split_element_name(array).map_or(array, |(base, _)| base);
            name.strip_prefix('@').is_some_and(|n| self.aggs.iter().any(|g| g.name == n))
        };
        match self.arrays.iter().find(|a| !a.thread && aggregation(&a.name)) {
            Some(a) => {
                let name = crate::tuples::split_element_name(&a.name).map_or(a.name.as_str(), |(base, _)| base);
                Err(Diagnostic::new(a.span.clone(), format!("`{name}` is an aggregation and is given a value"))
                    .label("a value stored into an aggregation")
                    .hint(format!("a map holds aggregated values (count(), sum(), ...) or values it is given, not both: use another map for one of them, e.g. `{name}_v`")))
            }
            None => Ok(()),
        }
    }

    /// `@m[k]` or `@m` used as a value: the map's element (0 or "" if it has none), with its
    /// C type.
    pub(super) fn map_typed(&mut self, a: &ast::AggRef) -> Result<super::ctypes::Typed, Diagnostic> {
        if let Some(id) = self.aggregation_id(&a.name) {
            let v = self.agg_read(id, a)?;
            return Ok(super::ctypes::Typed { val: super::ctypes::Val::Value(v.expr), ty: v.ty });
        }
        if self.aggregation_later(&a.name) {
            // Read for its type in this pass only: the second reads it.
            return Ok(super::ctypes::Typed { val: super::ctypes::Val::Value(Expr::Int(0)), ty: self.c_int("int64_t") });
        }
        self.map_array(a)?;
        self.typed(&map_expr(a))
    }

    /// A compile error if map `@a` holds an aggregation: `what(func)` says what wanted a map
    /// of values instead.
    pub(super) fn refuse_aggregation(&self, a: &ast::AggRef, what: impl FnOnce(&str) -> String, hint: String) -> Result<(), Diagnostic> {
        let Some(id) = self.aggs.iter().position(|x| x.name == a.name) else { return Ok(()) };
        Err(Diagnostic::new(a.span.clone(), what(&self.agg_spans[id].1)).label("an aggregation").related(self.agg_spans[id].0.clone(), "made an aggregation here").hint(hint))
    }

    /// `delete(@m[k])` (bpftrace 0.17) or `delete(@m, k)`: the element goes.
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
        let array = self.map_array(&agg)?;
        let keys = self.array_keys(array, &agg.keys, &agg.span)?;
        body.push(Stmt::DeleteElement { array, keys });
        Ok(())
    }

    /// `delete(...)` as a value (current bpftrace's): 1 if the element was there, else 0.
    pub(super) fn delete_value(&mut self, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        let mut stmts = Vec::new();
        self.delete(args, span, &mut stmts)?;
        let Some(Stmt::DeleteElement { array, keys }) = stmts.first() else { unreachable!("delete() checks into one DeleteElement") };
        let int = self.c_int("int");
        // Tested, then deleted: the keys are read once.
        let (array, mut keys) = (*array, keys.clone());
        let written = match args.first().map(|a| &a.kind) {
            Some(ExprKind::Agg(a)) if !a.keys.is_empty() => &a.keys[..],
            _ => args.get(1..).unwrap_or_default(),
        };
        let mut setup = self.keys_read_once(&mut keys, written)?;
        let was = self.hidden_local(int);
        setup.push(Stmt::SetClauseLocal(was, Expr::HasElement { array, keys: keys.clone() }));
        setup.push(Stmt::DeleteElement { array, keys });
        Ok(TExpr::new(Expr::Seq(setup, Box::new(Expr::ClauseLocal(was))), int))
    }

    /// The associative array that holds map `@m`: a compile error if nothing stores into it.
    pub(super) fn map_array(&mut self, a: &ast::AggRef) -> Result<usize, Diagnostic> {
        self.array(&format!("@{}", a.name), false).ok_or_else(|| {
            Diagnostic::new(a.span.clone(), format!("map `@{}` is never assigned", a.name))
                .label("no value anywhere")
                .hint(format!("store into it somewhere: `@{}[key] = value;` (or make it an aggregation: `@{} = count();`)", a.name, a.name))
        })
    }

    /// bpftrace's `clear(@m)`: every element deleted, of a map of values or of an
    /// aggregation (D's trunc(); bpftrace's zero() is D's clear()). False in D.
    pub(super) fn clear_map(&mut self, arg: &ast::Expr, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<bool, Diagnostic> {
        let ExprKind::Agg(a) = &arg.kind else { return Ok(false) };
        if !self.bpftrace() || !a.keys.is_empty() {
            return Ok(false);
        }
        if let Some(agg) = self.aggs.iter().position(|x| x.name == a.name) {
            items.push(Item::Trunc { agg, keep: None });
            body.push(Stmt::Emit { item: items.len() - 1, args: vec![] });
            return Ok(true);
        }
        let id = self.map_array(a)?;
        items.push(Item::ClearArray(id));
        body.push(Stmt::Emit { item: items.len() - 1, args: vec![] });
        Ok(true)
    }

    /// bpftrace's `zero(@m)` of a map of values: every value set to zero, the keys kept, as
    /// bpftrace 0.17 does (of an aggregation it is D's clear(), handled as that). False if
    /// `@m` is not a map of values.
    pub(super) fn zero_map(&mut self, arg: &ast::Expr, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<bool, Diagnostic> {
        let ExprKind::Agg(a) = &arg.kind else { return Ok(false) };
        if !self.bpftrace() || !a.keys.is_empty() || self.aggs.iter().any(|x| x.name == a.name) {
            return Ok(false);
        }
        let Some(id) = self.array(&format!("@{}", a.name), false) else { return Ok(false) };
        items.push(Item::ZeroArray(id));
        body.push(Stmt::Emit { item: items.len() - 1, args: vec![] });
        Ok(true)
    }

    /// `print(@m[, top[, div]])`: the map now, an aggregation or a map of values.
    pub(super) fn print_map(&mut self, args: &[ast::Expr]) -> Result<Item, Diagnostic> {
        let ExprKind::Agg(a) = &args[0].kind else { unreachable!("checked: a map") };
        if !a.keys.is_empty() {
            return Err(Diagnostic::new(a.span.clone(), "print() takes a whole map").label("keys not allowed here").hint(format!("print(@{}) prints every element; print one value from a scratch variable: $v = @{}[...]; print($v)", a.name, a.name)));
        }
        let limit = |i: usize, what: &str| -> Result<u32, Diagnostic> {
            match args.get(i) {
                None => Ok(0),
                Some(e) => match super::const_int(e) {
                    Some(n) if (0..=u32::MAX as i64).contains(&n) => Ok(n as u32),
                    _ => Err(Diagnostic::new(e.span.clone(), format!("print()'s {what} must be a constant from 0 up")).label("not a count").hint("print(@map, top, div): e.g. print(@bytes, 10, 1024)")),
                },
            }
        };
        let (top, div) = (limit(1, "top")?, limit(2, "divisor")?);
        let map = match self.aggs.iter().position(|x| x.name == a.name) {
            Some(id) => MapRef::Aggregation(id),
            None => MapRef::Array(self.map_array(a)?),
        };
        Ok(Item::PrintMap { map, top, div })
    }

    /// `has_key(@m, k...)`: whether the map has the element.
    pub(super) fn has_key(&mut self, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        let Some(ast::Expr { kind: ExprKind::Agg(a), .. }) = args.first() else {
            return Err(Diagnostic::new(span.clone(), "has_key() takes a map and a key").label("not a map").hint("write has_key(@map, key)"));
        };
        if !a.keys.is_empty() || self.aggs.iter().any(|x| x.name == a.name) {
            return Err(Diagnostic::new(a.span.clone(), "has_key() takes a map of values and its keys").label("not a map of values").hint(format!("write has_key(@{}, key)", a.name)));
        }
        let array = self.map_array(a)?;
        let keys = self.array_keys(array, &args[1..], span)?;
        Ok(TExpr::new(Expr::HasElement { array, keys }, self.c_int("int")))
    }

    /// `len(@m)`: how many elements the map of values has.
    pub(super) fn map_len(&mut self, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        let [ast::Expr { kind: ExprKind::Agg(a), .. }] = args else {
            if let [arg] = args {
                if let Some(len) = self.stack_len(arg)? {
                    return Ok(len);
                }
            }
            return Err(Diagnostic::new(span.clone(), "len() takes a map").label("not a map").hint("write len(@map), or len(kstack) and len(ustack) for a stack's frames"));
        };
        if !a.keys.is_empty() {
            return Err(Diagnostic::new(a.span.clone(), "len() takes a whole map").label("keys given").hint(format!("write len(@{})", a.name)));
        }
        self.refuse_aggregation(a, |func| format!("len() counts a map of values; @{} holds {func}()", a.name), format!("count the keys in a map of their own: `@{}_keys[key] = 1`, then len(@{}_keys)", a.name, a.name))?;
        let array = self.map_array(a)?;
        Ok(TExpr::new(Expr::MapLen(array), self.c_int("int64_t")))
    }

    /// `len(kstack)`, `len(ustack(5))`, ... (current bpftrace's): how many frames the stack
    /// taken here has, counted in the kernel; `None` if `arg` is not a stack. A stack kept in
    /// a variable or map is an error: only its id is kept there.
    fn stack_len(&mut self, arg: &ast::Expr) -> Result<Option<TExpr>, Diagnostic> {
        let v = self.value(arg)?;
        let user = match self.repr_of(&v) {
            Repr::Stack(_) => false,
            Repr::UStack(_) => true,
            _ => return Ok(None),
        };
        let frames = match &v.expr {
            Expr::Stack(crate::ir::StackUse::Frames(n, _)) => *n,
            Expr::UStack(crate::ir::UStackUse::Frames(n, _)) => *n,
            _ => {
                return Err(Diagnostic::new(arg.span.clone(), "len() of a stack kept in a variable or a map is not in crumbs")
                    .label("a kept stack")
                    .hint("take len(kstack) or len(ustack) where the stack is taken, and keep that number"))
            }
        };
        Ok(Some(TExpr::new(Expr::Var(VarHook::StackLen { user, frames }), self.c_int("int64_t"))))
    }

    /// `while (cond) { body }`.
    pub(super) fn while_loop(&mut self, cond: &ast::Expr, stmts: &[ast::Stmt], items: &mut Vec<Item>) -> Result<Stmt, Diagnostic> {
        let cond = self.condition(cond, "the condition of `while`")?;
        let body = self.loop_body(stmts, items)?;
        Ok(Stmt::While { cond, body })
    }

    /// bpftrace's `print((a, b, ...))`: the elements as print() prints each, in parentheses
    /// and joined by ", " (`(1, hello, (2, 3))`): a printf() whose conversions the
    /// elements' types choose.
    pub(super) fn print_tuple(&mut self, tuple: &ast::Expr, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
        let mut format = String::new();
        let mut leaves = Vec::new();
        self.tuple_format(tuple, false, &mut format, &mut leaves)?;
        format.push('\n');
        let sp = tuple.span.clone();
        let origin = vec![sp.start as u32; format.len() + 1];
        let fmt = ast::Expr { kind: ExprKind::Str(ast::StrLit { value: format, origin }), span: sp.clone() };
        let printf = ast::Ident { name: "printf".into(), span: sp.clone() };
        self.action(&printf, &std::iter::once(fmt).chain(leaves).collect::<Vec<_>>(), &sp, body, items)
    }

    /// The printf format printing tuple or record `e` as bpftrace does, `(1, a)` and
    /// `{ .n = 1, .name = a }` (strings unquoted, as current bpftrace's text output writes
    /// them, though its docs show them quoted), and its scalar elements.
    fn tuple_format(&mut self, e: &ast::Expr, in_record: bool, format: &mut String, leaves: &mut Vec<ast::Expr>) -> Result<(), Diagnostic> {
        if let ExprKind::Record(fields) = &e.kind {
            format.push_str("{ ");
            for (i, (name, x)) in fields.iter().enumerate() {
                if i > 0 {
                    format.push_str(", ");
                }
                format.push_str(&format!(".{} = ", name.name));
                self.tuple_format(x, true, format, leaves)?;
            }
            format.push_str(" }");
            return Ok(());
        }
        let ExprKind::Tuple(elems) = &e.kind else {
            let t = self.value(e)?;
            let pointer = matches!(self.types.real(t.ty), Ok(crate::types::Type::Ptr { .. }));
            format.push_str(match self.repr_of(&t) {
                // Current bpftrace prints a pointer in hex; only records and what is in them
                // are its alone, as 0.17 prints a tuple's pointer as a signed 64-bit number.
                Repr::Int(_) if pointer && in_record => "0x%lx",
                Repr::Int(_) if pointer => "%ld",
                // The conversion's width is the value's: `%d` would keep 32 bits of 64.
                Repr::Int(i) if i.size == 8 && !i.signed => "%lu",
                Repr::Int(i) if i.size == 8 => "%ld",
                Repr::Int(i) if !i.signed => "%u",
                Repr::Int(_) => "%d",
                _ => "%s",
            });
            leaves.push(e.clone());
            return Ok(());
        };
        format.push('(');
        for (i, x) in elems.iter().enumerate() {
            if i > 0 {
                format.push_str(", ");
            }
            self.tuple_format(x, in_record, format, leaves)?;
        }
        format.push(')');
        Ok(())
    }

    /// bpftrace's `for ($kv : @m) { body }` (a range is a `while` by now, tuples.rs): the
    /// body runs once per element, with `$kv.0` its key (`$kv.0.N` each of several keys) and
    /// `$kv.1` its value, as tuples.rs names a tuple's elements.
    pub(super) fn for_loop(&mut self, var: &ast::Ident, iter: &ast::ForIter, stmts: &[ast::Stmt], items: &mut Vec<Item>) -> Result<Stmt, Diagnostic> {
        let ast::ForIter::Map(m) = iter else { unreachable!("tuples.rs lowers a range loop to a while") };
        // An aggregation is walked in the map of values that keeps its merged value
        // (agg_reads.rs); avg's, its sum's, each element divided by its count.
        if self.aggregation_later(&m.name) {
            // Walked in the second pass, which knows the aggregation's keys.
            return Ok(Stmt::Break);
        }
        let agg = self.aggregation_id(&m.name);
        let (array, owner) = match agg {
            Some(id) => (self.read_arrays(id, m, "walked by `for`")?[0], format!("aggregation @{}", m.name)),
            None => (self.map_array(m)?, format!("associative array @{}", m.name)),
        };
        let reprs = match self.arrays[array].keys.clone() {
            Some(k) => k,
            None => {
                self.second_pass_needed = true;
                Vec::new()
            }
        };
        let mut key_types = Vec::new();
        for (i, r) in reprs.iter().enumerate() {
            key_types.push(match *r {
                Repr::Int(i) => self.c_int(int_type_name(i)),
                // A string key kept as an id (a constant, probefunc) cannot be read back as
                // text in the kernel: every use keeps it in a buffer instead.
                Repr::StrId => {
                    self.key_buffers.insert((owner.clone(), i), self.strsize);
                    self.second_pass_needed = true;
                    self.c_string()
                }
                Repr::Str(_) => self.c_string(),
                // An array key: an array of its elements' type, copied into the loop's variable.
                Repr::Array(e, n) => {
                    let elem = self.c_int(int_type_name(e));
                    self.types.add(crate::types::Type::Array { elem, len: n })
                }
                // A struct or union key: the type of its first use, copied whole into the
                // loop's variable.
                Repr::Object(_) if self.key_types.contains_key(&(owner.clone(), i)) => self.key_types[&(owner.clone(), i)],
                r => {
                    return Err(Diagnostic::new(m.span.clone(), format!("`for` over @{}, whose key #{} is {}, is not in crumbs yet", m.name, i + 1, r.describe()))
                        .label("a key that is not an integer or a string")
                        .hint("loop over a map keyed by integers and strings"))
                }
            });
        }
        let value_type = self.var_type(VarRef::Array(array));
        let local = |cx: &mut Self, path: &str, ty| -> Result<usize, Diagnostic> {
            let name = crate::tuples::element_name(&var.name, path);
            let l = match cx.clause_locals.iter().position(|n| *n == name) {
                Some(l) => l,
                None => {
                    cx.clause_locals.push(name.clone());
                    cx.clause_locals.len() - 1
                }
            };
            match cx.var_types.get(&VarRef::Clause(l)).copied() {
                Some(t) if !cx.same_type(t, ty) => {
                    let (old, new) = (cx.types.name(t), cx.types.name(ty));
                    Err(Diagnostic::new(var.span.clone(), format!("`{name}` is a `{old}` elsewhere, a `{new}` here")).label("type differs").hint("a variable keeps one type: name this loop's variable differently"))
                }
                _ => {
                    cx.var_types.insert(VarRef::Clause(l), ty);
                    Ok(l)
                }
            }
        };
        // Keys that nest tuples or records are named by their paths (`$kv.0.1.0`).
        let keys = match (key_types.len(), self.key_paths.get(&m.name).cloned()) {
            (_, Some(paths)) if paths.len() == key_types.len() => paths.iter().zip(&key_types).map(|(p, t)| local(self, &format!(".0{p}"), *t)).collect::<Result<_, _>>()?,
            (1, _) => vec![local(self, ".0", key_types[0])?],
            _ => key_types.iter().enumerate().map(|(i, t)| local(self, &format!(".0.{i}"), *t)).collect::<Result<_, _>>()?,
        };
        let value = local(self, ".1", value_type)?;
        let (walked, mut body) = match agg {
            Some(id) if self.aggs[id].read.len() == 2 => {
                let sum = self.hidden_local(value_type);
                let avg = self.agg_loop_value(id, sum, &keys);
                (sum, vec![Stmt::SetClauseLocal(value, avg)])
            }
            _ => (value, Vec::new()),
        };
        body.extend(self.loop_body(stmts, items)?);
        Ok(Stmt::ForMap { array, keys, value: walked, body })
    }

    /// A loop's statements. An output action among them makes the clause send each output
    /// action as a record of its own (a clause's one record has room for each action once).
    fn loop_body(&mut self, stmts: &[ast::Stmt], items: &mut Vec<Item>) -> Result<Vec<Stmt>, Diagnostic> {
        let before = items.len();
        let mut body = Vec::new();
        self.loop_depth += 1;
        let r = stmts.iter().try_for_each(|s| self.stmt(s, &mut body, items));
        self.loop_depth -= 1;
        r?;
        if items.len() > before || body.iter().any(|s| s.any(&mut |n| matches!(n, crate::ir::Node::Stmt(Stmt::Emit { .. })))) {
            self.sends_each_output = true;
        }
        Ok(body)
    }

    /// Each output action of the clause as a record of its own, sent when it runs: a loop
    /// prints as many times as it goes round, in order with what the clause prints around
    /// it.
    pub(super) fn send_each_output(&mut self, body: &mut [Stmt], items: &mut Vec<Item>, clause: &Span) -> Result<(), Diagnostic> {
        if items.iter().any(|i| matches!(i, Item::Commit | Item::Discard)) || body.iter().any(|s| s.any(&mut |n| matches!(n, crate::ir::Node::Stmt(Stmt::Speculate(_))))) {
            return Err(Diagnostic::new(clause.clone(), "a clause that prints inside a loop cannot use speculations")
                .label("speculate(), commit() or discard() with output in a loop")
                .hint("move the loop's output, or the speculation, into a clause of its own"));
        }
        type Sources = std::collections::HashMap<usize, Vec<crate::ir::ArgSource>>;
        fn each(stmts: &mut [Stmt], items: &[Item], sources: &Sources, records: &mut Vec<Record>) {
            for s in stmts {
                match s {
                    Stmt::Emit { item, args } => {
                        let source = sources.get(item).cloned().unwrap_or_default();
                        records.push(Record { items: vec![items[*item].clone()], guarded: false, sources: vec![source] });
                        *s = Stmt::Send { record: records.len() - 1, args: std::mem::take(args) };
                    }
                    Stmt::If { then, els, .. } => {
                        each(then, items, sources, records);
                        each(els, items, sources, records);
                    }
                    Stmt::While { body, .. } | Stmt::ForMap { body, .. } => each(body, items, sources, records),
                    _ => {}
                }
            }
        }
        let sources = std::mem::take(&mut self.item_sources);
        each(body, items, &sources, &mut self.records);
        items.clear();
        Ok(())
    }

    /// `break`/`continue` (inside a `while`) and `return`.
    pub(super) fn jump(&mut self, jump: ast::Jump, span: &Span) -> Result<Stmt, Diagnostic> {
        Ok(match jump {
            ast::Jump::Return => Stmt::Return,
            _ if self.loop_depth == 0 => {
                let word = if jump == ast::Jump::Break { "break" } else { "continue" };
                return Err(Diagnostic::new(span.clone(), format!("`{word}` outside a loop")).label("no loop around it").hint(format!("{word} leaves or restarts the while loop it is in")));
            }
            ast::Jump::Break => Stmt::Break,
            ast::Jump::Continue => Stmt::Continue,
        })
    }

    /// `kaddr("symbol")` and `cgroupid("path")`: what the running system says when the
    /// program is compiled.
    pub(super) fn compiled_constant(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let ExprKind::Str(s) = &args[0].kind else {
            return Err(Diagnostic::new(args[0].span.clone(), format!("{}() takes a string literal", f.name)).label("not a literal").hint(format!("usage: {}", f.signature)));
        };
        let Some(facts) = self.opts.facts.clone() else {
            return Err(Diagnostic::new(span.clone(), format!("{}() needs the running system", f.name)).label("not known here").hint("run the program on the machine it traces"));
        };
        let value = match f.hook {
            FnHook::KernelAddr => facts.kernel_symbol(&s.value).and_then(|a| a.ok_or_else(|| format!("the kernel has no symbol `{}`", s.value))),
            _ => facts.cgroup_id(&s.value),
        };
        let v = value.map_err(|m| Diagnostic::new(args[0].span.clone(), m).label("not found").hint(format!("usage: {}", f.signature)))?;
        Ok(TExpr::new(Expr::Int(v as i64), self.c_int("uint64_t")))
    }

    /// `getopt("name"[, default[, "description"]])`: the named parameter `--name=value` (or
    /// `--name`) among the program's arguments, as the default's type reads it (an integer,
    /// a string, `true`/`false`); without a default, 1 if `--name` is given, else 0.
    pub(super) fn getopt(&mut self, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        let usage = "getopt(\"name\"[, default[, \"description\"]])";
        let Some(ast::Expr { kind: ExprKind::Str(name), .. }) = args.first() else {
            return Err(Diagnostic::new(span.clone(), "getopt() takes a parameter's name as a string literal").label("no name").hint(format!("write {usage}")));
        };
        if args.len() > 3 {
            return Err(Diagnostic::new(args[3].span.clone(), "getopt() takes at most three arguments").label("one too many").hint(format!("write {usage}")));
        }
        let description = match args.get(2).map(|a| &a.kind) {
            Some(ExprKind::Str(d)) => d.value.clone(),
            _ => String::new(),
        };
        if !self.getopts.iter().any(|(n, _)| *n == name.value) {
            self.getopts.push((name.value.clone(), description));
        }
        let given = self.opts.named.iter().chain(self.opts.args.iter().skip(1)).find_map(|a| {
            let rest = a.strip_prefix("--")?.strip_prefix(name.value.as_str())?;
            if rest.is_empty() {
                Some(None)
            } else {
                rest.strip_prefix('=').map(|v| Some(v.to_string()))
            }
        });
        let boolean = |e: &ast::Expr| matches!(&e.kind, ExprKind::Ident(b) if b == "true" || b == "false");
        match args.get(1) {
            None => Ok(TExpr::new(Expr::Int(given.is_some() as i64), self.c_int("int"))),
            Some(d) if boolean(d) => {
                let value = match given {
                    None => matches!(&d.kind, ExprKind::Ident(b) if b == "true"),
                    Some(None) => true,
                    Some(Some(v)) => match v.as_str() {
                        "true" | "1" | "yes" | "on" => true,
                        "false" | "0" | "no" | "off" => false,
                        _ => return Err(Diagnostic::new(d.span.clone(), format!("--{}={v} is not true or false", name.value)).label("a boolean parameter").hint("give --name, --name=true or --name=false")),
                    },
                };
                Ok(TExpr::new(Expr::Int(value as i64), self.c_int("int")))
            }
            Some(ast::Expr { kind: ExprKind::Str(s), .. }) => {
                let text = match given {
                    Some(Some(v)) => v,
                    Some(None) => String::new(),
                    None => s.value.clone(),
                };
                let id = self.strings.intern(&text);
                Ok(TExpr::new(Expr::Str(StrExpr::Const(id)), self.c_string()))
            }
            Some(d) => {
                let Some(default) = super::const_int(d) else {
                    return Err(Diagnostic::new(d.span.clone(), "getopt()'s default must be a constant").label("not a constant").hint("give an integer, a string literal, true or false"));
                };
                let value = match given {
                    Some(Some(v)) => crate::parse::integer_literal(&v).ok_or_else(|| Diagnostic::new(d.span.clone(), format!("--{}={v} is not an integer", name.value)).label("an integer parameter").hint(format!("give --{}=N", name.value)))?,
                    _ => default,
                };
                Ok(TExpr::new(Expr::Int(value), self.c_int("int64_t")))
            }
        }
    }

    /// `s[i]` of a string: its byte at `i`, a `char` (a literal's at a constant index is
    /// that constant; past the string's buffer, 0).
    pub(super) fn string_byte(&mut self, base: &ast::Expr, i: Expr) -> Result<super::ctypes::Typed, Diagnostic> {
        let char_type = self.c_int("char");
        let value = match (&base.kind, &i) {
            (ExprKind::Str(lit), Expr::Int(k)) => Expr::Int(usize::try_from(*k).ok().and_then(|k| lit.value.as_bytes().get(k)).map_or(0, |b| *b as i8 as i64)),
            _ => {
                let s = self.string_arg(base, "[]")?;
                Expr::IntCall { f: crate::ir::IntFn::ByteAt, args: vec![StrArg::Str(s), StrArg::Int(i)] }
            }
        };
        Ok(super::ctypes::Typed { val: super::ctypes::Val::Value(value), ty: char_type })
    }

    /// `$N` that is not given: 0 (or "" where a string is wanted, which bpftrace decides
    /// by use; here an integer), and `$#`, how many are given.
    pub(super) fn positional(&mut self, m: &str) -> Option<TExpr> {
        if m == "__start" {
            return Some(TExpr::new(Expr::Int(self.opts.start_ns as i64), self.c_int("uint64_t")));
        }
        if m == "#" {
            return Some(TExpr::new(Expr::Int(self.opts.args.len().saturating_sub(1) as i64), self.c_int("int64_t")));
        }
        // `$$N` (str($N) in bpftrace) not given is "".
        if let Some(n) = m.strip_prefix('$').and_then(|n| n.parse::<usize>().ok()) {
            let empty = self.strings.intern("");
            let string = self.c_string();
            return (n >= self.opts.args.len()).then(|| TExpr::new(Expr::Str(StrExpr::Const(empty)), string));
        }
        let n: usize = m.parse().ok()?;
        (n >= self.opts.args.len()).then(|| TExpr::new(Expr::Int(0), self.c_int("int64_t")))
    }
}

/// The D name of an integer type of this width and sign (D's own typedefs).
fn int_type_name(i: crate::ir::IntRepr) -> &'static str {
    crate::types::BUILTIN_TYPEDEFS.iter().find(|(_, size, signed)| *size == i.size && *signed == i.signed).map_or("int64_t", |(name, ..)| name)
}

/// The expression `@m[k]` reads in D's terms: an element of the associative array `@m` (the
/// name the parser gives a map that is stored into; `@m` without keys: its one element).
fn map_expr(a: &ast::AggRef) -> ast::Expr {
    let name = ast::Expr { kind: ExprKind::Ident(format!("@{}", a.name)), span: a.span.start..a.span.start + 1 + a.name.len() };
    ast::Expr { kind: ExprKind::Index(Box::new(name), a.keys.clone()), span: a.span.clone() }
}
