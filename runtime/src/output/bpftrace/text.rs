//! The sink of the bpftrace dialect: bpftrace 0.17's text output. No heading and no probe
//! columns: what printf() and print() output, as it comes; when tracing ends, two newlines
//! and then every map, aggregations and plain value maps together, sorted by name, each as
//! [`super::maps`] prints it.
//!
//! The front end tells the sink what the program alone does not say: which avg()
//! aggregations are bpftrace's stats() ([`BpftraceText::stats`]), the plain value maps'
//! rows at the end ([`BpftraceText::set_value_maps`]), and print()'s top and divisor
//! ([`BpftraceText::print_aggregation`], [`BpftraceText::print_value_map`]).

use super::super::destination::Destination;
use super::super::{printf, record, AggRow, FaultReport, Firing, Output, Sink, Stopped};
use super::every::{self, AnyMap};
use super::maps::{self, AggMap, Limits};
use super::AT_EXIT;
use crate::drops::Drops;
use crumbs_lang::ir::{Aggregation, Options, Program};
use std::io::{self, Write};

pub use crate::value_maps::ValueMap;

pub struct BpftraceText<'w> {
    out: Destination<'w>,
    /// Where the two newlines that end tracing go: standard output, even when `out` is
    /// `-o`'s file, as bpftrace writes them.
    console: Destination<'w>,
    /// The program's aggregations, by id.
    aggregations: Vec<Aggregation>,
    /// Which of them are stats(), by id.
    stats: Vec<bool>,
    /// The plain value maps to print at the end.
    value_maps: Vec<ValueMap>,
    options: Options,
    /// The name messages on standard error start with.
    voice: &'static str,
    /// How errorf() and warnf() name the program.
    messages: crate::output::message::Messages,
}

impl<'w> BpftraceText<'w> {
    pub fn new(out: Destination<'w>, program: &Program) -> Self {
        let n = program.aggregations.len();
        BpftraceText { out, console: Destination::stdout(), aggregations: program.aggregations.clone(), stats: vec![false; n], value_maps: Vec::new(), options: program.options.clone(), voice: "crumbs", messages: Default::default() }
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

    /// The aggregations `ids` (avg() ones) are bpftrace's stats(): printed as count,
    /// average and total.
    pub fn stats(mut self, ids: &[usize]) -> Self {
        for id in ids {
            if let Some(s) = self.stats.get_mut(*id) {
                *s = true;
            }
        }
        self
    }

    /// The plain value maps, read when tracing ends, for [`Sink::finish`] to print among the
    /// aggregations.
    pub fn set_value_maps(&mut self, maps: Vec<ValueMap>) {
        self.value_maps = maps;
    }

    fn agg_map(&self, id: usize) -> Option<AggMap<'_>> {
        Some(AggMap::of(self.aggregations.get(id)?, self.stats.get(id).copied().unwrap_or(false)))
    }

    /// `print(@m, top, div)` of aggregation `id` with its rows now.
    pub fn print_aggregation(&mut self, id: usize, rows: &[AggRow], limits: Limits) -> io::Result<()> {
        let mut text = String::new();
        if let Some(map) = self.agg_map(id) {
            maps::print_aggregation(&mut text, &map, rows, limits);
        }
        self.out.write_all(text.as_bytes())
    }

    /// `print(@m, top, div)` of a plain value map with its rows now.
    pub fn print_value_map(&mut self, map: &ValueMap, limits: Limits) -> io::Result<()> {
        let mut text = String::new();
        maps::print_value_map(&mut text, map.name.trim_start_matches('@'), &map.rows, limits);
        self.out.write_all(text.as_bytes())
    }

    /// Every map, by name: the aggregations with their `rows` (by id) and the value maps.
    fn all_maps(&self, rows: &[Vec<AggRow>]) -> String {
        let mut text = String::new();
        for m in every::by_name(&self.aggregations, &self.stats, rows, &self.value_maps) {
            match m {
                AnyMap::Agg(map, rows) => maps::print_aggregation(&mut text, &map, rows, Limits::default()),
                AnyMap::Values(v) => maps::print_value_map(&mut text, v.name.trim_start_matches('@'), &v.rows, Limits::default()),
            }
        }
        text
    }
}

impl Sink for BpftraceText<'_> {
    fn firing(&mut self, f: &Firing) -> io::Result<()> {
        let mut text = String::new();
        for o in &f.outputs {
            match o {
                Output::Printf { pieces, values } => text.push_str(&maps::printf_text(pieces, values)),
                // bpftrace's print() of a value: the value and a newline.
                Output::Trace(v) => {
                    text.push_str(&maps::value_text(v, 1));
                    text.push('\n');
                }
                Output::Print { layout, value } => match super::structs::text(layout, value) {
                    // A struct, union or array as 0.17 prints it, and a newline.
                    Some(t) => {
                        text.push_str(&t);
                        text.push('\n');
                    }
                    None => text.push_str(&super::super::print::print(layout, value)),
                },
                // print(@m) with no top or divisor (the front end calls
                // [`BpftraceText::print_aggregation`] for them).
                Output::Printa { aggs, rows, .. } => {
                    for (id, rows) in aggs.iter().zip(rows) {
                        if let Some(map) = self.agg_map(*id) {
                            maps::print_aggregation(&mut text, &map, rows, Limits::default());
                        }
                    }
                }
                Output::System { pieces, values } => {
                    // The command's output follows what came before it.
                    self.out.write_all(std::mem::take(&mut text).as_bytes())?;
                    self.out.flush()?;
                    super::super::text::run_command(&printf::format(pieces, values), self.voice);
                }
                // DTrace's actions, not bpftrace's: done as the DTrace sink does them.
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
                    text.push_str(&super::super::cat::contents(path, *max, self.voice));
                }
                // On standard error, after what came before it on standard output.
                Output::Message { error, text: t, at } => {
                    if let Some(line) = self.messages.line(*error, t, at) {
                        self.out.write_all(std::mem::take(&mut text).as_bytes())?;
                        self.out.flush()?;
                        eprintln!("{line}");
                    }
                }
                Output::Ftruncate => {
                    self.out.write_all(std::mem::take(&mut text).as_bytes())?;
                    self.out.truncate()?;
                }
                Output::Pcap { bytes, .. } | Output::Tracemem(bytes) => text.push_str(&record::raw_bytes(bytes)),
                Output::SetOpt { .. } => {}
                Output::Text { text: t, line, .. } => {
                    text.push_str(t);
                    if *line {
                        text.push('\n');
                    }
                }
                Output::PrintMap { map, top, div } => {
                    let limits = Limits { top: *top, div: *div };
                    match map {
                        super::super::PrintedMap::Aggregation(id, rows) => {
                            if let Some(m) = self.agg_map(*id) {
                                maps::print_aggregation(&mut text, &m, rows, limits);
                            }
                        }
                        super::super::PrintedMap::Values(v) => maps::print_value_map(&mut text, v.name.trim_start_matches('@'), &v.rows, limits),
                    }
                }
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

    /// bpftrace prints nothing when tracing stops: the maps at the end say it all.
    fn stopped(&mut self, _why: &Stopped) -> io::Result<()> {
        Ok(())
    }

    /// Two newlines, then every map by name; then, on standard error, what was lost.
    fn finish(&mut self, aggregations: &[Vec<AggRow>], drops: &Drops) -> io::Result<()> {
        // `print_maps_on_exit = false`: the newlines that end tracing, and no maps.
        let maps = if self.options.no_maps_at_exit { String::new() } else { self.all_maps(aggregations) };
        // In order when both are standard output.
        self.out.flush()?;
        self.console.write_all(AT_EXIT.as_bytes())?;
        self.console.flush()?;
        self.out.write_all(maps.as_bytes())?;
        self.out.flush()?;
        for line in drops.messages(&self.options) {
            eprintln!("{}: {line}", self.voice);
        }
        Ok(())
    }

    fn value_maps(&mut self, maps: Vec<ValueMap>) -> io::Result<()> {
        self.set_value_maps(maps);
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
    use crate::output::bpftrace::shared::Shared;
    use crumbs_lang::ir::IntRepr;

    /// A sink writing its output and the end's newlines to `out` (as without `-o`).
    fn sink<'w>(p: &Program, out: &Shared) -> BpftraceText<'w> {
        BpftraceText::new(Destination::writer(Box::new(out.clone())), p).console(Destination::writer(Box::new(out.clone())))
    }

    /// The sink's output at the end for `program`'s aggregations (by id: no row, or one
    /// keyless row of those state words), `stats` of them stats(), and the value maps.
    fn finished(program: &str, stats: &[usize], words: &[Option<Vec<u64>>], values: Vec<ValueMap>) -> String {
        let p = crumbs_lang::compile(program, &Default::default()).unwrap();
        let rows: Vec<Vec<AggRow>> = p
            .aggregations
            .iter()
            .zip(words)
            .map(|(a, w)| w.iter().map(|w| AggRow { keys: vec![], data: AggData { kind: a.kind.clone(), words: w.clone() } }).collect())
            .collect();
        let out = Shared::default();
        let mut sink = sink(&p, &out).stats(stats);
        sink.set_value_maps(values);
        sink.finish(&rows, &Drops::default()).unwrap();
        out.text()
    }

    #[test]
    fn at_exit_every_map_by_name() {
        // bpftrace 0.17: BEGIN { @c = count(); @s = sum(5); @a = avg(7); @a = avg(8);
        //   @mn = min(3); @mx = max(9); @st = stats(7); @st=stats(8); @v = 3; @str = "hi";
        //   exit(); } printed, after its "Attaching 1 probe...\n":
        let want = "\n\n@a: 7\n\n@c: 1\n@mn: 3\n@mx: 9\n@s: 5\n@st: count 2, average 7, total 15\n\n@str: hi\n@v: 3\n";
        let program = "BEGIN { @c = count(); @s = sum(5); @a = avg(7); @mn = min(3); @mx = max(9); @st = avg(7); }";
        let words = [Some(vec![1]), Some(vec![5]), Some(vec![2, 15]), Some(vec![1, 3]), Some(vec![1, 9]), Some(vec![2, 15])];
        let values = vec![
            ValueMap { name: "v".into(), rows: vec![(vec![], Value::Int(3, IntRepr::I64))] },
            ValueMap { name: "str".into(), rows: vec![(vec![], Value::Str("hi".into()))] },
        ];
        assert_eq!(finished(program, &[5], &words, values), want);
    }

    #[test]
    fn names_sort_bytewise_with_the_unnamed_map_first() {
        // BEGIN { @b=1; @=2; @A=3; @_x=4; @a1=5; @a=6; @Z = 7; exit(); } printed
        // "\n\n@: 2\n@A: 3\n@Z: 7\n@_x: 4\n@a: 6\n@a1: 5\n@b: 1\n".
        let values = [("b", 1), ("", 2), ("A", 3), ("_x", 4), ("a1", 5)]
            .iter()
            .map(|(n, v)| ValueMap { name: n.to_string(), rows: vec![(vec![], Value::long(*v))] })
            .collect();
        let program = "BEGIN { @a = sum(6); @Z = sum(7); }";
        assert_eq!(finished(program, &[], &[Some(vec![6]), Some(vec![7])], values), "\n\n@: 2\n@A: 3\n@Z: 7\n@_x: 4\n@a: 6\n@a1: 5\n@b: 1\n");
    }

    #[test]
    fn with_no_maps_and_with_empty_ones() {
        // BEGIN { printf("x\n"); exit(); } printed "x\n\n\n" after the attaching line.
        assert_eq!(finished("BEGIN { printf(\"x\"); }", &[], &[], vec![]), "\n\n");
        // BEGIN { exit(); } tracepoint:sched:sched_switch { @c = count(); @h = hist(1);
        //   @s = stats(1); } printed "\n\n@c: 0\n\n\n\n".
        let program = "BEGIN { @c = count(); @h = quantize(1); @s = avg(1); }";
        assert_eq!(finished(program, &[2], &[None, None, None], vec![]), "\n\n@c: 0\n\n\n\n");
    }

    #[test]
    fn printf_and_print_of_a_value_as_they_come() {
        // BEGIN { print(5); print("hi"); printf("x"); print(-3); exit(); } printed
        // "5\nhi\nx-3\n" (then the two newlines of the exit).
        let p = crumbs_lang::compile("BEGIN { }", &Default::default()).unwrap();
        let x = crumbs_lang::printf::parse("x").unwrap();
        let outputs = vec![
            Output::Trace(Value::long(5)),
            Output::Trace(Value::Str("hi".into())),
            Output::Printf { pieces: &x, values: vec![] },
            Output::Trace(Value::long(-3)),
        ];
        let out = Shared::default();
        let mut sink = sink(&p, &out);
        sink.firing(&Firing { program: &p, cpu: 0, probe: 1, record: 0, meta: None, outputs, items: vec![] }).unwrap();
        sink.finish(&[], &Drops::default()).unwrap();
        assert_eq!(out.text(), "5\nhi\nx-3\n\n\n");
    }

    /// bpftrace -o F: F holds the output and the maps, standard output the two newlines.
    #[test]
    fn with_an_output_file_the_end_s_newlines_go_to_the_console() {
        let p = crumbs_lang::compile("BEGIN { @a = sum(1); }", &Default::default()).unwrap();
        let rows = vec![vec![AggRow { keys: vec![], data: AggData { kind: p.aggregations[0].kind.clone(), words: vec![1] } }]];
        let (file, console) = (Shared::default(), Shared::default());
        let mut sink = BpftraceText::new(Destination::writer(Box::new(file.clone())), &p).console(Destination::writer(Box::new(console.clone())));
        sink.finish(&rows, &Drops::default()).unwrap();
        assert_eq!((file.text(), console.text()), ("@a: 1\n".to_string(), "\n\n".to_string()));
    }

    #[test]
    fn print_with_top_and_div_now() {
        // BEGIN { @c[1]=count(); @c[2]=count() x2; @c[4]=count() x5; print(@c, 2, 2);
        //   @m[1] = 7; @m[2] = 3; print(@m, 1); } printed "@c[2]: 1\n@c[4]: 2\n@m[1]: 7\n".
        let p = crumbs_lang::compile("BEGIN { @c[1] = count(); }", &Default::default()).unwrap();
        let kind = p.aggregations[0].kind.clone();
        let row = |k: i64, n: u64| AggRow { keys: vec![Value::long(k)], data: AggData { kind: kind.clone(), words: vec![n] } };
        let m = ValueMap { name: "m".into(), rows: vec![(vec![Value::long(1)], Value::long(7)), (vec![Value::long(2)], Value::long(3))] };
        let mut out = Vec::new();
        {
            let mut sink = BpftraceText::new(Destination::writer(Box::new(&mut out)), &p);
            sink.print_aggregation(0, &[row(1, 1), row(4, 5), row(2, 2)], Limits { top: 2, div: 2 }).unwrap();
            sink.print_value_map(&m, Limits { top: 1, div: 0 }).unwrap();
            sink.flush().unwrap();
        }
        assert_eq!(String::from_utf8(out).unwrap(), "@c[2]: 1\n@c[4]: 2\n@m[1]: 7\n");
    }
}
