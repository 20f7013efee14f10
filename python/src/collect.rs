//! The sink of a Python session: each firing becomes an owned [`Record`] (its values, and
//! each action's text as the program's text output would print it, quiet), sent on to the
//! thread that hands it to Python; the aggregations at the end likewise.

use crate::tracing::{Aggregation, Msg, Record, Stop};
use crumbs_lang::dialect::Dialect;
use crumbs_lang::ir::Program;
use crumbs_runtime::drops::Drops;
use crumbs_runtime::output::aggregation::{sort_rows_by, Order};
use crumbs_runtime::output::bpftrace::BpftraceText;
use crumbs_runtime::output::destination::{Destination, SharedBytes};
use crumbs_runtime::output::text::DtraceText;
use crumbs_runtime::value_maps::ValueMap;
use crumbs_runtime::output::{AggRow, FaultReport, Firing, Output, Sink, Stopped, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::rc::Rc;
use std::sync::mpsc::Sender;

pub struct Collect<'p> {
    program: &'p Program,
    tx: Sender<Msg>,
    /// The program's text output, writing into `written`: each action's text comes from it.
    text: Box<dyn Sink + 'p>,
    written: Rc<RefCell<Vec<u8>>>,
    /// bpftrace's maps of values, read as tracing ended (before the aggregations).
    maps: Vec<ValueMap>,
    /// The rows printa() last printed of each aggregation, by id: DTrace does not print
    /// those again at the end (their rows come empty to `finish`), the Result keeps these.
    printed: HashMap<usize, Vec<AggRow>>,
}


impl<'p> Collect<'p> {
    pub fn new(program: &'p Program, tx: Sender<Msg>) -> Collect<'p> {
        let written = Rc::new(RefCell::new(Vec::new()));
        let out = Destination::writer(Box::new(SharedBytes(written.clone())));
        let text: Box<dyn Sink + 'p> = match program.dialect {
            Dialect::Bpftrace => Box::new(BpftraceText::new(out, program)),
            Dialect::D => Box::new(DtraceText::new(out, true, &program.options)),
        };
        Collect { program, tx, text, written, maps: Vec::new(), printed: HashMap::new() }
    }

    fn send(&self, msg: Msg) -> io::Result<()> {
        // Python stopped listening (the session object is gone): end the session.
        self.tx.send(msg).map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "nobody reads the trace any more"))
    }

    /// The text one action of `f` prints.
    fn action_text(&mut self, f: &Firing, o: &Output) -> io::Result<String> {
        let one = Firing { program: f.program, cpu: f.cpu, probe: f.probe, record: f.record, meta: f.meta, outputs: vec![o.clone()], items: Vec::new() };
        self.text.firing(&one)?;
        self.text.flush()?;
        let bytes = std::mem::take(&mut *self.written.borrow_mut());
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

impl Sink for Collect<'_> {
    fn firing(&mut self, f: &Firing) -> io::Result<()> {
        let mut values = Vec::new();
        let mut actions = Vec::new();
        for o in &f.outputs {
            // Marked as the session marks them: all of a printa()'s once it printed a row.
            if let Output::Printa { aggs, rows, .. } = o {
                if rows.iter().any(|r| !r.is_empty()) {
                    self.printed.extend(aggs.iter().copied().zip(rows.iter().cloned()));
                }
            }
            values.extend(output_values(o));
            let text = self.action_text(f, o)?;
            if let Some(code) = action_code(o) {
                actions.push((code, text));
            }
        }
        let (function, name) = f.probe_name();
        // Compiled with record_meta, every record carries its time and thread.
        let (ts, pid, tid, comm) = f.meta.map_or((0, 0, 0, String::new()), |m| (m.ts, m.pid, m.tid, m.comm()));
        self.send(Msg::Record(Record { probe: self.program.probe_description(f.probe), function, name, cpu: f.cpu, ts, pid, tid, comm, values, actions }))
    }

    fn fault(&mut self, fault: &FaultReport) -> io::Result<()> {
        self.send(Msg::Message(fault.message()))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn stopped(&mut self, why: &Stopped) -> io::Result<()> {
        self.send(Msg::Stopped(match why {
            Stopped::Exit(s) => Stop::Exit(*s),
            Stopped::Interrupted => Stop::Interrupted,
            Stopped::ProcessExited(pid) => Stop::ProcessExited(*pid),
        }))
    }

    /// The aggregations, each in the order the text output prints it (the aggsort options).
    fn finish(&mut self, aggregations: &[Vec<AggRow>], drops: &Drops) -> io::Result<()> {
        let order = Order::of(&self.program.options);
        let aggregations = aggregations
            .iter()
            .enumerate()
            .map(|(i, rows)| {
                let a = &self.program.aggregations[i];
                let rows = match self.printed.get(&i) {
                    Some(printed) if rows.is_empty() => printed,
                    _ => rows,
                };
                Aggregation { name: format!("@{}", a.name), function: a.kind.name(), rows: sort_rows_by(rows, order).into_iter().cloned().collect() }
            })
            .collect();
        let maps = std::mem::take(&mut self.maps);
        self.send(Msg::Finished { aggregations, maps, drops: drops.messages(&self.program.options) })
    }

    fn value_maps(&mut self, maps: Vec<ValueMap>) -> io::Result<()> {
        self.maps = maps;
        Ok(())
    }

    fn notice(&mut self, line: &str) -> io::Result<()> {
        self.send(Msg::Message(line.to_string()))
    }

    fn attached(&mut self) -> io::Result<()> {
        self.send(Msg::Attached)
    }
}

/// The values an action output: trace()'s, printf()'s arguments, print()'s, the bytes of
/// tracemem(), the text of bpftrace's time() and friends.
fn output_values(o: &Output) -> Vec<Value> {
    match o {
        Output::Printf { values, .. } => values.clone(),
        Output::Trace(v) | Output::Print { value: v, .. } => vec![v.clone()],
        Output::Tracemem(bytes) => vec![Value::Bytes(bytes.clone())],
        Output::Text { text, .. } => vec![Value::Str(text.clone())],
        _ => Vec::new(),
    }
}

/// DTrace's action code (`DTRACEACT_*`, as python-dtrace's chewrec gets it) for an action that
/// makes a record; None for what is no action of DTrace's (setopt(), bpftrace's messages).
fn action_code(o: &Output) -> Option<u16> {
    const DIFEXPR: u16 = 1;
    const PRINTF: u16 = 3;
    const PRINTA: u16 = 4;
    const TRACEMEM: u16 = 6;
    const SYSTEM: u16 = 0x0203;
    const FREOPEN: u16 = 0x0204;
    const LIBACT: u16 = 5;
    match o {
        Output::Printf { .. } | Output::Text { .. } | Output::Cat { .. } => Some(PRINTF),
        Output::Trace(_) | Output::Print { .. } => Some(DIFEXPR),
        Output::Printa { .. } | Output::PrintMap { .. } => Some(PRINTA),
        Output::Tracemem(_) => Some(TRACEMEM),
        Output::System { .. } => Some(SYSTEM),
        Output::Freopen { .. } => Some(FREOPEN),
        Output::Ftruncate => Some(LIBACT),
        Output::Pcap { .. } | Output::SetOpt { .. } | Output::Message { .. } => None,
    }
}
