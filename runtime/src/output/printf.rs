//! `printf()` output: C printf semantics for 64-bit integers and strings.
//!
//! DTrace hands each conversion to the C library's printf after widening integer
//! conversions to `ll` (libdtrace `dt_printf.c`, `dt_printf_validate()` prepends `"ll"`
//! for 8-byte arguments, and `%c` is printed with the C `%c` conversion of an int). So the
//! rules here are those of C99 7.19.6.1 for `long long`:
//!
//! * `d i`: signed decimal; `+` prints a `+` on non-negative values, ` ` a space (`+`
//!   wins).
//! * `u x X o`: the i64 is reinterpreted as u64. `#` adds `0x`/`0X` to a non-zero `%x`/`%X`
//!   and makes the first digit of `%o` a `0`.
//! * Precision on an integer is the minimum number of digits; `%.0d` of 0 prints no
//!   digits. With a precision the `0` flag is ignored.
//! * Width pads with spaces on the left, on the right with `-`, or with zeros after the
//!   sign/prefix with `0` (ignored when `-` is given).
//! * `c`: the low byte of the integer as one character. A byte above 0x7f is written as
//!   the Unicode character with that code point (Latin-1), since the output is a `String`.
//! * `s`: precision is the maximum number of bytes printed (cut back to a character
//!   boundary if it would split a UTF-8 sequence); width counts bytes, as C does.
//!
//! Mismatched arguments never panic: `%s` of an integer prints its decimal form (then
//! applies the string's width/precision), an integer conversion of a string prints the
//! string with the width and `-` flag. A missing argument prints nothing.

use super::Value;
use crumbs_lang::ir::IntRepr;
use crumbs_lang::printf::{Conv, Piece};

/// Format `pieces` (from [`crumbs_lang::printf::parse`]) with `args`, one argument per
/// conversion, in order.
pub fn format(pieces: &[Piece], args: &[Value]) -> String {
    let mut out = String::new();
    format_into(&mut out, pieces, args);
    out
}

/// [`format`], appended to `out` (a writer's buffer kept from one firing to the next).
pub fn format_into(out: &mut String, pieces: &[Piece], args: &[Value]) {
    let mut args = args.iter();
    for piece in pieces {
        match piece {
            Piece::Lit(s) => out.push_str(s),
            Piece::Conv(c) => {
                if let Some(v) = args.next() {
                    format_conv(out, c, v);
                }
            }
        }
    }
}

/// DTrace's `%Y`: nanoseconds since the epoch (walltimestamp) as local time,
/// `strftime("%Y %b %e %T")`, e.g. `2026 Nov 22 21:53:07`.
pub fn wall_date(ns: i64) -> String {
    let secs = ns.div_euclid(1_000_000_000) as libc::time_t;
    // SAFETY: localtime_r and strftime write only into the buffers given.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&secs, &mut tm).is_null() {
            return ns.to_string();
        }
        let mut buf = [0u8; 64];
        let n = libc::strftime(buf.as_mut_ptr() as *mut libc::c_char, buf.len(), c"%Y %b %e %T".as_ptr(), &tm);
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }
}

/// Append one conversion of one value to `out`.
pub fn format_conv(out: &mut String, c: &Conv, v: &Value) {
    match (c.conv, v) {
        ('s', Value::Str(s)) => format_str(out, c, s),
        ('S', Value::Str(s)) => format_str(out, c, &escaped(s)),
        ('s', Value::Int(n, r)) => format_str(out, c, &r.decimal(*n)),
        ('c', Value::Int(n, _)) => format_char(out, c, *n),
        ('Y', Value::Int(n, _)) => {
            let date = wall_date(*n);
            pad(out, &date, date.len(), c.width.unwrap_or(0), c.has_flag('-'));
        }
        // Current bpftrace's %gr: GFP flags by name.
        ('g', Value::Int(n, _)) => format_str(out, c, &super::gfp::names(*n as u64)),
        (_, Value::Int(n, r)) => format_int(out, c, *n, *r),
        // An integer conversion of a string: print the string, honouring width and '-'.
        (_, Value::Str(s)) => {
            let left = c.has_flag('-');
            pad(out, s, s.len(), c.width.unwrap_or(0), left);
        }
        ('k', Value::Stack(frames, _)) => format_stack(out, c, frames),
        // %a's argument arrives symbolized; `func()` and `mod()` values print as text too
        // with %s.
        ('a' | 'A' | 's', Value::Sym(_, text)) => format_str(out, c, text),
        (_, Value::Sym(pc, _)) => format_int(out, c, *pc as i64, IntRepr::U64),
        // The checker keeps stacks out of other conversions (printa's %s of a stack key
        // prints it as traced).
        (_, Value::Stack(frames, _)) => out.push_str(&Value::stack_text(frames)),
        (_, Value::Bytes(b) | Value::Object(b, _)) => out.push_str(&Value::bytes_text(b)),
        // bpftrace's %r, %rx and %rh (the checker gives them buffers only).
        ('r', Value::Buf(b)) => format_str(out, c, &super::buffer::text(b, c.suffix)),
        (_, Value::Buf(b)) => format_str(out, c, &super::buffer::text(b, None)),
        (_, Value::Tuple(t)) => format_str(out, c, &Value::tuple_text(t)),
        (_, Value::Record(r)) => format_str(out, c, &Value::record_text(r)),
        (_, Value::Array(a)) => format_str(out, c, &Value::array_text(a)),
    }
}

/// `%k`, DTrace's pfprint_stack(): a newline, then each frame formatted as `%s` with the
/// conversion's flags, width and precision on its own line, indented by the width when `-`
/// is given (DTrace's odd but documented rule), by nothing otherwise.
fn format_stack(out: &mut String, c: &Conv, frames: &[String]) {
    let indent = if c.has_flag('-') { c.width.unwrap_or(0) } else { 0 };
    out.push_str(&Value::stack_with(frames, indent, &|f| {
        let mut s = String::new();
        format_str(&mut s, c, f);
        s
    }));
}

/// Push `body` (whose printed length is `len` bytes) padded with spaces to `width`.
pub(crate) fn pad(out: &mut String, body: &str, len: usize, width: usize, left: bool) {
    let fill = width.saturating_sub(len);
    if left {
        out.push_str(body);
        push_n(out, ' ', fill);
    } else {
        push_n(out, ' ', fill);
        out.push_str(body);
    }
}

pub(crate) fn push_n(out: &mut String, ch: char, n: usize) {
    out.extend(std::iter::repeat_n(ch, n));
}

/// DTrace's `%S` (its strchr2esc()): C's escapes for `\a \b \f \n \r \t \v`, `\"` and
/// `\\`, a space as it is, every other byte outside `!`..`~` as `\` and three octal
/// digits (a character beyond ASCII as its UTF-8 bytes).
fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        match b {
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x0b => out.push_str("\\v"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b' '..=b'~' => out.push(b as char),
            _ => out.push_str(&format!("\\{:03o}", b)),
        }
    }
    out
}

fn format_str(out: &mut String, c: &Conv, s: &str) {
    let mut body = s;
    if let Some(p) = c.precision {
        if p < body.len() {
            let mut cut = p;
            while !body.is_char_boundary(cut) {
                cut -= 1;
            }
            body = &body[..cut];
        }
    }
    pad(out, body, body.len(), c.width.unwrap_or(0), c.has_flag('-'));
}

fn format_char(out: &mut String, c: &Conv, n: i64) {
    let ch = char::from(n as u8);
    let mut buf = [0u8; 4];
    // One byte in C's output, whatever its UTF-8 length here.
    pad(
        out,
        ch.encode_utf8(&mut buf),
        1,
        c.width.unwrap_or(0),
        c.has_flag('-'),
    );
}

/// An integer conversion of `n`, whose C type is `r`: `%d`/`%i` signed only if the type is
/// (`pfprint_dint()`), the unsigned conversions of the type's own bytes (`pfprint_uint()`),
/// `%p` as `%x` (DTrace's table maps it so).
fn format_int(out: &mut String, c: &Conv, n: i64, r: IntRepr) {
    let u = r.unsigned(n);
    // Plain `%d`, `%i`, `%u` (the most printed): the digits, written in place.
    if c.flags.is_empty() && c.width.is_none() && c.precision.is_none() && matches!(c.conv, 'd' | 'i' | 'u') {
        use std::fmt::Write as _;
        let _ = if c.conv != 'u' && r.signed { write!(out, "{n}") } else { write!(out, "{u}") };
        return;
    }
    let mut sign = "";
    let mut prefix = "";
    let mut digits = match c.conv {
        'd' | 'i' if !r.signed => u.to_string(),
        'd' | 'i' => {
            if n < 0 {
                sign = "-";
            } else if c.has_flag('+') {
                sign = "+";
            } else if c.has_flag(' ') {
                sign = " ";
            }
            n.unsigned_abs().to_string()
        }
        'x' | 'p' => {
            if c.has_flag('#') && u != 0 {
                prefix = "0x";
            }
            format!("{u:x}")
        }
        'X' => {
            if c.has_flag('#') && u != 0 {
                prefix = "0X";
            }
            format!("{u:X}")
        }
        'o' => format!("{u:o}"),
        // 'u', and anything unexpected.
        _ => u.to_string(),
    };

    if let Some(p) = c.precision {
        if p == 0 && u == 0 {
            digits.clear();
        }
        if digits.len() < p {
            digits.insert_str(0, &"0".repeat(p - digits.len()));
        }
    }
    if c.conv == 'o' && c.has_flag('#') && !digits.starts_with('0') {
        digits.insert(0, '0');
    }

    let width = c.width.unwrap_or(0);
    let len = sign.len() + prefix.len() + digits.len();
    let left = c.has_flag('-');
    let zero = c.has_flag('0') && !left && c.precision.is_none();
    if zero && width > len {
        out.push_str(sign);
        out.push_str(prefix);
        push_n(out, '0', width - len);
        out.push_str(&digits);
    } else {
        let fill = width.saturating_sub(len);
        if !left {
            push_n(out, ' ', fill);
        }
        out.push_str(sign);
        out.push_str(prefix);
        out.push_str(&digits);
        if left {
            push_n(out, ' ', fill);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::printf::parse;

    fn f(fmt: &str, args: &[Value]) -> String {
        format(&parse(fmt).expect("valid format"), args)
    }

    /// DTrace's %S: C escapes, octal for the rest, width and precision on the escaped text.
    #[test]
    fn escaped_strings() {
        let s = Value::Str("a b\t\n\"q\"\\\u{7}\u{1b}\u{7f}é".into());
        assert_eq!(f("%S", &[s]), "a b\\t\\n\\\"q\\\"\\\\\\a\\033\\177\\303\\251");
        assert_eq!(f("[%6.4S]", &[Value::Str("\tab".into())]), "[  \\tab]");
        assert_eq!(f("[%-5S]", &[Value::Str("x".into())]), "[x    ]");
    }

    #[test]
    fn symbols_and_stacks() {
        let sym = Value::Sym(0xffffffff81000123, "vmlinux`helper+0x23".into());
        assert_eq!(f("%a|%-25a|%25a|%.7a", &[sym.clone(), sym.clone(), sym.clone(), sym.clone()]), "vmlinux`helper+0x23|vmlinux`helper+0x23      |      vmlinux`helper+0x23|vmlinux");
        assert_eq!(f("%p %d %x", &[sym.clone(), sym.clone(), sym]), format!("ffffffff81000123 {} ffffffff81000123", 0xffffffff81000123u64));
        let stack = Value::Stack(vec!["vmlinux`a+0x1".into(), "vmlinux`b".into()], crumbs_lang::ir::StackMode::Bpftrace);
        assert_eq!(f("%k|", std::slice::from_ref(&stack)), "\nvmlinux`a+0x1\nvmlinux`b\n|");
        assert_eq!(f("%-3k|", std::slice::from_ref(&stack)), "\n   vmlinux`a+0x1\n   vmlinux`b\n|");
        assert_eq!(f("%12k|", &[stack]), "\nvmlinux`a+0x1\n   vmlinux`b\n|");
    }
    fn i(n: i64) -> Value {
        Value::long(n)
    }
    fn s(v: &str) -> Value {
        Value::Str(v.to_string())
    }

    /// Each case: (format, value, what glibc's printf prints for the same format with
    /// `ll` added and the value as `long long`/`char *`).
    fn check(cases: &[(&str, Value, &str)]) {
        for (fmt, v, want) in cases {
            assert_eq!(
                f(fmt, std::slice::from_ref(v)),
                *want,
                "format {fmt:?} of {v:?}"
            );
        }
    }

    #[test]
    fn literal_and_percent() {
        assert_eq!(f("100%% of %d\n", &[i(7)]), "100% of 7\n");
        assert_eq!(f("", &[]), "");
    }

    #[test]
    fn signed_decimal() {
        check(&[
            ("%d", i(0), "0"),
            ("%d", i(42), "42"),
            ("%i", i(-42), "-42"),
            ("%d", i(i64::MIN), "-9223372036854775808"),
            ("%d", i(i64::MAX), "9223372036854775807"),
            ("[%5d]", i(42), "[   42]"),
            ("[%-5d]", i(42), "[42   ]"),
            ("[%05d]", i(42), "[00042]"),
            ("[%05d]", i(-42), "[-0042]"),
            ("[%+d]", i(42), "[+42]"),
            ("[%+d]", i(0), "[+0]"),
            ("[%+d]", i(-42), "[-42]"),
            ("[% d]", i(42), "[ 42]"),
            ("[% d]", i(-42), "[-42]"),
            ("[%+ d]", i(42), "[+42]"),
            ("[% 05d]", i(42), "[ 0042]"),
            ("[%+05d]", i(42), "[+0042]"),
            ("[%-+6d]", i(42), "[+42   ]"),
            ("[%-05d]", i(42), "[42   ]"),
            ("[%.3d]", i(7), "[007]"),
            ("[%.3d]", i(-7), "[-007]"),
            ("[%6.3d]", i(-7), "[  -007]"),
            ("[%-6.3d]", i(7), "[007   ]"),
            ("[%06.3d]", i(7), "[   007]"),
            ("[%.0d]", i(0), "[]"),
            ("[%3.0d]", i(0), "[   ]"),
            ("[%+.0d]", i(0), "[+]"),
            ("[%.0d]", i(3), "[3]"),
            ("[%.d]", i(0), "[]"),
            ("[%1d]", i(12345), "[12345]"),
            ("[%#d]", i(5), "[5]"),
            ("[%lld]", i(-1), "[-1]"),
            ("[%hhd]", i(300), "[300]"),
        ]);
    }

    /// A 32-bit integer's conversions read its own bytes, plain or padded.
    #[test]
    fn narrow_integers() {
        let (i32_, u32_) = (IntRepr { size: 4, signed: true }, IntRepr { size: 4, signed: false });
        let v = |r| [Value::Int(-1, r), Value::Int(-1, r), Value::Int(-1, r)];
        assert_eq!(f("%d %u %i", &v(i32_)), "-1 4294967295 -1");
        assert_eq!(f("%d %u %i", &v(u32_)), "4294967295 4294967295 4294967295");
        assert_eq!(f("[%3d] [%-11u] [%3i]", &v(i32_)), "[ -1] [4294967295 ] [ -1]");
    }

    #[test]
    fn unsigned_decimal() {
        check(&[
            ("%u", i(0), "0"),
            ("%u", i(42), "42"),
            ("%u", i(-1), "18446744073709551615"),
            ("[%+u]", i(42), "[42]"),
            ("[% u]", i(42), "[42]"),
            ("[%8u]", i(42), "[      42]"),
            ("[%-8u]", i(42), "[42      ]"),
            ("[%08u]", i(42), "[00000042]"),
            ("[%.4u]", i(42), "[0042]"),
            ("[%.0u]", i(0), "[]"),
        ]);
    }

    #[test]
    fn hex() {
        check(&[
            ("%x", i(255), "ff"),
            ("%X", i(255), "FF"),
            ("%x", i(-1), "ffffffffffffffff"),
            ("%X", i(i64::MIN), "8000000000000000"),
            ("%#x", i(255), "0xff"),
            ("%#X", i(255), "0XFF"),
            ("%#x", i(0), "0"),
            ("[%8x]", i(255), "[      ff]"),
            ("[%-8x]", i(255), "[ff      ]"),
            ("[%08x]", i(255), "[000000ff]"),
            ("[%#8x]", i(255), "[    0xff]"),
            ("[%#08x]", i(255), "[0x0000ff]"),
            ("[%#-8x]", i(255), "[0xff    ]"),
            ("[%.4x]", i(255), "[00ff]"),
            ("[%#.4x]", i(255), "[0x00ff]"),
            ("[%#10.4X]", i(255), "[    0X00FF]"),
            ("[%#.0x]", i(0), "[]"),
            ("[%+x]", i(255), "[ff]"),
            ("[% x]", i(255), "[ff]"),
            ("%lx", i(0xdead_beef), "deadbeef"),
        ]);
    }

    #[test]
    fn octal() {
        check(&[
            ("%o", i(8), "10"),
            ("%o", i(0), "0"),
            ("%o", i(-1), "1777777777777777777777"),
            ("%#o", i(8), "010"),
            ("%#o", i(0), "0"),
            ("[%#.0o]", i(0), "[0]"),
            ("[%.0o]", i(0), "[]"),
            ("[%#.3o]", i(8), "[010]"),
            ("[%#.2o]", i(8), "[010]"),
            ("[%#6o]", i(8), "[   010]"),
            ("[%#06o]", i(8), "[000010]"),
            ("[%-6o]", i(8), "[10    ]"),
        ]);
    }

    #[test]
    fn char_conversion() {
        check(&[
            ("%c", i(65), "A"),
            ("%c", i(0x141), "A"), // low byte only
            ("%c", i(-191), "A"),  // -191 = 0x...ff41
            ("[%3c]", i(66), "[  B]"),
            ("[%-3c]", i(66), "[B  ]"),
            ("[%.0c]", i(66), "[B]"), // precision is ignored for %c
            ("[%c]", i(10), "[\n]"),
            ("[%2c]", i(0xe9), "[ \u{e9}]"), // one byte in C: one pad space
        ]);
    }

    #[test]
    fn string_conversion() {
        check(&[
            ("%s", s("hello"), "hello"),
            ("%s", s(""), ""),
            ("[%10s]", s("hello"), "[     hello]"),
            ("[%-10s]", s("hello"), "[hello     ]"),
            ("[%.3s]", s("hello"), "[hel]"),
            ("[%.0s]", s("hello"), "[]"),
            ("[%.10s]", s("hello"), "[hello]"),
            ("[%8.3s]", s("hello"), "[     hel]"),
            ("[%-8.3s]", s("hello"), "[hel     ]"),
            ("[%3s]", s("hello"), "[hello]"),
            ("[%+s]", s("hi"), "[hi]"),
            ("[%#s]", s("hi"), "[hi]"),
            ("[%05s]", s("hi"), "[   hi]"),
            // Width and precision count bytes; a cut never splits a character.
            ("[%6s]", s("h\u{e9}"), "[   h\u{e9}]"),
            ("[%.2s]", s("h\u{e9}"), "[h]"),
        ]);
    }

    #[test]
    fn mismatched_arguments_do_not_panic() {
        assert_eq!(f("[%s]", &[i(-42)]), "[-42]");
        assert_eq!(f("[%5s]", &[i(42)]), "[   42]");
        assert_eq!(f("[%.1s]", &[i(42)]), "[4]");
        assert_eq!(f("[%d]", &[s("abc")]), "[abc]");
        assert_eq!(f("[%-5x]", &[s("abc")]), "[abc  ]");
        assert_eq!(f("[%5c]", &[s("abc")]), "[  abc]");
    }

    #[test]
    fn missing_and_extra_arguments() {
        assert_eq!(f("a=%d b=%s c=%x\n", &[i(1)]), "a=1 b= c=\n");
        assert_eq!(f("%d\n", &[i(1), i(2)]), "1\n");
        assert_eq!(f("%d %s\n", &[]), " \n");
    }

    #[test]
    fn several_conversions() {
        assert_eq!(
            f(
                "%-16s %6d %#x %c%%\n",
                &[s("bash"), i(1234), i(4096), i(33)]
            ),
            "bash               1234 0x1000 !%\n"
        );
    }
}
