//! The records a clause sends through the event ring buffer: a 16-byte header (u32 record
//! id, u32 probe id, u32 cpu, u32 speculation: 0, or the speculation the record belongs to); for a guarded record (items inside an `if`), one
//! byte per item, 1 if the firing sent it, padded to 8 bytes; then each item's arguments in
//! order, each 8-byte aligned.

use crumbs_lang::ir::Record;

/// Bytes before the first argument.
pub const HEADER: usize = 16;

/// Where one record's arguments are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Byte offset of every argument, item by item.
    pub offsets: Vec<Vec<usize>>,
    /// Bytes of the whole record.
    pub size: usize,
    /// Where the guarded record's presence bytes start (one per item).
    pub present: Option<usize>,
}

/// A speculating clause's record whose speculation is not in use: never sent. (The same
/// number as [`FAULT_RECORD`], in another word of the header: the speculation's.)
pub const SPEC_DROPPED: u32 = u32::MAX;

/// The record id of a fault report: a clause that faults sends this instead of its record.
/// After the header (whose last word is the clause's enabled probe id, its index + 1): the
/// value the fault is about (u64: an address or an index), the fault code and the action
/// number (u16 each), and the BPF instruction that faulted (u32).
pub const FAULT_RECORD: u32 = u32::MAX;
pub const FAULT_SIZE: usize = HEADER + 16;

/// A decoded fault report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultReport {
    pub probe: u32,
    pub cpu: u32,
    pub epid: u32,
    pub value: u64,
    pub fault: u32,
    /// 0 for the predicate, 1 for the first statement of the action block.
    pub action: u32,
    pub pc: u32,
}

/// The fault report in `bytes`, if they are one.
pub fn fault_report(bytes: &[u8]) -> Option<FaultReport> {
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    if bytes.len() < FAULT_SIZE || u32_at(0) != FAULT_RECORD {
        return None;
    }
    let code = u32_at(HEADER + 8);
    Some(FaultReport {
        probe: u32_at(4),
        cpu: u32_at(8),
        epid: u32_at(12),
        value: u64::from_le_bytes(bytes[HEADER..HEADER + 8].try_into().unwrap()),
        fault: code & 0xffff,
        action: code >> 16,
        pc: u32_at(HEADER + 12),
    })
}

pub fn layout(record: &Record) -> Layout {
    let present = record.guarded.then_some(HEADER);
    let mut off = HEADER + if record.guarded { record.items.len().next_multiple_of(8) } else { 0 };
    let mut offsets = Vec::new();
    for item in &record.items {
        let mut offs = Vec::new();
        for r in item.arg_reprs() {
            offs.push(off);
            off += r.size().next_multiple_of(8);
        }
        offsets.push(offs);
    }
    Layout { offsets, size: off, present }
}

#[cfg(test)]
mod tests {
    use crumbs_lang::check::CheckOptions;

    #[test]
    fn arguments_follow_the_header_each_aligned() {
        let p = crumbs_lang::compile(r#"BEGIN { printf("%s %d", execname, pid); trace(1); exit(0); }"#, &CheckOptions::default()).unwrap();
        let l = super::layout(&p.records[0]);
        // execname (16 bytes), pid, trace's value, exit's status
        assert_eq!(l.offsets, vec![vec![16, 32], vec![40], vec![48]]);
        assert_eq!(l.size, 16 + 16 + 8 + 8 + 8);
    }
}
