//! One fuzzing run: generate the inputs of a seed in order, compile each in the worker, load
//! a paced sample of the distinct programs that compiled into the kernel (the live lane),
//! and collect the failures, one per distinct bug, each minimized, printed and saved.

use crate::finding::{classify, Finding};
use crate::minimize::minimize;
use crate::protocol::{self, Reply, Stage};
use crate::report;
use crate::seeds::Corpus;
use crate::supervisor::{Verdict, Worker};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub struct Config {
    pub seed: u64,
    /// The first input's number (`--only N` runs input N alone).
    pub first: u64,
    pub count: u64,
    /// Stop after this long even if `count` inputs have not been tried.
    pub duration: Option<Duration>,
    /// Distinct compiled programs to load into the kernel.
    pub live: u64,
    /// Per input: longer than this is a hang (a failure).
    pub limit: Duration,
    /// Per input: longer than this is slow (listed, not a failure).
    pub slow: Duration,
    /// Time to spend shrinking each distinct failure.
    pub minimize: Duration,
    pub out: PathBuf,
    pub progress: bool,
    /// Print every input and its outcome (for `--only` and `--input`).
    pub verbose: bool,
}

/// Loading runs the kernel's verifier, which may legitimately take seconds on a big program.
const LOAD_LIMIT: Duration = Duration::from_secs(30);

/// Programs this big are loaded whenever the live lane is on, beyond the paced sample: size
/// is where code generation meets the kernel's limits (16-bit jump offsets, 1M instructions,
/// the verifier's complexity budget).
const BIG_PROGRAM: u64 = 20_000;
const MAX_BIG_LOADS: u64 = 50;

struct Bug {
    finding: Finding,
    first: u64,
    hits: u64,
}

#[derive(Default)]
struct Stats {
    tried: u64,
    rejected: BTreeMap<Stage, u64>,
    compiled: u64,
    distinct_compiled: HashSet<u64>,
    insns: u64,
    loaded: u64,
    loading: Duration,
    big_loaded: u64,
    load_ok: u64,
    /// Load failures that are not verifier rejections, by message: (count, first input).
    load_failed: BTreeMap<String, (u64, u64)>,
    minimizing: Duration,
    generating: Duration,
    /// Inputs slower than `Config::slow`, slowest first: (time, input number, length).
    slow: Vec<(Duration, u64, usize)>,
    slow_count: u64,
}

pub struct Campaign<'a> {
    corpus: &'a Corpus,
    cfg: &'a Config,
    worker: Worker,
    bugs: Vec<Bug>,
    by_key: HashMap<String, usize>,
    stats: Stats,
}

/// Where an input came from: input N of the seed, or a file.
#[derive(Clone)]
enum Source {
    Index(u64),
    File(String),
}

impl<'a> Campaign<'a> {
    pub fn new(corpus: &'a Corpus, cfg: &'a Config, exe: PathBuf) -> Self {
        Campaign { corpus, cfg, worker: Worker::new(exe), bugs: Vec::new(), by_key: HashMap::new(), stats: Stats::default() }
    }

    /// Runs the configured inputs; true when no failure was found.
    pub fn run(&mut self) -> bool {
        let start = Instant::now();
        let mut last_progress = start;
        let cfg = self.cfg;
        // How far through the run input i is, by count or by time: loads are paced by it.
        let progress_of = |i: u64, now: Instant| {
            let by_count = (i - cfg.first) as f64 / cfg.count.max(1) as f64;
            let by_time = cfg.duration.map_or(0.0, |d| now.duration_since(start).as_secs_f64() / d.as_secs_f64());
            by_count.max(by_time)
        };
        let end = self.cfg.first.saturating_add(self.cfg.count);
        let mut i = self.cfg.first;
        while i < end && self.cfg.duration.is_none_or(|d| start.elapsed() < d) {
            let t0 = Instant::now();
            let text = crate::mutate::input(self.corpus, self.cfg.seed, i);
            self.stats.generating += t0.elapsed();
            let want_load = self.stats.loaded < self.cfg.live && (self.stats.loaded as f64) < self.cfg.live as f64 * progress_of(i, Instant::now()) + 1.0;
            self.one(&text, Source::Index(i), want_load);
            i += 1;
            if self.cfg.progress && last_progress.elapsed() >= Duration::from_secs(10) {
                last_progress = Instant::now();
                eprintln!("crumbs-fuzz: {} programs, {:.0}/s, {} compiled, {} loaded, {} distinct failures", self.stats.tried, self.rate(start), self.stats.compiled, self.stats.loaded, self.bugs.len());
            }
        }
        // Too few distinct programs compiled along the way: keep going for the live lane.
        let top_up_end = i.saturating_add(50 * self.cfg.live);
        while self.stats.loaded < self.cfg.live && i < top_up_end {
            let text = crate::mutate::input(self.corpus, self.cfg.seed, i);
            self.one(&text, Source::Index(i), true);
            i += 1;
        }
        self.summary(start, i);
        self.bugs.is_empty() && self.stats.loaded >= self.cfg.live
    }

    /// Runs one given text (`--input FILE`); true when it does not fail.
    pub fn run_text(&mut self, name: &str, text: &str) -> bool {
        let start = Instant::now();
        self.one(text, Source::File(name.to_string()), self.cfg.live > 0);
        self.summary(start, 0);
        self.bugs.is_empty()
    }

    fn rate(&self, start: Instant) -> f64 {
        self.stats.tried as f64 / start.elapsed().saturating_sub(self.stats.minimizing).as_secs_f64().max(1e-9)
    }

    fn one(&mut self, text: &str, source: Source, want_load: bool) {
        self.stats.tried += 1;
        let t0 = Instant::now();
        let v = self.worker.request(protocol::COMPILE, text.as_bytes(), self.cfg.limit);
        if let (Source::Index(i), true) = (&source, t0.elapsed() > self.cfg.slow) {
            self.stats.slow_count += 1;
            self.stats.slow.push((t0.elapsed(), *i, text.len()));
            self.stats.slow.sort_by(|a, b| b.cmp(a));
            self.stats.slow.truncate(5);
        }
        if self.cfg.verbose {
            println!("input {}: {}\n  compile: {v:?}", describe(&source, self.cfg.seed), report::escaped(text, 2000));
        }
        match &v {
            Verdict::Reply(Reply::Rejected { stage, .. }) => *self.stats.rejected.entry(*stage).or_default() += 1,
            Verdict::Reply(Reply::Compiled { hash, insns }) => {
                self.stats.compiled += 1;
                self.stats.insns += insns;
                let new = self.stats.distinct_compiled.insert(*hash);
                let big = self.cfg.live > 0 && *insns >= BIG_PROGRAM && self.stats.big_loaded < MAX_BIG_LOADS;
                if new && big {
                    self.stats.big_loaded += 1;
                }
                if new && (want_load || big) {
                    self.load(text, &source);
                }
            }
            _ => {}
        }
        self.check(&v, text, &source, false);
    }

    fn load(&mut self, text: &str, source: &Source) {
        let t0 = Instant::now();
        let v = self.worker.request(protocol::LOAD, &[], LOAD_LIMIT);
        self.stats.loading += t0.elapsed();
        if self.cfg.verbose {
            println!("  load: {v:?}");
        }
        self.stats.loaded += 1;
        match &v {
            Verdict::Reply(Reply::Loaded) => self.stats.load_ok += 1,
            Verdict::Reply(Reply::LoadFailed { message }) => {
                let at = match source {
                    Source::Index(i) => *i,
                    Source::File(_) => 0,
                };
                self.stats.load_failed.entry(message.clone()).or_insert((0, at)).0 += 1;
            }
            _ => {}
        }
        self.check(&v, text, source, true);
    }

    /// Compiles (and loads, for the live lane) and says which bug, if any, the text hits.
    fn key_of(&mut self, text: &str, live: bool) -> Option<String> {
        let v = self.worker.request(protocol::COMPILE, text.as_bytes(), self.cfg.limit);
        let v = match (&v, live) {
            (Verdict::Reply(Reply::Compiled { .. }), true) => self.worker.request(protocol::LOAD, &[], LOAD_LIMIT),
            _ => v,
        };
        classify(&v, text).map(|f| f.key)
    }

    fn check(&mut self, v: &Verdict, text: &str, source: &Source, live: bool) {
        let Some(finding) = classify(v, text) else { return };
        if let Some(&b) = self.by_key.get(&finding.key) {
            self.bugs[b].hits += 1;
            return;
        }
        let n = self.bugs.len() + 1;
        let t0 = Instant::now();
        let key = finding.key.clone();
        let mut tries = 0;
        // Every try of a hang would take the whole time limit.
        let budget = if matches!(v, Verdict::Hang { .. }) { Duration::ZERO } else { self.cfg.minimize };
        let small = minimize(text, t0 + budget, &mut |cand| {
            tries += 1;
            self.key_of(cand, live).as_deref() == Some(key.as_str())
        });
        self.stats.minimizing += t0.elapsed();
        let name = match source {
            Source::Index(_) => format!("seed{}-{n}-{}", self.cfg.seed, report::slug(&finding.key)),
            Source::File(_) => format!("file-{n}-{}", report::slug(&finding.key)),
        };
        let saved = report::save(&self.cfg.out, &name, text).and_then(|a| Ok((a, report::save(&self.cfg.out, &format!("{name}.min"), &small)?)));
        println!("\ncrumbs-fuzz: FAILURE {n}: {}", finding.title);
        println!("  input {}:\n    {}", describe(source, self.cfg.seed), report::escaped(text, 600));
        println!("  minimized ({} characters, {tries} tries, {:.1} s):\n    {}", small.chars().count(), t0.elapsed().as_secs_f64(), report::escaped(&small, 600));
        match saved {
            Ok((a, b)) => println!("  saved: {} and {}", a.display(), b.display()),
            Err(e) => println!("  (cannot save it under {}: {e})", self.cfg.out.display()),
        }
        if !finding.detail.is_empty() {
            println!("  {}", finding.detail.replace('\n', "\n  "));
        }
        let first = match source {
            Source::Index(i) => *i,
            Source::File(_) => 0,
        };
        self.by_key.insert(finding.key.clone(), self.bugs.len());
        self.bugs.push(Bug { finding, first, hits: 1 });
    }

    fn summary(&self, start: Instant, next: u64) {
        let s = &self.stats;
        let secs = start.elapsed().as_secs_f64();
        println!(
            "\ncrumbs-fuzz: seed {}, {} programs in {secs:.1} s ({:.0}/s without the {:.1} s spent minimizing), {} worker(s) started",
            self.cfg.seed,
            s.tried,
            self.rate(start),
            s.minimizing.as_secs_f64(),
            self.worker.started
        );
        println!("  {:.1} s generating inputs; {} input(s) slower than {:.1} s to compile (not failures)", s.generating.as_secs_f64(), s.slow_count, self.cfg.slow.as_secs_f64());
        for (t, i, len) in &s.slow {
            println!("    input {i}: {:.1} s ({len} bytes)", t.as_secs_f64());
        }
        let rejected: Vec<String> = s.rejected.iter().map(|(st, n)| format!("{} {n}", st.name())).collect();
        println!("  rejected with a diagnostic: {}", if rejected.is_empty() { "none".into() } else { rejected.join(", ") });
        println!(
            "  compiled: {} ({} distinct programs, {:.0} BPF instructions on average)",
            s.compiled,
            s.distinct_compiled.len(),
            s.insns as f64 / s.compiled.max(1) as f64
        );
        if self.cfg.live > 0 || s.loaded > 0 {
            let verifier = self.bugs.iter().filter(|b| b.finding.key.starts_with("verifier:")).map(|b| b.hits).sum::<u64>();
            let failed: u64 = s.load_failed.values().map(|(n, _)| n).sum();
            println!(
                "  live: {} loaded into the kernel in {:.1} s (goal {}; {} of them for their size): {} accepted, {verifier} rejected by the verifier, {failed} failed otherwise",
                s.loaded,
                s.loading.as_secs_f64(),
                self.cfg.live,
                s.big_loaded,
                s.load_ok
            );
            for (msg, (n, first)) in &s.load_failed {
                println!("    load failure (not a verifier rejection) x{n}, first input {first}: {msg}");
            }
            if s.loaded < self.cfg.live {
                println!("  FAILED: only {} distinct programs compiled and loaded by input {next}; the live lane needs {}", s.loaded, self.cfg.live);
            }
        }
        if self.bugs.is_empty() {
            println!("  no failures");
            return;
        }
        println!("  FAILED: {} distinct failure(s):", self.bugs.len());
        for (n, b) in self.bugs.iter().enumerate() {
            println!("    {}. {} ({} input(s), first: input {})", n + 1, b.finding.title, b.hits, b.first);
        }
        println!("  reproduce one input with: crumbs-fuzz --seed {} --only N (inputs saved under {})", self.cfg.seed, self.cfg.out.display());
    }
}

fn describe(source: &Source, seed: u64) -> String {
    match source {
        Source::Index(i) => format!("{i} of seed {seed}"),
        Source::File(f) => f.clone(),
    }
}
