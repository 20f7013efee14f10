//! Which verdicts are bugs, and when two of them are the same bug: panics by location;
//! deaths by signal, stage and message (stack overflows also by the construct the input
//! repeats most, since the overflow's location is lost); hangs by stage; verifier
//! rejections by the last line of the log with numbers blanked.

use crate::protocol::{Reply, Stage};
use crate::supervisor::Verdict;

#[derive(Clone, Debug)]
pub struct Finding {
    /// Equal keys: the same bug.
    pub key: String,
    /// One line saying what happened.
    pub title: String,
    /// More lines where there are some (the verifier's log and the clause).
    pub detail: String,
}

fn stage_name(s: Option<Stage>) -> &'static str {
    s.map_or("start-up", Stage::name)
}

/// Digits blanked, so that offsets and sizes in messages do not split one bug into many.
fn blank_numbers(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('N') {
                out.push('N');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The punctuation character the input repeats most, with its count: `(` for deep
/// parentheses, `!` for a long chain of nots.
pub fn most_repeated(input: &str) -> Option<(char, usize)> {
    let mut counts = std::collections::BTreeMap::new();
    for c in input.chars().filter(|c| !c.is_alphanumeric() && !c.is_whitespace()) {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    counts.into_iter().max_by_key(|&(c, n)| (n, std::cmp::Reverse(c)))
}

pub fn classify(v: &Verdict, input: &str) -> Option<Finding> {
    Some(match v {
        Verdict::Reply(Reply::Verifier { clauses, message, log }) => {
            let last = log.lines().rev().find(|l| !l.trim().is_empty() && !l.starts_with("processed ")).unwrap_or("").trim();
            Finding {
                key: format!("verifier: {}", blank_numbers(last)),
                title: format!("the verifier rejected a program that compiled ({message}): {last}"),
                detail: format!("clause(s) of the rejected program:\n{clauses}\nverifier log (last lines):\n{log}"),
            }
        }
        Verdict::Reply(Reply::Panicked) => Finding { key: "panic without a message".into(), title: "panicked, and the hook saw no message".into(), detail: String::new() },
        Verdict::Reply(_) => return None,
        Verdict::Panic { location, message, stage } => {
            // One line: a message quoting source text can run over many.
            let first = message.lines().next().unwrap_or_default();
            let mut short: String = first.chars().take(200).collect();
            if short.len() < message.len() {
                short.push_str(" ...");
            }
            Finding { key: format!("panic at {location}"), title: format!("panic in {} at {location}: {short}", stage_name(*stage)), detail: String::new() }
        }
        Verdict::Died { status, stage, stderr } => {
            let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("(nothing on stderr)").trim();
            let overflow = stderr.contains("overflowed its stack");
            let shape = match most_repeated(input) {
                Some((c, n)) if overflow => format!(" (the input repeats `{c}` {n} times)"),
                _ => String::new(),
            };
            let what = if overflow { "stack overflow" } else { last };
            let shape_key = if overflow { most_repeated(input).map(|(c, _)| format!(" `{c}`")).unwrap_or_default() } else { String::new() };
            Finding {
                key: format!("died in {}: {}{shape_key}", stage_name(*stage), blank_numbers(what)),
                title: format!("worker {status} in {}: {what}{shape}", stage_name(*stage)),
                detail: stderr.trim().to_string(),
            }
        }
        Verdict::Hang { stage, limit } => Finding {
            key: format!("hang in {}", stage_name(*stage)),
            title: format!("no answer within {:.1} s, in {}", limit.as_secs_f64(), stage_name(*stage)),
            detail: String::new(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bug_same_key() {
        let a = Verdict::Panic { location: "lang/src/printf.rs:10:5".into(), message: "byte index 3 is not a char boundary".into(), stage: Some(Stage::Check) };
        let b = Verdict::Panic { location: "lang/src/printf.rs:10:5".into(), message: "byte index 7 is not a char boundary".into(), stage: Some(Stage::Check) };
        assert_eq!(classify(&a, "x").unwrap().key, classify(&b, "y").unwrap().key);
        let died = |input: &str| {
            let v = Verdict::Died { status: "killed by signal 6 (SIGABRT)".into(), stage: Some(Stage::Parse), stderr: "\nthread 'main' has overflowed its stack\nfatal runtime error: stack overflow\n".into() };
            classify(&v, input).unwrap().key
        };
        assert_eq!(died("((((1))))"), died("(((((((1)))))))"));
        assert_ne!(died("((((1))))"), died("!!!!!!!!x"));
        assert!(classify(&Verdict::Reply(Reply::Loaded), "").is_none());
    }
}
