//! The seed corpus and the mutators' dictionary, gathered from the repository: the scripts,
//! the curated `fuzz/seeds/`, the snapshot tests' programs (`tests/snapshots/`), the examples in spec.md and README.md (code blocks, inline
//! code and `crumbs -e '...'` lines) and the program strings of the tests. A new construct
//! is covered by adding a seed to `fuzz/seeds/` (or a test or spec example that uses it).

use crate::catalog;
use std::path::Path;

pub struct Seed {
    /// Where it came from, for reports (`scripts/opensnoop.d`, `spec.md:123`).
    pub origin: String,
    pub text: String,
}

pub struct Corpus {
    pub seeds: Vec<Seed>,
    /// Tokens and fragments the mutators insert: builtins, providers, operators, and every
    /// token and inline example the seeds and docs contain.
    pub dict: Vec<String>,
}

/// Reads every seed source under `root` (the workspace), in a fixed order.
pub fn load(root: &Path) -> Result<Corpus, String> {
    let mut seeds = Vec::new();
    let mut fragments = Vec::new();
    for dir in ["scripts", "fuzz/seeds", "tests/snapshots"] {
        // D programs and bpftrace ones (each compiled in the dialect its syntax says).
        let mut paths = sorted_files(&root.join(dir), "d")?;
        paths.extend(sorted_files(&root.join(dir), "bt")?);
        for path in paths {
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            seeds.push(Seed { origin: format!("{dir}/{}", path.file_name().unwrap().to_string_lossy()), text });
        }
    }
    for doc in ["spec.md", "README.md"] {
        let path = root.join(doc);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        from_markdown(doc, &text, &mut seeds, &mut fragments);
    }
    // The tests, and lang's unit tests (with the rest of lang's sources, which only adds a
    // few message strings that look like programs).
    let mut test_files = sorted_files(&root.join("tests"), "rs")?;
    for dir in ["lang/src", "lang/src/check"] {
        test_files.extend(sorted_files(&root.join(dir), "rs")?);
    }
    for path in test_files {
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path.strip_prefix(root).unwrap_or(&path).display().to_string();
        for (line, s) in rust_strings(&text) {
            if looks_like_program(&s) {
                if s.contains("{{") {
                    seeds.push(Seed { origin: format!("{name}:{line}"), text: s.replace("{{", "{").replace("}}", "}") });
                }
                seeds.push(Seed { origin: format!("{name}:{line}"), text: s });
            }
        }
    }
    if seeds.is_empty() {
        return Err(format!("no seeds under {} (is it the crumbs workspace?)", root.display()));
    }
    let mut dict = builtin_words();
    for s in &seeds {
        dict.extend(crate::mutate::tokens(&s.text).into_iter().filter(|t| !t.trim().is_empty()).map(str::to_string));
    }
    dict.extend(fragments);
    dict.sort();
    dict.dedup();
    Ok(Corpus { seeds, dict })
}

fn sorted_files(dir: &Path, ext: &str) -> Result<Vec<std::path::PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files: Vec<_> = entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == ext)).collect();
    files.sort();
    Ok(files)
}

/// Whether a string is (probably) a D program rather than some other test string.
fn looks_like_program(s: &str) -> bool {
    const MARKS: &[&str] = &["BEGIN", "END", "syscall:", "tracepoint:", "tp:", "profile-", "tick-", "#pragma", ":entry", ":return", "dtrace:"];
    s.len() < 20_000 && MARKS.iter().any(|m| s.contains(m))
}

/// Programs in fenced blocks and inline code, and the arguments of `-e '...'`; inline code
/// that is not a program (an expression, a format, a constant) becomes a fragment.
fn from_markdown(doc: &str, text: &str, seeds: &mut Vec<Seed>, fragments: &mut Vec<String>) {
    let mut fence: Option<(usize, String)> = None;
    let mut block = String::new();
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        if let Some(lang) = line.trim_start().strip_prefix("```") {
            match fence.take() {
                None => {
                    fence = Some((line_no, lang.trim().to_string()));
                    block.clear();
                }
                Some((start, lang)) => {
                    if lang == "d" || (lang.is_empty() && looks_like_program(&block)) {
                        seeds.push(Seed { origin: format!("{doc}:{start}"), text: block.clone() });
                    }
                }
            }
            continue;
        }
        if fence.is_some() {
            block.push_str(line);
            block.push('\n');
        }
        for program in command_line_programs(line) {
            seeds.push(Seed { origin: format!("{doc}:{line_no}"), text: program });
        }
        if fence.is_none() {
            for span in inline_code(line) {
                if looks_like_program(span) {
                    seeds.push(Seed { origin: format!("{doc}:{line_no}"), text: span.to_string() });
                } else {
                    fragments.push(span.to_string());
                }
            }
        }
    }
}

/// The single-quoted arguments of `-e`/`-n` on a command line.
fn command_line_programs(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for flag in ["-e '", "-n '"] {
        let mut rest = line;
        while let Some(at) = rest.find(flag) {
            rest = &rest[at + flag.len()..];
            if let Some(end) = rest.find('\'') {
                out.push(rest[..end].to_string());
                rest = &rest[end + 1..];
            }
        }
    }
    out
}

/// The `code` spans of one markdown line (single backticks; ``double`` ones too).
fn inline_code(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find('`') {
        let ticks = rest[at..].bytes().take_while(|&b| b == b'`').count();
        let delim = &rest[at..at + ticks];
        let body = &rest[at + ticks..];
        match body.find(delim) {
            Some(end) => {
                let span = body[..end].trim();
                if !span.is_empty() {
                    out.push(span);
                }
                rest = &body[end + ticks..];
            }
            None => break,
        }
    }
    out
}

/// The string literals of a Rust source file, unescaped, with their line numbers: plain
/// `"..."` and raw `r#"..."#`. Comments and character literals are skipped only as far as
/// needed not to lose track of quotes.
pub fn rust_strings(src: &str) -> Vec<(usize, String)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let line_of = |i: usize| src[..i].bytes().filter(|&c| c == b'\n').count() + 1;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => i = src[i..].find('\n').map_or(b.len(), |n| i + n),
            b'/' if b.get(i + 1) == Some(&b'*') => i = src[i + 2..].find("*/").map_or(b.len(), |n| i + n + 4),
            b'r' if (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#')) && (i == 0 || !is_ident(b[i - 1])) => {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let start = i + 2 + hashes;
                let close = format!("\"{}", "#".repeat(hashes));
                let Some(len) = src[start..].find(&close) else { break };
                out.push((line_of(i), src[start..start + len].to_string()));
                i = start + len + close.len();
            }
            b'\'' => {
                // A char literal ('x', '\n', '\u{..}') or a lifetime: skip the literal only.
                let rest = &src[i + 1..];
                let skip = match rest.chars().next() {
                    Some('\\') => rest[1..].find('\'').map_or(0, |n| n + 2),
                    Some(c) if rest[c.len_utf8()..].starts_with('\'') => c.len_utf8() + 1,
                    _ => 0,
                };
                i += 1 + skip;
            }
            b'"' => {
                let (s, end) = rust_unescape(&src[i + 1..]);
                out.push((line_of(i), s));
                i += 1 + end;
            }
            _ => i += 1,
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Unescapes the body of a Rust string literal up to its closing quote; returns the text
/// and the number of bytes consumed (the quote included).
fn rust_unescape(body: &str) -> (String, usize) {
    let mut out = String::new();
    let mut chars = body.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return (out, at + 1),
            '\\' => match chars.next().map(|(_, e)| e) {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('0') => out.push('\0'),
                Some('x') => {
                    let hex: String = (0..2).filter_map(|_| chars.next().map(|(_, h)| h)).collect();
                    out.push(u8::from_str_radix(&hex, 16).map_or('?', char::from));
                }
                Some('u') => {
                    let mut hex = String::new();
                    for (_, h) in chars.by_ref() {
                        match h {
                            '{' => {}
                            '}' => break,
                            h => hex.push(h),
                        }
                    }
                    out.push(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).unwrap_or('?'));
                }
                Some('\n') => {
                    while chars.peek().is_some_and(|(_, w)| w.is_whitespace()) {
                        chars.next();
                    }
                }
                Some(other) => out.push(other),
                None => break,
            },
            c => out.push(c),
        }
    }
    (out, body.len())
}

/// Words the mutators insert regardless of the seeds: every builtin variable, function and
/// provider from lang's tables, the tracepoints and fields of the fixed catalog, operators,
/// and pieces that have broken crumbs-like front ends before.
fn builtin_words() -> Vec<String> {
    use crumbs_lang::{builtins, providers};
    let mut w: Vec<String> = builtins::VARIABLES.iter().flat_map(|v| std::iter::once(v.name).chain(v.aliases.iter().copied())).map(str::to_string).collect();
    w.extend(builtins::FUNCTIONS.iter().flat_map(|f| [f.name.to_string(), format!("{}(", f.name), f.signature.to_string()]));
    w.extend(providers::PROVIDERS.iter().map(|p| p.name().to_string()));
    w.extend(catalog::names().flat_map(|n| [format!("tracepoint:{n}"), format!("tp:{n}")]));
    w.extend(catalog::field_names().iter().map(|f| format!("args->{f}")));
    const WORDS: &[&str] = &[
        "BEGIN", "END", "entry", "return", "vmlinux", "profile-997", "tick-1s", "tick-10us", "profile-1ns", "tick-0", "profile-4001hz",
        "self->x", "this->y", "self ->", "this-> ", "args->", "@", "@a", "@[", "]", "$target", "$0", "$1", "$$1", "$2", "$99", "$x",
        "#pragma D option quiet\n", "#pragma D option bufsize=4k\n", "#pragma D option bufsize=1g\n", "#pragma D option aggsortkey\n",
        "#pragma D option aggsortrev=0\n", "#pragma D option switchrate=10hz\n", "#pragma D option nope\n", "#!/usr/bin/env -S crumbs -s\n",
        "#pragma D option aggpack\n", "#pragma D option aggsortpos=1\n", "#pragma D option aggsortkeypos=0x1\n", "@a, @b",
        "+", "-", "*", "/", "%", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&", "^", "|", "&&", "^^", "||", "?", ":", "!", "~",
        "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--", ",", ";", "(", ")", "{", "}", "<", ">",
        "/*", "*/", "//", "\n", "\t", " ", "'a'", "'\\377'", "'\\x41\\x42'", "'é'", "\"\"", "\"%s\"", "\"\\377\"",
        "::", ":::", "*:*:*:*", "syscall:::", "syscall::read*:", "syscall::[a-c]*:entry", "syscall::?:entry", "syscall::[!r]ead:return",
        "a:b:c:d:e", "tracepoint:sched:", "tracepoint:*:*", "tp:syscalls:sys_enter_*", "tracepoint:sched::sched_switch",
    ];
    w.extend(WORDS.iter().map(|s| s.to_string()));
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rust_strings() {
        let src = "let a = \"BEGIN { printf(\\\"%d\\\\n\\\", 1); }\"; // \"not\"\nlet c = '\"'; let b = r#\"END { x = \"y\"; }\"#;";
        let got: Vec<String> = rust_strings(src).into_iter().map(|(_, s)| s).collect();
        assert_eq!(got, ["BEGIN { printf(\"%d\\n\", 1); }", "END { x = \"y\"; }"]);
    }

    #[test]
    fn reads_markdown() {
        let md = "Run `BEGIN { exit(0); }` or `x + 1`.\n\n```sh\ncrumbs -q -e 'tick-1s { trace(1); }' -c ls\n```\n";
        let (mut seeds, mut frags) = (Vec::new(), Vec::new());
        from_markdown("t.md", md, &mut seeds, &mut frags);
        let texts: Vec<&str> = seeds.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(texts, ["BEGIN { exit(0); }", "tick-1s { trace(1); }"]);
        assert_eq!(frags, ["x + 1"]);
    }
}
