//! `crumbs`: the command line. Parses options, compiles the script through the pipeline
//! (lang -> runtime-ebpf) and hands the result to the runtime.

use clap::Parser;
use crumbs_lang::diag::Diagnostic;
use crumbs_lang::dialect::Dialect;
use crumbs_runtime::driver::{self, CompileError, CompileOptions};
use crumbs_runtime::kernel::Kernel;
use crumbs_runtime::process::Child;
use crumbs_runtime::session::{self, RunError};
use std::io::IsTerminal;
use std::process::ExitCode;

mod bpftrace;
mod conventions;
mod dtrace;
mod formats;
mod list;
mod repl;
mod run;
mod remembering;
mod signals;
mod unmatched;

/// A DTrace-style tracer for Linux: D scripts compiled straight to eBPF.
#[derive(Parser, Debug, Clone)]
#[command(name = "crumbs", version, about, override_usage = "crumbs [OPTIONS] [SCRIPT] [ARG]...", after_help = "Examples:\n  crumbs -e 'syscall:::entry /comm==\"io-benchmark\"/ <@[probefunc]=count()>'\n  crumbs -s scripts/l41-syscalls.d -c 'io-benchmark -r -b 512 iofile'\n  crumbs -q -e 'BEGIN { printf(\"hello\\n\"); exit(0); }'\n(--help shows examples for each kind of use)", after_long_help = conventions::EXAMPLES)]
pub(crate) struct Cli {
    /// The D script file (unless -e or -s gives the program), then the script's arguments,
    /// $1 $2 ... in the program ($0 is the script's name).
    #[arg(value_name = "SCRIPT|ARG")]
    operands: Vec<String>,
    /// Program text on the command line (`-n` as in DTrace; repeat to add clauses).
    #[arg(short = 'e', visible_short_alias = 'n', value_name = "PROGRAM", conflicts_with = "source")]
    program: Vec<String>,
    /// D script file.
    #[arg(short = 's', value_name = "FILE")]
    source: Option<String>,
    /// Run CMD with probes attached; $target is its pid; stop when it exits.
    #[arg(short = 'c', value_name = "CMD", conflicts_with = "pid")]
    command: Option<String>,
    /// Trace until process PID exits; $target is PID.
    #[arg(short = 'p', value_name = "PID", allow_negative_numbers = true)]
    pid: Option<i32>,
    /// Quiet: print only what the script prints (no probe lines, no banner).
    #[arg(short = 'q')]
    quiet: bool,
    /// Write trace output to FILE instead of standard output.
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<String>,
    /// Set a DTrace option (spec §3.2): quiet, bufsize=SIZE, aggsize=SIZE, dynvarsize=SIZE, strsize=SIZE, stackframes=N, ustackframes=N, jstackframes=N, jstackstrsize=SIZE, pcapsize=SIZE, nspec=N, specsize=SIZE, aggsortkey, aggsortrev, aggsortpos=N, aggsortkeypos=N, aggpack, destructive, rawbytes, switchrate=RATE, aggrate=RATE.
    #[arg(short = 'x', value_name = "OPT[=VAL]")]
    options: Vec<String>,
    /// Allow destructive actions: system(), raise(), stop(), chill(), copyout(), copyoutstr(), freopen().
    #[arg(short = 'w')]
    destructive: bool,
    /// List probes (those the program's descriptions match, or all) and exit.
    #[arg(short = 'l')]
    list: bool,
    /// With -l: also list each probe's argument types, args[0]... (DTrace's -lv).
    #[arg(short = 'v', requires = "list")]
    verbose: bool,
    /// Read programs interactively (the default when no program is given on a terminal).
    #[arg(long, conflicts_with_all = ["program", "source", "command", "pid", "list"])]
    repl: bool,
    /// Print the generated BPF instructions and exit.
    #[arg(long)]
    dump_bpf: bool,
    /// Write the generated ELF object to FILE and exit.
    #[arg(long, value_name = "FILE")]
    emit_elf: Option<String>,
    /// The program's language, d or bpftrace (default: bpftrace for a .bt file or a program
    /// written with bpftrace-only syntax, else D).
    #[arg(long, value_name = "d|bpftrace", value_parser = dialect_arg)]
    dialect: Option<Dialect>,
    /// Output format: text (the default), json (JSON lines: one object per record and per
    /// aggregation row), chrome (Chrome trace events, as .pfw files hold) or parquet (a table
    /// per clause: -o x.parquet writes x.1.parquet...); without it, -o's extension chooses
    /// (.json .ndjson, .pfw .trace.json, .parquet; .gz compresses).
    #[arg(short = 'f', value_name = "text|json|chrome|parquet", value_parser = formats::named)]
    format: Option<run::Format>,
    /// Flow: entry and return probes of a function on one thread are one call: the text
    /// output indents by call depth (DTrace's -F), Chrome output has one span per call.
    #[arg(short = 'F')]
    flow: bool,
    /// Print crumbs' man page (roff) and exit: `crumbs --man > /usr/local/share/man/man1/crumbs.1`.
    #[arg(long, exclusive = true)]
    man: bool,
    /// Print a completion script for SHELL (bash, zsh, fish, elvish, powershell) and exit.
    #[arg(long, value_name = "SHELL", exclusive = true)]
    completions: Option<clap_complete::Shell>,
}

fn dialect_arg(s: &str) -> Result<Dialect, String> {
    Dialect::from_name(s).ok_or_else(|| format!("`{s}` is not a dialect: d or bpftrace"))
}

pub(crate) fn fail(msg: impl std::fmt::Display) -> ExitCode {
    run::CRUMBS.fail(msg)
}

fn main() -> ExitCode {
    // Like other Unix filters, end quietly when the reader of our output goes away
    // (`crumbs ... | head`); the kernel detaches everything with the process.
    // SAFETY: setting a signal disposition before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Under the name dtrace (a symlink /usr/sbin/dtrace -> crumbs), dtrace(1)'s command line.
    let argv0 = std::env::args_os().next().unwrap_or_default();
    if std::path::Path::new(&argv0).file_name().is_some_and(|n| n == "dtrace") {
        return dtrace::main(std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect());
    }
    // Under the name bpftrace (a symlink /usr/local/bin/bpftrace -> crumbs), bpftrace's.
    if std::path::Path::new(&argv0).file_name().is_some_and(|n| n == "bpftrace") {
        return bpftrace::main(std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect());
    }
    let cli = Cli::parse();
    if cli.man {
        return conventions::man();
    }
    if let Some(shell) = cli.completions {
        return conventions::completions(shell);
    }
    // The first operand is the script unless -e or -s gave the program; the rest are $1...
    let mut operands = cli.operands.clone();
    let script = (cli.program.is_empty() && cli.source.is_none() && !operands.is_empty()).then(|| operands.remove(0));
    if cli.list && cli.program.is_empty() && cli.source.is_none() && script.is_none() {
        return list::all(cli.verbose);
    }
    let inline = (!cli.program.is_empty()).then(|| cli.program.join("\n"));
    let (name, text) = match (inline, cli.source.as_ref().or(script.as_ref())) {
        (Some(p), _) => ("<command line>".to_string(), p),
        (None, Some(path)) => match std::fs::read_to_string(path) {
            Ok(t) => (path.clone(), t),
            Err(e) => return fail(format!("cannot read script {path}: {e}")),
        },
        (None, None) if cli.repl || std::io::stdin().is_terminal() => return repl::run(&cli),
        (None, None) => return fail("no program: give a script file, -s FILE or -e 'PROGRAM', or --repl (see --help)"),
    };
    if cli.list {
        // pid$target names the -p process, or the -c command, started and held (never run)
        // just to read its files.
        let child = match &cli.command {
            Some(cmd) => match Child::spawn(cmd) {
                Ok(c) => Some(c),
                Err(e) => return fail(format!("-c: {e}")),
            },
            None => None,
        };
        let target = child.as_ref().map(|c| c.pid).or(cli.pid).map(i64::from);
        return list::matching(&name, &text, cli.verbose, target);
    }
    trace(&cli, &name, &text, operands, !cli.program.is_empty(), false)
}

/// Compiles one program and traces with it until it ends: the whole pipeline, used once
/// for the command line and once per program in the REPL.
fn trace(cli: &Cli, name: &str, text: &str, operands: Vec<String>, inline: bool, in_repl: bool) -> ExitCode {
    let render = |d: &Diagnostic| {
        eprint!("{}", d.render(name, text, std::io::stderr().is_terminal()));
        ExitCode::from(2)
    };
    let compile_only = cli.dump_bpf || cli.emit_elf.is_some();
    // kill(2) gives 0 and negative numbers meanings of their own (process groups).
    if let Some(pid) = cli.pid.filter(|p| *p <= 0) {
        return fail(format!("-p {pid}: not a process id (process ids are positive numbers)"));
    }
    if !compile_only {
        if let Err(RunError::Permission(msg)) = session::check_permission() {
            return fail(msg);
        }
        // SAFETY: signal 0 only checks that the process exists.
        if let Some(pid) = cli.pid.filter(|p| unsafe { libc::kill(*p, 0) } != 0) {
            return fail(format!("-p {pid}: cannot watch that process: {}", std::io::Error::last_os_error()));
        }
    }
    let dialect = cli.dialect.or(if inline { None } else { Dialect::of_path(name) });
    let written_in = driver::written_in(text, dialect);
    let child = match (&cli.command, compile_only) {
        (Some(cmd), false) => match driver::spawn_command(written_in, cmd) {
            Ok(c) => Some(c),
            Err(e) => return fail(format!("-c: {e}")),
        },
        _ => None,
    };
    let target = child.as_ref().map(|c| c.pid).or(cli.pid).map(i64::from).or(if compile_only && cli.command.is_some() { Some(0) } else { None });
    let kernel = remembering::Remembering::new();
    let args: Vec<String> = std::iter::once(name.to_string()).chain(operands).collect();
    // A bpftrace program's missing_probes: what matches nothing here taken out first.
    let prepared = match written_in {
        Dialect::Bpftrace => bpftrace::missing::take_out(text, &Default::default(), target, &args, kernel.facts()),
        Dialect::D => bpftrace::missing::Prepared { text: text.to_string(), warnings: Vec::new(), nothing_left: false, setting: None },
    };
    for (span, message) in &prepared.warnings {
        eprint!("{}", bpftrace::missing::render_warning(name, text, span, message));
    }
    if prepared.nothing_left {
        let d = Diagnostic::new(prepared.setting.clone().unwrap_or(0..0), "no probes to attach: no probe description of the program matches a probe here")
            .label("every one taken out")
            .hint("set missing_probes = error to see why each matches nothing, or list what there is with `crumbs -l -e 'PATTERN'`");
        return render(&d);
    }
    let chosen = match formats::choose(cli.format, cli.output.as_deref()) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let opts = CompileOptions { target, args, options: cli.options.clone(), destructive: cli.destructive, dialect, config: Default::default(), probe_filter: None, named: Vec::new(), record_meta: chosen.format.structured() };
    let compiled = match driver::compile(&prepared.text, &opts, &kernel) {
        Ok(c) => c,
        Err(CompileError::Source(d)) => return render(&d),
        Err(CompileError::Message(m)) => return fail(m),
    };
    let program = &compiled.program;
    let quiet = cli.quiet || program.options.quiet;
    if cli.dump_bpf {
        print!("{}", crumbs_ebpf::dump(&compiled.code));
    }
    if let Some(path) = &cli.emit_elf {
        if let Err(e) = std::fs::write(path, &compiled.code.elf) {
            return fail(format!("cannot write {path}: {e}"));
        }
    }
    if compile_only {
        return ExitCode::SUCCESS;
    }

    let mut out = match formats::open(cli.output.as_deref(), chosen) {
        Ok(out) => out,
        Err(e) => return fail(format!("cannot write {}: {e}", cli.output.as_deref().unwrap_or_default())),
    };
    if program.options.destructive && !quiet {
        eprintln!("crumbs: allowing destructive actions");
    }
    if !quiet && program.dialect == Dialect::Bpftrace && chosen.format == run::Format::Text {
        run::CRUMBS.attaching(&mut out, run::Format::Text, program.matched_probes);
    } else if !quiet {
        let (what, shown) = if inline { ("description", text.trim()) } else { ("script", name) };
        run::CRUMBS.matched(what, shown, program.matched_probes);
    }
    run::trace(&compiled, run::Session { voice: &run::CRUMBS, name, text, quiet, format: chosen.format, flowindent: cli.flow, progress: true, child, pid: cli.pid, out, in_repl, no_warnings: false, dry_run: false, tables: cli.output.clone() })
}
