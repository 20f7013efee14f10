//! The in-memory ELF that aya loads: one `raw_tp/...` or `perf_event/...` section per program, a legacy `maps`
//! section with one symbol per map, `.bss` for D globals, relocations for map references,
//! and a GPL license. When a program passes a callback to a helper: the callbacks (shared
//! ones, and the programs' own: loop bodies) in `.text`, relocations to them and from them,
//! and the BTF saying where each function starts ([`crate::btf`]).

use crate::abi::{func_name, subprogram_name, Callback, Func, FuncRef, MapRef, ProgramCode};
use crate::btf::{self, FuncAt, FuncKind};
use crate::insn::Insn;
use crate::emit::{GLOBALS_SYMBOL, SEQ_FORMATS_SYMBOL};
use object::write::{Object, Relocation, SectionId, StandardSegment, Symbol, SymbolId, SymbolSection};
use object::{Architecture, BinaryFormat, Endianness, RelocationFlags, SectionKind, SymbolFlags, SymbolKind, SymbolScope};
use std::collections::HashMap;

/// A map as the kernel creates it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapDef {
    pub name: String,
    pub map_type: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub flags: u32,
}

pub const MAP_TYPE_HASH: u32 = 1;
pub const MAP_TYPE_ARRAY: u32 = 2;
pub const MAP_TYPE_PERCPU_ARRAY: u32 = 6;
pub const MAP_TYPE_STACK_TRACE: u32 = 7;
pub const MAP_TYPE_LRU_HASH: u32 = 9;
pub const MAP_TYPE_RINGBUF: u32 = 27;
/// BPF_F_MMAPABLE: user space can map an array's elements into memory.
pub const F_MMAPABLE: u32 = 1 << 10;

const R_BPF_64_64: u32 = 1;

/// Writes the ELF. `globals_size` is the size of `.bss` in bytes; `rodata` the bytes of
/// `.rodata` (a pinned iterator's printf() formats, which the kernel wants read-only), none
/// if empty.
/// Adds a symbol for `size` bytes at `offset` in `section`.
fn symbol(obj: &mut Object, name: &str, section: SectionId, offset: u64, size: u64, kind: SymbolKind, scope: SymbolScope) -> SymbolId {
    obj.add_symbol(Symbol { name: name.as_bytes().to_vec(), value: offset, size, kind, scope, weak: false, section: SymbolSection::Section(section), flags: SymbolFlags::None })
}

pub fn write_elf(programs: &[ProgramCode], maps: &[MapDef], globals_size: usize, rodata: &[u8]) -> Vec<u8> {
    let mut obj = Object::new(BinaryFormat::Elf, Architecture::Bpf, Endianness::Little);
    let mut symbols: HashMap<String, SymbolId> = HashMap::new();

    let maps_section = obj.add_section(Vec::new(), b"maps".to_vec(), SectionKind::Data);
    for m in maps {
        let mut def = Vec::with_capacity(28);
        for v in [m.map_type, m.key_size, m.value_size, m.max_entries, m.flags, 0, 0] {
            def.extend_from_slice(&v.to_le_bytes());
        }
        let offset = obj.append_section_data(maps_section, &def, 4);
        let id = symbol(&mut obj, &m.name, maps_section, offset, def.len() as u64, SymbolKind::Data, SymbolScope::Dynamic);
        symbols.insert(m.name.clone(), id);
    }

    let bss = obj.add_section(obj.segment_name(StandardSegment::Data).to_vec(), b".bss".to_vec(), SectionKind::UninitializedData);
    let offset = obj.append_section_bss(bss, globals_size.max(8) as u64, 8);
    let id = symbol(&mut obj, GLOBALS_SYMBOL, bss, offset, globals_size.max(8) as u64, SymbolKind::Data, SymbolScope::Compilation);
    symbols.insert(GLOBALS_SYMBOL.to_string(), id);

    if !rodata.is_empty() {
        let section = obj.add_section(obj.segment_name(StandardSegment::Data).to_vec(), b".rodata".to_vec(), SectionKind::ReadOnlyData);
        let offset = obj.append_section_data(section, rodata, 8);
        let id = symbol(&mut obj, SEQ_FORMATS_SYMBOL, section, offset, rodata.len() as u64, SymbolKind::Data, SymbolScope::Compilation);
        symbols.insert(SEQ_FORMATS_SYMBOL.to_string(), id);
    }

    let license = obj.add_section(Vec::new(), b"license".to_vec(), SectionKind::Data);
    obj.append_section_data(license, b"GPL\0", 1);

    let callbacks = callbacks(programs);
    let mut funcs: Vec<(String, u32, String, FuncKind)> = Vec::new();
    let has_text = !callbacks.is_empty() || programs.iter().any(|p| !p.subprograms.is_empty());
    if has_text {
        let text = obj.add_section(Vec::new(), b".text".to_vec(), SectionKind::Text);
        let mut add = |obj: &mut Object, name: String, insns: &[Insn], kind: FuncKind| -> u64 {
            let code: Vec<u8> = insns.iter().flat_map(|i| i.encode()).collect();
            let offset = obj.append_section_data(text, &code, 8);
            let id = symbol(obj, &name, text, offset, code.len() as u64, SymbolKind::Text, SymbolScope::Compilation);
            symbols.insert(name.clone(), id);
            funcs.push((".text".into(), offset as u32, name, kind));
            offset
        };
        for f in &callbacks {
            add(&mut obj, f.name().to_string(), &f.code(), f.kind());
        }
        let mut placed = Vec::new();
        for p in programs {
            for (i, sub) in p.subprograms.iter().enumerate() {
                let offset = add(&mut obj, subprogram_name(&p.name, i), &sub.insns, FuncKind::MapElem);
                placed.push((p, sub, offset));
            }
        }
        // The relocations of the programs' own functions, once every symbol exists.
        for (p, sub, offset) in placed {
            relocate(&mut obj, text, offset, &p.name, &sub.map_refs, &sub.func_refs, &symbols);
        }
    }

    for p in programs {
        let kind = crate::emit::attach::context_of(p).section_kind();
        let section_name = format!("{kind}/{}", p.name);
        funcs.push((section_name.clone(), 0, p.name.clone(), FuncKind::Program));
        let section = obj.add_section(Vec::new(), section_name.into_bytes(), SectionKind::Text);
        let code: Vec<u8> = p.insns.iter().flat_map(|i| i.encode()).collect();
        obj.append_section_data(section, &code, 8);
        symbol(&mut obj, &p.name, section, 0, code.len() as u64, SymbolKind::Text, SymbolScope::Dynamic);
        relocate(&mut obj, section, 0, &p.name, &p.map_refs, &p.func_refs, &symbols);
    }
    if has_text {
        let at: Vec<FuncAt> = funcs.iter().map(|(section, offset, name, kind)| FuncAt { section, offset: *offset, name, kind: *kind }).collect();
        let (types, ext) = btf::describe(&at);
        let s = obj.add_section(Vec::new(), b".BTF".to_vec(), SectionKind::Other);
        obj.append_section_data(s, &types, 4);
        let s = obj.add_section(Vec::new(), b".BTF.ext".to_vec(), SectionKind::Other);
        obj.append_section_data(s, &ext, 4);
    }
    obj.write().expect("ELF writer")
}

/// Relocations of code at `offset` in `section` (a program's, or one of program
/// `program`'s own functions) to the maps and functions it refers to.
fn relocate(obj: &mut Object, section: SectionId, offset: u64, program: &str, maps: &[MapRef], funcs: &[FuncRef], symbols: &HashMap<String, SymbolId>) {
    let refs = maps.iter().map(|r| (r.insn, r.map.clone())).chain(funcs.iter().map(|r| (r.insn, func_name(program, r.func))));
    for (insn, name) in refs {
        obj.add_relocation(section, Relocation {
            offset: offset + (insn * 8) as u64,
            symbol: symbols[&name],
            addend: 0,
            flags: RelocationFlags::Elf { r_type: R_BPF_64_64 },
        })
        .expect("relocation");
    }
}

/// The callbacks the programs pass to helpers, each once.
pub fn callbacks(programs: &[ProgramCode]) -> Vec<Callback> {
    let shared = |refs: &[FuncRef]| refs.iter().filter_map(|r| match r.func {
        Func::Shared(c) => Some(c),
        Func::Own(_) => None,
    }).collect::<Vec<_>>();
    let mut all: Vec<Callback> = programs.iter().flat_map(|p| shared(&p.func_refs).into_iter().chain(p.subprograms.iter().flat_map(|s| shared(&s.func_refs)))).collect();
    all.sort();
    all.dedup();
    all
}
