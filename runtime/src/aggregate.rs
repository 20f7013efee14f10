//! Reading aggregations out of their per-CPU hash maps and merging the CPUs.

use crate::output::{AggData, AggRow, Value};
use crate::sys;
use crate::stacks::Stacks;
use crumbs_lang::ir::{AggKind, Aggregation, Repr, Strings};
use std::io;
use std::os::fd::RawFd;

/// What decoding needs besides the bytes: interned strings and recorded stacks.
pub struct Decoder<'a> {
    pub strings: &'a Strings,
    pub stacks: &'a Stacks,
}

/// Every row of one aggregation, CPUs merged (unsorted).
pub fn read(fd: RawFd, def: &Aggregation, dec: &Decoder, cpus: usize) -> io::Result<Vec<AggRow>> {
    Ok(read_raw(fd, def, dec, cpus)?.into_iter().map(|(_, row)| row).collect())
}

/// `clear()`: every value to zero, keys kept (a min/max with no value is not printed).
pub fn clear(fd: RawFd, def: &Aggregation, cpus: usize) -> io::Result<()> {
    let zeros = vec![0u8; def.kind.value_size().next_multiple_of(8) * cpus];
    for key in keys(fd, def.key_size())? {
        sys::update_existing(fd, &key, &zeros)?;
    }
    Ok(())
}

/// `trunc()`: remove every key, or all but `keep` rows from the largest (`keep` > 0) or the
/// smallest (`keep` < 0) end of the print order.
pub fn trunc(fd: RawFd, def: &Aggregation, dec: &Decoder, cpus: usize, keep: Option<i64>) -> io::Result<()> {
    let Some(keep) = keep else {
        for key in keys(fd, def.key_size())? {
            sys::delete(fd, &key)?;
        }
        return Ok(());
    };
    let rows = read_raw(fd, def, dec, cpus)?;
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|a, b| crate::output::aggregation::compare_rows(&rows[*a].1, &rows[*b].1));
    let n = order.len();
    let kept = if keep >= 0 { n.saturating_sub(keep as usize)..n } else { 0..(keep.unsigned_abs() as usize).min(n) };
    for (pos, i) in order.into_iter().enumerate() {
        if !kept.contains(&pos) {
            sys::delete(fd, &rows[i].0)?;
        }
    }
    Ok(())
}

fn keys(fd: RawFd, ksize: usize) -> io::Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    let mut key: Option<Vec<u8>> = None;
    while let Some(next) = sys::next_key(fd, key.as_deref(), ksize)? {
        out.push(next.clone());
        key = Some(next);
    }
    Ok(out)
}

/// Every row with its raw key.
fn read_raw(fd: RawFd, def: &Aggregation, dec: &Decoder, cpus: usize) -> io::Result<Vec<(Vec<u8>, AggRow)>> {
    let ksize = def.key_size();
    let vsize = def.kind.value_size();
    let stride = vsize.next_multiple_of(8);
    let mut value = vec![0u8; stride * cpus];
    let mut rows = Vec::new();
    let mut key: Option<Vec<u8>> = None;
    while let Some(next) = sys::next_key(fd, key.as_deref(), ksize)? {
        if sys::lookup(fd, &next, &mut value)? {
            let per_cpu: Vec<&[u8]> = value.chunks(stride).map(|c| &c[..vsize]).collect();
            if let Some(data) = merge(&def.kind, &per_cpu) {
                rows.push((next.clone(), AggRow { keys: decode_keys(&next, &def.keys, dec), data }));
            }
        }
        key = Some(next);
    }
    Ok(rows)
}

fn word(b: &[u8], i: usize) -> i64 {
    i64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap())
}

/// Decodes a map key laid out as the IR says: integers and string ids 8 bytes, comms 16.
pub fn decode_keys(key: &[u8], reprs: &[Repr], dec: &Decoder) -> Vec<Value> {
    let mut off = 0;
    let mut out = Vec::new();
    for r in reprs {
        let bytes = &key[off..off + r.size()];
        out.push(decode_value(*r, bytes, dec));
        off += r.size();
    }
    out
}

pub fn decode_value(r: Repr, bytes: &[u8], dec: &Decoder) -> Value {
    match r {
        Repr::Int => Value::Int(word(bytes, 0)),
        Repr::StrId => Value::Str(dec.strings.resolve(word(bytes, 0) as u64)),
        Repr::Stack => Value::Stack(dec.stacks.frames(word(bytes, 0))),
        Repr::Comm | Repr::Buf => {
            let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
            Value::Str(String::from_utf8_lossy(&bytes[..end]).into_owned())
        }
    }
}

/// Merges one key's per-CPU values; `None` if no CPU saw a value (min/max only).
pub fn merge(kind: &AggKind, cpus: &[&[u8]]) -> Option<AggData> {
    let sum = |i: usize| cpus.iter().map(|c| word(c, i)).fold(0i64, i64::wrapping_add);
    Some(match kind {
        AggKind::Count => AggData::Count(sum(0) as u64),
        AggKind::Sum => AggData::Sum(sum(0)),
        AggKind::Avg => AggData::Avg { count: sum(0) as u64, sum: sum(1) },
        AggKind::Stddev => AggData::Stddev {
            count: sum(0) as u64,
            sum: sum(1),
            squares: cpus.iter().map(|c| (word(c, 3) as u64 as u128) << 64 | word(c, 2) as u64 as u128).fold(0u128, u128::wrapping_add),
        },
        AggKind::Min | AggKind::Max => {
            let seen = cpus.iter().filter(|c| word(c, 0) != 0).map(|c| word(c, 1));
            let v = if *kind == AggKind::Min { seen.min()? } else { seen.max()? };
            if *kind == AggKind::Min { AggData::Min(v) } else { AggData::Max(v) }
        }
        AggKind::Quantize => AggData::Quantize((0..crumbs_lang::ir::QUANTIZE_BUCKETS).map(|i| sum(i) as u64).collect()),
        AggKind::Lquantize { base, limit, step } => AggData::Lquantize {
            base: *base,
            limit: *limit,
            step: *step,
            buckets: (0..kind.lquantize_buckets()).map(|i| sum(i) as u64).collect(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(v: &[i64]) -> Vec<u8> {
        v.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn merges_cpus() {
        let (a, b) = (words(&[3]), words(&[4]));
        assert_eq!(merge(&AggKind::Count, &[&a, &b]), Some(AggData::Count(7)));
        let (a, b) = (words(&[0, 0]), words(&[2, -5]));
        assert_eq!(merge(&AggKind::Min, &[&a, &b]), Some(AggData::Min(-5)));
        assert_eq!(merge(&AggKind::Max, &[&a, &a]), None);
        let (a, b) = (words(&[1, 10]), words(&[3, 2]));
        assert_eq!(merge(&AggKind::Avg, &[&a, &b]), Some(AggData::Avg { count: 4, sum: 12 }));
    }

    #[test]
    fn decodes_keys() {
        let mut s = Strings::default();
        let id = s.intern("hello");
        let mut key = b"cat\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
        key.extend(words(&[id as i64, -2]));
        let stacks = Stacks::new(None);
        let v = decode_keys(&key, &[Repr::Comm, Repr::StrId, Repr::Int], &Decoder { strings: &s, stacks: &stacks });
        assert_eq!(v, vec![Value::Str("cat".into()), Value::Str("hello".into()), Value::Int(-2)]);
    }
}
