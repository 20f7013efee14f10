//! Probe descriptions that match nothing on this machine, found and taken out of a program's
//! text before it is compiled: dtrace's `-Z` (src/dtrace/probes.rs) and bpftrace's
//! `missing_probes` (src/bpftrace/missing.rs) both do it here. A description goes with the
//! comma that joins it to its list; a clause left with none goes whole. What is taken out
//! becomes spaces (newlines stay), so every other byte keeps its place and diagnostics about
//! the rest still point into the text as written.

use crumbs_lang::ast::{ProbeDesc, Program, Span};
use crumbs_lang::facts::KernelFacts;
use crumbs_lang::providers::{expand_macros, match_probes_with, matches_nothing_here, Probe, ProbeMacros};
use std::collections::HashMap;

/// What one description matched.
#[derive(Clone, Debug)]
pub enum Found {
    Probes(Vec<Probe>),
    /// Well formed, but naming nothing here (no such function, tracepoint, ...).
    Nothing,
    /// Wrong otherwise (a bad pattern, an unknown provider, a file that cannot be read): never
    /// taken out, so that the compiler says what is wrong.
    Wrong,
}

impl Found {
    /// The probes found (none for a description that matched nothing or is wrong).
    pub fn probes(&self) -> &[Probe] {
        match self {
            Found::Probes(p) => p,
            Found::Nothing | Found::Wrong => &[],
        }
    }
}

/// What `desc` matches with its macro variables (`$target`, `$1`, ...) expanded, as the
/// compiler will match it; `nothing` says which errors mean "matches nothing here" (beyond
/// [`matches_nothing_here`]'s).
pub fn find(desc: &ProbeDesc, macros: &ProbeMacros, facts: &dyn KernelFacts, nothing: impl Fn(&str) -> bool) -> Found {
    let matched = match expand_macros(desc, macros) {
        Ok(d) => match_probes_with(&d, Some(facts)),
        Err(e) => Err(e),
    };
    match matched {
        Ok(found) if found.is_empty() => Found::Nothing,
        Ok(found) => Found::Probes(found),
        Err(d) if matches_nothing_here(&d) || nothing(&d.message) => Found::Nothing,
        Err(_) => Found::Wrong,
    }
}

/// What each description of each clause of `ast` matches, by `find` (asked once per distinct
/// description text).
pub fn match_clauses(ast: &Program, mut find: impl FnMut(&ProbeDesc) -> Found) -> Vec<Vec<Found>> {
    let mut memo: HashMap<&str, Found> = HashMap::new();
    ast.clauses.iter().map(|c| c.probes.iter().map(|d| memo.entry(&d.text).or_insert_with(|| find(d)).clone()).collect()).collect()
}

/// What taking out the descriptions that matched nothing leaves.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Removal {
    /// The text to blank.
    pub ranges: Vec<Span>,
    /// The descriptions taken out: (clause, index in its list).
    pub descriptions: Vec<(usize, usize)>,
    /// The clauses taken out whole (none of their descriptions left).
    pub clauses: Vec<usize>,
    /// How many clauses are left.
    pub clauses_left: usize,
}

/// The ranges of `ast`'s text that take out every description `found` says matched nothing.
pub fn removal(ast: &Program, found: &[Vec<Found>]) -> Removal {
    let mut out = Removal::default();
    for (c, (clause, found)) in ast.clauses.iter().zip(found).enumerate() {
        let gone: Vec<usize> = found.iter().enumerate().filter(|(_, f)| matches!(f, Found::Nothing)).map(|(i, _)| i).collect();
        out.descriptions.extend(gone.iter().map(|&i| (c, i)));
        let probes = &clause.probes;
        if gone.is_empty() {
            out.clauses_left += 1;
        } else if gone.len() == probes.len() {
            out.ranges.push(clause.span.clone());
            out.clauses.push(c);
        } else {
            out.clauses_left += 1;
            // One before a kept description goes with the comma after it; the ones after the
            // last kept one, with the comma before them.
            let last_kept = (0..probes.len()).rev().find(|i| !gone.contains(i)).expect("not all gone");
            for &i in gone.iter().filter(|&&i| i < last_kept) {
                out.ranges.push(probes[i].span.start..probes[i + 1].span.start);
            }
            if last_kept + 1 < probes.len() {
                out.ranges.push(probes[last_kept].span.end..probes[probes.len() - 1].span.end);
            }
        }
    }
    out
}

/// `text` with `range` made spaces, byte for byte (newlines kept).
pub fn blank(text: &mut String, range: Span) {
    let blanked: String = text[range.clone()].chars().map(|c| if c == '\n' { "\n".to_string() } else { " ".repeat(c.len_utf8()) }).collect();
    text.replace_range(range, &blanked);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::facts::sample::SampleKernel;

    fn taken_out(text: &str) -> (String, Removal) {
        let ast = crumbs_lang::parse::parse_program(text).unwrap();
        let found = match_clauses(&ast, |d| find(d, &crumbs_lang::providers::ProbeMacros { target: Some(42), ..Default::default() }, &SampleKernel, |_| false));
        let r = removal(&ast, &found);
        let mut out = text.to_string();
        for range in &r.ranges {
            blank(&mut out, range.clone());
        }
        (out, r)
    }

    #[test]
    fn descriptions_go_with_their_comma_and_clauses_whole() {
        let (text, r) = taken_out("fbt::nosuch:entry, fbt::vfs_read:entry { }\nfbt::vfs_read:entry, fbt::nosuch:entry {}\nfbt::nosuch:entry { }\nBEGIN { }");
        assert_eq!(text, format!("{}fbt::vfs_read:entry {{ }}\nfbt::vfs_read:entry{} {{}}\n{}\nBEGIN {{ }}", " ".repeat(19), " ".repeat(19), " ".repeat(21)));
        assert_eq!(r.descriptions, [(0, 0), (1, 1), (2, 0)]);
        assert_eq!(r.clauses, [2]);
        assert_eq!(r.clauses_left, 3);
    }

    /// Several in a row, at the start, in the middle and at the end of a list.
    #[test]
    fn runs_of_descriptions_go_with_their_commas() {
        let (text, r) = taken_out("fbt::no1:entry, fbt::no2:entry, fbt::vfs_read:entry, fbt::no3:entry, fbt::no4:entry, fbt::vfs_write:entry, fbt::no5:entry, fbt::no6:entry { }");
        assert_eq!(text.split_whitespace().collect::<Vec<_>>(), ["fbt::vfs_read:entry,", "fbt::vfs_write:entry", "{", "}"]);
        assert_eq!(r.descriptions.len(), 6);
        crumbs_lang::parse::parse_program(&text).unwrap();
    }

    #[test]
    fn what_is_wrong_stays_and_target_is_expanded() {
        let (text, r) = taken_out("pid$target:a.out:nosuch:entry, pid$target:a.out:work:entry, profile:::tick-abc, kprobe:[x { }");
        assert!(text.starts_with(&format!("{}pid$target:a.out:work:entry, profile", " ".repeat(31))), "{text}");
        assert_eq!(r.descriptions, [(0, 0)]);
    }

    #[test]
    fn blanking_keeps_every_byte_in_place() {
        let mut s = "a «é»\nb".to_string();
        let end = s.len() - 1;
        blank(&mut s, 1..end);
        assert_eq!(s.len(), "a «é»\nb".len());
        assert_eq!(s, format!("a{}\nb", " ".repeat(7)));
    }
}
