//! The interactive loop: `crumbs --repl`, or `crumbs` alone on a terminal. Each program
//! typed runs until it exits or Ctrl-C stops it, then the prompt returns. Completion reads
//! the builtin and provider tables.

use crate::{trace, Cli};
use crumbs_lang::builtins::{FUNCTIONS, VARIABLES};
use crumbs_lang::providers::PROVIDERS;
use crumbs_lang::syscalls::SyscallTable;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Editor, Helper};
use std::process::ExitCode;

const HELP: &str = "Type a D program (a clause ends when its braces close); it runs until it calls exit() or you press Ctrl-C.
  syscall:::entry /execname == \"cat\"/ { @[probefunc] = count(); }
Commands: :help, :quit (or Ctrl-D). Tab completes builtins, functions, providers and system calls.";

struct DHelper;

/// Words the REPL completes, for the text before the cursor.
fn candidates(before: &str, word: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if word.starts_with(':') {
        out.extend([":help", ":quit"].map(String::from));
    } else if before.ends_with("syscall::") {
        out.extend(SyscallTable::get().iter().map(|(_, n)| n.to_string()));
    } else {
        // Both dialects' names: a program typed here may be either.
        out.extend(VARIABLES.iter().flat_map(|v| std::iter::once(v.name).chain(v.aliases.iter().copied())).map(String::from));
        out.extend(FUNCTIONS.iter().map(|f| format!("{}(", f.name)));
        out.extend(PROVIDERS.iter().map(|p| format!("{}:", p.name())));
        out.extend(["BEGIN", "END", "self->", "this->", "args->"].map(String::from));
    }
    out.retain(|c| c.starts_with(word));
    out.sort();
    out.dedup();
    out
}

impl Completer for DHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let start = line[..pos].rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':')).map_or(0, |i| i + 1);
        let (before, word) = line[..pos].split_at(start);
        // After a probe's `provider::` complete the function alone.
        let (start, before, word) = match word.rfind(':') {
            Some(i) if !word.starts_with(':') => (start + i + 1, &line[..start + i + 1], &word[i + 1..]),
            _ => (start, before, word),
        };
        let pairs = candidates(before, word).into_iter().map(|c| Pair { display: c.clone(), replacement: c }).collect();
        Ok((start, pairs))
    }
}

impl Hinter for DHelper {
    type Hint = String;
}

impl Highlighter for DHelper {}

impl Validator for DHelper {
    /// A program is complete when its brackets balance (outside strings and comments).
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        Ok(if open_brackets(ctx.input()) > 0 { ValidationResult::Incomplete } else { ValidationResult::Valid(None) })
    }
}

impl Helper for DHelper {}

/// How many `{ ( [` are still open, ignoring strings, characters and comments.
fn open_brackets(text: &str) -> i64 {
    let mut depth = 0i64;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                while let Some(d) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == c {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut prev = ' ';
                for d in chars.by_ref() {
                    if prev == '*' && d == '/' {
                        break;
                    }
                    prev = d;
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
            }
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            _ => {}
        }
    }
    depth
}

pub fn run(cli: &Cli) -> ExitCode {
    let mut editor: Editor<DHelper, DefaultHistory> = match Editor::new() {
        Ok(e) => e,
        Err(e) => return crate::fail(format!("cannot start the REPL: {e}")),
    };
    editor.set_helper(Some(DHelper));
    let history = std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".crumbs_history"));
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    eprintln!("crumbs {} — {HELP}", env!("CARGO_PKG_VERSION"));
    let mut status = ExitCode::SUCCESS;
    loop {
        let line = match editor.readline("crumbs> ") {
            Ok(l) => l,
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(_) => break,
        };
        let input = line.trim();
        match input {
            "" => continue,
            ":quit" | ":q" | ":exit" => break,
            ":help" | ":h" => {
                eprintln!("{HELP}");
                continue;
            }
            _ => {}
        }
        let _ = editor.add_history_entry(input);
        status = trace(cli, "<repl>", input, Vec::new(), true, true);
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_ignore_strings_and_comments() {
        assert_eq!(open_brackets("BEGIN {"), 1);
        assert_eq!(open_brackets("BEGIN { printf(\"}\"); }"), 0);
        assert_eq!(open_brackets("BEGIN { /* } */"), 1);
        assert_eq!(open_brackets("BEGIN { x = '{'; }"), 0);
    }

    #[test]
    fn completes_from_the_tables() {
        assert!(candidates("", "execn").contains(&"execname".to_string()));
        assert!(candidates("", "quan").contains(&"quantize(".to_string()));
        assert!(candidates("", "sysc").contains(&"syscall:".to_string()));
        assert!(candidates("syscall::", "clock_g").contains(&"clock_gettime".to_string()));
        assert_eq!(candidates("", ":q"), vec![":quit".to_string()]);
        // bpftrace's names too: the REPL reads either dialect.
        assert_eq!(candidates("", "kst"), vec!["kstack".to_string(), "kstack(".to_string()]);
    }
}
