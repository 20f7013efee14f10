//! The script's own type declarations: structs and unions laid out as C on x86-64 lays them
//! out (each member at its alignment, bitfields packed into units of their type), enums with
//! their constants, typedefs. They go into the checker's type arena before any clause is
//! checked, and are found before the kernel's types of the same name.

use super::*;
use crate::ast::{Decl, Ident, MemberDecl, MemberType};
use crate::facts::TypeSpace;
use crate::types::{Member, Record, Type, TypeId};

impl Checker<'_> {
    pub(super) fn declare_types(&mut self, decls: &[Decl]) -> Result<(), Diagnostic> {
        for d in decls {
            match d {
                Decl::Record { union, name, members, span } => {
                    self.declare_record(*union, Some(name), members, span)?;
                }
                Decl::Forward { union, name } => {
                    let space = if *union { TypeSpace::Union } else { TypeSpace::Struct };
                    if self.types.lookup_script(space, &name.name).is_none() {
                        self.types.declare(space, &name.name, Type::Incomplete { space, name: name.name.clone() });
                    }
                }
                Decl::Enum { name, values, span } => {
                    let mut next = 0i64;
                    let mut out: Vec<(String, i64)> = Vec::new();
                    for (id, value) in values {
                        if out.iter().any(|(n, _)| *n == id.name) || self.types.enum_constant(&id.name).is_some() {
                            return Err(Diagnostic::new(id.span.clone(), format!("enum constant `{}` is declared twice", id.name)).label("again here").hint("enum constants share one name space"));
                        }
                        if let Some(e) = value {
                            next = match self.expr(e)? {
                                Expr::Int(v) => v,
                                _ => return Err(Diagnostic::new(e.span.clone(), "an enum value must be an integer constant").label("not a constant").hint("write a number, e.g. READ = 4")),
                            };
                        }
                        out.push((id.name.clone(), next));
                        next = next.wrapping_add(1);
                    }
                    let tag = name.as_ref().map_or(String::new(), |n| n.name.clone());
                    let t = Type::Enum { name: tag.clone(), size: 4, signed: true, values: out };
                    match name {
                        Some(n) => self.types.declare(TypeSpace::Enum, &n.name, t),
                        // Anonymous enums only give constants; each keeps its own entry.
                        None => self.types.declare(TypeSpace::Enum, &format!(" anonymous {}", span.start), t),
                    };
                }
                Decl::Typedef { ty, name, len, .. } => {
                    let mut to = self.type_of_name(ty)?;
                    if let Some(n) = len {
                        to = self.types.add(Type::Array { elem: to, len: *n });
                    }
                    self.types.declare(TypeSpace::Ordinary, &name.name, Type::Typedef { name: name.name.clone(), to });
                }
                // Variables and inlines: var_decls.rs; translators: translators.rs.
                Decl::Var { .. } | Decl::Inline { .. } | Decl::Translator { .. } => {}
            }
        }
        // `struct s;` that the script never defines is the kernel's `struct s`, if it has one
        // (as a C file naming a struct its headers define).
        for d in decls {
            let Decl::Forward { union, name } = d else { continue };
            let space = if *union { TypeSpace::Union } else { TypeSpace::Struct };
            let Some(id) = self.types.lookup_script(space, &name.name) else { continue };
            if matches!(self.types.get(id), Type::Incomplete { .. }) {
                if let Some(kernel) = self.types.lookup_beyond_script(space, &name.name).map_err(|e| ctypes::no_types(&name.span, e))? {
                    self.types.complete(id, Type::Typedef { name: String::new(), to: kernel });
                }
            }
        }
        Ok(())
    }

    /// A struct or union definition, at the top level or as a member's type; a tagged one is
    /// declared under its tag (C gives a nested definition's tag file scope too).
    fn declare_record(&mut self, union: bool, tag: Option<&Ident>, members: &[MemberDecl], span: &Span) -> Result<TypeId, Diagnostic> {
        let space = if union { TypeSpace::Union } else { TypeSpace::Struct };
        if let Some(name) = tag {
            let forward = self.types.lookup_script(space, &name.name).filter(|&id| matches!(self.types.get(id), Type::Incomplete { .. }));
            if forward.is_none() && self.types.lookup_script(space, &name.name).is_some() {
                return Err(Diagnostic::new(name.span.clone(), format!("`{} {}` is declared twice", if union { "union" } else { "struct" }, name.name)).label("again here").hint("give the second one another name"));
            }
        }
        let tag_name = tag.map_or("", |t| t.name.as_str());
        let record = self.layout(tag_name, union, members, span)?;
        let t = if union { Type::Union(record) } else { Type::Struct(record) };
        Ok(match tag {
            Some(name) => match self.types.lookup_script(space, &name.name) {
                // `struct s;` earlier: pointers to it made since see the definition.
                Some(id) => {
                    self.types.complete(id, t);
                    id
                }
                None => self.types.declare(space, &name.name, t),
            },
            None => self.types.add(t),
        })
    }

    /// The size and alignment of a member's type.
    fn size_align(&mut self, ty: TypeId, span: &Span) -> Result<(u64, u64), Diagnostic> {
        let err = |e: String| super::ctypes::no_types(span, e);
        let Some(size) = self.types.size_of(ty).map_err(err)? else {
            let name = self.types.name(ty);
            return Err(Diagnostic::new(span.clone(), format!("`{name}` has no size")).label("incomplete type").hint("a member needs a complete type; a pointer to it is fine"));
        };
        let align = self.types.align_of(ty).map_err(err)?;
        Ok((size, align))
    }

    fn layout(&mut self, name: &str, union: bool, members: &[MemberDecl], span: &Span) -> Result<Record, Diagnostic> {
        let mut out: Vec<Member> = Vec::new();
        let (mut bits, mut size, mut align) = (0u64, 0u64, 1u64);
        for m in members {
            let mname = m.name.as_ref().map_or("", |n| n.name.as_str());
            if let Some(n) = &m.name {
                if out.iter().any(|o| o.name == n.name) {
                    return Err(Diagnostic::new(n.span.clone(), format!("member `{}` is declared twice", n.name)).label("again here").hint("members of one struct need different names"));
                }
            }
            // `struct tag { ... };` inside a struct declares the tag, not a member (C11).
            if let (MemberType::Record { union, tag: tag @ Some(_), members, span }, None) = (&m.ty, &m.name) {
                self.declare_record(*union, tag.as_ref(), members, span)?;
                continue;
            }
            let mut ty = match &m.ty {
                MemberType::Named(t) => self.type_of_name(t)?,
                MemberType::Record { union, tag, members, span } => self.declare_record(*union, tag.as_ref(), members, span)?,
            };
            if let Some(n) = m.len {
                ty = self.types.add(Type::Array { elem: ty, len: n });
            }
            let (msize, malign) = self.size_align(ty, &m.span)?;
            let offset = if union { 0 } else { bits };
            let (bit_offset, bit_size, end) = match m.bits {
                Some(w) => {
                    if self.types.as_int(ty).ok().flatten().is_none() || w as u64 > msize * 8 {
                        return Err(Diagnostic::new(m.span.clone(), format!("bitfield `{mname}` of {w} bits")).label("bad bitfield").hint("a bitfield is an integer type no wider than the type"));
                    }
                    // Packed at the current bit unless it would cross a unit of its type.
                    let unit = msize * 8;
                    let start = if offset / unit != (offset + w as u64 - 1) / unit { offset.next_multiple_of(unit) } else { offset };
                    (start, w, start + w as u64)
                }
                None => {
                    let start = offset.next_multiple_of(malign * 8);
                    (start, 0, start + msize * 8)
                }
            };
            align = align.max(malign);
            size = size.max(end);
            if !union {
                bits = end;
            }
            out.push(Member { name: mname.to_string(), ty, bit_offset: bit_offset as u32, bit_size });
        }
        let bytes = size.div_ceil(8).next_multiple_of(align);
        if bytes > u32::MAX as u64 {
            return Err(Diagnostic::new(span.clone(), format!("`{name}` is too large")).label("over 4 GiB").hint("make it smaller"));
        }
        Ok(Record { name: name.to_string(), size: bytes as u32, members: out })
    }
}
