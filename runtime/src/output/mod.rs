//! Where decoded events go: the [`Sink`] trait, and DTrace's text output ([`text`]) built
//! from its layouts ([`aggregation`], [`printf`], [`record`]: pure, values in, text out), and
//! bpftrace's ([`bpftrace`]).
//! A sink sees decoded values only, never the kernel.

use crumbs_lang::ir::IntRepr;
use crate::drops::Drops;
use crumbs_lang::ir::agg::{AggKind, Summary};
use crumbs_lang::ir::Program;
use crumbs_lang::printf::Piece;
use std::io;

pub mod aggregation;
pub mod arg_names;
pub mod bpftrace;
pub mod buffer;
pub mod buckets;
pub mod cat;
pub mod cgroup_paths;
pub mod chrome;
pub mod destination;
pub mod flow;
pub mod gfp;
pub mod joined;
pub mod join;
pub mod json_lines;
pub mod json_value;
pub mod local_time;
pub mod message;
pub mod names;
pub mod packed;
pub mod parquet;
pub mod pcap;
pub mod print;
pub mod printf;
pub mod record;
pub mod text;
#[cfg(test)]
mod same_bytes;

/// One firing of a clause that sent a record: where it fired and what its actions output.
#[derive(Clone, Debug, PartialEq)]
pub struct Firing<'p> {
    pub program: &'p Program,
    pub cpu: u32,
    /// The DTrace probe id.
    pub probe: u32,
    /// The record (one per clause that sends one): with the probe, DTrace's enabled probe id.
    pub record: u32,
    /// When and in which thread it fired: only records of a program compiled for a
    /// structured output carry it (see `crumbs_ebpf::abi::record::META`).
    pub meta: Option<Meta>,
    pub outputs: Vec<Output<'p>>,
    /// The index in the record's items of the item each output came from (a guarded record
    /// sends some items only in some firings): how a table finds an output's columns. Kept
    /// only when records carry metadata (the structured outputs read it; text needs none,
    /// so its firings allocate nothing for it).
    pub items: Vec<u32>,
}

/// A firing's time and thread (ts: CLOCK_MONOTONIC ns, as D's `timestamp`), as the record
/// carries it.
pub use crumbs_ebpf::abi::record::Meta;

impl Firing<'_> {
    /// The probe's function and name (looked up only by sinks that print them).
    pub fn probe_name(&self) -> (String, String) {
        self.program.probe_name(self.probe)
    }

    /// DTrace's words for an error an action of this firing met in user space:
    /// `error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): what`.
    pub fn error(&self, what: &str) -> String {
        let clause = self.program.groups.iter().flat_map(|g| &g.clauses).find(|c| c.record == Some(self.record as usize));
        let epid = clause.map_or(0, |c| c.index + 1);
        probe_error(self.program, epid as u32, self.probe, what)
    }
}

/// DTrace's words for an error at enabled probe `epid` of probe `probe` (dt_handle_err()).
fn probe_error(program: &Program, epid: u32, probe: u32, what: &str) -> String {
    format!("error on enabled probe ID {epid} (ID {probe}: {}): {what}", program.probe_description(probe))
}

/// What one action of a firing output.
#[derive(Clone, Debug, PartialEq)]
pub enum Output<'p> {
    Printf { pieces: &'p [Piece], values: Vec<Value> },
    /// setopt(): an option changed for what is printed from here on.
    SetOpt { name: &'p str, value: Option<&'p str> },
    /// system(): the command is what printf would print.
    System { pieces: &'p [Piece], values: Vec<Value> },
    /// freopen(): output goes to the file printf would name ("": where it went first).
    Freopen { pieces: &'p [Piece], values: Vec<Value> },
    /// ftruncate(): the output file is emptied.
    Ftruncate,
    /// pcap(): a packet's bytes (those captured) and link type, captured at `time`
    /// (CLOCK_MONOTONIC ns); `snaplen` bytes are the most captured.
    Pcap { time: u64, linktype: i64, bytes: Vec<u8>, snaplen: u32 },
    Trace(Value),
    /// print(), or trace() of a struct or array: the value and how its type prints.
    Print { layout: &'p crumbs_lang::ir::Layout, value: Value },
    /// printa(): each aggregation's rows at that moment (normalize() applied), in printa()'s
    /// order, printed in the default layout or each row through a format (several joined by
    /// key).
    Printa { aggs: &'p [usize], rows: Vec<Vec<AggRow>>, format: Option<&'p [Piece]> },
    /// tracemem(): the bytes to show.
    Tracemem(Vec<u8>),
    /// Text printed as it is, made when the record was read: bpftrace's time(), join(),
    /// cat(); `record` is the type of bpftrace's JSON record that holds it, `line` whether
    /// the text output ends it with a newline (the JSON record has none).
    Text { record: &'static str, text: String, line: bool },
    /// bpftrace's cat(): the file to print, and the most bytes of it; the sink reads it
    /// when it prints (an error goes to standard error in order with the output).
    Cat { path: String, max: u64 },
    /// bpftrace's print(@m, top, div): the map now, its `top` largest rows (0: all), values
    /// divided by `div`.
    PrintMap { map: PrintedMap, top: u32, div: u32 },
    /// current bpftrace's errorf() (`error`) and warnf(): the text, and the call's place.
    Message { error: bool, text: String, at: &'p crumbs_lang::ir::SourceAt },
}

/// A map print(@m) printed: an aggregation's rows (by id), or a map of values.
#[derive(Clone, Debug, PartialEq)]
pub enum PrintedMap {
    Aggregation(usize, Vec<AggRow>),
    Values(crate::value_maps::ValueMap),
}

/// Why a session stopped tracing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// A clause called `exit(status)`.
    Exit(i32),
    /// Asked to stop (Ctrl-C, SIGTERM).
    Interrupted,
    /// The traced process (`-c`, `-p`) exited.
    ProcessExited(i32),
}

/// A clause that faulted when its probe fired (it sent no record): DTrace's error report.
#[derive(Clone, Copy, Debug)]
pub struct FaultReport<'p> {
    pub program: &'p Program,
    pub report: crumbs_ebpf::abi::record::FaultReport,
}

impl FaultReport<'_> {
    /// DTrace's message (dt_handle_err()): `error on enabled probe ID 2 (ID 1:
    /// dtrace:::BEGIN): divide-by-zero in action #1 at BPF pc 12`.
    pub fn message(&self) -> String {
        let r = &self.report;
        let what = crumbs_lang::ir::Fault::from_code(r.fault).map_or_else(|| "unknown fault".to_string(), |f| f.describe(r.value));
        let at = if r.action == 0 { "predicate".to_string() } else { format!("action #{}", r.action) };
        probe_error(self.program, r.epid, r.probe, &format!("{what} in {at} at BPF pc {}", r.pc))
    }
}

/// Where a session's output goes, in order: firings as they arrive, then the end.
pub trait Sink {
    fn firing(&mut self, firing: &Firing) -> io::Result<()>;
    /// A clause faulted (its ERROR clauses, if any, send firings of their own).
    fn fault(&mut self, fault: &FaultReport) -> io::Result<()>;
    /// Everything so far should reach its reader (the event buffer was drained).
    fn flush(&mut self) -> io::Result<()>;
    /// Why tracing stopped; the probes are detached and what they sent is delivered, END
    /// has not run yet.
    fn stopped(&mut self, why: &Stopped) -> io::Result<()>;
    /// Tracing has ended: every aggregation's rows (normalize() applied), by id, and what
    /// the kernel could not keep.
    fn finish(&mut self, aggregations: &[Vec<AggRow>], drops: &Drops) -> io::Result<()>;
    /// Tracing has ended: bpftrace's maps of values and what they hold (before
    /// [`Sink::finish`], which prints them with the aggregations in bpftrace's order).
    fn value_maps(&mut self, _maps: Vec<crate::value_maps::ValueMap>) -> io::Result<()> {
        Ok(())
    }
    /// Something the user should know that is not trace output (probes skipped), for
    /// standard error.
    fn notice(&mut self, line: &str) -> io::Result<()> {
        eprintln!("crumbs: {line}");
        Ok(())
    }
    /// Every probe is attached (BEGIN may not have run yet: bpftrace runs it after): a
    /// library caller that starts its workload itself waits for this.
    fn attached(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// One value as user space sees it after decoding a record or a map key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    /// An integer and its C type's width and sign.
    Int(i64, IntRepr),
    Str(String),
    /// A kernel or user stack: its frames, innermost first, already symbolized as the
    /// mode says, and how bpftrace's output lays them out (D's has one layout).
    Stack(Vec<String>, crumbs_lang::ir::StackMode),
    /// A struct, union or array: its bytes as recorded.
    Bytes(Vec<u8>),
    /// A struct, union or array kept in a bpftrace map (`@m[k] = *curtask->fs`): its bytes
    /// and its C type's layout, which bpftrace prints it by (`{ .users = 1, ... }`).
    Object(Vec<u8>, std::sync::Arc<crumbs_lang::ir::Layout>),
    /// A kernel address and how it prints (`func()`, `mod()`, or printf's `%a`).
    Sym(u64, String),
    /// bpftrace's tuple, a map's value: its elements.
    Tuple(Vec<Value>),
    /// bpftrace's record, a map's value: its fields by name, in name order.
    Record(Vec<(String, Value)>),
    /// bpftrace's buffer (`buf()`): the bytes read, as many as were asked for.
    Buf(Vec<u8>),
    /// bpftrace's array of integers (`pton()`, `args.saddr` kept in a map): its elements.
    Array(Vec<Value>),
}

impl Value {
    /// A tuple as bpftrace writes one, `(1, a, (2, b))`: also where another output meets
    /// one (only bpftrace's maps hold them).
    pub fn tuple_text(elems: &[Value]) -> String {
        bpftrace::keys::tuple_text(elems, &bpftrace::keys::key_text)
    }

    /// A record as bpftrace writes one, `{ .a = 1, .b = x }`: also where another output
    /// meets one.
    pub fn record_text(fields: &[(String, Value)]) -> String {
        bpftrace::keys::record_text(fields, &bpftrace::keys::key_text)
    }

    /// An array as bpftrace writes one, `[1,2,3,4]`: also where another output meets one
    /// (only bpftrace's values are arrays).
    pub fn array_text(elems: &[Value]) -> String {
        let text = |v: &Value| match v {
            Value::Int(n, r) => r.decimal(*n),
            v => format!("{v:?}"),
        };
        format!("[{}]", elems.iter().map(text).collect::<Vec<_>>().join(","))
    }

    /// A signed 64-bit integer.
    pub fn long(n: i64) -> Value {
        Value::Int(n, IntRepr::I64)
    }

    /// Bytes as space-separated hex pairs (the checker records them only for print(), so
    /// other places show them plainly rather than fail).
    pub fn bytes_text(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
    }

    /// DTrace's dt_print_stack: a newline, then each frame on its own line indented by 14.
    pub fn stack_text(frames: &[String]) -> String {
        Value::stack_with(frames, 14, &|f| f.to_string())
    }

    /// A newline, then each frame indented by `indent` and formatted by `frame`, on its own
    /// line (dt_print_stack() with a stack indent and a format).
    pub fn stack_with(frames: &[String], indent: usize, frame: &dyn Fn(&str) -> String) -> String {
        let mut s = String::from("\n");
        for f in frames {
            s.push_str(&format!("{:indent$}{}\n", "", frame(f)));
        }
        s
    }

    /// How trace() and an aggregation key print a symbol or module: `"  %-50s"`
    /// (dt_print_sym(), dt_print_mod()).
    pub fn sym_column(out: &mut String, text: &str) {
        out.push_str("  ");
        printf::pad(out, text, text.len(), 50, true);
    }
}

/// The aggregated data of one key, merged over all CPUs: its function's state words, read
/// through the function (see `crumbs_lang::ir::agg`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AggData {
    pub kind: AggKind,
    pub words: Vec<u64>,
}

impl AggData {
    /// What the value means: a number or a distribution.
    pub fn summary(&self) -> Summary<'_> {
        self.kind.summary(&self.words)
    }
}

/// One row of an aggregation: its key tuple (empty for `@a = count()`) and data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AggRow {
    pub keys: Vec<Value>,
    pub data: AggData,
}

/// The libc message for an error, without Rust's " (os error N)", as DTrace words it.
pub fn strerror(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        // SAFETY: strerror returns a valid C string for any error number.
        Some(n) => unsafe { std::ffi::CStr::from_ptr(libc::strerror(n)) }.to_string_lossy().into_owned(),
        None => e.to_string(),
    }
}
