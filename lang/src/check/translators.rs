//! Translators: `translator OUT < IN T > { member = expr; ... }` and `xlate <OUT *> (input)`.
//! A translated value is read a member at a time: `xlate<psinfo_t *>(curthread)->pr_pid` (or
//! `curpsinfo->pr_pid` through an inline) is the translator's expression for `pr_pid`, with
//! `T` standing for the input, converted to the member's type. The standard ones (`psinfo_t`,
//! `lwpsinfo_t`, `curpsinfo`, ...) are D in `stdlib/` (see [`crate::stdlib`]).

use super::*;
use crate::types::{Type, TypeId};
use ctypes::{Typed, Val};

pub(super) struct Translator {
    /// The output type (a struct or union), typedefs resolved.
    to: TypeId,
    to_name: String,
    /// The input's type, and the name the member expressions call it by.
    from: TypeId,
    param: String,
    members: Vec<(ast::Ident, ast::Expr)>,
    /// From crumbs' stdlib: its errors are reported where the program uses it.
    library: bool,
}

impl Checker<'_> {
    /// `translator OUT < IN T > { ... }`: checked for its names; the member expressions are
    /// checked where they are used.
    pub(super) fn declare_translator(&mut self, to: &ast::TypeName, from: &ast::TypeName, param: &ast::Ident, members: &[(ast::Ident, ast::Expr)], library: bool) -> Result<(), Diagnostic> {
        let out = self.type_of_name(to)?;
        let resolved = self.types.resolve(out).map_err(|e| ctypes::no_types(&to.span, e))?;
        if !matches!(self.types.real(out).map_err(|e| ctypes::no_types(&to.span, e))?, Type::Struct(_) | Type::Union(_)) {
            let name = self.types.name(out);
            return Err(Diagnostic::new(to.span.clone(), format!("a translator makes a struct or union, not `{name}`")).label("not a struct").hint("translate to a struct type, e.g. translator psinfo_t < struct task_struct *T > { ... }"));
        }
        let input = self.type_of_name(from)?;
        for (m, _) in members {
            if self.types.member(out, &m.name).map_err(|e| ctypes::no_types(&m.span, e))?.is_none() {
                let name = self.types.name(out);
                return Err(Diagnostic::new(m.span.clone(), format!("`{name}` has no member `{}`", m.name)).label("not a member of the output type").hint("a translator gives members of the type it translates to"));
            }
        }
        if self.translators.iter().any(|t| t.to == resolved && t.from == input) {
            let name = self.types.name(out);
            return Err(Diagnostic::new(to.span.clone(), format!("a translator to `{name}` from this type is already defined")).label("defined again").hint("one translator per pair of types"));
        }
        let to_name = self.types.name(out);
        self.translators.push(Translator { to: resolved, to_name, from: input, param: param.name.clone(), members: members.to_vec(), library });
        Ok(())
    }

    /// What `e` translates, if it is a translation: `xlate<T>(input)`, in parentheses or
    /// through inlines; the translator, the input, and whether the type was a pointer.
    pub(super) fn translated(&mut self, e: &ast::Expr) -> Result<Option<(usize, ast::Expr, bool)>, Diagnostic> {
        // Through inlines (each once: an inline defined by itself is reported where it is
        // expanded).
        let mut owned: Option<ast::Expr> = None;
        let mut seen: Vec<String> = Vec::new();
        while let ExprKind::Ident(n) = &owned.as_ref().unwrap_or(e).kind {
            let n = n.clone();
            if self.bindings.iter().any(|b| b.0 == n) || seen.contains(&n) {
                return Ok(None);
            }
            let Some(i) = self.inlines.iter().position(|i| i.0 == n) else { return Ok(None) };
            owned = Some(self.inlines[i].2.clone());
            seen.push(n);
        }
        let ExprKind::Xlate(ty, input) = &owned.as_ref().unwrap_or(e).kind else { return Ok(None) };
        let (ty, input) = (ty.clone(), input.clone());
        let (ty, input) = (&ty, &input);
        let t = self.type_of_name(ty)?;
        let (out, pointer) = match self.types.real(t).map_err(|x| ctypes::no_types(&ty.span, x))? {
            Type::Ptr { to, .. } => (to, true),
            _ => (t, false),
        };
        let out = self.types.resolve(out).map_err(|x| ctypes::no_types(&ty.span, x))?;
        let candidates: Vec<usize> = (0..self.translators.len()).filter(|&i| self.translators[i].to == out).collect();
        if candidates.is_empty() {
            let name = self.types.name(out);
            return Err(Diagnostic::new(ty.span.clone(), format!("no translator to `{name}`")).label("nothing translates to this").hint("declare one: translator OUT < IN T > { member = expr; ... }"));
        }
        // The input's type picks among translators to the same type.
        let found = self.typed(input)?.ty;
        let found = self.types.resolve(found).map_err(|x| ctypes::no_types(&input.span, x))?;
        for i in &candidates {
            let from = self.types.resolve(self.translators[*i].from).map_err(|x| ctypes::no_types(&input.span, x))?;
            if from == found || self.same_pointer(from, found) {
                return Ok(Some((*i, (**input).clone(), pointer)));
            }
        }
        let (want, got) = (self.types.name(self.translators[candidates[0]].from), self.types.name(found));
        Err(Diagnostic::new(input.span.clone(), format!("no translator to `{}` from `{got}`", self.translators[candidates[0]].to_name)).label("the input's type").hint(format!("the translator takes `{want}`")))
    }

    /// Whether two pointer types point at the same type (whatever their address space).
    fn same_pointer(&mut self, a: TypeId, b: TypeId) -> bool {
        match (self.types.real(a), self.types.real(b)) {
            (Ok(Type::Ptr { to: x, .. }), Ok(Type::Ptr { to: y, .. })) => {
                matches!((self.types.resolve(x), self.types.resolve(y)), (Ok(x), Ok(y)) if x == y)
            }
            _ => false,
        }
    }

    /// Member `m` of translator `t` applied to `input`.
    pub(super) fn translated_member(&mut self, t: usize, input: &ast::Expr, m: &ast::Ident) -> Result<Typed, Diagnostic> {
        let tr = &self.translators[t];
        let Some((_, expr)) = tr.members.iter().find(|(n, _)| n.name == m.name).cloned() else {
            let names: Vec<&str> = tr.members.iter().map(|(n, _)| n.name.as_str()).collect();
            let d = Diagnostic::new(m.span.clone(), format!("`{}` has no translated member `{}`", tr.to_name, m.name)).label("not translated");
            return Err(match closest(&m.name, names.iter().copied()) {
                Some(c) => d.hint(format!("did you mean `{c}`?")),
                None => d.hint(format!("the translator gives {}", names.join(", "))),
            });
        };
        let (to, param, library, to_name) = (tr.to, tr.param.clone(), tr.library, tr.to_name.clone());
        let member_ty = self.types.member(to, &m.name).map_err(|e| ctypes::no_types(&m.span, e))?.expect("checked when declared").ty;
        self.bindings.push((param, input.clone()));
        let v = self.typed(&expr);
        self.bindings.pop();
        let v = match v {
            Err(d) if library => {
                return Err(Diagnostic::new(m.span.clone(), format!("cannot translate `{}` of `{to_name}` on this kernel: {}", m.name, d.message))
                    .label("translated by crumbs' stdlib")
                    .hint("the kernel's types differ from what stdlib's translator expects; read the kernel's fields directly (curthread->...)"));
            }
            v => v?,
        };
        // A scalar member converts to the member's type, as an assignment would.
        match self.types.real(member_ty).map_err(|e| ctypes::no_types(&m.span, e))? {
            Type::Int(i) => {
                let x = self.value_of(v, &expr.span)?;
                let x = if i.size < 8 { Expr::Bits { inner: Box::new(x), shift: 0, width: i.size * 8, signed: i.signed } } else { x };
                Ok(Typed { val: Val::Value(x), ty: member_ty })
            }
            Type::Ptr { .. } | Type::Enum { .. } => Ok(Typed { val: Val::Value(self.value_of(v, &expr.span)?), ty: member_ty }),
            _ => Ok(v),
        }
    }

    /// What a name stands for inside a translator's member expression.
    pub(super) fn binding(&self, name: &str) -> Option<ast::Expr> {
        self.bindings.iter().rev().find(|b| b.0 == name).map(|b| b.1.clone())
    }

    /// A translator's input, checked where the translator was used (outside its bindings).
    pub(super) fn bound<R>(&mut self, input: &ast::Expr, f: impl FnOnce(&mut Self, &ast::Expr) -> R) -> R {
        let saved = std::mem::take(&mut self.bindings);
        let r = f(self, input);
        self.bindings = saved;
        r
    }
}

/// The error for a translation used other than by member.
pub(super) fn whole_translation(span: &Span) -> Diagnostic {
    Diagnostic::new(span.clone(), "a translated value is read a member at a time").label("used whole").hint("read one of its members, e.g. curpsinfo->pr_pid")
}
