//! crumbs' parquet output (`-f parquet`, `-o x.parquet`): one table, one file, per clause
//! that sends records (`x.parquet` -> `x.1.parquet` for clause 1; a directory `d` ->
//! `d/1.parquet`), with the columns `ts cpu pid tid comm probe` and one per value the
//! clause records (spec.md §9.13). Aggregations, and what else is text (printa()), go to
//! standard error as DTrace's text.

pub mod table;

use super::destination::Destination;
use super::text::DtraceText;
use super::{AggRow, FaultReport, Firing, Output, Sink, Stopped, Value};
use crate::drops::Drops;
use crumbs_lang::ir::Program;
use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use parquet::data_type::ByteArray;
use table::{Cell, Kind, Table};

/// Where each clause's table goes: `x.parquet` -> `x.N.parquet`, anything else is a
/// directory (made if missing) holding `N.parquet`; N is the clause's number in the source
/// (1 for the first).
pub fn table_path(out: &str, clause: usize) -> PathBuf {
    match out.strip_suffix(".parquet") {
        Some(stem) => PathBuf::from(format!("{stem}.{clause}.parquet")),
        None => Path::new(out).join(format!("{clause}.parquet")),
    }
}

pub struct ParquetTables {
    /// By record id: its table (None for records no clause sends as its own: none today).
    tables: Vec<Option<Table>>,
    /// By record id and item: the item's first value column and how many it has.
    first_column: Vec<Vec<(usize, usize)>>,
    /// Each probe's description, made once and shared by its rows.
    probes: HashMap<u32, ByteArray>,
    /// The last comm seen, raw and as the cell its rows share (most rows repeat it).
    comm: ([u8; 16], ByteArray),
    /// Aggregations and drops, printed as text on standard error at the end.
    text: DtraceText<'static>,
    voice: &'static str,
}

impl ParquetTables {
    /// Creates (truncating) every clause's file under `out`.
    pub fn create(out: &str, program: &Program) -> io::Result<Self> {
        if !out.ends_with(".parquet") {
            std::fs::create_dir_all(out)?;
        }
        let mut tables: Vec<Option<Table>> = (0..program.records.len()).map(|_| None).collect();
        let mut first_column = Vec::new();
        for record in &program.records {
            let mut firsts = Vec::new();
            let mut n = 0;
            for item in &record.items {
                let count = match item {
                    crumbs_lang::ir::Item::Trace(_) | crumbs_lang::ir::Item::Print(..) => 1,
                    crumbs_lang::ir::Item::Printf { args, .. } => args.len(),
                    _ => 0,
                };
                firsts.push((n, count));
                n += count;
            }
            first_column.push(firsts);
        }
        // A clause's records (several when bpftrace's loops send each output on its own)
        // each make a table; the first keeps the clause's number, the others add `_2`...
        let mut names: HashMap<usize, usize> = HashMap::new();
        for clause in program.groups.iter().flat_map(|g| &g.clauses) {
            let Some(rid) = clause.record else { continue };
            let number = clause.index + 1;
            let seen = names.entry(number).or_default();
            *seen += 1;
            let path = match *seen {
                1 => table_path(out, number),
                k => table_path(out, number).with_extension(format!("{k}.parquet")),
            };
            let file = File::create(&path).map_err(|e| io::Error::new(e.kind(), format!("{}: {}", path.display(), super::strerror(&e))))?;
            tables[rid] = Some(Table::create(file, table::value_columns(&program.records[rid]))?);
        }
        let stderr = Destination::writer(Box::new(io::stderr()));
        let comm = ([0; 16], ByteArray::from(Vec::new()));
        Ok(ParquetTables { tables, first_column, probes: HashMap::new(), comm, text: DtraceText::new(stderr, false, &program.options), voice: "crumbs" })
    }

    /// Messages on standard error start with `name:`.
    pub fn voice(mut self, name: &'static str) -> Self {
        self.voice = name;
        self.text = self.text.voice(name);
        self
    }
}

/// A value as a cell of a column of `kind`.
fn cell(v: &Value, kind: Kind) -> Cell {
    match (v, kind) {
        (Value::Int(n, _), Kind::Signed | Kind::Unsigned) => Cell::Int(*n),
        (_, Kind::Signed | Kind::Unsigned) => Cell::Null,
        (Value::Str(s), Kind::Text) => Cell::Text(s.clone()),
        (Value::Stack(frames, _), Kind::Text) => Cell::Text(frames.join("\n")),
        (Value::Sym(_, text), Kind::Text) => Cell::Text(text.clone()),
        (v, Kind::Text) => Cell::Text(super::record::trace(v, true)),
    }
}

impl Sink for ParquetTables {
    fn firing(&mut self, f: &Firing) -> io::Result<()> {
        let rid = f.record as usize;
        let Some(Some(table)) = self.tables.get_mut(rid) else { return Ok(()) };
        let probe = self.probes.entry(f.probe).or_insert_with(|| ByteArray::from(f.program.probe_description(f.probe).into_bytes()));
        let meta = f.meta.unwrap_or_default();
        if self.comm.0 != meta.comm {
            self.comm = (meta.comm, ByteArray::from(meta.comm().into_bytes()));
        }
        table.header(meta.ts, f.cpu, meta.pid, meta.tid, &self.comm.1, probe);
        let mut cells: Vec<Option<Cell>> = (0..table.columns.len()).map(|_| None).collect();
        for (o, &item) in f.outputs.iter().zip(&f.items) {
            let (first, count) = self.first_column[rid].get(item as usize).copied().unwrap_or_default();
            let mut put = |k: usize, v: &Value| {
                if let (true, Some(c)) = (k < count, table.columns.get(first + k)) {
                    cells[first + k] = Some(cell(v, c.kind));
                }
            };
            match o {
                Output::Trace(v) => put(0, v),
                Output::Print { layout, value } => put(0, &Value::Str(super::print::print(layout, value).trim_end().to_string())),
                Output::Tracemem(bytes) => put(0, &Value::Str(String::from_utf8_lossy(bytes).trim_end_matches('\0').to_string())),
                Output::Printf { values, .. } => values.iter().enumerate().for_each(|(k, v)| put(k, v)),
                _ => {}
            }
        }
        for (c, cell) in table.columns.iter_mut().zip(cells) {
            c.push(cell.unwrap_or(Cell::Null));
        }
        table.maybe_write()
    }

    fn fault(&mut self, fault: &FaultReport) -> io::Result<()> {
        eprintln!("{}: {}", self.voice, fault.message());
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn stopped(&mut self, why: &Stopped) -> io::Result<()> {
        self.text.stopped(why)
    }

    /// Every table's last rows and footer; the aggregations as text on standard error.
    fn finish(&mut self, aggregations: &[Vec<AggRow>], drops: &Drops) -> io::Result<()> {
        for table in self.tables.iter_mut().filter_map(Option::take) {
            table.close()?;
        }
        self.text.finish(aggregations, drops)
    }

    fn notice(&mut self, line: &str) -> io::Result<()> {
        eprintln!("{}: {line}", self.voice);
        Ok(())
    }
}
