//! The structured writers' exact bytes for firings of every kind of value, kept while their
//! fast paths change (escaping in runs, numbers written in place, buffers reused): the
//! expected lines were written by the writers before those changes.

use super::chrome::ChromeTrace;
use super::destination::{Destination, SharedBytes};
use super::json_lines::JsonLines;
use super::{AggData, AggRow, Firing, Meta, Output, Sink, Value};
use crate::drops::Drops;
use crumbs_lang::ir::{IntRepr, Program, StackMode};

const PROGRAM: &str = r#"
syscall::read:entry { printf("%s %d|%5s|%-4d|%x\n", execname, tid, "é\"", 7, 255); trace(arg0); }
syscall::read:return { trace(arg1); }
END { @c[execname] = count(); }
"#;


fn probe_id(function: &str, name: &str) -> u32 {
    crumbs_lang::providers::all_probes().into_iter().find(|p| p.provider == "syscall" && p.function == function && p.name == name).expect("a syscall probe").id
}

fn meta(ts: u64, tid: u32, comm: &[u8]) -> Meta {
    let mut c = [0u8; 16];
    c[..comm.len()].copy_from_slice(comm);
    Meta { ts, pid: PID, tid, comm: c }
}

/// Above any pid a kernel gives (PID_MAX_LIMIT is 4 Mi): the Chrome trace names the process
/// by its comm, not by /proc.
const PID: u32 = 0x7fff_fff0;

/// Values of every kind, with text that must be escaped.
fn odd_values() -> Vec<Value> {
    vec![
        Value::Str("tab\there \"q\" back\\slash\nnl \u{1}\u{7f} é ✓".into()),
        Value::Int(-1, IntRepr::U64),
        Value::Int(-1, IntRepr { size: 4, signed: false }),
        Value::Int(i64::MIN, IntRepr::I64),
        Value::Int(-42, IntRepr::I32),
        Value::Stack(vec!["vmlinux`vfs_read+0x1a".into(), "a\"b".into()], StackMode::default()),
        Value::Bytes(vec![0, 0xab, 0x7f]),
        Value::Sym(0xffff_ffff_8120_0000, "vfs_read".into()),
        Value::Tuple(vec![Value::long(1), Value::Str("x\\".into())]),
        Value::Record(vec![("a\"".into(), Value::long(1)), ("b".into(), Value::Array(vec![Value::long(2)]))]),
        Value::Buf(vec![1, 2]),
    ]
}

/// Entry and return firings of `read` on two threads (one comm not UTF-8), each tracing
/// odd values, with a printf.
fn firings(p: &Program) -> Vec<Firing<'_>> {
    let (entry, ret) = (probe_id("read", "entry"), probe_id("read", "return"));
    let printf = |tid: i64| {
        let pieces = match &p.records[0].items[0] {
            crumbs_lang::ir::Item::Printf { pieces, .. } => pieces.as_slice(),
            other => panic!("the first item is the printf: {other:?}"),
        };
        Output::Printf { pieces, values: vec![Value::Str("cat\"x".into()), Value::long(tid), Value::Str("é\"".into()), Value::long(7), Value::long(255)] }
    };
    let firing = |probe: u32, record: u32, m: Meta, outputs: Vec<Output<'static>>| Firing { program: p, cpu: 1, probe, record, meta: Some(m), outputs, items: Vec::new() };
    let mut out = Vec::new();
    for (i, (tid, comm)) in [(100u32, &b"cat\"x"[..]), (101, &b"bad\xff\xfename"[..])].into_iter().enumerate() {
        let ts = 1_000_000_123 + i as u64 * 7_654_321;
        let mut outputs: Vec<Output> = vec![printf(tid as i64)];
        outputs.extend(odd_values().into_iter().map(Output::Trace));
        out.push(Firing { outputs, ..firing(entry, 0, meta(ts, tid, comm), Vec::new()) });
        if i == 0 {
            // Another clause's record of the same entry, then of the same return.
            out.push(firing(entry, 3, meta(ts, tid, comm), vec![Output::Trace(Value::Str("second entry".into()))]));
        }
        out.push(firing(ret, 1, meta(ts + 2_500, tid, comm), vec![Output::Trace(Value::Int(-5, IntRepr::I64))]));
        if i == 0 {
            out.push(firing(ret, 2, meta(ts + 2_500, tid, comm), vec![Output::Trace(Value::Str("second return".into()))]));
        }
    }
    out
}

fn end_rows(p: &Program) -> Vec<Vec<AggRow>> {
    let count = AggRow { keys: vec![Value::Str("ca\"t".into())], data: AggData { kind: p.aggregations[0].kind.clone(), words: vec![3] } };
    vec![vec![count]]
}

fn written(make: impl FnOnce(Destination<'static>, &Program) -> Box<dyn Sink>) -> String {
    let p = crumbs_lang::compile(PROGRAM, &Default::default()).unwrap();
    let shared = SharedBytes::default();
    let mut sink = make(Destination::writer(Box::new(shared.clone())), &p);
    for f in firings(&p) {
        sink.firing(&f).unwrap();
    }
    sink.flush().unwrap();
    sink.finish(&end_rows(&p), &Drops::default()).unwrap();
    drop(sink);
    let bytes = shared.0.borrow().clone();
    String::from_utf8(bytes).unwrap()
}

/// `got` is the file `name` under same_bytes/ (written instead with CRUMBS_BLESS=1).
fn expect(name: &str, got: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/output/same_bytes").join(name);
    if std::env::var_os("CRUMBS_BLESS").is_some() {
        std::fs::write(&path, got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap();
    assert!(got == want, "{name} differs:\n--- want\n{want}--- got\n{got}");
}

#[test]
fn json_lines() {
    expect("json_lines.jsonl", &written(|out, p| Box::new(JsonLines::new(out, p))));
}

#[test]
fn chrome_without_flow() {
    expect("chrome.pfw", &written(|out, p| Box::new(ChromeTrace::new(out, p, false))));
}

#[test]
fn chrome_with_flow() {
    expect("chrome_flow.pfw", &written(|out, p| Box::new(ChromeTrace::new(out, p, true))));
}
