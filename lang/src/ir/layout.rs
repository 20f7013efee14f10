//! What output needs to print a C object from its bytes, as DTrace's `print()` does: each
//! type's name and shape, with members at their bit offsets. Built by the checker from the
//! type universe, so that sinks need no types of their own.

/// A C type as printing sees it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Layout {
    /// The type as C writes it (`struct task_struct`, `unsigned long`, `char [16]`); an
    /// anonymous struct or union is `struct ` or `union ` (with the space, as CTF names it).
    pub name: String,
    pub shape: Shape,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    /// An integer of `size` bytes; `char`: a plain or signed one-byte char.
    Int { size: u8, signed: bool, char: bool },
    Float { size: u8 },
    /// A pointer (or a function, shown by address): 8 bytes.
    Ptr,
    /// An enum of `size` bytes and its constants.
    Enum { size: u8, values: Vec<(String, i64)> },
    Array { elem: Box<Layout>, elem_size: u32, len: u32 },
    /// A struct or a union.
    Record { members: Vec<MemberLayout> },
    /// Nothing is known of it (an incomplete or void type).
    Opaque,
    /// Current bpftrace's `args` record of a tracepoint (`print(args)`): its members as
    /// the format file has them, printed as bpftrace prints a record,
    /// `{ .name = value, ... }`.
    ProbeArgs { members: Vec<MemberLayout> },
}

/// A member of a struct or union.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MemberLayout {
    /// "" for an anonymous struct or union member.
    pub name: String,
    pub bit_offset: u32,
    /// A bitfield's width; 0 for an ordinary member.
    pub bits: u32,
    pub layout: Layout,
}

impl Layout {
    pub fn is_record(&self) -> bool {
        matches!(self.shape, Shape::Record { .. })
    }
}
