//! crumbs' JSON lines (`-f json`, `-o x.json`): one object a line, for each record a clause
//! sends (`"type":"record"`), for each aggregation row printed by printa() or at the end
//! (`"type":"aggregation"`), and for each fault (`"type":"error"`). Field names are stable:
//! spec.md §9.4 lists them.

use crumbs_lang::ir::agg::Summary;
use super::destination::Destination;
use super::json_value::{self as json, quoted};
use super::{aggregation, buckets, printf, record, strerror, AggRow, FaultReport, Firing, Output, PrintedMap, Sink, Stopped, Value};
use crate::drops::Drops;
use crumbs_lang::ir::{Options, Program};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};

pub struct JsonLines<'w> {
    out: Destination<'w>,
    options: Options,
    /// Each aggregation's name, by id.
    names: Vec<String>,
    /// Each probe's full description as a JSON string, looked up and escaped once.
    probes: HashMap<u32, String>,
    /// Each record's value names (`names`).
    arg_names: super::arg_names::ArgNames,
    voice: &'static str,
    messages: super::message::Messages,
    /// A firing's buffers, kept from one firing to the next: the record's line, its values'
    /// JSON (the array's elements), its formatted text, and the lines printa() printed.
    line: String,
    values: String,
    text: String,
    after: String,
}

impl<'w> JsonLines<'w> {
    pub fn new(out: Destination<'w>, program: &Program) -> Self {
        let names = program.aggregations.iter().map(|a| a.name.clone()).collect();
        let (line, values, text, after) = Default::default();
        JsonLines { out, options: program.options.clone(), names, probes: HashMap::new(), arg_names: Default::default(), voice: "crumbs", messages: Default::default(), line, values, text, after }
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

    fn order(&self) -> aggregation::Order {
        aggregation::Order::of(&self.options)
    }

    /// One line per row of aggregation `id`, in the order the text output prints them.
    fn aggregation(&self, line: &mut String, id: usize, rows: &[AggRow], printa: bool) {
        let name = self.names.get(id).map_or("", |n| n.as_str());
        for row in aggregation::sort_rows_by(rows, self.order()) {
            line.push_str(r#"{"type":"aggregation","name":"#);
            json::string(line, name);
            line.push_str(r#","function":"#);
            json::string(line, row.data.kind.name());
            line.push_str(r#","keys":"#);
            json::values(line, &row.keys);
            let summary = row.data.summary();
            match summary {
                Summary::Scalar(n) => {
                    let _ = write!(line, r#","value":{n}"#);
                }
                Summary::Series { params, words } => {
                    line.push_str(r#","series":"#);
                    json::array(line, crumbs_lang::ir::agg::tseries::points(params, words).iter(), |out, (epoch, v)| {
                        let _ = write!(out, r#"{{"epoch":{epoch},"value":{v}}}"#);
                    });
                }
                _ => {
                    line.push_str(r#","buckets":"#);
                    json::array(line, buckets::buckets(&summary).unwrap_or_default().iter(), |out, b| {
                        let bound = |v: Option<i64>| v.map_or("null".to_string(), |v| v.to_string());
                        let _ = write!(out, r#"{{"min":{},"max":{},"count":{}}}"#, bound(b.min), bound(b.max), b.count);
                    });
                }
            }
            if printa {
                line.push_str(r#","printa":true"#);
            }
            line.push_str("}\n");
        }
    }

    /// One line per row of a map of values (bpftrace's `@m[k] = v`): its name without `@`.
    fn value_map(&self, line: &mut String, map: &crate::value_maps::ValueMap, printed: bool) {
        for (keys, value) in &map.rows {
            line.push_str(r#"{"type":"map","name":"#);
            json::string(line, map.name.strip_prefix('@').unwrap_or(&map.name));
            line.push_str(r#","keys":"#);
            json::values(line, keys);
            line.push_str(r#","value":"#);
            json::value(line, value);
            if printed {
                line.push_str(r#","printa":true"#);
            }
            line.push_str("}\n");
        }
    }

    fn probe(&mut self, program: &Program, id: u32) -> &str {
        self.probes.entry(id).or_insert_with(|| quoted(&program.probe_description(id)))
    }
}

/// One more element of a JSON array's elements.
fn element(values: &mut String, v: &Value) {
    if !values.is_empty() {
        values.push(',');
    }
    json::value(values, v);
}

impl Sink for JsonLines<'_> {
    fn firing(&mut self, f: &Firing) -> io::Result<()> {
        let (mut values, mut text, mut after) = (std::mem::take(&mut self.values), std::mem::take(&mut self.text), std::mem::take(&mut self.after));
        values.clear();
        text.clear();
        // Aggregation lines printa() printed, after the record's own line.
        after.clear();
        for o in &f.outputs {
            match o {
                Output::Printf { pieces, values: v } => {
                    v.iter().for_each(|v| element(&mut values, v));
                    printf::format_into(&mut text, pieces, v);
                }
                Output::Trace(v) => {
                    element(&mut values, v);
                    record::push_trace(&mut text, v, true);
                }
                Output::Print { layout, value } => {
                    element(&mut values, value);
                    text.push_str(&super::print::print(layout, value));
                }
                Output::Text { text: t, line, .. } => {
                    text.push_str(t);
                    if *line {
                        text.push('\n');
                    }
                }
                Output::Tracemem(bytes) => text.push_str(&record::raw_bytes(bytes)),
                Output::Pcap { bytes, .. } => text.push_str(&record::raw_bytes(bytes)),
                Output::Cat { path, max } => text.push_str(&super::cat::contents(path, *max, self.voice)),
                Output::Printa { aggs, rows, .. } => {
                    for (id, rows) in aggs.iter().zip(rows) {
                        self.aggregation(&mut after, *id, rows, true);
                    }
                }
                Output::PrintMap { map: PrintedMap::Aggregation(id, rows), .. } => self.aggregation(&mut after, *id, rows, true),
                Output::PrintMap { map: PrintedMap::Values(map), .. } => self.value_map(&mut after, map, true),
                Output::SetOpt { name, value } => {
                    let _ = crumbs_lang::check::apply_option(&mut self.options, name, *value);
                }
                Output::System { pieces, values: v } => {
                    self.out.flush()?;
                    super::text::run_command(&printf::format(pieces, v), self.voice);
                }
                Output::Freopen { pieces, values: v } => {
                    let path = printf::format(pieces, v);
                    if let Err(e) = self.out.reopen(&path) {
                        eprintln!("{}: {}", self.voice, f.error(&format!("couldn't freopen() \"{path}\": {}", strerror(&e))));
                    }
                }
                Output::Ftruncate => self.out.truncate()?,
                Output::Message { error, text: t, at } => {
                    if let Some(line) = self.messages.line(*error, t, at) {
                        self.out.flush()?;
                        eprintln!("{line}");
                    }
                }
            }
        }
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        line.push_str(r#"{"type":"record","probe":"#);
        line.push_str(self.probe(f.program, f.probe));
        let _ = write!(line, r#","cpu":{}"#, f.cpu);
        if let Some(m) = f.meta {
            let _ = write!(line, r#","ts":{},"pid":{},"tid":{},"comm":"#, m.ts, m.pid, m.tid);
            json::string(&mut line, &m.comm_text());
        }
        line.push_str(r#","values":["#);
        line.push_str(&values);
        // Each value's name, distinct within the record (as Chrome's args name them).
        line.push_str(r#"],"names":"#);
        let mut unique = super::arg_names::Unique::default();
        json::array(&mut line, self.arg_names.names(f).iter(), |out, n| json::string(out, &unique.name(n, false)));
        line.push_str(r#","text":"#);
        json::string(&mut line, &text);
        line.push_str("}\n");
        line.push_str(&after);
        let written = self.out.write_all(line.as_bytes());
        (self.line, self.values, self.text, self.after) = (line, values, text, after);
        written
    }

    fn fault(&mut self, fault: &FaultReport) -> io::Result<()> {
        let mut line = String::from(r#"{"type":"error","probe":"#);
        json::string(&mut line, &fault.program.probe_description(fault.report.probe));
        let _ = write!(line, r#","cpu":{},"message":"#, fault.report.cpu);
        json::string(&mut line, &fault.message());
        line.push_str("}\n");
        self.out.write_all(line.as_bytes())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn stopped(&mut self, _why: &Stopped) -> io::Result<()> {
        Ok(())
    }

    /// Every aggregation's rows; then, on standard error, what was lost.
    fn finish(&mut self, aggregations: &[Vec<AggRow>], drops: &Drops) -> io::Result<()> {
        let mut text = String::new();
        for (id, rows) in aggregations.iter().enumerate() {
            self.aggregation(&mut text, id, rows, false);
        }
        self.out.write_all(text.as_bytes())?;
        self.out.flush()?;
        for line in drops.messages(&self.options) {
            eprintln!("{}: {line}", self.voice);
        }
        Ok(())
    }

    /// bpftrace's maps of values at the end, before the aggregations.
    fn value_maps(&mut self, maps: Vec<crate::value_maps::ValueMap>) -> io::Result<()> {
        let mut text = String::new();
        for map in &maps {
            self.value_map(&mut text, map, false);
        }
        self.out.write_all(text.as_bytes())
    }

    fn notice(&mut self, line: &str) -> io::Result<()> {
        eprintln!("{}: {line}", self.voice);
        Ok(())
    }
}
