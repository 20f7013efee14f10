//! Decoding the records clauses send through the ring buffer, and printing them as DTrace
//! does (header, per-firing prefix unless quiet, each item's output, printa, exit).

use crate::aggregate::{self, Decoder};
use crate::drops::Drops;
use crate::stacks::Stacks;
use crate::table::Table;
use crate::output::{self, aggregation, printf, record, Value};
use crumbs_ebpf::abi::record as wire;
use crumbs_lang::ir::{Item, Program};
use std::cell::OnceCell;
use std::io::{self, Write};
use std::os::fd::RawFd;

/// printf arguments for one aggregation row under a printa format: `%@` conversions take
/// the value (a distribution prints as its table), the others take the keys in order.
fn printa_args(pieces: &[crumbs_lang::printf::Piece], row: &output::AggRow) -> Vec<Value> {
    let mut keys = row.keys.iter();
    crumbs_lang::printf::conversions(pieces)
        .map(|c| if c.is_agg_value() { aggregation::value_of(&row.data) } else { keys.next().cloned().unwrap_or(Value::Int(0)) })
        .collect()
}

pub struct Printer<'a> {
    pub program: &'a Program,
    pub quiet: bool,
    pub out: Box<dyn Write + 'a>,
    /// File descriptors of the aggregation maps, by aggregation id.
    pub agg_fds: Vec<RawFd>,
    /// The aggregation maps mapped into memory, on first use.
    tables: Vec<OnceCell<Table>>,
    pub cpus: usize,
    pub stacks: Stacks,
    /// normalize()'s divisor per aggregation (1: as is).
    normal: Vec<i64>,
    /// Each record's argument offsets and size, computed once rather than per event.
    layouts: std::rc::Rc<[wire::Layout]>,
    header_done: bool,
}

impl<'a> Printer<'a> {
    pub fn new(program: &'a Program, quiet: bool, out: Box<dyn Write + 'a>, agg_fds: Vec<RawFd>, stacks: Stacks) -> Self {
        let normal = vec![1; program.aggregations.len()];
        let layouts = program.records.iter().map(wire::layout).collect();
        let tables = agg_fds.iter().map(|_| OnceCell::new()).collect();
        Printer { program, quiet, out, agg_fds, tables, cpus: crate::kernel::cpus::possible(), stacks, normal, layouts, header_done: false }
    }

    fn table(&self, id: usize) -> io::Result<&Table> {
        if let Some(t) = self.tables[id].get() {
            return Ok(t);
        }
        let layout = crumbs_ebpf::abi::table::layout(self.program, id, self.cpus as u32);
        let t = Table::map(self.agg_fds[id], layout)?;
        Ok(self.tables[id].get_or_init(|| t))
    }

    fn order(&self) -> aggregation::Order {
        aggregation::Order { by_key: self.program.options.aggsortkey, reverse: self.program.options.aggsortrev }
    }

    /// An aggregation's rows as they print now (normalize() applied), unsorted.
    fn rows(&self, id: usize) -> io::Result<Vec<output::AggRow>> {
        let rows = aggregate::read(self.table(id)?, &self.program.aggregations[id], &self.decoder());
        Ok(aggregation::normalized(rows, self.normal[id]))
    }

    fn decoder(&self) -> Decoder<'_> {
        Decoder { strings: &self.program.strings, stacks: &self.stacks }
    }

    /// Prints one record; returns the status if it holds an `exit()`.
    pub fn record(&mut self, bytes: &[u8]) -> io::Result<Option<i32>> {
        if bytes.len() < wire::HEADER {
            return Ok(None);
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let (rid, probe, cpu) = (u32_at(0) as usize, u32_at(4), u32_at(8));
        let program = self.program;
        let layouts = std::rc::Rc::clone(&self.layouts);
        let (Some(rec), Some(wire::Layout { offsets, size })) = (program.records.get(rid), layouts.get(rid)) else { return Ok(None) };
        if bytes.len() < *size {
            return Ok(None);
        }
        let mut text = String::new();
        if !self.quiet {
            if !self.header_done {
                text.push_str(&record::header());
                self.header_done = true;
            }
            let (func, name) = self.program.probe_name(probe);
            text.push_str(&record::prefix(cpu, probe, &func, &name));
        }
        let mut exit = None;
        for (item, offs) in rec.items.iter().zip(offsets) {
            let values: Vec<Value> = item
                .arg_reprs()
                .iter()
                .zip(offs)
                .map(|(r, o)| aggregate::decode_value(*r, &bytes[*o..*o + r.size()], &self.decoder()))
                .collect();
            match item {
                Item::Printf { pieces, .. } => text.push_str(&printf::format(pieces, &values)),
                Item::Trace(_) => text.push_str(&record::trace(&values[0], self.quiet)),
                Item::Printa { agg, format: None } => {
                    self.out.write_all(text.as_bytes())?;
                    text.clear();
                    self.print_aggregation(*agg, true)?;
                }
                Item::Printa { agg, format: Some(pieces) } => {
                    let rows = self.rows(*agg)?;
                    for row in aggregation::sort_rows_by(&rows, self.order()) {
                        text.push_str(&printf::format(pieces, &printa_args(pieces, row)));
                    }
                }
                Item::Normalize { agg, by_arg } => {
                    let n = match (by_arg, values.first()) {
                        (true, Some(Value::Int(n))) => *n,
                        _ => 1,
                    };
                    // A divisor below 1 would make no sense (DTrace refuses it): keep the values.
                    self.normal[*agg] = n.max(1);
                }
                Item::Clear(agg) => aggregate::clear(self.table(*agg)?),
                Item::Trunc { agg, keep } => aggregate::trunc(self.table(*agg)?, &self.program.aggregations[*agg], &self.decoder(), *keep),
                Item::Exit => {
                    if let Value::Int(v) = values[0] {
                        exit = Some(v as i32);
                    }
                }
            }
        }
        text.push_str(record::end_of_firing(self.quiet));
        self.out.write_all(text.as_bytes())?;
        Ok(exit)
    }

    /// Prints one aggregation in DTrace's default layout (`lead`: with its blank line).
    pub fn print_aggregation(&mut self, id: usize, lead: bool) -> io::Result<()> {
        let rows = self.rows(id)?;
        let mut s = String::new();
        if lead {
            aggregation::print_aggregation_in(&mut s, &rows, self.order());
        } else {
            aggregation::print_rows_in(&mut s, &rows, self.order());
        }
        self.out.write_all(s.as_bytes())
    }

    /// What DTrace prints when tracing stops: a newline, then every aggregation; then, on
    /// standard error, what was lost.
    pub fn finish(&mut self, drops: &Drops) -> io::Result<()> {
        self.out.write_all(output::record::end_of_tracing().as_bytes())?;
        for id in 0..self.program.aggregations.len() {
            self.print_aggregation(id, false)?;
        }
        self.out.flush()?;
        for line in drops.messages(&self.program.options) {
            eprintln!("crumbs: {line}");
        }
        Ok(())
    }
}
