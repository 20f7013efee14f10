//! The running kernel's types, from its BTF, in lang's terms ([`KernelType`]): the one reader
//! of kernel BTF in crumbs, for the checker's facts and for the code generator's offsets (ppid).
//!
//! vmlinux's (/sys/kernel/btf/vmlinux) is opened once per process, when a type is first asked
//! for, and memory-mapped (btf-rs's Mmap backend): opening costs about 1.5 ms and 2 MiB, and
//! each type is decoded only when asked for, where parsing all of it up front (btf-rs's Cache
//! backend, aya) costs ~100 ms and 40 MiB. A script that names no kernel type never opens it.
//!
//! Types defined only in modules (`struct bbr` of tcp_bbr) are in the modules' BTF
//! (/sys/kernel/btf/<module>, split files on top of vmlinux's): those are read only when
//! vmlinux has no answer, or only a declaration, so a script naming vmlinux's types opens no
//! module file ([`modules`], which also says how a module's type ids are told to lang).

use btf_rs::{Backend, Btf, BtfType, Type};
use crumbs_lang::facts::{KernelMember, KernelType, KernelTypeId, TypeSpace};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::sync::{Mutex, OnceLock};

#[cfg(test)]
mod blob;
pub mod c_decl;
mod modules;
mod scan;

pub use scan::{function_names, raw_tracepoint_names};

pub const VMLINUX: &str = "/sys/kernel/btf/vmlinux";

/// The kernel's BTF, opened on first use.
pub(crate) fn vmlinux() -> Result<&'static Btf, String> {
    static BTF: OnceLock<Result<Btf, String>> = OnceLock::new();
    BTF.get_or_init(|| open(VMLINUX)).as_ref().map_err(Clone::clone)
}

fn open(path: &str) -> Result<Btf, String> {
    Btf::from_file_with_backend(path, Backend::Mmap).or_else(|_| open_via_memfd(path))
}

/// Kernels before 6.16 cannot mmap /sys/kernel/btf/vmlinux: copy it into anonymous memory that
/// can be, so the types are still read lazily (5 MB copied, about as fast as mapping).
fn open_via_memfd(path: &str) -> Result<Btf, String> {
    let cannot = |e: &dyn std::fmt::Display| format!("cannot read the kernel's types from {path}: {e}");
    let mut src = std::fs::File::open(path).map_err(|e| cannot(&e))?;
    // SAFETY: memfd_create takes a NUL-terminated name and flags; the fd it returns is ours.
    let fd = unsafe { libc::memfd_create(c"crumbs-btf".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(cannot(&std::io::Error::last_os_error()));
    }
    // SAFETY: fd is a fresh descriptor owned by nothing else.
    let mut copy = unsafe { std::fs::File::from_raw_fd(fd) };
    // A plain loop: copy_file_range and sendfile are not to be trusted on sysfs files.
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = src.read(&mut buf).map_err(|e| cannot(&e))?;
        if n == 0 {
            break;
        }
        copy.write_all(&buf[..n]).map_err(|e| cannot(&e))?;
    }
    // The mapping outlives `copy`: closing the memfd does not free mapped pages.
    Btf::from_file_with_backend(format!("/proc/self/fd/{}", copy.as_raw_fd()), Backend::Mmap).map_err(|e| cannot(&e))
}

type Found = HashMap<(TypeSpace, String), Option<KernelTypeId>>;

/// The id of the kernel type named `name` in `space`; see `KernelFacts::kernel_type_id`.
pub fn type_id(space: TypeSpace, name: &str) -> Result<Option<KernelTypeId>, String> {
    // Each lookup scans every type's name (~0.8 ms); the checker and the code generator can
    // ask the same one (curthread's and ppid's task_struct).
    static FOUND: Mutex<Option<Found>> = Mutex::new(None);
    let key = (space, name.to_string());
    if let Some(id) = FOUND.lock().unwrap().as_ref().and_then(|f| f.get(&key)) {
        return Ok(*id);
    }
    let vmlinux = vmlinux()?;
    let id = lookup(vmlinux, modules::naming(vmlinux, name, scan::What::Type), space, name)?;
    FOUND.lock().unwrap().get_or_insert_default().insert(key, id);
    Ok(id)
}

/// vmlinux's type, unless it has none or only declares it (`struct nfs_page;` where nfs is a
/// module): then the first of `modules` that defines it, else the first declaration. `modules`
/// is lazy: a module is opened only when the search reaches it.
fn lookup<'a>(vmlinux: &Btf, modules: impl IntoIterator<Item = (usize, &'a Btf)>, space: TypeSpace, name: &str) -> Result<Option<KernelTypeId>, String> {
    let mut declared = match candidate(vmlinux, space, vmlinux.resolve_ids_by_name(name))? {
        Some((id, true)) => return Ok(Some(id)),
        found => found.map(|(id, _)| id),
    };
    let count = modules::base_count(vmlinux);
    for (m, btf) in modules {
        // Only the module's own types: vmlinux's were searched above.
        let Some(own) = btf.split() else { continue };
        match candidate(btf, space, own.resolve_ids_by_name(name))? {
            Some((id, true)) => return Ok(Some(modules::encode(m, id, count))),
            Some((id, false)) => declared = declared.or(Some(modules::encode(m, id, count))),
            None => {}
        }
    }
    Ok(declared)
}

/// One kernel type, by id; see `KernelFacts::kernel_type`.
pub fn kernel_type(id: KernelTypeId) -> Result<KernelType, String> {
    let vmlinux = vmlinux()?;
    match modules::decode(id) {
        (0, _) => kernel_type_in(vmlinux, 0, id),
        (m, raw) => match modules::module(vmlinux, m) {
            Some(btf) => kernel_type_in(btf, m, raw),
            None => Err(format!("no kernel type {id}: no module {m}")),
        },
    }
}

/// Every kernel enum constant: its value and the enum it is in.
type Enumerators = HashMap<String, (i64, KernelTypeId)>;

/// A kernel enum constant's value and enum type. Enumerators are not indexed by name, so the
/// first question reads every enum of vmlinux once (~10 ms here) and keeps the answers; a
/// name vmlinux lacks is looked for in the modules' enums the same way, one module at a time.
pub fn enum_constant(name: &str) -> Result<Option<(i64, KernelTypeId)>, String> {
    static ALL: OnceLock<Result<Enumerators, String>> = OnceLock::new();
    let vmlinux = vmlinux()?;
    let all = ALL.get_or_init(|| enumerators(vmlinux, 0));
    if let Some(found) = all.as_ref().map_err(Clone::clone)?.get(name) {
        return Ok(Some(*found));
    }
    for (m, btf) in modules::naming(vmlinux, name, scan::What::Enumerator) {
        // A module whose enums cannot be read has none to offer.
        let Some(own) = modules::enums(m, || enumerators(btf, m).unwrap_or_default()) else { continue };
        if let Some(found) = own.get(name) {
            return Ok(Some(*found));
        }
    }
    Ok(None)
}

/// The constants of every enum of `btf`'s own types (a split file's, not its base's).
fn enumerators(btf: &Btf, module: usize) -> Result<Enumerators, String> {
    let own = btf.split().unwrap_or(btf.base());
    let (first, last) = own.type_id_range();
    let mut all = HashMap::new();
    for id in first.max(1)..=last {
        if let Ok(Type::Enum(_) | Type::Enum64(_)) = own.resolve_type_by_id(id) {
            if let KernelType::Enum { values, .. } = kernel_type_in(btf, module, id)? {
                let id = modules::encode(module, id, modules::base_count(btf));
                for (n, v) in values {
                    all.entry(n).or_insert((v, id));
                }
            }
        }
    }
    Ok(all)
}

/// Byte offset of `member` in `struct strukt`, if the kernel has both (ppid's offsets).
pub fn member_offset(strukt: &str, member: &str) -> Option<u32> {
    let id = type_id(TypeSpace::Struct, strukt).ok()??;
    let KernelType::Struct { members, .. } = kernel_type(id).ok()? else { return None };
    members.iter().find(|m| m.name == member).map(|m| m.bit_offset / 8)
}

/// The prototype of vmlinux's function `name`: the id of its FUNC record, whose
/// [`kernel_type`] is its prototype.
pub fn function(name: &str) -> Result<Option<KernelTypeId>, String> {
    vmlinux()?;
    Ok(func_id(name))
}

/// The prototype of vmlinux's raw tracepoint `event`: that of `__bpf_trace_EVENT`, the hook
/// the kernel calls programs through, whose parameters have names; else the one its
/// `btf_trace_EVENT` typedef points to (the same types, but pahole leaves a function
/// pointer's parameters unnamed).
pub fn raw_tracepoint(event: &str) -> Result<Option<KernelTypeId>, String> {
    let btf = vmlinux()?;
    if let Some(id) = func_id(&format!("__bpf_trace_{event}")) {
        return Ok(Some(id));
    }
    let name = format!("btf_trace_{event}");
    let Ok(ids) = btf.resolve_ids_by_name(&name) else { return Ok(None) };
    for id in ids {
        if let KernelType::Typedef { to, .. } = kernel_type_in(btf, 0, id)? {
            if let KernelType::Ptr(proto) = kernel_type_in(btf, 0, to)? {
                return Ok(Some(proto));
            }
        }
    }
    Ok(None)
}

/// The BTF id of vmlinux's `btf_trace_EVENT` typedef, which a tp_btf program on raw
/// tracepoint `event` is loaded against.
pub fn raw_tracepoint_hook(event: &str) -> Result<Option<u32>, String> {
    let btf = vmlinux()?;
    let Ok(ids) = btf.resolve_ids_by_name(&format!("btf_trace_{event}")) else { return Ok(None) };
    for id in ids {
        if let KernelType::Typedef { .. } = kernel_type_in(btf, 0, id)? {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// The functions module `module` defines (its own FUNC records, not extern declarations),
/// sorted: a walk over its raw BTF, so that `fbt::vfs_*:entry` (every module searched) does
/// not parse each module's types.
pub fn module_function_names(module: &str) -> Result<Vec<String>, String> {
    let vmlinux = vmlinux()?;
    modules::index_of(module).ok_or_else(|| format!("no kernel module `{module}` with BTF is loaded"))?;
    let mut names = modules::function_names(vmlinux, module).ok_or_else(|| format!("cannot read module {module}'s BTF"))?;
    names.sort_unstable();
    names.dedup();
    Ok(names)
}

/// The prototype of module `module`'s function `name`, as [`function`].
pub fn module_function(module: &str, name: &str) -> Result<Option<KernelTypeId>, String> {
    let (m, btf) = loaded_module(module)?;
    let Some(own) = btf.split() else { return Ok(None) };
    let ids = own.resolve_ids_by_name(name).unwrap_or_default();
    Ok(ids.into_iter().find(|id| matches!(own.resolve_type_by_id(*id), Ok(Type::Func(_)))).map(|id| modules::encode(m, id, modules::base_count(btf))))
}

/// The id of module `module`'s function `name` in the module's own (split) BTF, as the
/// kernel numbers it: what a trampoline on it is loaded against, with the module's BTF object.
pub fn module_function_btf_id(module: &str, name: &str) -> Result<Option<u32>, String> {
    Ok(module_function(module, name)?.map(|id| modules::decode(id).1))
}

/// The names of the loaded modules with BTF, sorted.
pub fn module_names() -> Vec<String> {
    modules::names()
}

/// Module `module`'s index and its BTF parsed on vmlinux's.
fn loaded_module(module: &str) -> Result<(usize, &'static Btf), String> {
    let vmlinux = vmlinux()?;
    let m = modules::index_of(module).ok_or_else(|| format!("no kernel module `{module}` with BTF is loaded"))?;
    let btf = modules::module(vmlinux, m).ok_or_else(|| format!("cannot read module {module}'s BTF"))?;
    Ok((m, btf))
}

/// The BTF id of the kernel function (a kfunc) named `name`, in vmlinux.
pub fn func_id(name: &str) -> Option<u32> {
    let btf = vmlinux().ok()?;
    btf.resolve_ids_by_name(name).ok()?.into_iter().find(|id| matches!(btf.resolve_type_by_id(*id), Ok(Type::Func(_))))
}

/// The BTF id of vmlinux's variable `name` (the kernel describes its per-CPU variables).
pub fn var_id(name: &str) -> Option<u32> {
    let btf = vmlinux().ok()?;
    btf.resolve_ids_by_name(name).ok()?.into_iter().find(|id| matches!(btf.resolve_type_by_id(*id), Ok(Type::Var(_))))
}

fn btf_error(e: btf_rs::Error) -> String {
    format!("cannot read the kernel's types: {e}")
}

/// How well a type of that name answers a lookup in `space`: higher is better, None is not
/// at all. Several types can share a name (a definition and forward declarations of it, a
/// typedef and a struct tag).
fn rank(space: TypeSpace, ty: &Type) -> Option<u8> {
    match (space, ty) {
        (TypeSpace::Struct, Type::Struct(_)) | (TypeSpace::Union, Type::Union(_)) => Some(2),
        (TypeSpace::Struct, Type::Fwd(f)) if f.is_struct() => Some(1),
        (TypeSpace::Union, Type::Fwd(f)) if f.is_union() => Some(1),
        // An enum without values is BTF's forward declaration of an enum.
        (TypeSpace::Enum, Type::Enum(e)) => Some(if e.members.is_empty() { 1 } else { 2 }),
        (TypeSpace::Enum, Type::Enum64(_)) => Some(2),
        (TypeSpace::Ordinary, Type::Typedef(_)) => Some(3),
        (TypeSpace::Ordinary, Type::Int(_)) => Some(2),
        (TypeSpace::Ordinary, Type::Float(_)) => Some(1),
        _ => None,
    }
}

/// Whether `ty` only declares a struct, union or enum defined elsewhere.
fn declaration(ty: &Type) -> bool {
    matches!(ty, Type::Fwd(_)) || matches!(ty, Type::Enum(e) if e.members.is_empty())
}

/// The best of `ids` (types of `btf` sharing a name) for `space`, and whether it is a
/// definition rather than a declaration.
fn candidate(btf: &Btf, space: TypeSpace, ids: btf_rs::Result<Vec<u32>>) -> Result<Option<(KernelTypeId, bool)>, String> {
    let mut best: Option<(u8, KernelTypeId, bool)> = None;
    for id in ids.map_err(btf_error)? {
        let ty = btf.resolve_type_by_id(id).map_err(btf_error)?;
        // The first of equally good candidates wins, so the answer does not depend on ties.
        if let Some(r) = rank(space, &ty) {
            if best.is_none_or(|(b, ..)| r > b) {
                best = Some((r, id, !declaration(&ty)));
            }
        }
    }
    Ok(best.map(|(_, id, defined)| (id, defined)))
}

/// `btf`'s own best answer (vmlinux's, for a stand-alone `btf`).
#[cfg(test)]
fn type_id_in(btf: &Btf, space: TypeSpace, name: &str) -> Result<Option<KernelTypeId>, String> {
    Ok(candidate(btf, space, btf.resolve_ids_by_name(name))?.map(|(id, _)| id))
}

/// Types read from one BTF: vmlinux's (module 0) or a module's, whose ids are encoded for lang.
#[derive(Clone, Copy)]
struct Reader<'a> {
    btf: &'a Btf,
    module: usize,
    vmlinux_count: u32,
}

impl Reader<'_> {
    /// A name from the string table; "" for anonymous types and members.
    fn name(&self, t: &dyn BtfType) -> String {
        self.btf.resolve_name(t).unwrap_or_default()
    }

    /// The id lang knows the type of BTF id `id` by.
    fn id(&self, id: u32) -> KernelTypeId {
        modules::encode(self.module, id, self.vmlinux_count)
    }

    /// The id a type refers to (a pointer's target, a typedef's type); 0 (void) if it has none.
    fn target(&self, t: &dyn BtfType) -> KernelTypeId {
        self.id(t.get_type_id().unwrap_or(0))
    }

    fn members(&self, s: &btf_rs::Struct) -> Vec<KernelMember> {
        s.members
            .iter()
            .map(|m| KernelMember { name: self.name(m), ty: self.target(m), bit_offset: m.bit_offset(), bit_size: m.bitfield_size().unwrap_or(0) })
            .collect()
    }
}

/// Type `id` of `btf`, which is module `module`'s (0: vmlinux).
fn kernel_type_in(btf: &Btf, module: usize, id: u32) -> Result<KernelType, String> {
    let r = Reader { btf, module, vmlinux_count: modules::base_count(btf) };
    let ty = btf.resolve_type_by_id(id).map_err(|e| format!("no kernel type {}: {e}", r.id(id)))?;
    Ok(match &ty {
        Type::Void => KernelType::Void,
        Type::Int(i) => {
            let name = r.name(i);
            // pahole never sets BTF_INT_CHAR: the character types are known by name. (Their
            // sign is BTF's: the kernel builds with -funsigned-char since 6.2.)
            let char = i.is_char() || matches!(name.as_str(), "char" | "signed char" | "unsigned char");
            KernelType::Int { size: i.size() as u32, signed: i.is_signed(), char, bool: i.is_bool(), name }
        }
        Type::Float(f) => KernelType::Float { name: r.name(f), size: f.size() as u32 },
        Type::Ptr(p) => KernelType::Ptr(r.target(p)),
        Type::Array(a) => KernelType::Array { elem: r.target(a), len: a.len() as u32 },
        Type::Struct(s) => KernelType::Struct { name: r.name(s), size: s.size() as u32, members: r.members(s) },
        Type::Union(u) => KernelType::Union { name: r.name(u), size: u.size() as u32, members: r.members(u) },
        Type::Enum(e) if e.members.is_empty() => KernelType::Fwd { name: r.name(e), space: TypeSpace::Enum },
        Type::Enum(e) => {
            let value = |m: &btf_rs::EnumMember| if e.is_signed() { m.val() as i32 as i64 } else { m.val() as i64 };
            KernelType::Enum { name: r.name(e), size: e.size() as u32, signed: e.is_signed(), values: e.members.iter().map(|m| (r.name(m), value(m))).collect() }
        }
        // Unsigned values above i64::MAX keep their bits; `signed: false` says how to read them.
        Type::Enum64(e) => KernelType::Enum { name: r.name(e), size: e.size() as u32, signed: e.is_signed(), values: e.members.iter().map(|m| (r.name(m), m.val() as i64)).collect() },
        Type::Fwd(f) => KernelType::Fwd { name: r.name(f), space: if f.is_union() { TypeSpace::Union } else { TypeSpace::Struct } },
        Type::Typedef(t) => KernelType::Typedef { name: r.name(t), to: r.target(t) },
        Type::Const(q) | Type::Volatile(q) | Type::Restrict(q) => KernelType::Qualified(r.target(q)),
        Type::TypeTag(t) => KernelType::Qualified(r.target(t)),
        // A variadic prototype's last parameter is ("", 0).
        Type::FuncProto(p) => KernelType::Function { ret: r.id(p.return_type_id()), params: p.parameters.iter().map(|a| (r.name(a), r.target(a))).collect() },
        // A function (not its type) is reached only by its own id: give its prototype.
        Type::Func(f) => return kernel_type_in(btf, module, f.get_type_id().unwrap_or(0)),
        // Variables, data sections and declaration tags are not types a member or pointer can
        // refer to; they reach here only by a bare id, and void says "nothing to read".
        Type::Var(_) | Type::Datasec(_) | Type::DeclTag(_) => KernelType::Void,
        // btf-rs's Type is non-exhaustive: a kind it learns later is opaque here until
        // crumbs learns it too.
        _ => KernelType::Void,
    })
}

#[cfg(test)]
mod tests;
