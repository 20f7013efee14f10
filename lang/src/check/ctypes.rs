//! Expressions with C types: casts, `->`, `.`, `[]`, `*`, `&`, `sizeof`, `offsetof` and the
//! typed builtins (`curthread`). An object in kernel memory is a [`Place`] (its address)
//! until a scalar is needed; then it is loaded at its type's width. Kernel memory is read
//! only through the probe-read helpers; user memory only through copyin/copyinstr.

use super::*;
use crate::ast::{BaseType, TypeName};
use crate::facts::TypeSpace;
use crate::types::{AddrSpace, Type, TypeId};

/// A checked expression and its C type.
pub(super) struct Typed {
    pub val: Val,
    pub ty: TypeId,
}

pub(super) enum Val {
    /// A value computed into a register.
    Value(Expr),
    /// An object at this kernel address (a struct, an array, or a scalar not loaded yet).
    Place(Expr),
}

/// A checked value as a typed one: a struct variable's bytes are an object at its buffer's
/// address, whose members are read from there.
fn placed(v: TExpr) -> Typed {
    match v.expr {
        Expr::Object { addr, .. } => Typed { val: Val::Place(*addr), ty: v.ty },
        e => Typed { val: Val::Value(e), ty: v.ty },
    }
}

pub(super) fn add_offset(addr: Expr, off: i64) -> Expr {
    match (addr, off) {
        (a, 0) => a,
        (Expr::Binary(BinOp::Add, a, b), off) if matches!(*b, Expr::Int(_)) => {
            let Expr::Int(k) = *b else { unreachable!() };
            Expr::Binary(BinOp::Add, a, Box::new(Expr::Int(k.wrapping_add(off))))
        }
        (a, off) => Expr::Binary(BinOp::Add, Box::new(a), Box::new(Expr::Int(off))),
    }
}

/// Index `i` of an array of `len` elements (`what` in the hint): a constant past the end is
/// an error; a computed one is checked when the probe fires.
pub(super) fn bounded(i: Expr, len: u32, at: &Span, what: &str) -> Result<Expr, Diagnostic> {
    match i {
        Expr::Int(k) if (k as u64) >= len as u64 => Err(Diagnostic::new(at.clone(), format!("index outside array bounds: {k}, max is {len}"))
            .label("past the end")
            .hint(format!("{what} has {len} elements, indexed 0 to {}", len - 1))),
        i @ Expr::Int(_) => Ok(i),
        i => Ok(Expr::Bounded { index: Box::new(i), len: len as u64 }),
    }
}

/// `n` elements of `size` bytes, in bytes (what pointer arithmetic and indexing add).
pub(super) fn scaled(n: Expr, size: i64) -> Expr {
    match n {
        Expr::Int(k) => Expr::Int(k.wrapping_mul(size)),
        n if size == 1 => n,
        n => Expr::Binary(BinOp::Mul, Box::new(n), Box::new(Expr::Int(size))),
    }
}

pub(super) fn no_types(span: &Span, e: String) -> Diagnostic {
    Diagnostic::new(span.clone(), format!("cannot read the kernel's types: {e}")).label("needs kernel types").hint("crumbs reads them from /sys/kernel/btf (a kernel built with CONFIG_DEBUG_INFO_BTF)")
}

impl Checker<'_> {
    /// The type a type name names (its pointers are kernel pointers, as a cast's are).
    pub(super) fn type_of_name(&mut self, t: &TypeName) -> Result<TypeId, Diagnostic> {
        self.type_of_name_in(t, AddrSpace::Kernel)
    }

    /// The type a type name names, with its pointers into `space`.
    pub(super) fn type_of_name_in(&mut self, t: &TypeName, space: AddrSpace) -> Result<TypeId, Diagnostic> {
        let span = &t.span;
        // `string[64]`: a string (its size a let or a cast keeps, postfix_types.rs).
        let sized = postfix_types::sized_kind(t);
        let base = match &t.base {
            _ if sized == Some("string") => self.c_string(),
            _ if sized.is_some() => return Err(postfix_types::sized_not_in_crumbs(t)),
            BaseType::Named(words) if words.len() == 1 && words[0] == "void" => self.types.void(),
            BaseType::Named(words) => match crate::types::int_from_keywords(words) {
                Some(i) => self.types.int_of(i),
                None if words.len() == 1 => match self.types.lookup(TypeSpace::Ordinary, &words[0]).map_err(|e| no_types(span, e))? {
                    Some(id) => id,
                    None => {
                        return Err(Diagnostic::new(span.clone(), format!("unknown type `{}`", words[0]))
                            .label("no such type")
                            .hint("integer types are char, short, int, long, long long (signed or unsigned), int8_t..uint64_t, size_t; kernel typedefs come from its BTF"))
                    }
                },
                None => return Err(Diagnostic::new(span.clone(), format!("`{}` is not a type", words.join(" "))).label("not a C type").hint("write e.g. `unsigned long` or `long long`")),
            },
            // `typeof(expr)`: its type, the expression never run (as sizeof's).
            BaseType::TypeOf(e) => self.typed(&e.0)?.ty,
            BaseType::Struct(n) | BaseType::Union(n) | BaseType::Enum(n) => {
                let (space, kw) = match &t.base {
                    BaseType::Struct(_) => (TypeSpace::Struct, "struct"),
                    BaseType::Union(_) => (TypeSpace::Union, "union"),
                    _ => (TypeSpace::Enum, "enum"),
                };
                match self.types.lookup(space, n).map_err(|e| no_types(span, e))? {
                    Some(id) => id,
                    None => {
                        return Err(Diagnostic::new(span.clone(), format!("unknown type `{kw} {n}`"))
                            .label(format!("no {kw} {n} in the kernel or the script"))
                            .hint("kernel types come from /sys/kernel/btf (vmlinux and loaded modules); check the spelling, or declare it in the script"))
                    }
                }
            }
        };
        let mut id = base;
        for _ in 0..t.pointers {
            id = self.types.pointer(id, space);
        }
        self.postfix_type(id, t, space)
    }

    /// A C-typed expression.
    pub(super) fn typed(&mut self, e: &ast::Expr) -> Result<Typed, Diagnostic> {
        let span = &e.span;
        let types_err = |e: String| no_types(span, e);
        // Inside a translator's member: its input's name, and translated members.
        if let ExprKind::Ident(n) = &e.kind {
            if let Some(input) = self.binding(n) {
                return self.bound(&input, |cx, input| cx.typed(input));
            }
            // An inline that is a translation (curpsinfo), used whole: said where it is used
            // (its own text may be stdlib's).
            if self.translated(e)?.is_some() {
                return Err(translators::whole_translation(span));
            }
        }
        if let ExprKind::Member { base, member, arrow: false } = &e.kind {
            if let Some(v) = self.typeinfo_field(base, member)? {
                return Ok(placed(v));
            }
        }
        if let ExprKind::Member { base, member, arrow } = &e.kind {
            // A stable probe's translated argument: args[0]->pr_pid.
            let stable = self.stable_translation(base)?;
            if let Some((t, input, pointer)) = self.translated(stable.as_ref().unwrap_or(base))? {
                if pointer != *arrow {
                    let (op, other) = if *arrow { ("->", ".") } else { (".", "->") };
                    return Err(Diagnostic::new(span.clone(), format!("`{op}` on a translated {}", if pointer { "pointer" } else { "struct" })).label("wrong operator").hint(format!("use `{other}{}`", member.name)));
                }
                return self.translated_member(t, &input, member);
            }
        }
        Ok(match &e.kind {
            ExprKind::Ident(n) if builtins::variable(n, self.dialect()).is_some_and(|v| matches!(v.ty, VarType::Kernel(_))) => {
                let v = builtins::variable(n, self.dialect()).expect("checked");
                let VarType::Kernel(strukt) = v.ty else { unreachable!() };
                let Some(target) = self.types.lookup(TypeSpace::Struct, strukt).map_err(types_err)? else {
                    return Err(Diagnostic::new(span.clone(), format!("the kernel has no `struct {strukt}`")).label("needs it").hint("this kernel's BTF lacks the type"));
                };
                Typed { val: Val::Value(Expr::Var(v.hook)), ty: self.types.pointer(target, AddrSpace::Kernel) }
            }
            // An array field of the tracepoint's record, which is kernel memory at the context.
            ExprKind::ArgsField(n) if self.tp_array_field(n).is_some() => {
                let Some((offset, crate::tracepoints::FieldKind::Array { size, signed, char, len })) = self.tp_array_field(n) else { unreachable!() };
                // A plain `char` array is text, whatever signedness the format file gives
                // it (`char name[32]` says signed:0): named `char`, as a BTF one is.
                let plain_char = char && size == 1;
                let name = if plain_char { "char".to_string() } else { format!("{}int{}", if signed { "" } else { "u" }, size as u32 * 8) };
                let elem = self.types.int_of(crate::types::IntType { name, size, signed, char, bool: false });
                let ty = self.types.add(Type::Array { elem, len: len as u32 });
                Typed { val: Val::Place(add_offset(Expr::TpRecord, offset as i64)), ty }
            }
            // Arguments by name, where the clause's probes' prototypes name them.
            ExprKind::ArgsField(n) if self.clause_on_fbt_returns() => self.return_args_named(n, span)?,
            ExprKind::Member { base, member, arrow: false } if matches!(&base.kind, ExprKind::Ident(a) if a == "args") && self.clause_on_fbt_returns() => self.return_args_named(&member.name, &member.span)?,
            // bpftrace's `ctx.task` at an iterator is its context's `task`: args.task.
            ExprKind::Member { base, member, .. } if matches!(&base.kind, ExprKind::Ident(c) if c == "ctx") && self.clause_on_iter() => self.args_named(&member.name, &member.span)?,
            ExprKind::ArgsField(n) if self.clause_args_named() => self.args_named(n, span)?,
            ExprKind::Member { base, member, arrow: false } if matches!(&base.kind, ExprKind::Ident(a) if a == "args") && self.clause_args_named() => self.args_named(&member.name, &member.span)?,
            ExprKind::Cast(t, inner) => {
                if let Some(v) = self.postfix_cast(t, inner, span)? {
                    return Ok(v);
                }
                let ty = self.type_of_name(t)?;
                if let Ok(Type::Int(to)) = self.types.real(ty) {
                    if let Some(v) = self.array_to_int(t, to, inner, span)? {
                        return Ok(Typed { val: Val::Value(v), ty });
                    }
                }
                let v = self.scalar(inner)?;
                let real = self.types.real(ty).map_err(types_err)?;
                let val = match real {
                    // C's (and bpftrace's) conversion to a boolean: 1 for any value not 0.
                    Type::Int(i) if i.bool => Expr::Binary(crate::ast::BinOp::Ne, Box::new(v), Box::new(Expr::Int(0))),
                    Type::Int(i) if i.size < 8 => Expr::Bits { inner: Box::new(v), shift: 0, width: i.size * 8, signed: i.signed },
                    Type::Int(_) | Type::Ptr { .. } | Type::Enum { .. } => v,
                    _ => {
                        let name = self.types.name(ty);
                        return Err(Diagnostic::new(t.span.clone(), format!("cannot cast to `{name}`")).label("not a scalar type").hint("cast to an integer or a pointer type, e.g. (struct file *)arg0"));
                    }
                };
                Typed { val: Val::Value(val), ty }
            }
            ExprKind::Member { base, member, arrow } => {
                self.refuse_read_through_map_address(base)?;
                let b = self.typed(base)?;
                // bpftrace reads `p.member` of a pointer to a struct as `p->member`.
                let through_pointer = !*arrow && self.bpftrace() && matches!(self.types.real(b.ty), Ok(Type::Ptr { to, .. }) if matches!(self.types.real(to), Ok(Type::Struct(_) | Type::Union(_))));
                let (addr, record) = if *arrow || through_pointer {
                    match self.types.real(b.ty).map_err(types_err)? {
                        Type::Ptr { to, space } => {
                            let p = self.value_of(b, &base.span)?;
                            (self.readable(p, space, to, &base.span, "->")?, to)
                        }
                        _ => {
                            let name = self.types.name(b.ty);
                            return Err(Diagnostic::new(base.span.clone(), format!("`->` needs a pointer to a struct or union, but this is `{name}`"))
                                .label("not a pointer")
                                .hint(if matches!(self.types.real(b.ty), Ok(Type::Struct(_) | Type::Union(_))) { "use `.` on a struct value" } else { "cast it first, e.g. ((struct file *)arg0)->f_path" }));
                        }
                    }
                } else {
                    match b.val {
                        Val::Place(a) => (a, b.ty),
                        Val::Value(_) => {
                            let name = self.types.name(b.ty);
                            let hint = if matches!(self.types.real(b.ty), Ok(Type::Ptr { .. })) { "use `->` on a pointer" } else { "`.` reads a member of a struct or union" };
                            return Err(Diagnostic::new(base.span.clone(), format!("`.` needs a struct or union, but this is `{name}`")).label("not a struct").hint(hint));
                        }
                    }
                };
                if !matches!(self.types.real(record).map_err(types_err)?, Type::Struct(_) | Type::Union(_)) {
                    let name = self.types.name(record);
                    let op = if *arrow { "->" } else { "." };
                    return Err(Diagnostic::new(base.span.clone(), format!("`{op}{}` needs a struct or union, but this is `{name}`", member.name)).label("no members").hint("members belong to structs and unions"));
                }
                let found = self.find_member(record, member, None)?;
                if found.bit_size > 0 {
                    let int = self.types.as_int(found.ty).map_err(types_err)?.unwrap_or(crate::types::IntType { name: "unsigned int".into(), size: 4, signed: false, char: false, bool: false });
                    let shift = found.bit_offset % 8;
                    let need = (shift + found.bit_size).div_ceil(8);
                    let size = [1u32, 2, 4, 8].into_iter().find(|s| *s >= need).unwrap_or(8) as u8;
                    let word = Expr::Load { addr: Box::new(add_offset(addr, (found.bit_offset / 8) as i64)), size, signed: false };
                    let val = Expr::Bits { inner: Box::new(word), shift: shift as u8, width: found.bit_size as u8, signed: int.signed };
                    Typed { val: Val::Value(val), ty: found.ty }
                } else {
                    Typed { val: Val::Place(add_offset(addr, (found.bit_offset / 8) as i64)), ty: found.ty }
                }
            }
            ExprKind::Index(base, keys) if self.indexed_array(base).is_some() => {
                let a = self.indexed_array(base).expect("checked");
                let v = self.element(a, keys, span)?;
                placed(v)
            }
            ExprKind::Index(_, keys) if keys.len() != 1 => {
                let extra = keys[1].span.start..keys[keys.len() - 1].span.end;
                return Err(Diagnostic::new(extra, "`[]` of an array or a pointer takes one index").label("more than one index").hint("several keys index associative arrays only: `a[k1, k2] = ...` declares one"));
            }
            ExprKind::Index(base, index) if matches!(&base.kind, ExprKind::Ident(n) if n == "args") => self.args_index(&index[0], span)?,
            ExprKind::Index(base, index) if matches!(&base.kind, ExprKind::Ident(n) if n == "uregs") => Typed { val: Val::Value(self.user_register(&index[0])?), ty: self.c_int("uint64_t") },
            ExprKind::Index(base, index) => {
                let b = self.typed(base)?;
                let i = self.int_expr(&index[0], "an index")?;
                let (addr, elem, i) = match self.types.real(b.ty).map_err(types_err)? {
                    // Arrays of 0 or 1 elements are left unchecked: they are usually a
                    // struct's variable-length tail, as DTrace leaves them.
                    Type::Array { elem, len } => {
                        let i = if len > 1 { bounded(i, len, &index[0].span, "the array")? } else { i };
                        match b.val {
                            Val::Place(a) | Val::Value(a) => (a, elem, i),
                        }
                    }
                    Type::Ptr { to, space } if space == AddrSpace::User && self.bpftrace() => {
                        // bpftrace reads the process's memory: the element is copied in.
                        let size = self.sized(to, span)? as i64;
                        let p = self.value_of(b, &base.span)?;
                        let at = Expr::Binary(BinOp::Add, Box::new(p), Box::new(scaled(i, size)));
                        return Ok(Typed { val: Val::Place(self.readable(at, space, to, &base.span, "[]")?), ty: to });
                    }
                    Type::Ptr { to, space } => {
                        self.kernel_space(space, &base.span, "[]")?;
                        (self.value_of(b, &base.span)?, to, i)
                    }
                    // bpftrace's `s[i]`: the string's byte, a char (0 past its buffer).
                    Type::String { .. } if self.bpftrace() => return self.string_byte(base, i),
                    _ => {
                        let name = self.types.name(b.ty);
                        return Err(Diagnostic::new(base.span.clone(), format!("`[]` needs an array or a pointer, but this is `{name}`")).label("cannot be indexed").hint("index arrays and pointers"));
                    }
                };
                let size = self.sized(elem, span)? as i64;
                let at = match scaled(i, size) {
                    Expr::Int(k) => add_offset(addr, k),
                    i => Expr::Binary(BinOp::Add, Box::new(addr), Box::new(i)),
                };
                Typed { val: Val::Place(at), ty: elem }
            }
            ExprKind::Deref(inner) => {
                self.refuse_read_through_map_address(inner)?;
                let b = self.typed(inner)?;
                match self.types.real(b.ty).map_err(types_err)? {
                    Type::Ptr { to, space } => {
                        if !(space == AddrSpace::User && self.bpftrace()) {
                            self.kernel_space(space, &inner.span, "*")?;
                        }
                        match self.types.real(to).map_err(types_err)? {
                            Type::Void => return Err(Diagnostic::new(span.clone(), "cannot dereference a `void *`").label("no type to read").hint("cast it to a pointer to what it points at first")),
                            Type::Function => {
                                let name = self.types.name(b.ty);
                                return Err(Diagnostic::new(span.clone(), format!("cannot dereference a function pointer (`{name}`)")).label("points at code").hint("a function pointer's value is the function's address: trace it, or print it with %a to see its name"));
                            }
                            _ => {}
                        }
                        let p = self.value_of(b, &inner.span)?;
                        Typed { val: Val::Place(self.readable(p, space, to, &inner.span, "*")?), ty: to }
                    }
                    Type::Array { elem, .. } => match b.val {
                        Val::Place(a) | Val::Value(a) => Typed { val: Val::Place(a), ty: elem },
                    },
                    _ => {
                        let name = self.types.name(b.ty);
                        return Err(Diagnostic::new(inner.span.clone(), format!("`*` needs a pointer, but this is `{name}`")).label("not a pointer").hint("only pointers can be dereferenced"));
                    }
                }
            }
            ExprKind::AddrOf(inner) if self.bpftrace() && matches!(&inner.kind, ExprKind::ClauseLocal(n) if n.starts_with('$')) => {
                let ExprKind::ClauseLocal(n) = &inner.kind else { unreachable!("matched") };
                self.scratch_address(n, &inner.span)?
            }
            ExprKind::AddrOf(inner) if self.bpftrace() && matches!(&inner.kind, ExprKind::Agg(_)) => {
                let ExprKind::Agg(a) = &inner.kind else { unreachable!("matched") };
                self.map_address(a)?
            }
            ExprKind::AddrOf(inner) => {
                let b = self.typed(inner)?;
                // As D: a variable's own storage has no address a program may keep.
                if matches!(b.val, Val::Place(Expr::VarAddr(_))) && (matches!(&inner.kind, ExprKind::Ident(_) | ExprKind::ThreadLocal(_) | ExprKind::ClauseLocal(_)) || self.indexed_element(inner)) {
                    return Err(Diagnostic::new(inner.span.clone(), "cannot take the address of a variable").label("a D variable").hint("take the address of a member (&x.m), or store a pointer to the kernel's object instead of a copy of it"));
                }
                match b.val {
                    Val::Place(a) => Typed { val: Val::Value(a), ty: self.types.pointer(b.ty, AddrSpace::Kernel) },
                    Val::Value(_) => return Err(Diagnostic::new(inner.span.clone(), "`&` needs an object in memory").label("a value, not an object").hint("take the address of a member, an element or a dereference, e.g. &curthread->comm")),
                }
            }
            // `sizeof(x)` where x is a variable, not a type: the size of the expression.
            ExprKind::SizeofType(TypeName { base: BaseType::Named(w), pointers: 0, suffix, span: ts }) if suffix.is_empty() && w.len() == 1 && crate::types::int_from_keywords(w).is_none() && w[0] != "void" && self.types.lookup(TypeSpace::Ordinary, &w[0]).ok().flatten().is_none() => {
                let inner = ast::Expr { kind: ExprKind::Ident(w[0].clone()), span: ts.clone() };
                let ty = self.typed(&inner)?.ty;
                let size = self.sized(ty, ts)?;
                Typed { val: Val::Value(Expr::Int(size as i64)), ty: self.c_int("size_t") }
            }
            // `sizeof(string[64])` is its size.
            ExprKind::SizeofType(t) if postfix_types::string_size(t).is_some() => {
                let _ = self.type_of_name(t)?;
                Typed { val: Val::Value(Expr::Int(postfix_types::string_size(t).unwrap_or(0) as i64)), ty: self.c_int("size_t") }
            }
            ExprKind::SizeofType(t) => {
                let ty = self.type_of_name(t)?;
                let size = self.sized(ty, &t.span)?;
                Typed { val: Val::Value(Expr::Int(size as i64)), ty: self.c_int("size_t") }
            }
            ExprKind::SizeofExpr(inner) => {
                let ty = self.typed(inner)?.ty;
                let size = self.sized(ty, &inner.span)?;
                Typed { val: Val::Value(Expr::Int(size as i64)), ty: self.c_int("size_t") }
            }
            ExprKind::Offsetof(t, path) => {
                let mut ty = self.type_of_name(t)?;
                let mut bits = 0u32;
                for m in path {
                    let found = self.find_member(ty, m, Some("offsetof(struct T, member) names a member of T"))?;
                    if found.bit_size > 0 {
                        return Err(Diagnostic::new(m.span.clone(), format!("`{}` is a bitfield", m.name)).label("has no byte offset").hint("offsetof does not apply to bitfields, as in C"));
                    }
                    bits += found.bit_offset;
                    ty = found.ty;
                }
                Typed { val: Val::Value(Expr::Int((bits / 8) as i64)), ty: self.c_int("size_t") }
            }
            // bpftrace's map read as the variable or element it is, with its C type.
            ExprKind::Agg(a) if self.bpftrace() => return self.map_typed(a),
            _ => placed(self.plain(e)?),
        })
    }

    /// Member `m` of struct or union `record`, or an error with the closest member's name
    /// as a hint (else `otherwise`, else a list of the members).
    fn find_member(&mut self, record: TypeId, m: &ast::Ident, otherwise: Option<&str>) -> Result<crate::types::Found, Diagnostic> {
        let types_err = |e: String| no_types(&m.span, e);
        if let Some(found) = self.types.member(record, &m.name).map_err(types_err)? {
            return Ok(found);
        }
        let rname = self.types.name(record);
        let names = self.types.member_names(record).map_err(types_err)?;
        let d = Diagnostic::new(m.span.clone(), format!("`{rname}` has no member `{}`", m.name)).label("no such member");
        let d = match (closest(&m.name, names.iter().map(String::as_str)), otherwise) {
            (Some(c), _) => d.hint(format!("did you mean `{c}`?")),
            (None, Some(h)) => d.hint(h),
            (None, None) => d.hint(format!("its members: {}", names.iter().take(12).cloned().collect::<Vec<_>>().join(", "))),
        };
        Err(Diagnostic { alternatives: names, ..d })
    }

    /// Whether `e` is an element of an associative array (`a[k]`, `self->a[k]`).
    fn indexed_element(&self, e: &ast::Expr) -> bool {
        matches!(&e.kind, ExprKind::Index(base, _) if self.indexed_array(base).is_some())
    }

    /// The size of a type, or an error at `span` if it has none.
    pub(super) fn sized(&mut self, ty: TypeId, span: &Span) -> Result<u64, Diagnostic> {
        match self.types.size_of(ty).map_err(|e| no_types(span, e))? {
            Some(s) => Ok(s),
            None => {
                let name = self.types.name(ty);
                Err(Diagnostic::new(span.clone(), format!("`{name}` has no size")).label("incomplete or void").hint("sizeof and pointer arithmetic need a complete type"))
            }
        }
    }

    /// Where a `T` at pointer `p` can be read from the kernel: `p` itself for a kernel
    /// pointer; for a user-space one in bpftrace (which reads the process's memory where a
    /// program dereferences its pointers), a copy of the `T` made with copyin(); in D an
    /// error (user memory is read through copyin()).
    fn readable(&mut self, p: Expr, space: AddrSpace, to: TypeId, span: &Span, op: &str) -> Result<Expr, Diagnostic> {
        if space != AddrSpace::User || !self.bpftrace() {
            self.kernel_space(space, span, op)?;
            return Ok(p);
        }
        let size = self.sized(to, span)?;
        if size > super::memory::ALLOC_LIMIT as u64 {
            let name = self.types.name(to);
            return Err(Diagnostic::new(span.clone(), format!("`{op}` reads a `{name}` of {size} bytes from the process")).label("too large to copy").hint(format!("read at most {} bytes of user memory at once: a member's pointer, or copyin()", super::memory::ALLOC_LIMIT)));
        }
        let site = self.alloc_sites;
        self.alloc_sites += 1;
        Ok(Expr::Alloc { site, size: Box::new(Expr::Int(size as i64)), max: (size as u32).next_multiple_of(8), from: Some(Box::new(p)) })
    }

    /// User memory is read only through copyin/copyinstr.
    fn kernel_space(&mut self, space: AddrSpace, span: &Span, op: &str) -> Result<(), Diagnostic> {
        if space == AddrSpace::User {
            return Err(Diagnostic::new(span.clone(), format!("`{op}` on a user-space pointer")).label("points into the traced process").hint("read a user string with copyinstr(), other user memory with copyin(): e.g. ((struct stat *)copyin(arg1, sizeof(struct stat)))->st_size"));
        }
        Ok(())
    }

    /// The scalar value of a typed expression: a place is loaded at its type's width.
    pub(super) fn value_of(&mut self, t: Typed, span: &Span) -> Result<Expr, Diagnostic> {
        let addr = match t.val {
            Val::Value(v) => return Ok(v),
            Val::Place(a) => a,
        };
        let real = self.types.real(t.ty).map_err(|e| no_types(span, e))?;
        Ok(match real {
            Type::Int(i) => Expr::Load { addr: Box::new(addr), size: i.size, signed: i.signed },
            Type::Enum { size, signed, .. } => Expr::Load { addr: Box::new(addr), size: size as u8, signed },
            Type::Ptr { .. } => Expr::Load { addr: Box::new(addr), size: 8, signed: false },
            // An array used as a value is its address, as in C.
            Type::Array { .. } => addr,
            Type::Struct(_) | Type::Union(_) => {
                let name = self.types.name(t.ty);
                return Err(Diagnostic::new(span.clone(), format!("a `{name}` cannot be used as a value here"))
                    .label("a struct, not a scalar")
                    .hint("arithmetic, comparisons, conditions, keys and printf() take integers, pointers and strings: use a member (s.m, p->m); trace() and print() show a whole struct"));
            }
            _ => {
                let name = self.types.name(t.ty);
                return Err(Diagnostic::new(span.clone(), format!("a `{name}` cannot be used as a value here")).label("not a scalar").hint("use one of its members, e.g. ->name"));
            }
        })
    }

    /// A scalar operand: an integer or a pointer, loaded if it is in memory.
    pub(super) fn scalar(&mut self, e: &ast::Expr) -> Result<Expr, Diagnostic> {
        let t = self.typed(e)?;
        let v = self.value_of(t, &e.span)?;
        if !v.is_int() {
            let what = v.repr().describe();
            return Err(Diagnostic::new(e.span.clone(), format!("cannot cast {what}")).label(what).hint("casts convert integers and pointers"));
        }
        Ok(v)
    }

    /// `stringof(x)`: a kernel pointer or array as the string at its address; a string as
    /// itself.
    pub(super) fn string_of(&mut self, e: &ast::Expr) -> Result<Expr, Diagnostic> {
        let t = self.typed(e)?;
        if let Val::Value(s @ Expr::Str(_)) = t.val {
            return Ok(s);
        }
        let span = &e.span;
        match self.types.real(t.ty).map_err(|x| no_types(span, x))? {
            Type::Ptr { space: AddrSpace::User, .. } => Err(Diagnostic::new(span.clone(), "stringof() of a user-space pointer").label("points into the traced process").hint("read user strings with copyinstr()")),
            Type::Ptr { .. } | Type::Array { .. } => {
                let addr = self.value_of(t, span)?;
                Ok(Expr::Str(StrExpr::KernelStr(Box::new(addr), self.strsize)))
            }
            Type::Int(_) | Type::Enum { .. } => Err(Diagnostic::new(span.clone(), "stringof() needs a kernel pointer, a char array or a string")
                .label("an integer")
                .hint("cast an address to the pointer it is first, e.g. stringof((char *)arg0); user memory is read with copyinstr()")),
            _ => {
                let name = self.types.name(t.ty);
                Err(Diagnostic::new(span.clone(), format!("stringof() of a `{name}`")).label("not a pointer or an array").hint("stringof() reads the string at a kernel address"))
            }
        }
    }

    /// bpftrace's `str(p[, n])`: a string as itself; a user pointer's string as copyinstr()
    /// reads it, a kernel pointer's or array's as stringof(); an integer's from the kernel if
    /// it is a kernel address (the upper half of the 64-bit space, where x86-64 and arm64
    /// keep the kernel), else from the process, as bpftrace's probe_read_str() does; `n`
    /// (a constant) bytes at most, its NUL included.
    pub(super) fn any_str(&mut self, args: &[ast::Expr]) -> Result<Expr, Diagnostic> {
        let size = match args.get(1) {
            None => self.strsize,
            Some(n) => match super::const_int(n) {
                Some(n) if n >= 1 => (n as u64).min(self.strsize as u64) as u32,
                _ => return Err(Diagnostic::new(n.span.clone(), "str()'s length must be a positive constant").label("not a positive constant").hint("write the most bytes to read, its NUL included: str(p, 64)")),
            },
        };
        // bpftrace's str($1) is the first positional parameter as a string (D's $$1).
        let as_text;
        let e = match &args[0].kind {
            ExprKind::Macro(m) if self.bpftrace() && !m.is_empty() && m.chars().all(|c| c.is_ascii_digit()) => {
                as_text = ast::Expr { kind: ExprKind::Macro(format!("${m}")), span: args[0].span.clone() };
                &as_text
            }
            _ => &args[0],
        };
        let t = self.typed(e)?;
        let cut = |s: StrExpr| if size == self.strsize { Expr::Str(s) } else { Expr::Str(StrExpr::Call { f: crate::ir::StrFn::Substr, args: vec![crate::ir::StrArg::Str(s), crate::ir::StrArg::Int(Expr::Int(0)), crate::ir::StrArg::Int(Expr::Int(size as i64 - 1))], size }) };
        if let Val::Value(Expr::Str(s)) = t.val {
            return Ok(cut(s));
        }
        let span = &e.span;
        let space = match self.types.real(t.ty).map_err(|x| no_types(span, x))? {
            Type::Ptr { space, .. } => Some(space),
            Type::Array { .. } => Some(AddrSpace::Kernel),
            Type::Int(_) | Type::Enum { .. } => None,
            _ => {
                let name = self.types.name(t.ty);
                return Err(Diagnostic::new(span.clone(), format!("str() of a `{name}`")).label("not a pointer, an address or a string").hint("str() reads the string at an address: str(args->filename), str(arg0)"));
            }
        };
        let addr = self.value_of(t, span)?;
        Ok(match space {
            Some(AddrSpace::User) => Expr::Str(StrExpr::UserStr(Box::new(addr), size)),
            Some(_) => Expr::Str(StrExpr::KernelStr(Box::new(addr), size)),
            None => Expr::Str(StrExpr::AnyStr(Box::new(addr), size)),
        })
    }

    /// A C-typed expression as the rest of the checker sees it: a kernel `char [N]` or
    /// `char *` is a string, anything else scalar is an integer.
    pub(super) fn lower_typed(&mut self, e: &ast::Expr) -> Result<TExpr, Diagnostic> {
        let t = self.typed(e)?;
        self.lower(t, &e.span)
    }

    /// A predicate's or an `if`'s condition: an integer, or a pointer tested against NULL as
    /// in C (a kernel `char *` too, which elsewhere reads as its string: `/self->name/`,
    /// bpftrace's `/@vfilename[tid]/`).
    pub(super) fn condition(&mut self, e: &ast::Expr, what: &str) -> Result<Expr, Diagnostic> {
        let t = self.typed(e)?;
        if matches!(self.types.real(t.ty), Ok(Type::Ptr { .. })) && !matches!(t.val, Val::Value(Expr::Str(_))) {
            return self.value_of(t, &e.span);
        }
        let v = self.lower(t, &e.span)?;
        self.int_expr_check(&v.expr, e, what)?;
        Ok(v.expr)
    }

    /// [`Checker::lower_typed`] of an expression already checked by [`Checker::typed`].
    pub(super) fn lower(&mut self, t: Typed, span: &Span) -> Result<TExpr, Diagnostic> {
        let ty = t.ty;
        if self.int_array(ty).is_some() {
            return Err(super::arrays::not_a_value(&self.types.name(ty), span));
        }
        let real = self.types.real(t.ty).map_err(|x| no_types(span, x))?;
        let char_elem = |types: &mut crate::types::Types, elem: TypeId| types.as_int(elem).ok().flatten().is_some_and(|i| i.char);
        match real {
            Type::Array { elem, .. } if char_elem(&mut self.types, elem) => {
                let (Val::Place(addr) | Val::Value(addr)) = t.val;
                Ok(TExpr::new(Expr::Str(StrExpr::KernelStr(Box::new(addr), self.strsize)), ty))
            }
            Type::Ptr { to, space: AddrSpace::Kernel } if char_elem(&mut self.types, to) => {
                let v = self.value_of(t, span)?;
                Ok(TExpr::new(Expr::Str(StrExpr::KernelStr(Box::new(v), self.strsize)), ty))
            }
            _ => Ok(TExpr::new(self.value_of(t, span)?, ty)),
        }
    }
}
