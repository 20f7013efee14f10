//! How an aggregation is stored: one open-addressing hash table per CPU, each one element of
//! a BPF array indexed by CPU, which user space maps into memory to read.
//!
//! The kernel's own hash maps were the first choice, but inserting a key costs a per-CPU
//! allocation (`BPF_F_NO_PREALLOC`, ~6 us here) or a per-element `alloc_percpu` at map
//! creation (preallocated: ~0.8 us per element, 55 ms for 65,536), and even preallocated
//! an insert takes ~250 ns under the bucket lock. A table of our own, private to its CPU,
//! needs no lock and no allocation: a claimed slot is a compare-and-exchange of its state.
//!
//! A table is a power of two of slots, each a state word, the key, then the value (all
//! multiples of 8 bytes). A key is placed by hashing it and probing linearly for at most
//! [`MAX_PROBES`] slots; an update that finds neither its key nor a free slot there is
//! dropped and counted. User space merges equal keys, so a key stored twice on one CPU
//! (after `trunc()` freed a slot before it on its probe path) still reads correctly.

use crumbs_lang::ir::Program;

/// The slot holds nothing; it can be claimed.
pub const EMPTY: u64 = 0;
/// A program claimed the slot and is writing its key.
pub const CLAIMED: u64 = 1;
/// The slot holds a key and its value.
pub const READY: u64 = 2;

/// Slots an update looks at before it gives up (and counts an aggregation drop).
pub const MAX_PROBES: u32 = 64;

/// DTrace's default aggsize: per-CPU bytes shared by the keyed aggregations.
pub const DEFAULT_AGGSIZE: u64 = 4 << 20;

/// Largest table: the verifier bounds a variable offset into a map value below 2^29.
const MAX_TABLE_BYTES: u64 = 1 << 28;

/// One aggregation's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Slots per CPU, a power of two.
    pub slots: u32,
    pub cpus: u32,
    pub key_size: usize,
    pub value_size: usize,
}

impl Layout {
    /// Bytes per slot.
    pub fn slot_size(&self) -> usize {
        8 + self.key_size + self.value_size
    }

    pub const fn key_offset(&self) -> usize {
        8
    }

    pub fn value_offset(&self) -> usize {
        8 + self.key_size
    }

    /// Bytes per CPU: one array element.
    pub fn table_size(&self) -> usize {
        self.slots as usize * self.slot_size()
    }

    /// log2(slots): a hash's top this many bits pick the first slot.
    pub fn bits(&self) -> u32 {
        self.slots.trailing_zeros()
    }

    pub fn probes(&self) -> u32 {
        self.slots.min(MAX_PROBES)
    }
}

/// The table of aggregation `id` on a machine with `cpus` possible CPUs: one slot for a
/// keyless aggregation; otherwise the keyed aggregations share aggsize per CPU equally, each
/// taking the largest power of two of slots that fits its share.
pub fn layout(p: &Program, id: usize, cpus: u32) -> Layout {
    let a = &p.aggregations[id];
    let (key_size, value_size) = (a.key_size(), a.kind.value_size());
    let slot_size = (8 + key_size + value_size) as u64;
    let slots = if a.keys.is_empty() {
        1
    } else if let Some(d) = a.declared {
        // Declared with bpftrace's `let @a = percpuhash(N)`: room for N keys, with free
        // slots left for probing; a full table drops new keys (the lru kinds too: this
        // table does not evict).
        let fit = (MAX_TABLE_BYTES / slot_size).max(1);
        (2 * d.max_entries as u64).next_power_of_two().min(1 << fit.ilog2()) as u32
    } else {
        let keyed = p.aggregations.iter().filter(|a| !a.keys.is_empty() && a.declared.is_none()).count().max(1) as u64;
        let share = (p.options.aggsize.unwrap_or(DEFAULT_AGGSIZE) / keyed).min(MAX_TABLE_BYTES);
        let fit = (share / slot_size).max(1);
        1 << fit.ilog2()
    };
    Layout { slots, cpus: cpus.max(1), key_size, value_size }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::check::CheckOptions;

    fn program(src: &str) -> Program {
        crumbs_lang::compile(src, &CheckOptions::default()).unwrap()
    }

    #[test]
    fn keyed_aggregations_share_aggsize() {
        let p = program("BEGIN { @a[1] = count(); @b[2] = quantize(1); @c = sum(1); }");
        let a = layout(&p, 0, 2);
        // 4m / 2 keyed aggregations / (8 + 8 + 8) bytes per slot = 87381: 65536 slots
        assert_eq!((a.slots, a.slot_size(), a.table_size(), a.bits()), (65536, 24, 65536 * 24, 16));
        // 2m / (8 + 8 + 8 * 127) = 2032: 1024 slots
        assert_eq!(layout(&p, 1, 2).slots, 1024);
        let c = layout(&p, 2, 2);
        assert_eq!((c.slots, c.bits(), c.probes()), (1, 0, 1));
        assert_eq!(a.probes(), MAX_PROBES);
    }

    #[test]
    fn aggsize_sets_the_slots() {
        let p = program("#pragma D option aggsize=16k\nBEGIN { @[execname] = avg(1); }");
        let l = layout(&p, 0, 4);
        // 16384 / 40 = 409: 256 slots
        assert_eq!((l.key_size, l.value_size, l.slots, l.cpus), (16, 16, 256, 4));
        let tiny = program("#pragma D option aggsize=64\nBEGIN { @[1] = lquantize(1, 0, 1000, 1); }");
        assert_eq!(layout(&tiny, 0, 1).slots, 1);
        let huge = program("#pragma D option aggsize=1g\nBEGIN { @[1] = count(); }");
        let h = layout(&huge, 0, 1);
        assert_eq!(h.slots, 1 << 23);
        assert!(h.table_size() <= 1 << 28);
    }
}
