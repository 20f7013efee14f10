//! Values as JSON, for the structured outputs (JSON lines, Chrome trace): integers as
//! numbers (unsigned ones as unsigned), strings as strings, stacks as arrays of frames,
//! tuples and arrays as arrays, records as objects, bytes as hex strings, symbols as their
//! text. Written by hand: a few lines, and no serializer to build for the text path.

use super::Value;
use std::fmt::Write as _;

/// `s` as a JSON string: quotes, backslashes and control characters escaped (the text is
/// UTF-8 already: a value's invalid bytes were replaced when it was decoded).
pub fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
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
        Value::Int(n, r) => out.push_str(&r.decimal(*n)),
        Value::Str(s) => string(out, s),
        Value::Stack(frames, _) => array(out, frames.iter(), |out, f| string(out, f)),
        Value::Bytes(b) | Value::Buf(b) => string(out, &b.iter().map(|b| format!("{b:02x}")).collect::<String>()),
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
pub fn array<T>(out: &mut String, items: impl Iterator<Item = T>, each: impl Fn(&mut String, T)) {
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
    use crumbs_lang::ir::{IntRepr, StackMode};

    fn json(v: &Value) -> String {
        let mut s = String::new();
        value(&mut s, v);
        s
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
