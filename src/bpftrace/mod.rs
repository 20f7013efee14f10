//! The drop-in `bpftrace`: crumbs invoked under the name `bpftrace` (a symlink
//! `/usr/local/bin/bpftrace -> crumbs`) reads bpftrace 0.17's command line and speaks as it
//! does: `ERROR: ...` lines, status 1 for errors, `Attaching N probes...` before tracing,
//! `-f json`'s records (spec §10.6). Programs are bpftrace's dialect (spec §13), compiled by the same pipeline
//! as crumbs' own and traced by [`crate::run`].

mod args;
mod info;
mod types;
mod list;
pub(crate) mod missing;
mod named;

use crate::run::{self, Format, Voice};
use crumbs_lang::dialect::Dialect;
use crumbs_runtime::driver::{self, CompileError, CompileOptions};
use crate::remembering::Remembering;
use crumbs_runtime::kernel::Kernel;
use crumbs_runtime::output::strerror;
use crumbs_runtime::process::{Child, SpawnError};
use crumbs_runtime::session::{self, RunError};
use std::io::{IsTerminal, Read};
use std::process::ExitCode;

/// What `-V` prints: the bpftrace whose command line and output crumbs follows, and crumbs'
/// own version.
pub(crate) const VERSION: &str = concat!("bpftrace v0.17.0 (crumbs ", env!("CARGO_PKG_VERSION"), ")");

/// bpftrace's messages are `ERROR: ...` lines, and it fails with 1: the voice's name is
/// the line's start.
const BPFTRACE: Voice = Voice { name: "ERROR", error_status: 1 };

/// The command line and environment, read.
#[derive(Default)]
struct Request {
    program: Option<String>,
    operands: Vec<String>,
    list: bool,
    quiet: bool,
    /// `-f text` (the default) or `-f json`.
    format: Format,
    unsafe_: bool,
    no_warnings: bool,
    command: Option<String>,
    pid: Option<String>,
    output: Option<String>,
    dry_run_dump: bool,
    emit_elf: Option<String>,
    /// `--dry-run`: attach every probe, then end.
    dry_run: bool,
    /// `--debug dis` (or `all`): print the compiled program, then trace.
    debug_dis: bool,
    /// `--probe-filter REGEX`: only the probes whose names it matches are attached.
    probe_filter: Option<String>,
    /// bpftrace's config variables the environment sets (`BPFTRACE_STACK_MODE`, ...).
    config: crumbs_lang::config::Config,
}

/// An option of current bpftrace's that crumbs does not have: said, with why, status 2.
fn unsupported(option: &str, why: &str) -> ExitCode {
    eprintln!("ERROR: {option} is not supported: {why}");
    ExitCode::from(2)
}

/// `--no-feature FEATURE[,FEATURE]`: kprobe_multi and uprobe_multi are turned off;
/// kprobe_session crumbs never uses (it attaches a kretprobe's program on its own).
fn no_feature(arg: &str) -> Result<(), ExitCode> {
    use crumbs_runtime::features::{disable, Feature};
    for f in arg.split(',').filter(|f| !f.is_empty()) {
        match f {
            "kprobe_multi" => disable(Feature::KprobeMulti),
            "uprobe_multi" => disable(Feature::UprobeMulti),
            "kprobe_session" => {}
            _ => return Err(BPFTRACE.fail("USAGE: --no-feature can only have values 'kprobe_multi,kprobe_session,uprobe_multi'.")),
        }
    }
    Ok(())
}

/// `--debug STAGE[,STAGE]` (current bpftrace's `-d STAGE`; crumbs' `-d` is 0.17's dry run):
/// `dis` (and `all`) prints the compiled program before tracing; bpftrace's other stages are
/// its LLVM's and libbpf's, which crumbs has not. Whether `dis` was asked for.
fn debug_stages(arg: &str) -> Result<bool, ExitCode> {
    let mut dis = false;
    for stage in arg.split(',').filter(|s| !s.is_empty()) {
        match stage {
            "dis" | "all" => dis = true,
            "ast" | "types" | "codegen" | "codegen-opt" | "libbpf" | "verifier" | "parse" => {
                return Err(unsupported(&format!("--debug {stage}"), "crumbs' only stage to show is the BPF it emits: --debug dis (or -d, which does not trace)"))
            }
            _ => return Err(BPFTRACE.fail(format!("USAGE: invalid option for -d: {stage}"))),
        }
    }
    Ok(dis)
}

/// A usage error: getopt's line, then the usage; status 1 as bpftrace's.
fn usage_error(line: &str) -> ExitCode {
    eprintln!("bpftrace: {line}");
    eprint!("{}", args::USAGE);
    ExitCode::from(1)
}

pub fn main(argv: Vec<String>) -> ExitCode {
    let parsed = match args::getopt(argv.get(1..).unwrap_or_default()) {
        Ok(p) => p,
        Err(line) => return usage_error(&line),
    };
    let mut r = Request { operands: parsed.operands, ..Default::default() };
    for opt in &parsed.options {
        let a = opt.arg.clone();
        match opt.name.as_str() {
            "h" | "help" => {
                eprint!("{}", args::USAGE);
                return ExitCode::SUCCESS;
            }
            "V" | "version" => {
                println!("{VERSION}");
                return ExitCode::SUCCESS;
            }
            "info" => {
                eprint!("{}", info::report());
                return ExitCode::SUCCESS;
            }
            "B" if !matches!(a.as_str(), "line" | "full" | "none") => return BPFTRACE.fail("USAGE: -B must be either 'line', 'full', or 'none'."),
            // The last -f counts, as in bpftrace.
            "f" if a == "text" => r.format = Format::Text,
            "f" if a == "json" => r.format = Format::Json,
            "f" => return BPFTRACE.fail(format!("Invalid output format \"{a}\"\nValid formats: 'text', 'json'")),
            "emit-llvm" => return BPFTRACE.fail("--emit-llvm: crumbs compiles to BPF without LLVM; use --emit-elf FILE or -d"),
            "btf" => return BPFTRACE.fail("--btf: crumbs reads the running kernel's BTF (/sys/kernel/btf)"),
            // The last -e is the program, as in bpftrace.
            "e" => r.program = Some(a),
            "l" => r.list = true,
            "q" => r.quiet = true,
            "unsafe" => r.unsafe_ = true,
            "no-warnings" => r.no_warnings = true,
            "c" => r.command = Some(a),
            "p" => r.pid = Some(a),
            "o" => r.output = Some(a),
            "d" => r.dry_run_dump = true,
            "emit-elf" => r.emit_elf = Some(a),
            "dry-run" => r.dry_run = true,
            "probe-filter" => r.probe_filter = Some(a),
            "no-feature" => {
                if let Err(code) = no_feature(&a) {
                    return code;
                }
            }
            "debug" => match debug_stages(&a) {
                Ok(dis) => r.debug_dis |= dis,
                Err(code) => return code,
            },
            "fmt" => return unsupported("--fmt", "crumbs has no formatter for bpftrace programs"),
            "debuginfo" => return unsupported("--debuginfo", "crumbs reads no DWARF debug information (a uprobe's arguments are arg0, arg1, ...)"),
            "traceable-functions" => return unsupported("--traceable-functions", "crumbs takes the kernel's traceable functions from its BTF, not from a list"),
            "test" | "bench" | "mode" => return unsupported(&format!("--{}", opt.name), "the test: and bench: probes are bpftrace's own test runner's"),
            // -B (output goes out a line at a time or more: the same lines), -v, -k, -kk,
            // -I and --include (C headers: crumbs has the kernel's types from BTF),
            // --usdt-file-activation (crumbs sets USDT semaphores in every process).
            _ => {}
        }
    }
    if let Err(msg) = read_environment(&mut r) {
        return BPFTRACE.fail(msg);
    }
    if r.list {
        return list(r, opt_v(&parsed.options));
    }
    let (name, text, params) = match r.program.take() {
        Some(p) => ("stdin".to_string(), p, std::mem::take(&mut r.operands)),
        None if r.operands.is_empty() => {
            eprint!("{}", args::USAGE);
            return ExitCode::from(1);
        }
        None => {
            let path = r.operands.remove(0);
            let read = if path == "-" {
                let mut t = String::new();
                std::io::stdin().read_to_string(&mut t).map(|_| t)
            } else {
                std::fs::read_to_string(&path)
            };
            match read {
                Ok(t) => (if path == "-" { "stdin".to_string() } else { path }, t, std::mem::take(&mut r.operands)),
                // bpftrace exits with -1 here.
                Err(e) => {
                    BPFTRACE.fail(format!("failed to open file '{path}': {}", strerror(&e)));
                    return ExitCode::from(255);
                }
            }
        }
    };
    trace(r, &name, &text, params)
}

/// `-l`: with a program (`-e PROGRAM`, or a file named by the operand), the probes it would
/// attach, as current bpftrace lists them; else the probes the operand's pattern matches.
fn list(mut r: Request, verbose: bool) -> ExitCode {
    let mut out = std::io::BufWriter::new(std::io::stdout());
    let program = match r.program.take() {
        Some(p) => Some(("stdin".to_string(), p, std::mem::take(&mut r.operands))),
        None if r.operands.first().is_some_and(|f| std::path::Path::new(f).is_file()) => {
            let path = r.operands.remove(0);
            match std::fs::read_to_string(&path) {
                Ok(t) => Some((path, t, std::mem::take(&mut r.operands))),
                Err(e) => return BPFTRACE.fail(format!("failed to open file '{path}': {}", strerror(&e))),
            }
        }
        None => None,
    };
    let Some((name, text, params)) = program else {
        return match list::list(r.operands.first().map(String::as_str), verbose, &mut out) {
            Ok(()) => ExitCode::SUCCESS,
            Err(msg) => BPFTRACE.fail(msg),
        };
    };
    match list::list_program(&text, &params, verbose, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(d) => {
            eprint!("{}", d.render(&name, &text, std::io::stderr().is_terminal()));
            ExitCode::from(BPFTRACE.error_status)
        }
    }
}

fn opt_v(options: &[args::Opt]) -> bool {
    options.iter().any(|o| o.name == "v")
}

/// bpftrace's config variables from the environment (`BPFTRACE_MAX_STRLEN` and 0.17's
/// `BPFTRACE_STRLEN`, `BPFTRACE_STACK_MODE`, ...: the table in crumbs_lang::config, shared with
/// the program's config block, over which they win).
fn read_environment(r: &mut Request) -> Result<(), String> {
    r.config = crumbs_lang::config::from_env(|var| std::env::var(var).ok())?;
    Ok(())
}

/// Compiles the program and traces with it (or, for `-d` and `--emit-elf`, writes it out).
fn trace(r: Request, name: &str, text: &str, params: Vec<String>) -> ExitCode {
    let compile_only = r.dry_run_dump || r.emit_elf.is_some();
    let pid = match r.pid.as_deref().map(grab).transpose() {
        Ok(p) => p,
        Err(msg) => return BPFTRACE.fail(msg),
    };
    if !compile_only {
        if let Err(RunError::Permission(msg)) = session::check_permission() {
            return BPFTRACE.fail(msg);
        }
    }
    // bpftrace's order: the command is forked now and execs once every probe is attached, so
    // that they see its execve too.
    let child = match (&r.command, compile_only) {
        (Some(cmd), false) => match Child::spawn_before_exec(cmd) {
            Ok(c) => Some(c),
            // bpftrace's words, and its -1.
            Err(SpawnError::NotFound { command }) => {
                BPFTRACE.fail(format!("Failed to fork child: path '{command}' does not exist or is not executable"));
                return ExitCode::from(255);
            }
            Err(SpawnError::Exec { command, error }) => return BPFTRACE.fail(format!("failed to execute {command}: {}", strerror(&error))),
            Err(SpawnError::Other(msg)) => return BPFTRACE.fail(msg),
        },
        _ => None,
    };
    let target = child.as_ref().map(|c| c.pid).or(pid).map(i64::from).or((compile_only && r.command.is_some()).then_some(0));
    let kernel = Remembering::new();
    // `-- p1 --aa=20 --bb p2`: $1 and $2 are p1 and p2; getopt() reads aa and bb.
    let (params, named) = named::split(params);
    let args: Vec<String> = std::iter::once(name.to_string()).chain(params).collect();
    let prepared = missing::take_out(text, &r.config, target, &args, kernel.facts());
    if !r.no_warnings {
        for (span, message) in &prepared.warnings {
            eprint!("{}", missing::render_warning(name, text, span, message));
        }
    }
    if prepared.nothing_left {
        // bpftrace's words, on standard output, and its status.
        if !r.quiet {
            println!("No probes to attach");
        }
        return ExitCode::from(1);
    }
    let probe_filter = match r.probe_filter.as_deref().map(probe_filter).transpose() {
        Ok(f) => f,
        Err(msg) => return BPFTRACE.fail(msg),
    };
    let opts = CompileOptions { target, args, options: Vec::new(), destructive: r.unsafe_, dialect: Some(Dialect::Bpftrace), config: r.config.clone(), probe_filter: probe_filter.clone(), named: named.clone(), record_meta: false };
    let compiled = match driver::compile(&prepared.text, &opts, &kernel) {
        Ok(c) => c,
        // crumbs' own diagnostic (file:line:col, the line, a caret, a hint); bpftrace's status.
        Err(CompileError::Source(d)) => {
            eprint!("{}", d.render(name, text, std::io::stderr().is_terminal()));
            return ExitCode::from(BPFTRACE.error_status);
        }
        Err(CompileError::Message(m)) => return BPFTRACE.fail(m),
    };
    if let Some(said) = named::unexpected(&named, &compiled.program.getopts) {
        eprint!("{said}");
        return ExitCode::from(1);
    }
    if probe_filter.is_some() && compiled.program.matched_probes == 0 {
        return BPFTRACE.fail("Attachment failed for all probes.");
    }
    if r.dry_run_dump || r.debug_dis {
        print!("{}", crumbs_ebpf::dump(&compiled.code));
    }
    if let Some(path) = &r.emit_elf {
        if let Err(e) = std::fs::write(path, &compiled.code.elf) {
            return BPFTRACE.fail(format!("failed to write {path}: {}", strerror(&e)));
        }
    }
    if compile_only {
        return ExitCode::SUCCESS;
    }
    let mut out = match run::output(r.output.as_deref(), false) {
        Ok(out) => out,
        Err(e) => return BPFTRACE.fail(format!("Failed to open output file: \"{}\": {}", r.output.as_deref().unwrap_or_default(), strerror(&e))),
    };
    // -q and the program's own quiet option; bpftrace's line goes where the output goes.
    let quiet = r.quiet || compiled.program.options.quiet;
    // --dry-run ends once the probes are attached, before bpftrace would say so.
    if !quiet && !r.dry_run {
        BPFTRACE.attaching(&mut out, r.format, compiled.program.matched_probes);
    }
    let session = run::Session { voice: &BPFTRACE, name, text, quiet, format: r.format, flowindent: false, progress: false, child, pid, out, in_repl: false, no_warnings: r.no_warnings, dry_run: r.dry_run, tables: None };
    run::trace(&compiled, session)
}

/// `--probe-filter REGEX`: keeps the probes whose bpftrace names (`kprobe:vfs_read`,
/// `tracepoint:sched:sched_switch`) the regular expression matches somewhere, as bpftrace's
/// std::regex_search does; BEGIN and END are always kept.
fn probe_filter(regex: &str) -> Result<crumbs_lang::check::ProbeFilter, String> {
    let re = regex_automata::meta::Regex::new(regex).map_err(|e| {
        // The syntax error's last line says what is wrong (`error: unclosed group`).
        let why = e.syntax_error().map_or(e.to_string(), |s| s.to_string().lines().last().unwrap_or_default().trim_start_matches("error: ").to_string());
        format!("Invalid --probe-filter regex '{regex}': {why}")
    })?;
    Ok(crumbs_lang::check::ProbeFilter(std::rc::Rc::new(move |desc, p| list::probe_name(desc, p).is_none_or(|name| re.is_match(name.as_str())))))
}

/// `-p PID`: a decimal process id of a process that exists.
fn grab(arg: &str) -> Result<i32, String> {
    let pid: i32 = arg.parse().ok().filter(|p| *p > 0).ok_or_else(|| format!("pid '{arg}' is not a valid decimal number"))?;
    // SAFETY: signal 0 only checks that the process exists.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return Err(format!("pid {pid}: {}", strerror(&std::io::Error::last_os_error())));
    }
    Ok(pid)
}
