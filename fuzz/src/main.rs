//! `crumbs-fuzz`: a mutation fuzzer over crumbs' whole compile pipeline (parse, check, IR,
//! BPF, ELF), with a live lane that loads some of the programs that compile into the kernel.
//! Any panic, abort, hang or verifier rejection is a failure: printed with its input,
//! minimized, saved under target/fuzz-failures/, and the exit status is 1.
//!
//! CI runs `crumbs-fuzz --count 20000 --live 200` (fixed seed); developers run
//! `crumbs-fuzz --long` for a longer, differently seeded run.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

mod campaign;
mod catalog;
mod finding;
mod generate;
mod live;
mod minimize;
mod mutate;
mod pipeline;
mod protocol;
mod report;
mod rng;
mod seeds;
mod supervisor;
mod worker;

/// Mutation fuzzer for crumbs: compiles mutated programs (and loads some into the kernel).
#[derive(Parser, Debug)]
#[command(name = "crumbs-fuzz")]
struct Args {
    /// PRNG seed: the same seed tries the same programs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Programs to try.
    #[arg(long, default_value_t = 20_000)]
    count: u64,
    /// Run for this many minutes instead of --count programs.
    #[arg(long, value_name = "M")]
    minutes: Option<f64>,
    /// A long run: 30 minutes, 2000 loads, a seed from the clock (unless given).
    #[arg(long)]
    long: bool,
    /// Load this many distinct programs that compiled into the kernel (needs root).
    #[arg(long, value_name = "N", default_value_t = 0)]
    live: u64,
    /// Try only input N of the seed, and show it and what happened.
    #[arg(long, value_name = "N", conflicts_with = "input")]
    only: Option<u64>,
    /// Try one program from FILE (a saved failure), and show what happened.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Time limit per program, in milliseconds: longer is a hang, a failure.
    #[arg(long, value_name = "MS", default_value_t = 30_000)]
    timeout_ms: u64,
    /// Programs taking longer than this to compile are listed as slow (not failures).
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    slow_ms: u64,
    /// Seconds spent shrinking each distinct failure.
    #[arg(long, value_name = "S", default_value_t = 10)]
    minimize_secs: u64,
    /// The crumbs workspace, where the seeds are (default: the one this was built from).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Where failing inputs are saved (default: ROOT/target/fuzz-failures).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// List the seeds and exit.
    #[arg(long)]
    list_seeds: bool,
    /// No progress lines on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// Internal: be a worker process (compile what the parent sends).
    #[arg(long, hide = true)]
    worker: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.worker {
        return worker::run();
    }
    let root = args.root.clone().unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."));
    let corpus = match seeds::load(&root) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    if args.list_seeds {
        for s in &corpus.seeds {
            println!("{}: {}", s.origin, report::escaped(&s.text, 120));
        }
        println!("{} seeds, {} dictionary entries", corpus.seeds.len(), corpus.dict.len());
        return ExitCode::SUCCESS;
    }
    let seed = match (args.long, args.seed) {
        // Only the default seed is replaced: an explicit --seed reproduces a long run.
        (true, 1) => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_secs()),
        (_, s) => s,
    };
    let live = if args.long && args.live == 0 { 2000 } else { args.live };
    // SAFETY: geteuid has no preconditions.
    if live > 0 && unsafe { libc::geteuid() } != 0 {
        return fail("--live loads programs into the kernel: run as root, or without --live");
    }
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return fail(format!("cannot find my own executable to start workers: {e}")),
    };
    let minutes = args.minutes.or(args.long.then_some(30.0));
    let single = args.only.is_some() || args.input.is_some();
    let cfg = campaign::Config {
        seed,
        first: args.only.unwrap_or(0),
        count: if single { 1 } else if minutes.is_some() { u64::MAX } else { args.count },
        duration: minutes.map(|m| Duration::from_secs_f64(m * 60.0)),
        live: if single { live.min(1) } else { live },
        limit: Duration::from_millis(args.timeout_ms),
        slow: Duration::from_millis(args.slow_ms),
        minimize: Duration::from_secs(args.minimize_secs),
        out: args.out.clone().unwrap_or_else(|| root.join("target/fuzz-failures")),
        progress: !args.quiet && !single,
        verbose: single,
    };
    if !single {
        let how_long = minutes.map_or(format!("{} programs", cfg.count), |m| format!("{m} minutes"));
        eprintln!("crumbs-fuzz: seed {seed}, {how_long}, {} seeds, {} live loads", corpus.seeds.len(), cfg.live);
    }
    let mut c = campaign::Campaign::new(&corpus, &cfg, exe);
    let clean = match &args.input {
        Some(path) => match std::fs::read(path) {
            Ok(bytes) => c.run_text(&path.display().to_string(), &String::from_utf8_lossy(&bytes)),
            Err(e) => return fail(format!("cannot read {}: {e}", path.display())),
        },
        None => c.run(),
    };
    if clean { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("crumbs-fuzz: {msg}");
    ExitCode::from(2)
}
