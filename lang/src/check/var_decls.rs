//! Declared variables (`int x;`, `self int t;`, `this long v;`, `int a[int];`) and inline
//! constants (`inline int MAX = 10;`). A declaration fixes the variable's type before any
//! assignment is checked; an inline is an expression checked where its name is used,
//! converted to its declared type.

use super::*;
use crate::ast::{Decl, Scope, TypeName};
use crate::types::{Type, TypeId};
use vars::{ArrayVar, VarRef};

impl Checker<'_> {
    /// Declares the program's variables and inlines (each pass: the variable tables are
    /// rebuilt every time).
    pub(super) fn declare_variables(&mut self, decls: &[Decl]) -> Result<(), Diagnostic> {
        for d in decls {
            match d {
                Decl::Var { scope, ty, name, keys, len: None, span } => self.declare_variable(*scope, ty, name, keys.as_deref(), span)?,
                Decl::Var { scope, ty, name, len: Some(n), span, .. } => self.declare_scalar_array(*scope, ty, name, *n, span)?,
                Decl::Inline { ty, name, value, .. } => {
                    // bpftrace's tools #define what crumbs knows as a constant (AF_INET): theirs wins.
                    let shadows_constant = self.bpftrace() && crate::builtins::constant(&name.name).is_some();
                    if (vars::is_builtin(&name.name, self.dialect()) && !shadows_constant) || self.inlines.iter().any(|i| i.0 == name.name) {
                        return Err(Diagnostic::new(name.span.clone(), format!("`{}` is already defined", name.name)).label("defined again").hint("an inline needs a name of its own"));
                    }
                    self.inlines.push((name.name.clone(), ty.clone(), value.clone()));
                }
                Decl::Translator { to, from, param, members, library, .. } => self.declare_translator(to, from, param, members, *library)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// `TYPE NAME[N];`: a global array of N integers or pointers, indexed from 0.
    fn declare_scalar_array(&mut self, scope: Scope, ty: &TypeName, name: &ast::Ident, len: u32, span: &Span) -> Result<(), Diagnostic> {
        if scope != Scope::Global {
            return Err(Diagnostic::new(span.clone(), "a scalar array is global").label(if scope == Scope::Thread { "`self`" } else { "`this`" }).hint(format!("declare it without `self` or `this`: `int {}[{len}];`", name.name)));
        }
        if is_string(ty) {
            return Err(Diagnostic::new(ty.span.clone(), "a scalar array holds integers or pointers").label("strings").hint(format!("for strings indexed by number use an associative array: `string {}[int];`", name.name)));
        }
        let t = self.scalar_type(ty)?;
        if vars::is_builtin(&name.name, self.dialect()) {
            return Err(Diagnostic::new(name.span.clone(), format!("cannot declare builtin variable `{}`", name.name)).label("a builtin").hint("choose another name for your variable"));
        }
        if self.array(&name.name, false).is_some() || self.globals.contains(&name.name) {
            return Err(declared_twice(name));
        }
        self.arrays.push(ArrayVar { name: name.name.clone(), thread: false, span: name.span.clone(), keys: Some(vec![Repr::Int(crate::ir::IntRepr::I64)]), len: Some(len) });
        self.var_types.insert(VarRef::Array(self.arrays.len() - 1), t);
        Ok(())
    }

    fn declare_variable(&mut self, scope: Scope, ty: &TypeName, name: &ast::Ident, keys: Option<&[TypeName]>, span: &Span) -> Result<(), Diagnostic> {
        let t = self.variable_type(ty)?;
        if vars::is_builtin(&name.name, self.dialect()) {
            return Err(Diagnostic::new(name.span.clone(), format!("cannot declare builtin variable `{}`", name.name)).label("a builtin").hint("choose another name for your variable"));
        }
        let var = match (scope, keys) {
            (Scope::Clause, Some(_)) => {
                return Err(Diagnostic::new(span.clone(), "a clause-local variable cannot be an associative array").label("`this` with keys").hint("declare it global or `self`"));
            }
            (Scope::Clause, None) => {
                self.declared_locals.push((name.name.clone(), t));
                return Ok(());
            }
            (scope, Some(keys)) => {
                let mut reprs = Vec::new();
                for k in keys {
                    if is_string(k) {
                        reprs.push(Repr::Str(self.strsize));
                        continue;
                    }
                    let kt = self.type_of_name(k)?;
                    match self.types.real(kt).map_err(|e| ctypes::no_types(&k.span, e))? {
                        t if t.is_scalar() => reprs.push(Repr::Int(self.int_repr(kt))),
                        Type::Struct(_) | Type::Union(_) => {
                            let size = self.record_size(kt, &k.span)?;
                            let owner = if scope == Scope::Thread { format!("self->{}", name.name) } else { name.name.clone() };
                            let owner = keys::KeyOwner { kind: "associative array", name: &owner }.id();
                            self.key_types.insert((owner, reprs.len()), kt);
                            reprs.push(Repr::Object(size));
                        }
                        _ => {
                            let n = self.types.name(kt);
                            return Err(Diagnostic::new(k.span.clone(), format!("an associative array's key cannot be declared `{n}`")).label("not an integer type").hint("declare integer, string or struct keys: `int a[string, int];`"));
                        }
                    }
                }
                let thread = scope == Scope::Thread;
                if self.array(&name.name, thread).is_some() {
                    return Err(declared_twice(name));
                }
                self.arrays.push(ArrayVar { name: name.name.clone(), thread, span: name.span.clone(), keys: Some(reprs), len: None });
                VarRef::Array(self.arrays.len() - 1)
            }
            (Scope::Global, None) => {
                if self.globals.contains(&name.name) || self.array(&name.name, false).is_some() {
                    return Err(declared_twice(name));
                }
                self.globals.push(name.name.clone());
                VarRef::Global(self.globals.len() - 1)
            }
            (Scope::Thread, None) => {
                if self.thread_locals.contains(&name.name) {
                    return Err(declared_twice(name));
                }
                self.thread_locals.push(name.name.clone());
                VarRef::Thread(self.thread_locals.len() - 1)
            }
        };
        self.var_types.insert(var, t);
        Ok(())
    }

    /// A declared variable's type: an integer, an enum, a pointer, a string, a struct or a
    /// union (a struct variable starts zeroed, as D's variables do).
    pub(super) fn variable_type(&mut self, ty: &TypeName) -> Result<TypeId, Diagnostic> {
        if is_string(ty) {
            return Ok(self.c_string());
        }
        let t = self.type_of_name(ty)?;
        if matches!(self.types.real(t).map_err(|e| ctypes::no_types(&ty.span, e))?, Type::Struct(_) | Type::Union(_)) {
            self.record_size(t, &ty.span)?;
            return Ok(t);
        }
        // bpftrace's `let $a: uint8[4]`: an array of integers, kept as a value.
        if matches!(self.types.real(t), Ok(Type::Array { .. })) && !ty.suffix.is_empty() {
            if self.int_array(t).is_none() {
                let n = postfix_types::bt_type_name(self, t);
                return Err(Diagnostic::new(ty.span.clone(), format!("a scratch variable of type `{n}` is not in crumbs"))
                    .label("not an array of integers")
                    .hint("declare an array of integers (uint8[4], int32[2]); keep pointers or structs in variables of their own"));
            }
            return Ok(t);
        }
        self.scalar_type(ty)
    }

    /// The size of struct or union `t` a variable or key holds: complete, and at most
    /// [`print::MAX_OBJECT`] bytes.
    fn record_size(&mut self, t: TypeId, span: &Span) -> Result<u32, Diagnostic> {
        let name = self.types.name(t);
        let size = match self.types.real(t).map_err(|e| ctypes::no_types(span, e))? {
            Type::Struct(r) | Type::Union(r) if r.size > 0 => r.size,
            _ => return Err(Diagnostic::new(span.clone(), format!("`{name}` is incomplete")).label("no members known").hint("define the struct before declaring a variable of it")),
        };
        if size as u64 > print::MAX_OBJECT {
            return Err(too_large(&name, size, span));
        }
        Ok(size)
    }

    /// A declared variable's type: an integer, an enum, a pointer or a string.
    fn scalar_type(&mut self, ty: &TypeName) -> Result<TypeId, Diagnostic> {
        if is_string(ty) {
            return Ok(self.c_string());
        }
        let t = self.type_of_name(ty)?;
        match self.types.real(t).map_err(|e| ctypes::no_types(&ty.span, e))? {
            r if r.is_scalar() => Ok(t),
            _ => {
                let n = self.types.name(t);
                Err(Diagnostic::new(ty.span.clone(), format!("a variable cannot be `{n}` yet")).label("not a scalar").hint("declare an integer, a pointer (`struct file *f;`) or a string"))
            }
        }
    }

    /// The `this->` variable `name` declared with `this TYPE name;`: its slot in the clause,
    /// created on first use.
    pub(super) fn declared_local(&mut self, name: &str) -> Option<usize> {
        let ty = self.declared_locals.iter().find(|(n, _)| n == name)?.1;
        self.clause_locals.push(name.to_string());
        let l = self.clause_locals.len() - 1;
        self.var_types.insert(VarRef::Clause(l), ty);
        Some(l)
    }

    /// The value of inline `name` where it is used: its expression converted to its type.
    pub(super) fn inline_value(&mut self, name: &str, span: &Span) -> Option<Result<TExpr, Diagnostic>> {
        let (_, ty, value) = self.inlines.iter().find(|i| i.0 == name)?.clone();
        if self.expanding.iter().any(|n| n == name) {
            return Some(Err(Diagnostic::new(span.clone(), format!("inline `{name}` is defined by itself")).label("used in its own definition").hint("an inline's expression cannot use the inline")));
        }
        self.expanding.push(name.to_string());
        let v = self.inline_of_type(&ty, &value);
        self.expanding.pop();
        Some(v)
    }

    fn inline_of_type(&mut self, ty: &TypeName, value: &ast::Expr) -> Result<TExpr, Diagnostic> {
        let v = self.value(value)?;
        if is_string(ty) {
            // A kernel char array or char pointer (`curthread->comm`) is read as a string,
            // as stringof() reads it.
            let string = self.c_string();
            return match self.string_of(value) {
                Ok(s) => Ok(TExpr::new(s, string)),
                Err(_) if v.expr.is_int() => Err(Diagnostic::new(value.span.clone(), "a `string` inline needs a string").label("an integer").hint("write a string, e.g. inline string NAME = \"bash\";")),
                Err(d) => Err(d),
            };
        }
        let t = self.scalar_type(ty)?;
        if !v.expr.is_int() {
            let n = self.types.name(t);
            return Err(Diagnostic::new(value.span.clone(), format!("inline of type `{n}` needs an integer, but this is {}", v.expr.repr().describe())).label("not an integer").hint("declare a string inline as `inline string NAME = \"...\";`"));
        }
        let r = self.int_repr(t);
        Ok(TExpr::new(self.fit(&v, r), t))
    }
}

/// Declarations compute values once, outside any clause (enum values) or wherever they are
/// used (inlines): an assignment or `++`/`--` in one is an error.
pub(super) fn no_assignments(decls: &[Decl]) -> Result<(), Diagnostic> {
    let mut found = None;
    for d in decls {
        let exprs: Vec<&ast::Expr> = match d {
            Decl::Enum { values, .. } => values.iter().filter_map(|(_, v)| v.as_ref()).collect(),
            Decl::Inline { value, .. } => vec![value],
            Decl::Translator { members, .. } => members.iter().map(|(_, e)| e).collect(),
            _ => continue,
        };
        for e in exprs {
            e.each_target(&mut |t| {
                found.get_or_insert_with(|| t.span());
            });
        }
    }
    match found {
        Some(span) => Err(Diagnostic::new(span, "a declaration cannot assign a variable").label("assigned here").hint("assign variables in clauses; an inline, enum value or translator member is an expression without assignments")),
        None => Ok(()),
    }
}

/// D's `string` type, as written.
fn is_string(ty: &TypeName) -> bool {
    ty.base == ast::BaseType::Named(vec!["string".into()]) && ty.pointers == 0 && matches!(ty.suffix.as_slice(), [] | [ast::TypeSuffix::Array(Some(_))])
}

fn declared_twice(name: &ast::Ident) -> Diagnostic {
    Diagnostic::new(name.span.clone(), format!("`{}` is declared twice", name.name)).label("declared again").hint("declare each variable once")
}

/// A struct or union of `size` bytes, over what a variable or key holds.
pub(super) fn too_large(name: &str, size: u32, span: &Span) -> Diagnostic {
    Diagnostic::new(span.clone(), format!("`{name}` is {size} bytes, too large for a variable or a key"))
        .label("too large")
        .hint(format!("a struct or union variable or key holds at most {} bytes: store a pointer to it, or the members you need", print::MAX_OBJECT))
}
