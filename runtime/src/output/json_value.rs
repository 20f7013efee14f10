//! Values as JSON, for the structured outputs (JSON lines, Chrome trace): integers as
//! numbers (unsigned ones as unsigned), strings as strings, stacks as arrays of frames,
//! tuples and arrays as arrays, records as objects, bytes as hex strings, symbols as their
//! text. Written by hand: a few lines, and no serializer to build for the text path.

use super::Value;
use crumbs_lang::ir::IntRepr;
use std::fmt::Write as _;

/// `s` as a JSON string: quotes, backslashes and control characters escaped (the text is
/// UTF-8 already: a value's invalid bytes were replaced when it was decoded). The runs
/// between escapes are copied whole: every byte escaped is ASCII, so each run is whole
/// characters.
pub fn string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut run = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f | 0x7f => "",
            _ => continue,
        };
        out.push_str(&s[run..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{:04x}", b);
        } else {
            out.push_str(escape);
        }
        run = i + 1;
    }
    out.push_str(&s[run..]);
    out.push('"');
}

/// An integer of C type `r` in decimal (IntRepr::decimal's digits, written in place).
pub fn int(out: &mut String, n: i64, r: IntRepr) {
    let _ = if r.signed { write!(out, "{n}") } else { write!(out, "{}", r.unsigned(n)) };
}

/// Bytes as a JSON string of hex pairs.
fn hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.reserve(bytes.len() * 2 + 2);
    out.push('"');
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out.push('"');
}

/// A JSON string of `s`.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    string(&mut out, s);
    out
}

/// `v` as JSON.
pub fn value(out: &mut String, v: &Value) {
    match v {
        Value::Int(n, r) => int(out, *n, *r),
        Value::Str(s) => string(out, s),
        Value::Stack(frames, _) => array(out, frames.iter(), |out, f| string(out, f)),
        Value::Bytes(b) | Value::Buf(b) => hex(out, b),
        Value::Sym(_, text) => string(out, text),
        // Members by name, as bpftrace's JSON has a struct kept in a map.
        Value::Object(b, layout) => out.push_str(&super::bpftrace::structs::object_json(layout, b)),
        Value::Tuple(elems) | Value::Array(elems) => array(out, elems.iter(), value),
        Value::Record(fields) => {
            out.push('{');
            for (i, (name, v)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(out, name);
                out.push(':');
                value(out, v);
            }
            out.push('}');
        }
    }
}

/// `[a,b,...]` of `items`, each written by `each`.
pub fn array<T>(out: &mut String, items: impl Iterator<Item = T>, mut each: impl FnMut(&mut String, T)) {
    out.push('[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        each(out, item);
    }
    out.push(']');
}

/// `values` as a JSON array.
pub fn values(out: &mut String, values: &[Value]) {
    array(out, values.iter(), value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::ir::StackMode;

    fn json(v: &Value) -> String {
        let mut s = String::new();
        value(&mut s, v);
        s
    }

    /// Every ASCII character, alone and between others, escapes as JSON's rule says
    /// (`\uXXXX` for the control characters and DEL that have no short form).
    #[test]
    fn escapes_each_ascii_character_in_runs() {
        for b in 0u8..0x80 {
            let c = b as char;
            let want = match c {
                '"' => "\\\"".to_string(),
                '\\' => "\\\\".to_string(),
                '\n' => "\\n".to_string(),
                '\r' => "\\r".to_string(),
                '\t' => "\\t".to_string(),
                _ if b < 0x20 || b == 0x7f => format!("\\u{b:04x}"),
                c => c.to_string(),
            };
            let mut got = String::new();
            string(&mut got, &format!("é{c}ab{c}{c}✓"));
            assert_eq!(got, format!("\"é{want}ab{want}{want}✓\""), "byte {b:#x}");
        }
    }

    #[test]
    fn each_kind_of_value() {
        assert_eq!(json(&Value::long(-5)), "-5");
        assert_eq!(json(&Value::Int(-1, IntRepr::U64)), "18446744073709551615");
        assert_eq!(json(&Value::Int(-1, IntRepr { size: 4, signed: false })), "4294967295");
        assert_eq!(json(&Value::Str("a\"b\\c\nd\u{1}é".into())), r#""a\"b\\c\nd\u0001é""#);
        assert_eq!(json(&Value::Stack(vec!["f+0x1".into(), "g".into()], StackMode::default())), r#"["f+0x1","g"]"#);
        assert_eq!(json(&Value::Bytes(vec![0, 0xab])), r#""00ab""#);
        assert_eq!(json(&Value::Sym(0xffff, "vfs_read".into())), r#""vfs_read""#);
        assert_eq!(json(&Value::Tuple(vec![Value::long(1), Value::Str("x".into())])), r#"[1,"x"]"#);
        assert_eq!(json(&Value::Record(vec![("a".into(), Value::long(1)), ("b".into(), Value::Array(vec![]))])), r#"{"a":1,"b":[]}"#);
    }
}
