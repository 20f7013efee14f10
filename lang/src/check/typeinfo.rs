//! Current bpftrace's unstable `typeinfo(T)` and `typeinfo(expr)`: a record of the type,
//! `(btf_id = 0, base_type = "int", full_type = "uint64")`, folded when compiling (its
//! ast_transformer.cpp: btf_id is a placeholder 0, base_type the kind of type, full_type
//! the type as its messages name it). crumbs reads it by field (`typeinfo($a).full_type`),
//! which `comptime` can compare (`if comptime (typeinfo($a).full_type == "uint64")`). As in
//! bpftrace, it needs `config = { unstable_typeinfo = enable }`.

use super::*;
use crate::types::{Type, TypeId};
use ctypes::Typed;

/// `typeinfo(x)` used whole: crumbs has its fields only.
pub(super) fn whole(span: &Span) -> Diagnostic {
    Diagnostic::new(span.clone(), "typeinfo() is read by its fields in crumbs")
        .label("the whole record")
        .hint("read one field: typeinfo(x).btf_id, typeinfo(x).base_type or typeinfo(x).full_type")
}

impl Checker<'_> {
    /// `typeinfo(x).field`: the field's constant; None if `base` is no typeinfo().
    pub(super) fn typeinfo_field(&mut self, base: &ast::Expr, member: &ast::Ident) -> Result<Option<TExpr>, Diagnostic> {
        let ExprKind::Call(f, args) = &base.kind else { return Ok(None) };
        if f.name != "typeinfo" || !self.bpftrace() {
            return Ok(None);
        }
        if !self.typeinfo_enabled {
            return Err(Diagnostic::new(base.span.clone(), "typeinfo feature is not enabled by default. To enable this unstable feature, set the config flag to enable. unstable_typeinfo=enable")
                .label("unstable")
                .hint("put config = { unstable_typeinfo = enable } at the top of the program"));
        }
        let [ast::Expr { kind: ExprKind::TypeArg(t), .. }] = args.as_slice() else { return Err(whole(&base.span)) };
        // A bare name that is no type is a builtin read for its type (`typeinfo(comm)`), as
        // sizeof() reads one.
        let name_expr = match &t.base {
            ast::BaseType::Named(w) if w.len() == 1 && t.pointers == 0 && t.suffix.is_empty() && crate::types::int_from_keywords(w).is_none() && w[0] != "void" && w[0] != "string" && self.types.lookup(crate::facts::TypeSpace::Ordinary, &w[0]).ok().flatten().is_none() => {
                Some(ast::Expr { kind: ExprKind::Ident(w[0].clone()), span: t.span.clone() })
            }
            _ => None,
        };
        let (ty, string_size) = match (&t.base, &name_expr) {
            (_, Some(e)) => {
                let Typed { ty, .. } = self.typed(e)?;
                let size = self.bt_string_size(e, ty);
                (ty, Some(size))
            }
            (ast::BaseType::TypeOf(e), None) if t.pointers == 0 && t.suffix.is_empty() => {
                let Typed { ty, .. } = self.typed(&e.0)?;
                let size = self.bt_string_size(&e.0, ty);
                (ty, Some(size))
            }
            _ => (self.type_of_name(t)?, postfix_types::string_size(t)),
        };
        let text = match member.name.as_str() {
            "btf_id" => return Ok(Some(TExpr::new(Expr::Int(0), self.c_int("int64_t")))),
            "base_type" => self.base_type(ty),
            "full_type" => self.full_type(ty, string_size),
            other => {
                return Err(Diagnostic::new(member.span.clone(), format!("typeinfo() has no field `{other}`"))
                    .label("no such field")
                    .hint("its fields: btf_id, base_type, full_type"))
            }
        };
        let string = self.c_string();
        Ok(Some(TExpr::new(Expr::Str(StrExpr::Const(self.strings.intern(&text))), string)))
    }

    /// bpftrace's name of the kind of type: `int`, `bool`, `pointer`, `array`, `string`,
    /// `c_type`, `void`.
    fn base_type(&mut self, ty: TypeId) -> String {
        match self.types.real(ty) {
            Ok(Type::Int(i)) if i.bool => "bool",
            Ok(Type::Int(_) | Type::Enum { .. }) => "int",
            Ok(Type::Ptr { .. }) => "pointer",
            Ok(Type::Array { .. }) if self.int_array(ty).is_none() && matches!(self.types.real(ty), Ok(Type::Array { elem, .. }) if self.types.as_int(elem).ok().flatten().is_some_and(|i| i.char)) => "string",
            Ok(Type::Array { .. }) => "array",
            Ok(Type::String { .. }) => "string",
            Ok(Type::Void) => "void",
            _ => "c_type",
        }
        .into()
    }

    /// The type as bpftrace names it: `uint64`, `int32 *`, `uint8[4]`, `string[16]`, `struct
    /// task_struct`; a string's size is `size` (a sized string type's N, an expression's
    /// size), `string` alone without one.
    fn full_type(&mut self, ty: TypeId, size: Option<u32>) -> String {
        match self.types.real(ty) {
            Ok(Type::String { .. }) => match size {
                Some(n) if n > 0 => format!("string[{n}]"),
                _ => "string".into(),
            },
            Ok(Type::Enum { name, .. }) => format!("enum {name}"),
            Ok(Type::Struct(_) | Type::Union(_)) => self.types.name(ty),
            Ok(Type::Void) => "void".into(),
            _ => postfix_types::bt_type_name(self, ty),
        }
    }
}
