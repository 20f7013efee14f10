use super::*;
use crate::facts::{KernelMember, KernelType, Listing};

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

#[test]
fn integer_keywords() {
    let t = |s: &str| int_from_keywords(&words(s)).map(|i| (i.name, i.size, i.signed));
    assert_eq!(t("int"), Some(("int".into(), 4, true)));
    assert_eq!(t("unsigned"), Some(("unsigned int".into(), 4, false)));
    assert_eq!(t("unsigned int"), Some(("unsigned int".into(), 4, false)));
    assert_eq!(t("signed int"), Some(("int".into(), 4, true)));
    assert_eq!(t("long unsigned int"), Some(("unsigned long".into(), 8, false)));
    assert_eq!(t("long long"), Some(("long long".into(), 8, true)));
    assert_eq!(t("unsigned char"), Some(("unsigned char".into(), 1, false)));
    assert_eq!(t("char"), Some(("char".into(), 1, true)));
    assert_eq!(t("short int"), Some(("short".into(), 2, true)));
    assert_eq!(t("const unsigned short"), Some(("unsigned short".into(), 2, false)));
    assert_eq!(t("signed short"), Some(("short".into(), 2, true)));
    assert_eq!(t("signed char"), Some(("signed char".into(), 1, true)));
    assert_eq!(t("_Bool"), Some(("_Bool".into(), 1, false)));
    assert_eq!(t("long char"), None);
    assert_eq!(t("unsigned signed"), None);
    assert_eq!(t("long long long"), None);
    assert_eq!(t("void"), None);
    assert_eq!(builtin_typedef("uint16_t").map(|i| (i.size, i.signed)), Some((2, false)));
    assert_eq!(builtin_typedef("ssize_t").map(|i| (i.size, i.signed)), Some((8, true)));
}

#[test]
fn usual_arithmetic_conversions() {
    let i = |name: &str| int_from_keywords(&words(name)).unwrap();
    let a = |x: &str, y: &str| arithmetic(&i(x), &i(y)).name;
    assert_eq!(a("char", "short"), "int");
    assert_eq!(a("int", "unsigned int"), "unsigned int");
    assert_eq!(a("unsigned int", "long"), "long");
    assert_eq!(a("long", "unsigned long"), "unsigned long");
    assert_eq!(a("unsigned char", "int"), "int");
    assert_eq!(a("unsigned short", "unsigned short"), "int");
}

#[test]
fn integer_literals() {
    let t = |v: u64, dec: bool, u: bool, l: bool| literal_type(v, dec, u, l).name;
    assert_eq!(t(1, true, false, false), "int");
    assert_eq!(t(1 << 31, true, false, false), "long");
    assert_eq!(t(1 << 31, false, false, false), "unsigned int");
    assert_eq!(t(1, true, true, false), "unsigned int");
    assert_eq!(t(1, true, false, true), "long");
    assert_eq!(t(1, true, true, true), "unsigned long");
    assert_eq!(t(u64::MAX, false, false, false), "unsigned long");
}

/// A tiny kernel: struct task { int pid; struct task *parent; char comm[16];
/// union { long a; unsigned flags:3; }; } and typedef int pid_t.
#[derive(Debug, Default)]
struct Kernel {
    reads: std::cell::Cell<usize>,
}

impl KernelFacts for Kernel {
    fn tracepoints(&self) -> Listing {
        Ok(Vec::new().into())
    }
    fn tracepoint_format(&self, _: &str, _: &str) -> Result<String, String> {
        Err("none".into())
    }
    fn kernel_type_id(&self, space: TypeSpace, name: &str) -> Result<Option<u32>, String> {
        Ok(match (space, name) {
            (TypeSpace::Struct, "task") => Some(1),
            (TypeSpace::Ordinary, "pid_t") => Some(6),
            _ => None,
        })
    }
    fn kernel_type(&self, id: u32) -> Result<KernelType, String> {
        self.reads.set(self.reads.get() + 1);
        let m = |name: &str, ty, bit_offset, bit_size| KernelMember { name: name.into(), ty, bit_offset, bit_size };
        Ok(match id {
            1 => KernelType::Struct { name: "task".into(), size: 40, members: vec![m("pid", 6, 0, 0), m("parent", 2, 64, 0), m("comm", 3, 128, 0), m("", 5, 256, 0)] },
            2 => KernelType::Ptr(1),
            3 => KernelType::Array { elem: 4, len: 16 },
            4 => KernelType::Int { name: "char".into(), size: 1, signed: true, char: true, bool: false },
            5 => KernelType::Union { name: String::new(), size: 8, members: vec![m("a", 8, 0, 0), m("flags", 9, 0, 3)] },
            6 => KernelType::Typedef { name: "pid_t".into(), to: 7 },
            7 => KernelType::Int { name: "int".into(), size: 4, signed: true, char: false, bool: false },
            8 => KernelType::Int { name: "long".into(), size: 8, signed: true, char: false, bool: false },
            9 => KernelType::Int { name: "unsigned int".into(), size: 4, signed: false, char: false, bool: false },
            _ => return Err(format!("no type {id}")),
        })
    }
}

#[test]
fn kernel_types_are_read_when_walked_into() {
    let k = Rc::new(Kernel::default());
    let mut t = Types::new(Some(k.clone()));
    let task = t.lookup(TypeSpace::Struct, "task").unwrap().unwrap();
    assert_eq!(k.reads.get(), 0, "looking a name up reads no type");
    assert_eq!(t.size_of(task).unwrap(), Some(40));
    assert_eq!(k.reads.get(), 1, "only the struct itself");
    let parent = t.member(task, "parent").unwrap().unwrap();
    assert_eq!(parent.bit_offset, 64);
    assert_eq!(t.name(parent.ty), "struct task *");
    let pid = t.member(task, "pid").unwrap().unwrap();
    assert_eq!(t.name(pid.ty), "pid_t");
    assert_eq!(t.as_int(pid.ty).unwrap().map(|i| (i.size, i.signed)), Some((4, true)));
    let comm = t.member(task, "comm").unwrap().unwrap();
    assert_eq!(t.size_of(comm.ty).unwrap(), Some(16));
    assert_eq!(t.name(comm.ty), "char [16]");
    // Members of an anonymous union are members of the struct, at its offset.
    let flags = t.member(task, "flags").unwrap().unwrap();
    assert_eq!((flags.bit_offset, flags.bit_size), (256, 3));
    assert!(t.member(task, "nope").unwrap().is_none());
    assert_eq!(t.member_names(task).unwrap(), ["pid", "parent", "comm", "a", "flags"]);
    assert_eq!(t.lookup(TypeSpace::Struct, "missing").unwrap(), None);
    // The same kernel type is one type here.
    assert_eq!(t.lookup(TypeSpace::Struct, "task").unwrap(), Some(task));
}

#[test]
fn script_types_and_builtin_typedefs() {
    let mut t = Types::new(None);
    let u64_t = t.lookup(TypeSpace::Ordinary, "uint64_t").unwrap().unwrap();
    assert_eq!(t.size_of(u64_t).unwrap(), Some(8));
    let e = t.declare(TypeSpace::Enum, "color", Type::Enum { name: "color".into(), size: 4, signed: true, values: vec![("RED".into(), 0), ("BLUE".into(), 7)] });
    assert_eq!(t.enum_constant("BLUE"), Some((7, e)));
    assert_eq!(t.lookup(TypeSpace::Struct, "task").unwrap(), None, "no kernel: no kernel types");
    let p = t.pointer(u64_t, AddrSpace::User);
    assert_eq!(t.pointer(u64_t, AddrSpace::User), p);
    assert_eq!(t.name(p), "uint64_t * (user)");
}

#[test]
fn c_type_text_to_type_names() {
    use crate::ast::BaseType;
    let t = |s: &str| type_name_from_c(s, 0..0).map(|t| (t.base, t.pointers));
    assert_eq!(t("const char *const *"), Some((BaseType::Named(vec!["char".into()]), 2)));
    assert_eq!(t("struct stat *"), Some((BaseType::Struct("stat".into()), 1)));
    assert_eq!(t("unsigned long"), Some((BaseType::Named(vec!["unsigned".into(), "long".into()]), 0)));
    assert_eq!(t("umode_t"), Some((BaseType::Named(vec!["umode_t".into()]), 0)));
    assert_eq!(t("char [16]"), None);
    assert_eq!(t("struct *"), None);
}
