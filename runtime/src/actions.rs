//! The actions that work on the kernel's aggregation tables while tracing: printa() and the
//! end of tracing read them, clear() and trunc() write them, normalize() changes how they
//! read from then on.

use crate::aggregate::{self, Decoder};
use crate::output::{aggregation, AggRow};
use crate::stacks::Stacks;
use crate::table::Table;
use crumbs_lang::ir::Program;
use std::cell::OnceCell;
use std::io;
use std::os::fd::RawFd;

/// A program's aggregations, as its session's actions see them.
pub struct Aggregations<'p> {
    program: &'p Program,
    /// File descriptors of the aggregation maps, by aggregation id.
    fds: Vec<RawFd>,
    /// The aggregation maps mapped into memory, on first use.
    tables: Vec<OnceCell<Table>>,
    cpus: usize,
    /// normalize()'s divisor per aggregation (1: as is).
    normal: Vec<i64>,
    /// Stacks that keys refer to.
    pub stacks: Stacks,
}

impl<'p> Aggregations<'p> {
    pub fn new(program: &'p Program, fds: Vec<RawFd>, stacks: Stacks) -> Self {
        let normal = vec![1; program.aggregations.len()];
        let tables = fds.iter().map(|_| OnceCell::new()).collect();
        Aggregations { program, fds, tables, cpus: crate::kernel::cpus::possible(), normal, stacks }
    }

    fn table(&self, id: usize) -> io::Result<&Table> {
        if let Some(t) = self.tables[id].get() {
            return Ok(t);
        }
        let layout = crumbs_ebpf::abi::table::layout(self.program, id, self.cpus as u32);
        let t = Table::map(self.fds[id], layout)?;
        Ok(self.tables[id].get_or_init(|| t))
    }

    pub fn decoder(&self) -> Decoder<'_> {
        Decoder { strings: &self.program.strings, stacks: &self.stacks, program: Some(self.program) }
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

    /// The key bytes aggregation `id` holds on any CPU.
    pub fn keys(&self, id: usize) -> io::Result<std::collections::HashSet<Vec<u8>>> {
        Ok(self.table(id)?.entries().map(|(_, k, _)| k).collect())
    }

    /// clear(): every value to zero, keys kept.
    pub fn clear(&self, id: usize) -> io::Result<()> {
        aggregate::clear(self.table(id)?);
        Ok(())
    }

    /// trunc(): remove every key, or all but `keep` from one end of the print order.
    pub fn trunc(&self, id: usize, keep: Option<i64>) -> io::Result<()> {
        aggregate::trunc(self.table(id)?, &self.program.aggregations[id], &self.decoder(), keep);
        Ok(())
    }

    /// normalize(): divide printed values by `n` from now on (denormalize(): n = 1). A
    /// divisor below 1 would make no sense (DTrace refuses it): the values stay as they are.
    pub fn normalize(&mut self, id: usize, n: i64) {
        self.normal[id] = n.max(1);
    }
}
