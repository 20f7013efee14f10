//! Checked values and their C types: how a value is stored ([`Repr`]) and the conversions
//! D makes when a value is stored, recorded or used as a key (computed in 64 bits, kept at
//! its type's width, sign- or zero-extended).

use super::*;
use crate::types::{IntType, Type, TypeId};

/// A checked expression with its C type.
#[derive(Clone, Debug)]
pub(super) struct TExpr {
    pub expr: Expr,
    pub ty: TypeId,
}

impl TExpr {
    pub fn new(expr: Expr, ty: TypeId) -> TExpr {
        TExpr { expr, ty }
    }
}

/// Whether evaluating `e` leaves a value already within its C type's range: loads,
/// conversions, variables, constants, builtins and truth values do; 64-bit arithmetic on
/// narrower types may not.
fn in_range(e: &Expr) -> bool {
    match e {
        Expr::Binary(op, ..) | Expr::Unsigned(op, ..) => op.is_comparison() || matches!(op, BinOp::LogAnd | BinOp::LogOr | BinOp::LogXor),
        Expr::Unary(op, _) => *op == UnOp::Not,
        Expr::Ternary(_, a, b) => in_range(a) && in_range(b),
        _ => true,
    }
}

impl Checker<'_> {
    /// The integer type named as a builtin's C type (`pid_t`, `int`, `uint64_t`).
    /// Named once per program: every expression asks for some of these.
    pub(super) fn c_int(&mut self, name: &'static str) -> TypeId {
        if let Some(id) = self.c_ints.get(name) {
            return *id;
        }
        let words: Vec<String> = name.split_whitespace().map(String::from).collect();
        let int = crate::types::int_from_keywords(&words).or_else(|| crate::types::builtin_typedef(name)).unwrap_or(IntType { name: name.into(), size: 8, signed: true, char: false, bool: false });
        let id = self.types.int_of(int);
        self.c_ints.insert(name, id);
        id
    }

    /// D's `string` (`strsize` bytes).
    pub(super) fn c_string(&mut self) -> TypeId {
        self.types.string(self.strsize)
    }

    pub(super) fn long(&mut self) -> TypeId {
        self.c_int("long")
    }

    pub(super) fn int(&mut self) -> TypeId {
        self.c_int("int")
    }

    /// The width and sign a value of type `ty` prints with: an integer's own, an enum's
    /// underlying integer's, a pointer as an unsigned 64-bit integer.
    pub(super) fn int_repr(&mut self, ty: TypeId) -> IntRepr {
        if let Ok(Some(i)) = self.types.as_int(ty) {
            return IntRepr { size: i.size, signed: i.signed };
        }
        match self.types.real(ty) {
            Ok(Type::Ptr { .. }) => IntRepr::U64,
            _ => IntRepr::I64,
        }
    }

    /// How a value is stored in records and keys.
    pub(super) fn repr_of(&mut self, v: &TExpr) -> Repr {
        match v.expr.repr() {
            Repr::Int(_) => Repr::Int(self.int_repr(v.ty)),
            r => r,
        }
    }

    /// `v` converted to an integer of `to`'s width and sign, as D stores it: a narrower
    /// type keeps the low bytes, sign- or zero-extended.
    pub(super) fn fit(&mut self, v: &TExpr, to: IntRepr) -> Expr {
        let from = self.int_repr(v.ty);
        let fits = in_range(&v.expr) && (from == to || (from.size < to.size && (from.signed == to.signed || !from.signed)));
        if to.size >= 8 || fits || !v.expr.is_int() {
            return v.expr.clone();
        }
        let width = to.size * 8;
        match v.expr {
            Expr::Int(k) => {
                let shift = 64 - width as u32;
                Expr::Int(if to.signed { (k << shift) >> shift } else { ((k as u64) << shift >> shift) as i64 })
            }
            _ => Expr::Bits { inner: Box::new(v.expr.clone()), shift: 0, width, signed: to.signed },
        }
    }

    /// `v` as a value of its own type: within its range (see [`Checker::fit`]).
    pub(super) fn own(&mut self, v: &TExpr) -> Expr {
        let r = self.int_repr(v.ty);
        self.fit(v, r)
    }

    /// `ty` after C's integer promotions (a narrower integer computes as an `int`); other
    /// types as they are.
    pub(super) fn promoted(&mut self, ty: TypeId) -> TypeId {
        match self.types.as_int(ty) {
            Ok(Some(i)) => self.types.int_of(crate::types::arithmetic(&i, &i)),
            _ => ty,
        }
    }

    /// The type two operands are computed in: C's usual arithmetic conversions for two
    /// integers; a pointer operand's type otherwise.
    pub(super) fn common_type(&mut self, a: TypeId, b: TypeId) -> TypeId {
        match (self.types.as_int(a), self.types.as_int(b)) {
            (Ok(Some(x)), Ok(Some(y))) => self.types.int_of(crate::types::arithmetic(&x, &y)),
            (Ok(None), _) => a,
            _ => b,
        }
    }

    /// Whether values of type `ty` compare, divide and shift as unsigned.
    pub(super) fn is_unsigned(&mut self, ty: TypeId) -> bool {
        !self.int_repr(ty).signed
    }
}
