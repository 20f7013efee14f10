//! A few kernel types with a 6.18 kernel's layout, for facts that must not depend on the
//! machine: the snapshot tests and the fuzzer answer kernel type questions with these.

use super::{KernelMember, KernelType, KernelTypeId, TypeSpace};

/// The id of a sample type: `struct task_struct` (a few of its members), `struct list_head`,
/// `pid_t`.
pub fn type_id(space: TypeSpace, name: &str) -> Option<KernelTypeId> {
    match (space, name) {
        (TypeSpace::Struct, "task_struct") => Some(1),
        (TypeSpace::Struct, "list_head") => Some(10),
        (TypeSpace::Ordinary, "pid_t") => Some(5),
        _ => None,
    }
}

pub fn kernel_type(id: KernelTypeId) -> Result<KernelType, String> {
    let m = |name: &str, ty, bit_offset, bit_size| KernelMember { name: name.into(), ty, bit_offset, bit_size };
    let int = |name: &str, size, signed| KernelType::Int { name: name.into(), size, signed, char: name == "char", bool: false };
    Ok(match id {
        1 => KernelType::Struct {
            name: "task_struct".into(),
            size: 9792,
            members: vec![m("flags", 7, 256, 0), m("tasks", 10, 8000, 0), m("in_execve", 7, 16000, 1), m("pid", 5, 19008, 0), m("tgid", 5, 19040, 0), m("real_parent", 2, 19136, 0), m("comm", 3, 24000, 0)],
        },
        2 => KernelType::Ptr(1),
        3 => KernelType::Array { elem: 4, len: 16 },
        4 => int("char", 1, true),
        5 => KernelType::Typedef { name: "pid_t".into(), to: 6 },
        6 => int("int", 4, true),
        7 => int("unsigned int", 4, false),
        10 => KernelType::Struct { name: "list_head".into(), size: 16, members: vec![m("next", 11, 0, 0), m("prev", 11, 64, 0)] },
        11 => KernelType::Ptr(10),
        _ => return Err(format!("no kernel type {id}")),
    })
}
