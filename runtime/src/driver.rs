//! The pipeline behind one entry point, for the command line, the REPL, tests and (later)
//! the Python module: [`compile`] takes a program's text through parse, check and code
//! generation to a loadable object; [`run`] traces with it until it ends.
//!
//! text --lang--> typed IR --runtime-ebpf--> BPF + ELF --[`run`]--> aya, events, output.

use crate::kernel::Kernel;
use crate::output::Sink;
use crate::process::{Child, SpawnError};
use crate::session::{self, RunError, RunOptions};
use crumbs_ebpf::abi;
use crumbs_lang::ast::Span;
use crumbs_lang::check::{apply_option, jstackframes_option, pcapsize_option, CheckOptions};
use crumbs_lang::dialect::Dialect;
use crumbs_lang::diag::Diagnostic;
use crumbs_lang::ir::Program;

/// The dialect a program is written in: the one asked for (`--dialect`, a script's
/// extension), else the one its syntax shows. Every front end (the command line, the REPL,
/// the Python module) decides it here, before compiling, to know how to start `-c`'s
/// command.
pub fn written_in(text: &str, asked: Option<Dialect>) -> Dialect {
    asked.unwrap_or_else(|| crumbs_lang::parse::detect_dialect(text))
}

/// Starts `-c`'s command, held, in the order the dialect's own tracer starts it: a D
/// program's command is held right after its exec (DTrace's order), a bpftrace program's
/// before it (bpftrace execs it once the probes are attached). A held child that never
/// runs is killed and reaped when dropped.
pub fn spawn_command(dialect: Dialect, command: &str) -> Result<Child, SpawnError> {
    match dialect {
        Dialect::Bpftrace => Child::spawn_before_exec(command),
        Dialect::D => Child::spawn(command),
    }
}

/// What compiling needs besides the text and the kernel.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// `$target`: the pid of the `-c` command or the `-p` process.
    pub target: Option<i64>,
    /// `$0` (the script's name), then `$1`, `$2`, ...
    pub args: Vec<String>,
    /// `-x NAME[=VALUE]` options, applied over the script's pragmas.
    pub options: Vec<String>,
    /// Destructive actions are allowed (`-w`): without it (or the `destructive` option) the
    /// checker refuses `system()`, `raise()` and `stop()`.
    pub destructive: bool,
    /// The language of the program (None: found from its syntax).
    pub dialect: Option<crumbs_lang::dialect::Dialect>,
    /// bpftrace's config variables from the environment (the `bpftrace` drop-in's
    /// `BPFTRACE_STACK_MODE`, ...), over the program's config block.
    pub config: crumbs_lang::config::Config,
    /// Which matched probes to keep (bpftrace's `--probe-filter`); None: all.
    pub probe_filter: Option<crumbs_lang::check::ProbeFilter>,
    /// bpftrace's named program parameters, apart from `args` (`--name=value`).
    pub named: Vec<String>,
    /// Records carry each firing's timestamp, pid and tid (for a structured output: JSON
    /// lines, Chrome trace): the text outputs do without, at no cost.
    pub record_meta: bool,
}

/// A checked program and its code, ready to load.
pub struct Compiled {
    pub program: Program,
    pub code: abi::Compiled,
}

impl Compiled {
    /// The source span of the i-th clause, for diagnostics from later stages.
    pub fn clause_span(&self, i: usize) -> Span {
        clause_span(&self.program, i)
    }
}

// Returned once per compilation, on the cold path (as lang's diagnostics are): its size
// does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum CompileError {
    /// Something wrong in the program's text, with its span.
    Source(Diagnostic),
    /// Something wrong outside the text (an option): one line.
    Message(String),
}

fn clause_span(p: &Program, i: usize) -> Span {
    p.groups.iter().flat_map(|g| &g.clauses).find(|c| c.index == i).map_or(0..0, |c| c.span.clone())
}

/// Parses, checks and generates code for `text` on `kernel`.
#[allow(clippy::result_large_err)]
pub fn compile(text: &str, opts: &CompileOptions, kernel: &dyn Kernel) -> Result<Compiled, CompileError> {
    let options: Vec<(&str, Option<&str>, &String)> = opts.options.iter().map(|o| o.split_once('=').map_or((o.as_str(), None, o), |(n, v)| (n, Some(v), o))).collect();
    let apply = |to: &mut crumbs_lang::ir::Options, (n, v, opt): (&str, Option<&str>, &String)| apply_option(to, n, v).map_err(|(msg, hint)| CompileError::Message(format!("-x {opt}: {msg} ({hint})")));
    // A string's size is part of the program, and destructive actions are allowed or not
    // when checking: -x strsize and -x destructive reach the checker.
    let mut early = crumbs_lang::ir::Options::default();
    for o in options.iter().filter(|o| (o.0 == "strsize" && o.1.is_some()) || o.0 == "destructive") {
        apply(&mut early, *o)?;
    }
    // So is jstack()'s frame count.
    let mut jstackframes = None;
    for &(_, v, opt) in options.iter().filter(|o| o.0 == "jstackframes") {
        jstackframes = Some(jstackframes_option(v).map_err(|(msg, hint)| CompileError::Message(format!("-x {opt}: {msg} ({hint})")))?);
    }
    // And what pcap() records of a packet.
    let mut pcapsize = None;
    for &(_, v, opt) in options.iter().filter(|o| o.0 == "pcapsize") {
        pcapsize = Some(pcapsize_option(v).map_err(|(msg, hint)| CompileError::Message(format!("-x {opt}: {msg} ({hint})")))?);
    }
    let check = CheckOptions { facts: Some(kernel.facts()), target: opts.target, args: opts.args.clone(), ids: crate::process::own_ids(), strsize: early.strsize, destructive: opts.destructive || early.destructive, jstackframes, pcapsize, dialect: opts.dialect, config: opts.config.clone(), start_ns: monotonic_ns(), probe_filter: opts.probe_filter.clone(), named: opts.named.clone() };
    let mut program = crumbs_lang::compile(text, &check).map_err(CompileError::Source)?;
    for o in options {
        apply(&mut program.options, o)?;
    }
    let target = crumbs_ebpf::abi::Target { record_meta: opts.record_meta, ..kernel.codegen_target(&program) };
    let code = crumbs_ebpf::compile(&program, &target).map_err(|e| match e.clause {
        Some(i) => CompileError::Source(Diagnostic::new(clause_span(&program, i), e.message).label("in this clause")),
        None => CompileError::Message(e.message),
    })?;
    Ok(Compiled { program, code })
}

/// Loads, attaches and traces until the program exits, Ctrl-C, or the traced process ends,
/// every firing and the final aggregations going to `sink`; returns the exit status the
/// program asked for (0 otherwise).
pub fn run(compiled: &Compiled, opts: RunOptions, sink: &mut dyn Sink) -> Result<i32, RunError> {
    session::run(&compiled.program, &compiled.code, opts, sink)
}

/// CLOCK_MONOTONIC now, in ns (the kernel's bpf_ktime_get_ns() clock).
fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes only the timespec given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
