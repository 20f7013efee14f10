//! Against this machine's kernel: each test passes silently where the kernel has no BTF.

use super::*;

fn btf() -> Option<&'static Btf> {
    if !std::path::Path::new(VMLINUX).exists() {
        eprintln!("no {VMLINUX}: skipped");
        return None;
    }
    Some(vmlinux().expect("vmlinux BTF opens"))
}

fn id(btf: &Btf, space: TypeSpace, name: &str) -> KernelTypeId {
    type_id_in(btf, space, name).unwrap().unwrap_or_else(|| panic!("no {space:?} {name}"))
}

fn ty(btf: &Btf, id: KernelTypeId) -> KernelType {
    kernel_type_in(btf, 0, id).unwrap()
}

/// The type under typedefs and qualifiers.
fn strip(btf: &Btf, mut id: KernelTypeId) -> KernelType {
    loop {
        match ty(btf, id) {
            KernelType::Typedef { to, .. } | KernelType::Qualified(to) => id = to,
            t => return t,
        }
    }
}

fn members(btf: &Btf, id: KernelTypeId) -> Vec<KernelMember> {
    match ty(btf, id) {
        KernelType::Struct { members, .. } | KernelType::Union { members, .. } => members,
        t => panic!("not a struct or union: {t:?}"),
    }
}

/// A member, looked for in anonymous struct and union members too (as C finds it), with its
/// offset from the start of `id`.
fn find(btf: &Btf, id: KernelTypeId, name: &str) -> Option<KernelMember> {
    members(btf, id).into_iter().find_map(|m| match m.name.as_str() {
        "" => find(btf, m.ty, name).map(|inner| KernelMember { bit_offset: m.bit_offset + inner.bit_offset, ..inner }),
        n if n == name => Some(m),
        _ => None,
    })
}

fn member(btf: &Btf, id: KernelTypeId, name: &str) -> KernelMember {
    find(btf, id, name).unwrap_or_else(|| panic!("no member {name}"))
}

fn struct_named(t: &KernelType) -> &str {
    match t {
        KernelType::Struct { name, .. } => name,
        t => panic!("not a struct: {t:?}"),
    }
}

#[test]
fn task_struct_members() {
    let Some(btf) = btf() else { return };
    let task = id(btf, TypeSpace::Struct, "task_struct");
    let KernelType::Struct { name, size, .. } = ty(btf, task) else { panic!() };
    assert_eq!(name, "task_struct");
    assert!(size > 1000, "{size}");
    for m in ["pid", "tgid"] {
        let m = member(btf, task, m);
        assert_eq!((m.bit_size, m.bit_offset % 8), (0, 0));
        assert!(matches!(strip(btf, m.ty), KernelType::Int { size: 4, signed: true, .. }));
    }
    let KernelType::Ptr(to) = strip(btf, member(btf, task, "real_parent").ty) else { panic!("real_parent is not a pointer") };
    assert_eq!(struct_named(&strip(btf, to)), "task_struct");
    let KernelType::Array { elem, len: 16 } = strip(btf, member(btf, task, "comm").ty) else { panic!("comm is not char[16]") };
    assert!(matches!(strip(btf, elem), KernelType::Int { size: 1, char: true, ref name, .. } if name == "char"));
}

#[test]
fn struct_file_path_dentry() {
    let Some(btf) = btf() else { return };
    // Since 6.17 f_path is in an anonymous union (with a non-const alias, __f_path).
    let file = id(btf, TypeSpace::Struct, "file");
    let path = strip(btf, member(btf, file, "f_path").ty);
    assert_eq!(struct_named(&path), "path");
    let KernelType::Struct { members, .. } = path else { unreachable!() };
    let dentry = members.iter().find(|m| m.name == "dentry").expect("path.dentry");
    let KernelType::Ptr(to) = strip(btf, dentry.ty) else { panic!("dentry is not a pointer") };
    assert_eq!(struct_named(&strip(btf, to)), "dentry");
}

#[test]
fn typedef_to_int() {
    let Some(btf) = btf() else { return };
    let pid_t = id(btf, TypeSpace::Ordinary, "pid_t");
    assert!(matches!(ty(btf, pid_t), KernelType::Typedef { ref name, .. } if name == "pid_t"));
    let KernelType::Int { name, size, signed, char, bool } = strip(btf, pid_t) else { panic!("pid_t is not an int") };
    assert_eq!((name.as_str(), size, signed, char, bool), ("int", 4, true, false, false));
    let KernelType::Int { signed, .. } = ty(btf, id(btf, TypeSpace::Ordinary, "unsigned int")) else { panic!() };
    assert!(!signed);
    assert!(matches!(ty(btf, id(btf, TypeSpace::Ordinary, "_Bool")), KernelType::Int { bool: true, char: false, size: 1, .. }));
    assert!(matches!(strip(btf, id(btf, TypeSpace::Ordinary, "u8")), KernelType::Int { char: true, signed: false, size: 1, .. }));
}

#[test]
fn enum_values() {
    let Some(btf) = btf() else { return };
    let KernelType::Enum { name, size, values, .. } = ty(btf, id(btf, TypeSpace::Enum, "pid_type")) else { panic!("pid_type is not an enum") };
    assert_eq!((name.as_str(), size), ("pid_type", 4));
    assert_eq!(values[0], ("PIDTYPE_PID".to_string(), 0));
    assert!(values.iter().any(|(n, v)| n == "PIDTYPE_TGID" && *v == 1), "{values:?}");
}

/// Bitfields, with members of anonymous structs and unions (named "") searched too.
fn bitfields(btf: &Btf, id: KernelTypeId, out: &mut Vec<KernelMember>) {
    for m in members(btf, id) {
        if m.bit_size > 0 {
            out.push(m);
        } else if m.name.is_empty() {
            bitfields(btf, m.ty, out);
        }
    }
}

#[test]
fn bitfield_members() {
    let Some(btf) = btf() else { return };
    let mut found = Vec::new();
    bitfields(btf, id(btf, TypeSpace::Struct, "sk_buff"), &mut found);
    let pkt_type = found.iter().find(|m| m.name == "pkt_type").unwrap_or_else(|| panic!("sk_buff.pkt_type in {found:?}"));
    assert_eq!(pkt_type.bit_size, 3);
    assert!(matches!(strip(btf, pkt_type.ty), KernelType::Int { size: 1, signed: false, .. }));
}

#[test]
fn unknown_names() {
    let Some(btf) = btf() else { return };
    assert_eq!(type_id_in(btf, TypeSpace::Struct, "no_such_struct_xyz"), Ok(None));
    assert_eq!(type_id_in(btf, TypeSpace::Ordinary, "no_such_type_t"), Ok(None));
    // A name in the wrong space: pid_t is no struct, task_struct no typedef.
    assert_eq!(type_id_in(btf, TypeSpace::Struct, "pid_t"), Ok(None));
    assert_eq!(type_id_in(btf, TypeSpace::Ordinary, "task_struct"), Ok(None));
    assert!(kernel_type_in(btf, 0, u32::MAX).is_err());
    assert_eq!(kernel_type_in(btf, 0, 0), Ok(KernelType::Void));
}

#[test]
fn remembered_lookups_answer_the_same() {
    let Some(btf) = btf() else { return };
    for _ in 0..2 {
        assert_eq!(type_id(TypeSpace::Struct, "task_struct"), type_id_in(btf, TypeSpace::Struct, "task_struct"));
        assert_eq!(type_id(TypeSpace::Union, "task_struct"), Ok(None));
    }
}

#[test]
fn ppid_offsets() {
    let Some(_) = btf() else { return };
    let tgid = member_offset("task_struct", "tgid").expect("tgid");
    let parent = member_offset("task_struct", "real_parent").expect("real_parent");
    assert!(tgid > 0 && parent > tgid, "{tgid} {parent}");
    assert_eq!(member_offset("task_struct", "no_such_member"), None);
}

/// The fallback for kernels that cannot mmap their BTF reads the same types.
#[test]
fn memfd_copy_reads_the_same() {
    let Some(btf) = btf() else { return };
    let copy = open_via_memfd(VMLINUX).expect("memfd copy opens");
    let task = id(btf, TypeSpace::Struct, "task_struct");
    assert_eq!(id(&copy, TypeSpace::Struct, "task_struct"), task);
    assert_eq!(ty(&copy, task), ty(btf, task));
}

/// Cost of the first type question in a fresh process: run alone, with
/// `cargo test -p crumbs-runtime --lib btf::tests::cost -- --ignored --nocapture`.
#[test]
#[ignore]
fn cost() {
    // Resident memory now: the test harness's own peak hides this one's.
    fn rss_kib() -> i64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }
    let rss = rss_kib();
    let start = std::time::Instant::now();
    let task = type_id(TypeSpace::Struct, "task_struct").unwrap().unwrap();
    let KernelType::Struct { members, .. } = kernel_type(task).unwrap() else { panic!() };
    let parent = members.iter().find(|m| m.name == "real_parent").unwrap();
    let KernelType::Ptr(to) = kernel_type(parent.ty).unwrap() else { panic!() };
    let KernelType::Struct { members, .. } = kernel_type(to).unwrap() else { panic!() };
    let tgid = members.iter().find(|m| m.name == "tgid").unwrap();
    let elapsed = start.elapsed();
    eprintln!("task_struct -> real_parent -> tgid (bit {}): {elapsed:?}, RSS +{} KiB", tgid.bit_offset, rss_kib() - rss);
    let (rss, start) = (rss_kib(), std::time::Instant::now());
    let copy = open_via_memfd(VMLINUX).unwrap();
    id(&copy, TypeSpace::Struct, "task_struct");
    eprintln!("the same through a memfd copy (kernels before 6.16): open and look up {:?}, RSS +{} KiB", start.elapsed(), rss_kib() - rss);
}

