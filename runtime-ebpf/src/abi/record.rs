//! The records a clause sends through the event ring buffer: a 16-byte header (u32 record
//! id, u32 probe id, u32 cpu, u32 speculation: 0, or the speculation the record belongs to);
//! when the program was compiled for a structured output ([`crate::abi::Target::record_meta`]),
//! 32 more bytes of the firing's metadata ([`META`]: u64 CLOCK_MONOTONIC ns, D's
//! `timestamp`; u32 thread id; u32 process id; the thread's comm, 16 bytes); for a guarded record (items inside an `if`),
//! one byte per item, 1 if the firing sent it, padded to 8 bytes; then each item's arguments
//! in order, each 8-byte aligned.

use crumbs_lang::ir::Record;

/// Bytes of the header every record starts with.
pub const HEADER: usize = 16;

/// Bytes of the metadata after the header, when records carry it: the timestamp at
/// `HEADER`, then `bpf_get_current_pid_tgid()` (thread id in its low word, process id in its
/// high word) at `HEADER + 8`, then `bpf_get_current_comm()` at `HEADER + 16` (the name is
/// read with the record: the process may be gone by the time user space reads /proc).
pub const META: usize = 32;

/// A firing's metadata, as the record carries it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// CLOCK_MONOTONIC ns when the record was reserved (D's `timestamp`, bpftrace's `nsecs`).
    pub ts: u64,
    pub pid: u32,
    pub tid: u32,
    /// The thread's name, NUL-padded.
    pub comm: [u8; 16],
}

/// The metadata of a record that carries it (the caller knows it does).
impl Meta {
    /// The thread's name as text.
    pub fn comm(&self) -> String {
        self.comm_text().into_owned()
    }

    /// [`Meta::comm`] borrowed from the record when it is UTF-8 (a writer of every event
    /// copies nothing).
    pub fn comm_text(&self) -> std::borrow::Cow<'_, str> {
        let end = self.comm.iter().position(|&b| b == 0).unwrap_or(self.comm.len());
        String::from_utf8_lossy(&self.comm[..end])
    }
}

pub fn meta(bytes: &[u8]) -> Option<Meta> {
    let at = |o: usize| bytes.get(o..o + 8).map(|w| u64::from_le_bytes(w.try_into().unwrap()));
    let (ts, ids) = (at(HEADER)?, at(HEADER + 8)?);
    let comm = bytes.get(HEADER + 16..HEADER + 32)?.try_into().unwrap();
    Some(Meta { ts, tid: ids as u32, pid: (ids >> 32) as u32, comm })
}

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

/// Where the arguments of `record` are, its records without metadata.
pub fn layout(record: &Record) -> Layout {
    layout_with(record, false)
}

/// Where the arguments of `record` are, its records carrying metadata or not.
pub fn layout_with(record: &Record, meta: bool) -> Layout {
    let start = HEADER + if meta { META } else { 0 };
    let present = record.guarded.then_some(start);
    let mut off = start + if record.guarded { record.items.len().next_multiple_of(8) } else { 0 };
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
        let m = super::layout_with(&p.records[0], true);
        assert_eq!(m.offsets, vec![vec![48, 64], vec![72], vec![80]]);
        assert_eq!(m.size, l.size + super::META);
    }

    #[test]
    fn metadata_words() {
        let mut bytes = vec![0u8; 48];
        bytes[16..24].copy_from_slice(&123_456_789u64.to_le_bytes());
        bytes[24..32].copy_from_slice(&((77u64 << 32) | 78).to_le_bytes());
        bytes[32..35].copy_from_slice(b"cat");
        let comm = *b"cat\0\0\0\0\0\0\0\0\0\0\0\0\0";
        assert_eq!(super::meta(&bytes), Some(super::Meta { ts: 123_456_789, pid: 77, tid: 78, comm }));
        assert_eq!(super::meta(&bytes[..40]), None);
    }
}
