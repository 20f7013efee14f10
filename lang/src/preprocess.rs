//! The C preprocessor lines bpftrace scripts carry (bpftrace runs them through clang's):
//! `#define NAME value` constants, and `#ifdef`/`#ifndef`/`#if`/`#elif`/`#else`/`#endif`
//! choosing lines, with `BPFTRACE_HAVE_BTF` defined (crumbs reads the kernel's types from
//! its BTF). No C preprocessor runs: the directives and the lines a condition leaves out
//! become spaces, so every other byte keeps its place and diagnostics point into the text
//! as written; each constant becomes an `inline` declaration of its value.
//! `#include` lines are left for the parser (§3.1); function-like macros are an error.

use crate::diag::Diagnostic;
use std::ops::Range;

/// A `#define NAME value`: the name, and where its value is in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Define {
    pub name: String,
    pub name_span: Range<usize>,
    pub value: Range<usize>,
}

/// Names defined before the script's own lines.
const PREDEFINED: &[&str] = &["BPFTRACE_HAVE_BTF"];

/// The text with directives and left-out lines blanked, and the constants it defines.
pub fn preprocess(src: &str) -> Result<(String, Vec<Define>), Diagnostic> {
    let mut out = String::with_capacity(src.len());
    let mut defines: Vec<Define> = Vec::new();
    let mut defined: Vec<String> = PREDEFINED.iter().map(|s| s.to_string()).collect();
    // Each open #if: whether its lines are kept, whether a branch was taken, and where it is.
    let mut open: Vec<(bool, bool, Range<usize>)> = Vec::new();
    let mut at = 0;
    let mut in_comment = false;
    for line in src.split_inclusive('\n') {
        let span = at..at + line.trim_end_matches('\n').len();
        at += line.len();
        let active = open.iter().all(|(keep, _, _)| *keep);
        let text = line.trim_start();
        // C removes comments before it reads directives: a `#` line inside /* */ is text.
        let commented = in_comment;
        in_comment = ends_in_comment(line, in_comment);
        let Some(directive) = text.strip_prefix('#').filter(|_| !commented).map(str::trim_start) else {
            out.push_str(&if active { line.to_string() } else { blank(line) });
            continue;
        };
        let word: String = directive.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        let rest = directive[word.len()..].trim();
        match word.as_str() {
            "ifdef" | "ifndef" | "if" => {
                let cond = condition(&word, rest, &defined, &span)?;
                open.push((cond, cond, span.clone()));
            }
            "elif" | "else" => {
                let Some((keep, taken, _)) = open.last_mut() else {
                    return Err(Diagnostic::new(span, format!("#{word} without #if")).label("nothing to continue").hint("#else and #elif follow #if, #ifdef or #ifndef"));
                };
                let cond = if word == "else" { true } else { condition("if", rest, &defined, &span)? };
                *keep = !*taken && cond;
                *taken |= cond;
            }
            "endif" => {
                if open.pop().is_none() {
                    return Err(Diagnostic::new(span, "#endif without #if").label("nothing to end").hint("#endif ends an #if, #ifdef or #ifndef"));
                }
            }
            "define" if active => {
                let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                let line_start = span.start + (line.len() - line.trim_start().len());
                let name_at = line_start + text.find(&name as &str).unwrap_or(0);
                if name.is_empty() {
                    return Err(Diagnostic::new(span, "#define without a name").label("no name").hint("write #define NAME value"));
                }
                let after = &rest[name.len()..];
                if after.starts_with('(') {
                    return Err(Diagnostic::new(name_at..name_at + name.len(), format!("`{name}` is a function-like macro"))
                        .label("takes arguments")
                        .hint("crumbs takes #define NAME value constants, not macros with arguments"));
                }
                let value = after.trim();
                if !value.is_empty() {
                    let start = line_start + text.len() - text[text.find(&name as &str).unwrap_or(0) + name.len()..].trim_start().len();
                    defines.retain(|d| d.name != name);
                    defines.push(Define { name: name.clone(), name_span: name_at..name_at + name.len(), value: start..start + value.len() });
                }
                defined.push(name);
            }
            "undef" if active => {
                defined.retain(|d| d != rest);
                defines.retain(|d| d.name != rest);
            }
            // The parser reads #include and #pragma, and a first line's `#!` (and the C
            // comments around them).
            "include" | "pragma" | "" if active => {
                out.push_str(line);
                continue;
            }
            "define" | "undef" | "include" | "pragma" | "" => {}
            _ if !active => {}
            _ => {
                return Err(Diagnostic::new(span, format!("`#{word}` is a C preprocessor directive crumbs does not run"))
                    .label("not understood")
                    .hint("crumbs reads #include, #define NAME value, #undef, #if/#ifdef/#ifndef, #elif, #else and #endif"))
            }
        }
        out.push_str(&blank(line));
    }
    if let Some((_, _, span)) = open.pop() {
        return Err(Diagnostic::new(span, "#if without #endif").label("never ended").hint("end it with #endif"));
    }
    Ok((out, defines))
}

/// Whether a line that begins inside a block comment (`in_comment`) or not ends inside one;
/// string and character literals and `//` comments are skipped.
fn ends_in_comment(line: &str, mut in_comment: bool) -> bool {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if in_comment {
            if b[i..].starts_with(b"*/") {
                in_comment = false;
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            in_comment = true;
            i += 1;
        } else if b[i..].starts_with(b"//") {
            break;
        } else if b[i] == b'"' || b[i] == b'\'' {
            let quote = b[i];
            i += 1;
            while i < b.len() && b[i] != quote {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
        }
        i += 1;
    }
    in_comment
}

/// A line as spaces, byte for byte (its newline kept).
fn blank(line: &str) -> String {
    line.bytes().map(|b| if b == b'\n' { '\n' } else { ' ' }).collect()
}

/// Whether an `#ifdef NAME`, `#ifndef NAME` or `#if COND` keeps its lines; `#if` takes
/// `0`, `1`, `defined(NAME)`, `defined NAME` and `!` before them.
fn condition(word: &str, rest: &str, defined: &[String], span: &Range<usize>) -> Result<bool, Diagnostic> {
    let is = |n: &str| defined.iter().any(|d| d == n.trim());
    match word {
        "ifdef" => return Ok(is(rest)),
        "ifndef" => return Ok(!is(rest)),
        _ => {}
    }
    let (neg, e) = match rest.strip_prefix('!') {
        Some(e) => (true, e.trim()),
        None => (false, rest),
    };
    let v = match e {
        "0" => false,
        "1" => true,
        _ => match e.strip_prefix("defined") {
            Some(n) => is(n.trim().trim_start_matches('(').trim_end_matches(')')),
            None => {
                return Err(Diagnostic::new(span.clone(), format!("crumbs cannot evaluate `#if {rest}`"))
                    .label("not understood")
                    .hint("#if takes 0, 1, defined(NAME) or !defined(NAME); #ifdef and #ifndef test one name"))
            }
        },
    };
    Ok(v != neg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_every_other_byte_in_place() {
        let src = "#!/usr/bin/env bpftrace\n#ifndef BPFTRACE_HAVE_BTF\n#include <linux/sched.h>\n#else\n#include <linux/socket.h>\n#endif\n#define MAX 10\n#define NAME \"x\"\nBEGIN { @ = MAX; }\n";
        let (out, defs) = preprocess(src).unwrap();
        assert_eq!(out.len(), src.len());
        let kept: Vec<&str> = out.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        assert_eq!(kept, ["#!/usr/bin/env bpftrace", "#include <linux/socket.h>", "BEGIN { @ = MAX; }"]);
        assert_eq!(&out[out.find("BEGIN").unwrap()..], &src[src.find("BEGIN").unwrap()..]);
        assert_eq!(defs.iter().map(|d| (d.name.as_str(), &src[d.value.clone()], &src[d.name_span.clone()])).collect::<Vec<_>>(), [("MAX", "10", "MAX"), ("NAME", "\"x\"", "NAME")]);
    }

    #[test]
    fn conditions_and_errors() {
        let (out, _) = preprocess("#if 0\nA\n#elif defined(BPFTRACE_HAVE_BTF)\nB\n#else\nC\n#endif\n").unwrap();
        assert_eq!(out.split_whitespace().collect::<Vec<_>>(), ["B"]);
        assert!(preprocess("#ifdef X\n").unwrap_err().message.contains("#if without #endif"));
        assert!(preprocess("#endif\n").unwrap_err().message.contains("#endif without #if"));
        assert!(preprocess("#define F(x) x\n").unwrap_err().message.contains("function-like macro"));
        assert!(preprocess("#if X > 1\n#endif\n").unwrap_err().message.contains("cannot evaluate"));
        assert!(preprocess("#error no\n").unwrap_err().message.contains("does not run"));
    }

    #[test]
    fn a_hash_line_inside_a_block_comment_is_text() {
        let src = "/*\n # need changes\n#define X 1\n */ #define Y 2\nBEGIN { printf(\"/*\"); }\n#define Z 3\n";
        let (out, defs) = preprocess(src).unwrap();
        assert_eq!(out, src.replace("#define Z 3", "           "));
        assert_eq!(defs.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), ["Z"]);
    }
}
