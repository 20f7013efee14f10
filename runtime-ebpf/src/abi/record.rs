//! The records a clause sends through the event ring buffer: a 16-byte header (u32 record
//! id, u32 probe id, u32 cpu, u32 zero); for a guarded record (items inside an `if`), one
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
