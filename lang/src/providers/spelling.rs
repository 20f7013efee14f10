//! How a probe description's text becomes its fields, as bpftrace's attach point lexer reads
//! it: split at the colons outside double quotes (`uprobe:"/opt/my app":"f"`; a quote's
//! `\x` is `x`), macro variables outside quotes (`$1`, `$target`) replaced by their values
//! inside the field they are in, and bpftrace's short provider names (`t:`, `k:`, `u:`, ...)
//! read as the long ones. The parser splits the text as written, keeping macro variables;
//! the checker expands them ([`super::expand_macros`]) once the values are known.

use crate::ast::Span;
use crate::diag::Diagnostic;

/// bpftrace's short names of its probe types, and the long names crumbs' providers read.
const SHORT_NAMES: &[(&str, &str)] = &[
    ("t", "tracepoint"),
    ("k", "kprobe"),
    ("kr", "kretprobe"),
    ("u", "uprobe"),
    ("ur", "uretprobe"),
    ("U", "usdt"),
    ("s", "software"),
    ("h", "hardware"),
    ("f", "fentry"),
    ("fr", "fexit"),
    ("p", "profile"),
    ("i", "interval"),
    ("rt", "rawtracepoint"),
    ("it", "iter"),
];

/// The long name of bpftrace's short provider name `short` (`t` is `tracepoint`).
pub fn long_name(short: &str) -> Option<&'static str> {
    SHORT_NAMES.iter().find(|(s, _)| *s == short).map(|(_, l)| *l)
}

/// `pattern` (`t:syscalls:*open*`) with a short provider name before its first colon
/// written long, for `-l`.
pub fn with_long_name(pattern: &str) -> String {
    match pattern.split_once(':').and_then(|(p, rest)| Some((long_name(p)?, rest))) {
        Some((long, rest)) => format!("{long}:{rest}"),
        None => pattern.to_string(),
    }
}

/// A number in a probe name as bpftrace reads one (its `stoull` with base 0): decimal,
/// `0x` hex, octal after a leading `0`, `1e6` (a digit times a power of ten), `_` between
/// digits, a `u`/`l` suffix. None for anything else (a function's name).
pub fn number(text: &str) -> Option<u64> {
    let t: String = text.chars().filter(|c| *c != '_').collect();
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).ok();
    }
    if !t.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if let Some((coeff, exp)) = t.split_once(['e', 'E']) {
        let (c, e): (u64, u32) = (coeff.parse().ok()?, exp.parse().ok()?);
        return c.checked_mul(10u64.checked_pow(e)?);
    }
    match t.strip_prefix('0').filter(|o| !o.is_empty()) {
        Some(octal) => u64::from_str_radix(octal, 8).ok(),
        None => t.parse().ok(),
    }
}

/// A macro variable's text given its name and where it is written (`None`: as written).
pub type MacroValue<'a> = dyn FnMut(&str, Span) -> Result<Option<String>, Diagnostic> + 'a;

/// The fields of a description written `text` at `span`. `value` gives a macro variable's
/// text (`value("1", span_of_$1)`); `None` keeps it as written (`$1`).
pub fn fields(text: &str, span: &Span, value: &mut MacroValue) -> Result<Vec<String>, Diagnostic> {
    let mut fields = vec![String::new()];
    let mut in_quotes = false;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let field = fields.last_mut().expect("one field at least");
        match c {
            ':' if !in_quotes => fields.push(String::new()),
            '"' => in_quotes = !in_quotes,
            '\\' if in_quotes => {
                if let Some((_, next)) = chars.next() {
                    field.push(next);
                }
            }
            '$' if !in_quotes => {
                let name_len = text[i + 1..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(text.len() - i - 1);
                let name = &text[i + 1..i + 1 + name_len];
                let at = span.start + i..span.start + i + 1 + name_len;
                match value(name, at)? {
                    Some(v) => field.push_str(v.as_str()),
                    None => field.push_str(&text[i..i + 1 + name_len]),
                }
                for _ in 0..name_len {
                    chars.next();
                }
            }
            c => field.push(c),
        }
    }
    if fields.len() > 1 {
        if let Some(long) = long_name(&fields[0]) {
            fields[0] = long.to_string();
        }
    }
    Ok(fields)
}

/// Where each field of `text` is written in it (quotes included): between the colons
/// outside quotes.
pub fn field_ranges(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let (mut start, mut in_quotes, mut escaped) = (0, false, false);
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_quotes => escaped = true,
            '"' => in_quotes = !in_quotes,
            ':' if !in_quotes => {
                out.push(start..i);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(start..text.len());
    out
}

/// The fields of `text` with its macro variables as written.
pub fn fields_as_written(text: &str) -> Vec<String> {
    fields(text, &(0..text.len()), &mut |_, _| Ok(None)).expect("keeping macro variables cannot fail")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_read_long() {
        assert_eq!(fields_as_written("t:syscalls:sys_enter_read"), ["tracepoint", "syscalls", "sys_enter_read"]);
        assert_eq!(fields_as_written("kr:vfs_read"), ["kretprobe", "vfs_read"]);
        assert_eq!(fields_as_written("U:/bin/app:p:q"), ["usdt", "/bin/app", "p", "q"]);
        assert_eq!(fields_as_written("fr:vfs_read"), ["fexit", "vfs_read"]);
        // Alone it is a name (D's `BEGIN`), and longer words are not short names.
        assert_eq!(fields_as_written("t"), ["t"]);
        assert_eq!(fields_as_written("tr:x"), ["tr", "x"]);
        assert_eq!(with_long_name("t:syscalls:*openat*"), "tracepoint:syscalls:*openat*");
        assert_eq!(with_long_name("*openat*"), "*openat*");
        assert_eq!(with_long_name("tracepoint:x"), "tracepoint:x");
    }

    #[test]
    fn numbers_as_bpftrace_reads_them() {
        for (text, want) in [("4", Some(4)), ("0x1000", Some(4096)), ("010", Some(8)), ("1e6", Some(1_000_000)), ("1_000", Some(1000)), ("16u", Some(16)), ("0", Some(0))] {
            assert_eq!(number(text), want, "{text}");
        }
        for text in ["", "readline", "0x", "1e", "9e30", "99999999999999999999", "08", "4k"] {
            assert_eq!(number(text), None, "{text}");
        }
    }

    #[test]
    fn field_ranges_are_as_written() {
        assert_eq!(field_ranges("t:a:b"), [0..1, 2..3, 4..5]);
        assert_eq!(field_ranges(r#"u:"x:\"y":f"#), [0..1, 2..9, 10..11]);
        assert_eq!(field_ranges("BEGIN"), vec![Span::from(0..5)]);
    }

    #[test]
    fn quotes_keep_colons_and_lose_their_marks() {
        assert_eq!(fields_as_written(r#"uprobe:"/bin/bash":readline"#), ["uprobe", "/bin/bash", "readline"]);
        assert_eq!(fields_as_written(r#"uprobe:/bin/bash:"readline""#), ["uprobe", "/bin/bash", "readline"]);
        assert_eq!(fields_as_written(r#"uprobe:"/a:b\"c":f"#), ["uprobe", "/a:b\"c", "f"]);
        assert_eq!(fields_as_written(r#"uprobe:"$1":f"#), ["uprobe", "$1", "f"]);
    }

    #[test]
    fn macro_variables_expand_inside_their_field() {
        let mut seen = Vec::new();
        let got = fields("interval:ms:$1", &(10..24), &mut |name, at| {
            seen.push((name.to_string(), at));
            Ok(Some("a:b".to_string()))
        })
        .unwrap();
        assert_eq!(got, ["interval", "ms", "a:b"]);
        assert_eq!(seen, [("1".to_string(), 22..24)]);
        let got = fields(r#"uprobe:/bin/$1:"$2""#, &(0..19), &mut |name, _| Ok(Some(format!("<{name}>")))).unwrap();
        assert_eq!(got, ["uprobe", "/bin/<1>", "$2"]);
        let e = fields("pid$x:a", &(0..7), &mut |name, at| Err(Diagnostic::new(at, format!("no ${name}")))).unwrap_err();
        assert_eq!((e.message.as_str(), e.span), ("no $x", 3..5));
    }
}
