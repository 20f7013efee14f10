//! A map's keys as bpftrace 0.17 prints and orders them.
//!
//! bpftrace widens every integer key to 64 bits when it stores it (signed types by sign,
//! unsigned ones by zeros) and prints the stored key as a *signed* 64-bit number, whatever
//! its type: `@a[(uint64)-1]` prints `@a[-1]`, `@a[(uint32)4294967295]` prints
//! `@a[4294967295]`. A string key prints as it is; a kernel stack as a newline and one
//! frame a line, indented by 4; a symbol as its name. Several keys print as `[a, b]`.
//!
//! Two orders are used (see `maps`): *by key* (`BPFtrace::sort_by_key()`: first key first,
//! integers as unsigned 64-bit numbers, strings bytewise, other kinds not compared), and
//! *by stored bytes* (the order of a `std::map` of raw keys, which breaks ties of hist,
//! lhist, avg and stats maps: integers by their little-endian bytes, so 256 before 1 and
//! -1 last).

use super::super::Value;
use crumbs_lang::ir::StackMode;
use std::cmp::Ordering;

/// The 64-bit number bpftrace stores for an integer key or value of type `r`.
pub fn widened(n: i64, r: crumbs_lang::ir::IntRepr) -> i64 {
    if r.size >= 8 {
        n
    } else if r.signed {
        let shift = 64 - 8 * r.size as u32;
        (n << shift) >> shift
    } else {
        r.unsigned(n) as i64
    }
}

/// One key as bpftrace prints it inside the brackets.
pub fn key_text(key: &Value) -> String {
    match key {
        Value::Int(n, r) => widened(*n, *r).to_string(),
        Value::Str(s) => s.clone(),
        Value::Stack(frames, mode) => stack_text(frames, *mode, 4),
        Value::Sym(_, text) => symbol(text),
        Value::Bytes(b) => Value::bytes_text(b),
        Value::Object(b, layout) => super::structs::key_text(layout, b),
        Value::Tuple(elems) => tuple_text(elems, &key_text),
        Value::Record(fields) => record_text(fields, &key_text),
        Value::Buf(b) => crate::output::buffer::text(b, None),
        Value::Array(a) => Value::array_text(a),
    }
}

/// A record as current bpftrace prints it (its text output's record): `{ .a = 1, .b = x }`,
/// each field as `text` writes it (strings unquoted, as in a tuple).
pub fn record_text(fields: &[(String, Value)], text: &dyn Fn(&Value) -> String) -> String {
    if fields.is_empty() {
        return "{}".into();
    }
    format!("{{ {} }}", fields.iter().map(|(n, v)| format!(".{n} = {}", text(v))).collect::<Vec<_>>().join(", "))
}

/// A tuple as bpftrace prints it: `(1, text, (2, 3))`, each element as `text` writes it.
pub fn tuple_text(elems: &[Value], text: &dyn Fn(&Value) -> String) -> String {
    format!("({})", elems.iter().map(text).collect::<Vec<_>>().join(", "))
}

/// `@name` and its keys: `@name` with none, `@name[a, b]` with some. `name` is without
/// the `@` (`""` for the map `@`).
pub fn map_key(name: &str, keys: &[Value]) -> String {
    let mut s = format!("@{name}");
    if !keys.is_empty() {
        s.push('[');
        s.push_str(&keys.iter().map(key_text).collect::<Vec<_>>().join(", "));
        s.push(']');
    }
    s
}

/// `BPFtrace::sort_by_key()`'s order: position by position, integers as unsigned 64-bit
/// numbers, strings bytewise; keys of other kinds compare equal (bpftrace leaves them in
/// the order it read them).
pub fn by_key(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (Value::Int(x, rx), Value::Int(y, ry)) => (widened(*x, *rx) as u64).cmp(&(widened(*y, *ry) as u64)),
            (Value::Str(x), Value::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
            _ => Ordering::Equal,
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// The order of the stored key bytes: integers by their little-endian bytes, strings
/// bytewise (they are stored NUL-padded, so a prefix comes first), symbols by their
/// address's little-endian bytes; stacks (stored as ids crumbs does not have) equal.
pub fn by_bytes(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (Value::Int(x, rx), Value::Int(y, ry)) => widened(*x, *rx).to_le_bytes().cmp(&widened(*y, *ry).to_le_bytes()),
            (Value::Str(x), Value::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
            (Value::Sym(x, _), Value::Sym(y, _)) => x.to_le_bytes().cmp(&y.to_le_bytes()),
            (Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
            (Value::Array(x), Value::Array(y)) => by_bytes(x, y),
            // As stored: the count's little-endian bytes, then the bytes.
            (Value::Buf(x), Value::Buf(y)) => (x.len() as u64).to_le_bytes().cmp(&(y.len() as u64).to_le_bytes()).then_with(|| x.cmp(y)),
            _ => Ordering::Equal,
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// A kernel stack frame as bpftrace prints it, `function+offset` in decimal, from the form
/// crumbs symbolizes DTrace's in (`` module`function+0xoffset ``, `` module`function ``
/// at a function's first byte); an address outside every symbol, or a `<...>` line saying
/// why a stack has no frames, as it is.
///
/// A frame without a module is taken as bpftrace's form already and kept.
pub fn frame(dtrace: &str) -> String {
    let Some((_, symbol)) = dtrace.split_once('`') else {
        // An address outside every symbol, a line saying why there are no frames, or
        // bpftrace's form.
        return dtrace.to_string();
    };
    // A user frame in a module where no symbol covers it (`` module`0xaddr ``): the
    // address alone, as bpftrace prints it.
    if symbol.starts_with("0x") {
        return symbol.to_string();
    }
    match symbol.rsplit_once("+0x") {
        Some((name, hex)) => match u64::from_str_radix(hex, 16) {
            Ok(off) => format!("{name}+{off}"),
            Err(_) => symbol.to_string(),
        },
        None => format!("{symbol}+0"),
    }
}

/// A stack as bpftrace prints it in `mode`: a newline, then a frame a line; in its own mode
/// `function+offset` indented by `indent` (4 as a key, 8 as a value or in printf()), in
/// perf's a tab before each frame (its address and symbol), raw addresses as they are.
pub fn stack_text(frames: &[String], mode: StackMode, indent: usize) -> String {
    match mode {
        StackMode::Bpftrace => Value::stack_with(frames, indent, &frame),
        StackMode::Perf => Value::stack_with(frames, 0, &|f| format!("\t{f}")),
        StackMode::Raw | StackMode::BuildId => Value::stack_with(frames, 0, &|f| f.to_string()),
    }
}

/// ksym()'s symbol as bpftrace prints it: the function's name alone, from crumbs' DTrace
/// form (`` module`function+0xoffset ``); anything else as it is.
pub fn symbol(dtrace: &str) -> String {
    match dtrace.split_once('`') {
        Some((_, s)) => s.rsplit_once("+0x").map_or(s, |(name, _)| name).to_string(),
        None => dtrace.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::ir::IntRepr;

    #[test]
    fn integer_keys_print_as_stored_signed_64_bit_numbers() {
        // bpftrace 0.17: BEGIN { @a[(uint64)-1] = "x"; @a[(uint32)4294967295] = "y";
        //   @a[3] = "z"; @a[-5] = "w"; exit(); } prints @a[3], @a[4294967295], @a[-5], @a[-1].
        assert_eq!(map_key("a", &[Value::Int(-1, IntRepr::U64)]), "@a[-1]");
        assert_eq!(map_key("a", &[Value::Int(-1, IntRepr { size: 4, signed: false })]), "@a[4294967295]");
        assert_eq!(map_key("a", &[Value::Int(-1, IntRepr::I32)]), "@a[-1]");
        // BEGIN { @u8[(uint8)200]=1; @i16[(int16)-3]=1; exit(); }
        assert_eq!(map_key("u8", &[Value::Int(200, IntRepr { size: 1, signed: false })]), "@u8[200]");
        assert_eq!(map_key("i16", &[Value::Int(-3, IntRepr { size: 2, signed: true })]), "@i16[-3]");
        let mut keys = [-5i64, -1, 3, 4294967295].map(Value::long);
        keys.sort_by(|a, b| by_key(std::slice::from_ref(a), std::slice::from_ref(b)));
        assert_eq!(keys.map(|k| key_text(&k)), ["3", "4294967295", "-5", "-1"]);
    }

    #[test]
    fn several_keys_and_the_unnamed_map() {
        // BEGIN { @m[1, "a"] = count(); @=count(); exit(); } prints @m[1, a]: 1 and @: 1.
        assert_eq!(map_key("m", &[Value::long(1), Value::Str("a".into())]), "@m[1, a]");
        assert_eq!(map_key("", &[]), "@");
        assert_eq!(map_key("", &[Value::long(1)]), "@[1]");
    }

    #[test]
    fn a_stack_key_has_a_frame_a_line_indented_by_4() {
        // tracepoint:sched:sched_switch { @x[kstack(2), 5] = 3; exit(); } printed
        // "@x[\n    __schedule+1560\n    schedule+35\n, 5]: 3".
        let stack = Value::Stack(vec!["__schedule+1560".into(), "schedule+35".into()], crumbs_lang::ir::StackMode::Bpftrace);
        assert_eq!(map_key("x", &[stack, Value::long(5)]), "@x[\n    __schedule+1560\n    schedule+35\n, 5]");
    }

    #[test]
    fn stored_byte_order_is_little_endian() {
        // BEGIN { @h[1]=hist(1); @h[256]=hist(1); @h[2]=hist(1); @h[-1]=hist(1); @h[0]=hist(1); }
        // printed @h[0], @h[256], @h[1], @h[2], @h[-1] (equal totals: stored-key order).
        let mut keys = [1i64, 256, 2, -1, 0].map(Value::long);
        keys.sort_by(|a, b| by_bytes(std::slice::from_ref(a), std::slice::from_ref(b)));
        assert_eq!(keys.map(|k| key_text(&k)), ["0", "256", "1", "2", "-1"]);
        // @s["b"], @s["a"], @s["ab"] with equal stats printed a, ab, b.
        let mut keys = ["b", "a", "ab"].map(|s| Value::Str(s.into()));
        keys.sort_by(|a, b| by_bytes(std::slice::from_ref(a), std::slice::from_ref(b)));
        assert_eq!(keys.map(|k| key_text(&k)), ["a", "ab", "b"]);
    }

    #[test]
    fn frames_in_bpftraces_form() {
        assert_eq!(frame("vmlinux`__schedule+0x618"), "__schedule+1560");
        assert_eq!(frame("vmlinux`schedule"), "schedule+0");
        assert_eq!(frame("0xffffffffc0001234"), "0xffffffffc0001234");
        // bpftrace 0.17 printed a stripped program's frame as its address, without `+0`.
        assert_eq!(frame("prog`0x55cb5137a139"), "0x55cb5137a139");
        assert_eq!(frame("<stack no longer available>"), "<stack no longer available>");
        assert_eq!(frame("__schedule+1560"), "__schedule+1560");
        assert_eq!(symbol("vmlinux`_text"), "_text");
        assert_eq!(symbol("vmlinux`vfs_read+0x10"), "vfs_read");
        assert_eq!(symbol("0xffffffffc0001234"), "0xffffffffc0001234");
        // A stack key with crumbs' frames prints bpftrace's.
        let stack = Value::Stack(vec!["vmlinux`__schedule+0x618".into(), "vmlinux`schedule".into()], crumbs_lang::ir::StackMode::Bpftrace);
        assert_eq!(key_text(&stack), "\n    __schedule+1560\n    schedule+0\n");
    }
}
