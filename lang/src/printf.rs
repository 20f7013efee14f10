//! Parsing of D `printf()` format strings.
//!
//! The accepted syntax is the subset of DTrace's own format language that makes sense
//! for crumbs' values (integers, strings, symbols and stacks):
//!
//! ```text
//! %[flags][width][.precision][length]conv      flags: any of - + space # 0
//!                                              length: hh h l ll z j t (accepted, ignored)
//!                                              conv:   d i u x X o c p a A s k Y
//! %%                                           a literal '%'
//! ```
//!
//! The rules follow DTrace's `dt_printf_create()` (libdtrace `dt_printf.c`):
//! a `0` is a flag only before any width digit (`%010d` is zero-padded width 10), a
//! `.` with no digits means precision 0, `%%` cannot carry flags or a width
//! ("cannot be combined with other format flags"), a format that ends inside a
//! conversion is an error ("name expected before end of format string"), and an
//! unknown conversion is an error ("format conversion is undefined"). Unlike DTrace we
//! reject `*` (width/precision taken from an argument) and `%n$` positional arguments,
//! and we only know the integer and string conversions.
//!
//! The string given to [`parse`] is already unescaped: `\n` in the D source has become a
//! real newline before it gets here.

use std::fmt;

/// The conversions [`parse`] accepts, as shown in hints.
pub const SUPPORTED: &str = "%d %i %u %x %X %o %c %p %a %A %s %k %Y %S, bpftrace's %r %rx %rh %gr (and %% for a literal '%')";

/// Largest width or precision accepted; a larger one is almost certainly a typo and would
/// make every firing print megabytes of padding.
pub const MAX_WIDTH: usize = 65_535;

/// One piece of a parsed format string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Literal text (with `%%` already turned into `%`). Adjacent literal text is merged,
    /// so two `Lit`s never follow each other.
    Lit(String),
    /// A conversion that consumes one argument.
    Conv(Conv),
}

/// One `%...` conversion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conv {
    /// The flags, each at most once, in the order first written: any of `-`, `+`, ` `,
    /// `#`, `0`.
    pub flags: String,
    /// Minimum field width.
    pub width: Option<usize>,
    /// Precision: minimum digits for integers, maximum bytes for `%s`. `%.d` gives
    /// `Some(0)`.
    pub precision: Option<usize>,
    /// Length modifier as written: `""`, `"h"`, `"hh"`, `"l"`, `"ll"`, `"z"`, `"j"` or
    /// `"t"`. All values are 64-bit, so it does not change the output.
    pub length: String,
    /// The conversion character: one of `d i u x X o c s`.
    pub conv: char,
    /// bpftrace's `%rx` and `%rh` (a buffer all in hex, with `\x` or spaced): the letter
    /// after `r`, `x` or `h`; current bpftrace's `%gr` (GFP flags by name): `r` after `g`;
    /// `None` for `%r` and every other conversion.
    pub suffix: Option<char>,
    /// Byte offset of the `%` in the format string.
    pub start: usize,
    /// Byte offset just past the conversion character.
    pub end: usize,
}

/// What kind of argument a conversion expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgKind {
    /// An integer (`d i u x X o p`, and `c`, which prints the low byte as a character).
    Int,
    /// A string (`s`, and `S`, which escapes what is not printable).
    Str,
    /// A kernel stack (`k`).
    Stack,
    /// bpftrace's buffer, `buf()`'s value (`r`, `rx`, `rh`).
    Buffer,
}

impl Conv {
    /// The kind of argument this conversion consumes.
    pub fn arg_kind(&self) -> ArgKind {
        match self.conv {
            's' | 'S' => ArgKind::Str,
            'k' => ArgKind::Stack,
            'r' => ArgKind::Buffer,
            _ => ArgKind::Int,
        }
    }

    /// Whether the flag `f` (one of `-+ #0`, or printa's `@`) was given.
    pub fn has_flag(&self, f: char) -> bool {
        self.flags.contains(f)
    }

    /// printa's `%@...`: this conversion prints the aggregation's value, not a key.
    pub fn is_agg_value(&self) -> bool {
        self.has_flag('@')
    }
}

/// A malformed format string. `start..end` is the byte range of the offending conversion
/// (as much of it as was read) in the format string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    pub start: usize,
    pub end: usize,
    pub message: String,
    pub hint: Option<String>,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(h) = &self.hint {
            write!(f, " (hint: {h})")?;
        }
        Ok(())
    }
}

impl std::error::Error for FormatError {}

/// The conversions of a parsed format, in order (one per argument).
pub fn conversions(pieces: &[Piece]) -> impl Iterator<Item = &Conv> {
    pieces.iter().filter_map(|p| match p {
        Piece::Conv(c) => Some(c),
        Piece::Lit(_) => None,
    })
}

fn supported_hint() -> Option<String> {
    Some(format!("supported conversions are {SUPPORTED}"))
}

fn err(start: usize, end: usize, message: impl Into<String>, hint: Option<String>) -> FormatError {
    FormatError {
        start,
        end,
        message: message.into(),
        hint,
    }
}

/// Parse a (already unescaped) D format string into literal text and conversions.
pub fn parse(fmt: &str) -> Result<Vec<Piece>, FormatError> {
    let bytes = fmt.as_bytes();
    let mut pieces = Vec::new();
    let mut lit = String::new();
    let mut i = 0;

    while i < bytes.len() {
        // Copy literal text up to the next '%'.
        let next = fmt[i..].find('%').map_or(bytes.len(), |k| i + k);
        lit.push_str(&fmt[i..next]);
        i = next;
        if i >= bytes.len() {
            break;
        }

        let start = i;
        i += 1; // past '%'
        if i >= bytes.len() {
            return Err(err(
                start,
                i,
                "format string ends with a lone '%'",
                Some("write '%%' for a literal percent sign".into()),
            ));
        }
        if bytes[i] == b'%' {
            lit.push('%');
            i += 1;
            continue;
        }

        // Flags.
        let mut flags = String::new();
        while i < bytes.len() && matches!(bytes[i], b'-' | b'+' | b' ' | b'#' | b'0' | b'@') {
            let f = bytes[i] as char;
            if !flags.contains(f) {
                flags.push(f);
            }
            i += 1;
        }

        let star_error = |at: usize, what: &str| {
            err(
                start,
                at + 1,
                format!("'*' {what} (taken from an argument) is not supported"),
                Some(format!("write the {what} as a number, e.g. %10d or %.3s")),
            )
        };
        let dollar_error = |at: usize| {
            err(
                start,
                at + 1,
                "positional arguments (%n$) are not supported",
                Some("arguments are used in order, one per conversion".into()),
            )
        };

        // Width.
        if i < bytes.len() && bytes[i] == b'*' {
            return Err(star_error(i, "width"));
        }
        let (width, after) = read_number(bytes, i);
        let width = match width {
            Some(Ok(w)) => Some(w),
            Some(Err(())) => {
                return Err(err(
                    start,
                    after,
                    format!("field width is too large (at most {MAX_WIDTH})"),
                    None,
                ))
            }
            None => None,
        };
        i = after;
        if i < bytes.len() && bytes[i] == b'$' {
            return Err(dollar_error(i));
        }

        // Precision.
        let mut precision = None;
        if i < bytes.len() && bytes[i] == b'.' {
            i += 1;
            if i < bytes.len() && bytes[i] == b'*' {
                return Err(star_error(i, "precision"));
            }
            let (p, after) = read_number(bytes, i);
            precision = match p {
                Some(Ok(p)) => Some(p),
                Some(Err(())) => {
                    return Err(err(
                        start,
                        after,
                        format!("precision is too large (at most {MAX_WIDTH})"),
                        None,
                    ))
                }
                None => Some(0),
            };
            i = after;
            if i < bytes.len() && bytes[i] == b'.' {
                return Err(err(
                    start,
                    i + 1,
                    "format conversion has more than one '.'",
                    supported_hint(),
                ));
            }
        }

        // Length modifier.
        let length = ["hh", "ll", "h", "l", "z", "j", "t"]
            .iter()
            .find(|m| fmt[i..].starts_with(**m))
            .copied()
            .unwrap_or("");
        i += length.len();

        // Conversion character.
        let Some(c) = fmt[i..].chars().next() else {
            return Err(err(
                start,
                i,
                "format conversion is incomplete: the format string ends before the conversion character",
                supported_hint(),
            ));
        };
        let mut end = i + c.len_utf8();
        // bpftrace's %rx and %rh: a letter after the r says how its buffer prints; its %gr
        // prints GFP flags by name.
        let suffix = match (c, bytes.get(end)) {
            ('r', Some(b @ (b'x' | b'h'))) | ('g', Some(b @ b'r')) => {
                end += 1;
                Some(*b as char)
            }
            _ => None,
        };
        match c {
            'd' | 'i' | 'u' | 'x' | 'X' | 'o' | 'c' | 's' | 'S' | 'Y' | 'p' | 'a' | 'A' | 'k' | 'r' => {}
            'g' if suffix == Some('r') => {}
            '%' => {
                return Err(err(
                    start,
                    end,
                    "'%%' cannot be combined with flags, a width or a precision",
                    Some("write just '%%' for a literal percent sign".into()),
                ))
            }
            '*' => return Err(star_error(i, "width")),
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                return Err(err(
                    start,
                    end,
                    format!("floating-point conversion %{c} is not supported"),
                    Some(format!(
                        "values are integers; {}",
                        supported_hint().unwrap_or_default()
                    )),
                ))
            }
            _ => {
                return Err(err(
                    start,
                    end,
                    format!("unknown format conversion %{c}"),
                    supported_hint(),
                ))
            }
        }

        if !lit.is_empty() {
            pieces.push(Piece::Lit(std::mem::take(&mut lit)));
        }
        pieces.push(Piece::Conv(Conv {
            flags,
            width,
            precision,
            length: length.to_string(),
            conv: c,
            suffix,
            start,
            end,
        }));
        i = end;
    }

    if !lit.is_empty() {
        pieces.push(Piece::Lit(lit));
    }
    Ok(pieces)
}

/// Read a run of decimal digits at `i`. Returns `None` if there are none, `Some(Err)` if
/// the number exceeds [`MAX_WIDTH`], and the index just past the digits.
fn read_number(bytes: &[u8], mut i: usize) -> (Option<Result<usize, ()>>, usize) {
    let begin = i;
    let mut n: usize = 0;
    let mut too_big = false;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        n = n
            .saturating_mul(10)
            .saturating_add((bytes[i] - b'0') as usize);
        if n > MAX_WIDTH {
            too_big = true;
        }
        i += 1;
    }
    if i == begin {
        (None, i)
    } else if too_big {
        (Some(Err(())), i)
    } else {
        (Some(Ok(n)), i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(
        flags: &str,
        width: Option<usize>,
        precision: Option<usize>,
        length: &str,
        c: char,
        start: usize,
        end: usize,
    ) -> Piece {
        Piece::Conv(Conv {
            flags: flags.into(),
            width,
            precision,
            length: length.into(),
            conv: c,
            suffix: None,
            start,
            end,
        })
    }

    fn lit(s: &str) -> Piece {
        Piece::Lit(s.into())
    }

    #[test]
    fn plain_text() {
        assert_eq!(parse("hello\n").unwrap(), vec![lit("hello\n")]);
        assert_eq!(parse("").unwrap(), vec![]);
    }

    #[test]
    fn percent_percent_merges_into_literal() {
        assert_eq!(parse("100%% done").unwrap(), vec![lit("100% done")]);
        assert_eq!(parse("%%").unwrap(), vec![lit("%")]);
        assert_eq!(
            parse("a%%%d%%b").unwrap(),
            vec![lit("a%"), conv("", None, None, "", 'd', 3, 5), lit("%b")]
        );
    }

    #[test]
    fn every_conversion() {
        let p = parse("%d %i %u %x %X %o %c %s").unwrap();
        let convs: Vec<char> = conversions(&p).map(|c| c.conv).collect();
        assert_eq!(convs, vec!['d', 'i', 'u', 'x', 'X', 'o', 'c', 's']);
        let kinds: Vec<ArgKind> = conversions(&p).map(|c| c.arg_kind()).collect();
        use ArgKind::*;
        assert_eq!(kinds, vec![Int, Int, Int, Int, Int, Int, Int, Str]);
        assert_eq!(p.len(), 15);
        assert_eq!(p[1], lit(" "));
    }

    #[test]
    fn flags_width_precision_length() {
        assert_eq!(
            parse("pid=%-08.3lld!").unwrap(),
            vec![
                lit("pid="),
                conv("-0", Some(8), Some(3), "ll", 'd', 4, 13),
                lit("!")
            ]
        );
        assert_eq!(
            parse("%+ #x").unwrap(),
            vec![conv("+ #", None, None, "", 'x', 0, 5)]
        );
        assert_eq!(
            parse("%010u").unwrap(),
            vec![conv("0", Some(10), None, "", 'u', 0, 5)]
        );
        // A '0' after a width digit is part of the width, not a flag.
        assert_eq!(
            parse("%10u").unwrap(),
            vec![conv("", Some(10), None, "", 'u', 0, 4)]
        );
        assert_eq!(
            parse("%.s").unwrap(),
            vec![conv("", None, Some(0), "", 's', 0, 3)]
        );
        assert_eq!(
            parse("%--5s").unwrap(),
            vec![conv("-", Some(5), None, "", 's', 0, 5)]
        );
        for (f, l) in [
            ("%hhd", "hh"),
            ("%hd", "h"),
            ("%ld", "l"),
            ("%lld", "ll"),
            ("%zd", "z"),
            ("%jd", "j"),
            ("%td", "t"),
        ] {
            match &parse(f).unwrap()[0] {
                Piece::Conv(c) => {
                    assert_eq!(c.length, l, "{f}");
                    assert_eq!(c.end, f.len(), "{f}");
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn byte_ranges_with_unicode() {
        // 'é' is two bytes.
        let p = parse("é%5s→%c").unwrap();
        assert_eq!(
            p,
            vec![
                lit("é"),
                conv("", Some(5), None, "", 's', 2, 5),
                lit("→"),
                conv("", None, None, "", 'c', 8, 10)
            ]
        );
    }

    #[test]
    fn unknown_conversion() {
        let e = parse("x=%q\n").unwrap_err();
        assert_eq!((e.start, e.end), (2, 4));
        assert_eq!(e.message, "unknown format conversion %q");
        assert!(e
            .hint
            .as_deref()
            .unwrap()
            .contains("%d %i %u %x %X %o %c %p %a %A %s %k"));

        let e = parse("%5.2f").unwrap_err();
        assert_eq!((e.start, e.end), (0, 5));
        assert!(e.message.contains("floating-point"));

        assert!(parse("%p").is_ok());
    }

    #[test]
    fn symbol_and_stack_conversions() {
        let p = parse("%-40a|%k|%a").unwrap();
        let kinds: Vec<ArgKind> = conversions(&p).map(Conv::arg_kind).collect();
        assert_eq!(kinds, [ArgKind::Int, ArgKind::Stack, ArgKind::Int]);
        assert_eq!(conversions(&p).next().map(|c| (c.width, c.has_flag('-'))), Some((Some(40), true)));
        let p = parse("x %-20A").unwrap();
        assert_eq!(conversions(&p).map(|c| (c.conv, c.arg_kind())).collect::<Vec<_>>(), [('A', ArgKind::Int)]);

        let e = parse("%Ld").unwrap_err();
        assert_eq!(e.message, "unknown format conversion %L");

        let e = parse("%é").unwrap_err();
        assert_eq!((e.start, e.end), (0, 3));
    }

    #[test]
    fn star_is_rejected() {
        let e = parse("ab%*d").unwrap_err();
        assert_eq!((e.start, e.end), (2, 4));
        assert!(e.message.contains("'*' width"), "{}", e.message);
        let e = parse("%.*s").unwrap_err();
        assert_eq!((e.start, e.end), (0, 3));
        assert!(e.message.contains("'*' precision"), "{}", e.message);
        let e = parse("%5*d").unwrap_err();
        assert!(e.message.contains('*'), "{}", e.message);
    }

    #[test]
    fn trailing_and_incomplete() {
        let e = parse("100%").unwrap_err();
        assert_eq!((e.start, e.end), (3, 4));
        assert_eq!(e.message, "format string ends with a lone '%'");
        assert_eq!(
            e.hint.as_deref(),
            Some("write '%%' for a literal percent sign")
        );

        let e = parse("%-5").unwrap_err();
        assert_eq!((e.start, e.end), (0, 3));
        assert!(e.message.contains("incomplete"));
        let e = parse("%ll").unwrap_err();
        assert!(e.message.contains("incomplete"));
    }

    #[test]
    fn other_errors() {
        let e = parse("%5%").unwrap_err();
        assert_eq!((e.start, e.end), (0, 3));
        assert!(e.message.contains("cannot be combined"));
        let e = parse("%1$d").unwrap_err();
        assert!(e.message.contains("positional"));
        let e = parse("%1.2.3d").unwrap_err();
        assert!(e.message.contains("more than one '.'"));
        let e = parse("%99999999999999999999999d").unwrap_err();
        assert!(e.message.contains("too large"));
        let e = parse("%.70000s").unwrap_err();
        assert!(e.message.contains("precision is too large"));
        assert!(parse("%65535d").is_ok());
    }

    #[test]
    fn display() {
        let e = parse("%q").unwrap_err();
        let s = e.to_string();
        assert!(
            s.starts_with("unknown format conversion %q (hint: supported conversions are %d"),
            "{s}"
        );
    }

    /// bpftrace's buffer conversions: `%r`, and `%rx`/`%rh` whose letter is part of the
    /// conversion (`%rz` is `%r` then a literal `z`).
    #[test]
    fn buffer_conversions() {
        let p = parse("%r|%rx|%-4rh|%rz").unwrap();
        let convs: Vec<(char, Option<char>, usize, usize)> = conversions(&p).map(|c| (c.conv, c.suffix, c.start, c.end)).collect();
        assert_eq!(convs, [('r', None, 0, 2), ('r', Some('x'), 3, 6), ('r', Some('h'), 7, 12), ('r', None, 13, 15)]);
        assert_eq!(p.last(), Some(&lit("z")));
        assert!(conversions(&p).all(|c| c.arg_kind() == ArgKind::Buffer));
    }
}
