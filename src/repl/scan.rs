//! A forgiving scan of a program being typed: what each stretch of text is (for the
//! highlighter) and where the cursor stands (for completion). It never fails: the text is
//! usually incomplete, and the parser proper judges it when it runs.

use std::ops::Range;

/// What a stretch of the text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Comment,
    Str,
    Number,
    Keyword,
    /// A probe description (`syscall::read:entry`, `BEGIN`, `kprobe:vfs_read`).
    Probe,
    /// An aggregation or bpftrace map name (`@a`).
    Agg,
    Ident,
    Punct,
}

/// Words the D and bpftrace grammars reserve.
const KEYWORDS: &[&str] = &[
    "char", "short", "int", "long", "signed", "unsigned", "void", "bool", "const", "volatile", "struct", "union", "enum", "sizeof", "offsetof", "typedef", "if", "else", "inline", "translator",
    "xlate", "self", "this", "return", "while", "for", "let", "config", "unroll", "break", "continue", "string", "macro",
];

/// Where the end of the scanned text is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// Among a clause's probe descriptions; the current one starts at `start`.
    Probe { start: usize },
    /// In a clause's predicate.
    Predicate { header: usize, slash: usize },
    /// In a clause's actions: its descriptions (and predicate) are `header..open`, `open`
    /// being its `{`.
    Body { header: usize, open: usize },
    /// In a string or comment: nothing to complete.
    Quoted,
}

/// The scan of a text: its stretches, and where its end is.
pub struct Scan {
    pub spans: Vec<(Range<usize>, Kind)>,
    pub place: Place,
}

/// The stretches of `text` and where its end stands.
pub fn scan(text: &str) -> Scan {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let mut depth = 0usize; // braces
    let mut header = 0usize; // where the current clause's descriptions start
    let mut open = 0usize; // the current clause's `{`
    let mut predicate: Option<usize> = None; // the predicate's opening `/`
    let mut probe_start: Option<usize> = None;
    let mut quoted = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        quoted = false;
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i = text[i + 2..].find("*/").map_or(b.len(), |j| i + 2 + j + 2);
            quoted = !text[start..i].ends_with("*/") || i - start < 4;
            spans.push((start..i, Kind::Comment));
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') || (c == b'#' && depth == 0 && predicate.is_none()) {
            i = text[i..].find('\n').map_or(b.len(), |j| i + j);
            quoted = i == b.len();
            spans.push((start..i, Kind::Comment));
            continue;
        }
        if c == b'"' || c == b'\'' {
            i += 1;
            let mut closed = false;
            while i < b.len() {
                if b[i] == b'\\' {
                    i += 2;
                    continue;
                }
                i += 1;
                if b[i - 1] == c {
                    closed = true;
                    break;
                }
            }
            i = i.min(b.len());
            quoted = !closed;
            spans.push((start..i, Kind::Str));
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // Among the descriptions: a description runs to a space, `{` or `,` (a path in it
        // may hold `/`); a `/` starting a word opens the predicate.
        if depth == 0 && predicate.is_none() {
            match c {
                b'{' => {
                    depth = 1;
                    open = i;
                    spans.push((i..i + 1, Kind::Punct));
                    i += 1;
                }
                b'/' => {
                    predicate = Some(i);
                    spans.push((i..i + 1, Kind::Punct));
                    i += 1;
                }
                b',' | b'}' | b';' | b'=' => {
                    probe_start = None;
                    spans.push((i..i + 1, Kind::Punct));
                    i += 1;
                }
                _ => {
                    while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'{' | b',' | b'"') {
                        i += 1;
                    }
                    probe_start = Some(start);
                    let word = &text[start..i];
                    let kind = if KEYWORDS.contains(&word) { Kind::Keyword } else { Kind::Probe };
                    spans.push((start..i, kind));
                }
            }
            continue;
        }
        if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            spans.push((start..i, Kind::Number));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'@' || c == b'$' {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            let kind = match c {
                b'@' => Kind::Agg,
                _ if KEYWORDS.contains(&word) => Kind::Keyword,
                _ => Kind::Ident,
            };
            spans.push((start..i, kind));
            continue;
        }
        match c {
            b'/' if depth == 0 => {
                // The predicate's closing `/`.
                predicate = None;
                probe_start = None;
            }
            b'{' => {
                if depth == 0 {
                    open = i;
                }
                depth += 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    header = i + 1;
                    probe_start = None;
                }
            }
            _ => {}
        }
        spans.push((i..i + 1, Kind::Punct));
        i += c.len_utf8_at(text, i);
    }
    let place = if quoted {
        Place::Quoted
    } else if depth > 0 {
        Place::Body { header, open }
    } else if let Some(slash) = predicate {
        Place::Predicate { header, slash }
    } else {
        Place::Probe { start: probe_start.filter(|s| text[*s..].bytes().all(|c| !c.is_ascii_whitespace())).unwrap_or(b.len()) }
    };
    Scan { spans, place }
}

trait Utf8Len {
    fn len_utf8_at(self, text: &str, i: usize) -> usize;
}

impl Utf8Len for u8 {
    /// The length of the character starting at byte `i` (the scan steps over non-ASCII
    /// text a character at a time).
    fn len_utf8_at(self, text: &str, i: usize) -> usize {
        text[i..].chars().next().map_or(1, char::len_utf8)
    }
}

/// Where the name that ends `text` starts: the run of ASCII letters, digits, `_` and the
/// characters `also` at its end.
pub fn name_start(text: &str, also: &[char]) -> usize {
    text.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_' || also.contains(&c)).len()
}

/// The expression whose members are asked for: the postfix chain ending at `end` (before a
/// `->` or `.`), such as `curthread`, `args[0]->f_path`, `((struct file *)arg0)->f_path`
/// or `this->f`. Its start, or None if nothing there is an expression.
pub fn chain_start(text: &str, end: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = end;
    loop {
        // A name, or a bracketed or parenthesized group (an index, a call's arguments, a cast
        // in parentheses).
        let mut moved = false;
        while i > 0 && matches!(b[i - 1], b']' | b')') {
            let close = b[i - 1];
            let open = if close == b']' { b'[' } else { b'(' };
            let mut depth = 0i32;
            let mut j = i;
            loop {
                if j == 0 {
                    return None;
                }
                j -= 1;
                if b[j] == close {
                    depth += 1;
                } else if b[j] == open {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
            i = j;
            moved = true;
        }
        let name_end = i;
        while i > 0 && (b[i - 1].is_ascii_alphanumeric() || matches!(b[i - 1], b'_' | b'@' | b'$')) {
            i -= 1;
        }
        if i == name_end && !moved {
            return None;
        }
        // Continue over `->` or `.` to what it reads a member of.
        if text[..i].ends_with("->") {
            i -= 2;
        } else if i > 0 && b[i - 1] == b'.' {
            i -= 1;
        } else {
            return Some(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places() {
        assert_eq!(scan("syscall::re").place, Place::Probe { start: 0 });
        assert_eq!(scan("BEGIN {} syscall::re").place, Place::Probe { start: 9 });
        assert_eq!(scan("a:::entry, b:::e").place, Place::Probe { start: 11 });
        assert_eq!(scan("syscall::read:entry ").place, Place::Probe { start: 20 });
        assert_eq!(scan("syscall::read:entry /exec").place, Place::Predicate { header: 0, slash: 20 });
        assert_eq!(scan("BEGIN {} syscall::read:entry /pid == 1/ { x = ").place, Place::Body { header: 8, open: 40 });
        assert_eq!(scan("uprobe:/bin/bash:readline { printf(\"{").place, Place::Quoted);
        assert_eq!(scan("BEGIN { /* x").place, Place::Quoted);
        assert_eq!(scan("BEGIN { if (1) { x = 1; } y").place, Place::Body { header: 0, open: 6 });
    }

    #[test]
    fn kinds() {
        let s = scan("syscall::read:entry /execname == \"cat\"/ { @n[probefunc] = count(); }");
        let kinds: Vec<Kind> = s.spans.iter().map(|(_, k)| *k).collect();
        assert_eq!(&kinds[..5], &[Kind::Probe, Kind::Punct, Kind::Ident, Kind::Punct, Kind::Punct]);
        assert!(s.spans.iter().any(|(r, k)| *k == Kind::Str && r.len() == 5));
        assert!(s.spans.iter().any(|(_, k)| *k == Kind::Agg));
        assert_eq!(scan("uprobe:/bin/bash:readline {").spans[0], (0..25, Kind::Probe));
    }

    #[test]
    fn chains() {
        let t = "x = ((struct file *)arg0)->f_path.";
        assert_eq!(chain_start(t, t.len() - 1), Some(4));
        let t = "@[curthread->";
        assert_eq!(chain_start(t, t.len() - 2), Some(2));
        let t = "trace(args[0]->f_path.dentry->";
        assert_eq!(&t[chain_start(t, t.len() - 2).unwrap()..], "args[0]->f_path.dentry->");
        assert_eq!(chain_start("x = (", 5), None);
    }
}
