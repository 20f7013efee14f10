//! bpftrace 0.17's text and JSON of `print()` of a struct, union or array copied whole
//! (`print(*curtask->cred)`, `print($s)`, `print(curtask->pid_links)`), checked against
//! the real 0.17: `{ .a = 1, .b = { .c = 2 } }` (JSON `{ "a": 1, "b": { "c": 2 } }`), an
//! array as `[1,2]` (no spaces), a `char` array as the string it holds, a pointer (a
//! function's too) and an enum as a signed or plain number (0.17 prints a pointer as a
//! signed 64-bit number), and an anonymous struct's or union's members as members of the
//! struct holding it.

use crate::output::print::le_word as word;
use super::super::Value;
use super::records::string;
use crumbs_lang::ir::layout::{Layout, MemberLayout, Shape};

/// A printed value, before it is written as text or JSON.
enum Printed {
    /// An integer's bits, its width in bits (a bitfield's own) and whether its type is
    /// signed, and its type's width: a map's key prints every integer member as a signed
    /// number of its type's width, a value as its type says.
    Int { raw: u64, width: u32, signed: bool, type_width: u32 },
    /// A member crumbs cannot print (a float: current bpftrace has no float type and
    /// prints such a member, one of no type, as `null`).
    Null,
    /// A pointer: a signed number in a value, `0x...` in a key.
    Pointer(u64),
    Text(String),
    List(Vec<Printed>),
    Fields(Vec<(String, Printed)>),
}

/// The text of `print()` of a struct, union or array as 0.17 writes it (no newline);
/// `None` for another layout or value.
pub fn text(layout: &Layout, value: &Value) -> Option<String> {
    printed(layout, value).map(|p| write_text(&p))
}

/// The JSON of the same (the data of a `value` record); `None` as [`text`].
pub fn json(layout: &Layout, value: &Value) -> Option<String> {
    printed(layout, value).map(|p| write_json(&p))
}

/// A struct, union or array kept in a map ([`Value::Object`]) as 0.17 prints a map's
/// value: as print() prints it (`{ .a = 1 }`); its bytes as hex pairs if the layout is of
/// something else.
pub fn object_text(layout: &Layout, bytes: &[u8]) -> String {
    object(layout, bytes).map_or_else(|| Value::bytes_text(bytes), |p| write_text(&p))
}

/// The JSON of the same (`{ "a": 1 }`); a string of hex pairs if the layout is of
/// something else.
pub fn object_json(layout: &Layout, bytes: &[u8]) -> String {
    object(layout, bytes).map_or_else(|| string(&Value::bytes_text(bytes)), |p| write_json(&p))
}

/// The same as a map's key, as 0.17 prints one: without spaces, a pointer in hex
/// (`{.a=1,.p=0xffff888100235000,.v=[1,2]}`).
pub fn key_text(layout: &Layout, bytes: &[u8]) -> String {
    object(layout, bytes).map_or_else(|| Value::bytes_text(bytes), |p| write_key(&p))
}

fn printed(layout: &Layout, value: &Value) -> Option<Printed> {
    match value {
        Value::Bytes(bytes) | Value::Object(bytes, _) => object(layout, bytes),
        _ => None,
    }
}

fn object(layout: &Layout, bytes: &[u8]) -> Option<Printed> {
    match &layout.shape {
        Shape::Record { .. } | Shape::Array { .. } => Some(read(layout, bytes, 0, 0)),
        _ => None,
    }
}

/// The value of layout `l` at bit `at` of `bytes` (`bits` wide if a bitfield, else 0).
fn read(l: &Layout, bytes: &[u8], at: u64, bits: u32) -> Printed {
    let byte = (at / 8) as usize;
    match &l.shape {
        Shape::Int { size, signed, .. } => integer(bytes, at, *size, *signed, bits),
        // An enum as its number, as 0.17 prints it.
        Shape::Enum { size, .. } => integer(bytes, at, *size, true, bits),
        Shape::Ptr => Printed::Pointer(word(bytes, byte, 8)),
        Shape::Array { elem, len, .. } if matches!(elem.shape, Shape::Int { size: 1, char: true, .. }) => {
            let raw: Vec<u8> = (0..*len as usize).map(|i| *bytes.get(byte + i).unwrap_or(&0)).collect();
            let end = raw.iter().position(|b| *b == 0).unwrap_or(raw.len());
            Printed::Text(String::from_utf8_lossy(&raw[..end]).into_owned())
        }
        Shape::Array { elem, elem_size, len } => Printed::List((0..*len as u64).map(|i| read(elem, bytes, at + i * *elem_size as u64 * 8, 0)).collect()),
        Shape::Record { members } | Shape::ProbeArgs { members } => {
            let mut fields = Vec::new();
            collect(members, bytes, at, &mut fields);
            Printed::Fields(fields)
        }
        Shape::Float { .. } => Printed::Null,
        Shape::Opaque => Printed::Int { raw: 0, width: 64, signed: true, type_width: 64 },
    }
}

/// The fields of `members` of the struct at bit `at`, an anonymous struct's or union's
/// members in its place.
fn collect(members: &[MemberLayout], bytes: &[u8], at: u64, fields: &mut Vec<(String, Printed)>) {
    for m in members {
        let here = at + m.bit_offset as u64;
        match &m.layout.shape {
            Shape::Record { members: inner } if m.name.is_empty() => collect(inner, bytes, here, fields),
            _ => fields.push((m.name.clone(), read(&m.layout, bytes, here, m.bits))),
        }
    }
}

/// An integer of `size` bytes at bit `at` (a bitfield of `bits` bits when not 0).
fn integer(bytes: &[u8], at: u64, size: u8, signed: bool, bits: u32) -> Printed {
    let (raw, width) = match bits {
        0 => (word(bytes, (at / 8) as usize, size as usize), 8 * (size as u32).min(8)),
        b => {
            let first = (at / 8) as usize;
            let shift = (at % 8) as u32;
            let wide = (0..9usize).rev().fold(0u128, |v, i| v << 8 | *bytes.get(first + i).unwrap_or(&0) as u128);
            (((wide >> shift) & ((1u128 << b.min(64)) - 1)) as u64, b.min(64))
        }
    };
    Printed::Int { raw, width, signed, type_width: 8 * (size as u32).min(8) }
}

/// `raw`'s low `width` bits as 64 bits, sign-extended if `signed`.
fn widen(raw: u64, width: u32, signed: bool) -> u64 {
    let shift = 64 - width;
    match signed {
        true if shift > 0 => (((raw << shift) as i64) >> shift) as u64,
        _ => raw,
    }
}

/// An integer's text: `raw`'s low `width` bits, signed or not.
fn int_text(raw: u64, width: u32, signed: bool) -> String {
    match signed {
        true => (widen(raw, width, true) as i64).to_string(),
        false => raw.to_string(),
    }
}


fn write_text(p: &Printed) -> String {
    match p {
        Printed::Int { raw, width, signed, .. } => int_text(*raw, *width, *signed),
        Printed::Null => "null".into(),
        Printed::Text(s) => s.clone(),
        // 0.17 prints a pointer member as a signed 64-bit number.
        Printed::Pointer(p) => (*p as i64).to_string(),
        Printed::List(items) => format!("[{}]", items.iter().map(write_text).collect::<Vec<_>>().join(",")),
        Printed::Fields(f) if f.is_empty() => "{}".into(),
        Printed::Fields(f) => format!("{{ {} }}", f.iter().map(|(n, v)| format!(".{n} = {}", write_text(v))).collect::<Vec<_>>().join(", ")),
    }
}

fn write_json(p: &Printed) -> String {
    match p {
        Printed::Int { raw, width, signed, .. } => int_text(*raw, *width, *signed),
        Printed::Null => "null".into(),
        Printed::Pointer(p) => (*p as i64).to_string(),
        Printed::Text(s) => string(s),
        Printed::List(items) => format!("[{}]", items.iter().map(write_json).collect::<Vec<_>>().join(",")),
        Printed::Fields(f) if f.is_empty() => "{}".into(),
        Printed::Fields(f) => format!("{{ {} }}", f.iter().map(|(n, v)| format!("{}: {}", string(n), write_json(v))).collect::<Vec<_>>().join(", ")),
    }
}

fn write_key(p: &Printed) -> String {
    match p {
        // 0.17 prints a key's integer members as signed, whatever their type.
        Printed::Int { raw, width, signed, type_width } => {
            // The value as its type has it (a bitfield's bits widened by its sign), then
            // read as a signed number of its type's width.
            int_text(widen(*raw, *width, *signed), *type_width, true)
        }
        Printed::Null => "null".into(),
        Printed::Text(s) => s.clone(),
        Printed::Pointer(p) => format!("{p:#x}"),
        Printed::List(items) => format!("[{}]", items.iter().map(write_key).collect::<Vec<_>>().join(",")),
        Printed::Fields(f) => format!("{{{}}}", f.iter().map(|(n, v)| format!(".{n}={}", write_key(v))).collect::<Vec<_>>().join(",")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(shape: Shape) -> Layout {
        Layout { name: String::new(), shape }
    }

    fn member(name: &str, bit_offset: u32, bits: u32, shape: Shape) -> MemberLayout {
        MemberLayout { name: name.into(), bit_offset, bits, layout: layout(shape) }
    }

    fn int(size: u8, signed: bool) -> Shape {
        Shape::Int { size, signed, char: false }
    }

    /// A struct with a nested struct, an anonymous union, a pointer, a char array, an int
    /// array and bitfields, as 0.17 writes such a struct (`print(*curtask->cred)`'s form).
    #[test]
    fn a_struct_prints_as_0_17_prints_it() {
        let chars = Shape::Array { elem: Box::new(layout(Shape::Int { size: 1, signed: true, char: true })), elem_size: 1, len: 4 };
        let inner = Shape::Record { members: vec![member("val", 0, 0, int(4, false))] };
        let anon = Shape::Record { members: vec![member("non_rcu", 0, 0, int(4, true)), member("rcu", 0, 0, Shape::Ptr)] };
        let members = vec![
            member("uid", 0, 0, inner),
            member("p", 64, 0, Shape::Ptr),
            member("name", 128, 0, chars),
            member("v", 160, 0, Shape::Array { elem: Box::new(layout(int(2, true))), elem_size: 2, len: 2 }),
            member("lo", 192, 3, int(4, false)),
            member("hi", 195, 5, int(4, true)),
            member("", 256, 0, anon),
        ];
        let mut b = vec![0u8; 40];
        b[0..4].copy_from_slice(&7u32.to_le_bytes());
        b[8..16].copy_from_slice(&0xffff_8881_0308_90c0u64.to_le_bytes());
        b[16..19].copy_from_slice(b"cat");
        b[20..22].copy_from_slice(&(-2i16).to_le_bytes());
        b[22..24].copy_from_slice(&3i16.to_le_bytes());
        b[24] = 5 | (0b11111 << 3);
        b[32..36].copy_from_slice(&(-1i32).to_le_bytes());
        let l = layout(Shape::Record { members });
        let v = Value::Bytes(b);
        assert_eq!(
            text(&l, &v).as_deref(),
            Some("{ .uid = { .val = 7 }, .p = -131387293658944, .name = cat, .v = [-2,3], .lo = 5, .hi = -1, .non_rcu = -1, .rcu = 4294967295 }")
        );
        assert_eq!(
            json(&l, &v).as_deref(),
            Some(r#"{ "uid": { "val": 7 }, "p": -131387293658944, "name": "cat", "v": [-2,3], "lo": 5, "hi": -1, "non_rcu": -1, "rcu": 4294967295 }"#)
        );
        assert_eq!(text(&layout(int(4, true)), &v), None);
        // As a map's key: no spaces, pointers in hex, every integer signed.
        assert_eq!(
            key_text(&l, match &v { Value::Bytes(b) => b, _ => unreachable!() }),
            "{.uid={.val=7},.p=0xffff8881030890c0,.name=cat,.v=[-2,3],.lo=5,.hi=-1,.non_rcu=-1,.rcu=0xffffffff}"
        );
    }

    /// A float member prints as `null` (current bpftrace's member of no type), not as a
    /// number crumbs did not read.
    #[test]
    fn a_float_member_prints_null() {
        let l = layout(Shape::Record { members: vec![member("f", 0, 0, Shape::Float { size: 4 }), member("d", 64, 0, Shape::Float { size: 8 }), member("n", 128, 0, int(4, true))] });
        let mut b = vec![0u8; 24];
        b[0..4].copy_from_slice(&1.5f32.to_le_bytes());
        b[8..16].copy_from_slice(&(-2.25f64).to_le_bytes());
        b[16..20].copy_from_slice(&7i32.to_le_bytes());
        assert_eq!(object_text(&l, &b), "{ .f = null, .d = null, .n = 7 }");
        assert_eq!(object_json(&l, &b), r#"{ "f": null, "d": null, "n": 7 }"#);
    }
}
