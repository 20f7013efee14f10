//! The interactive loop: `crumbs --repl`, or `crumbs` alone on a terminal. Each program
//! typed runs until it exits or Ctrl-C stops it, then the prompt returns. Commands set the
//! command the programs trace (`:run`, `:attach`), rerun the last one (`:again`), list
//! probes and show kernel types; Tab completes from the running kernel.

mod commands;
mod complete;
mod highlight;
mod scan;

use crate::{trace, Cli};
use commands::Command;
use complete::Completer;
use crumbs_lang::facts::Memo;
use crumbs_runtime::kernel::{Kernel, LiveKernel};
use rustyline::completion::Pair;
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Editor, Helper};
use std::borrow::Cow;
use std::process::ExitCode;
use std::rc::Rc;

struct DHelper {
    completer: Completer,
}

impl rustyline::completion::Completer for DHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, found) = self.completer.complete(line, pos);
        Ok((start, found.into_iter().map(|c| Pair { display: c.display, replacement: c.replacement }).collect()))
    }
}

impl rustyline::hint::Hint for highlight::Hint {
    fn display(&self) -> &str {
        &self.shown
    }

    fn completion(&self) -> Option<&str> {
        self.inserted.as_deref()
    }
}

impl Hinter for DHelper {
    type Hint = highlight::Hint;

    fn hint(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> Option<highlight::Hint> {
        (pos == line.len() && !line.trim_start().starts_with(':')).then(|| highlight::hint(line)).flatten()
    }
}

impl Highlighter for DHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        if line.trim_start().starts_with(':') {
            return Cow::Borrowed(line);
        }
        Cow::Owned(highlight::highlight(line))
    }

    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        Cow::Owned(format!("\x1b[2m{hint}\x1b[0m"))
    }

    fn highlight_char(&self, _line: &str, _pos: usize, _kind: CmdKind) -> bool {
        true
    }
}

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

/// What the commands set for the programs typed after them.
#[derive(Default)]
struct State {
    /// `:run CMD`: the command each program traces, as `-c`.
    command: Option<String>,
    /// `:attach PID`: the process each program traces, as `-p`.
    pid: Option<i32>,
    /// The last program run, for `:again`.
    last: Option<String>,
}

pub fn run(cli: &Cli) -> ExitCode {
    let facts: Rc<dyn crumbs_lang::facts::KernelFacts> = Rc::new(Memo::new(LiveKernel.facts()));
    // Tab as in a shell: the common prefix, then (Tab again) the list, shown with signatures.
    let config = rustyline::Config::builder().completion_type(rustyline::CompletionType::List).build();
    let mut editor: Editor<DHelper, DefaultHistory> = match Editor::with_config(config) {
        Ok(e) => e,
        Err(e) => return crate::fail(format!("cannot start the REPL: {e}")),
    };
    editor.set_helper(Some(DHelper { completer: Completer::new(facts) }));
    let history = std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".crumbs_history"));
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    eprintln!("crumbs {} — {}", env!("CARGO_PKG_VERSION"), commands::BANNER);
    let mut status = ExitCode::SUCCESS;
    let mut state = State::default();
    loop {
        let line = match editor.readline("crumbs> ") {
            Ok(l) => l,
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(_) => break,
        };
        let input = line.trim();
        if input.is_empty() {
            continue;
        }
        let parsed = commands::parse(input);
        // Saved at once, so that a session Ctrl-\ (SIGQUIT) ends keeps it too; not
        // `:quit`, so that Up in the next session brings back the last program.
        if !matches!(parsed, Ok(Some(Command::Quit))) {
            let _ = editor.add_history_entry(input);
            if let Some(h) = &history {
                let _ = editor.save_history(h);
            }
        }
        let program = match parsed {
            Ok(None) => input.to_string(),
            Ok(Some(Command::Quit)) => break,
            Ok(Some(Command::Again)) => match &state.last {
                Some(p) => {
                    eprintln!("{p}");
                    p.clone()
                }
                None => {
                    eprintln!("crumbs: no program has run yet");
                    continue;
                }
            },
            Ok(Some(c)) => {
                commands::obey(c, &mut state);
                continue;
            }
            Err(message) => {
                eprintln!("crumbs: {message}");
                continue;
            }
        };
        let mut with = cli.clone();
        with.command = state.command.clone();
        with.pid = state.pid;
        state.last = Some(program.clone());
        status = trace(&with, "<repl>", &program, Vec::new(), true, true);
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
}
