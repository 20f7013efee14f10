//! Which pointers meet: D's rule (dt_node_is_ptrcompat) for comparing two pointers and for
//! storing one where another was, with the address space added: a kernel pointer and a
//! pointer into the traced process never mix, whatever they point at.

use super::*;
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

    /// D's compatible pointees: the same type, `void` on either side, integers of one size
    /// and sign, or records, enums and declarations of one name.
    fn pointees_meet(&mut self, x: TypeId, y: TypeId, depth: u32) -> bool {
        let (Ok(rx), Ok(ry)) = (self.types.resolve(x), self.types.resolve(y)) else { return true };
        if rx == ry || depth > 8 {
            return true;
        }
        let (Ok(tx), Ok(ty)) = (self.types.real(rx), self.types.real(ry)) else { return true };
        let named = |t: &Type| match t {
            Type::Struct(r) | Type::Union(r) => Some(r.name.clone()),
            Type::Incomplete { name, .. } | Type::Enum { name, .. } => Some(name.clone()),
            _ => None,
        };
        match (&tx, &ty) {
            (Type::Void, _) | (_, Type::Void) | (Type::Function, Type::Function) => true,
            (Type::Int(i), Type::Int(j)) => i.size == j.size && i.signed == j.signed,
            (Type::Ptr { to: a, space: sa }, Type::Ptr { to: b, space: sb }) => sa == sb && self.pointees_meet(*a, *b, depth + 1),
            _ => matches!((named(&tx), named(&ty)), (Some(a), Some(b)) if !a.is_empty() && a == b),
        }
    }
}
