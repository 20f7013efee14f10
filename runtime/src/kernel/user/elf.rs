//! One ELF file's functions and the libraries it needs, read with the `object` crate: its
//! function symbols from .symtab and .dynsym (a stripped file has only the latter, a static
//! one only the former), at the file offsets uprobes are attached at.

use crumbs_lang::facts::user::{UsdtProbe, UserFunction};
use object::elf;
use object::read::elf::{Dyn, ElfFile64, FileHeader, ProgramHeader, SectionHeader};
use object::{Endianness, Object, ObjectSection, ObjectSymbol, SymbolKind};

/// What crumbs reads of an ELF file.
pub struct ElfInfo {
    /// Its functions, sorted by (demangled) name, each place once.
    pub functions: Vec<UserFunction>,
    /// DT_NEEDED: the libraries the dynamic loader maps for it.
    pub needed: Vec<String>,
    /// DT_RUNPATH or DT_RPATH: where it asks the loader to look first.
    pub runpath: Vec<String>,
    /// An executable (ET_EXEC, or ET_DYN with an interpreter: a PIE), not a library.
    pub executable: bool,
    /// Its USDT probes, at file offsets, in the notes' order.
    pub usdt: Vec<UsdtProbe>,
}

pub fn read(path: &str) -> Result<ElfInfo, String> {
    let data = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let file = ElfFile64::<Endianness>::parse(&*data).map_err(|e| format!("{path} is not a 64-bit ELF file: {e}"))?;
    let endian = file.endian();
    let header = file.elf_header();
    if header.e_machine(endian) != elf::EM_X86_64 {
        return Err(format!("{path} is not an x86-64 file"));
    }
    let loads: Vec<(u64, u64, u64)> = file
        .elf_program_headers()
        .iter()
        .filter(|p| p.p_type(endian) == elf::PT_LOAD)
        .map(|p| (p.p_vaddr(endian), p.p_filesz(endian), p.p_offset(endian)))
        .collect();
    let interp = file.elf_program_headers().iter().any(|p| p.p_type(endian) == elf::PT_INTERP);
    let offset_of = |addr: u64| loads.iter().find(|(va, size, _)| addr >= *va && addr < va + size).map(|(va, _, off)| addr - va + off);
    let mut functions: Vec<UserFunction> = Vec::new();
    for sym in file.symbols().chain(file.dynamic_symbols()) {
        // An ifunc symbol is the resolver the loader calls once, not the function it picks.
        if sym.kind() != SymbolKind::Text || sym.is_undefined() || sym.address() == 0 || sym.elf_symbol().st_type() == elf::STT_GNU_IFUNC {
            continue;
        }
        let (Ok(name), Some(offset)) = (sym.name(), offset_of(sym.address())) else { continue };
        if name.is_empty() {
            continue;
        }
        functions.push(UserFunction { name: crate::ustacks::demangle(name), offset, address: sym.address(), size: sym.size() });
    }
    functions.sort_by(|a, b| (&a.name, a.offset).cmp(&(&b.name, b.offset)));
    functions.dedup_by(|a, b| a.name == b.name && a.offset == b.offset);
    let (mut needed, mut runpath) = (Vec::new(), Vec::new());
    let sections = file.elf_section_table();
    if let Ok(Some((dyns, link))) = sections.dynamic(endian, &*data) {
        if let Ok(strings) = sections.strings(endian, &*data, link) {
            for d in dyns {
                let Ok(s) = d.string(endian, strings) else { continue };
                let s = String::from_utf8_lossy(s).into_owned();
                match d.d_tag(endian) as i64 {
                    elf::DT_NEEDED => needed.push(s),
                    elf::DT_RUNPATH | elf::DT_RPATH => runpath.extend(s.split(':').filter(|p| !p.is_empty()).map(str::to_string)),
                    _ => {}
                }
            }
        }
    }
    let executable = header.e_type(endian) == elf::ET_EXEC || (header.e_type(endian) == elf::ET_DYN && interp);
    let usdt = usdt_probes(&file, &data, &functions, &offset_of);
    Ok(ElfInfo { functions, needed, runpath, executable, usdt })
}

/// The file's `.note.stapsdt` probes, their addresses moved as far as `.stapsdt.base` moved
/// and made file offsets; the function each is in from the symbols.
fn usdt_probes(file: &ElfFile64<Endianness>, data: &[u8], functions: &[UserFunction], offset_of: &dyn Fn(u64) -> Option<u64>) -> Vec<UsdtProbe> {
    let endian = file.endian();
    let base = file.section_by_name(".stapsdt.base").map(|s| s.address());
    let mut out = Vec::new();
    for section in file.elf_section_table().iter() {
        let Ok(Some(mut notes)) = section.notes(endian, data) else { continue };
        while let Ok(Some(note)) = notes.next() {
            let Some(n) = super::usdt::parse_note(note.n_type(endian), note.name(), note.desc()) else { continue };
            let moved = |addr: u64| base.map_or(addr, |b| addr.wrapping_add(b).wrapping_sub(n.base));
            let Some(offset) = offset_of(moved(n.pc)) else { continue };
            let semaphore = if n.semaphore == 0 { 0 } else { offset_of(moved(n.semaphore)).unwrap_or(0) };
            let function = functions.iter().filter(|f| f.offset <= offset && offset < f.offset + f.size.max(1)).map(|f| f.name.clone()).next().unwrap_or_default();
            out.push(UsdtProbe { provider: n.provider, name: n.name, function, offset, semaphore, args: n.args });
        }
    }
    out
}
