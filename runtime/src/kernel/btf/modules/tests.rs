//! The id encoding, and module types read through split BTF written here by hand (this
//! machine has no module BTF to read): a base like vmlinux's that only declares `struct bbr`,
//! and two modules whose ids overlap.

use super::super::{enumerators, kernel_type_in, lookup};
use super::*;
use crumbs_lang::facts::{KernelMember, KernelType, TypeSpace};

#[test]
fn vmlinux_ids_carry_no_module_bits() {
    assert_eq!(encode(0, 42, 100), 42);
    // A vmlinux type a module's type refers to.
    assert_eq!(encode(7, 99, 100), 99);
    assert_eq!(decode(99), (0, 99));
    assert_eq!(decode(0), (0, 0));
}

#[test]
fn module_ids_round_trip() {
    assert_eq!(encode(1, 100, 100), 1 << 22 | 100);
    for (m, id) in [(1, 100), (3, 100_751), (MAX_MODULES, ID_MASK)] {
        assert_eq!(decode(encode(m, id, 100)), (m, id));
    }
    // The same split id in two modules is two types.
    assert_ne!(encode(1, 100, 100), encode(2, 100, 100));
    assert_eq!(encode(MAX_MODULES, ID_MASK, 100), u32::MAX);
}

/// BTF as pahole writes it: a header, the types, the strings. A split blob's type ids and
/// string offsets continue after its base's.
struct Blob {
    types: Vec<u32>,
    strings: Vec<u8>,
    str_base: u32,
}

const INT: u32 = 1;
const PTR: u32 = 2;
const STRUCT: u32 = 4;
const ENUM: u32 = 6;
const FWD: u32 = 7;
const TYPEDEF: u32 = 8;

impl Blob {
    fn base() -> Blob {
        Blob { types: Vec::new(), strings: vec![0], str_base: 0 }
    }

    fn split(base: &Blob) -> Blob {
        Blob { types: Vec::new(), strings: vec![0], str_base: base.strings.len() as u32 }
    }

    fn str(&mut self, s: &str) -> u32 {
        if s.is_empty() {
            return 0;
        }
        let off = self.str_base + self.strings.len() as u32;
        self.strings.extend_from_slice(s.as_bytes());
        self.strings.push(0);
        off
    }

    /// A type: name, kind, vlen, size or type, then the kind's own words.
    fn ty(&mut self, name: &str, kind: u32, vlen: u32, size_or_type: u32, rest: &[u32]) {
        let name = self.str(name);
        self.types.extend([name, kind << 24 | vlen, size_or_type]);
        self.types.extend_from_slice(rest);
    }

    fn strukt(&mut self, name: &str, size: u32, members: &[(&str, u32, u32)]) {
        let mut rest = Vec::new();
        for (n, ty, bit_offset) in members {
            rest.extend([self.str(n), *ty, *bit_offset]);
        }
        self.ty(name, STRUCT, members.len() as u32, size, &rest);
    }

    fn bytes(&self) -> Vec<u8> {
        let type_len = 4 * self.types.len() as u32;
        let mut out = Vec::new();
        out.extend(0xeb9f_u16.to_le_bytes());
        out.extend([1, 0]);
        for word in [24, 0, type_len, type_len, self.strings.len() as u32] {
            out.extend(word.to_le_bytes());
        }
        for word in &self.types {
            out.extend(word.to_le_bytes());
        }
        out.extend(&self.strings);
        out
    }
}

/// vmlinux: 1 unsigned int, 2 u32, 3 struct minmax, 4 a declaration of struct bbr.
/// Module 1 (bbr): 5 struct bbr, 6 struct bbr *, 7 enum bbr_mode.
/// Module 2 (other): 5 struct other, 6 u32 *.
fn fixture() -> (Btf, Btf, Btf) {
    let mut base = Blob::base();
    base.ty("unsigned int", INT, 0, 4, &[32]);
    base.ty("u32", TYPEDEF, 0, 1, &[]);
    base.strukt("minmax", 4, &[("v", 2, 0)]);
    base.ty("bbr", FWD, 0, 0, &[]);
    let mut bbr = Blob::split(&base);
    bbr.strukt("bbr", 16, &[("min_rtt_us", 2, 0), ("bw", 3, 32), ("next", 6, 64)]);
    bbr.ty("", PTR, 0, 5, &[]);
    let (startup, probe_rtt) = (bbr.str("BBR_STARTUP"), bbr.str("BBR_PROBE_RTT"));
    bbr.ty("bbr_mode", ENUM, 2, 4, &[startup, 0, probe_rtt, 3]);
    let mut other = Blob::split(&base);
    other.strukt("other", 8, &[("p", 6, 0)]);
    other.ty("", PTR, 0, 2, &[]);
    let vmlinux = Btf::from_bytes(&base.bytes()).expect("base parses");
    let (bbr, other) = (Btf::from_split_bytes(&bbr.bytes(), &vmlinux), Btf::from_split_bytes(&other.bytes(), &vmlinux));
    (vmlinux, bbr.expect("bbr parses"), other.expect("other parses"))
}

const BBR: u32 = 1 << ID_BITS;
const OTHER: u32 = 2 << ID_BITS;

#[test]
fn module_types_are_found_after_vmlinux() {
    let (vmlinux, bbr, other) = fixture();
    assert_eq!(base_count(&vmlinux), 5);
    assert_eq!(bbr.split().unwrap().type_id_range(), (5, 7));
    assert!(fits(&bbr) && fits(&other));
    let modules = || [(1, &bbr), (2, &other)];
    // vmlinux's own types never reach the modules.
    let untouched = || std::iter::from_fn(|| panic!("a module was searched"));
    assert_eq!(lookup(&vmlinux, untouched(), TypeSpace::Struct, "minmax"), Ok(Some(3)));
    assert_eq!(lookup(&vmlinux, untouched(), TypeSpace::Ordinary, "u32"), Ok(Some(2)));
    // vmlinux only declares struct bbr: the module's definition wins, else the declaration.
    assert_eq!(lookup(&vmlinux, modules(), TypeSpace::Struct, "bbr"), Ok(Some(BBR | 5)));
    assert_eq!(lookup(&vmlinux, std::iter::empty(), TypeSpace::Struct, "bbr"), Ok(Some(4)));
    assert_eq!(lookup(&vmlinux, modules(), TypeSpace::Struct, "other"), Ok(Some(OTHER | 5)));
    assert_eq!(lookup(&vmlinux, modules(), TypeSpace::Enum, "bbr_mode"), Ok(Some(BBR | 7)));
    assert_eq!(lookup(&vmlinux, modules(), TypeSpace::Struct, "nosuch"), Ok(None));
    assert_eq!(lookup(&vmlinux, modules(), TypeSpace::Union, "bbr"), Ok(None));
}

#[test]
fn module_types_refer_to_both_btfs() {
    let (vmlinux, bbr, other) = fixture();
    let member = |name: &str, ty, bit_offset| KernelMember { name: name.to_string(), ty, bit_offset, bit_size: 0 };
    assert_eq!(
        kernel_type_in(&bbr, 1, 5),
        Ok(KernelType::Struct { name: "bbr".to_string(), size: 16, members: vec![member("min_rtt_us", 2, 0), member("bw", 3, 32), member("next", BBR | 6, 64)] })
    );
    assert_eq!(kernel_type_in(&bbr, 1, 6), Ok(KernelType::Ptr(BBR | 5)));
    assert_eq!(kernel_type_in(&other, 2, 6), Ok(KernelType::Ptr(2)));
    assert_eq!(kernel_type_in(&other, 2, 5).map(|t| matches!(t, KernelType::Struct { ref members, .. } if members[0].ty == OTHER | 6)), Ok(true));
    // vmlinux's types read the same through a module.
    assert_eq!(kernel_type_in(&bbr, 1, 2), kernel_type_in(&vmlinux, 0, 2));
    assert_eq!(kernel_type_in(&bbr, 1, 2), Ok(KernelType::Typedef { name: "u32".to_string(), to: 1 }));
    assert!(kernel_type_in(&bbr, 1, 8).is_err());
}

#[test]
fn module_enum_constants() {
    let (vmlinux, bbr, other) = fixture();
    let consts = enumerators(&bbr, 1).unwrap();
    assert_eq!(consts.get("BBR_PROBE_RTT"), Some(&(3, BBR | 7)));
    assert_eq!(consts.get("BBR_STARTUP"), Some(&(0, BBR | 7)));
    assert!(enumerators(&vmlinux, 0).unwrap().is_empty());
    assert!(enumerators(&other, 2).unwrap().is_empty());
}
