//! The BTF a program with callbacks needs: the kernel lets a program pass one of its
//! functions to a helper (bpf_loop) only when BTF says where each function starts (.BTF.ext
//! func_info) and that the callback is static. So this describes every function by name
//! and prototype and nothing else: `int prog(void *ctx)` for the programs, `int cb(unsigned
//! int index, void *ctx)` for bpf_loop's callbacks, `int cb(void *map, void *key, void
//! *value, void *ctx)` for bpf_for_each_map_elem's. Written here because aya-obj, which reads
//! BTF, keeps its type constructors to itself; the format is the kernel's
//! (Documentation/bpf/btf.rst).

const MAGIC: u16 = 0xeb9f;
const KIND_INT: u32 = 1;
const KIND_PTR: u32 = 2;
const KIND_FUNC: u32 = 12;
const KIND_FUNC_PROTO: u32 = 13;
const INT_SIGNED: u32 = 1 << 24;
const LINKAGE_STATIC: u32 = 0;
const LINKAGE_GLOBAL: u32 = 1;

// The fixed types' ids, in the order [`Writer::new`] adds them.
const INT: u32 = 1;
const UINT: u32 = 2;
const VOID_PTR: u32 = 3;
const PROG_PROTO: u32 = 4;
const CALLBACK_PROTO: u32 = 5;
const MAP_CALLBACK_PROTO: u32 = 6;

/// What a function is, for its prototype and linkage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuncKind {
    /// A program (global).
    Program,
    /// bpf_loop's callback (static).
    Loop,
    /// bpf_for_each_map_elem's callback (static).
    MapElem,
}

/// A function in an ELF section, for func_info.
pub struct FuncAt<'a> {
    /// The ELF section it is in.
    pub section: &'a str,
    /// Its byte offset in the section.
    pub offset: u32,
    pub name: &'a str,
    pub kind: FuncKind,
}

/// `.BTF` and `.BTF.ext` describing `funcs`.
pub fn describe(funcs: &[FuncAt]) -> (Vec<u8>, Vec<u8>) {
    let mut w = Writer::new();
    let mut sections: Vec<(&str, Vec<(u32, u32)>)> = Vec::new();
    for f in funcs {
        let (proto, linkage) = match f.kind {
            FuncKind::Program => (PROG_PROTO, LINKAGE_GLOBAL),
            FuncKind::Loop => (CALLBACK_PROTO, LINKAGE_STATIC),
            FuncKind::MapElem => (MAP_CALLBACK_PROTO, LINKAGE_STATIC),
        };
        let name = w.string(f.name);
        let id = w.add(KIND_FUNC, name, linkage, proto, &[]);
        match sections.iter_mut().find(|(s, _)| *s == f.section) {
            Some((_, infos)) => infos.push((f.offset, id)),
            None => sections.push((f.section, vec![(f.offset, id)])),
        }
    }
    // func_info: the record size, then per section its name, count and (offset, type).
    let mut info = u32s(&[8]);
    for (section, infos) in &sections {
        let name = w.string(section);
        info.extend(u32s(&[name, infos.len() as u32]));
        for (offset, id) in infos {
            info.extend(u32s(&[*offset, *id]));
        }
    }
    let len = info.len() as u32;
    // magic, version 1, flags 0; header length; func_info, line_info, core_relo (off, len).
    let mut ext = MAGIC.to_le_bytes().to_vec();
    ext.extend([1, 0]);
    ext.extend(u32s(&[32, 0, len, len, 0, len, 0]));
    ext.extend(info);
    (w.finish(), ext)
}

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

struct Writer {
    types: Vec<u8>,
    strings: Vec<u8>,
    next_id: u32,
}

impl Writer {
    fn new() -> Writer {
        let mut w = Writer { types: Vec::new(), strings: vec![0], next_id: 1 };
        let int = w.string("int");
        assert_eq!(w.add(KIND_INT, int, 0, 4, &[INT_SIGNED | 32]), INT);
        let uint = w.string("unsigned int");
        assert_eq!(w.add(KIND_INT, uint, 0, 4, &[32]), UINT);
        assert_eq!(w.add(KIND_PTR, 0, 0, 0, &[]), VOID_PTR);
        let (ctx, index) = (w.string("ctx"), w.string("index"));
        assert_eq!(w.add(KIND_FUNC_PROTO, 0, 1, INT, &[ctx, VOID_PTR]), PROG_PROTO);
        assert_eq!(w.add(KIND_FUNC_PROTO, 0, 2, INT, &[index, UINT, ctx, VOID_PTR]), CALLBACK_PROTO);
        let (map, key, value) = (w.string("map"), w.string("key"), w.string("value"));
        assert_eq!(w.add(KIND_FUNC_PROTO, 0, 4, INT, &[map, VOID_PTR, key, VOID_PTR, value, VOID_PTR, ctx, VOID_PTR]), MAP_CALLBACK_PROTO);
        w
    }

    fn string(&mut self, s: &str) -> u32 {
        let at = self.strings.len() as u32;
        self.strings.extend(s.as_bytes());
        self.strings.push(0);
        at
    }

    /// A type: name, info (kind, vlen), size or type, then what its kind appends.
    fn add(&mut self, kind: u32, name: u32, vlen: u32, size_or_type: u32, extra: &[u32]) -> u32 {
        self.types.extend(u32s(&[name, kind << 24 | vlen, size_or_type]));
        self.types.extend(u32s(extra));
        self.next_id += 1;
        self.next_id - 1
    }

    fn finish(self) -> Vec<u8> {
        let (types, strings) = (self.types.len() as u32, self.strings.len() as u32);
        let mut out = MAGIC.to_le_bytes().to_vec();
        out.extend([1, 0]);
        // header length; type section (offset, length); string section (offset, length).
        out.extend(u32s(&[24, 0, types, types, strings]));
        out.extend(self.types);
        out.extend(self.strings);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn lays_out_btf_and_func_info_as_the_kernel_reads_them() {
        let funcs = [
            FuncAt { section: "raw_tp/p", offset: 0, name: "p", kind: FuncKind::Program },
            FuncAt { section: ".text", offset: 0, name: "cb", kind: FuncKind::Loop },
        ];
        let (btf, ext) = describe(&funcs);
        assert_eq!(&btf[..4], &[0x9f, 0xeb, 1, 0]);
        let (types, strings) = (u32_at(&btf, 12), u32_at(&btf, 20));
        assert_eq!(btf.len(), 24 + types as usize + strings as usize);
        let strs = &btf[24 + types as usize..];
        let name = |off: u32| std::ffi::CStr::from_bytes_until_nul(&strs[off as usize..]).unwrap().to_str().unwrap().to_string();
        // Types 7 and 8: the two FUNCs, global then static, after six fixed types of 12,
        // 12 (+4 each for the INTs), 12, 12+8, 12+16 and 12+32 bytes.
        let func6 = 16 + 16 + 12 + 20 + 28 + 44;
        assert_eq!(name(u32_at(&btf, 24 + func6)), "p");
        assert_eq!(u32_at(&btf, 24 + func6 + 4), KIND_FUNC << 24 | LINKAGE_GLOBAL);
        assert_eq!(u32_at(&btf, 24 + func6 + 8), PROG_PROTO);
        assert_eq!(name(u32_at(&btf, 24 + func6 + 12)), "cb");
        assert_eq!(u32_at(&btf, 24 + func6 + 16), KIND_FUNC << 24 | LINKAGE_STATIC);
        // .BTF.ext: func_info after the 32-byte header, one section at a time.
        assert_eq!(u32_at(&ext, 4), 32);
        let info = &ext[32..];
        assert_eq!(u32_at(&ext, 12) as usize, info.len());
        assert_eq!(u32_at(info, 0), 8);
        assert_eq!(name(u32_at(info, 4)), "raw_tp/p");
        assert_eq!((u32_at(info, 8), u32_at(info, 12), u32_at(info, 16)), (1, 0, 7));
        assert_eq!(name(u32_at(info, 20)), ".text");
        assert_eq!((u32_at(info, 24), u32_at(info, 28), u32_at(info, 32)), (1, 0, 8));
    }
}
