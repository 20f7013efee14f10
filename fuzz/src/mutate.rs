//! Mutations of program text, at the level of bytes and of tokens: deletions, duplications,
//! swaps, truncation, splices between seeds, and insertions of what tends to break front
//! ends (huge numbers, deep nesting, long strings and globs, NULs, control bytes, non-ASCII
//! and multi-byte characters, printf format pieces and string escapes).

use crate::generate::Generator;
use crate::rng::Rng;
use crate::seeds::Corpus;

/// The largest input produced; bigger ones are cut (parsing them dominates a run's time).
pub const MAX_LEN: usize = 1 << 20;

/// Input number `index` of a run with `seed`: a seed or a generated program, mutated.
pub fn input(corpus: &Corpus, seed: u64, index: u64) -> String {
    let mut rng = Rng::for_input(seed, index);
    let generated = rng.one_in(3);
    let mut text = if generated { Generator::new(&mut rng).program() } else { corpus.seeds[rng.below(corpus.seeds.len())].text.clone() };
    // Some generated programs stay as they are: valid ones reach the code generator.
    let rounds = match (generated && rng.one_in(3), rng.one_in(8)) {
        (true, _) => 0,
        (false, true) => rng.log_size(16),
        (false, false) => rng.log_size(3),
    };
    let mut bytes = std::mem::take(&mut text).into_bytes();
    for _ in 0..rounds {
        bytes = mutate(bytes, corpus, &mut rng);
        bytes.truncate(MAX_LEN);
    }
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn mutate(b: Vec<u8>, corpus: &Corpus, rng: &mut Rng) -> Vec<u8> {
    match rng.below(100) {
        0..=34 => token_op(b, corpus, rng),
        35..=49 => byte_op(b, rng),
        50..=54 => splice(b, corpus, rng),
        55..=69 => {
            let piece = oddity(rng);
            insert_somewhere(b, piece.as_bytes(), rng)
        }
        70..=77 => replace_operand(b, rng, |rng| Generator::new(rng).expr(4)),
        78..=79 => format_piece(b, rng),
        80..=82 => replace_operand(b, rng, nesting),
        // Deep nesting where it is sure to be parsed: in a program that is otherwise valid.
        83..=84 => format!("BEGIN {{ trace({}); }}\n", nesting(rng)).into_bytes(),
        85..=89 => repetition(b, rng),
        _ => {
            let stmt = Generator::new(rng).statement();
            insert_at_token(b, format!("{stmt};").as_bytes(), rng)
        }
    }
}

/// Splits text into tokens whose concatenation is the text: identifiers, numbers, string
/// literals, runs of whitespace, comments, and single other characters.
pub fn tokens(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        if c.is_ascii_alphanumeric() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        } else if c.is_ascii_whitespace() {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
        } else if text[i..].starts_with("/*") {
            i = text[i + 2..].find("*/").map_or(b.len(), |n| i + n + 4);
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
        // A stray backslash before the end can overshoot in the middle of a character.
        while i < b.len() && !text.is_char_boundary(i) {
            i += 1;
        }
        out.push(&text[start..i.min(b.len())]);
    }
    out
}

fn token_op(b: Vec<u8>, corpus: &Corpus, rng: &mut Rng) -> Vec<u8> {
    let text = String::from_utf8_lossy(&b).into_owned();
    let mut toks: Vec<String> = tokens(&text).into_iter().map(str::to_string).collect();
    if toks.is_empty() {
        return rng.pick(&corpus.dict).clone().into_bytes();
    }
    let i = rng.below(toks.len());
    match rng.below(6) {
        0 => {
            let n = rng.log_size(4).min(toks.len() - i);
            toks.drain(i..i + n);
        }
        1 => {
            let max = if rng.one_in(10) { 10_000 } else { 8 };
            let n = rng.log_size(max);
            let t = toks[i].clone();
            toks.splice(i..i, std::iter::repeat_n(t, n));
        }
        2 => {
            let j = rng.below(toks.len());
            toks.swap(i, j);
        }
        3 => toks[i] = rng.pick(&corpus.dict).clone(),
        4 => toks.insert(i, rng.pick(&corpus.dict).clone()),
        _ => {
            let pad = *rng.pick(&["", " "]);
            toks.insert(i, format!("{pad}{}{pad}", rng.pick(&corpus.dict)));
        }
    }
    toks.concat().into_bytes()
}

fn byte_op(mut b: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    if b.is_empty() {
        return vec![rng.below(256) as u8];
    }
    let at = rng.below(b.len());
    let len = rng.log_size(16).min(b.len() - at);
    match rng.below(7) {
        0 => {
            b.drain(at..at + len);
        }
        1 => {
            let piece = b[at..at + len].to_vec();
            b.splice(at..at, piece);
        }
        2 => {
            let other = rng.below(b.len());
            let n = len.min(b.len() - other);
            if other >= at + len || other + n <= at {
                for k in 0..n {
                    b.swap(at + k, other + k);
                }
            }
        }
        3 => b.truncate(at),
        4 => b[at] ^= 1 << rng.below(8),
        5 => b[at] = *rng.pick(&[0, 1, 0x1b, 0x7f, 0x80, 0xc3, 0xe2, 0xff, b'\n', b'\r', b'"', b'\'', b'\\', b'%', b'$', b'@', b':', b'/']),
        _ => b.insert(at, rng.below(256) as u8),
    }
    b
}

/// A piece of another seed, inserted (or, half the time, the tail replaced by it).
fn splice(mut b: Vec<u8>, corpus: &Corpus, rng: &mut Rng) -> Vec<u8> {
    let other = corpus.seeds[rng.below(corpus.seeds.len())].text.as_bytes();
    if other.is_empty() {
        return b;
    }
    let from = rng.below(other.len());
    let to = rng.range(from, other.len());
    let at = rng.below(b.len() + 1);
    if rng.one_in(2) {
        b.truncate(at);
        b.extend_from_slice(&other[from..]);
        b
    } else {
        b.splice(at..at, other[from..to].iter().copied());
        b
    }
}

/// printf format pieces and string escapes, valid and not.
pub const FORMAT: &[&str] = &[
    "%£", "%é", "%z", "%zd", "%lld", "%hhd", "%-+ #010.5d", "%.d", "%5.2s", "%*d", "%.*d", "%1$d", "%n", "%p", "%f", "%e", "%Y",
    "%@d", "%@", "%", "%%", "%5%", "%-%", "%.65535d", "%.65536d", "%65536d", "%99999999999999999999d", "%..5d", "%c", "%s",
    "%lu", "%\u{202e}d", "%\0d", "\\?", "\\x", "\\xff", "\\xfff", "\\777", "\\400", "\\0", "\\q", "\\", "\\u00e9", "%\\n", "\\%",
];

/// Something odd to insert: a huge number, a long string or name, a strange character, a
/// printf format piece or string escape.
fn oddity(rng: &mut Rng) -> String {
    const HUGE: &[&str] = &[
        "18446744073709551615", "18446744073709551616", "9223372036854775807", "9223372036854775808", "0xffffffffffffffff",
        "0x10000000000000000", "01777777777777777777777", "02000000000000000000000", "08", "0128", "1ULL", "1LLU", "1uu", "0x",
        "99999999999999999999999999999999999999", "4294967296", "65536", "1e10", "0b101",
    ];
    const CHARS: &[&str] = &[
        "\0", "\u{1}", "\u{1b}", "\u{7f}", "\r", "\u{b}", "\u{c}", "\t", "\u{85}", "\u{a0}", "£", "é", "e\u{301}", "\u{202e}",
        "\u{feff}", "\u{2028}", "\u{fffd}", "\u{10ffff}", "😀", "ß", "ﬃ", "ı", "İ", "Ω", "中文",
    ];

    match rng.below(6) {
        0 => rng.pick(HUGE).to_string(),
        1 => rng.pick(CHARS).to_string(),
        2 => format!("\"{}\"", rng.pick(FORMAT)),
        3 => rng.pick(FORMAT).to_string(),
        4 => {
            let max = if rng.one_in(10) { 1 << 18 } else { 300 };
            let n = rng.log_size(max);
            match rng.below(4) {
                0 => format!("\"{}\"", "A".repeat(n)),
                1 => format!("x{}", "y".repeat(n)),
                2 => "7".repeat(n),
                _ => format!("\"{}\"", "%d".repeat(n)),
            }
        }
        _ => {
            let n = rng.log_size(64);
            (0..n).map(|_| rng.pick(CHARS).to_string()).collect()
        }
    }
}

/// A deeply nested or very long expression; usually modest, rarely huge (the depths at
/// which recursive descent runs out of stack).
fn nesting(rng: &mut Rng) -> String {
    let n = if rng.one_in(4) { rng.log_size(250_000) } else { rng.log_size(300) };
    match rng.below(9) {
        0 => format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        1 => format!("{}x", "!".repeat(n)),
        2 => format!("{}x", "~".repeat(n)),
        3 => format!("{}x", "- ".repeat(n)),
        4 => format!("{}1{}", "1 ? ".repeat(n), " : 0".repeat(n)),
        5 => format!("1{}", " + 1".repeat(n)),
        6 => format!("arg0{}", rng.pick(&[" * arg1", " && arg0", " << 1", " - arg2", " / arg0", " % 3", " == 1", " ^^ 1"]).repeat(n)),
        7 => format!("{}0{}", "trace(".repeat(n), ")".repeat(n)),
        _ => format!("{}1{}", "(1 + (arg0 * ".repeat(n), "))".repeat(n)),
    }
}

/// Many copies of a construct: clauses, probe descriptions, statements, glob characters,
/// probe fields.
fn repetition(b: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    let n = if rng.one_in(4) { rng.log_size(200_000) } else { rng.log_size(100) };
    let piece = match rng.below(8) {
        0 => "BEGIN { x = 1; }\n".repeat(n.min(5_000)),
        1 => format!("{} {{ @[probefunc] = count(); }}\n", vec!["syscall::read:entry"; n.min(20_000)].join(",")),
        2 => format!("syscall:::entry {{ {} }}\n", "@a[arg0, arg1] = sum(arg2); printf(\"%d %s\\n\", arg0, execname); ".repeat(n.min(5_000))),
        3 => format!("syscall::{}:entry\n", "*".repeat(n)),
        4 => format!("syscall::{}:entry\n", "[a-z]".repeat(n)),
        5 => format!("{} {{ }}\n", vec!["a"; n.min(1_000) + 4].join(":")),
        6 => format!("tracepoint:{}:*\n", "?".repeat(n)),
        _ => format!("BEGIN {{ {} }}\n", "self->a = self->a + 1; ".repeat(n.min(20_000))),
    };
    let at = if rng.one_in(2) { b.len() } else { rng.below(b.len() + 1) };
    let mut b = b;
    b.splice(at..at, piece.bytes());
    b
}

/// A format piece or escape inside a string literal (a printf format, likely).
fn format_piece(b: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    let text = String::from_utf8_lossy(&b).into_owned();
    let mut toks: Vec<String> = tokens(&text).into_iter().map(str::to_string).collect();
    let strings: Vec<usize> = toks.iter().enumerate().filter(|(_, t)| t.len() >= 2 && t.starts_with('"') && t.ends_with('"')).map(|(i, _)| i).collect();
    if strings.is_empty() {
        return insert_somewhere(b, rng.pick(FORMAT).as_bytes(), rng);
    }
    let t = &mut toks[*rng.pick(&strings)];
    let mut at = rng.range(1, t.len() - 1);
    while !t.is_char_boundary(at) {
        at -= 1;
    }
    t.insert_str(at.max(1), rng.pick::<&str>(FORMAT));
    toks.concat().into_bytes()
}

fn insert_somewhere(mut b: Vec<u8>, piece: &[u8], rng: &mut Rng) -> Vec<u8> {
    // Inside a string literal when there is one (format pieces matter there), else anywhere.
    let quotes: Vec<usize> = b.iter().enumerate().filter(|(_, &c)| c == b'"').map(|(i, _)| i + 1).collect();
    let at = if !quotes.is_empty() && rng.one_in(2) { *rng.pick(&quotes) } else { rng.below(b.len() + 1) };
    b.splice(at..at, piece.iter().copied());
    b
}

fn insert_at_token(b: Vec<u8>, piece: &[u8], rng: &mut Rng) -> Vec<u8> {
    let text = String::from_utf8_lossy(&b).into_owned();
    let toks = tokens(&text);
    let at: usize = toks[..rng.below(toks.len() + 1)].iter().map(|t| t.len()).sum();
    let mut out = text.into_bytes();
    out.splice(at..at, piece.iter().copied());
    out
}

/// Replaces a number or name (an operand, probably) with `make`'s expression.
fn replace_operand(b: Vec<u8>, rng: &mut Rng, make: impl FnOnce(&mut Rng) -> String) -> Vec<u8> {
    let text = String::from_utf8_lossy(&b).into_owned();
    let mut toks: Vec<String> = tokens(&text).into_iter().map(str::to_string).collect();
    let operands: Vec<usize> = toks.iter().enumerate().filter(|(_, t)| t.as_bytes()[0].is_ascii_alphanumeric()).map(|(i, _)| i).collect();
    let replacement = make(rng);
    match operands.is_empty() {
        true => toks.push(replacement),
        false => {
            let i = *rng.pick(&operands);
            toks[i] = replacement;
        }
    }
    toks.concat().into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_cover_the_text() {
        for text in ["BEGIN { printf(\"%d\\n\", 1+x); } /* c */ £", "\"unterminated \\", "a\\", "é\\é"] {
            assert_eq!(tokens(text).concat(), text);
        }
        assert_eq!(tokens("x+=12 \"a b\""), ["x", "+", "=", "12", " ", "\"a b\""]);
    }
}
