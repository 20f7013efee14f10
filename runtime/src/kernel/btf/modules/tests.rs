//! The id encoding, and module types read through split BTF written here by hand (this
//! machine has no module BTF to read): a base like vmlinux's that only declares `struct bbr`,
//! and two modules whose ids overlap.

use super::super::blob::{fixture, Fixture};
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

const BBR: u32 = 1 << ID_BITS;
const OTHER: u32 = 2 << ID_BITS;

#[test]
fn module_types_are_found_after_vmlinux() {
    let Fixture { vmlinux, bbr, other, .. } = fixture();
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
    let Fixture { vmlinux, bbr, other, .. } = fixture();
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
    let Fixture { vmlinux, bbr, other, .. } = fixture();
    let consts = enumerators(&bbr, 1).unwrap();
    assert_eq!(consts.get("BBR_PROBE_RTT"), Some(&(3, BBR | 7)));
    assert_eq!(consts.get("BBR_STARTUP"), Some(&(0, BBR | 7)));
    assert!(enumerators(&vmlinux, 0).unwrap().is_empty());
    assert!(enumerators(&other, 2).unwrap().is_empty());
}
