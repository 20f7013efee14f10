//! The value of an expression known when compiling: bpftrace's conditions on constants,
//! positional parameters and types (`if ($1 < 2)`, `if (is_str($x))`) choose a branch before
//! the other is checked, and `static_assert()` and `fail()` read their arguments.

use super::{Expr, StrExpr, Strings};
use crate::ast::{BinOp, UnOp};

/// The value of `e` if it is made only of constants (as the code generator would compute
/// it: 64-bit, wrapping); `None` if it reads anything when the probe fires, or divides by 0.
pub fn constant(e: &Expr, strings: &Strings) -> Option<i64> {
    Some(match e {
        Expr::Int(v) => *v,
        Expr::Unary(op, a) => {
            let a = constant(a, strings)?;
            match op {
                UnOp::Not => (a == 0) as i64,
                UnOp::BitNot => !a,
                UnOp::Neg => a.wrapping_neg(),
                UnOp::Plus => a,
            }
        }
        // `&&` and `||` are decided by their left operand where it is enough.
        Expr::Binary(BinOp::LogAnd, a, b) => match constant(a, strings)? {
            0 => 0,
            _ => (constant(b, strings)? != 0) as i64,
        },
        Expr::Binary(BinOp::LogOr, a, b) => match constant(a, strings)? {
            0 => (constant(b, strings)? != 0) as i64,
            _ => 1,
        },
        Expr::Binary(op, a, b) => signed(*op, constant(a, strings)?, constant(b, strings)?)?,
        Expr::Unsigned(op, a, b) => unsigned(*op, constant(a, strings)? as u64, constant(b, strings)? as u64)?,
        Expr::Ternary(c, a, b) => match constant(c, strings)? {
            0 => constant(b, strings)?,
            _ => constant(a, strings)?,
        },
        Expr::Bits { inner, shift, width, signed } => {
            let v = (constant(inner, strings)? as u64) >> shift;
            match (*width, *signed) {
                (64.., _) => v as i64,
                (w, true) => ((v << (64 - w)) as i64) >> (64 - w),
                (w, false) => (v & ((1u64 << w) - 1)) as i64,
            }
        }
        // Interned strings are equal exactly when their ids are.
        Expr::StrCmp(op @ (BinOp::Eq | BinOp::Ne), StrExpr::Const(a), StrExpr::Const(b)) => ((a == b) == (*op == BinOp::Eq)) as i64,
        Expr::StrCmp(op, StrExpr::Const(a), StrExpr::Const(b)) => {
            let order = strings.resolve(*a).as_bytes().cmp(strings.resolve(*b).as_bytes());
            signed(*op, order as i64, 0)?
        }
        _ => return None,
    })
}

/// `a op b` of signed 64-bit integers.
fn signed(op: BinOp, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div => a.checked_div(b)?,
        BinOp::Rem => a.checked_rem(b)?,
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::Shl => a.checked_shl(u32::try_from(b).ok()?)?,
        BinOp::Shr => a.checked_shr(u32::try_from(b).ok()?)?,
        BinOp::Eq => (a == b) as i64,
        BinOp::Ne => (a != b) as i64,
        BinOp::Lt => (a < b) as i64,
        BinOp::Le => (a <= b) as i64,
        BinOp::Gt => (a > b) as i64,
        BinOp::Ge => (a >= b) as i64,
        BinOp::LogAnd => (a != 0 && b != 0) as i64,
        BinOp::LogOr => (a != 0 || b != 0) as i64,
        BinOp::LogXor => ((a != 0) != (b != 0)) as i64,
    })
}

/// `a op b` where the operands' type is unsigned (only `/`, `%`, `>>` and the orderings
/// differ from [`signed`]).
fn unsigned(op: BinOp, a: u64, b: u64) -> Option<i64> {
    Some(match op {
        BinOp::Div => a.checked_div(b)? as i64,
        BinOp::Rem => a.checked_rem(b)? as i64,
        BinOp::Shr => a.checked_shr(u32::try_from(b).ok()?)? as i64,
        BinOp::Lt => (a < b) as i64,
        BinOp::Le => (a <= b) as i64,
        BinOp::Gt => (a > b) as i64,
        BinOp::Ge => (a >= b) as i64,
        op => signed(op, a as i64, b as i64)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }

    #[test]
    fn constants_fold_as_the_code_computes_them() {
        let s = Strings::default();
        assert_eq!(constant(&bin(BinOp::Lt, Expr::Int(1), Expr::Int(2)), &s), Some(1));
        assert_eq!(constant(&Expr::Unsigned(BinOp::Ge, Box::new(Expr::Int(-5)), Box::new(Expr::Int(-4095))), &s), Some(1));
        assert_eq!(constant(&Expr::Unsigned(BinOp::Ge, Box::new(Expr::Int(5)), Box::new(Expr::Int(-4095))), &s), Some(0));
        assert_eq!(constant(&bin(BinOp::Div, Expr::Int(1), Expr::Int(0)), &s), None);
        assert_eq!(constant(&bin(BinOp::Add, Expr::Int(1), Expr::Var(crate::builtins::VarHook::ProbeId)), &s), None);
        // The right of && is not needed when the left is 0.
        assert_eq!(constant(&bin(BinOp::LogAnd, Expr::Int(0), Expr::Var(crate::builtins::VarHook::ProbeId)), &s), Some(0));
        assert_eq!(constant(&Expr::Bits { inner: Box::new(Expr::Int(0x1ff)), shift: 0, width: 8, signed: true }, &s), Some(-1));
    }

    #[test]
    fn interned_strings_compare_by_id_and_text() {
        let mut s = Strings::default();
        let (a, b) = (s.intern("kprobe"), s.intern("tracepoint"));
        let cmp = |op, x, y| Expr::StrCmp(op, StrExpr::Const(x), StrExpr::Const(y));
        assert_eq!(constant(&cmp(BinOp::Eq, a, a), &s), Some(1));
        assert_eq!(constant(&cmp(BinOp::Ne, a, b), &s), Some(1));
        assert_eq!(constant(&cmp(BinOp::Lt, a, b), &s), Some(1));
        assert_eq!(constant(&cmp(BinOp::Gt, a, b), &s), Some(0));
    }
}
