//! Variables: globals, `self->` and `this->`. A variable takes the type of its first
//! assignment (DTrace's rule: `i = 0` declares an `int`); every store converts the value to
//! that type, so a variable always holds a value within its type's range.

use super::*;
use crate::types::{Type, TypeId};

/// A variable of the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum VarRef {
    Global(usize),
    Thread(usize),
    Clause(usize),
}

impl Checker<'_> {
    /// The type of a variable where it is read. A global or thread-local read before the
    /// checker met its first assignment reads as a `long` this time; `check()` then checks
    /// the program again knowing every variable's type.
    pub(super) fn var_type(&mut self, v: VarRef) -> TypeId {
        if let Some(t) = self.var_types.get(&v) {
            return *t;
        }
        self.read_before_typed = true;
        self.long()
    }

    /// `target = value`, `target op= value`, `target++`: the statement that stores it.
    pub(super) fn assign(&mut self, target: &LValue, op: Option<BinOp>, value: Option<&ast::Expr>, delta: i64, span: &Span) -> Result<Stmt, Diagnostic> {
        let (var, read, set) = self.var_target(target, op.is_some() || value.is_none())?;
        let v = match value {
            Some(value) => self.stored_value(value)?,
            None => TExpr::new(Expr::Int(delta), self.int()),
        };
        // `x++` on a variable assigned nowhere else is an int, as `x = 0` would declare it.
        if value.is_none() && !self.var_types.contains_key(&var) {
            let int = self.int();
            self.var_types.insert(var, int);
        }
        let v = match (op, value) {
            (None, Some(_)) => v,
            (op, _) => {
                let ty = self.var_type(var);
                let (rspan, lspan) = (value.map_or(span.clone(), |e| e.span.clone()), span.clone());
                self.combine(op.unwrap_or(BinOp::Add), TExpr::new(read, ty), v, &lspan, &rspan, span)?
            }
        };
        let ty = match self.var_types.get(&var) {
            Some(t) => *t,
            None => {
                self.var_types.insert(var, v.ty);
                v.ty
            }
        };
        self.assignable(ty, &v, value.map_or(span, |e| &e.span), target)?;
        let repr = self.int_repr(ty);
        Ok(set(self.fit(&v, repr)))
    }

    /// The value of an assignment's right side: a scalar (a kernel `char *` stays a
    /// pointer; strings cannot be stored in variables yet).
    fn stored_value(&mut self, e: &ast::Expr) -> Result<TExpr, Diagnostic> {
        let t = self.typed(e)?;
        let ty = t.ty;
        if let ctypes::Val::Value(Expr::Str(_) | Expr::Stack) = &t.val {
            let v = self.value_of(t, &e.span)?;
            let what = v.repr().describe();
            return Err(Diagnostic::new(e.span.clone(), format!("a variable must be an integer or a pointer, but this is {what}"))
                .label(what)
                .hint("crumbs variables hold integers and pointers; use an aggregation key to group by a string"));
        }
        // An array stored is its address, a pointer to its first element (as in C).
        let ty = match self.types.real(ty).map_err(|x| ctypes::no_types(&e.span, x))? {
            Type::Array { elem, .. } => self.types.pointer(elem, crate::types::AddrSpace::Kernel),
            Type::Int(_) | Type::Enum { .. } | Type::Ptr { .. } => ty,
            _ => {
                let name = self.types.name(ty);
                return Err(Diagnostic::new(e.span.clone(), format!("a variable must be an integer or a pointer, but this is `{name}`"))
                    .label("not a scalar")
                    .hint("store a pointer to it (&x) or one of its members"));
            }
        };
        let v = self.value_of(t, &e.span)?;
        Ok(TExpr::new(v, ty))
    }

    /// A value of type `v.ty` can be stored in a variable of type `ty`: integers and
    /// pointers convert to each other (as D allows with a cast); anything else is an error.
    fn assignable(&mut self, ty: TypeId, v: &TExpr, span: &Span, target: &LValue) -> Result<(), Diagnostic> {
        let scalar = |t: Type| matches!(t, Type::Int(_) | Type::Enum { .. } | Type::Ptr { .. });
        let (to, from) = (self.types.real(ty).map_err(|e| ctypes::no_types(span, e))?, self.types.real(v.ty).map_err(|e| ctypes::no_types(span, e))?);
        if scalar(to) && scalar(from) {
            return Ok(());
        }
        let (want, got) = (self.types.name(ty), self.types.name(v.ty));
        let name = match target {
            LValue::Global(i) => i.name.clone(),
            LValue::ThreadLocal(i, _) => format!("self->{}", i.name),
            LValue::ClauseLocal(i, _) => format!("this->{}", i.name),
        };
        Err(Diagnostic::new(span.clone(), format!("`{name}` is `{want}`, but this is `{got}`")).label("type differs").hint("a variable keeps the type of its first assignment; use another variable"))
    }

    /// An assignable variable: which it is, how to read it and how to store into it.
    /// `reads`: the statement reads it first (`x += 1`), which a `this->` variable must allow.
    pub(super) fn var_target(&mut self, target: &LValue, reads: bool) -> Result<(VarRef, Expr, Store), Diagnostic> {
        match target {
            LValue::Global(i) => {
                if builtins::variable(&i.name).is_some() {
                    return Err(Diagnostic::new(i.span.clone(), format!("cannot assign to builtin variable `{}`", i.name))
                        .label("read-only")
                        .hint("choose another name for your variable"));
                }
                let g = self.globals.iter().position(|g| g == &i.name).expect("declared");
                Ok((VarRef::Global(g), Expr::Global(g), Box::new(move |v| Stmt::SetGlobal(g, v))))
            }
            LValue::ThreadLocal(i, _) => {
                let t = self.thread_locals.iter().position(|g| g == &i.name).expect("declared");
                Ok((VarRef::Thread(t), Expr::ThreadLocal(t), Box::new(move |v| Stmt::SetThreadLocal(t, v))))
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
                Ok((VarRef::Clause(l), Expr::ClauseLocal(l), Box::new(move |v| Stmt::SetClauseLocal(l, v))))
            }
        }
    }
}
