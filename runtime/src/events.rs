//! From the bytes clauses send through the ring buffer to [`Firing`]s: decoding each record
//! with its layout, and carrying out the actions on aggregations as they come (see
//! [`crate::actions`]). Printing is a sink's job.

use crate::actions::Aggregations;
use crate::aggregate;
use crate::output::{AggRow, FaultReport, Firing, Output, PrintedMap, Value};
use crumbs_ebpf::abi::record as wire;
use crumbs_lang::ir::{Item, MapRef, Program, Repr};
use crumbs_lang::printf;
use std::collections::HashMap;
use std::io;

/// skboutput()'s capture files: raw IP (libpcap's LINKTYPE_RAW), as bpftrace's, whose
/// snapshot length is 65535.
const LINKTYPE_RAW: i64 = 101;
const SKB_SNAPLEN: u32 = 65535;

pub struct Events<'p> {
    program: &'p Program,
    pub aggregations: Aggregations<'p>,
    /// Each record's argument offsets and size, computed once rather than per event.
    layouts: Vec<wire::Layout>,
    /// Aggregations `printa()` has printed rows of, by id: DTrace does not print them again
    /// at the end (dt_consume.c's DTRACE_AGD_PRINTED).
    printed: Vec<bool>,
    /// What each speculation in use holds, until it is committed or discarded.
    speculations: HashMap<u64, Held<'p>>,
    /// The tag each speculation id was last committed or discarded with: a record tagged
    /// with it arrives after that end (its speculate() ran before the kernel freed the
    /// speculation) and is dropped, as DTrace drops what is speculated into a speculation
    /// being committed.
    ended: HashMap<u64, u64>,
    /// Speculative records dropped because their speculation held `specsize` bytes.
    pub speculative_drops: u64,
    /// bpftrace's maps of values.
    pub values: crate::value_maps::ValueMaps,
    /// Records carry the firing's metadata (the program was compiled for it).
    meta: bool,
    /// bpftrace's skboutput() capture files, by name.
    skb_pcaps: crate::output::pcap::PcapFiles,
}

/// A speculation's records, in order, and their bytes.
#[derive(Default)]
struct Held<'p> {
    firings: Vec<Firing<'p>>,
    bytes: usize,
}

/// A decoded record: the firing, the status if it called `exit()`, and the firings of the
/// speculations it committed (printed after it, in the order they fired).
pub struct Decoded<'p> {
    pub firing: Firing<'p>,
    pub exit: Option<i32>,
    pub committed: Vec<Firing<'p>>,
}

/// What one record of the event buffer is.
pub enum Event<'p> {
    Firing(Decoded<'p>),
    Fault(FaultReport<'p>),
    /// A speculative record, held until its speculation is committed or discarded.
    Held,
}

impl<'p> Events<'p> {
    pub fn new(program: &'p Program, aggregations: Aggregations<'p>) -> Self {
        let layouts = program.records.iter().map(wire::layout).collect();
        Events { program, aggregations, layouts, printed: vec![false; program.aggregations.len()], speculations: HashMap::new(), ended: Default::default(), speculative_drops: 0, values: Default::default(), meta: false, skb_pcaps: Default::default() }
    }

    /// The records carry metadata (timestamp, pid, tid: see [`wire::META`]), as the code
    /// was compiled to send.
    pub fn with_meta(mut self, meta: bool) -> Self {
        if meta != self.meta {
            self.layouts = self.program.records.iter().map(|r| wire::layout_with(r, meta)).collect();
            self.meta = meta;
        }
        self
    }

    /// The rows the end of tracing prints, by aggregation id: every aggregation's, except
    /// that one `printa()` printed is empty.
    pub fn rows_at_exit(&self) -> io::Result<Vec<Vec<AggRow>>> {
        let mut all = self.aggregations.all_rows()?;
        for (rows, printed) in all.iter_mut().zip(&self.printed) {
            if *printed {
                rows.clear();
            }
        }
        Ok(all)
    }

    /// Decodes one record (a firing, whose actions it carries out, or a fault report);
    /// `None` for bytes that are neither.
    pub fn event(&mut self, bytes: &[u8]) -> io::Result<Option<Event<'p>>> {
        if let Some(report) = wire::fault_report(bytes) {
            return Ok(Some(Event::Fault(FaultReport { program: self.program, report })));
        }
        let speculation = match bytes.get(12..16) {
            Some(w) => u32::from_le_bytes(w.try_into().unwrap()),
            None => return Ok(None),
        };
        let Some(d) = self.record(bytes)? else { return Ok(None) };
        if speculation == 0 {
            return Ok(Some(Event::Firing(d)));
        }
        if self.ended.get(&spec_id(speculation as u64)) == Some(&(speculation as u64)) {
            self.speculative_drops += 1;
            return Ok(Some(Event::Held));
        }
        let held = self.speculations.entry(speculation as u64).or_default();
        if (held.bytes + bytes.len()) as u64 > self.program.options.specsize() {
            self.speculative_drops += 1;
        } else {
            held.bytes += bytes.len();
            held.firings.push(d.firing);
        }
        Ok(Some(Event::Held))
    }

    /// Decodes one firing's record and carries out its actions; `None` for bytes that are
    /// no record of this program.
    pub fn record(&mut self, bytes: &[u8]) -> io::Result<Option<Decoded<'p>>> {
        if bytes.len() < wire::HEADER {
            return Ok(None);
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let (rid, probe, cpu) = (u32_at(0) as usize, u32_at(4), u32_at(8));
        let self_meta = self.meta;
        let meta = if self_meta { wire::meta(bytes) } else { None };
        let Events { program, aggregations, layouts, printed, speculations, ended, values: value_maps, skb_pcaps, .. } = self;
        let program: &'p Program = program;
        let (Some(rec), Some(layout)) = (program.records.get(rid), layouts.get(rid)) else { return Ok(None) };
        if bytes.len() < layout.size {
            return Ok(None);
        }
        let mut firing = Firing { program, cpu, probe, record: rid as u32, meta, outputs: Vec::with_capacity(rec.items.len()), items: Vec::new() };
        let mut exit = None;
        let mut committed = Vec::new();
        for (i, (item, offs)) in rec.items.iter().zip(&layout.offsets).enumerate() {
            // An item inside an `if` the firing did not take.
            if layout.present.is_some_and(|p| bytes[p + i] == 0) {
                continue;
            }
            let before = firing.outputs.len();
            let values: Vec<Value> = item
                .arg_reprs()
                .iter()
                .zip(offs)
                .map(|(r, o)| aggregate::decode_value(*r, &bytes[*o..*o + r.size()], &aggregations.decoder()))
                .collect();
            match item {
                Item::Printf { pieces, .. } => {
                    let values = aggregations.stacks.symbolize(printf::conversions(pieces), values);
                    firing.outputs.push(Output::Printf { pieces, values })
                }
                Item::SetOpt { name, value } => firing.outputs.push(Output::SetOpt { name, value: value.as_deref() }),
                Item::System { pieces, .. } => {
                    let values = aggregations.stacks.symbolize(printf::conversions(pieces), values);
                    firing.outputs.push(Output::System { pieces, values })
                }
                Item::Freopen { pieces, .. } => {
                    let values = aggregations.stacks.symbolize(printf::conversions(pieces), values);
                    firing.outputs.push(Output::Freopen { pieces, values })
                }
                Item::Ftruncate => firing.outputs.push(Output::Ftruncate),
                Item::Cat { pieces, max, .. } => {
                    let values = aggregations.stacks.symbolize(printf::conversions(pieces), values);
                    firing.outputs.push(Output::Cat { path: crate::output::printf::format(pieces, &values), max: *max });
                }
                Item::Message { error, pieces, at, .. } => {
                    let values = aggregations.stacks.symbolize(printf::conversions(pieces), values);
                    firing.outputs.push(Output::Message { error: *error, text: crate::output::printf::format(pieces, &values), at });
                }
                Item::Time(format) => firing.outputs.push(Output::Text { record: "time", text: crate::output::local_time::now(format), line: false }),
                Item::Join { sep, count, .. } => {
                    let bytes = match values.first() {
                        Some(Value::Bytes(b)) => b.as_slice(),
                        _ => &[],
                    };
                    firing.outputs.push(Output::Text { record: "join", text: crate::output::join::joined(bytes, *count as usize, sep), line: true });
                }
                Item::ClearArray(id) => value_maps.clear(program, *id)?,
                Item::ZeroArray(id) => value_maps.zero(program, *id)?,
                Item::PrintMap { map, top, div } => {
                    let map = match map {
                        MapRef::Aggregation(id) => PrintedMap::Aggregation(*id, aggregations.rows(*id)?),
                        MapRef::Array(id) => PrintedMap::Values(value_maps.read_array(program, *id, &aggregations.decoder())?),
                    };
                    firing.outputs.push(Output::PrintMap { map, top: *top, div: *div });
                }
                Item::Pcap { size } => {
                    let int = |i: usize| match values.get(i) {
                        Some(Value::Int(v, _)) => *v,
                        _ => 0,
                    };
                    let (time, len, linktype) = (int(0) as u64, int(1) as usize, int(2));
                    // A NULL sk_buff captured nothing: nothing to show.
                    if let (Some(Value::Bytes(b)), 1..) = (values.get(3), len) {
                        let bytes = b[..len.min(b.len())].to_vec();
                        firing.outputs.push(Output::Pcap { time, linktype, bytes, snaplen: *size });
                    }
                }
                Item::SkbOutput { path, offset, .. } => {
                    let int = |i: usize| match values.get(i) {
                        Some(Value::Int(v, _)) => *v as u64,
                        _ => 0,
                    };
                    let (time, len) = (int(0), int(1) as usize);
                    if let Some(Value::Bytes(b)) = values.get(2) {
                        let packet = &b[..len.min(b.len())];
                        // bpftrace's: a packet no longer than the offset is not written.
                        if let Some(rest) = packet.get(*offset as usize..).filter(|r| !r.is_empty()) {
                            skb_pcaps.write(path, LINKTYPE_RAW, time, rest, SKB_SNAPLEN).and_then(|_| skb_pcaps.flush()).map_err(|e| io::Error::new(e.kind(), format!("skboutput() cannot write \"{path}\": {e}")))?;
                        }
                    }
                }
                Item::Print(_, layout) => firing.outputs.push(Output::Print { layout, value: values.into_iter().next().unwrap_or(Value::long(0)) }),
                // rawbytes: what is not an integer prints as the bytes recorded, as tracemem().
                Item::Trace(r @ (Repr::Str(_) | Repr::Object(_))) if program.options.rawbytes => {
                    let at = offs[0];
                    firing.outputs.push(Output::Tracemem(bytes[at..at + r.size()].to_vec()));
                }
                Item::Trace(_) => firing.outputs.push(Output::Trace(values.into_iter().next().unwrap_or(Value::long(0)))),
                Item::Printa { aggs, format } => {
                    let mut rows = aggs.iter().map(|a| aggregations.rows(*a)).collect::<io::Result<Vec<_>>>()?;
                    if let Some(f) = format {
                        let keys: Vec<&printf::Conv> = printf::conversions(f).filter(|c| !c.is_agg_value()).collect();
                        for row in rows.iter_mut().flatten() {
                            row.keys = aggregations.stacks.symbolize(keys.iter().copied(), std::mem::take(&mut row.keys));
                        }
                    }
                    // As DTrace marks them: when a row is printed, not when printa() runs.
                    if rows.iter().any(|r| !r.is_empty()) {
                        aggs.iter().for_each(|a| printed[*a] = true);
                    }
                    firing.outputs.push(Output::Printa { aggs, rows, format: format.as_deref() });
                }
                Item::Normalize { agg, by_arg } => {
                    let n = match (by_arg, values.first()) {
                        (true, Some(Value::Int(n, _))) => *n,
                        _ => 1,
                    };
                    aggregations.normalize(*agg, n);
                }
                Item::Clear(agg) => {
                    aggregations.clear(*agg)?;
                    program.aggregations[*agg].read.iter().try_for_each(|a| value_maps.zero(program, *a))?;
                }
                Item::Trunc { agg, keep } => {
                    aggregations.trunc(*agg, *keep)?;
                    // The read values keep the keys the table keeps.
                    let held = if keep.is_some() { aggregations.keys(*agg)? } else { Default::default() };
                    program.aggregations[*agg].read.iter().try_for_each(|a| value_maps.retain(program, *a, |k| held.contains(k)))?;
                }
                Item::Tracemem { .. } => {
                    let mut bytes = match values.first() {
                        Some(Value::Bytes(b)) => b.clone(),
                        _ => Vec::new(),
                    };
                    // Only dsize bytes, if it is given, less and not negative.
                    if let Some(Value::Int(n, _)) = values.get(1) {
                        if *n >= 0 {
                            bytes.truncate(*n as usize);
                        }
                    }
                    firing.outputs.push(Output::Tracemem(bytes));
                }
                Item::Exit => {
                    if let Some(Value::Int(v, _)) = values.first() {
                        exit = Some(*v as i32);
                    }
                }
                Item::Commit | Item::Discard => {
                    if let Some(Value::Int(id, _)) = values.first() {
                        let held = speculations.remove(&(*id as u64)).unwrap_or_default();
                        ended.insert(spec_id(*id as u64), *id as u64);
                        if matches!(item, Item::Commit) {
                            committed.extend(held.firings);
                        }
                    }
                }
            }
            if self_meta && firing.outputs.len() > before {
                firing.items.push(i as u32);
            }
        }
        Ok(Some(Decoded { firing, exit, committed }))
    }
}

/// The speculation id in a tag (`id | generation << 5`, emit/speculation.rs).
fn spec_id(tag: u64) -> u64 {
    tag & 31
}

#[cfg(test)]
mod tests {
    use crate::output::{self, Sink};
    use super::*;

    /// A record decodes to its firing whatever the sink: the text sink is one reader.
    #[test]
    fn firings_reach_the_text_sink() {
        let p = crumbs_lang::compile(r#"BEGIN { printf("%s-%d", "a", 7); trace(3); exit(4); }"#, &Default::default()).unwrap();
        let mut ev = Events::new(&p, Aggregations::new(&p, Vec::new(), crate::stacks::Stacks::new(None)));
        let l = wire::layout(&p.records[0]);
        let mut bytes = vec![0u8; l.size];
        bytes[4..8].copy_from_slice(&1u32.to_le_bytes()); // BEGIN's probe id
        let id = p.strings.lookup("a").unwrap();
        for (off, v) in [(l.offsets[0][0], id), (l.offsets[0][1], 7), (l.offsets[1][0], 3), (l.offsets[2][0], 4)] {
            bytes[off..off + 8].copy_from_slice(&v.to_le_bytes());
        }
        let d = ev.record(&bytes).unwrap().unwrap();
        assert_eq!(d.exit, Some(4));
        assert_eq!(d.firing.probe_name(), (String::new(), "BEGIN".to_string()));
        let mut out = Vec::new();
        output::text::DtraceText::new(output::destination::Destination::writer(Box::new(&mut out)), true, &p.options).firing(&d.firing).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "a-73");
    }

    /// Records arrive tagged `id | generation << 5`: a commit prints the ones of its tag,
    /// leaves another generation's held, and drops a record of its tag arriving after it.
    #[test]
    fn a_commit_takes_its_generation_and_drops_what_comes_after() {
        let p = crumbs_lang::compile(r#"BEGIN { speculate(1); trace(5); } BEGIN { commit(1); }"#, &Default::default()).unwrap();
        let mut ev = Events::new(&p, Aggregations::new(&p, Vec::new(), crate::stacks::Stacks::new(None)));
        let record = |rid: usize, tag: u32, value: i64| {
            let l = wire::layout(&p.records[rid]);
            let mut bytes = vec![0u8; l.size];
            bytes[0..4].copy_from_slice(&(rid as u32).to_le_bytes());
            bytes[4..8].copy_from_slice(&1u32.to_le_bytes());
            bytes[12..16].copy_from_slice(&tag.to_le_bytes());
            bytes[l.offsets[0][0]..l.offsets[0][0] + 8].copy_from_slice(&value.to_le_bytes());
            bytes
        };
        let (g1, g2) = (1 | 7 << 5, 1 | 8 << 5);
        for (tag, v) in [(g1, 10), (g2, 20)] {
            assert!(matches!(ev.event(&record(0, tag, v)).unwrap(), Some(Event::Held)));
        }
        let Some(Event::Firing(d)) = ev.event(&record(1, 0, g1 as i64)).unwrap() else { panic!("the commit is a firing") };
        assert_eq!(d.committed.len(), 1);
        assert_eq!(d.committed[0].outputs, [Output::Trace(Value::Int(10, crumbs_lang::ir::IntRepr::I32))]);
        // Late for the commit: dropped, counted.
        assert!(matches!(ev.event(&record(0, g1, 30)).unwrap(), Some(Event::Held)));
        assert_eq!(ev.speculative_drops, 1);
        let Some(Event::Firing(d)) = ev.event(&record(1, 0, g2 as i64)).unwrap() else { panic!("the commit is a firing") };
        assert_eq!(d.committed[0].outputs, [Output::Trace(Value::Int(20, crumbs_lang::ir::IntRepr::I32))]);
    }
}
