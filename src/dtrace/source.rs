//! The program dtrace is given: each `-n`, `-P`, `-m`, `-f`, `-i` description and each
//! `-s` script is a piece of text. dtrace compiles them one after another into one handle,
//! where they share variables and aggregations; crumbs compiles them joined, one line
//! apart, as one program. Each piece knows where it lies in the whole, for the messages
//! about it.

use super::cpp;
use super::options::Settings;

/// How a probe specifier's first word is read: `-P provider`, `-m [provider:]module`,
/// `-f [[provider:]module:]function`, `-n` a whole description, `-i` a probe id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spec {
    Provider,
    Module,
    Function,
    Name,
    Id,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// From `-n` and its kin: dtrace calls it a description.
    Description,
    /// From `-s`.
    Script,
}

#[derive(Clone, Debug)]
pub struct Piece {
    pub kind: Kind,
    /// The option's argument: the script's path, or the specifier as given.
    pub arg: String,
    pub text: String,
    /// Where `text` starts in the whole program.
    pub start: usize,
    /// Where each line of `text` came from, when the preprocessor made it.
    pub origin: Option<Vec<(Option<String>, usize)>>,
}

impl Piece {
    /// A description as given on the command line.
    pub fn description(spec: Spec, arg: &str) -> Piece {
        Piece { kind: Kind::Description, arg: arg.to_string(), text: spec_text(spec, arg), start: 0, origin: None }
    }

    /// A script file, preprocessed with `-C`; the error is dtrace's message.
    pub fn script(path: &str, settings: &Settings) -> Result<Piece, String> {
        let source = std::fs::read_to_string(path).map_err(|e| format!("failed to open {path}: {}", super::strerror(&e)))?;
        let (text, origin) = if settings.cpp {
            let p = cpp::preprocess(&source, settings).map_err(|why| format!("failed to compile script {path}: {why}"))?;
            (p.text, Some(p.origin))
        } else {
            // Only the first piece could keep its `#!` line.
            (cpp::blank_interpreter_line(&source), None)
        };
        Ok(Piece { kind: Kind::Script, arg: path.to_string(), text, start: 0, origin })
    }

    /// What dtrace names it in messages: the script's path, or the description up to its
    /// first `{`, `/` or `;` (as dtrace crops it, spaces kept).
    pub fn name(&self) -> &str {
        match self.kind {
            Kind::Script => &self.arg,
            Kind::Description => &self.arg[..self.arg.find(['{', '/', ';']).unwrap_or(self.arg.len())],
        }
    }

    /// `script` or `description`.
    pub fn what(&self) -> &'static str {
        match self.kind {
            Kind::Script => "script",
            Kind::Description => "description",
        }
    }

    /// `line N: ` (or `"file", line N: ` for a line an `#include` brought) for an offset
    /// in the text; nothing for a description, as dtrace gives no line for those.
    pub fn place(&self, offset: usize) -> String {
        if self.kind == Kind::Description {
            return String::new();
        }
        let (line, _) = crumbs_lang::diag::line_col(&self.text, offset);
        match self.origin.as_ref().and_then(|o| o.get(line - 1)) {
            Some((Some(file), n)) => format!("\"{file}\", line {n}: "),
            Some((None, n)) => format!("line {n}: "),
            None => format!("line {line}: "),
        }
    }
}

/// The program text of a specifier: the probe description its first word gives, padded to
/// the fields the option means, then the rest (predicate and actions) as written.
fn spec_text(spec: Spec, arg: &str) -> String {
    let end = arg.find(|c: char| c.is_whitespace() || c == '/' || c == '{').unwrap_or(arg.len());
    let (descs, rest) = arg.split_at(end);
    let pad = match spec {
        Spec::Provider => ":::",
        Spec::Module => "::",
        Spec::Function => ":",
        Spec::Name | Spec::Id => "",
    };
    let full: Vec<String> = descs
        .split(',')
        .map(|d| match spec {
            Spec::Id => id_description(d),
            _ if d.is_empty() => d.to_string(),
            _ => format!("{d}{pad}"),
        })
        .collect();
    full.join(",") + rest
}

/// The description of the probe with this id, where the id is a fixed one (BEGIN, END, the
/// system calls); otherwise the id itself, which then matches no probe.
fn id_description(id: &str) -> String {
    match id.parse().ok().and_then(crumbs_lang::providers::probe_by_id) {
        Some(p) => format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name),
        None => id.to_string(),
    }
}

/// The pieces joined into one program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub pieces: Vec<Piece>,
}

impl Program {
    pub fn new(mut pieces: Vec<Piece>) -> Program {
        let mut start = 0;
        for p in &mut pieces {
            p.start = start;
            start += p.text.len() + 1;
        }
        Program { pieces }
    }

    pub fn text(&self) -> String {
        self.pieces.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n")
    }

    /// The index of the piece holding this offset of the whole.
    pub fn piece_at(&self, offset: usize) -> usize {
        self.pieces.iter().rposition(|p| p.start <= offset).unwrap_or(0)
    }

    /// Turns a range of the whole into spaces (line breaks stay, so lines keep their numbers).
    pub fn blank(&mut self, range: std::ops::Range<usize>) {
        let at = self.piece_at(range.start);
        let piece = &mut self.pieces[at];
        let (from, to) = (range.start - piece.start, (range.end - piece.start).min(piece.text.len()));
        crate::unmatched::blank(&mut piece.text, from..to);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifiers_become_descriptions() {
        assert_eq!(spec_text(Spec::Provider, "syscall"), "syscall:::");
        assert_eq!(spec_text(Spec::Module, "syscall:vmlinux { exit(0); }"), "syscall:vmlinux:: { exit(0); }");
        assert_eq!(spec_text(Spec::Function, "read,write/pid == 1/"), "read:,write:/pid == 1/");
        assert_eq!(spec_text(Spec::Name, "syscall::read:entry { }"), "syscall::read:entry { }");
        assert_eq!(spec_text(Spec::Id, "1"), "dtrace:::BEGIN");
        assert_eq!(spec_text(Spec::Id, "999999{}"), "999999{}");
    }

    #[test]
    fn descriptions_are_named_up_to_their_action() {
        let p = Piece::description(Spec::Name, "syscall::read:entry { @[execname] = count(); }");
        assert_eq!(p.name(), "syscall::read:entry ");
        assert_eq!(Piece::description(Spec::Name, "BEGIN/1/").name(), "BEGIN");
        assert_eq!(p.place(3), "");
    }

    #[test]
    fn pieces_are_joined_and_found() {
        let mut p = Program::new(vec![Piece::description(Spec::Name, "BEGIN"), Piece::description(Spec::Name, "END")]);
        assert_eq!(p.text(), "BEGIN\nEND");
        assert_eq!((p.piece_at(0), p.piece_at(5), p.piece_at(6)), (0, 0, 1));
        p.blank(6..9);
        assert_eq!(p.text(), "BEGIN\n   ");
    }

    #[test]
    fn script_lines_are_named_by_their_origin() {
        let mut p = Piece { kind: Kind::Script, arg: "x.d".into(), text: "a\nb\nc".into(), start: 0, origin: None };
        assert_eq!(p.place(2), "line 2: ");
        p.origin = Some(vec![(None, 1), (Some("inc.h".into()), 4), (None, 3)]);
        assert_eq!(p.place(2), "\"inc.h\", line 4: ");
        assert_eq!(p.place(4), "line 3: ");
    }
}
