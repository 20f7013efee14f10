//! How `print()` prints a value by its C type, in the layout of illumos libdtrace's
//! `dt_print.c` (`dtrace_print()`, after mdb's `::print`):
//!
//! * the type is visited as `ctf_type_visit()` does: the value itself at depth 0, then each
//!   member of a struct or union at one more depth, in order, into nested records;
//! * each visited item is a line `"%*s"` of `(depth + nest) * 4` spaces, the type's name,
//!   then for a named member a space (none after a name ending in `*` or a space), the
//!   name, `" :BITS"` for a bitfield, `" ="`; then a space and the value, then `"\n"`;
//! * values: an integer in hex, `%#x` (so 0 is `0`), a bitfield the same; a one-byte
//!   signed `char` as `'c'` if printable, `'\0'`, or `'\%03o'`; a pointer `%#llx`; an enum
//!   its constant's name (or the number); a struct or union `{`, closed by `}` lines as the
//!   depth goes back (`"%*s}"` at `(depth + nest - 1) * 4`, newline-separated, the last with
//!   no newline of its own);
//! * an array: `[ ` elements `, `-separated ` ]`, each element visited at depth 0 with the
//!   array nesting raised (struct elements on lines of their own, `]` indented); an array
//!   of `char` holding printable characters then a NUL is a string, `[ "text" ]`, and at
//!   depth 0 just `"text"`.
//!
//! illumos prints every enum as the constant for 0 (it never reads the value); crumbs
//! prints the constant of the value it holds.

use super::printf::push_n;
use super::Value;
use crumbs_lang::ir::layout::{Layout, MemberLayout, Shape};

/// `print()` of `value`, whose type is `layout`.
pub fn print(layout: &Layout, value: &Value) -> String {
    let scalar;
    let bytes: &[u8] = match value {
        Value::Bytes(b) | Value::Object(b, _) => b,
        Value::Int(n, _) => {
            scalar = n.to_le_bytes();
            &scalar
        }
        Value::Str(s) => return format!("{} \"{s}\"\n", layout.name),
        Value::Buf(b) => return format!("{}\n", super::buffer::text(b, None)),
        Value::Tuple(t) => return format!("{}\n", Value::tuple_text(t)),
        Value::Record(r) => return format!("{}\n", Value::record_text(r)),
        Value::Array(a) => return format!("{}\n", Value::array_text(a)),
        Value::Stack(frames, _) => return Value::stack_text(frames),
        Value::Sym(_, text) => return format!("{} {text}\n", layout.name),
    };
    // Current bpftrace's `args` record prints as bpftrace prints a record.
    if let Shape::ProbeArgs { members } = &layout.shape {
        return format!("{}\n", super::bpftrace::args::record_text(members, bytes));
    }
    let mut p = Printer { out: String::new(), bytes, depth: 0, nest: 0 };
    p.visit("", layout, 0, 0, 0);
    p.trailing_braces(0);
    p.out
}

struct Printer<'a> {
    out: String,
    bytes: &'a [u8],
    /// The depth of the last item printed (`pa_depth`) and the array nesting (`pa_nest`).
    depth: usize,
    nest: usize,
}

impl Printer<'_> {
    /// `ctf_type_visit()`: the item, then a record's members one level deeper.
    fn visit(&mut self, name: &str, l: &Layout, bit_off: u64, bits: u32, depth: usize) {
        self.member(name, l, bit_off, bits, depth);
        if let Shape::Record { members } = &l.shape {
            for MemberLayout { name, bit_offset, bits, layout } in members {
                self.visit(name, layout, bit_off + *bit_offset as u64, *bits, depth + 1);
            }
        }
    }

    fn trailing_braces(&mut self, depth: usize) {
        for d in (depth + 1..=self.depth).rev() {
            push_n(&mut self.out, ' ', (d + self.nest - 1) * 4);
            self.out.push('}');
            if d != depth + 1 {
                self.out.push('\n');
            }
        }
    }

    fn indent(&mut self) {
        push_n(&mut self.out, ' ', (self.depth + self.nest) * 4);
    }

    fn member(&mut self, name: &str, l: &Layout, bit_off: u64, bits: u32, depth: usize) {
        self.trailing_braces(depth);
        if depth < self.depth {
            self.out.push('\n');
        }
        self.depth = depth;
        let arraymember = self.nest != 0 && depth == 0;
        let brief = arraymember && !l.is_record();
        if !brief {
            if arraymember {
                self.out.push('\n');
            }
            self.indent();
            self.out.push_str(&l.name);
            if !name.is_empty() {
                if !l.name.ends_with('*') && !l.name.ends_with(' ') {
                    self.out.push(' ');
                }
                self.out.push_str(name);
                if let Shape::Int { size, .. } = l.shape {
                    if is_bitfield(bits, bit_off, size) {
                        self.out.push_str(&format!(" :{bits}"));
                    }
                }
                self.out.push_str(" =");
            }
            self.out.push(' ');
        }
        self.value(l, bit_off, bits);
        if !brief {
            self.out.push('\n');
        }
    }

    /// Little-endian bytes at a byte offset, zero past the end of what was recorded.
    fn word(&self, at: u64, size: usize) -> u64 {
        le_word(self.bytes, at as usize, size)
    }

    fn value(&mut self, l: &Layout, bit_off: u64, bits: u32) {
        let at = bit_off / 8;
        match &l.shape {
            Shape::Int { size, .. } if is_bitfield(bits, bit_off, *size) => {
                let shift = bit_off % 8;
                let v = (self.word(at, 8) >> shift) & if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                self.out.push_str(&hex(v));
            }
            Shape::Int { size: 1, char: true, .. } => {
                let c = self.word(at, 1) as u8 as i8;
                match c {
                    0 => self.out.push_str("'\\0'"),
                    c if (0x20..0x7f).contains(&c) => self.out.push_str(&format!("'{}'", c as u8 as char)),
                    c => self.out.push_str(&format!("'\\{:03o}'", c as i32 as u32)),
                }
            }
            Shape::Int { size, .. } => self.out.push_str(&hex(self.word(at, *size as usize))),
            Shape::Float { size } => {
                let v = self.word(at, *size as usize);
                let f = if *size == 4 { f32::from_bits(v as u32) as f64 } else { f64::from_bits(v) };
                self.out.push_str(&c_exp(f, 7));
            }
            Shape::Ptr => self.out.push_str(&hex(self.word(at, 8))),
            Shape::Enum { size, values } => {
                let raw = self.word(at, *size as usize);
                let shift = 64 - 8 * (*size as u32).min(8);
                let v = if shift == 0 { raw as i64 } else { ((raw << shift) as i64) >> shift };
                match values.iter().find(|(_, x)| *x == v) {
                    Some((n, _)) => self.out.push_str(n),
                    None => self.out.push_str(&v.to_string()),
                }
            }
            Shape::Record { .. } => self.out.push('{'),
            Shape::Array { elem, elem_size, len } => self.array(elem, *elem_size, *len, at),
            Shape::Opaque => self.out.push_str("<forward decl>"),
            Shape::ProbeArgs { members } => {
                let bytes = self.bytes.get(at as usize..).unwrap_or_default();
                self.out.push_str(&super::bpftrace::args::record_text(members, bytes));
            }
        }
    }

    fn array(&mut self, elem: &Layout, elem_size: u32, len: u32, at: u64) {
        let is_char = matches!(elem.shape, Shape::Int { size: 1, char: true, .. });
        let byte = |i: u32| *self.bytes.get((at + (i * elem_size) as u64) as usize).unwrap_or(&0);
        let mut is_string = false;
        if is_char {
            let first_other = (0..len).find(|&i| !(0x20..0x7f).contains(&byte(i)));
            is_string = first_other.is_some_and(|i| byte(i) == 0);
        }
        if !is_string || self.depth != 0 {
            self.out.push_str("[ ");
        }
        if is_string {
            let text: Vec<u8> = (0..len).map(byte).take_while(|b| *b != 0).collect();
            self.out.push('"');
            self.out.push_str(&String::from_utf8_lossy(&text));
            self.out.push('"');
        } else {
            let (depth, nest) = (self.depth, self.nest);
            for i in 0..len {
                self.nest = nest + depth + 1;
                self.depth = 0;
                self.visit("", elem, (at + (i * elem_size) as u64) * 8, 0, 0);
                self.trailing_braces(0);
                if i != len - 1 {
                    self.out.push_str(", ");
                } else if elem.is_record() {
                    self.out.push('\n');
                }
            }
            self.depth = depth;
            self.nest = nest;
        }
        if !is_string || self.depth != 0 {
            if elem.is_record() {
                self.indent();
            } else {
                self.out.push(' ');
            }
            self.out.push(']');
        }
    }
}

/// Whether a member of `bits` bits (0: not a bitfield) at `bit_off` of an integer type of
/// `size` bytes is printed as a bitfield (with its width, from its bits).
fn is_bitfield(bits: u32, bit_off: u64, size: u8) -> bool {
    bits > 0 && (!bits.is_multiple_of(8) || !bit_off.is_multiple_of(8) || bits / 8 != size as u32)
}

/// C's `%#llx`: `0` for zero, else `0x` and lowercase hex digits.
fn hex(v: u64) -> String {
    if v == 0 {
        "0".into()
    } else {
        format!("{v:#x}")
    }
}

/// C's `%+.Ne`: a sign, one digit, N decimals, `e`, the exponent's sign and two digits.
fn c_exp(f: f64, decimals: usize) -> String {
    if !f.is_finite() {
        return if f.is_nan() { "nan".into() } else if f > 0.0 { "+inf".into() } else { "-inf".into() };
    }
    let s = format!("{:+.*e}", decimals, f);
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

/// `size` little-endian bytes at `at` (0 past the end of what was recorded).
pub(crate) fn le_word(bytes: &[u8], at: usize, size: usize) -> u64 {
    (0..size.min(8)).rev().fold(0u64, |v, i| v << 8 | *bytes.get(at + i).unwrap_or(&0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::ir::IntRepr;

    fn int(name: &str, size: u8, signed: bool) -> Layout {
        Layout { name: name.into(), shape: Shape::Int { size, signed, char: false } }
    }
    fn member(name: &str, bit_offset: u32, layout: Layout) -> MemberLayout {
        MemberLayout { name: name.into(), bit_offset, bits: 0, layout }
    }
    fn record(name: &str, members: Vec<MemberLayout>) -> Layout {
        Layout { name: name.into(), shape: Shape::Record { members } }
    }

    #[test]
    fn a_scalar_is_its_type_and_hex_value() {
        assert_eq!(print(&int("int", 4, true), &Value::Int(42, IntRepr::I32)), "int 0x2a\n");
        assert_eq!(print(&int("unsigned long", 8, false), &Value::Int(0, IntRepr::U64)), "unsigned long 0\n");
        assert_eq!(print(&Layout { name: "string".into(), shape: Shape::Opaque }, &Value::Str("hi".into())), "string \"hi\"\n");
    }

    #[test]
    fn a_struct_nests_members_and_closes_braces() {
        let inner = record("struct list_head", vec![member("next", 0, Layout { name: "struct list_head *".into(), shape: Shape::Ptr }), member("prev", 64, Layout { name: "struct list_head *".into(), shape: Shape::Ptr })]);
        let comm = Layout { name: "char [4]".into(), shape: Shape::Array { elem: Box::new(Layout { name: "char".into(), shape: Shape::Int { size: 1, signed: true, char: true } }), elem_size: 1, len: 4 } };
        let flags = MemberLayout { name: "f".into(), bit_offset: 33, bits: 3, layout: int("unsigned int", 4, false) };
        let s = record("struct s", vec![member("a", 0, int("int", 4, true)), flags, member("l", 64, inner), member("comm", 192, comm), member("c", 224, Layout { name: "char".into(), shape: Shape::Int { size: 1, signed: true, char: true } })]);
        let mut bytes = vec![0u8; 29];
        bytes[0] = 7;
        bytes[4] = 0b1010; // f = 0b101 at bit 33
        bytes[8] = 0x10;
        bytes[24..27].copy_from_slice(b"ab\0");
        bytes[28] = b'x';
        let want = "struct s {\n    int a = 0x7\n    unsigned int f :3 = 0x5\n    struct list_head l = {\n        struct list_head *next = 0x10\n        struct list_head *prev = 0\n    }\n    char [4] comm = [ \"ab\" ]\n    char c = 'x'\n}";
        assert_eq!(print(&s, &Value::Bytes(bytes)), want);
    }

    #[test]
    fn arrays_print_their_elements() {
        let a = Layout { name: "int [3]".into(), shape: Shape::Array { elem: Box::new(int("int", 4, true)), elem_size: 4, len: 3 } };
        let bytes = [1u8, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255].to_vec();
        assert_eq!(print(&a, &Value::Bytes(bytes)), "int [3] [ 0x1, 0, 0xffffffff ]\n");
        let pair = record("struct p", vec![member("x", 0, int("int", 4, true))]);
        let b = Layout { name: "struct p [2]".into(), shape: Shape::Array { elem: Box::new(pair), elem_size: 4, len: 2 } };
        assert_eq!(print(&b, &Value::Bytes(vec![1, 0, 0, 0, 2, 0, 0, 0])), "struct p [2] [ \n    struct p {\n        int x = 0x1\n    }, \n    struct p {\n        int x = 0x2\n    }\n]\n");
    }

    #[test]
    fn floats_print_as_c_does() {
        assert_eq!(c_exp(1.5, 7), "+1.5000000e+00");
        assert_eq!(c_exp(-0.00025, 7), "-2.5000000e-04");
    }
}
