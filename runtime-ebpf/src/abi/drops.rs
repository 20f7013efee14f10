//! Lost updates, counted in the kernel per CPU and kind, reported when tracing ends.

/// A per-CPU array of one element: one u64 counter per [`DropKind`] kind, added to atomically
/// (a program can be interrupted by another one on the same CPU).
pub const DROPS_MAP: &str = "drops";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropKind {
    /// A record that found the event buffer full.
    Record,
    /// An aggregation update that found neither its key nor a free slot.
    Aggregation,
    /// A thread-local store that found the thread-local map full.
    DynamicVariable,
    /// A stack the stack map could not record (slot taken by another stack, or full).
    Stack,
    /// A `speculation()` that found every speculation in use.
    Speculation,
    /// A new key for a map declared with its size (bpftrace's `let @m = hash(N)`) that
    /// found its N keys in use.
    DeclaredMap,
}

impl DropKind {
    pub const ALL: [DropKind; 6] = [DropKind::Record, DropKind::Aggregation, DropKind::DynamicVariable, DropKind::Stack, DropKind::Speculation, DropKind::DeclaredMap];

    /// Byte offset of this kind's counter in the map's value.
    pub fn offset(self) -> usize {
        8 * self as usize
    }
}

/// Size of the map's value.
pub const DROPS_SIZE: usize = 8 * DropKind::ALL.len();
