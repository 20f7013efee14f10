//! DTrace's text output, byte for byte: the heading and per-firing prefix unless quiet,
//! each action's text, the aggregations at the end, losses on standard error.

use super::flow::{Flow, Step};
use super::destination::Destination;
use super::pcap::PcapFiles;
use super::{aggregation, joined, packed, printf, record, strerror, AggRow, Firing, Output, Sink, Stopped};
use crate::drops::Drops;
use crumbs_lang::ir::{Options, Program};
use crumbs_lang::printf::Piece;
use std::io::{self, Write};

pub struct DtraceText<'w> {
    out: Destination<'w>,
    quiet: bool,
    options: Options,
    header_done: bool,
    /// Whether aggpack draws buckets with Unicode blocks (else ASCII).
    unicode: bool,
    /// The name messages on standard error start with (`crumbs`, or `dtrace` for the
    /// drop-in).
    voice: &'static str,
    /// Flow indentation (dtrace's `-F`) instead of the CPU, ID, FUNCTION:NAME columns.
    flow: Option<Flow>,
    /// pcap()'s capture files.
    pcaps: PcapFiles,
    /// How errorf() and warnf() name the program.
    messages: super::message::Messages,
}

impl<'w> DtraceText<'w> {
    pub fn new(out: Destination<'w>, quiet: bool, options: &Options) -> Self {
        let unicode = packed::unicode_terminal(std::env::var("TERM").ok().as_deref());
        DtraceText { out, quiet, options: options.clone(), header_done: false, unicode, voice: "crumbs", flow: None, pcaps: PcapFiles::default(), messages: Default::default() }
    }

    /// How errorf()'s and warnf()'s messages name the program, and whether warnings print.
    pub fn messages(mut self, messages: super::message::Messages) -> Self {
        self.messages = messages;
        self
    }

    /// Messages on standard error start with `name:` instead of `crumbs:`.
    pub fn voice(mut self, name: &'static str) -> Self {
        self.voice = name;
        self
    }

    /// Firings are labelled by flow indentation (see [`super::flow`]).
    pub fn flowindent(mut self) -> Self {
        self.flow = Some(Flow::default());
        self
    }

    /// Prints a return the flow held back for the firing after it.
    fn write_drained(&mut self) -> io::Result<()> {
        match self.flow.as_mut().map(Flow::drained) {
            Some(text) if !text.is_empty() => self.out.write_all(text.as_bytes()),
            _ => Ok(()),
        }
    }

    /// One aggregation's rows in order, packed if aggpack asks for it and they are
    /// distributions.
    fn rows(&self, text: &mut String, rows: &[AggRow]) {
        if self.options.aggpack && rows.first().is_some_and(packed::packs) {
            return packed::print_rows(text, &aggregation::sort_rows_by(rows, self.order()), self.unicode);
        }
        aggregation::print_rows_in(text, rows, self.order());
    }

    fn order(&self) -> aggregation::Order {
        aggregation::Order::of(&self.options)
    }

    /// printa() of `aggs`: one in the default layout as at the end of tracing, else joined
    /// by key (one through a format too: its rows are its keys).
    fn printa(&self, text: &mut String, program: &Program, aggs: &[usize], rows: &[Vec<AggRow>], format: Option<&[Piece]>) {
        if let ([rows], None) = (rows, format) {
            if !rows.is_empty() {
                text.push('\n');
                self.rows(text, rows);
            }
            return;
        }
        if let ([rows], Some(pieces)) = (rows, format) {
            // One aggregation's keys are unique: its rows need no joining.
            for row in aggregation::sort_rows_by(rows, self.order()) {
                text.push_str(&printf::format(pieces, &joined::format_args(pieces, &row.keys, std::slice::from_ref(&row.data))));
            }
            return;
        }
        let kinds: Vec<_> = aggs.iter().map(|a| &program.aggregations[*a].kind).collect();
        let mut joined = joined::join(rows, aggs, &kinds);
        joined::sort(&mut joined, self.order());
        match format {
            None => joined::print(text, &joined),
            Some(pieces) => {
                for row in &joined {
                    text.push_str(&printf::format(pieces, &joined::format_args(pieces, &row.keys, &row.values)));
                }
            }
        }
    }
}

impl Sink for DtraceText<'_> {
    fn firing(&mut self, f: &Firing) -> io::Result<()> {
        let mut text = String::new();
        // A setopt("quiet") in this firing applies from the next one.
        let quiet = self.quiet;
        if self.flow.is_none() && !quiet {
            if !self.header_done {
                text.push_str(&record::header());
                self.header_done = true;
            }
            let (func, name) = f.probe_name();
            text.push_str(&record::prefix(f.cpu, f.probe, &func, &name));
        }
        for o in &f.outputs {
            match o {
                Output::Printf { pieces, values } => text.push_str(&printf::format(pieces, values)),
                Output::SetOpt { name, value } => {
                    // The checker took only options and values that apply.
                    let _ = crumbs_lang::check::apply_option(&mut self.options, name, *value);
                    if *name == "quiet" {
                        self.quiet = self.options.quiet;
                    }
                }
                Output::System { pieces, values } => {
                    // The command's output follows what came before it, as DTrace's does.
                    self.out.write_all(std::mem::take(&mut text).as_bytes())?;
                    self.out.flush()?;
                    run_command(&printf::format(pieces, values), self.voice);
                }
                Output::Freopen { pieces, values } => {
                    self.out.write_all(std::mem::take(&mut text).as_bytes())?;
                    let path = printf::format(pieces, values);
                    if let Err(e) = self.out.reopen(&path) {
                        self.out.flush()?;
                        eprintln!("{}: {}", self.voice, f.error(&format!("couldn't freopen() \"{path}\": {}", strerror(&e))));
                    }
                }
                // Into the capture file freopen() named; else shown as tracemem() shows bytes.
                Output::Pcap { time, linktype, bytes, snaplen } => match self.out.reopened_path() {
                    Some(path) => {
                        if let Err(e) = self.pcaps.write(path, *linktype, *time, bytes, *snaplen) {
                            eprintln!("{}: {}", self.voice, f.error(&format!("pcap() cannot write \"{path}\": {}", strerror(&e))));
                        }
                    }
                    None => text.push_str(&record::raw_bytes(bytes)),
                },
                Output::Cat { path, max } => {
                    self.out.write_all(std::mem::take(&mut text).as_bytes())?;
                    self.out.flush()?;
                    text.push_str(&super::cat::contents(path, *max, self.voice));
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
                Output::Trace(v) => text.push_str(&record::trace(v, quiet)),
                Output::Text { text: t, line, .. } => {
                    text.push_str(t);
                    if *line {
                        text.push('\n');
                    }
                }
                // bpftrace's print(@m): only its programs have it, which print through their
                // own sink; an aggregation prints here as printa() would.
                Output::PrintMap { map: super::PrintedMap::Aggregation(_, rows), .. } => self.rows(&mut text, rows),
                Output::PrintMap { .. } => {}
                Output::Print { layout, value } => text.push_str(&super::print::print(layout, value)),
                Output::Printa { aggs, rows, format } => self.printa(&mut text, f.program, aggs, rows, *format),
                Output::Tracemem(bytes) => text.push_str(&record::raw_bytes(bytes)),
            }
        }
        text.push_str(record::end_of_firing(quiet));
        if let Some(flow) = &mut self.flow {
            let (function, name) = f.probe_name();
            let syscall = crumbs_lang::providers::probe_by_id(f.probe).is_some_and(|p| p.provider == "syscall");
            text = flow.step(Step { cpu: f.cpu, probe: f.probe, record: f.record, syscall, function, name, body: text });
        }
        self.out.write_all(text.as_bytes())
    }

    /// On standard error, after what came before it on standard output.
    fn fault(&mut self, fault: &super::FaultReport) -> io::Result<()> {
        self.out.flush()?;
        eprintln!("{}: {}", self.voice, fault.message());
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_drained()?;
        self.pcaps.flush()?;
        self.out.flush()
    }

    fn stopped(&mut self, why: &Stopped) -> io::Result<()> {
        self.write_drained()?;
        match why {
            // DTrace ends the line the terminal's ^C is on, even when quiet.
            Stopped::Interrupted => self.out.write_all(record::on_interrupt().as_bytes()),
            Stopped::ProcessExited(pid) if !self.quiet => {
                eprintln!("{}: pid {pid} has exited", self.voice);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A newline, then every aggregation; then, on standard error, what was lost.
    fn finish(&mut self, aggregations: &[Vec<AggRow>], drops: &Drops) -> io::Result<()> {
        self.write_drained()?;
        let mut text = record::end_of_tracing().to_string();
        for rows in aggregations {
            self.rows(&mut text, rows);
        }
        self.out.write_all(text.as_bytes())?;
        self.out.flush()?;
        self.pcaps.flush()?;
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

/// system(): runs `command` with /bin/sh, its output on crumbs' own standard output and
/// error, and waits for it; a command that cannot start is reported on standard error.
pub(super) fn run_command(command: &str, voice: &str) {
    if let Err(e) = std::process::Command::new("/bin/sh").arg("-c").arg(command).status() {
        eprintln!("{voice}: system(\"{command}\") failed: {e}");
    }
}
