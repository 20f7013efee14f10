//! The checker: resolves names against the builtin and provider tables, checks types and
//! arity, and lowers the AST to the typed IR. Every error carries the span it is about.

use crate::ast::{self, BinOp, ExprKind, LValue, Span, UnOp};
use crate::builtins::{self, ArgSpec, FnHook, FnKind, VarHook, VarType};
use crate::diag::{closest, Diagnostic};
use crate::ir::*;
use crate::printf;
use crate::providers::{expand_macros, match_probes_with, AttachPoint, PROFILE_ID_BASE, SYSCALL_ID_BASE};
use crate::syscalls::SyscallTable;
use crate::facts::{KernelFacts, Memo};
use crate::tracepoints::{parse_format, FieldKind, Tracepoint};
use std::collections::{BTreeMap, BTreeSet};

mod actions;
mod agg_reads;
mod arrays;
mod args;
mod bpftrace;
mod bpftrace_bytes;
mod bpftrace_called;
mod bpftrace_kfuncs;
mod bpftrace_process;
mod bpftrace_socket;
mod bpftrace_std;
mod bt_str_sizes;
mod cgroup_path;
mod comptime;
mod dead_code;
mod expr_stmt;
mod ctypes;
mod decls;
mod expr;
mod fbt;
mod inet;
mod iter;
mod keys;
mod kernel_fields;
mod kernel_path;
mod kernel_subrs;
mod kprobe_override;
mod map_addr;
mod map_decls;
mod map_objects;
mod memory;
mod pcap;
mod pointers;
mod postfix_types;
mod speculation;
mod stable;
mod print;
mod print_args;
mod rawtracepoint;
mod scratch_addr;
mod registers;
mod return_args;
mod strings;
mod symbols;
mod tracepoint;
mod translators;
mod typed_let;
mod typeinfo;
mod uregs;
mod user;
mod values;
mod var_decls;
mod vars;

use values::TExpr;
use vars::VarRef;

/// What the checker needs from the command line.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// The running kernel (None: probes that need it, such as tracepoints, are an error).
    pub facts: Option<std::rc::Rc<dyn KernelFacts>>,
    /// `$target`: the pid of the `-c` command or the `-p` process.
    pub target: Option<i64>,
    /// `$0` (the script's name) and `$1`, `$2`, ...: the words after the script.
    pub args: Vec<String>,
    /// `$pid`, `$uid`, ...: crumbs' own process ids (all 0 unless the caller gives them).
    pub ids: ProcessIds,
    /// `-x strsize=N` from the command line: overrides the script's pragma (a string's size
    /// is part of the program, so it is known before checking).
    pub strsize: Option<u64>,
    /// Destructive actions are allowed (`-w`, `-x destructive`).
    pub destructive: bool,
    /// `-x jstackframes=N` from the command line: `jstack()`'s frame count is part of the
    /// program (user space knows no jstack), so it is known before checking.
    pub jstackframes: Option<u8>,
    /// `-x pcapsize=N` from the command line: the bytes `pcap()` records are part of the
    /// record's layout.
    pub pcapsize: Option<u32>,
    /// The language the program is written in (None: found from its syntax, see
    /// [`crate::parse::detect_dialect`]).
    pub dialect: Option<crate::dialect::Dialect>,
    /// bpftrace's config variables the environment sets (`BPFTRACE_STACK_MODE`, ...): they
    /// win over the program's `config = { ... }` block.
    pub config: crate::config::Config,
    /// CLOCK_MONOTONIC when tracing starts (as near as the caller knows it), in ns:
    /// bpftrace's `elapsed` counts from it.
    pub start_ns: u64,
    /// bpftrace's named program parameters (`--name=value`, `--name`) where they are given
    /// apart from the positional ones (the `bpftrace` drop-in's); getopt() reads them, and
    /// any `--name` among `args` too.
    pub named: Vec<String>,
    /// Which matched probes the program keeps (bpftrace's `--probe-filter`); None: all.
    pub probe_filter: Option<ProbeFilter>,
}

/// Which of a description's matched probes a program keeps: the others are not attached
/// (bpftrace's `--probe-filter REGEX`, over its names of the probes). BEGIN, END and ERROR
/// are always kept.
#[derive(Clone)]
pub struct ProbeFilter(pub std::rc::Rc<KeepProbe>);

/// Whether to keep probe `p`, which description `desc` matched.
pub type KeepProbe = dyn Fn(&crate::ast::ProbeDesc, &crate::providers::Probe) -> bool;

impl std::fmt::Debug for ProbeFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProbeFilter")
    }
}

/// The ids of the process compiling the program, D's macro variables `$pid`, `$ppid`,
/// `$pgid`, `$sid`, `$uid`, `$euid`, `$gid` and `$egid`.
#[derive(Clone, Debug, Default)]
pub struct ProcessIds {
    pub pid: i64,
    pub ppid: i64,
    pub pgid: i64,
    pub sid: i64,
    pub uid: i64,
    pub euid: i64,
    pub gid: i64,
    pub egid: i64,
}

impl ProcessIds {
    /// The macro variable `$name`'s value, if it is one of these.
    pub fn get(&self, name: &str) -> Option<i64> {
        Some(match name {
            "pid" => self.pid,
            "ppid" => self.ppid,
            "pgid" => self.pgid,
            "sid" => self.sid,
            "uid" => self.uid,
            "euid" => self.euid,
            "gid" => self.gid,
            "egid" => self.egid,
            _ => return None,
        })
    }
}

/// Checks a parsed program and lowers it to IR.
pub fn check(program: &ast::Program, opts: &CheckOptions) -> Result<Program, Diagnostic> {
    // List the kernel's tracepoints once for the whole program, however many clauses use them.
    let memo = opts.facts.clone().map(|f| std::rc::Rc::new(Memo::new(f)) as std::rc::Rc<dyn KernelFacts>);
    let opts = &CheckOptions { facts: memo, ..opts.clone() };
    let types = crate::types::Types::new(opts.facts.clone());
    match check_pass(program, opts, types, None)? {
        (p, None) => Ok(p),
        // A variable was read before its first assignment: check again knowing its type.
        (_, Some(known)) => Ok(check_pass(program, opts, known.0, Some((known.1, known.2, known.3)))?.0),
    }
}

/// What a first pass found that the second needs from the start: the type arena (with the
/// script's declarations), the type of every global and thread-local variable, and the key
/// positions a later use gave a string buffer (see [`KeyBuffers`]).
type Known = (crate::types::Types, std::collections::HashMap<VarRef, crate::types::TypeId>, KeyBuffers, Option<agg_reads::Aggregations>);

/// Key positions (owner, position) whose first use is a string kept as an id (a literal, a
/// probe name) and a later use a string in a buffer: all their strings go in a buffer of
/// this size, which only a second pass can give the first use.
pub(super) type KeyBuffers = std::collections::HashMap<(String, usize), u32>;

fn check_pass(program: &ast::Program, opts: &CheckOptions, types: crate::types::Types, known: Option<(std::collections::HashMap<VarRef, crate::types::TypeId>, KeyBuffers, Option<agg_reads::Aggregations>)>) -> Result<(Program, Option<Known>), Diagnostic> {
    let second = known.is_some();
    let (known, key_buffers, (aggs, agg_spans)) = match known {
        Some((v, k, a)) => (Some(v), k, a.unwrap_or_default()),
        None => (None, KeyBuffers::new(), Default::default()),
    };
    let mut options = options(&program.pragmas)?;
    // bpftrace's config block, under the environment's settings, over the pragmas.
    let config = crate::config::from_block(&program.config)?.under(&opts.config);
    if let Some(n) = opts.strsize.or(config.max_strlen) {
        options.strsize = Some(n);
    }
    options.no_maps_at_exit = config.print_maps_on_exit == Some(false);
    options.destructive |= opts.destructive;
    let pragma_jstack = program.pragmas.iter().rev().find(|p| p.name == "jstackframes");
    let jstackframes = match (opts.jstackframes, pragma_jstack) {
        (Some(n), _) => n,
        (None, Some(p)) => jstackframes_option(p.value.as_deref()).unwrap_or(JSTACK_FRAMES_DEFAULT),
        (None, None) => JSTACK_FRAMES_DEFAULT,
    };
    let pragma_pcap = program.pragmas.iter().rev().find(|p| p.name == "pcapsize");
    let pcapsize = match (opts.pcapsize, pragma_pcap) {
        (Some(n), _) => n,
        (None, Some(p)) => pcapsize_option(p.value.as_deref()).unwrap_or(pcap::PCAP_SIZE),
        (None, None) => pcap::PCAP_SIZE,
    };
    let mut cx = Checker {
        opts,
        jstackframes,
        pcapsize,
        strsize: str_buffer(options.strsize()),
        max_strlen: options.strsize(),
        globals: Vec::new(),
        thread_locals: Vec::new(),
        arrays: Vec::new(),
        declared_locals: Vec::new(),
        inlines: Vec::new(),
        expanding: Vec::new(),
        clause_locals: Vec::new(),
        declared_scratch: Vec::new(),
        declared_str_sizes: std::collections::HashMap::new(),
        spec: Default::default(),
        if_depth: 0,
        loop_depth: 0,
        sends_each_output: false,
        item_sources: Default::default(),
        alloc_sites: 0,
        destructive: options.destructive,
        translators: Vec::new(),
        bindings: Vec::new(),
        // A second pass knows the aggregations from the start: a clause may read one
        // before the clause that updates it (agg_reads.rs).
        aggs: aggs.into_iter().map(|a| agg_reads::seeded(a, &key_buffers)).collect(),
        reads_later: false,
        agg_spans,
        aggregated: program.clauses.iter().flat_map(|c| c.body.iter().flatten()).flat_map(|s| {
            let mut names = Vec::new();
            s.each_aggregate(&mut |a| names.push(a.name.clone()));
            names
        }).collect(),
        records: Vec::new(),
        strings: Strings::default(),
        printa_uses: Vec::new(),
        uses_stack: false,
        uses_ustack: false,
        uses_build_id_ustack: false,
        user_symbols: false,
        tracepoints: Vec::new(),
        clause_tracepoints: Vec::new(),
        functions: Vec::new(),
        user_probes: Vec::new(),
        raw_tracepoints: Vec::new(),
        getopts: Vec::new(),
        clause_probes: Vec::new(),
        clause_arg_types: std::collections::HashMap::new(),
        stable_hooks: std::collections::HashMap::new(),
        types,
        var_types: known.unwrap_or_default(),
        second_pass_needed: false,
        guessed: None,
        key_buffers,
        key_types: std::collections::HashMap::new(),
        warnings_after: Vec::new(),
        c_ints: std::collections::HashMap::new(),
        stack_mode: config.stack_mode.unwrap_or_default(),
        cat_bytes: config.max_cat_bytes.unwrap_or(bpftrace_out::CAT_BYTES),
        typeinfo_enabled: config.unstable_typeinfo == Some(true),
        key_paths: program.key_paths.clone(),
        // Only bpftrace's ntop() reads them.
        str_sizes: if opts.dialect == Some(crate::dialect::Dialect::Bpftrace) { bt_str_sizes::StrSizes::of(program) } else { Default::default() },
        clause_index: 0,
    };
    var_decls::no_assignments(&program.decls)?;
    if !second {
        cx.declare_types(&program.decls)?;
    }
    cx.declare_variables(&program.decls)?;
    cx.declare_globals(program)?;
    let mut groups: BTreeMap<AttachPoint, Vec<Clause>> = BTreeMap::new();
    let mut order: Vec<AttachPoint> = Vec::new();
    let mut matched = 0;
    let mut profile_probes: Vec<ProfileProbe> = Vec::new();
    // Each description is matched once however often the program repeats it (matching globs
    // over every listed probe).
    let mut matches: std::collections::HashMap<&str, Vec<crate::providers::Probe>> = std::collections::HashMap::new();
    let mut first_error = None;
    let macros = crate::providers::ProbeMacros { target: opts.target, args: &opts.args, bpftrace: cx.bpftrace() };
    for (index, clause) in program.clauses.iter().enumerate() {
        let mut per_attach: BTreeMap<AttachPoint, BTreeSet<u32>> = BTreeMap::new();
        cx.clause_tracepoints.clear();
        cx.clause_probes.clear();
        cx.clause_arg_types.clear();
        for desc in &clause.probes {
            if crate::providers::fbt::address_of(desc).is_some() && !cx.destructive {
                return Err(Diagnostic::new(desc.span.clone(), "Probing by address requires --unsafe")
                    .label("a kernel address")
                    .hint("allow it with --unsafe (crumbs -w): the kernel probes the address given, whatever instruction it is in"));
            }
            let found = match matches.get(desc.text.as_str()) {
                Some(found) => found.clone(),
                None => {
                    let found = match_probes_with(&*expand_macros(desc, &macros)?, opts.facts.as_deref())?;
                    matches.insert(&desc.text, found.clone());
                    found
                }
            };
            let kept = |p: &crate::providers::Probe| p.provider == "dtrace" || opts.probe_filter.as_ref().is_none_or(|f| (f.0)(desc, p));
            let spelled = crate::providers::interned(desc.fields.first().map_or("", String::as_str));
            for mut p in found.into_iter().filter(kept) {
                p.spelled = spelled;
                matched += usize::from(!clause.library);
                for p in cx.placed(opts, p, desc)? {
                    if matches!(p.attach, AttachPoint::Profile { .. } | AttachPoint::Perf { .. } | AttachPoint::Watchpoint { .. }) && !profile_probes.iter().any(|q| q.attach == p.attach) {
                        let id = PROFILE_ID_BASE + profile_probes.len() as u32;
                        if id >= SYSCALL_ID_BASE {
                            return Err(Diagnostic::new(desc.span.clone(), "too many profile and tick rates in one program")
                                .label("one too many")
                                .hint(format!("a program can use at most {} different rates", SYSCALL_ID_BASE - PROFILE_ID_BASE)));
                        }
                        profile_probes.push(ProfileProbe { attach: p.attach, id, name: p.name.to_string() });
                    }
                    // Probe names are interned so the backend can use them as constants.
                    for text in [p.provider, p.module, p.name] {
                        cx.strings.intern(text);
                    }
                    if p.nr.is_none() {
                        cx.strings.intern(p.function);
                    }
                    cx.clause_probes.push(p.clone());
                    let set = per_attach.entry(p.attach).or_default();
                    if let Some(nr) = p.nr {
                        set.insert(nr);
                    }
                }
            }
        }
        cx.clause_index = index;
        let lowered = match cx.clause(clause) {
            Ok(l) => l,
            // A clause may read a variable (a string, say) before the clause that types it:
            // the first pass goes on to find every type, and fails only if it knew them all.
            Err(d) if !second => {
                first_error.get_or_insert(d);
                continue;
            }
            Err(d) => return Err(d),
        };
        for (attach, nrs) in per_attach {
            let filter = match attach {
                AttachPoint::SyscallEntry | AttachPoint::SyscallReturn
                    if nrs.len() < SyscallTable::get().iter().count() =>
                {
                    Filter::Syscalls(nrs.into_iter().collect())
                }
                _ => Filter::All,
            };
            if !order.contains(&attach) {
                order.push(attach);
            }
            let predicate = cx.guarded(attach, lowered.0.clone(), &clause.span)?;
            groups.entry(attach).or_default().push(Clause {
                index,
                span: clause.span.clone(),
                filter,
                predicate,
                body: lowered.1.clone(),
                actions: lowered.2.clone(),
                locals: lowered.4.clone(),
                record: lowered.3,
            });
        }
    }
    let again = cx.second_pass_needed && !second;
    if let (Some(d), false) = (first_error, again) {
        return Err(d);
    }
    for (name, span) in &cx.printa_uses {
        if !cx.aggs.iter().any(|a| &a.name == name) {
            return Err(Diagnostic::new(span.clone(), format!("aggregation `@{name}` is never given a value"))
                .label("printed here")
                .hint(format!("assign it first, e.g. `@{name} = count();`")));
        }
    }
    if cx.bpftrace() {
        cx.maps_of_one_kind()?;
    }
    order.sort();
    iter::alone(&groups)?;
    let globals = (0..cx.globals.len()).map(|g| Variable { name: cx.globals[g].clone(), repr: cx.var_repr(VarRef::Global(g)) }).collect();
    let thread_locals = (0..cx.thread_locals.len()).map(|t| Variable { name: cx.thread_locals[t].clone(), repr: cx.var_repr(VarRef::Thread(t)) }).collect();
    let mut arrays: Vec<Array> = (0..cx.arrays.len()).map(|a| Array { name: cx.arrays[a].name.clone(), thread: cx.arrays[a].thread, keys: cx.arrays[a].keys.clone().unwrap_or_default(), value: cx.map_value_repr(a), len: cx.arrays[a].len, keeps_zero: cx.arrays[a].name.starts_with('@'), declared: None }).collect();
    map_decls::apply(&program.map_decls, &mut arrays, &mut cx.aggs)?;
    // The maps of values keeping a read aggregation's value hold as many keys as it.
    for agg in &cx.aggs {
        agg.read.iter().for_each(|a| arrays[*a].declared = agg.declared);
    }
    let map_objects = cx.map_objects(&arrays, &cx.aggs.clone());
    let program = Program {
        options,
        groups: order
            .into_iter()
            .map(|a| Group { attach: a, clauses: groups.remove(&a).unwrap_or_default() })
            .collect(),
        aggregations: cx.aggs,
        globals,
        thread_locals,
        arrays,
        records: cx.records,
        strings: cx.strings,
        matched_probes: matched,
        profile_probes,
        uses_stack: cx.uses_stack,
        uses_ustack: cx.uses_ustack,
        uses_build_id_ustack: cx.uses_build_id_ustack,
        user_symbols: cx.user_symbols,
        tracepoints: cx.tracepoints,
        functions: cx.functions,
        user_probes: cx.user_probes,
        raw_tracepoints: cx.raw_tracepoints,
        getopts: cx.getopts,
        dialect: opts.dialect.unwrap_or_default(),
        key_paths: program.key_paths.clone(),
        map_objects,
    };
    if again {
        // A type taken from a guessed read is the guess, not known.
        let guessed = cx.guessed;
        let vars = cx.var_types.into_iter().filter(|(v, t)| !matches!(v, VarRef::Clause(_)) && Some(*t) != guessed).collect();
        // Only where a clause read an aggregation before the clause that updates it: else
        // the second pass finds the aggregations in the program's order, as D prints them.
        let aggs = cx.reads_later.then(|| (program.aggregations.clone(), cx.agg_spans));
        return Ok((program, Some((cx.types, vars, cx.key_buffers, aggs))));
    }
    Ok((program, None))
}

const KNOWN_OPTIONS: &[&str] = &["quiet", "bufsize", "aggsize", "dynvarsize", "aggsortkey", "aggsortrev", "aggsortpos", "aggsortkeypos", "aggpack", "stackframes", "ustackframes", "jstackframes", "jstackstrsize", "pcapsize", "switchrate", "aggrate", "strsize", "nspec", "specsize", "destructive", "rawbytes", "fbtmode"];

fn options(pragmas: &[ast::Pragma]) -> Result<Options, Diagnostic> {
    let mut o = Options::default();
    for p in pragmas {
        apply_option(&mut o, &p.name, p.value.as_deref())
            .map_err(|(msg, hint)| Diagnostic::new(p.span.clone(), msg).label("here").hint(hint))?;
    }
    Ok(o)
}

/// The `jstackframes` option's value (`-x jstackframes=N` reaches the checker through
/// [`CheckOptions::jstackframes`]).
pub fn jstackframes_option(value: Option<&str>) -> Result<u8, (String, String)> {
    symbols::ustackframes_option("jstackframes", value)
}

/// The `pcapsize` option's value as DTrace on Linux takes it: a size, 1514 (an Ethernet
/// frame) if it is 0 or over 65535, rounded up to whole 8 bytes (`-x pcapsize=N` reaches
/// the checker through [`CheckOptions::pcapsize`]).
pub fn pcapsize_option(value: Option<&str>) -> Result<u32, (String, String)> {
    let n = size_option("pcapsize", value, 0, "0", "pcap()'s packet bytes")?;
    Ok(if n == 0 || n > 65535 { pcap::PCAP_SIZE } else { n as u32 }.next_multiple_of(8))
}

/// Applies one DTrace option (`#pragma D option` or `-x name=value`).
pub fn apply_option(o: &mut Options, name: &str, value: Option<&str>) -> Result<(), (String, String)> {
    match name {
        "quiet" => o.quiet = value.is_none_or(|v| v != "0" && v != "false"),
        "aggsortkey" => o.aggsortkey = value.is_none_or(|v| v != "0" && v != "false"),
        "aggsortrev" => o.aggsortrev = value.is_none_or(|v| v != "0" && v != "false"),
        "aggpack" => o.aggpack = value.is_none_or(|v| v != "0" && v != "false"),
        "destructive" => o.destructive = value.is_none_or(|v| v != "0" && v != "false"),
        "rawbytes" => o.rawbytes = value.is_none_or(|v| v != "0" && v != "false"),
        "switchrate" => o.switchrate = Some(rate_option(name, value)?),
        "aggrate" => o.aggrate = Some(rate_option(name, value)?),
        "aggsortpos" => o.aggsortpos = position_option(name, value)?,
        "aggsortkeypos" => o.aggsortkeypos = position_option(name, value)?,
        "bufsize" => o.bufsize = Some(size_option(name, value, 4096, "4k", "the event buffer")?),
        "aggsize" => o.aggsize = Some(size_option(name, value, 64, "64", "the aggregation space")?),
        "dynvarsize" => o.dynvarsize = Some(size_option(name, value, 64, "64", "the thread-local variable space")?),
        "stackframes" => o.stackframes = Some(symbols::stackframes_option(value)?),
        "ustackframes" => o.ustackframes = Some(symbols::ustackframes_option(name, value)?),
        // Read by the checker alone (jstack()'s count is part of the program).
        "jstackframes" => _ = jstackframes_option(value)?,
        "pcapsize" => _ = pcapsize_option(value)?,
        // DTrace's room for Java frame names: crumbs has none to keep.
        "jstackstrsize" => _ = size_option(name, value, 1, "1", "jstack()'s string room")?,
        "strsize" => o.strsize = Some(strsize_option(value)?),
        "specsize" => o.specsize = Some(size_option(name, value, 64, "64", "a speculation")?),
        "nspec" => o.nspec = Some(speculation::nspec_option(value)?),
        "fbtmode" => o.fbtmode = Some(fbtmode_option(value)?),
        n if KNOWN_OPTIONS.contains(&n) => {}
        n => {
            let hint = match closest(n, KNOWN_OPTIONS.iter().copied()) {
                Some(c) => format!("did you mean `{c}`? supported options: {}", KNOWN_OPTIONS.join(", ")),
                None => format!("supported options: {}", KNOWN_OPTIONS.join(", ")),
            };
            return Err((format!("unknown option `{n}`"), hint));
        }
    }
    Ok(())
}

/// A position option's value, read as DTrace's `dt_opt_runtime()` reads it: none is 0, a
/// number as C's `strtoull(value, 0)` (decimal, `0x` hex, `0` octal), `yes`/`no` and the
/// other on/off words 1 and 0.
fn position_option(name: &str, value: Option<&str>) -> Result<u64, (String, String)> {
    const WORDS: [(&str, &str); 6] = [("yes", "no"), ("enable", "disable"), ("enabled", "disabled"), ("true", "false"), ("on", "off"), ("set", "unset")];
    let Some(v) = value.filter(|v| !v.is_empty()) else { return Ok(0) };
    for (on, off) in WORDS {
        if v.eq_ignore_ascii_case(on) {
            return Ok(1);
        }
        if v.eq_ignore_ascii_case(off) {
            return Ok(0);
        }
    }
    crate::parse::c_unsigned(v).map_err(|_| (format!("option `{name}` needs a position, got `{v}`"), format!("write a number from 0, e.g. `{name}=1`")))
}

/// A rate option's value as DTrace's `dt_opt_rate()` reads it: a number (decimal, `0x` hex
/// or `0` octal) of nanoseconds, or with a unit (`ns`, `us`, `ms`, `s`, `m`, `h`, `d` and
/// their long forms, or `hz`: so many times a second); the interval in nanoseconds, at
/// least 1.
fn rate_option(name: &str, value: Option<&str>) -> Result<u64, (String, String)> {
    const UNITS: [(&str, u64); 15] = [("ns", 1), ("nsec", 1), ("us", 1_000), ("usec", 1_000), ("ms", 1_000_000), ("msec", 1_000_000), ("s", 1_000_000_000), ("sec", 1_000_000_000), ("m", 60_000_000_000), ("min", 60_000_000_000), ("h", 3_600_000_000_000), ("hour", 3_600_000_000_000), ("d", 86_400_000_000_000), ("day", 86_400_000_000_000), ("hz", 0)];
    let v = value.unwrap_or("");
    let bad = || (format!("option `{name}` needs a rate, got `{v}`"), format!("write a rate such as `{name}=10hz` or an interval such as `{name}=100ms`"));
    // The number ends where strtoull() stops: after hex digits for `0x`, decimal ones else.
    let hex = v.len() > 2 && v[..2].eq_ignore_ascii_case("0x");
    let end = if hex { 2 + v[2..].find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(v.len() - 2) } else { v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len()) };
    let (num, unit) = v.split_at(end);
    let n = crate::parse::c_unsigned(num).map_err(|_| bad())?;
    let per = if unit.is_empty() { 1 } else { UNITS.iter().find(|(u, _)| u.eq_ignore_ascii_case(unit)).ok_or_else(bad)?.1 };
    let ns = match per {
        0 if n == 0 => return Err(bad()),
        0 => 1_000_000_000 / n,
        per => n.saturating_mul(per),
    };
    Ok(ns.max(1))
}

/// `strsize`: 2 bytes (one character and its NUL) to 4k, so that a few strings fit a
/// record and the scratch space.
/// The `fbtmode` option: how fbt probes attach (`kprobe`, `multi` or `fentry`).
fn fbtmode_option(value: Option<&str>) -> Result<crate::ir::FbtMode, (String, String)> {
    match value {
        Some("kprobe") => Ok(crate::ir::FbtMode::Kprobe),
        Some("multi" | "kprobe.multi") => Ok(crate::ir::FbtMode::Multi),
        Some("fentry") => Ok(crate::ir::FbtMode::Fentry),
        v => Err((format!("option `fbtmode` is `kprobe`, `multi` or `fentry`, got `{}`", v.unwrap_or("")), "write `fbtmode=kprobe` (a kprobe per function), `fbtmode=multi` (one kprobe.multi link for many) or `fbtmode=fentry` (an fentry/fexit trampoline per function)".to_string())),
    }
}

pub(crate) fn strsize_option(value: Option<&str>) -> Result<u64, (String, String)> {
    let v = value.and_then(parse_size).ok_or((format!("option `strsize` needs a size, got `{}`", value.unwrap_or("")), "write a size such as `strsize=512`".to_string()))?;
    if !(2..=4096).contains(&v) {
        return Err((format!("strsize={} is out of range", value.unwrap_or("")), "a string can be 2 to 4096 bytes (its NUL included)".to_string()));
    }
    Ok(v)
}

/// A size option's value in bytes, from `min` (written `min_text`) to 1g.
fn size_option(name: &str, value: Option<&str>, min: u64, min_text: &str, what: &str) -> Result<u64, (String, String)> {
    let v = value.and_then(parse_size).ok_or((
        format!("option `{name}` needs a size, got `{}`", value.unwrap_or("")),
        format!("write a size such as `{name}=4m`"),
    ))?;
    if !(min..=1 << 30).contains(&v) {
        return Err((format!("{name}={} is out of range", value.unwrap_or("")), format!("{what} can be {min_text} to 1g")));
    }
    Ok(v)
}

fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, mult) = match s.chars().last()?.to_ascii_lowercase() {
        'k' => (&s[..s.len() - 1], 1u64 << 10),
        'm' => (&s[..s.len() - 1], 1 << 20),
        'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    digits.parse::<u64>().ok().map(|v| v.saturating_mul(mult))
}

/// Each warning as an output item, sent where its flag is set.
fn send_warnings(warnings: Vec<WarningAfter>, body: &mut Vec<Stmt>, items: &mut Vec<Item>) {
    for w in warnings {
        items.push(w.item);
        let emit = Stmt::Emit { item: items.len() - 1, args: w.args };
        body.push(Stmt::If { cond: Expr::ClauseLocal(w.flag), then: vec![emit], els: Vec::new() });
    }
}

/// A warning an expression may send when the probe fires (`comm(pid)` finding no task):
/// its output item and arguments, sent after the statement holding the expression where
/// clause-local `flag` is not 0.
struct WarningAfter {
    flag: usize,
    item: Item,
    args: Vec<Expr>,
}

struct Checker<'a> {
    opts: &'a CheckOptions,
    /// Frames `jstack()` without a count keeps.
    jstackframes: u8,
    /// Bytes `pcap()` records of a packet.
    pcapsize: u32,
    /// The buffer every string variable and copied string is kept in (strsize rounded up to whole 8-byte words).
    strsize: u32,
    /// The strsize option's bytes: the most bpftrace's buf() reads (its max_strlen).
    max_strlen: u32,
    globals: Vec<String>,
    thread_locals: Vec<String>,
    /// Associative arrays, global and thread-local.
    arrays: Vec<vars::ArrayVar>,
    /// `this TYPE name;` declarations.
    declared_locals: Vec<(String, crate::types::TypeId)>,
    /// `inline TYPE name = value;`: name, type and expression.
    inlines: Vec<(String, ast::TypeName, ast::Expr)>,
    /// The inlines being expanded (an inline may not use itself).
    expanding: Vec<String>,
    /// `this->` names assigned so far in the clause being checked.
    clause_locals: Vec<String>,
    /// The clause's scratch variables declared with a type (`let $a: uint16`), by slot.
    declared_scratch: Vec<usize>,
    /// Their sizes, of those declared `string[N]`, by slot.
    declared_str_sizes: std::collections::HashMap<usize, u32>,
    /// `config = { unstable_typeinfo = enable }`: typeinfo() may be used.
    typeinfo_enabled: bool,
    /// What the clause being checked does that the speculation rules are about.
    spec: speculation::Uses,
    /// How many `if`s the statement being checked is inside.
    if_depth: usize,
    /// How many `while` loops the statement being checked is in (bpftrace).
    loop_depth: usize,
    /// The clause being checked sends each output action as a record of its own: it has
    /// one inside a loop, or a join() (too large to share a record).
    sends_each_output: bool,
    /// The source of each value an item of the current clause records, by item index.
    item_sources: std::collections::HashMap<usize, Vec<crate::ir::ArgSource>>,
    /// Scratch allocations (alloca(), copyin()) of the clause being checked so far.
    alloc_sites: u32,
    /// Destructive actions are allowed (-w, or the option).
    destructive: bool,
    translators: Vec<translators::Translator>,
    /// Inside a translator's member expression: its input's name and the input.
    bindings: Vec<(String, ast::Expr)>,
    aggs: Vec<Aggregation>,
    agg_spans: Vec<(Span, String)>,
    records: Vec<Record>,
    strings: Strings,
    printa_uses: Vec<(String, Span)>,
    uses_stack: bool,
    uses_ustack: bool,
    uses_build_id_ustack: bool,
    user_symbols: bool,
    tracepoints: Vec<Tracepoint>,
    /// The tracepoints the clause being checked fires on.
    clause_tracepoints: Vec<usize>,
    /// The kernel functions fbt probes are on, numbered in order of first use.
    functions: Vec<KernelFunction>,
    /// The user-space places pid and uprobe probes are on, numbered in order of first use.
    user_probes: Vec<UserProbe>,
    /// The raw tracepoints the program attaches to, numbered in order of first use.
    raw_tracepoints: Vec<crate::ir::RawTracepoint>,
    /// bpftrace's named parameters the program reads with getopt(): name and description.
    getopts: Vec<(String, String)>,
    /// The probes of the clause being checked (their prototypes type `args[N]`).
    clause_probes: Vec<crate::providers::Probe>,
    /// The stable probes' (proc, sched, io) attach points and the hooks they are on.
    stable_hooks: std::collections::HashMap<AttachPoint, &'static crate::providers::Hook>,
    /// The type of `args[N]` in the clause being checked, by N, once found.
    clause_arg_types: std::collections::HashMap<usize, crate::types::TypeId>,
    /// C types: the script's and, read as they are walked into, the kernel's.
    types: crate::types::Types,
    /// Each variable's type: that of its first assignment.
    var_types: std::collections::HashMap<VarRef, crate::types::TypeId>,
    /// Whether the first pass found what only a second can use: a variable read before its
    /// first assignment was checked, or a key position that needs a string buffer.
    second_pass_needed: bool,
    /// The type a variable read before its first assignment reads as in the first pass: a
    /// `long` of its own id, so that a variable assigned from such a read (`$p = @p[1];
    /// @q = $p;`) is not taken as known to the second pass, which types it from the real one.
    guessed: Option<crate::types::TypeId>,
    /// Key positions whose strings go in buffers (found by the first pass).
    key_buffers: KeyBuffers,
    /// The struct or union type of struct key positions (by owner and position), from
    /// their first use or declaration: every other use must have the same type.
    key_types: std::collections::HashMap<(String, usize), crate::types::TypeId>,
    /// Warnings that expressions of the statement being checked may send (`comm(pid)`'s
    /// "No such process"): output items sent after the statement where their flag is set.
    warnings_after: Vec<WarningAfter>,
    /// D's integer types by name, as [`Checker::c_int`] found them.
    c_ints: std::collections::HashMap<&'static str, crate::types::TypeId>,
    /// How bpftrace's stacks that name no mode print (its `stack_mode`).
    stack_mode: StackMode,
    /// bpftrace's `max_cat_bytes`: the most cat() prints of a file.
    cat_bytes: u64,
    /// bpftrace's maps whose keys nest tuples or records: their scalar keys' paths.
    key_paths: std::collections::BTreeMap<String, Vec<String>>,
    /// The names of the maps the program aggregates into (`@c = count()`), wherever.
    aggregated: std::collections::HashSet<String>,
    /// Whether a clause read an aggregation before the clause that updates it.
    reads_later: bool,
    /// bpftrace 0.17's sizes of the strings kept in maps and scratch variables.
    str_sizes: bt_str_sizes::StrSizes,
    /// The index in the program of the clause being checked.
    clause_index: usize,
}

type Lowered = (Option<Expr>, Vec<Stmt>, Vec<u32>, Option<usize>, Vec<Variable>);
/// Builds the statement that stores a value into a variable.
type Store = Box<dyn Fn(Expr) -> Stmt>;

impl Checker<'_> {
    /// D globals, thread-locals and associative arrays are declared by assignment anywhere
    /// in the program.
    /// A matched probe with its attach point numbered in the program: its tracepoint,
    /// kernel function, user-space place or raw tracepoint; a stable probe is one probe per
    /// attach point of its hook (one raw tracepoint, or every function a glob names).
    fn placed(&mut self, opts: &CheckOptions, mut p: crate::providers::Probe, desc: &ast::ProbeDesc) -> Result<Vec<crate::providers::Probe>, Diagnostic> {
        if let Some(def) = Checker::stable_def(&p) {
            return Ok(self.stable_attach(opts, &p, def, desc)?.into_iter().map(|a| crate::providers::Probe { attach: a, ..p.clone() }).collect());
        }
        match p.attach {
            AttachPoint::Tracepoint(_) => {
                let i = self.tracepoint(opts, p.module, p.name, desc)?;
                p.attach = AttachPoint::Tracepoint(i as u16);
                self.clause_tracepoints.push(i);
            }
            AttachPoint::FbtEntry(_) | AttachPoint::FbtReturn(_) => {
                // An entry probe inside the function is named by its offset, in hex.
                let offset = if matches!(p.name, "entry" | "return") { 0 } else { u64::from_str_radix(p.name, 16).unwrap_or(0) };
                p.attach = self.function(p.attach, p.module, p.function, None, (offset, crate::providers::fbt::address_of(desc)), desc)?
            }
            AttachPoint::RawTracepoint(_) => p.attach = self.raw_tracepoint(opts, p.module, p.name, None, desc)?,
            _ => {}
        }
        if let Some(user) = &p.user {
            unchecked_offset(opts, user, desc)?;
            p.attach = self.user_probe(user, desc)?;
        }
        Ok(vec![p])
    }

    fn declare_globals(&mut self, program: &ast::Program) -> Result<(), Diagnostic> {
        let mut targets = Vec::new();
        for c in &program.clauses {
            c.each_target(&mut |t| targets.push(t));
        }
        for target in targets {
            match target {
                LValue::ThreadLocal(i, _) if !self.thread_locals.contains(&i.name) => self.thread_locals.push(i.name.clone()),
                LValue::Global(i) if !vars::is_builtin(&i.name, self.dialect()) && !self.globals.contains(&i.name) => self.globals.push(i.name.clone()),
                LValue::Element { name, thread, .. } => self.declare_array(name, *thread)?,
                _ => {}
            }
        }
        for a in &self.arrays {
            let scalars = if a.thread { &self.thread_locals } else { &self.globals };
            if scalars.contains(&a.name) {
                let name = if a.thread { format!("self->{}", a.name) } else { a.name.clone() };
                return Err(Diagnostic::new(a.span.clone(), format!("`{name}` is assigned both as a variable and as an associative array"))
                    .label("used as an array here")
                    .hint("a name is either a variable or an associative array: use another name for one of them (storing through a pointer, `p[i] = v`, is not D's: copy into scratch memory with bcopy() or copyinto())"));
            }
        }
        Ok(())
    }

    fn clause(&mut self, c: &ast::Clause) -> Result<Lowered, Diagnostic> {
        self.clause_locals.clear();
        self.item_sources.clear();
        self.declared_scratch.clear();
        self.declared_str_sizes.clear();
        self.spec = Default::default();
        self.if_depth = 0;
        self.alloc_sites = 0;
        self.var_types.retain(|v, _| !matches!(v, VarRef::Clause(_)));
        self.warnings_after.clear();
        let predicate = match &c.predicate {
            Some(p) => Some(self.condition(p, "a predicate")?),
            None => None,
        };
        let mut items = Vec::new();
        let mut body = Vec::new();
        // The predicate's warnings, first.
        send_warnings(std::mem::take(&mut self.warnings_after), &mut body, &mut items);
        let mut actions = vec![0; body.len()];
        for (n, s) in c.body.iter().flatten().enumerate() {
            let before = items.len();
            self.stmt(s, &mut body, &mut items)?;
            self.pinned_output(&items[before..], &c.span)?;
            actions.resize(body.len(), n as u32 + 1);
        }
        dead_code::drop_unreachable(&mut body);
        actions.truncate(body.len());
        self.check_speculation()?;
        if std::mem::take(&mut self.sends_each_output) {
            self.send_each_output(&mut body, &mut items, &c.span)?;
        }
        let default_action = c.body.as_ref().is_none_or(|b| b.is_empty());
        let record = if default_action || !items.is_empty() {
            // After a `return` that may be taken, the rest of the clause's items may not be sent.
            let returns = body.iter().any(|s| s.any(&mut |n| matches!(n, crate::ir::Node::Stmt(Stmt::Return))));
            let guarded = returns || body.iter().any(emits_in_branch);
            let sources = (0..items.len()).map(|i| self.item_sources.remove(&i).unwrap_or_default()).collect();
            self.records.push(Record { items, guarded, sources });
            Some(self.records.len() - 1)
        } else {
            None
        };
        let locals = (0..self.clause_locals.len()).map(|l| Variable { name: self.clause_locals[l].clone(), repr: self.var_repr(VarRef::Clause(l)) }).collect();
        Ok((predicate, body, actions, record, locals))
    }

    /// Checks and lowers a statement, then sends the warnings its expressions flagged.
    fn stmt(&mut self, s: &ast::Stmt, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
        let outer = std::mem::take(&mut self.warnings_after);
        let r = self.stmt_alone(s, body, items);
        let mine = std::mem::replace(&mut self.warnings_after, outer);
        r?;
        send_warnings(mine, body, items);
        Ok(())
    }

    fn stmt_alone(&mut self, s: &ast::Stmt, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
        // bpftrace's `$ret = skboutput(...)`: the packet recorded, and its value (0, the
        // record sent when the clause ends) stored.
        if let ast::Stmt::Assign { target, op: None, value: ast::Expr { kind: ExprKind::Call(name, args), span: at }, span } = s {
            if self.bpftrace() && name.name == "skboutput" {
                self.action(name, args, at, body, items)?;
                let zero = ast::Expr { kind: ExprKind::Int(0, crate::types::IntType { name: "uint32".into(), size: 4, signed: false, char: false, bool: false }), span: at.clone() };
                body.extend(self.assign(target, None, Some(&zero), 0, span)?);
                return Ok(());
            }
        }
        match s {
            ast::Stmt::Assign { target, op, value, span } => body.extend(self.assign(target, *op, Some(value), 0, span)?),
            ast::Stmt::IncDec { target, delta, span } => body.extend(self.assign(target, None, None, *delta, span)?),
            ast::Stmt::Aggregate { agg, func, args, span } => self.aggregate(agg, func, args, span, body)?,
            ast::Stmt::Block(stmts) => {
                for s in stmts {
                    self.stmt(s, body, items)?;
                }
            }
            ast::Stmt::If { cond, then, els, .. } => {
                let cond = self.condition(cond, "the condition of `if`")?;
                // bpftrace decides an `if` whose condition is known when compiling then: the
                // branch left out is not checked (`if (is_str($x)) { ... }`, fail()).
                if let Some(c) = self.bpftrace().then(|| crate::ir::fold::constant(&cond, &self.strings)).flatten() {
                    let taken = if c != 0 { Some(then) } else { els.as_ref() };
                    for s in taken.into_iter().flatten() {
                        self.stmt(s, body, items)?;
                    }
                    return Ok(());
                }
                let (mut t, mut e) = (Vec::new(), Vec::new());
                self.if_depth += 1;
                let r = (|| {
                    for s in then {
                        self.stmt(s, &mut t, items)?;
                    }
                    for s in els.iter().flatten() {
                        self.stmt(s, &mut e, items)?;
                    }
                    Ok(())
                })();
                self.if_depth -= 1;
                r?;
                body.push(Stmt::If { cond, then: t, els: e });
            }
            ast::Stmt::While { cond, body: stmts, .. } => body.push(self.while_loop(cond, stmts, items)?),
            ast::Stmt::For { var, iter, body: stmts, .. } => body.push(self.for_loop(var, iter, stmts, items)?),
            ast::Stmt::Jump(jump, span) => body.push(self.jump(*jump, span)?),
            ast::Stmt::Declare { var, ty, value, span } => body.extend(self.declare_scratch(var, ty, value.as_ref(), span)?),
            ast::Stmt::Expr(e) if self.bpftrace() => self.bpftrace_expr_stmt(e, body, items)?,
            ast::Stmt::Expr(e) => match &e.kind {
                ExprKind::Call(name, args) => self.action(name, args, &e.span, body, items)?,
                _ => {
                    self.note_action(FnHook::Trace, "trace", &e.span);
                    let (item, v) = self.printed(e, false)?;
                    items.push(item);
                    body.push(Stmt::Emit { item: items.len() - 1, args: vec![v] });
                }
            },
        }
        Ok(())
    }
}


/// Whether `s` sends an item only in some firings: an `Emit` inside an `if`.
fn emits_in_branch(s: &Stmt) -> bool {
    match s {
        Stmt::If { then, els, .. } => then.iter().chain(els).any(|s| s.any(&mut |n| matches!(n, crate::ir::Node::Stmt(Stmt::Emit { .. })))),
        _ => false,
    }
}

fn unop_symbol(op: UnOp) -> &'static str {
    match op {
        UnOp::Not => "!",
        UnOp::BitNot => "~",
        UnOp::Neg => "-",
        UnOp::Plus => "+",
    }
}

fn const_int(e: &ast::Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v, _) => Some(*v),
        ExprKind::Unary(UnOp::Neg, inner) => const_int(inner).map(i64::wrapping_neg),
        ExprKind::Unary(UnOp::Plus, inner) => const_int(inner),
        _ => None,
    }
}

fn check_arity(f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<(), Diagnostic> {
    let rest = f.args.contains(&ArgSpec::Rest);
    let fixed = f.args.iter().filter(|a| !matches!(a, ArgSpec::Rest | ArgSpec::OptInt | ArgSpec::OptConstInt | ArgSpec::OptFormat)).count();
    let optional = f.args.iter().filter(|a| matches!(a, ArgSpec::OptInt | ArgSpec::OptConstInt | ArgSpec::OptFormat)).count();
    let ok = if rest { args.len() >= fixed } else { (fixed..=fixed + optional).contains(&args.len()) };
    if ok {
        return Ok(());
    }
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let want = match (rest, fixed, optional) {
        (true, n, _) => format!("at least {n} argument{}", plural(n)),
        (false, n, 0) => format!("{n} argument{}", plural(n)),
        (false, 0, m) => format!("at most {m} argument{}", plural(m)),
        (false, n, m) => format!("{n} or {} arguments", n + m),
    };
    Err(Diagnostic::new(span.clone(), format!("{}() takes {want}, but {} given", f.name, args.len()))
        .label("wrong number of arguments")
        .hint(format!("usage: {}", f.signature)))
}

/// A uprobe inside a function (`uprobe:PATH:FUNCTION+N`, or an address that is not a
/// function's start) needs `--unsafe`: crumbs does not disassemble the function to check
/// that N starts an instruction, and a breakpoint inside one corrupts the traced program's
/// code. bpftrace refuses what it cannot check in the same way (its "Can't check if uprobe
/// is in proper place" without its disassembler), unless it is unsafe.
fn unchecked_offset(opts: &CheckOptions, user: &crate::ir::UserProbe, desc: &ast::ProbeDesc) -> Result<(), Diagnostic> {
    if user.provider != "uprobe" || user.ret || user.name == "entry" || user.semaphore != 0 || !user.usdt_args.is_empty() || opts.destructive {
        return Ok(());
    }
    let at = u64::from_str_radix(&user.name, 16).unwrap_or_default();
    Err(Diagnostic::new(desc.span.clone(), format!("crumbs cannot check that {}+{at} in {} starts an instruction", user.function, user.path))
        .label("inside the function")
        .hint("a probe inside an instruction corrupts the traced program; check the offset (objdump -d) and give --unsafe (-w) to attach it"))
}

fn unknown_function(name: &ast::Ident, dialect: crate::dialect::Dialect) -> Diagnostic {
    let d = Diagnostic::new(name.span.clone(), format!("unknown function `{}`", name.name)).label(format!("not a {dialect} function"));
    match closest(&name.name, builtins::function_names(dialect)) {
        Some(c) => d.hint(format!("did you mean `{c}()`?")),
        None => d.hint(format!("functions: {}", builtins::function_names(dialect).collect::<Vec<_>>().join(", "))),
    }
}

fn unassigned_local(name: &str, span: &Span) -> Diagnostic {
    if name.starts_with('$') {
        let d = Diagnostic::new(span.clone(), format!("scratch variable `{name}` is read before it is assigned")).label("no value yet");
        // A D script's macro variable, misspelt, reads as bpftrace's scratch variable.
        let macros = ["$target", "$pid", "$ppid", "$pgid", "$sid", "$uid", "$euid", "$gid", "$egid"];
        return match closest(name, macros.iter().copied()) {
            Some(m) => d.hint(format!("assign `{name} = ...;` earlier in this clause; or did you mean D's macro variable `{m}`?")),
            None => d.hint(format!("assign `{name} = ...;` earlier in this clause")),
        };
    }
    Diagnostic::new(span.clone(), format!("clause-local variable `this->{name}` is read before it is assigned"))
        .label("no value yet")
        .hint(format!("assign `this->{name} = ...;` earlier in this clause"))
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod dialect_tests;
#[cfg(test)]
mod bpftrace_std_tests;
#[cfg(test)]
mod hist_k_tests;
#[cfg(test)]
mod tseries_tests;
#[cfg(test)]
mod bpftrace_called_tests;
#[cfg(test)]
mod stored_values_tests;
#[cfg(test)]
mod arrays_tests;
#[cfg(test)]
mod btlang_tests;
#[cfg(test)]
mod postfix_types_tests;
#[cfg(test)]
mod agg_reads_tests;
mod bpftrace_fns;
mod bpftrace_out;
mod buffers;
