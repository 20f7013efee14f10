//! The sink of the bpftrace dialect with `-f json`: bpftrace 0.17's JSON output, one record
//! a line ([`super::records`] writes them). Each printf(), print(), time() and system() is
//! a record of its own as it comes; when tracing ends, two newlines on standard output
//! (there even with `-o`, as bpftrace writes them), then a record for every map that has
//! rows, aggregations and maps of values together, sorted by name.
//!
//! Not bpftrace's: print() of a struct writes the text crumbs prints for it as a `value`
//! string (bpftrace writes an object of its members); DTrace's tracemem() and pcap(), which
//! bpftrace does not have, write their text as `printf` records. Messages (faults, drops)
//! go to standard error as text, as in the text format.

use super::super::destination::Destination;
use super::super::{printf, record, AggRow, FaultReport, Firing, Output, PrintedMap, Sink, Stopped};
use super::every::{self, AnyMap};
use super::maps::{AggMap, Limits};
use super::records;
use super::AT_EXIT;
use crate::drops::Drops;
use crate::value_maps::ValueMap;
use crumbs_lang::ir::{Aggregation, Options, Program};
use std::io::{self, Write};

pub struct BpftraceJson<'w> {
    out: Destination<'w>,
    /// Where the two newlines at the end go: standard output, even when `out` is `-o`'s file.
    console: Destination<'w>,
    /// The program's aggregations, by id.
    aggregations: Vec<Aggregation>,
    /// The plain value maps to print at the end.
    value_maps: Vec<ValueMap>,
    options: Options,
    /// The name messages on standard error start with.
    voice: &'static str,
    /// How errorf() and warnf() name the program.
    messages: crate::output::message::Messages,
}

impl<'w> BpftraceJson<'w> {
    pub fn new(out: Destination<'w>, program: &Program) -> Self {
        BpftraceJson { out, console: Destination::stdout(), aggregations: program.aggregations.clone(), value_maps: Vec::new(), options: program.options.clone(), voice: "crumbs", messages: Default::default() }
    }

    /// How errorf()'s and warnf()'s messages name the program, and whether warnings print.
    pub fn messages(mut self, messages: crate::output::message::Messages) -> Self {
        self.messages = messages;
        self
    }

    /// Messages on standard error start with `name:` instead of `crumbs:`.
    pub fn voice(mut self, name: &'static str) -> Self {
        self.voice = name;
        self
    }

    /// The two newlines at the end go to `console` instead of standard output.
    pub fn console(mut self, console: Destination<'w>) -> Self {
        self.console = console;
        self
    }

    fn aggregation(&self, id: usize, rows: &[AggRow], limits: Limits) -> Option<String> {
        records::aggregation(&AggMap::of(self.aggregations.get(id)?, false), rows, limits)
    }

    /// Writes what came before (`text`), then runs system()'s `command` and makes its
    /// standard output a `syscall` record (its standard error is crumbs').
    fn syscall(&mut self, text: &mut String, command: &str) -> io::Result<()> {
        self.out.write_all(std::mem::take(text).as_bytes())?;
        self.out.flush()?;
        match std::process::Command::new("/bin/sh").arg("-c").arg(command).stderr(std::process::Stdio::inherit()).output() {
            Ok(done) => text.push_str(&records::record("syscall", &records::string(&String::from_utf8_lossy(&done.stdout)))),
            Err(e) => eprintln!("{}: system(\"{command}\") failed: {e}", self.voice),
        }
        Ok(())
    }
}

impl Sink for BpftraceJson<'_> {
    fn firing(&mut self, f: &Firing) -> io::Result<()> {
        let mut text = String::new();
        for o in &f.outputs {
            match o {
                Output::Printf { pieces, values } => text.push_str(&records::record("printf", &records::string(&super::maps::printf_text(pieces, values)))),
                Output::Trace(v) => text.push_str(&records::record("value", &records::value(v, 1))),
                Output::Print { layout, value } => {
                    let data = super::args::json(layout, value).or_else(|| super::structs::json(layout, value)).unwrap_or_else(|| records::string(&super::super::print::print(layout, value)));
                    text.push_str(&records::record("value", &data));
                }
                Output::Text { record, text: t, .. } => text.push_str(&records::record(record, &records::string(t))),
                Output::Printa { aggs, rows, .. } => {
                    for (id, rows) in aggs.iter().zip(rows) {
                        text.push_str(&self.aggregation(*id, rows, Limits::default()).unwrap_or_default());
                    }
                }
                Output::PrintMap { map, top, div } => {
                    let limits = Limits { top: *top, div: *div };
                    let written = match map {
                        PrintedMap::Aggregation(id, rows) => self.aggregation(*id, rows, limits),
                        PrintedMap::Values(v) => records::value_map(v.name.trim_start_matches('@'), &v.rows, limits),
                    };
                    text.push_str(&written.unwrap_or_default());
                }
                Output::System { pieces, values } => self.syscall(&mut text, &printf::format(pieces, values))?,
                // DTrace's actions, not bpftrace's: done as the text sinks do them.
                Output::Freopen { pieces, values } => {
                    self.out.write_all(std::mem::take(&mut text).as_bytes())?;
                    let path = printf::format(pieces, values);
                    if let Err(e) = self.out.reopen(&path) {
                        self.out.flush()?;
                        eprintln!("{}: couldn't freopen() \"{path}\": {}", self.voice, super::super::strerror(&e));
                    }
                }
                Output::Cat { path, max } => {
                    self.out.write_all(std::mem::take(&mut text).as_bytes())?;
                    self.out.flush()?;
                    text.push_str(&records::record("cat", &records::string(&super::super::cat::contents(path, *max, self.voice))));
                }
                Output::Message { error, text: t, at } => text.push_str(&self.messages.json(*error, t, at).unwrap_or_default()),
                Output::Ftruncate => {
                    self.out.write_all(std::mem::take(&mut text).as_bytes())?;
                    self.out.truncate()?;
                }
                Output::Pcap { bytes, .. } | Output::Tracemem(bytes) => text.push_str(&records::record("printf", &records::string(&record::raw_bytes(bytes)))),
                Output::SetOpt { .. } => {}
            }
        }
        self.out.write_all(text.as_bytes())
    }

    /// On standard error, after what came before it on standard output.
    fn fault(&mut self, fault: &FaultReport) -> io::Result<()> {
        self.out.flush()?;
        eprintln!("{}: {}", self.voice, fault.message());
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn stopped(&mut self, _why: &Stopped) -> io::Result<()> {
        Ok(())
    }

    /// Two newlines on standard output, then a record for every map with rows, by name;
    /// then, on standard error, what was lost.
    fn finish(&mut self, aggregations: &[Vec<AggRow>], drops: &Drops) -> io::Result<()> {
        self.out.flush()?;
        self.console.write_all(AT_EXIT.as_bytes())?;
        self.console.flush()?;
        let mut text = String::new();
        // `print_maps_on_exit = false`: no maps.
        let maps = if self.options.no_maps_at_exit { Vec::new() } else { every::by_name(&self.aggregations, &[], aggregations, &self.value_maps) };
        for m in maps {
            let written = match m {
                AnyMap::Agg(map, rows) => records::aggregation(&map, rows, Limits::default()),
                AnyMap::Values(v) => records::value_map(v.name.trim_start_matches('@'), &v.rows, Limits::default()),
            };
            text.push_str(&written.unwrap_or_default());
        }
        self.out.write_all(text.as_bytes())?;
        self.out.flush()?;
        for line in drops.messages(&self.options) {
            eprintln!("{}: {line}", self.voice);
        }
        Ok(())
    }

    fn value_maps(&mut self, maps: Vec<ValueMap>) -> io::Result<()> {
        self.value_maps = maps;
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
    use crate::output::{AggData, Value};
    use crumbs_lang::ir::IntRepr;
    use crate::output::bpftrace::shared::Shared;

    /// A sink for `program` writing records and the end's newlines to one writer (as
    /// without `-o`), and that writer.
    fn sink(program: &Program) -> (BpftraceJson<'static>, Shared) {
        let out = Shared::default();
        let sink = BpftraceJson::new(Destination::writer(Box::new(out.clone())), program).console(Destination::writer(Box::new(out.clone())));
        (sink, out)
    }

    #[test]
    fn records_as_they_come_then_the_maps_by_name() {
        // bpftrace 0.17 -f json: BEGIN { @c = count(); @s = sum(5); @a = avg(7); @a = avg(8);
        //   @mn = min(3); @mx = max(9); @st = stats(7); @st = stats(8); @v = 3; @str = "hi";
        //   printf("x\"y\\z\t\n"); exit(); } wrote, after its attached_probes record:
        let want = r#"{"type": "printf", "data": "x\"y\\z\t\n"}


{"type": "stats", "data": {"@a": 7}}
{"type": "map", "data": {"@c": 1}}
{"type": "map", "data": {"@mn": 3}}
{"type": "map", "data": {"@mx": 9}}
{"type": "map", "data": {"@s": 5}}
{"type": "stats", "data": {"@st": {"count": 2, "average": 7, "total": 15}}}
{"type": "map", "data": {"@str": "hi"}}
{"type": "map", "data": {"@v": 3}}
"#;
        let p = crumbs_lang::compile("BEGIN { @c = count(); @s = sum(5); @a = avg(7); @mn = min(3); @mx = max(9); @st = stats(7); }", &Default::default()).unwrap();
        let words = [vec![1], vec![5], vec![2, 15], vec![1, 3], vec![1, 9], vec![2, 15]];
        let rows: Vec<Vec<AggRow>> = p.aggregations.iter().zip(words).map(|(a, w)| vec![AggRow { keys: vec![], data: AggData { kind: a.kind.clone(), words: w } }]).collect();
        let pieces = crumbs_lang::printf::parse("x\"y\\z\t\n").unwrap();
        let (mut s, out) = sink(&p);
        s.firing(&Firing { program: &p, cpu: 0, probe: 1, record: 0, meta: None, outputs: vec![Output::Printf { pieces: &pieces, values: vec![] }], items: vec![0] }).unwrap();
        s.value_maps(vec![ValueMap { name: "v".into(), rows: vec![(vec![], Value::Int(3, IntRepr::I64))] }, ValueMap { name: "str".into(), rows: vec![(vec![], Value::Str("hi".into()))] }]).unwrap();
        s.finish(&rows, &Drops::default()).unwrap();
        assert_eq!(out.text(), want);
    }

    #[test]
    fn values_times_and_printed_maps() {
        // BEGIN { print(5); print("hi\"x"); time("%H"); @c[1] = count(); print(@c); @z[1] =
        //   count(); clear(@z); print(@z); exit(); } wrote these (print(@z), empty: nothing).
        let p = crumbs_lang::compile("BEGIN { @c[1] = count(); @z[1] = count(); }", &Default::default()).unwrap();
        let row = AggRow { keys: vec![Value::long(1)], data: AggData { kind: p.aggregations[0].kind.clone(), words: vec![1] } };
        let outputs = vec![
            Output::Trace(Value::long(5)),
            Output::Trace(Value::Str("hi\"x".into())),
            Output::Text { record: "time", text: "13".into(), line: false },
            Output::PrintMap { map: PrintedMap::Aggregation(0, vec![row]), top: 0, div: 0 },
            Output::PrintMap { map: PrintedMap::Aggregation(1, vec![]), top: 0, div: 0 },
        ];
        let (mut s, out) = sink(&p);
        s.firing(&Firing { program: &p, cpu: 0, probe: 1, record: 0, meta: None, outputs, items: vec![] }).unwrap();
        let want = r#"{"type": "value", "data": 5}
{"type": "value", "data": "hi\"x"}
{"type": "time", "data": "13"}
{"type": "map", "data": {"@c": {"1": 1}}}
"#;
        assert_eq!(out.text(), want);
    }

    #[test]
    fn system_output_is_a_syscall_record() {
        // bpftrace --unsafe: system("echo sys"); system("true") wrote "sys\n" and "".
        let p = crumbs_lang::compile("BEGIN { }", &Default::default()).unwrap();
        let echo = crumbs_lang::printf::parse("echo sys").unwrap();
        let t = crumbs_lang::printf::parse("true").unwrap();
        let outputs = vec![Output::System { pieces: &echo, values: vec![] }, Output::System { pieces: &t, values: vec![] }];
        let (mut s, out) = sink(&p);
        s.firing(&Firing { program: &p, cpu: 0, probe: 1, record: 0, meta: None, outputs, items: vec![] }).unwrap();
        assert_eq!(out.text(), "{\"type\": \"syscall\", \"data\": \"sys\\n\"}\n{\"type\": \"syscall\", \"data\": \"\"}\n");
    }

    #[test]
    fn with_output_to_a_file_the_newlines_go_elsewhere() {
        // bpftrace -f json -o F: F held the records, standard output "\n\n".
        let p = crumbs_lang::compile("BEGIN { @c = count(); }", &Default::default()).unwrap();
        let (file, console) = (Shared::default(), Shared::default());
        let mut s = BpftraceJson::new(Destination::writer(Box::new(file.clone())), &p).console(Destination::writer(Box::new(console.clone())));
        s.finish(&[vec![]], &Drops::default()).unwrap();
        assert_eq!(file.text(), "{\"type\": \"map\", \"data\": {\"@c\": 0}}\n");
        assert_eq!(console.text(), "\n\n");
    }
}
