//! `print(x)`, and `trace()` of a struct, union or array: the value recorded whole and
//! printed by its C type (the layout output needs, built here from the type universe).

use super::*;
use crate::ir::layout::{Layout, MemberLayout, Shape};
use crate::types::{Type, TypeId};
use ctypes::{no_types, Val};

/// The most bytes of one object a record carries.
pub(super) const MAX_OBJECT: u64 = 16 * 1024;

impl Checker<'_> {
    /// The output item and recorded value of `trace(e)` (`print`: false) or `print(e)`.
    pub(super) fn printed(&mut self, e: &ast::Expr, print: bool) -> Result<(Item, Expr), Diagnostic> {
        let t = self.typed(e)?;
        let span = &e.span;
        // bpftrace's array of integers prints as bpftrace prints it: [1,2,3,4].
        if let Some(v) = self.array_value(&t, span)? {
            let repr = v.expr.repr();
            return Ok((Item::Trace(repr), v.expr));
        }
        let real = self.types.real(t.ty).map_err(|x| no_types(span, x))?;
        let char_array = match &real {
            Type::Array { elem, .. } => self.types.as_int(*elem).ok().flatten().is_some_and(|i| i.char),
            _ => false,
        };
        let object = matches!(real, Type::Struct(_) | Type::Union(_)) || (matches!(real, Type::Array { .. }) && (print || !char_array));
        if object {
            let Val::Place(addr) = t.val else {
                let name = self.types.name(t.ty);
                return Err(Diagnostic::new(span.clone(), format!("a `{name}` that is not in memory cannot be printed")).label("no address").hint("print a struct through a pointer, e.g. print(*curthread)"));
            };
            let size = self.sized(t.ty, span)?;
            if size > MAX_OBJECT {
                let name = self.types.name(t.ty);
                return Err(Diagnostic::new(span.clone(), format!("`{name}` is {size} bytes, too large to print"))
                    .label("too large")
                    .hint(format!("print at most {MAX_OBJECT} bytes: one of its members")));
            }
            let layout = self.layout_of(t.ty).map_err(|x| no_types(span, x))?;
            return Ok((Item::Print(Repr::Object(size as u32), Box::new(layout)), Expr::Object { addr: Box::new(addr), size: size as u32 }));
        }
        let v = self.lower(t, span)?;
        let repr = self.repr_of(&v);
        let item = match (print, repr) {
            (false, _) => Item::Trace(repr),
            (true, r) if r.printed_only() => return Err(Diagnostic::new(span.clone(), format!("print() cannot print {}", r.describe())).label(r.describe()).hint(match r { Repr::Stack(StackUse::Frames(..)) => "trace it with stack();", Repr::UStack(crate::ir::UStackUse::Frames(..)) => "trace it with ustack();", _ => "trace it with trace()" })),
            (true, Repr::Int(_)) => Item::Print(repr, Box::new(self.layout_of(v.ty).map_err(|x| no_types(span, x))?)),
            (true, _) => Item::Print(repr, Box::new(Layout { name: "string".into(), shape: Shape::Opaque })),
        };
        Ok((item, self.own(&v)))
    }

    /// How output prints a value of type `ty`.
    pub(super) fn layout_of(&mut self, ty: TypeId) -> Result<Layout, String> {
        let name = self.print_name(ty);
        let shape = match self.types.real(ty)? {
            // CTF counts a signed char as a character; the kernel's BTF leaves plain `char` unsigned.
            Type::Int(i) => Shape::Int { size: i.size, signed: i.signed, char: i.char && (i.signed || i.name == "char") },
            Type::Float { size, .. } => Shape::Float { size: size as u8 },
            Type::Ptr { .. } | Type::Function => Shape::Ptr,
            Type::Enum { size, values, .. } => Shape::Enum { size: size as u8, values },
            Type::Array { elem, len } => {
                let elem_size = self.types.size_of(elem)?.unwrap_or(0) as u32;
                Shape::Array { elem: Box::new(self.layout_of(elem)?), elem_size, len }
            }
            Type::Struct(r) | Type::Union(r) => {
                let mut members = Vec::with_capacity(r.members.len());
                for m in r.members {
                    members.push(MemberLayout { layout: self.layout_of(m.ty)?, name: m.name, bit_offset: m.bit_offset, bits: m.bit_size });
                }
                Shape::Record { members }
            }
            _ => Shape::Opaque,
        };
        Ok(Layout { name, shape })
    }

    /// A type's name as CTF (and so DTrace's print()) writes it.
    fn print_name(&mut self, ty: TypeId) -> String {
        let name = self.types.name(ty);
        match self.types.get(ty).clone() {
            Type::Struct(r) if r.name.is_empty() => "struct ".into(),
            Type::Union(r) if r.name.is_empty() => "union ".into(),
            Type::Ptr { to, .. } if matches!(self.types.real(to), Ok(Type::Function)) => "void (*)()".into(),
            _ => name,
        }
    }
}
