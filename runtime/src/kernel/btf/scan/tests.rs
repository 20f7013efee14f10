//! Against the hand-written modules of `blob::fixture`, checked against what btf-rs parses.

use super::super::blob::{fixture, Fixture};
use super::super::modules::NameAt;
use super::*;
use btf_rs::Btf;

fn scan(f: &Fixture, raw: &[u8], name: &str, what: What) -> bool {
    let base_name = |off| f.vmlinux.resolve_name(&NameAt(off)).ok();
    walk(raw, f.base_str_len, name, what, &base_name).expect("the walk understands it")
}

/// What btf-rs says: a type of the module's own named `name`.
fn parsed(btf: &Btf, name: &str) -> bool {
    !btf.split().unwrap().resolve_ids_by_name(name).unwrap().is_empty()
}

#[test]
fn module_types_by_name() {
    let f = fixture();
    for (raw, btf) in [(&f.bbr_raw, &f.bbr), (&f.other_raw, &f.other)] {
        // "bbr" and "v" are vmlinux's strings; "minmax" and "u32" name only vmlinux's types.
        for name in ["bbr", "bbr_mode", "other", "v", "minmax", "u32", "min_rtt_us", "BBR_PROBE_RTT", "nosuch", "", "bb", "bbr_"] {
            assert_eq!(scan(&f, raw, name, What::Type), parsed(btf, name) && !name.is_empty(), "{name}");
        }
    }
    assert!(scan(&f, &f.bbr_raw, "bbr", What::Type));
    assert!(scan(&f, &f.other_raw, "v", What::Type));
}

#[test]
fn module_enum_constants() {
    let f = fixture();
    assert!(scan(&f, &f.bbr_raw, "BBR_PROBE_RTT", What::Enumerator));
    assert!(scan(&f, &f.bbr_raw, "BBR_STARTUP", What::Enumerator));
    assert!(!scan(&f, &f.bbr_raw, "bbr_mode", What::Enumerator));
    assert!(!scan(&f, &f.other_raw, "BBR_PROBE_RTT", What::Enumerator));
}

#[test]
fn what_it_does_not_understand_is_left_to_btf_rs() {
    let f = fixture();
    let never = |_| panic!("no base string to read");
    let mut raw = f.bbr_raw.clone();
    assert_eq!(walk(&raw[..20], f.base_str_len, "bbr", What::Type, &never), None);
    // An unknown kind in the first type record.
    raw[24 + 7] = 31;
    assert_eq!(walk(&raw, f.base_str_len, "bbr", What::Type, &never), None);
    assert!(names(&raw, f.base_str_len, "nosuch", What::Type, never));
    // Big-endian BTF.
    let mut raw = f.bbr_raw.clone();
    raw[..2].copy_from_slice(&[0xeb, 0x9f]);
    assert!(names(&raw, f.base_str_len, "nosuch", What::Type, never));
}
