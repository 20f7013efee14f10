//! Chrome trace events (`-f chrome`, `-o x.pfw`, `.pfw.gz`, `.trace.json`), as DFTracer's
//! `.pfw` files hold them: a `[` line, then one event object a line, then a `]` line.
//!
//! * With flow (`-F`), an entry probe and the next return probe of the same function on the
//!   same thread are one call: one complete event (`"ph":"X"`) with the entry's time and
//!   the call's duration, its `args` what the two clauses traced. Each thread keeps a stack
//!   of the calls it is in, so nesting and recursion pair exactly; a return whose entry was
//!   not seen (the call began before tracing) is dropped, and counted on standard error
//!   with the calls still open at the end.
//! * Any other firing (every firing without flow) is an instant event (`"ph":"i"`).
//! * The first event of each process and of each thread comes after a metadata event
//!   (`"ph":"M"`) naming it (`process_name`, `thread_name`: its comm).
//!
//! Times are µs since boot (CLOCK_MONOTONIC, D's `timestamp` / 1000) with the ns kept as
//! three decimals. Aggregations are no trace events: they print as text on standard error
//! at the end. spec.md §9.5 lists the fields.

use super::arg_names::{ArgNames, Unique};
use super::destination::Destination;
use super::flow::{kind, Kind};
use super::json_value::{self as json};
use super::{aggregation, printf, AggRow, FaultReport, Firing, Output, Sink, Stopped, Value};
use crate::drops::Drops;
use crumbs_lang::ir::{Options, Program};
use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::{self, Write};
use std::rc::Rc;

/// A value with its name (as its clause wrote it; made distinct when the event is written).
type Named = (Rc<str>, Value);

/// One side of an event's `args`: its named values (owned or borrowed) and printed text.
type Part<'a, V> = (&'a [(Rc<str>, V)], &'a str);

pub struct ChromeTrace<'w> {
    out: Destination<'w>,
    options: Options,
    flow: bool,
    started: bool,
    /// Each probe's name, category and kind, looked up once (shared, not copied, by each
    /// firing).
    probes: HashMap<u32, Rc<Probe>>,
    calls: Calls,
    /// Each thread's last firing: its probe and record.
    last: HashMap<u32, (u32, u32)>,
    /// A call that returned, written once the next firing shows it is not the return's
    /// record of another clause too (whose values it then takes).
    pending: Option<Span>,
    named_processes: HashSet<u32>,
    named_threads: HashSet<u32>,
    names: ArgNames,
    voice: &'static str,
    messages: super::message::Messages,
    /// An event's line, kept from one firing to the next.
    line: String,
}

struct Probe {
    /// The function (the probe's name if it has none: `BEGIN`).
    name: String,
    /// The provider.
    cat: String,
    kind: Kind,
}

/// A call whose return is awaited.
#[derive(Debug, PartialEq)]
struct Call {
    probe: u32,
    function: String,
    ts: u64,
    values: Vec<Named>,
    text: String,
    /// The category a clause traced (a string named `cat`), if any.
    cat: Option<String>,
}

/// A call that returned: its complete event.
struct Span {
    /// The call, its `cat` the category its entry's or return's clauses gave, if any.
    call: Call,
    /// The provider: the category if no clause gave one.
    provider: String,
    pid: u32,
    tid: u32,
    end: u64,
    values: Vec<Named>,
    text: String,
}

/// The most calls a thread is kept in at once (a kernel stack holds far fewer frames).
const MAX_DEPTH: usize = 1024;

/// Each thread's calls in progress, innermost last, and what did not pair.
#[derive(Default)]
struct Calls {
    threads: HashMap<u32, Vec<Call>>,
    /// Returns whose entry was not seen.
    unmatched_returns: u64,
    /// Calls that ended with an outer call, their own return not traced.
    abandoned: u64,
}

impl Calls {
    /// Thread `tid` enters `call`; `again`: the firing before on that thread was another
    /// clause's of the same probe, so this is the same call, whose values it adds to.
    fn enter(&mut self, tid: u32, mut call: Call, again: bool) {
        let calls = self.threads.entry(tid).or_default();
        match calls.last_mut() {
            Some(top) if again && top.probe == call.probe => {
                top.values.append(&mut call.values);
                top.text.push_str(&call.text);
                if top.cat.is_none() {
                    top.cat = call.cat;
                }
            }
            _ => {
                // Entries whose returns are never traced must not grow the stack without
                // bound: past any real call depth, the outermost is given up.
                if calls.len() == MAX_DEPTH {
                    calls.remove(0);
                    self.abandoned += 1;
                }
                calls.push(call)
            }
        }
    }

    /// The call of `function` that thread `tid` returns from: its innermost one (calls
    /// entered after it, whose returns were not traced, end with it). None, and counted,
    /// if the thread is in no call of it.
    fn leave(&mut self, tid: u32, function: &str) -> Option<Call> {
        let calls = self.threads.entry(tid).or_default();
        let Some(at) = calls.iter().rposition(|c| c.function == function) else {
            self.unmatched_returns += 1;
            return None;
        };
        let mut ended = calls.drain(at..);
        let call = ended.next();
        self.abandoned += ended.count() as u64;
        call
    }

    /// Calls whose returns were not traced: abandoned, or still open.
    fn unreturned(&self) -> u64 {
        self.threads.values().map(|c| c.len() as u64).sum::<u64>() + self.abandoned
    }
}

/// `ns` as µs with three decimals (written in place).
struct Micros(u64);

impl std::fmt::Display for Micros {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}.{:03}", self.0 / 1000, self.0 % 1000)
    }
}

impl<'w> ChromeTrace<'w> {
    pub fn new(out: Destination<'w>, program: &Program, flow: bool) -> Self {
        ChromeTrace {
            out,
            options: program.options.clone(),
            flow,
            started: false,
            probes: HashMap::new(),
            calls: Calls::default(),
            last: HashMap::new(),
            pending: None,
            named_processes: HashSet::new(),
            named_threads: HashSet::new(),
            names: ArgNames::default(),
            voice: "crumbs",
            messages: Default::default(),
            line: String::new(),
        }
    }

    /// Messages on standard error start with `name:`.
    pub fn voice(mut self, name: &'static str) -> Self {
        self.voice = name;
        self
    }

    /// How errorf()'s and warnf()'s messages name the program.
    pub fn messages(mut self, messages: super::message::Messages) -> Self {
        self.messages = messages;
        self
    }

    fn probe(&mut self, program: &Program, id: u32) -> Rc<Probe> {
        self.probes
            .entry(id)
            .or_insert_with(|| {
                let description = program.probe_description(id);
                let cat = description.split(':').next().unwrap_or_default().to_string();
                let (function, name) = program.probe_name(id);
                let kind = if function.is_empty() { Kind::Other } else { kind(&name) };
                Rc::new(Probe { name: if function.is_empty() { name } else { function }, cat, kind })
            })
            .clone()
    }

    /// The complete event of the call that returned last, if not written yet.
    fn write_pending(&mut self, line: &mut String) {
        let Some(s) = self.pending.take() else { return };
        line.push_str(r#"{"name":"#);
        json::string(line, &s.call.function);
        line.push_str(r#","cat":"#);
        json::string(line, s.call.cat.as_deref().unwrap_or(&s.provider));
        let _ = write!(line, r#","pid":{},"tid":{},"ts":{},"dur":{},"ph":"X""#, s.pid, s.tid, Micros(s.call.ts), Micros(s.end.saturating_sub(s.call.ts)));
        args(line, &[(&s.call.values, &s.call.text), (&s.values, &s.text)]);
        line.push_str("}\n");
    }

    /// The `[` line, and the metadata events naming the firing's process and thread the
    /// first time each is seen.
    fn prelude(&mut self, line: &mut String, meta: &super::Meta) {
        if !std::mem::replace(&mut self.started, true) {
            line.push_str("[\n");
        }
        let (pid, tid) = (meta.pid, meta.tid);
        if self.named_processes.insert(pid) {
            // The process's name is its main thread's: another thread's may differ, so
            // /proc is asked first (a process that has gone is named by this thread).
            let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).map(|s| s.trim_end_matches('\n').to_string()).unwrap_or_else(|_| meta.comm());
            metadata(line, "process_name", pid, pid, &name);
        }
        if self.named_threads.insert(tid) {
            metadata(line, "thread_name", pid, tid, &meta.comm());
        }
    }
}

fn metadata(line: &mut String, what: &str, pid: u32, tid: u32, name: &str) {
    let _ = write!(line, r#"{{"name":"{what}","ph":"M","pid":{pid},"tid":{tid},"args":{{"name":"#);
    json::string(line, name);
    line.push_str("}}\n");
}

/// The `args` object: each part's values by name, then what it printed as `text`; the
/// second part is a span's return, whose names already given get `ret_` in front (the
/// values owned or borrowed from the firing).
fn args<V: Borrow<Value>>(line: &mut String, parts: &[Part<'_, V>]) {
    line.push_str(r#","args":{"#);
    let mut unique = Unique::default();
    let text: Rc<str> = Rc::from("text");
    let mut first = true;
    let mut key = |line: &mut String, name: &Rc<str>, ret: bool| {
        if !std::mem::replace(&mut first, false) {
            line.push(',');
        }
        json::string(line, &unique.name(name, ret));
        line.push(':');
    };
    for (k, (values, printed)) in parts.iter().enumerate() {
        for (name, value) in values.iter() {
            key(line, name, k == 1);
            json::value(line, value.borrow());
        }
        if !printed.is_empty() {
            key(line, &text, k == 1);
            json::string(line, printed);
        }
    }
    line.push('}');
}

/// The category a clause gave its event: the string it traced under the name `cat`
/// (`this->cat = "POSIX"; trace(this->cat);`), taken out of the values.
fn category(values: &mut Vec<(Rc<str>, &Value)>) -> Option<String> {
    let at = values.iter().position(|(n, v)| &**n == "cat" && matches!(v, Value::Str(_)))?;
    match values.remove(at).1 {
        Value::Str(s) => Some(s.clone()),
        _ => None,
    }
}

impl Sink for ChromeTrace<'_> {
    fn firing(&mut self, f: &Firing) -> io::Result<()> {
        // Borrowed from the firing: copied only into a call that waits for its return.
        let mut values: Vec<&Value> = Vec::new();
        // What printf(), print() and bpftrace's text actions printed (trace()'s values are
        // in `values` alone).
        let mut text = String::new();
        for o in &f.outputs {
            match o {
                Output::Printf { pieces, values: v } => {
                    values.extend(v);
                    printf::format_into(&mut text, pieces, v);
                }
                Output::Trace(v) => values.push(v),
                Output::Print { layout, value } => {
                    values.push(value);
                    text.push_str(&super::print::print(layout, value));
                }
                Output::Text { text: t, .. } => text.push_str(t),
                Output::SetOpt { name, value } => {
                    let _ = crumbs_lang::check::apply_option(&mut self.options, name, *value);
                }
                Output::System { pieces, values: v } => super::text::run_command(&printf::format(pieces, v), self.voice),
                Output::Message { error, text: t, at } => {
                    if let Some(line) = self.messages.line(*error, t, at) {
                        eprintln!("{line}");
                    }
                }
                // Bytes, files and aggregations have no place in a trace event.
                Output::Freopen { .. } | Output::Ftruncate | Output::Pcap { .. } | Output::Tracemem(_) | Output::Cat { .. } | Output::Printa { .. } | Output::PrintMap { .. } => {}
            }
        }
        let names = self.names.names(f);
        // Borrowed from the firing: copied only into a call that waits for its return.
        let mut values: Vec<(Rc<str>, &Value)> = names.into_iter().zip(values).collect();
        let cat = category(&mut values);
        let owned = |values: Vec<(Rc<str>, &Value)>| values.into_iter().map(|(n, v)| (n, v.clone())).collect::<Vec<Named>>();
        let meta = f.meta.unwrap_or_default();
        let probe = self.probe(f.program, f.probe);
        // Several clauses of one probe send one record each: the same entry or return.
        let again = self.last.insert(meta.tid, (f.probe, f.record)).is_some_and(|(p, r)| p == f.probe && r != f.record);
        if let Some(span) = &mut self.pending {
            if again && span.tid == meta.tid && probe.kind == Kind::Return {
                span.values.extend(owned(values));
                span.text.push_str(&text);
                if span.call.cat.is_none() {
                    span.call.cat = cat;
                }
                return Ok(());
            }
        }
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        self.write_pending(&mut line);
        self.prelude(&mut line, &meta);
        match (self.flow, probe.kind) {
            (true, Kind::Entry) => self.calls.enter(meta.tid, Call { probe: f.probe, function: probe.name.clone(), ts: meta.ts, values: owned(values), text, cat }, again),
            (true, Kind::Return) => {
                if let Some(mut call) = self.calls.leave(meta.tid, &probe.name) {
                    // The entry's category wins over the return's.
                    if call.cat.is_none() {
                        call.cat = cat;
                    }
                    self.pending = Some(Span { call, provider: probe.cat.clone(), pid: meta.pid, tid: meta.tid, end: meta.ts, values: owned(values), text });
                }
            }
            _ => {
                line.push_str(r#"{"name":"#);
                json::string(&mut line, &probe.name);
                line.push_str(r#","cat":"#);
                json::string(&mut line, cat.as_deref().unwrap_or(&probe.cat));
                let _ = write!(line, r#","pid":{},"tid":{},"ts":{},"ph":"i","s":"t""#, meta.pid, meta.tid, Micros(meta.ts));
                args(&mut line, &[(&values, &text)]);
                line.push_str("}\n");
            }
        }
        let written = self.out.write_all(line.as_bytes());
        self.line = line;
        written
    }

    fn fault(&mut self, fault: &FaultReport) -> io::Result<()> {
        eprintln!("{}: {}", self.voice, fault.message());
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut line = String::new();
        self.write_pending(&mut line);
        self.out.write_all(line.as_bytes())?;
        self.out.flush()
    }

    fn stopped(&mut self, _why: &Stopped) -> io::Result<()> {
        Ok(())
    }

    /// The `]` line; the aggregations as text, what went unpaired and what was lost on
    /// standard error.
    fn finish(&mut self, aggregations: &[Vec<AggRow>], drops: &Drops) -> io::Result<()> {
        let mut line = String::new();
        self.write_pending(&mut line);
        self.out.write_all(line.as_bytes())?;
        if !self.started {
            self.out.write_all(b"[\n")?;
        }
        self.out.write_all(b"]\n")?;
        self.out.flush()?;
        let mut text = String::new();
        for rows in aggregations {
            aggregation::print_rows(&mut text, rows);
        }
        if !text.is_empty() {
            eprint!("{text}");
        }
        let (unmatched, open) = (self.calls.unmatched_returns, self.calls.unreturned());
        if unmatched > 0 || open > 0 {
            eprintln!("{}: {unmatched} return{} without a traced entry dropped, {open} call{} without a traced return", self.voice, if unmatched == 1 { "" } else { "s" }, if open == 1 { "" } else { "s" });
        }
        for line in drops.messages(&self.options) {
            eprintln!("{}: {line}", self.voice);
        }
        Ok(())
    }

    fn notice(&mut self, line: &str) -> io::Result<()> {
        eprintln!("{}: {line}", self.voice);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microseconds_keep_the_nanoseconds() {
        assert_eq!(Micros(180_823_004).to_string(), "180823.004");
        assert_eq!(Micros(999).to_string(), "0.999");
    }

    fn call(function: &str, ts: u64) -> Call {
        Call { probe: function.len() as u32, function: function.into(), ts, values: Vec::new(), text: String::new(), cat: None }
    }

    #[test]
    fn calls_pair_innermost_first_per_thread() {
        let mut c = Calls::default();
        // a -> b -> b (recursion) on thread 1, a on thread 2 in between.
        c.enter(1, call("a", 10), false);
        c.enter(1, call("b", 20), false);
        c.enter(2, call("a", 25), false);
        c.enter(1, call("b", 30), false);
        assert_eq!(c.leave(1, "b"), Some(call("b", 30)));
        assert_eq!(c.leave(1, "b"), Some(call("b", 20)));
        assert_eq!(c.leave(2, "a"), Some(call("a", 25)));
        assert_eq!(c.leave(1, "a"), Some(call("a", 10)));
        assert_eq!((c.unmatched_returns, c.unreturned()), (0, 0));
        // A return whose call began before tracing; a call whose return was not traced ends
        // with its caller's; one still open at the end.
        assert_eq!(c.leave(1, "x"), None);
        c.enter(1, call("a", 40), false);
        c.enter(1, call("untraced", 50), false);
        assert_eq!(c.leave(1, "a"), Some(call("a", 40)));
        c.enter(3, call("open", 60), false);
        assert_eq!((c.unmatched_returns, c.unreturned()), (1, 2));
        // Two clauses' records of one entry are one call.
        let mut c = Calls::default();
        let v = |n| (Rc::from("v"), Value::long(n));
        c.enter(1, Call { values: vec![v(1)], ..call("f", 10) }, false);
        c.enter(1, Call { values: vec![v(2)], cat: Some("POSIX".into()), ..call("f", 10) }, true);
        assert_eq!(c.leave(1, "f"), Some(Call { values: vec![v(1), v(2)], cat: Some("POSIX".into()), ..call("f", 10) }));
        assert_eq!(c.unreturned(), 0);
        // Entries that never return keep at most MAX_DEPTH calls.
        let mut c = Calls::default();
        for ts in 0..MAX_DEPTH as u64 + 5 {
            c.enter(1, call("e", ts), false);
        }
        assert_eq!((c.threads[&1].len(), c.abandoned, c.unreturned()), (MAX_DEPTH, 5, MAX_DEPTH as u64 + 5));
        assert_eq!(c.threads[&1][0].ts, 5);
    }
}
