//! Tracing with a compiled program, shared by both front ends (`crumbs` and the `dtrace`
//! drop-in): the text sink, Ctrl-C, the session, and what is said when it fails. The front
//! ends differ only in the [`Voice`] they pass.

use crumbs_lang::diag::Diagnostic;
use crumbs_runtime::driver::{self, Compiled};
use crumbs_runtime::output::destination::Destination;
use crumbs_lang::dialect::Dialect;
use crumbs_runtime::output::bpftrace::{BpftraceJson, BpftraceText};
use crumbs_runtime::output::text::DtraceText;
use crumbs_runtime::output::chrome::ChromeTrace;
use crumbs_runtime::output::json_lines::JsonLines;
use crumbs_runtime::output::parquet::ParquetTables;
use crumbs_runtime::output::Sink;
use crumbs_runtime::process::Child;
use crumbs_runtime::session::{RunError, RunOptions};
use crumbs_runtime::stop::StopHandle;
use std::process::ExitCode;

/// How a front end speaks: the name its messages start with and the status it fails with.
pub(crate) struct Voice {
    pub name: &'static str,
    pub error_status: u8,
}

pub(crate) const CRUMBS: Voice = Voice { name: "crumbs", error_status: 2 };
/// dtrace(1) fails with 1 (E_ERROR); 2 (E_USAGE) is for its usage errors.
pub(crate) const DTRACE: Voice = Voice { name: "dtrace", error_status: 1 };

impl Voice {
    /// Says `msg` on standard error and returns the failure status.
    pub fn fail(&self, msg: impl std::fmt::Display) -> ExitCode {
        eprintln!("{}: {msg}", self.name);
        ExitCode::from(self.error_status)
    }

    /// bpftrace's line before it attaches (in JSON, its `attached_probes` record), where
    /// the trace output goes (bpftrace writes it to `-o`'s file too).
    pub fn attaching(&self, out: &mut dyn std::io::Write, format: Format, n: usize) {
        let _ = match format {
            Format::Text => writeln!(out, "Attaching {n} probe{}...", if n == 1 { "" } else { "s" }),
            Format::Json => out.write_all(crumbs_runtime::output::bpftrace::records::attached_probes(n).as_bytes()),
            Format::JsonLines | Format::Chrome | Format::Parquet => Ok(()),
        };
        let _ = out.flush();
    }

    /// Says how many probes a program matched (`what`: `script` or `description`).
    pub fn matched(&self, what: &str, name: &str, n: usize) {
        eprintln!("{}: {what} '{name}' matched {n} probe{}", self.name, if n == 1 { "" } else { "s" });
    }
}

/// Where trace output goes: `path` (created and truncated, or appended to as dtrace does),
/// or standard output.
pub(crate) fn output(path: Option<&str>, append: bool) -> std::io::Result<Destination<'static>> {
    Ok(match path {
        Some(path) => Destination::file(std::fs::OpenOptions::new().write(true).create(true).append(append).truncate(!append).open(path)?),
        None => Destination::stdout(),
    })
}

/// How trace output is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Format {
    /// The program's dialect's text: DTrace's or bpftrace's.
    #[default]
    Text,
    /// bpftrace's JSON records, one a line (the bpftrace drop-in's `-f json`).
    Json,
    /// crumbs' JSON lines (`crumbs -f json`, spec §9.4), whatever the dialect.
    JsonLines,
    /// Chrome trace events (`crumbs -f chrome`, `.pfw`, spec §9.5).
    Chrome,
    /// Parquet tables, one file per clause (`crumbs -f parquet`, `.parquet`, spec §9.13).
    Parquet,
}

impl Format {
    /// Whether records must carry each firing's timestamp, pid and tid.
    pub fn structured(self) -> bool {
        matches!(self, Format::JsonLines | Format::Chrome | Format::Parquet)
    }
}

/// Everything a session needs besides the program.
pub(crate) struct Session<'a> {
    pub voice: &'a Voice,
    /// The program's source and its name, for a diagnostic about a rejected clause.
    pub name: &'a str,
    pub text: &'a str,
    pub quiet: bool,
    pub format: Format,
    /// Flow indentation (dtrace's `-F`).
    pub flowindent: bool,
    /// Progress lines on standard error for slow loading and detaching.
    pub progress: bool,
    pub child: Option<Child>,
    pub pid: Option<i32>,
    pub out: Destination<'static>,
    /// In the REPL a second Ctrl-C does not end crumbs.
    pub in_repl: bool,
    /// errorf()'s and warnf()'s messages: warnf()'s are not printed (bpftrace's
    /// `--no-warnings`).
    pub no_warnings: bool,
    /// Attach every probe, then end (bpftrace's `--dry-run`).
    pub dry_run: bool,
    /// Where parquet tables go (`-o`), for [`Format::Parquet`].
    pub tables: Option<String>,
}

/// Traces with `compiled` until it ends; returns the status to exit with.
pub(crate) fn trace(compiled: &Compiled, s: Session) -> ExitCode {
    let voice = s.voice;
    let messages = crumbs_runtime::output::message::Messages { file: s.name.to_string(), warnings: !s.no_warnings };
    let mut sink: Box<dyn Sink> = match compiled.program.dialect {
        _ if s.format == Format::Parquet => match ParquetTables::create(s.tables.as_deref().unwrap_or_default(), &compiled.program) {
            Ok(t) => Box::new(t.voice(voice.name)),
            Err(e) => return voice.fail(format!("cannot write {}: {e}", s.tables.as_deref().unwrap_or_default())),
        },
        _ if s.format == Format::JsonLines => Box::new(JsonLines::new(s.out, &compiled.program).voice(voice.name).messages(messages)),
        _ if s.format == Format::Chrome => Box::new(ChromeTrace::new(s.out, &compiled.program, s.flowindent).voice(voice.name).messages(messages)),
        _ if s.format == Format::Json => Box::new(BpftraceJson::new(s.out, &compiled.program).voice(voice.name).messages(messages)),
        Dialect::Bpftrace => Box::new(BpftraceText::new(s.out, &compiled.program).voice(voice.name).messages(messages)),
        Dialect::D if s.flowindent => Box::new(DtraceText::new(s.out, s.quiet, &compiled.program.options).voice(voice.name).flowindent().messages(messages)),
        Dialect::D => Box::new(DtraceText::new(s.out, s.quiet, &compiled.program.options).voice(voice.name).messages(messages)),
    };
    let stop = match StopHandle::new() {
        Ok(h) => h,
        Err(e) => return voice.fail(format!("cannot set up stopping on Ctrl-C: {e}")),
    };
    let _signals = crate::signals::StopOnSignals::install(&stop, !s.in_repl);
    // self:signal:SIGUSR1 runs at each SIGUSR1; without it, SIGUSR1 keeps its default action.
    let usr1 = match compiled.program.groups.iter().any(|g| g.attach == crumbs_lang::providers::AttachPoint::SelfSignal) {
        true => match StopHandle::new() {
            Ok(h) => Some(h),
            Err(e) => return voice.fail(format!("cannot set up SIGUSR1 for self:signal:SIGUSR1: {e}")),
        },
        false => None,
    };
    let _usr1 = usr1.as_ref().map(crate::signals::Usr1::install);
    match driver::run(compiled, RunOptions { quiet: s.quiet || !s.progress, child: s.child, pid: s.pid, stop: Some(stop), dry_run: s.dry_run, self_signal: usr1 }, &mut *sink) {
        Ok(status) => ExitCode::from(status as u8),
        Err(RunError::Permission(msg)) => voice.fail(msg),
        Err(RunError::Verifier { attach, clauses, message, log_tail }) => {
            eprintln!("{}: internal error: the kernel's verifier rejected the program for {attach:?} ({message}).", voice.name);
            eprintln!("This is a bug in crumbs' code generation; please report it with the script.");
            if let Some(i) = clauses.first() {
                eprint!("{}", Diagnostic::new(compiled.clause_span(*i), "clause in the rejected program").label("compiled here").render(s.name, s.text, false));
            }
            eprintln!("verifier log (last lines):\n{log_tail}");
            ExitCode::from(voice.error_status)
        }
        Err(RunError::Other(msg)) => voice.fail(msg),
    }
}
