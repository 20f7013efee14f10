//! Current bpftrace's text of a record (`output/text.cpp` of a `Record` as
//! `types_format.cpp` builds it), for `print(args)` at a tracepoint: `{ .name = value, ... }`
//! with each field as bpftrace formats its type: an integer in decimal as its size and sign
//! say, a pointer as `0x` and hex, a `char` array as the string it holds (with bpftrace's
//! trailer `..` when no NUL ends it), another array as `[1,2,3]`.

use crate::output::print::le_word as word;
use super::super::Value;
use super::records::string;
use crumbs_lang::ir::layout::{Layout, MemberLayout, Shape};

/// The trailer current bpftrace adds to a string that fills its array (`str_trunc_trailer`).
const TRUNC_TRAILER: &str = "..";

/// The record `members` of the bytes recorded, as bpftrace prints it (no newline).
pub fn record_text(members: &[MemberLayout], bytes: &[u8]) -> String {
    if members.is_empty() {
        return "{}".into();
    }
    let fields: Vec<String> = members.iter().map(|m| format!(".{} = {}", m.name, value(&m.layout, bytes, (m.bit_offset / 8) as usize))).collect();
    format!("{{ {} }}", fields.join(", "))
}

/// `print(args)` of the value recorded, as current bpftrace's JSON writes a record: an
/// object of its fields (`{"a": 1, "p": 140737488355328, "s": "cat", "v": [1,2]}`), a
/// pointer as its number, a number a double cannot hold exactly as a string. `None` for
/// a layout that is not an `args` record.
pub fn json(layout: &Layout, value: &Value) -> Option<String> {
    let (Shape::ProbeArgs { members }, Value::Bytes(bytes)) = (&layout.shape, value) else { return None };
    Some(record_json(members, bytes))
}

fn record_json(members: &[MemberLayout], bytes: &[u8]) -> String {
    let fields: Vec<String> = members.iter().map(|m| format!("{}: {}", string(&m.name), json_value(&m.layout, bytes, (m.bit_offset / 8) as usize))).collect();
    format!("{{{}}}", fields.join(", "))
}

/// A number as bpftrace's JSON writes it: as a string when a double does not hold it.
fn number(v: i128) -> String {
    if (v as f64) as i128 == v {
        v.to_string()
    } else {
        format!("\"{v}\"")
    }
}

fn json_value(l: &Layout, bytes: &[u8], at: usize) -> String {
    match &l.shape {
        Shape::Int { size, signed, .. } => {
            let raw = word(bytes, at, *size as usize);
            let shift = 64 - 8 * (*size as u32).min(8);
            number(match signed {
                true if shift > 0 => (((raw << shift) as i64) >> shift) as i128,
                true => raw as i64 as i128,
                false => raw as i128,
            })
        }
        Shape::Ptr => number(word(bytes, at, 8) as i128),
        Shape::Array { elem, .. } if matches!(elem.shape, Shape::Int { size: 1, char: true, .. }) => string(&value(l, bytes, at)),
        Shape::Array { elem, elem_size, len } => {
            let elems: Vec<String> = (0..*len as usize).map(|i| json_value(elem, bytes, at + i * *elem_size as usize)).collect();
            format!("[{}]", elems.join(","))
        }
        Shape::Record { members } | Shape::ProbeArgs { members } => record_json(members, bytes.get(at..).unwrap_or_default()),
        // A bool as JSON's literal, another enum as its number.
        Shape::Enum { size, values } => {
            let v = word(bytes, at, *size as usize) as i64;
            match values.iter().find(|(_, x)| *x == v) {
                Some((n, _)) if n == "true" || n == "false" => n.clone(),
                _ => number(v as i128),
            }
        }
        _ => string(&value(l, bytes, at)),
    }
}


fn value(l: &Layout, bytes: &[u8], at: usize) -> String {
    match &l.shape {
        Shape::Int { size, signed, .. } => {
            let raw = word(bytes, at, *size as usize);
            let shift = 64 - 8 * (*size as u32).min(8);
            match signed {
                true if shift > 0 => (((raw << shift) as i64) >> shift).to_string(),
                true => (raw as i64).to_string(),
                false => raw.to_string(),
            }
        }
        Shape::Ptr => format!("0x{:x}", word(bytes, at, 8)),
        Shape::Array { elem, len, .. } if matches!(elem.shape, Shape::Int { size: 1, char: true, .. }) => {
            let len = *len as usize;
            let raw: Vec<u8> = (0..len).map(|i| *bytes.get(at + i).unwrap_or(&0)).collect();
            let end = raw.iter().position(|b| *b == 0).unwrap_or(len);
            let mut s = String::from_utf8_lossy(&raw[..end]).into_owned();
            if end == len {
                s.push_str(TRUNC_TRAILER);
            }
            s
        }
        Shape::Array { elem, elem_size, len } => {
            let elems: Vec<String> = (0..*len as usize).map(|i| value(elem, bytes, at + i * *elem_size as usize)).collect();
            format!("[{}]", elems.join(","))
        }
        Shape::Record { members } | Shape::ProbeArgs { members } => {
            record_text(members, bytes.get(at..).unwrap_or_default())
        }
        // By its constant's name (a bool's `true` or `false`), else the number.
        Shape::Enum { size, values } => {
            let v = word(bytes, at, *size as usize) as i64;
            match values.iter().find(|(_, x)| *x == v) {
                Some((n, _)) => n.clone(),
                None => v.to_string(),
            }
        }
        Shape::Float { .. } | Shape::Opaque => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(name: &str, offset: u32, shape: Shape) -> MemberLayout {
        MemberLayout { name: name.into(), bit_offset: offset * 8, bits: 0, layout: Layout { name: String::new(), shape } }
    }

    fn int(size: u8, signed: bool) -> Shape {
        Shape::Int { size, signed, char: false }
    }

    #[test]
    fn fields_as_bpftrace_formats_them() {
        let chars = |len| Shape::Array { elem: Box::new(Layout { name: "char".into(), shape: Shape::Int { size: 1, signed: true, char: true } }), elem_size: 1, len };
        let members = [
            member("common_type", 0, int(2, false)),
            member("common_pid", 4, int(4, true)),
            member("dfd", 8, int(8, false)),
            member("filename", 16, Shape::Ptr),
            member("comm", 24, chars(4)),
            member("full", 28, chars(2)),
            member("args", 30, Shape::Array { elem: Box::new(Layout { name: String::new(), shape: int(1, false) }), elem_size: 1, len: 3 }),
            member("preempt", 33, Shape::Enum { size: 1, values: vec![("false".into(), 0), ("true".into(), 1)] }),
        ];
        let mut b = vec![0u8; 34];
        b[33] = 1;
        b[0..2].copy_from_slice(&300u16.to_le_bytes());
        b[4..8].copy_from_slice(&(-7i32).to_le_bytes());
        b[8..16].copy_from_slice(&(-100i64).to_le_bytes());
        b[16..24].copy_from_slice(&0x7ffc_1234u64.to_le_bytes());
        b[24..27].copy_from_slice(b"cat");
        b[28..30].copy_from_slice(b"ab");
        b[30..33].copy_from_slice(&[1, 2, 255]);
        assert_eq!(record_text(&members, &b), "{ .common_type = 300, .common_pid = -7, .dfd = 18446744073709551516, .filename = 0x7ffc1234, .comm = cat, .full = ab.., .args = [1,2,255], .preempt = true }");
        assert_eq!(record_text(&[], &b), "{}");
        let layout = Layout { name: String::new(), shape: Shape::ProbeArgs { members: members.to_vec() } };
        let want = r#"{"common_type": 300, "common_pid": -7, "dfd": "18446744073709551516", "filename": 2147226164, "comm": "cat", "full": "ab..", "args": [1,2,255], "preempt": true}"#;
        assert_eq!(json(&layout, &Value::Bytes(b)).as_deref(), Some(want));
    }
}
