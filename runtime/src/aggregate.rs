//! Reading aggregations out of their per-CPU tables and merging the CPUs (and any copies of
//! a key that `trunc()` left on one CPU).

use crate::output::{AggData, AggRow, Value};
use crate::stacks::Stacks;
use crate::table::Table;
use crumbs_lang::ir::{AggKind, Aggregation, Repr, Strings};
use std::collections::HashMap;

/// What decoding needs besides the bytes: interned strings and recorded stacks.
pub struct Decoder<'a> {
    pub strings: &'a Strings,
    pub stacks: &'a Stacks,
    /// The program, for bpftrace's `probe` (a probe id named as bpftrace names it).
    pub program: Option<&'a crumbs_lang::ir::Program>,
}

/// Every row of one aggregation, CPUs merged (unsorted).
pub fn read(t: &Table, def: &Aggregation, dec: &Decoder) -> Vec<AggRow> {
    read_raw(t, def, dec).into_iter().map(|(_, row)| row).collect()
}

/// `clear()`: every value to zero, keys kept (a min/max with no value is not printed).
pub fn clear(t: &Table) {
    for (slot, _, _) in t.entries() {
        t.zero_value(slot);
    }
}

/// `trunc()`: remove every key, or all but `keep` rows from the largest (`keep` > 0) or the
/// smallest (`keep` < 0) end of the print order.
pub fn trunc(t: &Table, def: &Aggregation, dec: &Decoder, keep: Option<i64>) {
    let Some(keep) = keep else {
        for (slot, _, _) in t.entries() {
            t.free(slot);
        }
        return;
    };
    let rows = read_raw(t, def, dec);
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|a, b| crate::output::aggregation::compare_rows(&rows[*a].1, &rows[*b].1));
    let n = order.len();
    let kept = if keep >= 0 { n.saturating_sub(keep as usize)..n } else { 0..(keep.unsigned_abs() as usize).min(n) };
    for (pos, i) in order.into_iter().enumerate() {
        if !kept.contains(&pos) {
            for slot in &rows[i].0 {
                t.free(*slot);
            }
        }
    }
}

/// The slots holding one key, and their values.
#[derive(Default)]
struct Copies {
    slots: Vec<usize>,
    values: Vec<Vec<u8>>,
}

/// Every row with the slots that hold its key. Keys that print the same are one row (DTrace
/// records `stack(n)` as n frames and aggregates `func()` keys by function): their values
/// merge as the CPUs' do.
fn read_raw(t: &Table, def: &Aggregation, dec: &Decoder) -> Vec<(Vec<usize>, AggRow)> {
    let mut by_key: HashMap<Vec<u8>, Copies> = HashMap::new();
    for (slot, key, value) in t.entries() {
        let e = by_key.entry(key).or_default();
        e.slots.push(slot);
        e.values.push(value);
    }
    // Stacks and symbols can print alike from different bytes (stack(n) of two deeper
    // stacks, func() of two offsets): their rows merge. Other keys decode one to one.
    let merges = def.keys.iter().any(|r| r.printed_only());
    let mut by_value: HashMap<Vec<Value>, Copies> = HashMap::new();
    let mut rows: Vec<(Vec<Value>, Copies)> = Vec::new();
    for (key, c) in by_key {
        let keys = decode_keys(&key, &def.keys, dec);
        if !merges {
            rows.push((keys, c));
            continue;
        }
        let e = by_value.entry(keys).or_default();
        e.slots.extend(c.slots);
        e.values.extend(c.values);
    }
    rows.extend(by_value);
    rows.into_iter()
        .filter_map(|(keys, c)| {
            let parts: Vec<&[u8]> = c.values.iter().map(Vec::as_slice).collect();
            let data = merge(&def.kind, &parts)?;
            let keys = match dec.program {
                Some(p) => {
                    let id = p.aggregations.iter().position(|a| a.name == def.name).unwrap_or(usize::MAX);
                    let keys = crate::value_maps::with_layouts(p, keys, |i| crumbs_lang::ir::MapSlot::AggKey(id, i));
                    crate::value_maps::nest_keys(p, &def.name, keys)
                }
                None => keys,
            };
            Some((c.slots, AggRow { keys, data }))
        })
        .collect()
}

fn word(b: &[u8], i: usize) -> i64 {
    i64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap())
}

/// Decodes a map key laid out as the IR says (each value's [`Repr::size`] bytes, from a
/// multiple of 8). A symbol key stands for the start of its function or module.
pub fn decode_keys(key: &[u8], reprs: &[Repr], dec: &Decoder) -> Vec<Value> {
    let mut off = 0;
    let mut out = Vec::new();
    for r in reprs {
        let bytes = &key[off..off + r.size()];
        let kind = match r {
            Repr::Sym(k) => Some(*k),
            _ => None,
        };
        // The symbol's text is the same at its start: only the address moves.
        out.push(if matches!(r, Repr::UStack(_) | Repr::USym(_)) {
            decode_user(*r, bytes, dec, true)
        } else {
            match (kind, decode_value(*r, bytes, dec)) {
                (Some(k), Value::Sym(pc, text)) => Value::Sym(dec.stacks.symbols().start(pc, k), text),
                (_, v) => v,
            }
        });
        off += r.size().next_multiple_of(8);
    }
    out
}

pub fn decode_value(r: Repr, bytes: &[u8], dec: &Decoder) -> Value {
    match r {
        Repr::Int(r) => Value::Int(word(bytes, 0), r),
        Repr::Object(_) => Value::Bytes(bytes.to_vec()),
        // Each element at its width, as in memory.
        Repr::Array(e, n) => Value::Array(
            (0..n as usize)
                .map(|i| {
                    let mut b = [0u8; 8];
                    let at = i * e.size as usize;
                    b[..e.size as usize].copy_from_slice(&bytes[at..at + e.size as usize]);
                    let raw = i64::from_le_bytes(b);
                    let shift = 64 - 8 * e.size as u32;
                    let v = if e.signed && shift > 0 { (raw << shift) >> shift } else { raw };
                    Value::Int(v, e)
                })
                .collect(),
        ),
        // The count read, then the bytes (the count is at most the place's bytes).
        Repr::Buf(cap) => Value::Buf(bytes[8..8 + (word(bytes, 0) as u64).min(cap as u64) as usize].to_vec()),
        Repr::StrId => Value::Str(dec.strings.resolve(word(bytes, 0) as u64)),
        Repr::Strftime(format) => Value::Str(crate::output::local_time::at_boot_ns(&dec.strings.resolve(format as u64), word(bytes, 0) as u64)),
        Repr::Named(k) => Value::Str(crate::output::names::name_of(k, word(bytes, 0), dec.strings)),
        Repr::Probe => Value::Str(dec.program.map_or_else(|| format!("probe {}", word(bytes, 0)), |p| p.bpftrace_probe_name(word(bytes, 0) as u32))),
        Repr::Stack(u) => dec.stacks.read(word(bytes, 0), u),
        Repr::Sym(k) => dec.stacks.address(word(bytes, 0) as u64, Some(k)),
        Repr::UStack(_) | Repr::USym(_) => decode_user(r, bytes, dec, false),
        Repr::Str(_) => {
            let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
            Value::Str(String::from_utf8_lossy(&bytes[..end]).into_owned())
        }
    }
}

/// A user stack or symbol, symbolized in the process recorded with it (as a key: a symbol
/// stands for its first address).
fn decode_user(r: Repr, bytes: &[u8], dec: &Decoder, key: bool) -> Value {
    match r {
        Repr::UStack(u) => dec.stacks.user.read(word(bytes, 0), u),
        Repr::USym(k) => dec.stacks.user.address(word(bytes, 0) as u64, word(bytes, 1) as u32, k, key),
        _ => unreachable!("only user stacks and symbols"),
    }
}

/// Merges one key's values (one per CPU, or more) as its function says; `None` if none saw
/// a value (min/max only).
pub fn merge(kind: &AggKind, copies: &[&[u8]]) -> Option<AggData> {
    let copies: Vec<Vec<u64>> = copies.iter().map(|c| (0..c.len() / 8).map(|i| word(c, i) as u64).collect()).collect();
    let copies: Vec<&[u64]> = copies.iter().map(Vec::as_slice).collect();
    Some(AggData { kind: kind.clone(), words: kind.merge(&copies)? })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::ir::agg::{self, Aggregator};

    fn words(v: &[i64]) -> Vec<u8> {
        v.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn value(func: &'static dyn Aggregator, copies: &[&[u8]]) -> Option<Value> {
        merge(&AggKind::new(func, vec![]), copies).map(|d| crate::output::aggregation::value_of(&d))
    }

    #[test]
    fn merges_cpus() {
        let (a, b) = (words(&[3]), words(&[4]));
        assert_eq!(value(&agg::count::Count, &[&a, &b]), Some(Value::long(7)));
        let (a, b) = (words(&[0, 0]), words(&[2, -5]));
        assert_eq!(value(&agg::extreme::MIN, &[&a, &b]), Some(Value::long(-5)));
        assert_eq!(value(&agg::extreme::MAX, &[&a, &a]), None);
        let (a, b) = (words(&[1, 10]), words(&[3, 2]));
        assert_eq!(merge(&AggKind::new(&agg::avg::Avg, vec![]), &[&a, &b]).map(|d| d.words), Some(vec![4, 12]));
    }

    #[test]
    fn decodes_keys() {
        let mut s = Strings::default();
        let id = s.intern("hello");
        let mut key = b"cat\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
        key.extend(words(&[id as i64, -2]));
        let stacks = Stacks::new(None);
        let v = decode_keys(&key, &[Repr::Str(16), Repr::StrId, Repr::Int(crumbs_lang::ir::IntRepr::I64)], &Decoder { strings: &s, stacks: &stacks, program: None });
        assert_eq!(v, vec![Value::Str("cat".into()), Value::Str("hello".into()), Value::long(-2)]);
    }
}
