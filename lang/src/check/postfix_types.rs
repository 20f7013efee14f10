//! Current bpftrace's postfix type syntax: `int32*[4]` (an array of 4 pointers), `int32[4]*`
//! (a pointer to an array), `struct foo*[4]`, in casts, `let`, `sizeof`, `offsetof` and
//! `typeof`; `string[64]`, whose `[N]` is the string's size; and the casts between integers
//! and integer arrays (`(uint8[8])12345`, `(uint8[])x`, `(uint64)$a`).

use super::*;
use crate::ast::{BaseType, TypeName, TypeSuffix};
use crate::ir::Field;
use crate::types::{AddrSpace, Type, TypeId};
use ctypes::{Typed, Val};

/// `string`, `buffer` or `inet` when `t` is one of them with a size (`string[64]`): its first
/// `[N]` is then that size, not an array.
pub(super) fn sized_kind(t: &TypeName) -> Option<&'static str> {
    let BaseType::Named(w) = &t.base else { return None };
    if t.pointers != 0 || !matches!(t.suffix.first(), Some(TypeSuffix::Array(_))) {
        return None;
    }
    ["string", "buffer", "inet"].into_iter().find(|k| w.len() == 1 && w[0] == *k)
}

/// The N of `string[N]` (None for any other type name).
pub(super) fn string_size(t: &TypeName) -> Option<u32> {
    match (sized_kind(t), t.suffix.as_slice()) {
        (Some("string"), [TypeSuffix::Array(n)]) => *n,
        _ => None,
    }
}

/// `buffer[N]` and `inet[N]`, which crumbs has no type for.
pub(super) fn sized_not_in_crumbs(t: &TypeName) -> Diagnostic {
    let kind = sized_kind(t).unwrap_or("buffer");
    Diagnostic::new(t.span.clone(), format!("the `{kind}` type is not in crumbs"))
        .label("current bpftrace's type")
        .hint(if kind == "buffer" { "read bytes with buf(addr, length), a buffer of its own size" } else { "read an address with ntop(), or keep its bytes as an array: (uint8[16])x" })
}

impl Checker<'_> {
    /// `id` (the type name's base and leading `*`s) with the name's postfix modifiers
    /// applied left to right.
    pub(super) fn postfix_type(&mut self, mut id: TypeId, t: &TypeName, space: AddrSpace) -> Result<TypeId, Diagnostic> {
        let rest = if sized_kind(t).is_some() { &t.suffix[1..] } else { &t.suffix[..] };
        if sized_kind(t) == Some("string") && string_size(t).is_none() && rest.is_empty() {
            return Err(Diagnostic::new(t.span.clone(), "`string[]` needs its size").label("no size").hint("write the string's size in bytes, NUL included: string[64]"));
        }
        for s in rest {
            match s {
                TypeSuffix::Pointer => id = self.types.pointer(id, space),
                TypeSuffix::Array(Some(n)) => {
                    self.sized(id, &t.span)?;
                    id = self.types.add(Type::Array { elem: id, len: *n });
                }
                TypeSuffix::Array(None) => {
                    return Err(Diagnostic::new(t.span.clone(), "an array type without a length")
                        .label("`[]`")
                        .hint("only a cast from an integer may leave the length out: (uint8[])x; elsewhere write it: uint8[8]"));
                }
            }
        }
        Ok(id)
    }

    /// `(T[N])x` and `(T[])x`: the integer `x`'s bytes as an array of integers, in memory
    /// order (no byte swapping); an array of at most 8 bytes may be larger than the integer,
    /// which is widened to it, as bpftrace widens it. `(string[N])s`: string `s`, whose size
    /// must be at most N. None for any other cast.
    pub(super) fn postfix_cast(&mut self, t: &TypeName, inner: &ast::Expr, span: &Span) -> Result<Option<Typed>, Diagnostic> {
        if !self.bpftrace() || t.suffix.is_empty() {
            return Ok(None);
        }
        if matches!(sized_kind(t), Some("buffer" | "inet")) {
            return Err(sized_not_in_crumbs(t));
        }
        if let Some(n) = string_size(t) {
            let v = self.value(inner)?;
            // A kernel `char [N]` reads as a string of N bytes.
            let is_str = matches!(v.expr.repr(), crate::ir::Repr::Str(_) | crate::ir::Repr::StrId) || matches!(self.types.real(v.ty), Ok(Type::String { .. }));
            let size = match self.types.real(v.ty) {
                Ok(Type::Array { len, .. }) if is_str => len,
                _ => self.bt_string_size(inner, v.ty),
            };
            if !is_str || size > n {
                let from = if !is_str || size == 0 { bt_type_name(self, v.ty) } else { format!("string[{size}]") };
                return Err(Diagnostic::new(span.clone(), format!("Cannot cast from \"{from}\" to \"string[{n}]\""))
                    .label("does not fit")
                    .hint("a string casts to a string type at least its size; keep part of it with substr(s, 0, n)"));
            }
            return Ok(Some(Typed { val: Val::Value(v.expr), ty: v.ty }));
        }
        let Some(TypeSuffix::Array(len)) = t.suffix.last() else { return Ok(None) };
        // The element type: the name without its last `[N]`.
        let elem_name = TypeName { suffix: t.suffix[..t.suffix.len() - 1].to_vec(), ..t.clone() };
        let elem = self.type_of_name(&elem_name)?;
        let Some(ei) = self.types.as_int(elem).map_err(|e| ctypes::no_types(&t.span, e))?.filter(|_| matches!(self.types.real(elem), Ok(Type::Int(_)))) else {
            let from = self.typed(inner)?.ty;
            let from = bt_type_name(self, from);
            return Err(Diagnostic::new(span.clone(), format!("Cannot cast from \"{from}\" to \"{}\"", t_text(t, 0)))
                .label("not an integer array")
                .hint("an integer casts to an array of integers of its size: (uint8[8])x, (uint16[])x"));
        };
        let tv = self.typed(inner)?;
        let vty = tv.ty;
        let v = TExpr::new(self.value_of(tv, &inner.span)?, vty);
        let from_size = match (const_int(inner), self.types.as_int(v.ty).map_err(|e| ctypes::no_types(&inner.span, e))?, self.types.real(v.ty)) {
            // A literal is as wide as bpftrace types it: the smallest signed type holding it.
            (Some(k), Some(_), _) => [1u32, 2, 4].into_iter().find(|s| (-(1i64 << (8 * s - 1))..1i64 << (8 * s - 1)).contains(&k)).unwrap_or(8),
            (None, Some(i), _) => i.size as u32,
            (None, None, Ok(Type::Ptr { .. })) => 8,
            _ => {
                let name = self.types.name(v.ty);
                return Err(Diagnostic::new(inner.span.clone(), format!("cannot cast a `{name}` to an array")).label("not an integer").hint("cast an integer: (uint8[8])(uint64)x"));
            }
        };
        let esize = ei.size as u32;
        let len = match len {
            Some(n) => *n,
            None if from_size % esize == 0 => from_size / esize,
            None => {
                return Err(Diagnostic::new(span.clone(), "Cannot determine array size: the element size is incompatible with the cast integer size")
                    .label(format!("{from_size} bytes in elements of {esize}"))
                    .hint("give the length, or cast the integer to a size the element divides: (uint32[])(uint64)x"));
            }
        };
        let to = len * esize;
        if !(to == from_size || (to <= 8 && to > from_size)) {
            return Err(Diagnostic::new(span.clone(), format!("Cannot cast from \"{}\" to \"{}\"", int_text(from_size, ei.signed, &v, self), t_text(t, len)))
                .label(format!("{from_size} bytes into {to}"))
                .hint("the integer and the array must have the same size: cast the integer first, e.g. (uint8[8])(uint64)x"));
        }
        let ty = self.types.add(Type::Array { elem, len });
        let l = self.hidden_local(ty);
        let var = StrVar::Clause(l);
        // The value's low `to` bytes, in pieces of 8, 4, 2 and 1 (the register holds it
        // sign- or zero-extended to 64 bits, as its type says).
        let mut fill = Vec::new();
        let (mut at, value) = (0u32, v.expr);
        while at < to {
            let n = [8u32, 4, 2, 1].into_iter().find(|n| at + n <= to).expect("1 fits");
            let piece = if at == 0 { value.clone() } else { Expr::Binary(BinOp::Shr, Box::new(value.clone()), Box::new(Expr::Int(8 * at as i64))) };
            fill.push(Stmt::SetMember { var: var.clone(), offset: at, field: Field::Int(n as u8), value: piece });
            at += n;
        }
        Ok(Some(Typed { val: Val::Place(Expr::Seq(fill, Box::new(Expr::VarAddr(var)))), ty }))
    }

    /// `(uint64)$a` of an array of integers `$a` of 8 bytes: its bytes as the integer, in
    /// memory order. None when `inner` is no array in memory.
    pub(super) fn array_to_int(&mut self, t: &TypeName, to: crate::types::IntType, inner: &ast::Expr, span: &Span) -> Result<Option<Expr>, Diagnostic> {
        let pton = matches!(&inner.kind, ExprKind::Call(f, _) if f.name == "pton");
        if !self.bpftrace() || !(self.may_be_array(inner) || pton || matches!(inner.kind, ExprKind::Cast(..))) {
            return Ok(None);
        }
        let a = self.typed(inner)?;
        let Ok(Type::Array { elem, len }) = self.types.real(a.ty) else { return Ok(None) };
        let Val::Place(addr) = a.val else { return Ok(None) };
        let size = self.sized(elem, &inner.span)? * len as u64;
        if size != to.size as u64 {
            return Err(Diagnostic::new(span.clone(), format!("Cannot cast from \"{}\" to \"{}\"", bt_type_name(self, a.ty), t_text(t, 0)))
                .label(format!("{size} bytes into {}", to.size))
                .hint("an array casts to an integer of its size: (uint32)$a of a uint8[4]"));
        }
        Ok(Some(Expr::Load { addr: Box::new(addr), size: to.size, signed: to.signed }))
    }
}

/// A type as bpftrace names it in its messages: `uint8`, `int64 *`, `uint8[4]`, `string`.
pub(super) fn bt_type_name(cx: &mut Checker<'_>, ty: TypeId) -> String {
    match cx.types.real(ty) {
        Ok(Type::Int(i)) if i.bool => "bool".into(),
        Ok(Type::Int(i)) => format!("{}int{}", if i.signed { "" } else { "u" }, 8 * i.size as u32),
        Ok(Type::Array { elem, len }) => format!("{}[{len}]", bt_type_name(cx, elem)),
        Ok(Type::Ptr { to, .. }) => format!("{} *", bt_type_name(cx, to)),
        Ok(Type::String { .. }) => "string".into(),
        _ => cx.types.name(ty),
    }
}

/// A cast's type as written, its `[]` given the length `len` the value's size gives.
fn t_text(t: &TypeName, len: u32) -> String {
    let base = match &t.base {
        // bpftrace's integer names back from D's: uint8_t is uint8.
        BaseType::Named(w) => w.iter().map(|x| x.strip_suffix("_t").filter(|b| crate::dialect::bpftrace_type(b) != *b).unwrap_or(x)).collect::<Vec<_>>().join(" "),
        BaseType::Struct(n) => format!("struct {n}"),
        BaseType::Union(n) => format!("union {n}"),
        BaseType::Enum(n) => format!("enum {n}"),
        BaseType::TypeOf(_) => "typeof(...)".into(),
    };
    let mut s = format!("{base}{}", " *".repeat(t.pointers as usize));
    for x in &t.suffix {
        match x {
            TypeSuffix::Pointer => s.push_str(" *"),
            TypeSuffix::Array(Some(n)) => s.push_str(&format!("[{n}]")),
            TypeSuffix::Array(None) => s.push_str(&format!("[{len}]")),
        }
    }
    s
}

/// The integer a cast converts, as bpftrace names it: a literal's type is its size's.
fn int_text(size: u32, _signed: bool, v: &TExpr, cx: &mut Checker<'_>) -> String {
    match cx.types.as_int(v.ty) {
        Ok(Some(i)) => format!("{}int{}", if i.signed { "" } else { "u" }, 8 * size),
        _ => bt_type_name(cx, v.ty),
    }
}

impl Checker<'_> {
    /// A string's size as bpftrace types it: a literal's characters and NUL, `comm`'s 16,
    /// any other string the string size (0 for what is no string).
    pub(super) fn bt_string_size(&mut self, e: &ast::Expr, ty: TypeId) -> u32 {
        match (&e.kind, self.types.real(ty)) {
            (ExprKind::Str(s), _) => s.value.len() as u32 + 1,
            (ExprKind::Ident(n), _) if n == "comm" => 16,
            (_, Ok(Type::String { size })) => size,
            _ => 0,
        }
    }
}
