//! Variables: globals, `self->`, `this->` and associative arrays. A variable takes the type
//! of its first assignment (DTrace's rule: `i = 0` declares an `int`); every store converts
//! the value to that type, so a variable always holds a value within its type's range.
//! Assignments and `++`/`--` are statements, or values ([`Checker::assign_value`]).

use super::*;
use crate::types::{Type, TypeId};

/// A variable of the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum VarRef {
    Global(usize),
    Thread(usize),
    Clause(usize),
    /// An associative array's elements.
    Array(usize),
}

/// An associative array of the program.
pub(super) struct ArrayVar {
    pub name: String,
    pub thread: bool,
    /// Where it is first assigned.
    pub span: Span,
    /// How its keys are stored, once a use of it was checked.
    pub keys: Option<Vec<Repr>>,
    /// A scalar array's number of elements (its one key is an index below it).
    pub len: Option<u32>,
}

/// What storing into a target takes: statements to run first (keys evaluated once), how to
/// read the target, and how to store into it.
pub(super) struct Target {
    pub var: VarRef,
    pub setup: Vec<Stmt>,
    pub read: Expr,
    pub store: Store,
}

/// The parts of an assignment: the target, the value to store (already converted to the
/// target's type) and that type.
struct Assignment {
    target: Target,
    value: Expr,
    ty: TypeId,
}

impl Checker<'_> {
    /// The type of a variable where it is read. A global or thread-local read before the
    /// checker met its first assignment reads as a `long` this time; `check()` then checks
    /// the program again knowing every variable's type.
    pub(super) fn var_type(&mut self, v: VarRef) -> TypeId {
        if let Some(t) = self.var_types.get(&v) {
            return *t;
        }
        self.second_pass_needed = true;
        self.guessed_long()
    }

    /// A `long` named as such, but with an id of its own, which tells the types a guess gave
    /// from those of real values (see [`Checker::guessed`]).
    fn guessed_long(&mut self) -> TypeId {
        if let Some(t) = self.guessed {
            return t;
        }
        let long = self.long();
        let t = self.types.add(Type::Typedef { name: "long".into(), to: long });
        self.guessed = Some(t);
        t
    }

    /// `target = value`, `target op= value`, `target++` as a statement.
    pub(super) fn assign(&mut self, target: &LValue, op: Option<BinOp>, value: Option<&ast::Expr>, delta: i64, span: &Span) -> Result<Vec<Stmt>, Diagnostic> {
        let Assignment { target, value, .. } = self.assignment(target, op, value, delta, span)?;
        let mut stmts = target.setup;
        stmts.push((target.store)(value));
        Ok(stmts)
    }

    /// An assignment used as a value: the value stored (`x = v`, `x += v`, `++x`), or for
    /// `x++`/`x--` (`post`) the value before.
    pub(super) fn assign_value(&mut self, target: &LValue, op: Option<BinOp>, value: Option<&ast::Expr>, delta: i64, post: bool, span: &Span) -> Result<TExpr, Diagnostic> {
        let Assignment { target, value, ty } = self.assignment(target, op, value, delta, span)?;
        let tmp = self.hidden_local(ty);
        let local = self.var_expr(VarRef::Clause(tmp), Vec::new()).expr;
        let mut stmts = target.setup;
        if post {
            stmts.push(set_local(tmp, target.read));
            stmts.push((target.store)(value));
        } else {
            stmts.push(set_local(tmp, value));
            stmts.push((target.store)(local.clone()));
        }
        Ok(TExpr::new(
            match local {
                Expr::Str(s) => Expr::Str(StrExpr::Seq(stmts, Box::new(s))),
                v => Expr::Seq(stmts, Box::new(v)),
            },
            ty,
        ))
    }

    /// How variable `v` is stored: a string buffer or an integer of its type.
    pub(super) fn var_repr(&mut self, v: VarRef) -> Repr {
        match self.var_types.get(&v).copied() {
            Some(t) => match (self.printed_of(t), self.buffer_of(t)) {
                (Some(r), _) => r,
                (None, Some(b)) => b.stored(),
                (None, None) => Repr::Int(self.int_repr(t)),
            },
            None => Repr::Int(IntRepr::I64),
        }
    }


    /// How associative array `a`'s values are stored and printed: as its variable is, but a
    /// bpftrace map's pointers print as bpftrace 0.17 prints them, signed 64-bit numbers
    /// (`@t = curtask` is `@t: -131385168215296`).
    pub(super) fn map_value_repr(&mut self, a: usize) -> Repr {
        let pointer = self.var_types.get(&VarRef::Array(a)).is_some_and(|t| matches!(self.types.real(*t), Ok(Type::Ptr { .. })));
        if pointer && self.bpftrace() && self.arrays[a].name.starts_with('@') {
            return Repr::Int(IntRepr::I64);
        }
        self.var_repr(VarRef::Array(a))
    }

    /// How a variable of type `t` is kept in a buffer: a string's, or a struct's or union's
    /// bytes; None for an integer or a pointer.
    fn buffer_of(&mut self, t: TypeId) -> Option<Buffer> {
        match self.types.real(t) {
            Ok(Type::String { .. }) => Some(Buffer::Str(self.strsize)),
            Ok(Type::Struct(r) | Type::Union(r)) => Some(Buffer::Object(r.size)),
            Ok(Type::Array { .. }) => self.int_array(t).map(|(elem, len)| Buffer::Array(elem, len)),
            // A user symbol is two words: kept in a buffer as a struct is.
            Ok(Type::Printed(r @ (Repr::USym(_) | Repr::Buf(_)))) => Some(Buffer::Object(r.size() as u32)),
            _ => None,
        }
    }

    /// The printed-only representation a variable of type `t` holds (a stack, a symbol, a
    /// probe, ...), if it holds one.
    pub(super) fn printed_of(&mut self, t: TypeId) -> Option<Repr> {
        match self.types.real(t) {
            Ok(Type::Printed(r)) => Some(r),
            _ => None,
        }
    }

    /// Reading variable `v` (`keys`: an array element's): an integer, a string variable's
    /// buffer, or a struct variable's bytes. A read before the variable's type is known asks
    /// for a second pass.
    pub(super) fn var_expr(&mut self, v: VarRef, keys: Vec<Expr>) -> TExpr {
        let ty = self.var_type(v);
        let buffer = self.buffer_of(ty);
        let printed = self.printed_of(ty);
        TExpr::new(printed_read(read_of(v, keys, buffer), printed), ty)
    }

    /// Reading variable `v` (`keys`: an array element's) as far as its type is known yet.
    fn read_var(&mut self, v: VarRef, keys: Vec<Expr>) -> Expr {
        let buffer = self.buffer_var(v);
        let printed = self.var_types.get(&v).copied().and_then(|t| self.printed_of(t));
        printed_read(read_of(v, keys, buffer), printed)
    }

    /// How variable `v` is already known to be kept in a buffer, if it is.
    fn buffer_var(&mut self, v: VarRef) -> Option<Buffer> {
        self.var_types.get(&v).copied().and_then(|t| self.buffer_of(t))
    }

    /// Whether variable `v` is already known to hold strings.
    pub(super) fn holds_strings(&mut self, v: VarRef) -> bool {
        matches!(self.buffer_var(v), Some(Buffer::Str(_)))
    }

    /// A clause-local slot of type `ty` that no script can name, for a value computed once
    /// and used twice.
    pub(super) fn hidden_local(&mut self, ty: TypeId) -> usize {
        self.clause_locals.push(format!("\0{}", self.clause_locals.len()));
        let l = self.clause_locals.len() - 1;
        self.var_types.insert(VarRef::Clause(l), ty);
        l
    }

    fn assignment(&mut self, target: &LValue, op: Option<BinOp>, value: Option<&ast::Expr>, delta: i64, span: &Span) -> Result<Assignment, Diagnostic> {
        if let LValue::Member(e) = target {
            return self.member_assignment(e, target, op, value, delta, span);
        }
        let t = self.var_target(target, op.is_some() || value.is_none())?;
        let var = t.var;
        if let (VarRef::Clause(l), None, Some(v)) = (var, op, value) {
            self.declared_literal_fits(l, &target.text(), v)?;
        }
        if (op.is_some() || value.is_none()) && self.holds_strings(var) {
            let what = if value.is_none() { "`++`/`--`" } else { "a compound assignment" };
            return Err(Diagnostic::new(span.clone(), format!("{what} of string variable `{}`", target.text()))
                .label("a string")
                .hint("assign a string with `=`; join strings with strjoin()"));
        }
        if let Some(r) = self.var_types.get(&var).copied().and_then(|t| self.printed_of(t)).filter(|_| op.is_some() || value.is_none()) {
            let what = if value.is_none() { "`++`/`--`" } else { "a compound assignment" };
            return Err(Diagnostic::new(span.clone(), format!("{what} of `{}`, which holds {}", target.text(), r.describe()))
                .label("not a number")
                .hint("it is printed as text, never computed with: assign it with `=`"));
        }
        if (op.is_some() || value.is_none()) && matches!(self.buffer_var(var), Some(Buffer::Object(_) | Buffer::Array(..))) {
            let what = if value.is_none() { "`++`/`--`" } else { "a compound assignment" };
            let name = self.types.name(self.var_types[&var]);
            let (label, hint) = match self.buffer_var(var) {
                Some(Buffer::Array(..)) => ("arithmetic on an array", "an array is assigned whole with `=`; compute with its elements ($a[0])"),
                _ => ("arithmetic on a struct", "a struct or union is assigned whole with `=`; compute with its members"),
            };
            return Err(Diagnostic::new(span.clone(), format!("{what} of `{}`, a `{name}`", target.text())).label(label).hint(hint));
        }
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
                self.combine(op.unwrap_or(BinOp::Add), TExpr::new(t.read.clone(), ty), v, &lspan, &rspan)?
            }
        };
        let ty = match self.var_types.get(&var) {
            Some(t) => *t,
            None => {
                self.var_types.insert(var, v.ty);
                v.ty
            }
        };
        if let Some(r) = self.printed_of(ty) {
            self.may_hold_printed(var, r, target, span)?;
        }
        let zero_deletes = matches!(var, VarRef::Thread(_) | VarRef::Array(_)) && value.is_some_and(|e| matches!(e.kind, ExprKind::Int(0, _)));
        self.assignable(ty, &v, value.map_or(span, |e| &e.span), target, zero_deletes)?;
        let value = match v.expr {
            Expr::Object { .. } | Expr::Stored(Repr::Array(..), _) => v.expr,
            // `self->s = 0` deletes a struct thread-local or element: an object of no bytes.
            Expr::Int(0) if zero_deletes && matches!(self.buffer_var(var), Some(Buffer::Object(_))) => Expr::Object { addr: Box::new(Expr::Int(0)), size: 0 },
            _ => {
                let repr = self.int_repr(ty);
                self.fit(&v, repr)
            }
        };
        Ok(Assignment { target: t, value, ty })
    }

    /// Refuses a printed-only value (`r`) in a D thread-local or associative array: storing 0
    /// deletes those, and the word kept may be 0 (a stack's id, a probe's, root's uid).
    /// bpftrace's maps keep 0; globals and `this->`/`$` variables are plain words.
    fn may_hold_printed(&mut self, var: VarRef, r: Repr, target: &LValue, span: &Span) -> Result<(), Diagnostic> {
        let deletes_zero = match var {
            VarRef::Thread(_) => true,
            VarRef::Array(a) => !self.arrays[a].name.starts_with('@'),
            VarRef::Global(_) | VarRef::Clause(_) => false,
        };
        if !deletes_zero {
            return Ok(());
        }
        let what = if matches!(var, VarRef::Thread(_)) { "a thread-local variable" } else { "an associative array's element" };
        Err(Diagnostic::new(span.clone(), format!("`{}` cannot hold {}: storing 0 deletes {what}, and this value may be 0", target.text(), r.describe()))
            .label(r.describe())
            .hint("keep it in a global, a this-> variable or a bpftrace map (@s[tid] = kstack)"))
    }

    /// `v.m = value`, `v.m op= value`, `v.m++`: a member (at a fixed offset) of a struct
    /// variable, stored at its width, into its bits, or copied whole if it is a struct.
    fn member_assignment(&mut self, e: &ast::Expr, target: &LValue, op: Option<BinOp>, value: Option<&ast::Expr>, delta: i64, span: &Span) -> Result<Assignment, Diagnostic> {
        let not_var = || {
            Diagnostic::new(e.span.clone(), format!("cannot assign `{}`", target.text()))
                .label("not a member of a D variable")
                .hint("members of struct variables are assigned at fixed offsets (`r.m = 1`, `r.a[2] = 1`); kernel memory is never written")
        };
        let t = self.typed(e)?;
        let ty = t.ty;
        let name = self.types.name(ty);
        let (addr, field) = match &t.val {
            ctypes::Val::Place(addr) => {
                let field = match self.types.real(ty).map_err(|x| ctypes::no_types(&e.span, x))? {
                    Type::Int(i) => Field::Int(i.size),
                    Type::Enum { size, .. } => Field::Int(size as u8),
                    Type::Ptr { .. } => Field::Int(8),
                    Type::Struct(r) | Type::Union(r) => Field::Object(r.size),
                    _ => {
                        return Err(Diagnostic::new(e.span.clone(), format!("cannot assign `{}`, a `{name}`", target.text())).label("an array").hint("assign its elements one by one"));
                    }
                };
                (addr.clone(), field)
            }
            ctypes::Val::Value(Expr::Bits { inner, shift, width, .. }) => match inner.as_ref() {
                Expr::Load { addr, size, .. } => ((**addr).clone(), Field::Bits { size: *size, shift: *shift, width: *width }),
                _ => return Err(not_var()),
            },
            _ => return Err(not_var()),
        };
        let (var, offset) = match addr {
            Expr::VarAddr(v) => (v, 0),
            Expr::Binary(BinOp::Add, a, k) => match (*a, *k) {
                (Expr::VarAddr(v), Expr::Int(k)) if (0..=u32::MAX as i64).contains(&k) => (v, k as u32),
                _ => return Err(not_var()),
            },
            _ => return Err(not_var()),
        };
        if matches!(&var, StrVar::Element { keys, .. } if keys.iter().any(Expr::has_effects)) {
            return Err(Diagnostic::new(e.span.clone(), "a key that assigns a variable cannot be used in a member's assignment").label("assigns a variable").hint("assign the variable in a statement of its own first"));
        }
        let read = match field {
            Field::Object(size) => Expr::Object { addr: Box::new(add_member(&var, offset)), size },
            _ => self.value_of(t, &e.span)?,
        };
        let v = match (field, op, value) {
            (Field::Object(_), None, Some(value)) => {
                let v = self.stored_value(value)?;
                if !(matches!(v.expr, Expr::Object { .. }) && self.same_type(ty, v.ty)) {
                    let got = self.types.name(v.ty);
                    return Err(Diagnostic::new(value.span.clone(), format!("`{}` is `{name}`, but this is `{got}`", target.text())).label("type differs").hint("a struct member is assigned a struct of its own type"));
                }
                v.expr
            }
            (Field::Object(_), ..) => {
                let what = if value.is_none() { "`++`/`--`" } else { "a compound assignment" };
                return Err(Diagnostic::new(span.clone(), format!("{what} of `{}`, a `{name}`", target.text())).label("arithmetic on a struct").hint("a struct or union is assigned whole with `=`; compute with its members"));
            }
            _ => {
                let v = match value {
                    Some(value) => self.value(value)?,
                    None => TExpr::new(Expr::Int(delta), self.int()),
                };
                if !v.expr.is_int() {
                    let at = value.map_or(span, |x| &x.span);
                    return Err(Diagnostic::new(at.clone(), format!("`{}` is `{name}`, but this is {}", target.text(), v.expr.repr().describe())).label("type differs").hint("a member holds its C type: an integer or a pointer here"));
                }
                let v = match (op, value) {
                    (None, Some(_)) => v,
                    (op, _) => {
                        let (rspan, lspan) = (value.map_or(span.clone(), |x| x.span.clone()), span.clone());
                        self.combine(op.unwrap_or(BinOp::Add), TExpr::new(read.clone(), ty), v, &lspan, &rspan)?
                    }
                };
                let repr = self.int_repr(ty);
                self.fit(&v, repr)
            }
        };
        let var_ref = match &var {
            StrVar::Global(g) => VarRef::Global(*g),
            StrVar::Thread(t) => VarRef::Thread(*t),
            StrVar::Clause(l) => VarRef::Clause(*l),
            StrVar::Element { array, .. } => VarRef::Array(*array),
        };
        let store: Store = Box::new(move |value| Stmt::SetMember { var: var.clone(), offset, field, value });
        Ok(Assignment { target: Target { var: var_ref, setup: Vec::new(), read, store }, value: v, ty })
    }

    /// The value of an assignment's right side: a scalar (a kernel `char *` stays a
    /// pointer, as in C) or a string.
    fn stored_value(&mut self, e: &ast::Expr) -> Result<TExpr, Diagnostic> {
        let t = self.typed(e)?;
        let ty = t.ty;
        if let ctypes::Val::Value(Expr::Str(_)) = &t.val {
            let v = self.value_of(t, &e.span)?;
            let string = self.c_string();
            return Ok(TExpr::new(v, string));
        }
        // A stack, a symbol, a probe, ...: the word (a user symbol's 16 bytes) user space
        // turns into text, kept with its representation in the variable's type.
        if let ctypes::Val::Value(x) = &t.val {
            if x.repr().printed_only() {
                let ty = self.types.printed(x.repr());
                return Ok(TExpr::new(x.clone(), ty));
            }
        }
        // bpftrace's array of integers is copied whole.
        if let Some(v) = self.array_value(&t, &e.span)? {
            return Ok(v);
        }
        // An array stored is its address, a pointer to its first element (as in C).
        let ty = match self.types.real(ty).map_err(|x| ctypes::no_types(&e.span, x))? {
            Type::Array { elem, .. } => self.types.pointer(elem, crate::types::AddrSpace::Kernel),
            t if t.is_scalar() => ty,
            // A struct or union is copied whole from where it is.
            Type::Struct(_) | Type::Union(_) => return self.object(t, &e.span)?.map_err(|_| unreachable!("a struct")),
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

    /// A struct or union value (or bpftrace's array of integers), copied whole from where it
    /// is (a variable, an element, a key); `t` back if it is none of them.
    pub(super) fn object(&mut self, t: ctypes::Typed, span: &Span) -> Result<Result<TExpr, ctypes::Typed>, Diagnostic> {
        let ty = t.ty;
        if let Some(v) = self.array_value(&t, span)? {
            return Ok(Ok(v));
        }
        let (Type::Struct(r) | Type::Union(r)) = self.types.real(ty).map_err(|x| ctypes::no_types(span, x))? else {
            return Ok(Err(t));
        };
        let name = self.types.name(ty);
        if r.size as u64 > print::MAX_OBJECT {
            return Err(var_decls::too_large(&name, r.size, span));
        }
        let ctypes::Val::Place(addr) = t.val else {
            return Err(Diagnostic::new(span.clone(), format!("a `{name}` that is not in memory cannot be stored")).label("no address").hint("store a struct read through a pointer, e.g. this->t = *curthread"));
        };
        Ok(Ok(TExpr::new(Expr::Object { addr: Box::new(addr), size: r.size }, ty)))
    }

    /// A value of type `v.ty` can be stored in a variable of type `ty`: integers and
    /// pointers convert to each other (as D allows with a cast); anything else is an error.
    /// `zero_deletes`: the target is a thread-local variable or an array's element, which a
    /// literal 0 deletes whatever its type (D's rule).
    fn assignable(&mut self, ty: TypeId, v: &TExpr, span: &Span, target: &LValue, zero_deletes: bool) -> Result<(), Diagnostic> {
        let (to, from) = (self.types.real(ty).map_err(|e| ctypes::no_types(span, e))?, self.types.real(v.ty).map_err(|e| ctypes::no_types(span, e))?);
        if let Some((why, hint)) = self.pointer_mismatch(ty, v.ty) {
            return Err(Diagnostic::new(span.clone(), format!("`{}` cannot hold this: {why}", target.text())).label("incompatible pointer").hint(hint));
        }
        if to.is_scalar() && from.is_scalar() {
            return Ok(());
        }
        // A stack, symbol, probe, ... only into a variable of the same representation (a
        // stack's frames included).
        if matches!(to, Type::Printed(r) if v.expr.repr() == r) {
            return Ok(());
        }
        // A struct or union only from one of the same type (as D's ctf_type_compat).
        if matches!(to, Type::Struct(_) | Type::Union(_)) && matches!(v.expr, Expr::Object { .. }) && self.same_type(ty, v.ty) {
            return Ok(());
        }
        if matches!(to, Type::Struct(_) | Type::Union(_)) && v.expr == Expr::Int(0) && zero_deletes {
            return Ok(());
        }
        // An array only from one of the same element type and length.
        if let (Some((e, n)), Repr::Array(f, m)) = (self.int_array(ty), v.expr.repr()) {
            if (e, n) == (f, m) {
                return Ok(());
            }
        }
        if matches!(to, Type::String { .. }) && !v.expr.repr().printed_only() && !v.expr.is_int() {
            return Ok(());
        }
        let (want, got) = (self.types.name(ty), self.types.name(v.ty));
        let name = target.text();
        // The filter is part of a cgroup path's type: say which differ.
        if let (Type::Printed(crate::ir::Repr::Named(crate::ir::NameOf::CgroupPath(was))), crate::ir::Repr::Named(crate::ir::NameOf::CgroupPath(is))) = (to, v.expr.repr()) {
            let (was, is) = (self.strings.resolve(was as u64), self.strings.resolve(is as u64));
            return Err(Diagnostic::new(span.clone(), format!("`{name}` holds cgroup_path()s filtered by \"{was}\", but this one is filtered by \"{is}\""))
                .label("another filter")
                .hint("a variable keeps one filter: use another variable"));
        }
        // A scratch variable declared with its type (`let $a: uint8[4]`): bpftrace's words.
        if let LValue::ClauseLocal(n, _) = target {
            if self.bpftrace() && self.clause_locals.iter().position(|x| x == &n.name).is_some_and(|l| self.declared_scratch.contains(&l)) {
                let (want, got) = (postfix_types::bt_type_name(self, ty), postfix_types::bt_type_name(self, v.ty));
                return Err(Diagnostic::new(span.clone(), format!("Type mismatch for {name}: trying to assign value of type '{got}' when variable already has a type '{want}'"))
                    .label("type differs")
                    .hint("a variable declared with a type keeps it; store a value of that type, or use another variable"));
            }
        }
        Err(Diagnostic::new(span.clone(), format!("`{name}` is `{want}`, but this is `{got}`")).label("type differs").hint("a variable keeps the type of its first assignment; use another variable"))
    }

    /// Whether `a` and `b` are the same struct or union (typedefs looked through): the same
    /// type, or one of the same name and members.
    pub(super) fn same_type(&mut self, a: TypeId, b: TypeId) -> bool {
        let (Ok(x), Ok(y)) = (self.types.resolve(a), self.types.resolve(b)) else { return false };
        if x == y {
            return true;
        }
        match (self.types.real(x), self.types.real(y)) {
            (Ok(Type::Struct(r)), Ok(Type::Struct(s))) | (Ok(Type::Union(r)), Ok(Type::Union(s))) => !r.name.is_empty() && r == s,
            _ => false,
        }
    }

    /// An assignable variable: which it is, how to read it and how to store into it.
    /// `reads`: the statement reads it first (`x += 1`), which a `this->` variable must allow.
    pub(super) fn var_target(&mut self, target: &LValue, reads: bool) -> Result<Target, Diagnostic> {
        // The read is only used where the statement reads the variable; building it must not
        // count as a read (see [`Checker::var_type`]).
        let simple = |cx: &mut Self, var| {
            let read = cx.read_var(var, Vec::new());
            Target { var, setup: Vec::new(), read, store: Box::new(move |v| store_into(var, Vec::new(), v)) }
        };
        match target {
            LValue::Global(i) => {
                if is_builtin(&i.name, self.dialect()) {
                    return Err(builtin_assigned(&i.name, &i.span));
                }
                let g = self.globals.iter().position(|g| g == &i.name).ok_or_else(|| not_assignable(&i.span))?;
                Ok(simple(self, VarRef::Global(g)))
            }
            LValue::ThreadLocal(i, _) => {
                let t = self.thread_locals.iter().position(|g| g == &i.name).ok_or_else(|| not_assignable(&i.span))?;
                Ok(simple(self, VarRef::Thread(t)))
            }
            LValue::ClauseLocal(i, sp) => {
                let l = match self.clause_locals.iter().position(|g| g == &i.name).or_else(|| self.declared_local(&i.name)) {
                    Some(l) => l,
                    None if reads => return Err(unassigned_local(&i.name, sp)),
                    None => {
                        self.clause_locals.push(i.name.clone());
                        self.clause_locals.len() - 1
                    }
                };
                Ok(simple(self, VarRef::Clause(l)))
            }
            LValue::Member(_) => unreachable!("a member is assigned by member_assignment()"),
            LValue::Element { name, thread, keys, span } => {
                let a = self.array(&name.name, *thread).ok_or_else(|| not_assignable(span))?;
                let mut keys = self.array_keys(a, keys, span)?;
                // Read and then stored: keys that change variables are evaluated once.
                let setup = if reads { self.keys_read_once(&mut keys, target.keys())? } else { Vec::new() };
                let var = VarRef::Array(a);
                let read = self.read_var(var, keys.clone());
                Ok(Target { var, setup, read, store: Box::new(move |v| store_into(var, keys.clone(), v)) })
            }
        }
    }

    /// Keys of an element that is read and then stored (or tested and deleted): the ones that
    /// change variables are evaluated once, into hidden variables by the statements returned.
    pub(super) fn keys_read_once(&mut self, keys: &mut [Expr], written: &[ast::Expr]) -> Result<Vec<Stmt>, Diagnostic> {
        let mut setup = Vec::new();
        for (k, written) in keys.iter_mut().zip(written) {
            if !k.has_effects() {
                continue;
            }
            if !k.is_int() {
                return Err(Diagnostic::new(written.span.clone(), "a string key that assigns a variable cannot be used where the element is also read")
                    .label("assigns a variable")
                    .hint("assign the variable in a statement of its own first"));
            }
            let long = self.long();
            let l = self.hidden_local(long);
            setup.push(Stmt::SetClauseLocal(l, std::mem::replace(k, Expr::ClauseLocal(l))));
        }
        Ok(setup)
    }

    /// Declares associative array `name` (`thread`: `self->name[...]`) where it is assigned.
    pub(super) fn declare_array(&mut self, name: &ast::Ident, thread: bool) -> Result<(), Diagnostic> {
        if !thread && is_builtin(&name.name, self.dialect()) {
            return Err(builtin_assigned(&name.name, &name.span));
        }
        if self.array(&name.name, thread).is_none() {
            self.arrays.push(ArrayVar { name: name.name.clone(), thread, span: name.span.clone(), keys: None, len: None });
        }
        Ok(())
    }

    /// The associative array `name`, global or thread-local.
    pub(super) fn array(&self, name: &str, thread: bool) -> Option<usize> {
        self.arrays.iter().position(|a| a.name == name && a.thread == thread)
    }

    /// The keys of a use of array `a`, checked against its first use.
    pub(super) fn array_keys(&mut self, a: usize, keys: &[ast::Expr], span: &Span) -> Result<Vec<Expr>, Diagnostic> {
        if let Some(len) = self.arrays[a].len {
            return self.scalar_index(a, len, keys, span);
        }
        let first = self.arrays[a].keys.clone();
        // A map of tuples' or records' element maps (`@m.1`) have the keys of the user's `@m`.
        let user = crate::tuples::split_element_name(&self.arrays[a].name).map_or(self.arrays[a].name.as_str(), |(base, _)| base);
        let name = if self.arrays[a].thread { format!("self->{user}") } else { user.to_string() };
        let (keys_out, reprs) = self.keys(keys, first.as_deref(), keys::KeyOwner { kind: "associative array", name: &name }, span)?;
        // (A pointer, printed in hex, is a word like an integer.)
        if let Some((i, r)) = reprs.iter().enumerate().find(|(_, r)| r.printed_only() && **r != Repr::Named(crate::ir::NameOf::Pointer)) {
            return Err(Diagnostic::new(keys[i].span.clone(), format!("an associative array's key cannot be {}", r.describe()))
                .label("not a key")
                .hint("keys are integers and strings, or structs and unions"));
        }
        // bpftrace's `@x` is its map's one element, under no key.
        if keys.is_empty() && !name.starts_with('@') {
            return Err(Diagnostic::new(span.clone(), format!("`{name}[]` needs a key")).label("no key").hint(format!("write a key: `{name}[key]`")));
        }
        if first.is_none() {
            self.arrays[a].keys = Some(reprs);
        }
        Ok(keys_out)
    }

    /// A scalar array's index: one integer below `len` (checked when compiling if it is a
    /// constant, else when the probe fires).
    fn scalar_index(&mut self, a: usize, len: u32, keys: &[ast::Expr], span: &Span) -> Result<Vec<Expr>, Diagnostic> {
        let name = self.arrays[a].name.clone();
        if keys.len() != 1 {
            return Err(Diagnostic::new(span.clone(), format!("`{name}` is a scalar array: it takes one index")).label(format!("{} given", keys.len())).hint(format!("write `{name}[i]` with i from 0 to {}", len - 1)));
        }
        let i = self.int_expr(&keys[0], "a scalar array's index")?;
        Ok(vec![ctypes::bounded(i, len, &keys[0].span, &format!("`{name}`"))?])
    }

    /// The associative array `base` names when it is indexed: `a` or `self->a`.
    pub(super) fn indexed_array(&self, base: &ast::Expr) -> Option<usize> {
        match &base.kind {
            ExprKind::Ident(n) => self.array(n, false),
            ExprKind::ThreadLocal(n) => self.array(n, true),
            _ => None,
        }
    }

    /// `a[keys]` or `self->a[keys]` read: the element, 0 if it does not exist.
    pub(super) fn element(&mut self, a: usize, keys: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        let keys = self.array_keys(a, keys, span)?;
        Ok(self.var_expr(VarRef::Array(a), keys))
    }
}

/// Stores `v` in clause-local `l`: an integer, or a string into its buffer.
fn set_local(l: usize, v: Expr) -> Stmt {
    store_into(VarRef::Clause(l), Vec::new(), v)
}

/// How a variable is kept in a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Buffer {
    /// A string in a buffer of this many bytes.
    Str(u32),
    /// A struct or union of this many bytes.
    Object(u32),
    /// bpftrace's array of this many integers of this type.
    Array(IntRepr, u32),
}

impl Buffer {
    /// How the variable is stored: a struct's buffer holds whole words.
    fn stored(self) -> Repr {
        match self {
            Buffer::Str(n) => Repr::Str(n),
            Buffer::Object(n) => Repr::Object(n.next_multiple_of(8)),
            Buffer::Array(elem, len) => Repr::Array(elem, len),
        }
    }
}

/// Reading variable `v` (`keys`: an array element's) as it is stored: a string in a buffer,
/// a struct's bytes where its buffer is, else an integer.
/// A variable's read as the printed-only representation it holds, if it holds one.
fn printed_read(read: Expr, printed: Option<Repr>) -> Expr {
    match printed {
        Some(r) => Expr::Stored(r, Box::new(read)),
        None => read,
    }
}

fn read_of(v: VarRef, keys: Vec<Expr>, buffer: Option<Buffer>) -> Expr {
    match buffer {
        Some(Buffer::Str(size)) => Expr::Str(StrExpr::Var(str_var(v, keys), size)),
        Some(Buffer::Object(size)) => Expr::Object { addr: Box::new(Expr::VarAddr(str_var(v, keys))), size },
        // An array's bytes: a value again where it is stored, keyed or printed.
        Some(Buffer::Array(elem, len)) => Expr::Object { addr: Box::new(Expr::VarAddr(str_var(v, keys))), size: elem.size as u32 * len },
        None => match v {
            VarRef::Global(g) => Expr::Global(g),
            VarRef::Thread(t) => Expr::ThreadLocal(t),
            VarRef::Clause(l) => Expr::ClauseLocal(l),
            VarRef::Array(array) => Expr::Element { array, keys },
        },
    }
}

/// Storing `value` in variable `v`: a string into a string variable's buffer, else an integer.
pub(super) fn store_into(v: VarRef, keys: Vec<Expr>, value: Expr) -> Stmt {
    match (value, v) {
        (Expr::Str(s), v) => Stmt::SetStr(str_var(v, keys), s),
        (o @ Expr::Object { .. }, v) => Stmt::SetObject(str_var(v, keys), o),
        // A user symbol's two words go into the variable's buffer, as a struct's bytes.
        (u, v) if matches!(u.repr(), Repr::USym(_) | Repr::Buf(_) | Repr::Array(..)) => Stmt::SetObject(str_var(v, keys), u),
        (value, VarRef::Global(g)) => Stmt::SetGlobal(g, value),
        (value, VarRef::Thread(t)) => Stmt::SetThreadLocal(t, value),
        (value, VarRef::Clause(l)) => Stmt::SetClauseLocal(l, value),
        (value, VarRef::Array(array)) => Stmt::SetElement { array, keys, value },
    }
}

/// The address of the member `offset` bytes into struct variable `v`.
fn add_member(v: &StrVar, offset: u32) -> Expr {
    ctypes::add_offset(Expr::VarAddr(v.clone()), offset as i64)
}

/// Where string variable `v` is.
fn str_var(v: VarRef, keys: Vec<Expr>) -> StrVar {
    match v {
        VarRef::Global(g) => StrVar::Global(g),
        VarRef::Thread(t) => StrVar::Thread(t),
        VarRef::Clause(l) => StrVar::Clause(l),
        VarRef::Array(array) => StrVar::Element { array, keys },
    }
}

/// A builtin variable's or library constant's name, `args` included (it is only ever indexed or followed by `->`).
pub(super) fn is_builtin(name: &str, dialect: crate::dialect::Dialect) -> bool {
    name == "args" || builtins::variable(name, dialect).is_some() || builtins::constant(name).is_some()
}

fn builtin_assigned(name: &str, span: &Span) -> Diagnostic {
    Diagnostic::new(span.clone(), format!("cannot assign to builtin variable `{name}`"))
        .label("read-only")
        .hint("choose another name for your variable")
}

/// A variable assigned where the pass that declares assigned variables does not look (an
/// assignment inside what a member store is made to): D has no use for it.
fn not_assignable(span: &Span) -> Diagnostic {
    Diagnostic::new(span.clone(), "this assignment cannot be stored to")
        .label("assigned inside another assignment's target")
        .hint("assign the variable in a statement of its own first")
}
