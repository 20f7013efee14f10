//! The in-memory ELF that aya loads: one `raw_tp/...` or `perf_event/...` section per program, a legacy `maps`
//! section with one symbol per map, `.bss` for D globals, relocations for map references,
//! and a GPL license.

use crate::abi::ProgramCode;
use crate::emit::GLOBALS_SYMBOL;
use crumbs_lang::providers::AttachPoint;
use object::write::{Object, Relocation, StandardSegment, Symbol, SymbolId, SymbolSection};
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
pub const MAP_TYPE_RINGBUF: u32 = 27;
/// BPF_F_MMAPABLE: user space can map an array's elements into memory.
pub const F_MMAPABLE: u32 = 1 << 10;

const R_BPF_64_64: u32 = 1;

/// Writes the ELF. `globals_size` is the size of `.bss` in bytes.
pub fn write_elf(programs: &[ProgramCode], maps: &[MapDef], globals_size: usize) -> Vec<u8> {
    let mut obj = Object::new(BinaryFormat::Elf, Architecture::Bpf, Endianness::Little);
    let mut symbols: HashMap<String, SymbolId> = HashMap::new();

    let maps_section = obj.add_section(Vec::new(), b"maps".to_vec(), SectionKind::Data);
    for m in maps {
        let mut def = Vec::with_capacity(28);
        for v in [m.map_type, m.key_size, m.value_size, m.max_entries, m.flags, 0, 0] {
            def.extend_from_slice(&v.to_le_bytes());
        }
        let offset = obj.append_section_data(maps_section, &def, 4);
        let id = obj.add_symbol(Symbol {
            name: m.name.as_bytes().to_vec(),
            value: offset,
            size: def.len() as u64,
            kind: SymbolKind::Data,
            scope: SymbolScope::Dynamic,
            weak: false,
            section: SymbolSection::Section(maps_section),
            flags: SymbolFlags::None,
        });
        symbols.insert(m.name.clone(), id);
    }

    let bss = obj.add_section(obj.segment_name(StandardSegment::Data).to_vec(), b".bss".to_vec(), SectionKind::UninitializedData);
    let offset = obj.append_section_bss(bss, globals_size.max(8) as u64, 8);
    let id = obj.add_symbol(Symbol {
        name: GLOBALS_SYMBOL.as_bytes().to_vec(),
        value: offset,
        size: globals_size.max(8) as u64,
        kind: SymbolKind::Data,
        scope: SymbolScope::Compilation,
        weak: false,
        section: SymbolSection::Section(bss),
        flags: SymbolFlags::None,
    });
    symbols.insert(GLOBALS_SYMBOL.to_string(), id);

    let license = obj.add_section(Vec::new(), b"license".to_vec(), SectionKind::Data);
    obj.append_section_data(license, b"GPL\0", 1);

    for p in programs {
        let kind = match p.attach {
            AttachPoint::Profile { .. } => "perf_event",
            AttachPoint::Tracepoint(_) => "tracepoint",
            _ => "raw_tp",
        };
        let section = obj.add_section(Vec::new(), format!("{kind}/{}", p.name).into_bytes(), SectionKind::Text);
        let code: Vec<u8> = p.insns.iter().flat_map(|i| i.encode()).collect();
        obj.append_section_data(section, &code, 8);
        obj.add_symbol(Symbol {
            name: p.name.as_bytes().to_vec(),
            value: 0,
            size: code.len() as u64,
            kind: SymbolKind::Text,
            scope: SymbolScope::Dynamic,
            weak: false,
            section: SymbolSection::Section(section),
            flags: SymbolFlags::None,
        });
        for r in &p.map_refs {
            obj.add_relocation(section, Relocation {
                offset: (r.insn * 8) as u64,
                symbol: symbols[&r.map],
                addend: 0,
                flags: RelocationFlags::Elf { r_type: R_BPF_64_64 },
            })
            .expect("relocation");
        }
    }
    obj.write().expect("ELF writer")
}
