//! One clause's table: its columns, the rows of the current row group held in memory, and
//! the file they are written to a row group at a time (so memory stays bounded however
//! long the trace runs).

use crumbs_lang::ir::{Item, Record, Repr};
use parquet::basic::{Compression, Encoding, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnPath, Type};
use std::fs::File;
use std::io;
use std::sync::Arc;

/// Rows kept before they are written as a row group.
pub const ROW_GROUP: usize = 64 * 1024;

/// What a value column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Signed,
    Unsigned,
    Text,
}

impl Kind {
    /// A value of representation `r`: integers as int64 (uint64 if unsigned), everything
    /// else (strings, stacks, symbols, structs) as its text.
    pub fn of(r: Repr) -> Kind {
        match r {
            Repr::Int(i) if i.signed => Kind::Signed,
            Repr::Int(_) => Kind::Unsigned,
            _ => Kind::Text,
        }
    }
}

/// A value column's rows: the values of the rows that have one, and each row's definition
/// level (0: null, its item was not sent).
enum Values {
    Int(Vec<i64>),
    Text(Vec<ByteArray>),
}

pub struct Column {
    pub name: String,
    pub kind: Kind,
    values: Values,
    defined: Vec<i16>,
}

/// A cell of a value column.
pub enum Cell {
    Null,
    Int(i64),
    Text(String),
}

impl Column {
    fn new(name: String, kind: Kind) -> Column {
        let values = if kind == Kind::Text { Values::Text(Vec::new()) } else { Values::Int(Vec::new()) };
        Column { name, kind, values, defined: Vec::new() }
    }

    pub fn push(&mut self, cell: Cell) {
        match (cell, &mut self.values) {
            (Cell::Int(n), Values::Int(v)) => v.push(n),
            (Cell::Text(s), Values::Text(v)) => v.push(ByteArray::from(s.into_bytes())),
            (Cell::Int(n), Values::Text(v)) => v.push(ByteArray::from(n.to_string().into_bytes())),
            (Cell::Text(_) | Cell::Null, _) => {
                self.defined.push(0);
                return;
            }
        }
        self.defined.push(1);
    }
}

/// Each value column of `record`, in order: trace()'s and print()'s value, printf()'s
/// arguments; named after their source (`this->bytes` -> `bytes`), `v1`, `v2`... where there
/// is none, and made unique with `_2`, `_3`.
pub fn value_columns(record: &Record) -> Vec<Column> {
    let mut columns: Vec<Column> = Vec::new();
    for (i, item) in record.items.iter().enumerate() {
        let reprs = match item {
            Item::Trace(r) => vec![*r],
            Item::Print(..) => vec![Repr::Object(0)],
            Item::Printf { args, .. } => args.clone(),
            _ => continue,
        };
        let sources = record.sources.get(i);
        for (a, r) in reprs.into_iter().enumerate() {
            let n = columns.len() + 1;
            let named = sources.and_then(|s| s.get(a)).map(|s| s.column()).filter(|c| !c.is_empty());
            columns.push(Column::new(named.unwrap_or_else(|| format!("v{n}")), Kind::of(r)));
        }
    }
    let header = ["ts", "cpu", "pid", "tid", "comm", "probe"];
    let mut taken: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    for c in &mut columns {
        let base = c.name.clone();
        let mut k = 2;
        while taken.contains(&c.name) {
            c.name = format!("{base}_{k}");
            k += 1;
        }
        taken.push(c.name.clone());
    }
    columns
}

/// A clause's table being written.
pub struct Table {
    writer: SerializedFileWriter<File>,
    ts: Vec<i64>,
    cpu: Vec<i32>,
    pid: Vec<i32>,
    tid: Vec<i32>,
    comm: Vec<ByteArray>,
    probe: Vec<ByteArray>,
    pub columns: Vec<Column>,
}

fn err(e: parquet::errors::ParquetError) -> io::Error {
    io::Error::other(e.to_string())
}

fn field(name: &str, physical: Physical, logical: Option<LogicalType>, repetition: Repetition) -> Arc<Type> {
    let t = Type::primitive_type_builder(name, physical).with_repetition(repetition).with_logical_type(logical).build();
    Arc::new(t.expect("a primitive column of a known type"))
}

fn int(bits: i8, signed: bool) -> Option<LogicalType> {
    Some(LogicalType::integer(bits, signed))
}

impl Table {
    /// Creates `file` with the header columns and `columns`.
    pub fn create(file: File, columns: Vec<Column>) -> io::Result<Table> {
        let required = Repetition::REQUIRED;
        let mut fields = vec![
            field("ts", Physical::INT64, int(64, false), required),
            field("cpu", Physical::INT32, int(32, false), required),
            field("pid", Physical::INT32, int(32, false), required),
            field("tid", Physical::INT32, int(32, false), required),
            field("comm", Physical::BYTE_ARRAY, Some(LogicalType::String), required),
            field("probe", Physical::BYTE_ARRAY, Some(LogicalType::String), required),
        ];
        for c in &columns {
            let optional = Repetition::OPTIONAL;
            fields.push(match c.kind {
                Kind::Signed => field(&c.name, Physical::INT64, int(64, true), optional),
                Kind::Unsigned => field(&c.name, Physical::INT64, int(64, false), optional),
                Kind::Text => field(&c.name, Physical::BYTE_ARRAY, Some(LogicalType::String), optional),
            });
        }
        let schema = Type::group_type_builder("crumbs").with_fields(fields).build().map_err(err)?;
        // Timestamps are all different and nearly in order: a dictionary of them costs a hash
        // per row and saves nothing, the differences take a few bits each.
        let ts = ColumnPath::from("ts");
        let props = WriterProperties::builder().set_compression(Compression::SNAPPY).set_column_dictionary_enabled(ts.clone(), false).set_column_encoding(ts, Encoding::DELTA_BINARY_PACKED).build();
        let writer = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props)).map_err(err)?;
        Ok(Table { writer, ts: Vec::new(), cpu: Vec::new(), pid: Vec::new(), tid: Vec::new(), comm: Vec::new(), probe: Vec::new(), columns })
    }

    /// Adds a row's header (comm and probe shared, not copied, by the rows that have
    /// them); the caller pushes one cell to each value column.
    pub fn header(&mut self, ts: u64, cpu: u32, pid: u32, tid: u32, comm: &ByteArray, probe: &ByteArray) {
        self.ts.push(ts as i64);
        self.cpu.push(cpu as i32);
        self.pid.push(pid as i32);
        self.tid.push(tid as i32);
        self.comm.push(comm.clone());
        self.probe.push(probe.clone());
    }

    /// Writes the rows held as a row group once there are enough of them.
    pub fn maybe_write(&mut self) -> io::Result<()> {
        if self.ts.len() >= ROW_GROUP {
            self.write_group()?;
        }
        Ok(())
    }

    fn write_group(&mut self) -> io::Result<()> {
        if self.ts.is_empty() {
            return Ok(());
        }
        let mut group = self.writer.next_row_group().map_err(err)?;
        let mut n = 0;
        while let Some(mut col) = group.next_column().map_err(err)? {
            let written = match n {
                0 => col.typed::<Int64Type>().write_batch(&self.ts, None, None),
                1 => col.typed::<Int32Type>().write_batch(&self.cpu, None, None),
                2 => col.typed::<Int32Type>().write_batch(&self.pid, None, None),
                3 => col.typed::<Int32Type>().write_batch(&self.tid, None, None),
                4 => col.typed::<ByteArrayType>().write_batch(&self.comm, None, None),
                5 => col.typed::<ByteArrayType>().write_batch(&self.probe, None, None),
                _ => {
                    let c = &self.columns[n - 6];
                    match &c.values {
                        Values::Int(v) => col.typed::<Int64Type>().write_batch(v, Some(&c.defined), None),
                        Values::Text(v) => col.typed::<ByteArrayType>().write_batch(v, Some(&c.defined), None),
                    }
                }
            };
            written.map_err(err)?;
            col.close().map_err(err)?;
            n += 1;
        }
        group.close().map_err(err)?;
        self.ts.clear();
        self.cpu.clear();
        self.pid.clear();
        self.tid.clear();
        self.comm.clear();
        self.probe.clear();
        for c in &mut self.columns {
            c.defined.clear();
            match &mut c.values {
                Values::Int(v) => v.clear(),
                Values::Text(v) => v.clear(),
            }
        }
        Ok(())
    }

    /// Writes the rows left and the file's footer.
    pub fn close(mut self) -> io::Result<()> {
        self.write_group()?;
        self.writer.close().map_err(err)?;
        Ok(())
    }
}
