//! Kernel modules' BTF: /sys/kernel/btf/<module>, split files on top of vmlinux's, read only
//! when vmlinux has no (complete) answer, each module's file at most once per process.
//!
//! The directory is listed and each file read only on the first question vmlinux cannot
//! answer, in a stable order (by name), stopping at the first module that answers. btf-rs
//! parses split files only with its Cache backend (all at once), about 10 ms per MiB (tcp_bbr's
//! 2 KiB in ~60 µs; the largest of Debian's 6.1, amdgpu's, is 2 MiB), so a module's file is
//! parsed only if a walk over its raw bytes ([`scan`]) finds the name in it.

use super::scan::{self, What};
use super::{Enumerators, VMLINUX};
use btf_rs::{Btf, BtfType};
use crumbs_lang::facts::KernelTypeId;
use std::os::unix::fs::FileExt;
use std::sync::OnceLock;

const DIR: &str = "/sys/kernel/btf";

/// A `KernelTypeId` is a type of vmlinux or of one module. A split file's ids continue after
/// vmlinux's last one, so every module's types start at the same id and the same number is a
/// different type in each module: the module goes in the high bits (its 1-based place among
/// the modules sorted by name), the split id itself in the low [`ID_BITS`]. A vmlinux type
/// carries no module bits, also when a module's type refers to it, so a type has one id
/// however it is reached (lang tells types apart by id). 22 bits hold ids below 4,194,304:
/// vmlinux has ~127k types on 6.18 and ~101k on Debian's 6.1 (33 times as many fit), and a
/// module adds its own few after them; 10 bits number 1023 modules with BTF, where a busy
/// machine loads a few hundred. A module past either limit is not searched.
pub const ID_BITS: u32 = 22;
const ID_MASK: u32 = (1 << ID_BITS) - 1;
pub const MAX_MODULES: usize = (1 << (32 - ID_BITS)) - 1;

/// The id lang sees for split id `id` of module `module` (1-based; 0 is vmlinux), where vmlinux
/// has `vmlinux_count` ids (its last id + 1, void included).
pub fn encode(module: usize, id: u32, vmlinux_count: u32) -> KernelTypeId {
    if module == 0 || id < vmlinux_count {
        id
    } else {
        debug_assert!(module <= MAX_MODULES && id <= ID_MASK, "module {module} id {id}");
        (module as u32) << ID_BITS | id
    }
}

/// The module (0 for vmlinux) and BTF id of an id from [`encode`].
pub fn decode(id: KernelTypeId) -> (usize, u32) {
    ((id >> ID_BITS) as usize, id & ID_MASK)
}

/// The number of ids of the base `btf` is split on (or of `btf` itself): the first split id.
pub fn base_count(btf: &Btf) -> u32 {
    btf.base().type_id_range().1 + 1
}

/// One module's file, read when first asked for.
struct Module {
    path: String,
    /// None if it cannot be read: it is then not searched.
    raw: OnceLock<Option<Vec<u8>>>,
    /// Its bytes parsed, when a name was found in them; None if they do not parse or their ids
    /// do not fit [`ID_BITS`].
    btf: OnceLock<Option<Btf>>,
    /// Its own enum constants, read on the first constant vmlinux does not have.
    enums: OnceLock<Enumerators>,
}

/// The modules with BTF, sorted by name, listed on first use.
fn list() -> &'static [Module] {
    static LIST: OnceLock<Vec<Module>> = OnceLock::new();
    LIST.get_or_init(|| {
        let Ok(dir) = std::fs::read_dir(DIR) else { return Vec::new() };
        let mut paths: Vec<String> = dir.filter_map(|e| e.ok()?.path().to_str().map(str::to_string)).filter(|p| p != VMLINUX).collect();
        paths.sort();
        paths.truncate(MAX_MODULES);
        paths.into_iter().map(|path| Module { path, raw: OnceLock::new(), btf: OnceLock::new(), enums: OnceLock::new() }).collect()
    })
}

impl Module {
    fn raw(&self) -> Option<&[u8]> {
        self.raw.get_or_init(|| std::fs::read(&self.path).ok()).as_deref()
    }
}

/// Module `index` (1-based) parsed on top of `vmlinux`, if it can be.
pub fn module(vmlinux: &Btf, index: usize) -> Option<&'static Btf> {
    let m = list().get(index.checked_sub(1)?)?;
    m.btf.get_or_init(|| parse(m.raw()?, vmlinux)).as_ref()
}

/// The names of the modules with BTF, sorted (their 1-based places are their indexes).
pub fn names() -> Vec<String> {
    list().iter().map(|m| m.path.rsplit('/').next().unwrap_or_default().to_string()).collect()
}

/// The index of module `name`, if it has BTF.
pub fn index_of(name: &str) -> Option<usize> {
    list().iter().position(|m| m.path.rsplit('/').next() == Some(name)).map(|i| i + 1)
}

/// The functions module `name` defines (not extern declarations), read from its raw BTF
/// without parsing it; None if it has no BTF or the bytes are not BTF the walk reads.
pub fn function_names(vmlinux: &Btf, name: &str) -> Option<Vec<String>> {
    let raw = list().get(index_of(name)? - 1)?.raw()?;
    let base_name = |off: u32| vmlinux.resolve_name(&NameAt(off)).ok();
    scan::split_function_names(raw, vmlinux_str_len()?, &base_name)
}

/// The modules that have a type (or enum constant) named `name`, with their indexes, read one
/// by one as the caller goes on (the directory is not even listed until then). Each is parsed
/// only if its bytes name it, unless vmlinux's strings cannot be told from its own.
pub fn naming<'a>(vmlinux: &'a Btf, name: &'a str, what: What) -> impl Iterator<Item = (usize, &'static Btf)> + 'a {
    let base_name = |off: u32| vmlinux.resolve_name(&NameAt(off)).ok();
    (1..).take_while(|&i| i <= list().len()).filter_map(move |i| {
        let raw = list()[i - 1].raw()?;
        let named = vmlinux_str_len().is_none_or(|len| scan::names(raw, len, name, what, base_name));
        if named { Some((i, module(vmlinux, i)?)) } else { None }
    })
}

/// A string of vmlinux's BTF, by offset, for `Btf::resolve_name`.
pub struct NameAt(pub u32);

impl BtfType for NameAt {
    fn get_name_offset(&self) -> Option<u32> {
        Some(self.0)
    }
}

/// The length of vmlinux's string section, which modules' string offsets continue after (in
/// its header: btf-rs does not tell it).
fn vmlinux_str_len() -> Option<u32> {
    static LEN: OnceLock<Option<u32>> = OnceLock::new();
    *LEN.get_or_init(|| {
        let mut header = [0; 24];
        std::fs::File::open(VMLINUX).ok()?.read_exact_at(&mut header, 0).ok()?;
        Some(u32::from_le_bytes(header[20..24].try_into().ok()?))
    })
}

/// Module `index`'s enum constants, read by `read` on first use.
pub fn enums(index: usize, read: impl FnOnce() -> Enumerators) -> Option<&'static Enumerators> {
    Some(list().get(index.checked_sub(1)?)?.enums.get_or_init(read))
}

fn parse(raw: &[u8], vmlinux: &Btf) -> Option<Btf> {
    let btf = Btf::from_split_bytes(raw, vmlinux).ok()?;
    fits(&btf).then_some(btf)
}

/// Whether every id of split `btf` can be encoded.
pub fn fits(btf: &Btf) -> bool {
    btf.split().is_some_and(|s| s.type_id_range().1 <= ID_MASK)
}

#[cfg(test)]
mod tests;
