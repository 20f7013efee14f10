//! Colours for the line being typed (probe descriptions, keywords, strings, numbers,
//! comments, aggregations) and the hint after the cursor: a function's signature once its
//! `(` is typed, or the rest of the one name that starts with the word typed.

use super::scan::{name_start, scan, Kind, Place};
use crumbs_lang::builtins::{FUNCTIONS, VARIABLES};

/// The ANSI colour of a kind of text (None: as typed).
fn colour(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::Probe => Some("\x1b[1;36m"),
        Kind::Keyword => Some("\x1b[35m"),
        Kind::Str => Some("\x1b[32m"),
        Kind::Number => Some("\x1b[33m"),
        Kind::Comment => Some("\x1b[90m"),
        Kind::Agg => Some("\x1b[34m"),
        Kind::Ident | Kind::Punct => None,
    }
}

/// `line` with ANSI colours around what [`scan`] tells apart.
pub fn highlight(line: &str) -> String {
    let mut out = String::with_capacity(line.len() * 2);
    let mut at = 0;
    for (range, kind) in scan(line).spans {
        let Some(c) = colour(kind) else { continue };
        out.push_str(&line[at..range.start]);
        out.push_str(c);
        out.push_str(&line[range.clone()]);
        out.push_str("\x1b[0m");
        at = range.end;
    }
    out.push_str(&line[at..]);
    out
}

/// What the hint shows after the cursor, and what accepting it (→) inserts.
pub struct Hint {
    pub shown: String,
    pub inserted: Option<String>,
}

/// The hint for the cursor at the end of `line`.
pub fn hint(line: &str) -> Option<Hint> {
    // Names are hinted in predicates and actions, not among probe descriptions.
    if !matches!(scan(line).place, Place::Body { .. } | Place::Predicate { .. }) {
        return None;
    }
    let at = name_start(line, &[]);
    let word = &line[at..];
    // Just after `name(`: the signature's parameters.
    if word.is_empty() && line.ends_with('(') {
        let before = &line[..line.len() - 1];
        let start = name_start(before, &[]);
        let f = FUNCTIONS.iter().find(|f| f.name == &before[start..])?;
        let params = f.signature.split_once('(').map_or("", |(_, p)| p);
        return Some(Hint { shown: format!("{params}  {}", short(f.doc)), inserted: None });
    }
    if word.len() < 3 || word.starts_with(|c: char| c.is_ascii_digit()) || line[..at].ends_with(['@', '$', ':']) {
        return None;
    }
    // The one function or variable the word starts.
    let mut matches = FUNCTIONS.iter().filter(|f| f.name.starts_with(word)).map(|f| (f.name, Some(f.signature), f.doc)).chain(VARIABLES.iter().filter(|v| v.name.starts_with(word)).map(|v| (v.name, None, v.doc)));
    let (name, signature, doc) = matches.next()?;
    if matches.next().is_some() || name == word {
        return None;
    }
    let rest = &name[word.len()..];
    Some(match signature {
        Some(sig) => Hint { shown: format!("{}  {}", &sig[word.len()..], short(doc)), inserted: Some(format!("{rest}(")) },
        None => Hint { shown: format!("{rest}  {}", short(doc)), inserted: Some(rest.to_string()) },
    })
}

/// The start of a description, to fit beside what is typed.
fn short(doc: &str) -> String {
    let first = doc.split(['.', ';']).next().unwrap_or(doc);
    match first.char_indices().nth(48) {
        Some((i, _)) => format!("— {}…", &first[..i]),
        None => format!("— {first}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_probes_strings_and_keywords() {
        let h = highlight("syscall::read:entry /execname == \"cat\"/ { self->x = 1; }");
        assert!(h.starts_with("\x1b[1;36msyscall::read:entry\x1b[0m /execname == \x1b[32m\"cat\"\x1b[0m/"));
        assert!(h.contains("\x1b[35mself\x1b[0m->x = \x1b[33m1\x1b[0m;"));
    }

    #[test]
    fn hints_signatures() {
        let h = hint("BEGIN { @ = quantize(").unwrap();
        assert!(h.shown.starts_with("x)  — "), "{}", h.shown);
        let h = hint("BEGIN { @ = quant").unwrap();
        assert!(h.shown.starts_with("ize(x)  — "), "{}", h.shown);
        assert_eq!(h.inserted.as_deref(), Some("ize("));
        assert!(hint("BEGIN { x = execn").unwrap().shown.starts_with("ame  — "));
        assert!(hint("BEGIN { @ = co").is_none());
    }
}
