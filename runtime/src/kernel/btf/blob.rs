//! BTF written by hand for tests, as pahole writes it (this machine has no module BTF).

use btf_rs::Btf;

/// BTF as pahole writes it: a header, the types, the strings. A split blob's type ids and
/// string offsets continue after its base's, and it names things with its base's strings
/// where the base has them (libbpf's btf__add_str).
pub struct Blob {
    types: Vec<u32>,
    strings: Vec<u8>,
    base_strings: Vec<u8>,
}

pub const INT: u32 = 1;
pub const PTR: u32 = 2;
pub const STRUCT: u32 = 4;
pub const ENUM: u32 = 6;
pub const FWD: u32 = 7;
pub const TYPEDEF: u32 = 8;

impl Blob {
    pub fn base() -> Blob {
        Blob { types: Vec::new(), strings: vec![0], base_strings: Vec::new() }
    }

    pub fn split(base: &Blob) -> Blob {
        Blob { types: Vec::new(), strings: vec![0], base_strings: base.strings.clone() }
    }

    /// The offset of string `s`, added if neither this blob nor its base has it.
    pub fn str(&mut self, s: &str) -> u32 {
        if s.is_empty() {
            return 0;
        }
        let base_len = self.base_strings.len() as u32;
        if let Some(off) = find(&self.base_strings, s) {
            return off;
        }
        if let Some(off) = find(&self.strings, s) {
            return base_len + off;
        }
        let off = base_len + self.strings.len() as u32;
        self.strings.extend_from_slice(s.as_bytes());
        self.strings.push(0);
        off
    }

    /// A type: name, kind, vlen, size or type, then the kind's own words.
    pub fn ty(&mut self, name: &str, kind: u32, vlen: u32, size_or_type: u32, rest: &[u32]) {
        let name = self.str(name);
        self.types.extend([name, kind << 24 | vlen, size_or_type]);
        self.types.extend_from_slice(rest);
    }

    pub fn strukt(&mut self, name: &str, size: u32, members: &[(&str, u32, u32)]) {
        let mut rest = Vec::new();
        for (n, ty, bit_offset) in members {
            rest.extend([self.str(n), *ty, *bit_offset]);
        }
        self.ty(name, STRUCT, members.len() as u32, size, &rest);
    }

    pub fn bytes(&self) -> Vec<u8> {
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

/// The offset of `s` in a string section.
fn find(strings: &[u8], s: &str) -> Option<u32> {
    let mut at = 0;
    for t in strings.split(|&b| b == 0) {
        if t == s.as_bytes() {
            return Some(at);
        }
        at += t.len() as u32 + 1;
    }
    None
}

pub struct Fixture {
    pub vmlinux: Btf,
    pub bbr: Btf,
    pub other: Btf,
    /// The modules' files, and the length of vmlinux's strings their offsets continue after.
    pub bbr_raw: Vec<u8>,
    pub other_raw: Vec<u8>,
    pub base_str_len: u32,
}

/// vmlinux: 1 unsigned int, 2 u32, 3 struct minmax { u32 v; }, 4 a declaration of struct bbr.
/// Module 1 (bbr): 5 struct bbr, 6 struct bbr *, 7 enum bbr_mode.
/// Module 2 (other): 5 struct other, 6 u32 *, 7 typedef u32 *v.
/// "bbr" and "v" are vmlinux's strings, which the modules name their types with.
pub fn fixture() -> Fixture {
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
    other.ty("v", TYPEDEF, 0, 6, &[]);
    let vmlinux = Btf::from_bytes(&base.bytes()).expect("base parses");
    let (bbr_raw, other_raw) = (bbr.bytes(), other.bytes());
    let bbr = Btf::from_split_bytes(&bbr_raw, &vmlinux).expect("bbr parses");
    let other = Btf::from_split_bytes(&other_raw, &vmlinux).expect("other parses");
    Fixture { vmlinux, bbr, other, bbr_raw, other_raw, base_str_len: base.strings.len() as u32 }
}
