//! From the bytes clauses send through the ring buffer to [`Firing`]s: decoding each record
//! with its layout, and carrying out the actions that work on the kernel's aggregation
//! tables as they come (printa reads them, clear and trunc write them, normalize changes how
//! they read from then on). Printing is a sink's job.

use crate::aggregate::{self, Decoder};
use crate::output::{aggregation, AggRow, Firing, Output, Value};
use crate::stacks::Stacks;
use crate::table::Table;
use crumbs_ebpf::abi::record as wire;
use crumbs_lang::ir::{Item, Program};
use std::cell::OnceCell;
use std::io;
use std::os::fd::RawFd;

pub struct Events<'p> {
    program: &'p Program,
    /// File descriptors of the aggregation maps, by aggregation id.
    agg_fds: Vec<RawFd>,
    /// The aggregation maps mapped into memory, on first use.
    tables: Vec<OnceCell<Table>>,
    cpus: usize,
    stacks: Stacks,
    /// normalize()'s divisor per aggregation (1: as is).
    normal: Vec<i64>,
    /// Each record's argument offsets and size, computed once rather than per event.
    layouts: Vec<wire::Layout>,
}

/// A decoded record: the firing, and the status if it called `exit()`.
pub struct Decoded<'p> {
    pub firing: Firing<'p>,
    pub exit: Option<i32>,
}

impl<'p> Events<'p> {
    pub fn new(program: &'p Program, agg_fds: Vec<RawFd>, stacks: Stacks) -> Self {
        let normal = vec![1; program.aggregations.len()];
        let layouts = program.records.iter().map(wire::layout).collect();
        let tables = agg_fds.iter().map(|_| OnceCell::new()).collect();
        Events { program, agg_fds, tables, cpus: crate::kernel::cpus::possible(), stacks, normal, layouts }
    }

    fn table(&self, id: usize) -> io::Result<&Table> {
        if let Some(t) = self.tables[id].get() {
            return Ok(t);
        }
        let layout = crumbs_ebpf::abi::table::layout(self.program, id, self.cpus as u32);
        let t = Table::map(self.agg_fds[id], layout)?;
        Ok(self.tables[id].get_or_init(|| t))
    }

    fn decoder(&self) -> Decoder<'_> {
        Decoder { strings: &self.program.strings, stacks: &self.stacks }
    }

    /// An aggregation's rows as they print now (normalize() applied), unsorted.
    pub fn rows(&self, id: usize) -> io::Result<Vec<AggRow>> {
        let rows = aggregate::read(self.table(id)?, &self.program.aggregations[id], &self.decoder());
        Ok(aggregation::normalized(rows, self.normal[id]))
    }

    /// Every aggregation's rows, by id, for the end of tracing.
    pub fn all_rows(&self) -> io::Result<Vec<Vec<AggRow>>> {
        (0..self.program.aggregations.len()).map(|id| self.rows(id)).collect()
    }

    /// Decodes one record and carries out its actions; `None` for bytes that are no record
    /// of this program.
    pub fn record(&mut self, bytes: &[u8]) -> io::Result<Option<Decoded<'p>>> {
        if bytes.len() < wire::HEADER {
            return Ok(None);
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let (rid, probe, cpu) = (u32_at(0) as usize, u32_at(4), u32_at(8));
        let program = self.program;
        let (Some(rec), Some(layout)) = (program.records.get(rid), self.layouts.get(rid)) else { return Ok(None) };
        if bytes.len() < layout.size {
            return Ok(None);
        }
        let offsets = layout.offsets.clone();
        let (func, name) = program.probe_name(probe);
        let mut firing = Firing { cpu, probe, func, name, outputs: Vec::new() };
        let mut exit = None;
        for (item, offs) in rec.items.iter().zip(&offsets) {
            let values: Vec<Value> = item
                .arg_reprs()
                .iter()
                .zip(offs)
                .map(|(r, o)| aggregate::decode_value(*r, &bytes[*o..*o + r.size()], &self.decoder()))
                .collect();
            match item {
                Item::Printf { pieces, .. } => firing.outputs.push(Output::Printf { pieces, values }),
                Item::Trace(_) => firing.outputs.push(Output::Trace(values.into_iter().next().unwrap_or(Value::Int(0)))),
                Item::Printa { agg, format } => firing.outputs.push(Output::Printa { agg: *agg, rows: self.rows(*agg)?, format: format.as_deref() }),
                Item::Normalize { agg, by_arg } => {
                    let n = match (by_arg, values.first()) {
                        (true, Some(Value::Int(n))) => *n,
                        _ => 1,
                    };
                    // A divisor below 1 would make no sense (DTrace refuses it): keep the values.
                    self.normal[*agg] = n.max(1);
                }
                Item::Clear(agg) => aggregate::clear(self.table(*agg)?),
                Item::Trunc { agg, keep } => aggregate::trunc(self.table(*agg)?, &program.aggregations[*agg], &self.decoder(), *keep),
                Item::Exit => {
                    if let Some(Value::Int(v)) = values.first() {
                        exit = Some(*v as i32);
                    }
                }
            }
        }
        Ok(Some(Decoded { firing, exit }))
    }
}

#[cfg(test)]
mod tests {
    use crate::output::{self, Sink};
    use super::*;

    /// A record decodes to its firing whatever the sink: the text sink is one reader.
    #[test]
    fn firings_reach_the_text_sink() {
        let p = crumbs_lang::compile(r#"BEGIN { printf("%s-%d", "a", 7); trace(3); exit(4); }"#, &Default::default()).unwrap();
        let mut ev = Events::new(&p, Vec::new(), Stacks::new(None));
        let l = wire::layout(&p.records[0]);
        let mut bytes = vec![0u8; l.size];
        bytes[4..8].copy_from_slice(&1u32.to_le_bytes()); // BEGIN's probe id
        let id = p.strings.lookup("a").unwrap();
        for (off, v) in [(l.offsets[0][0], id), (l.offsets[0][1], 7), (l.offsets[1][0], 3), (l.offsets[2][0], 4)] {
            bytes[off..off + 8].copy_from_slice(&v.to_le_bytes());
        }
        let d = ev.record(&bytes).unwrap().unwrap();
        assert_eq!(d.exit, Some(4));
        assert_eq!((d.firing.func.as_str(), d.firing.name.as_str()), ("", "BEGIN"));
        let mut out = Vec::new();
        output::text::DtraceText::new(Box::new(&mut out), true, &p.options).firing(&d.firing).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "a-73");
    }
}
