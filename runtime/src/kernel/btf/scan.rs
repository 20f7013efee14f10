//! Whether a module's BTF names a type or an enum constant, read from its raw bytes without
//! parsing them. A lookup that misses vmlinux asks every module in turn, and a name no module
//! has (a parenthesised variable the parser asks about, a misspelt type) would otherwise parse
//! them all with btf-rs (~10 ms per MiB: 0.6 s for all of Debian's 6.1 modules); this walk
//! over the type records costs a small fraction of that, and only a module that names the
//! thing is parsed.

/// What a name is looked for as.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum What {
    /// The name of one of the module's own types.
    Type,
    /// A constant of one of the module's own enums.
    Enumerator,
}

/// Whether split BTF `raw` has its own type (or enum constant) named `name`, or may have: BTF
/// this walk does not understand answers true, for btf-rs to decide. Its string offsets below
/// `base_str_len` are vmlinux's strings (libbpf names a module's things with those where
/// vmlinux has them), which `base_name` reads.
pub fn names(raw: &[u8], base_str_len: u32, name: &str, what: What, base_name: impl Fn(u32) -> Option<String>) -> bool {
    walk(raw, base_str_len, name, what, &base_name).unwrap_or(true)
}

/// The names of the functions BTF `raw` (vmlinux's, not split) defines: its FUNC records
/// other than extern declarations, read straight from the bytes (btf-rs has no index of
/// them, and decoding 60k records to learn their names costs what this walk does not).
/// None if the bytes are not BTF this walk understands.
pub fn function_names(raw: &[u8]) -> Option<Vec<String>> {
    split_function_names(raw, 0, &|_| None)
}

/// [`function_names`] of a module's split BTF, whose string offsets below `base_str_len` are
/// vmlinux's strings, read by `base_name` (as for [`names`]): listing a module's functions
/// this way costs a walk over its bytes, not a parse by btf-rs.
pub fn split_function_names(raw: &[u8], base_str_len: u32, base_name: &dyn Fn(u32) -> Option<String>) -> Option<Vec<String>> {
    const FUNC: u32 = 12;
    const EXTERN: usize = 2;
    names_of(raw, base_str_len, base_name, |kind, vlen, name| (kind == FUNC && vlen != EXTERN).then(|| String::from_utf8_lossy(name).into_owned()))
}

/// The raw tracepoints BTF `raw` (vmlinux's) describes: the EVENT of each `btf_trace_EVENT`
/// typedef, which the kernel keeps for every tracepoint a BPF program can attach to.
pub fn raw_tracepoint_names(raw: &[u8]) -> Option<Vec<String>> {
    const TYPEDEF: u32 = 8;
    names_of(raw, 0, &|_| None, |kind, _, name| if kind == TYPEDEF { name.strip_prefix(b"btf_trace_").map(|e| String::from_utf8_lossy(e).into_owned()) } else { None })
}

/// What `keep` makes of each type record (its kind, vlen and name); a name at an offset below
/// `base_str_len` is the base's, read by `base_name`.
fn names_of(raw: &[u8], base_str_len: u32, base_name: &dyn Fn(u32) -> Option<String>, keep: impl Fn(u32, usize, &[u8]) -> Option<String>) -> Option<Vec<String>> {
    let word = |at: usize| word(raw, at);
    let Sections { strings, types: (mut at, end) } = sections(raw)?;
    let mut out = Vec::new();
    while at < end {
        let (name_off, info) = (word(at)? as usize, word(at + 4)?);
        let (kind, vlen) = ((info >> 24) & 0x1f, (info & 0xffff) as usize);
        let (fixed, each) = body(kind)?;
        if name_off != 0 {
            match name_off.checked_sub(base_str_len as usize) {
                Some(own) => {
                    let name = strings.get(own..)?;
                    out.extend(keep(kind, vlen, &name[..name.iter().position(|&b| b == 0)?]));
                }
                None => out.extend(keep(kind, vlen, base_name(name_off as u32)?.as_bytes())),
            }
        }
        at += 12 + fixed + vlen * each;
    }
    (at == end).then_some(out)
}

/// The little-endian u32 at `at`, if the bytes are there.
fn word(raw: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(raw.get(at..at.checked_add(4)?)?.try_into().ok()?))
}

/// Where a BTF blob's strings and type records are.
struct Sections<'a> {
    strings: &'a [u8],
    /// The type records' start and end offsets in the blob.
    types: (usize, usize),
}

/// The sections of little-endian BTF version 1 (x86-64's); None for anything else.
fn sections(raw: &[u8]) -> Option<Sections<'_>> {
    if raw.get(..3)? != [0x9f, 0xeb, 1] {
        return None;
    }
    let word = |at: usize| word(raw, at).map(|w| w as usize);
    let hdr_len = word(4)?;
    let (type_off, type_len, str_off, str_len) = (word(8)?, word(12)?, word(16)?, word(20)?);
    let strings = raw.get(hdr_len.checked_add(str_off)?..hdr_len.checked_add(str_off)?.checked_add(str_len)?)?;
    let start = hdr_len.checked_add(type_off)?;
    Some(Sections { strings, types: (start, start.checked_add(type_len)?) })
}

const ENUM: u32 = 6;
const ENUM64: u32 = 19;

/// The bytes that follow a type record of `kind` (btf_type's 12 bytes): fixed, and per each
/// of its `vlen` entries (members, parameters, enumerators, section variables).
fn body(kind: u32) -> Option<(usize, usize)> {
    Some(match kind {
        // int, var, decl_tag
        1 | 14 | 17 => (4, 0),
        // ptr, fwd, typedef, volatile, const, restrict, func (its vlen is its linkage), float,
        // type_tag
        2 | 7..=12 | 16 | 18 => (0, 0),
        // array
        3 => (12, 0),
        // struct, union, datasec, enum64
        4 | 5 | 15 | ENUM64 => (0, 12),
        // enum, func_proto
        ENUM | 13 => (0, 8),
        _ => return None,
    })
}

fn walk(raw: &[u8], base_str_len: u32, name: &str, what: What, base_name: &dyn Fn(u32) -> Option<String>) -> Option<bool> {
    let word = |at: usize| word(raw, at);
    // Little-endian BTF, version 1 (x86-64's); anything else is left to btf-rs.
    let Sections { strings, types: (mut at, end) } = sections(raw)?;
    let is_name = |off: u32| match off.checked_sub(base_str_len) {
        Some(own) => strings.get(own as usize..).is_some_and(|s| s.starts_with(name.as_bytes()) && s.get(name.len()) == Some(&0)),
        None => off != 0 && base_name(off).is_some_and(|s| s == name),
    };
    while at < end {
        let (name_off, info) = (word(at)?, word(at + 4)?);
        let (kind, vlen) = ((info >> 24) & 0x1f, (info & 0xffff) as usize);
        let (fixed, each) = body(kind)?;
        let entries = at + 12 + fixed;
        match what {
            What::Type if name_off != 0 && is_name(name_off) => return Some(true),
            What::Enumerator if kind == ENUM || kind == ENUM64 => {
                for i in 0..vlen {
                    if is_name(word(entries + i * each)?) {
                        return Some(true);
                    }
                }
            }
            _ => {}
        }
        at = entries + vlen * each;
    }
    (at == end).then_some(false)
}

#[cfg(test)]
mod tests;
