//! What the program's descriptions match, before it is compiled: how many probes each piece
//! matches (dtrace's "matched N probes" counts them per piece); with `-Z`, the descriptions
//! that match none are taken out of the text (a clause left with none goes whole), as
//! dtrace then enables nothing for them; and the `#pragma D option`s the compiler does not
//! know but dtrace does are taken by the front end. Anything wrong here is left for the
//! compiler to report.

use super::errors;
use super::options::Settings;
use super::source::Program;
use crumbs_lang::ast::ProbeDesc;
use crate::unmatched;
use crumbs_lang::providers::Probe;
use crumbs_runtime::kernel::Kernel;
use crate::remembering::Remembering;

/// One probe description of the program.
#[derive(Clone, Debug)]
pub struct Described {
    pub piece: usize,
    /// provider, module, function and name, as dtrace aligns them.
    pub fields: [String; 4],
    /// The probes it matches (none: it was taken out, with `-Z`).
    pub probes: Vec<Probe>,
    /// Whether its clause reads `args[]` or `args->` (for the stability report).
    pub reads_args: bool,
}

/// What the descriptions match.
#[derive(Debug, Default)]
pub struct Matches {
    /// Per piece, how many probes its descriptions matched.
    pub per_piece: Vec<usize>,
    pub descriptions: Vec<Described>,
    /// Whether any clause is left (with `-Z` all may have gone).
    pub clauses_left: bool,
}

/// A description's fields as dtrace aligns them (the parser refuses more than four).
pub fn four_fields(desc: &ProbeDesc) -> [String; 4] {
    crumbs_lang::providers::aligned(desc).unwrap_or_default().map(String::from)
}

/// Whether D text reads `args[` or `args->` (as a word of its own).
fn reads_args(text: &str) -> bool {
    text.match_indices("args").any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + 4..].trim_start();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && (after.starts_with('[') || after.starts_with("->"))
    })
}

/// Matches every description of `program`, taking pragmas and (with `zdefs`) unmatched
/// descriptions out of its text.
pub fn prepare(program: &mut Program, settings: &mut Settings, kernel: &Remembering, target: Option<i64>) -> Matches {
    let mut out = Matches { per_piece: vec![0; program.pieces.len()], descriptions: Vec::new(), clauses_left: true };
    let text = program.text();
    let Ok(ast) = crumbs_lang::parse::parse_program(&text) else { return out };
    for p in &ast.pragmas {
        if settings.take_pragma(&p.name, p.value.as_deref()) {
            program.blank(p.span.clone());
        }
    }
    // dtrace's -Z also takes out a description of a provider it does not know.
    let facts = kernel.facts();
    let found = unmatched::match_clauses(&ast, |d| unmatched::find(d, &crumbs_lang::providers::ProbeMacros { target, ..Default::default() }, facts.as_ref(), |m| errors::tag(m) == Some("D_PDESC_ZERO")));
    for (clause, found) in ast.clauses.iter().zip(&found) {
        let uses_args = reads_args(&text[clause.span.clone()]);
        for (desc, found) in clause.probes.iter().zip(found) {
            let piece = program.piece_at(desc.span.start);
            out.per_piece[piece] += found.probes().len();
            out.descriptions.push(Described { piece, fields: four_fields(desc), probes: found.probes().to_vec(), reads_args: uses_args });
        }
    }
    if settings.zdefs {
        let removal = unmatched::removal(&ast, &found);
        for range in removal.ranges {
            program.blank(range);
        }
        out.clauses_left = removal.clauses_left > 0;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtrace::source::{Piece, Spec};

    fn program(specs: &[&str]) -> Program {
        Program::new(specs.iter().map(|s| Piece::description(Spec::Name, s)).collect())
    }

    #[test]
    fn fields_align_as_dtrace_does() {
        let ast = crumbs_lang::parse::parse_program("BEGIN, read:entry, syscall::read:entry, tracepoint:sched:sched_switch {}").unwrap();
        let got: Vec<[String; 4]> = ast.clauses[0].probes.iter().map(four_fields).collect();
        let want = [["", "", "", "BEGIN"], ["", "", "read", "entry"], ["syscall", "", "read", "entry"], ["tracepoint", "sched", "", "sched_switch"]];
        assert_eq!(got, want.map(|w| w.map(String::from)));
    }

    #[test]
    fn args_are_found_as_words() {
        assert!(reads_args("x { trace(args[0]); }"));
        assert!(reads_args("x { trace(args -> dfd); }"));
        assert!(!reads_args("x { trace(myargs[0]); trace(args); }"));
    }

    #[test]
    fn pieces_count_their_own_probes() {
        let mut p = program(&["BEGIN", "syscall::read:entry,syscall::read:return { }"]);
        let m = prepare(&mut p, &mut Settings::default(), &Remembering::new(), None);
        assert_eq!(m.per_piece, [1, 2]);
        assert!(m.clauses_left);
    }

    #[test]
    fn zdefs_takes_out_what_matches_nothing() {
        let mut p = program(&["syscall::nosuch:entry, BEGIN { exit(0); }", "BEGIN, nosuch:::x { }", "nosuch:::x { }"]);
        let mut s = Settings { zdefs: true, ..Default::default() };
        let m = prepare(&mut p, &mut s, &Remembering::new(), None);
        assert_eq!(m.per_piece, [1, 1, 0]);
        assert_eq!(p.text(), format!("{}BEGIN {{ exit(0); }}\nBEGIN{} {{ }}\n{}", " ".repeat(23), " ".repeat(12), " ".repeat(14)));
        // Without -Z the text stays for the compiler to say what is wrong.
        let mut p = program(&["nosuch:::x"]);
        prepare(&mut p, &mut Settings::default(), &Remembering::new(), None);
        assert_eq!(p.text(), "nosuch:::x");
        // Nothing left at all.
        let mut p = program(&["nosuch:::x"]);
        assert!(!prepare(&mut p, &mut s, &Remembering::new(), None).clauses_left);
    }

    #[test]
    fn zdefs_leaves_a_malformed_description_for_the_compiler() {
        let mut p = program(&["profile:::tick-abc, BEGIN { }"]);
        prepare(&mut p, &mut Settings { zdefs: true, ..Default::default() }, &Remembering::new(), None);
        assert_eq!(p.text(), "profile:::tick-abc, BEGIN { }");
    }

    #[test]
    fn pragmas_dtrace_knows_go_to_the_front_end() {
        let mut p = Program::new(vec![Piece { kind: crate::dtrace::source::Kind::Script, arg: "x.d".into(), text: "#pragma D option flowindent\n#pragma D option quiet\nBEGIN".into(), start: 0, origin: None }]);
        let mut s = Settings::default();
        prepare(&mut p, &mut s, &Remembering::new(), None);
        assert!(s.flowindent);
        assert_eq!(p.text(), format!("{}\n#pragma D option quiet\nBEGIN", " ".repeat(27)));
    }
}
