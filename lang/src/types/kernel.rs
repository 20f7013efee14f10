//! Kernel types (as `KernelFacts` gives them, from BTF) into the arena: the referenced types
//! become placeholders, read only when something walks into them.

use super::{IntType, Member, Record, Type, Types};
use crate::facts::{KernelMember, KernelType};

pub(super) fn convert(types: &mut Types, t: KernelType) -> Type {
    let members = |types: &mut Types, ms: Vec<KernelMember>| -> Vec<Member> {
        ms.into_iter().map(|m| Member { name: m.name, ty: types.kernel_type(m.ty), bit_offset: m.bit_offset, bit_size: m.bit_size }).collect()
    };
    match t {
        KernelType::Void => Type::Void,
        KernelType::Int { name, size, signed, char, bool } => Type::Int(IntType { name, size: size as u8, signed, char, bool }),
        KernelType::Float { name, size } => Type::Float { name, size },
        // Kernel pointers point into the kernel; user pointers (`__user`) are not marked in
        // BTF, so a probe's user-space arguments get their space from the provider.
        KernelType::Ptr(to) => Type::Ptr { to: types.kernel_type(to), space: super::AddrSpace::Kernel },
        KernelType::Array { elem, len } => Type::Array { elem: types.kernel_type(elem), len },
        KernelType::Struct { name, size, members: ms } => Type::Struct(Record { name, size, members: members(types, ms) }),
        KernelType::Union { name, size, members: ms } => Type::Union(Record { name, size, members: members(types, ms) }),
        KernelType::Enum { name, size, signed, values } => Type::Enum { name, size, signed, values },
        KernelType::Fwd { name, space } => Type::Incomplete { space, name },
        KernelType::Typedef { name, to } => Type::Typedef { name, to: types.kernel_type(to) },
        // Qualifiers change nothing D does with a value: look through them.
        KernelType::Qualified(to) => Type::Typedef { name: String::new(), to: types.kernel_type(to) },
        KernelType::Function { .. } => Type::Function,
    }
}
