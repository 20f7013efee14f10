//! crumbs' parquet tables (spec §9.13): io-benchmark runs written with `-o x.parquet` or into
//! a directory, read back with the parquet crate: exact rows, column names, types and values.

mod common;

use common::{io_benchmark, run, TempPath};
use parquet::basic::{LogicalType, Repetition, Type as Physical};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use std::path::Path;

/// The L41 bracket (shared/users.md): only io-benchmark's work between its two raw
/// clock_gettime calls counts; `body` are the clauses on top (clause 3 on).
fn bracketed(body: &str) -> String {
    format!(
        "syscall::clock_gettime:return /pid == $target && !in_b/ {{ in_b = 1; }}\n\
         syscall::clock_gettime:entry /pid == $target && in_b/ {{ in_b = 0; }}\n{body}"
    )
}

/// `io-benchmark -c -r -n PASSES -b BLOCK -s SIZE FILE`: SIZE/BLOCK reads a pass in the bracket.
fn bench(passes: u32, block: &str, size: &str, f: &TempPath) -> String {
    format!("{} -c -r -n {passes} -b {block} -s {size} {}", io_benchmark().display(), f.str())
}

/// Each column's name, physical type, logical type and whether it may be null.
fn columns(path: &Path) -> Vec<(String, Physical, Option<LogicalType>, bool)> {
    let r = SerializedFileReader::new(std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap();
    let schema = r.metadata().file_metadata().schema_descr_ptr();
    schema.columns().iter().map(|c| (c.name().to_string(), c.physical_type(), c.logical_type_ref().cloned(), c.self_type().get_basic_info().repetition() == Repetition::OPTIONAL)).collect()
}

/// Every row, each cell as the parquet crate reads it.
fn rows(path: &Path) -> Vec<Vec<(String, Field)>> {
    let r = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    r.get_row_iter(None).unwrap().map(|row| row.unwrap().get_column_iter().map(|(n, f)| (n.clone(), f.clone())).collect()).collect()
}

fn row_groups(path: &Path) -> usize {
    SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap().metadata().num_row_groups()
}

fn int(signed: bool) -> Option<LogicalType> {
    Some(LogicalType::integer(64, signed))
}

fn header() -> Vec<(String, Physical, Option<LogicalType>, bool)> {
    let u32 = Some(LogicalType::integer(32, false));
    let s = Some(LogicalType::String);
    vec![
        ("ts".into(), Physical::INT64, int(false), false),
        ("cpu".into(), Physical::INT32, u32.clone(), false),
        ("pid".into(), Physical::INT32, u32.clone(), false),
        ("tid".into(), Physical::INT32, u32, false),
        ("comm".into(), Physical::BYTE_ARRAY, s.clone(), false),
        ("probe".into(), Physical::BYTE_ARRAY, s, false),
    ]
}

#[test]
fn a_row_per_read_with_named_typed_columns() {
    let f = TempPath::new("pq.dat");
    let dir = TempPath::dir("pqout");
    let o = format!("{}/reads.parquet", dir.str());
    let program = bracketed(
        "syscall::read:entry /pid == $target && in_b/ {\n\
           this->bytes = arg2; trace(this->bytes); printf(\"%s %d\\n\", execname, (uint64_t)arg0); trace(ustack(2));\n\
           @c = count();\n\
         }\n\
         syscall::write:entry /pid == $target && in_b/ { trace(arg2); }",
    );
    let out = run(&["-q", "-o", &o, "-e", &program, "-c", &bench(5, "64K", "256K", &f)]);
    out.assert_ok();
    assert_eq!(out.stdout, "", "{}", out.dump());
    // The aggregation prints as text on standard error.
    assert!(out.stderr.lines().any(|l| l.trim() == "20"), "{}", out.dump());
    let mut files: Vec<String> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    files.sort();
    assert_eq!(files, ["reads.3.parquet", "reads.4.parquet"], "one table per clause that sends records");
    let reads = dir.path().join("reads.3.parquet");
    let mut want = header();
    want.push(("bytes".into(), Physical::INT64, int(true), true));
    want.push(("execname".into(), Physical::BYTE_ARRAY, Some(LogicalType::String), true));
    want.push(("(uint64_t)arg0".into(), Physical::INT64, int(false), true));
    want.push(("ustack(2)".into(), Physical::BYTE_ARRAY, Some(LogicalType::String), true));
    assert_eq!(columns(&reads), want);
    let rows = rows(&reads);
    assert_eq!(rows.len(), 20, "4 reads a pass, 5 passes");
    let mut last_ts = 0;
    for r in &rows {
        let Field::ULong(ts) = r[0].1 else { panic!("{r:?}") };
        assert!(ts > last_ts, "one thread's rows in order: {r:?}");
        last_ts = ts;
        let (Field::UInt(pid), Field::UInt(tid)) = (&r[2].1, &r[3].1) else { panic!("{r:?}") };
        assert_eq!(pid, tid, "io-benchmark has one thread");
        assert_eq!(r[4].1, Field::Str("io-benchmark".into()));
        assert_eq!(r[5].1, Field::Str("syscall:vmlinux:read:entry".into()));
        assert_eq!(r[6].1, Field::Long(65536));
        assert_eq!(r[7].1, Field::Str("io-benchmark".into()));
        assert_eq!(r[8].1, rows[0][8].1, "one file read");
        assert!(matches!(r[8].1, Field::ULong(3..=64)), "a file's descriptor: {r:?}");
        let Field::Str(stack) = &r[9].1 else { panic!("{r:?}") };
        assert_eq!(stack.lines().count(), 2, "{stack}");
    }
    let writes = dir.path().join("reads.4.parquet");
    let mut want = header();
    want.push(("arg2".into(), Physical::INT64, int(true), true));
    assert_eq!(columns(&writes), want);
    assert_eq!(self::rows(&writes).len(), 0, "io-benchmark writes nothing in the bracket: a table with no rows");
}

/// More rows than a row group: written a group at a time, none lost.
#[test]
fn many_rows_span_row_groups() {
    let f = TempPath::new("pqmany.dat");
    let dir = TempPath::new("pqmany");
    let program = bracketed("syscall::read:entry /pid == $target && in_b/ { trace(arg2); }");
    let out = run(&["-f", "parquet", "-x", "bufsize=64m", "-o", dir.str(), "-e", &program, "-c", &bench(17_000, "1K", "4K", &f)]);
    out.assert_ok();
    assert!(!out.stderr.contains("drop"), "{}", out.dump());
    let table = dir.path().join("3.parquet");
    assert_eq!(row_groups(&table), 2, "65,536 rows, then the rest");
    let rows = rows(&table);
    assert_eq!(rows.len(), 68_000);
    assert!(rows.iter().all(|r| r[6].1 == Field::Long(1024)));
}

/// A value inside an `if` the firing did not take is null.
#[test]
fn values_not_sent_are_null() {
    let f = TempPath::new("pqnull.dat");
    let o = TempPath::new("nulls.parquet");
    let program = bracketed("syscall::read:entry /pid == $target && in_b/ { if (arg2 > 100000) { trace(arg0); } trace(arg2); }");
    let out = run(&["-o", o.str(), "-e", &program, "-c", &bench(1, "64K", "256K", &f)]);
    out.assert_ok();
    let table = o.str().replace(".parquet", ".3.parquet");
    let _cleanup = TempPath(table.clone().into());
    let rows = rows(Path::new(&table));
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!((r[6].0.as_str(), &r[6].1), ("arg0", &Field::Null));
        assert_eq!((r[7].0.as_str(), &r[7].1), ("arg2", &Field::Long(65536)));
    }
}

#[test]
fn parquet_needs_files() {
    let out = run(&["-f", "parquet", "-e", "BEGIN { exit(0); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("-f parquet writes files: name them with -o x.parquet"), "{}", out.dump());
    let o = TempPath::new("x.parquet.gz");
    let out = run(&["-o", o.str(), "-e", "BEGIN { exit(0); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("parquet tables are compressed inside (snappy)"), "{}", out.dump());
    assert!(!o.path().exists());
}
