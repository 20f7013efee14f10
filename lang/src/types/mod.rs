//! D's C type universe, independent of BPF: integers by width and sign, pointers (kernel or
//! user address space), arrays, structs, unions, enums, typedefs, opaque functions and D's
//! `string`. Types live in one arena ([`Types`]) and are named by [`TypeId`]. Kernel types
//! come from the kernel's BTF through [`KernelFacts`], one at a time, when a script first
//! walks into them: a member's type stays a placeholder ([`Type::Kernel`]) until it is used.

mod c_names;
mod display;
mod kernel;

pub use c_names::{builtin_typedef, int_from_keywords, type_name_from_c, BUILTIN_TYPEDEFS};

use crate::facts::{KernelFacts, KernelTypeId, TypeSpace};
use std::collections::HashMap;
use std::rc::Rc;

/// A type in a [`Types`] arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(u32);

/// Which memory a pointer points into: the kernel's, or the traced process's (read only
/// through copyin/copyinstr).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrSpace {
    Kernel,
    User,
}

/// An integer type: what a value of it is stored and loaded as.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IntType {
    /// How the type is written (`unsigned long`, `pid_t` resolves to `int`).
    pub name: String,
    /// Bytes: 1, 2, 4 or 8.
    pub size: u8,
    pub signed: bool,
    /// `char`: prints as a character where C would.
    pub char: bool,
    /// `_Bool`.
    pub bool: bool,
}

impl IntType {
    /// An integer type known by its name as C text, its size and its sign only (a tracepoint
    /// field's, a prototype's typedef the kernel's types lack): a `char` or `bool` by name.
    pub fn named(name: &str, size: u8, signed: bool) -> IntType {
        let name = name.trim().to_string();
        IntType { char: name.ends_with("char"), bool: name == "bool" || name == "_Bool", name, size, signed }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Member {
    /// "" for an anonymous struct or union member (its members are found through it).
    pub name: String,
    pub ty: TypeId,
    pub bit_offset: u32,
    /// The width of a bitfield; 0 for an ordinary member.
    pub bit_size: u32,
}

/// A struct's or union's name, size and members.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Record {
    pub name: String,
    pub size: u32,
    pub members: Vec<Member>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Int(IntType),
    /// A floating-point type: D cannot compute with it, only carry it.
    Float { name: String, size: u32 },
    Ptr { to: TypeId, space: AddrSpace },
    Array { elem: TypeId, len: u32 },
    Struct(Record),
    Union(Record),
    Enum { name: String, size: u32, signed: bool, values: Vec<(String, i64)> },
    Typedef { name: String, to: TypeId },
    /// A function (opaque to D; only pointers to it are values).
    Function,
    /// D's string: up to `size` bytes, NUL included.
    String { size: u32 },
    /// D's `stack`: a kernel stack, as `stack()` records it.
    Stack,
    /// A variable's type when it holds a value user space turns into text (a stack, a
    /// symbol, a probe, ...: [`Repr::printed_only`]): stored as the representation says and
    /// printed as it was.
    Printed(crate::ir::Repr),
    /// A struct, union or enum declared but not defined.
    Incomplete { space: TypeSpace, name: String },
    /// A kernel type not read yet; [`Types::resolve`] reads it.
    Kernel(KernelTypeId),
}

impl Type {
    /// Whether a variable can hold it as one word: an integer, an enum or a pointer.
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Int(_) | Type::Enum { .. } | Type::Ptr { .. })
    }
}

/// Where a member is, from the start of its struct or union.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub ty: TypeId,
    pub bit_offset: u32,
    pub bit_size: u32,
}

/// The arena of one program's types.
#[derive(Debug, Default)]
pub struct Types {
    table: Vec<Type>,
    /// Kernel types already given an id here.
    kernel: HashMap<KernelTypeId, TypeId>,
    /// Types the script declared: (space, name) -> type.
    declared: HashMap<(TypeSpace, String), TypeId>,
    /// Types found by name elsewhere (D's typedefs, the kernel), remembered.
    found: HashMap<(TypeSpace, String), TypeId>,
    /// Interned pointer types: (pointee, space) -> pointer.
    pointers: HashMap<(TypeId, AddrSpace), TypeId>,
    /// Interned integer types and D's own types, by value.
    interned: HashMap<Type, TypeId>,
    facts: Option<Rc<dyn KernelFacts>>,
}

impl Types {
    /// An arena that finds kernel types through `facts` (none: script types only).
    pub fn new(facts: Option<Rc<dyn KernelFacts>>) -> Types {
        Types { facts, ..Default::default() }
    }

    pub fn add(&mut self, t: Type) -> TypeId {
        self.table.push(t);
        TypeId(self.table.len() as u32 - 1)
    }

    /// The type as stored (possibly a typedef or a kernel placeholder).
    pub fn get(&self, id: TypeId) -> &Type {
        &self.table[id.0 as usize]
    }

    /// The integer type `t`, one id per distinct type.
    pub fn int_of(&mut self, t: IntType) -> TypeId {
        self.intern(Type::Int(t))
    }

    /// D's `string` type (its size is the strsize option's).
    pub fn string(&mut self, size: u32) -> TypeId {
        self.intern(Type::String { size })
    }

    /// `void`.
    pub fn void(&mut self) -> TypeId {
        self.intern(Type::Void)
    }

    /// D's `stack` type.
    pub fn stack(&mut self) -> TypeId {
        self.intern(Type::Stack)
    }

    /// The type of a variable holding printed-only values of representation `r`.
    pub fn printed(&mut self, r: crate::ir::Repr) -> TypeId {
        self.intern(Type::Printed(r))
    }

    fn intern(&mut self, t: Type) -> TypeId {
        if let Some(id) = self.interned.get(&t) {
            return *id;
        }
        let id = self.add(t.clone());
        self.interned.insert(t, id);
        id
    }

    /// The pointer to `to` in `space`, one id per pointee and space.
    pub fn pointer(&mut self, to: TypeId, space: AddrSpace) -> TypeId {
        if let Some(p) = self.pointers.get(&(to, space)) {
            return *p;
        }
        let p = self.add(Type::Ptr { to, space });
        self.pointers.insert((to, space), p);
        p
    }

    /// Declares a named type of the script (`struct s { ... }`, `typedef ... t;`).
    pub fn declare(&mut self, space: TypeSpace, name: &str, t: Type) -> TypeId {
        let id = self.add(t);
        self.declared.insert((space, name.to_string()), id);
        id
    }

    /// Defines a type the script declared without a definition (`struct s;`).
    pub fn complete(&mut self, id: TypeId, t: Type) {
        self.table[id.0 as usize] = t;
    }

    /// The type the script itself declared under `name` in `space`.
    pub fn lookup_script(&self, space: TypeSpace, name: &str) -> Option<TypeId> {
        self.declared.get(&(space, name.to_string())).copied()
    }

    /// The alignment of a type in bytes, as x86-64 C has it.
    pub fn align_of(&mut self, id: TypeId) -> Result<u64, String> {
        Ok(match self.real(id)? {
            Type::Int(i) => i.size as u64,
            Type::Float { size, .. } => size as u64,
            Type::Ptr { .. } => 8,
            Type::Enum { size, .. } => size as u64,
            Type::Array { elem, .. } => self.align_of(elem)?,
            Type::Struct(r) | Type::Union(r) => {
                let mut a = 1;
                for m in r.members {
                    a = a.max(self.align_of(m.ty)?);
                }
                a
            }
            _ => 1,
        })
    }

    /// The type named `name` in `space`: the script's own first, then the kernel's.
    pub fn lookup(&mut self, space: TypeSpace, name: &str) -> Result<Option<TypeId>, String> {
        match self.declared.get(&(space, name.to_string())) {
            Some(id) => Ok(Some(*id)),
            None => self.lookup_beyond_script(space, name),
        }
    }

    /// The type named `name` in `space` that is not the script's: a builtin typedef or the
    /// kernel's.
    pub fn lookup_beyond_script(&mut self, space: TypeSpace, name: &str) -> Result<Option<TypeId>, String> {
        let key = (space, name.to_string());
        if let Some(id) = self.found.get(&key) {
            return Ok(Some(*id));
        }
        if space == TypeSpace::Ordinary {
            if let Some(t) = builtin_typedef(name) {
                let id = self.add(Type::Int(t));
                self.found.insert(key, id);
                return Ok(Some(id));
            }
        }
        let Some(facts) = self.facts.clone() else { return Ok(None) };
        let Some(kid) = facts.kernel_type_id(space, name)? else { return Ok(None) };
        let id = self.kernel_type(kid);
        self.found.insert(key, id);
        Ok(Some(id))
    }

    /// The id here of kernel type `kid` (a placeholder until resolved).
    pub fn kernel(&mut self, kid: KernelTypeId) -> TypeId {
        self.kernel_type(kid)
    }

    fn kernel_type(&mut self, kid: KernelTypeId) -> TypeId {
        if let Some(id) = self.kernel.get(&kid) {
            return *id;
        }
        let id = self.add(Type::Kernel(kid));
        self.kernel.insert(kid, id);
        id
    }

    /// Reads a kernel placeholder, so that [`Types::get`] shows what it is.
    fn load(&mut self, id: TypeId) -> Result<(), String> {
        let Type::Kernel(kid) = *self.get(id) else { return Ok(()) };
        let facts = self.facts.clone().ok_or("the kernel's types are not available here")?;
        let t = kernel::convert(self, facts.kernel_type(kid)?);
        self.table[id.0 as usize] = t;
        Ok(())
    }

    /// `id` with typedefs, qualifiers and placeholders looked through: what it really is.
    pub fn resolve(&mut self, mut id: TypeId) -> Result<TypeId, String> {
        for _ in 0..64 {
            self.load(id)?;
            match self.get(id) {
                Type::Typedef { to, .. } => id = *to,
                _ => return Ok(id),
            }
        }
        Err("a typedef chain too long to follow".to_string())
    }

    /// The resolved type itself.
    pub fn real(&mut self, id: TypeId) -> Result<Type, String> {
        let r = self.resolve(id)?;
        Ok(self.get(r).clone())
    }

    /// The integer type `id` is, if it is one (enums are their underlying integer).
    pub fn as_int(&mut self, id: TypeId) -> Result<Option<IntType>, String> {
        Ok(match self.real(id)? {
            Type::Int(i) => Some(i),
            Type::Enum { name, size, signed, .. } => Some(IntType { name: format!("enum {name}"), size: size as u8, signed, char: false, bool: false }),
            _ => None,
        })
    }

    /// The size of a value of the type in bytes (`sizeof`); None for void, functions and
    /// incomplete types.
    pub fn size_of(&mut self, id: TypeId) -> Result<Option<u64>, String> {
        Ok(match self.real(id)? {
            Type::Int(i) => Some(i.size as u64),
            Type::Float { size, .. } => Some(size as u64),
            Type::Ptr { .. } => Some(8),
            Type::Array { elem, len } => self.size_of(elem)?.map(|s| s * len as u64),
            Type::Struct(r) | Type::Union(r) => Some(r.size as u64),
            Type::Enum { size, .. } => Some(size as u64),
            Type::String { size } => Some(size as u64),
            Type::Stack => Some(8),
            Type::Printed(r) => Some(r.size() as u64),
            Type::Void | Type::Function | Type::Incomplete { .. } => None,
            Type::Typedef { .. } | Type::Kernel(_) => unreachable!("resolved"),
        })
    }

    /// The member `name` of struct or union `id`, looking into anonymous members as C does.
    pub fn member(&mut self, id: TypeId, name: &str) -> Result<Option<Found>, String> {
        let members = match self.real(id)? {
            Type::Struct(r) | Type::Union(r) => r.members,
            _ => return Ok(None),
        };
        for m in &members {
            if m.name == name {
                return Ok(Some(Found { ty: m.ty, bit_offset: m.bit_offset, bit_size: m.bit_size }));
            }
        }
        for m in members.iter().filter(|m| m.name.is_empty()) {
            if let Some(f) = self.member(m.ty, name)? {
                return Ok(Some(Found { bit_offset: m.bit_offset + f.bit_offset, ..f }));
            }
        }
        Ok(None)
    }

    /// Every member name of a struct or union (anonymous members' included), for hints.
    pub fn member_names(&mut self, id: TypeId) -> Result<Vec<String>, String> {
        let members = match self.real(id)? {
            Type::Struct(r) | Type::Union(r) => r.members,
            _ => return Ok(Vec::new()),
        };
        let mut out = Vec::new();
        for m in members {
            if m.name.is_empty() {
                out.extend(self.member_names(m.ty)?);
            } else {
                out.push(m.name);
            }
        }
        Ok(out)
    }

    /// A kernel enum constant: its value and its enum type (read when first asked).
    pub fn kernel_enum_constant(&mut self, name: &str) -> Option<(i64, TypeId)> {
        let facts = self.facts.clone()?;
        let (v, kid) = facts.kernel_enum_constant(name).ok()??;
        Some((v, self.kernel_type(kid)))
    }

    /// The constant of an enum declared by the script (anonymous enums included).
    pub fn enum_constant(&self, name: &str) -> Option<(i64, TypeId)> {
        self.declared.iter().filter(|((space, _), _)| *space == TypeSpace::Enum).find_map(|(_, id)| match self.get(*id) {
            Type::Enum { values, .. } => values.iter().find(|(n, _)| n == name).map(|(_, v)| (*v, *id)),
            _ => None,
        })
    }
}

/// C's integer promotions and usual arithmetic conversions, on 64-bit Linux: the type two
/// integer operands are computed in.
pub fn arithmetic(a: &IntType, b: &IntType) -> IntType {
    let promote = |t: &IntType| if t.size < 4 { IntType { name: "int".into(), size: 4, signed: true, char: false, bool: false } } else { IntType { char: false, bool: false, ..t.clone() } };
    let (a, b) = (promote(a), promote(b));
    let size = a.size.max(b.size);
    let wide = |t: &IntType| t.size == size;
    // At equal width unsigned wins; a wider signed type holds every value of a narrower
    // unsigned one, so it wins over it.
    let signed = match (wide(&a), wide(&b)) {
        (true, true) => a.signed && b.signed,
        (true, false) => a.signed,
        _ => b.signed,
    };
    let name = match (size, signed) {
        (4, true) => "int",
        (4, false) => "unsigned int",
        (_, true) => "long",
        (_, false) => "unsigned long",
    };
    IntType { name: name.into(), size, signed, char: false, bool: false }
}

/// The type of an integer literal, by C's rules for its suffix and whether it was written in
/// decimal: the first of int, unsigned int (not decimal), long, unsigned long that holds it.
pub fn literal_type(value: u64, decimal: bool, unsigned_suffix: bool, long_suffix: bool) -> IntType {
    let candidates: &[(&str, u8, bool)] = &[("int", 4, true), ("unsigned int", 4, false), ("long", 8, true), ("unsigned long", 8, false)];
    let fits = |size: u8, signed: bool| match (size, signed) {
        (4, true) => value <= i32::MAX as u64,
        (4, false) => value <= u32::MAX as u64,
        (_, true) => value <= i64::MAX as u64,
        (_, false) => true,
    };
    let (name, size, signed) = candidates
        .iter()
        .filter(|(_, size, signed)| (!long_suffix || *size == 8) && (!unsigned_suffix || !*signed) && (!decimal || *signed || unsigned_suffix || *size == 8))
        .find(|(_, size, signed)| fits(*size, *signed))
        .copied()
        .unwrap_or(("unsigned long", 8, false));
    IntType { name: name.into(), size, signed, char: false, bool: false }
}

#[cfg(test)]
mod tests;
