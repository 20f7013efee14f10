//! bpftrace's arrays of integers as values: `pton("1.2.3.4")`, a record's `__u8 saddr[4]`,
//! a struct's `u6_addr8[16]` or `h_source[6]`, kept whole (a copy of their bytes) in scratch
//! variables and maps, as keys, printed `[1,2,3,4]` and compared with `==`/`!=`. In D an
//! array used as a value is its address, as in C; a `char` array is a string in both.

use super::*;
use crate::ir::Field;
use crate::types::{Type, TypeId};
use ctypes::{Typed, Val};

impl Checker<'_> {
    /// In the bpftrace dialect, `ty` as an array value: an array of integers that is not a
    /// string (`char`, signed or plain); its elements' representation and count.
    pub(super) fn int_array(&mut self, ty: TypeId) -> Option<(IntRepr, u32)> {
        if !self.bpftrace() {
            return None;
        }
        let Ok(Type::Array { elem, len }) = self.types.real(ty) else { return None };
        let i = self.types.as_int(elem).ok().flatten()?;
        if (i.char && (i.signed || i.name == "char")) || len == 0 || i.size as u64 * len as u64 > print::MAX_OBJECT {
            return None;
        }
        Some((IntRepr { size: i.size, signed: i.signed }, len))
    }

    /// `t` as an array value (its bytes copied where it is stored, keyed or printed) if it is
    /// one ([`Checker::int_array`]).
    pub(super) fn array_value(&mut self, t: &Typed, span: &Span) -> Result<Option<TExpr>, Diagnostic> {
        let Some((elem, len)) = self.int_array(t.ty) else { return Ok(None) };
        let Val::Place(addr) = &t.val else {
            let name = self.types.name(t.ty);
            return Err(Diagnostic::new(span.clone(), format!("a `{name}` that is not in memory cannot be used as a value")).label("no address").hint("use an array read from memory, e.g. args.saddr"));
        };
        let object = Expr::Object { addr: Box::new(addr.clone()), size: elem.size as u32 * len };
        Ok(Some(TExpr::new(Expr::Stored(Repr::Array(elem, len), Box::new(object)), t.ty)))
    }

    /// `pton("...")`'s bytes as an array value: a hidden variable of the clause, filled with
    /// them where the value is used, is where they are.
    pub(super) fn constant_array(&mut self, bytes: &[u8]) -> TExpr {
        let u8t = self.c_int("uint8_t");
        let ty = self.types.add(Type::Array { elem: u8t, len: bytes.len() as u32 });
        let l = self.hidden_local(ty);
        let var = StrVar::Clause(l);
        let mut fill = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let n = [8usize, 4, 2, 1].into_iter().find(|n| at + n <= bytes.len()).expect("1 fits");
            let mut word = [0u8; 8];
            word[..n].copy_from_slice(&bytes[at..at + n]);
            fill.push(Stmt::SetMember { var: var.clone(), offset: at as u32, field: Field::Int(n as u8), value: Expr::Int(i64::from_le_bytes(word)) });
            at += n;
        }
        let addr = Expr::Seq(fill, Box::new(Expr::VarAddr(var)));
        TExpr::new(Expr::Object { addr: Box::new(addr), size: bytes.len() as u32 }, ty)
    }

    /// `a == b` or `a != b` of two array values (`$a == args.daddr`, `@a[1] == $b`): equal
    /// when their bytes are, compared a word at a time. None if either is no array value;
    /// arrays of other sizes or element sizes are an error, as in bpftrace.
    pub(super) fn arrays_compare(&mut self, op: BinOp, l: &ast::Expr, r: &ast::Expr) -> Result<Option<TExpr>, Diagnostic> {
        if !(self.bpftrace() && matches!(op, BinOp::Eq | BinOp::Ne) && self.may_be_array(l) && self.may_be_array(r)) {
            return Ok(None);
        }
        let (lt, rt) = (self.typed(l)?, self.typed(r)?);
        let (Some((le, ln)), Some((re, rn))) = (self.int_array(lt.ty), self.int_array(rt.ty)) else { return Ok(None) };
        if le.size as u32 * ln != re.size as u32 * rn || le.size != re.size {
            let (a, b) = (self.types.name(lt.ty), self.types.name(rt.ty));
            return Err(Diagnostic::new(l.span.start..r.span.end, format!("arrays of the same size and element size compare, but these are `{a}` and `{b}`"))
                .label("sizes differ")
                .hint("compare arrays of one type, e.g. args.saddr == args.daddr"));
        }
        let (Val::Place(la), Val::Place(ra)) = (lt.val, rt.val) else { return Ok(None) };
        let mut all: Option<Expr> = None;
        let bytes = (le.size as u32 * ln) as i64;
        let mut at = 0;
        while at < bytes {
            let n = [8i64, 4, 2, 1].into_iter().find(|n| at + n <= bytes).expect("1 fits");
            let load = |a: &Expr| Expr::Load { addr: Box::new(ctypes::add_offset(a.clone(), at)), size: n as u8, signed: false };
            let eq = Expr::Binary(BinOp::Eq, Box::new(load(&la)), Box::new(load(&ra)));
            all = Some(match all {
                None => eq,
                Some(a) => Expr::Binary(BinOp::LogAnd, Box::new(a), Box::new(eq)),
            });
            at += n;
        }
        let eq = all.expect("an array has bytes");
        let v = if op == BinOp::Eq { eq } else { Expr::Unary(crate::ast::UnOp::Not, Box::new(eq)) };
        let int = self.int();
        Ok(Some(TExpr::new(v, int)))
    }

    /// Whether `e` may be an array, before typing it (typing an assignment twice would
    /// build it twice): a variable, a map, a field, a member, an element or a dereference
    /// (pton() is [`Checker::address_compare`]'s).
    pub(super) fn may_be_array(&self, e: &ast::Expr) -> bool {
        matches!(e.kind, ExprKind::Ident(_) | ExprKind::ClauseLocal(_) | ExprKind::ArgsField(_) | ExprKind::Agg(_) | ExprKind::Member { .. } | ExprKind::Index(..) | ExprKind::Deref(_))
    }
}

/// An array where a scalar or a string is needed (arithmetic, printf(), a condition).
pub(super) fn not_a_value(name: &str, span: &Span) -> Diagnostic {
    Diagnostic::new(span.clone(), format!("an array (`{name}`) cannot be used as a value here"))
        .label("an array")
        .hint("print it with print(), as text with ntop() or macaddr(); compare it with == or !=; store it or key a map with it; read an element: $a[0]")
}
