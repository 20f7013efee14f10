//! The drop-in `dtrace(1)`: crumbs invoked under the name `dtrace` (a symlink
//! `/usr/sbin/dtrace -> crumbs`) reads dtrace's command line and speaks as dtrace does, its
//! messages and exit statuses included (spec §10.5). This maps that command line onto the
//! pipeline crumbs' own uses: the same compiler, and [`crate::run`] to trace.
//!
//! Like dtrace.c, it reads the options in passes: the mode (`-l`, `-V`, `-h`, `-G`, `-e`),
//! then the settings and programs, then the process to trace (`-c`, `-p`), then it compiles
//! and acts on the mode.

mod args;
mod cpp;
mod errors;
mod header;
mod list;
mod options;
mod probes;
mod request;
mod source;
mod stability;

use crate::run::{self, DTRACE};
use crumbs_runtime::output::destination::Destination;
use crumbs_runtime::driver::{self, CompileOptions};
use crumbs_runtime::process::{Child, SpawnError};
use request::{say_usage, Cmd, Mode, Request};
use source::{Piece, Program};
use std::io::Write;
use std::process::ExitCode;

/// Stands in for a program whose descriptions `-Z` all took out: dtrace then enables
/// nothing and waits, and this sends nothing.
const NOTHING: &str = "\nEND { this->nothing = 0; }\n";

pub(crate) use crumbs_runtime::output::strerror;

pub fn main(argv: Vec<String>) -> ExitCode {
    let r = match request::read(&argv) {
        Ok(r) => r,
        Err(status) => return status,
    };

    // The process to trace.
    if r.commands.len() + r.pids.len() > 1 {
        return say_usage("crumbs traces one process at a time: give one -c or one -p");
    }
    let pid = match r.pids.first().map(|p| grab(p)).transpose() {
        Ok(pid) => pid,
        Err(msg) => return DTRACE.fail(msg),
    };
    let tracing = r.mode == Mode::Exec && r.exec;
    // A held -c child that never runs is killed and reaped when `child` is dropped (-l
    // holds one for pid$target's listing).
    let child = match r.commands.first() {
        Some(cmd) if tracing || r.mode == Mode::List => match Child::spawn_words(&cmd.split_whitespace().map(String::from).collect::<Vec<_>>()) {
            Ok(c) => Some(c),
            Err(SpawnError::Exec { command, error }) => return DTRACE.fail(format!("failed to execute {command}: {}", strerror(&error))),
            Err(e @ (SpawnError::Other(_) | SpawnError::NotFound { .. })) => return DTRACE.fail(e),
        },
        _ => None,
    };

    // The program.
    let mut pieces = Vec::new();
    for cmd in &r.cmds {
        match cmd {
            Cmd::Spec(spec, arg) => pieces.push(Piece::description(*spec, arg)),
            Cmd::Script(path) => match Piece::script(path, &r.settings) {
                Ok(p) => pieces.push(p),
                Err(msg) => return DTRACE.fail(msg),
            },
        }
    }
    let program = Program::new(pieces);
    let none = r.cmds.is_empty();
    match r.mode {
        Mode::List => list(&r, &program, child.as_ref().map(|c| c.pid).or(pid).map(i64::from)),
        Mode::Header if none => say_usage("-h requires one or more scripts or enabling options"),
        _ if tracing && none && !r.settings.zdefs => DTRACE.fail("no probes specified"),
        Mode::Exec if !r.exec && none => ExitCode::SUCCESS,
        _ => compile_and_act(r, program, child, pid),
    }
}

/// Trace output: `-o FILE`, appended to, or standard output.
fn output(r: &Request) -> Result<Destination<'static>, ExitCode> {
    let file = r.output.as_deref();
    run::output(file, true).map_err(|e| DTRACE.fail(format!("failed to open output file '{}': {}", file.unwrap_or_default(), strerror(&e))))
}

/// `-l`: what the descriptions match, or every probe; `target` is `$target`.
fn list(r: &Request, program: &Program, target: Option<i64>) -> ExitCode {
    let mut out = match output(r) {
        Ok(o) => o,
        Err(status) => return status,
    };
    match list::list((!r.cmds.is_empty()).then_some(program), &mut out, r.verbose, r.settings.errtags, target) {
        Ok(()) => ExitCode::SUCCESS,
        Err(report) => {
            eprint!("{report}");
            ExitCode::from(DTRACE.error_status)
        }
    }
}

/// Compiles the program, then does what the mode asks: `-h`'s header, `-e`'s reports, or
/// tracing.
fn compile_and_act(mut r: Request, mut program: Program, child: Option<Child>, pid: Option<i32>) -> ExitCode {
    let kernel = crate::remembering::Remembering::new();
    let target = child.as_ref().map(|c| c.pid).or(pid).map(i64::from).or((!r.commands.is_empty()).then_some(0));
    let matches = probes::prepare(&mut program, &mut r.settings, &kernel, target);
    let mut text = program.text();
    if !matches.clauses_left || r.cmds.is_empty() {
        text.push_str(NOTHING);
    }
    // $0 is the script's path, or dtrace's as it was invoked.
    let zero = r.cmds.iter().find_map(|c| if let Cmd::Script(p) = c { Some(p.clone()) } else { None }).unwrap_or_else(|| r.argv0.clone());
    let args = std::iter::once(zero).chain(std::mem::take(&mut r.operands)).collect();
    let opts = CompileOptions { target, args, options: r.settings.compiler.clone(), destructive: r.settings.destructive, dialect: Some(crumbs_lang::dialect::Dialect::D), config: Default::default(), probe_filter: None, named: Vec::new(), record_meta: false };
    let compiled = match driver::compile(&text, &opts, &kernel) {
        Ok(c) => c,
        Err(e) => {
            eprint!("{}", errors::report(&e, &program, r.settings.errtags));
            return ExitCode::from(DTRACE.error_status);
        }
    };
    if r.settings.show_code {
        eprint!("{}", crumbs_ebpf::dump(&compiled.code));
    }
    if r.mode == Mode::Header {
        return write_header(&r);
    }

    let quiet = r.quiet || compiled.program.options.quiet;
    let mut out = match output(&r) {
        Ok(o) => o,
        Err(status) => return status,
    };
    for (i, piece) in program.pieces.iter().enumerate() {
        if r.exec && !quiet {
            DTRACE.matched(piece.what(), piece.name(), matches.per_piece[i]);
        }
        if r.verbose {
            let descriptions: Vec<_> = matches.descriptions.iter().filter(|d| d.piece == i).collect();
            stability::report(&mut out, piece, &descriptions, !r.exec);
        }
    }
    if !r.exec {
        let _ = out.flush();
        return ExitCode::SUCCESS;
    }
    if compiled.program.options.destructive && !quiet {
        eprintln!("dtrace: allowing destructive actions");
    }
    let name = program.pieces.first().map_or("<command line>", |p| p.arg.as_str());
    let session = run::Session { voice: &DTRACE, name, text: &text, quiet, format: run::Format::Text, flowindent: r.settings.flowindent, progress: false, child, pid, out, in_repl: false, no_warnings: false, dry_run: false, tables: None };
    run::trace(&compiled, session)
}

/// `-p PID`: a process id (as strtol reads it) of a process that exists.
fn grab(arg: &str) -> Result<i32, String> {
    let pid: i32 = arg.trim_start().parse().map_err(|_| format!("invalid pid: {arg}"))?;
    // SAFETY: signal 0 only checks that the process exists; 0 and negative numbers name
    // process groups, not a process.
    if pid <= 0 || unsafe { libc::kill(pid, 0) } != 0 {
        return Err(format!("failed to grab pid {pid}: {}", strerror(&std::io::Error::from_raw_os_error(libc::ESRCH))));
    }
    Ok(pid)
}

/// `-h`: the header, to `-o FILE` or next to the one script.
fn write_header(r: &Request) -> ExitCode {
    let path = match &r.output {
        Some(p) => p.clone(),
        None => match header::default_path(&r.cmds.iter().map(Cmd::arg).collect::<Vec<_>>()) {
            Ok(p) => p,
            Err(msg) => return say_usage(msg),
        },
    };
    match std::fs::write(&path, header::text(&path)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => DTRACE.fail(format!("failed to open header file '{path}': {}", strerror(&e))),
    }
}
