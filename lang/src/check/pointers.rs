//! Which pointers meet: D's rule (dt_node_is_ptrcompat) for comparing two pointers and for
//! storing one where another was, with the address space added: a kernel pointer and a
//! pointer into the traced process never mix, whatever they point at.

use super::*;
use crate::facts::TypeSpace;
use crate::types::{AddrSpace, Type, TypeId};

impl Checker<'_> {
    /// Why pointers of types `a` and `b` cannot be compared or stored one for the other, if
    /// both are pointers and they cannot; None where they can (or either is no pointer).
    pub(super) fn pointer_mismatch(&mut self, a: TypeId, b: TypeId) -> Option<(String, &'static str)> {
        let (Ok(Type::Ptr { to: x, space: sx }), Ok(Type::Ptr { to: y, space: sy })) = (self.types.real(a), self.types.real(b)) else {
            return None;
        };
        if sx != sy {
            let (na, nb) = (self.types.name(a), self.types.name(b));
            let (user, kernel) = if sx == AddrSpace::User { (na, nb) } else { (nb, na) };
            return Some((
                format!("a user-space pointer (`{user}`) and a kernel pointer (`{kernel}`) do not mix"),
                "the traced process's addresses mean nothing in the kernel's memory: read user memory with copyin(), or cast both to uintptr_t to compare the numbers",
            ));
        }
        if self.pointees_meet(x, y, 0) {
            return None;
        }
        let (na, nb) = (self.types.name(a), self.types.name(b));
        Some((format!("`{na}` and `{nb}` point at different types"), "cast one of them, e.g. (void *), or both to uintptr_t"))
    }

    /// D's compatible pointees, as dt_node_is_ptrcompat tests them: `void` on either side of
    /// the two pointers, else libctf's ctf_type_compat — the same type; integers of one
    /// encoding (size, sign, `_Bool`); an enum and any integer; enums, structs and unions of
    /// one name (structs and unions also of one size); pointers to compatible types (where
    /// `void` is only `void`: `void **` and `int **` differ); arrays of one length of
    /// compatible elements. A declaration (`struct s;`) meets its definition (libctf's kinds
    /// differ there; crumbs keeps script forward declarations usable).
    fn pointees_meet(&mut self, x: TypeId, y: TypeId, depth: u32) -> bool {
        let (Ok(rx), Ok(ry)) = (self.types.resolve(x), self.types.resolve(y)) else { return true };
        if rx == ry || depth > 8 {
            return true;
        }
        let (Ok(tx), Ok(ty)) = (self.types.real(rx), self.types.real(ry)) else { return true };
        match (&tx, &ty) {
            (Type::Void, Type::Void) | (Type::Function, Type::Function) => true,
            (Type::Void, _) | (_, Type::Void) => depth == 0,
            (Type::Int(i), Type::Int(j)) => i.size == j.size && i.signed == j.signed && i.bool == j.bool,
            (Type::Enum { .. }, Type::Int(_)) | (Type::Int(_), Type::Enum { .. }) => true,
            (Type::Enum { name: a, size: sa, signed: ga, .. }, Type::Enum { name: b, size: sb, signed: gb, .. }) => a == b && sa == sb && ga == gb,
            (Type::Float { size: a, .. }, Type::Float { size: b, .. }) => a == b,
            (Type::Ptr { to: a, space: sa }, Type::Ptr { to: b, space: sb }) => sa == sb && self.pointees_meet(*a, *b, depth + 1),
            (Type::Array { elem: a, len: la }, Type::Array { elem: b, len: lb }) => la == lb && self.pointees_meet(*a, *b, depth + 1),
            (Type::Struct(a), Type::Struct(b)) | (Type::Union(a), Type::Union(b)) => a.name == b.name && a.size == b.size,
            _ => matches!((declared(&tx), declared(&ty)), (Some(a), Some(b)) if !a.1.is_empty() && a == b),
        }
    }
}

/// A struct, union or enum (defined or only declared) as its kind and name.
fn declared(t: &Type) -> Option<(TypeSpace, &str)> {
    match t {
        Type::Struct(r) => Some((TypeSpace::Struct, &r.name)),
        Type::Union(r) => Some((TypeSpace::Union, &r.name)),
        Type::Enum { name, .. } => Some((TypeSpace::Enum, name)),
        Type::Incomplete { space, name } => Some((*space, name)),
        _ => None,
    }
}
