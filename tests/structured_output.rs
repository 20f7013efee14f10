//! crumbs' structured outputs (spec §9.11, §9.12): JSON lines and Chrome trace events of
//! io-benchmark runs, read back field by field (serde_json, python3's json), with exact
//! counts; `-f`/`-o` choosing them, and their errors.

mod common;

use common::{io_benchmark, run, TempPath};
use serde_json::Value as J;
use std::io::Read;

/// The L41 bracket (spec §9, shared/users.md): only what io-benchmark does between its two
/// raw clock_gettime calls counts; `body` are the clauses on top.
fn bracketed(body: &str) -> String {
    format!(
        "syscall::clock_gettime:return /pid == $target && !in_b/ {{ in_b = 1; }}\n\
         syscall::clock_gettime:entry /pid == $target && in_b/ {{ in_b = 0; }}\n{body}"
    )
}

/// `io-benchmark -c -r -n PASSES -b 64K -s 256K FILE`: 4 reads a pass inside the bracket.
fn bench(passes: u32, f: &TempPath) -> String {
    format!("{} -c -r -n {passes} -b 64K -s 256K {}", io_benchmark().display(), f.str())
}

fn lines(text: &str) -> Vec<J> {
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"))).collect()
}

fn of_type<'a>(objects: &'a [J], t: &str) -> Vec<&'a J> {
    objects.iter().filter(|o| o["type"] == t).collect()
}

fn gunzip(path: &TempPath) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path.path()).unwrap()).read_to_string(&mut text).expect("a gzip stream, ended");
    text
}

#[test]
fn json_lines_of_each_read_and_the_aggregations() {
    let f = TempPath::new("json.dat");
    let program = bracketed(
        "syscall::read:entry /pid == $target && in_b/ {\n\
           printf(\"%d %s %d\\n\", arg2, execname, pid); trace(tid); trace(timestamp);\n\
           @c[probefunc] = count(); @q = quantize(arg2); @l = lquantize(arg2, 0, 100000, 50000);\n\
         }",
    );
    let out = run(&["-f", "json", "-q", "-e", &program, "-c", &bench(2, &f)]);
    out.assert_ok();
    let all = lines(&out.stdout);
    let records = of_type(&all, "record");
    assert_eq!(records.len(), 8, "{}", out.dump());
    let mut last_ts = 0;
    for r in &records {
        assert_eq!(r["probe"], "syscall:vmlinux:read:entry");
        assert_eq!(r["comm"], "io-benchmark");
        assert!(r["cpu"].is_u64());
        let (ts, pid, tid) = (r["ts"].as_u64().unwrap(), r["pid"].as_u64().unwrap(), r["tid"].as_u64().unwrap());
        let v = r["values"].as_array().unwrap();
        assert_eq!(v.len(), 5, "{r}");
        assert_eq!((v[0].as_u64(), v[1].as_str(), v[2].as_u64(), v[3].as_u64()), (Some(65536), Some("io-benchmark"), Some(pid), Some(tid)), "{r}");
        // The record's time is D's timestamp, taken just before the clause's own.
        let timestamp = v[4].as_u64().unwrap();
        assert!(ts <= timestamp && timestamp - ts < 1_000_000, "ts {ts}, timestamp {timestamp}");
        assert!(ts > last_ts, "one thread's records in order");
        last_ts = ts;
        assert_eq!(r["text"], format!("65536 io-benchmark {pid}\n{tid}{timestamp}"));
        assert_eq!(r["names"], serde_json::json!(["arg2", "execname", "pid", "tid", "timestamp"]));
    }
    let aggs = of_type(&all, "aggregation");
    assert_eq!(aggs.len(), 3, "{}", out.dump());
    assert_eq!(*aggs[0], serde_json::json!({"type": "aggregation", "name": "c", "function": "count", "keys": ["read"], "value": 8}));
    assert_eq!(*aggs[1], serde_json::json!({"type": "aggregation", "name": "q", "function": "quantize", "keys": [], "buckets": [{"min": 65536, "max": 131071, "count": 8}]}));
    assert_eq!(*aggs[2], serde_json::json!({"type": "aggregation", "name": "l", "function": "lquantize", "keys": [], "buckets": [{"min": 50000, "max": 99999, "count": 8}]}));
    assert_eq!(all.len(), 11, "nothing else: {}", out.dump());
}

#[test]
fn json_lines_gzipped_by_name_and_printa_rows() {
    let f = TempPath::new("jsongz.dat");
    let o = TempPath::new("out.ndjson.gz");
    let program = bracketed("syscall::read:entry /pid == $target && in_b/ { @n[execname, arg2] = sum(arg2); }\nEND { printa(@n); }");
    let out = run(&["-q", "-o", o.str(), "-e", &program, "-c", &bench(1, &f)]);
    out.assert_ok();
    assert_eq!(out.stdout, "", "{}", out.dump());
    let all = lines(&gunzip(&o));
    // END's record (no values), printa()'s row after it; not again at the end (DTrace
    // does not print an aggregation printa() printed).
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0]["type"], "record");
    assert_eq!(all[0]["probe"], "dtrace:::END");
    assert_eq!(all[0]["values"], serde_json::json!([]));
    assert_eq!(all[0]["names"], serde_json::json!([]));
    let row = serde_json::json!({"type": "aggregation", "name": "n", "function": "sum", "keys": ["io-benchmark", 65536], "value": 4 * 65536, "printa": true});
    assert_eq!(all[1], row);
}

/// `-F -o x.pfw.gz`: one complete event per read, its args what entry and return traced;
/// `[` and `]` around one event a line; python3's json reads every line.
#[test]
fn chrome_spans_pair_each_read_exactly() {
    let f = TempPath::new("chrome.dat");
    let o = TempPath::new("trace.pfw.gz");
    let program = bracketed(
        "syscall::read:entry /pid == $target && in_b/ { trace(arg2); }\n\
         syscall::read:return /pid == $target && in_b/ { printf(\"got %d\", arg1); }",
    );
    let out = run(&["-F", "-o", o.str(), "-e", &program, "-c", &bench(3, &f)]);
    out.assert_ok();
    let text = gunzip(&o);
    let mut rows: Vec<&str> = text.lines().collect();
    assert_eq!((rows.first(), rows.last()), (Some(&"["), Some(&"]")), "{text}");
    rows.remove(0);
    rows.pop();
    let events: Vec<J> = rows.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let spans: Vec<&J> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(spans.len(), 12, "{text}");
    let pid = spans[0]["pid"].as_u64().unwrap();
    for s in &spans {
        assert_eq!((s["name"].as_str(), s["cat"].as_str(), s["pid"].as_u64(), s["tid"].as_u64()), (Some("read"), Some("syscall"), Some(pid), Some(pid)), "{s}");
        assert_eq!(s["args"], serde_json::json!({"arg2": 65536, "arg1": 65536, "text": "got 65536"}));
        assert!(s["dur"].as_f64().unwrap() > 0.0 && s["ts"].as_f64().unwrap() > 0.0, "{s}");
    }
    // Times keep their ns: three decimals.
    let raw = rows.iter().find(|l| l.contains("\"ph\":\"X\"")).unwrap();
    let ts = raw.split("\"ts\":").nth(1).unwrap().split(',').next().unwrap();
    assert_eq!(ts.split('.').nth(1).map(str::len), Some(3), "{raw}");
    let meta: Vec<&J> = events.iter().filter(|e| e["ph"] == "M").collect();
    assert_eq!(meta.len(), 2, "{text}");
    assert_eq!((meta[0]["name"].as_str(), meta[0]["args"]["name"].as_str()), (Some("process_name"), Some("io-benchmark")));
    assert_eq!((meta[1]["name"].as_str(), meta[1]["tid"].as_u64()), (Some("thread_name"), Some(pid)));
    assert_eq!(events.len(), 14, "{text}");
    // python3's json, as a Dask or DFTracer reader takes the lines.
    let plain = TempPath::with_contents("trace.pfw", &text);
    let py = std::process::Command::new("python3")
        .args(["-c", "import json,sys\nev=[json.loads(l) for l in open(sys.argv[1]) if l.strip() not in ('[',']')]\nprint(sum(1 for e in ev if e['ph']=='X' and e['name']=='read'))", plain.str()])
        .output()
        .expect("python3 runs");
    assert_eq!(String::from_utf8_lossy(&py.stdout).trim(), "12", "{}", String::from_utf8_lossy(&py.stderr));
}

/// Without -F every firing is an instant event, entries and returns alike.
#[test]
fn chrome_without_flow_has_instant_events() {
    let f = TempPath::new("instant.dat");
    let program = bracketed("syscall::read:entry, syscall::read:return /pid == $target && in_b/ { trace(probename); }");
    let out = run(&["-f", "chrome", "-q", "-e", &program, "-c", &bench(1, &f)]);
    out.assert_ok();
    let events: Vec<J> = out.stdout.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect();
    let instants: Vec<&J> = events.iter().filter(|e| e["ph"] == "i").collect();
    assert_eq!(instants.len(), 8, "{}", out.dump());
    assert_eq!(instants.iter().filter(|e| e["args"] == serde_json::json!({"probename": "entry"})).count(), 4);
    assert_eq!(instants.iter().filter(|e| e["args"] == serde_json::json!({"probename": "return"})).count(), 4);
    assert!(instants.iter().all(|e| e["s"] == "t" && e["name"] == "read"));
}

/// In text, -F is DTrace's flow indentation: => on entry, <= on return.
#[test]
fn flow_in_text_indents_each_read() {
    let f = TempPath::new("flow.dat");
    let program = bracketed("syscall::read:entry, syscall::read:return /pid == $target && in_b/ { }");
    let out = run(&["-F", "-e", &program, "-c", &bench(2, &f)]);
    out.assert_ok();
    assert_eq!(out.stdout.lines().filter(|l| l.contains(" => read")).count(), 8, "{}", out.dump());
    assert_eq!(out.stdout.lines().filter(|l| l.contains(" <= read")).count(), 8, "{}", out.dump());
    assert!(out.stdout.starts_with("CPU FUNCTION"), "{}", out.dump());
}

#[test]
fn bad_formats_and_names_are_errors() {
    let out = run(&["-f", "yaml", "-e", "BEGIN { exit(0); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("`yaml` is not an output format: text, json, chrome or parquet"), "{}", out.dump());
    let o = TempPath::new("x.pfw");
    let out = run(&["-f", "json", "-o", o.str(), "-e", "BEGIN { exit(0); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("-f json does not match -o") && out.stderr.contains("a chrome file"), "{}", out.dump());
    assert!(!o.path().exists(), "nothing written");
}

/// A fault is an `error` object; the text output's -o file stays text.
#[test]
fn faults_and_plain_names() {
    let out = run(&["-f", "json", "-q", "-e", "BEGIN { x = 0; trace(1 / x); } BEGIN { exit(0); }"]);
    out.assert_ok();
    let all = lines(&out.stdout);
    let errors = of_type(&all, "error");
    assert_eq!(errors.len(), 1, "{}", out.dump());
    assert_eq!(errors[0]["probe"], "dtrace:::BEGIN");
    assert!(errors[0]["message"].as_str().unwrap().contains("divide-by-zero"), "{}", out.dump());
    let o = TempPath::new("out.txt");
    run(&["-q", "-o", o.str(), "-e", "BEGIN { printf(\"plain\\n\"); exit(0); }"]).assert_ok();
    assert_eq!(std::fs::read_to_string(o.path()).unwrap(), "plain\n\n");
}

/// A bpftrace program's JSON lines: its printf records, its map of values and its count.
#[test]
fn json_lines_of_a_bpftrace_program() {
    let f = TempPath::new("bt.dat");
    let program = "tracepoint:syscalls:sys_enter_read /pid == cpid && args.count == 65536/ { @n = count(); @last[comm] = args.count; printf(\"r %d\\n\", args.count); }";
    let out = run(&["-f", "json", "-e", program, "-c", &bench(2, &f)]);
    out.assert_ok();
    let all = lines(&out.stdout);
    let records = of_type(&all, "record");
    assert_eq!(records.len(), 8, "{}", out.dump());
    assert!(records.iter().all(|r| r["probe"] == "tracepoint:syscalls::sys_enter_read" && r["values"] == serde_json::json!([65536]) && r["names"] == serde_json::json!(["args.count"]) && r["text"] == "r 65536\n"), "{}", out.dump());
    assert_eq!(of_type(&all, "map"), vec![&serde_json::json!({"type": "map", "name": "last", "keys": ["io-benchmark"], "value": 65536})]);
    assert_eq!(of_type(&all, "aggregation"), vec![&serde_json::json!({"type": "aggregation", "name": "n", "function": "count", "keys": [], "value": 8})]);
    assert_eq!(all.len(), 10, "{}", out.dump());
}

/// Two clauses at one entry probe and two at its return are one call: one span, its args
/// the values of both, its category the one a clause gave.
#[test]
fn chrome_spans_of_several_clauses_per_probe() {
    let f = TempPath::new("twice.dat");
    let program = bracketed(
        "syscall::read:entry /pid == $target && in_b/ { trace(arg2); }\n\
         syscall::read:entry /pid == $target && in_b/ { trace(1); }\n\
         syscall::read:return /pid == $target && in_b/ { trace(arg1); }\n\
         syscall::read:return /pid == $target && in_b/ { trace(2); this->cat = \"LATE\"; trace(this->cat); }",
    );
    let out = run(&["-F", "-f", "chrome", "-e", &program, "-c", &bench(1, &f)]);
    out.assert_ok();
    let spans: Vec<J> = out.stdout.lines().filter(|l| l.contains("\"ph\":\"X\"")).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(spans.len(), 4, "{}", out.dump());
    assert!(spans.iter().all(|s| s["args"] == serde_json::json!({"arg2": 65536, "1": 1, "arg1": 65536, "2": 2})), "{}", out.dump());
    // The second return clause's category: the entry gave none.
    assert!(spans.iter().all(|s| s["cat"] == "LATE"), "{}", out.dump());
    assert!(!out.stderr.contains("without a traced"), "{}", out.dump());
}

/// A bpftrace program's tseries() in JSON lines: its intervals as `series`, not buckets.
#[test]
fn tseries_as_a_series_of_intervals() {
    let out = run(&["-q", "--dialect", "bpftrace", "-f", "json", "-e", r#"BEGIN { @t = tseries(7, 1000s, 3, "sum"); @t = tseries(7, 1000s, 3, "sum"); exit(); }"#]);
    out.assert_ok();
    let all = lines(&out.stdout);
    let rows = of_type(&all, "aggregation");
    assert_eq!(rows.len(), 1, "{}", out.dump());
    assert_eq!(rows[0]["function"], "tseries");
    let series = rows[0]["series"].as_array().unwrap();
    assert_eq!(series.len(), 1, "{}", out.dump());
    assert_eq!(series[0]["value"], 14);
    assert!(series[0]["epoch"].as_u64().unwrap() > 0);
    assert!(rows[0].get("value").is_none() && rows[0].get("buckets").is_none());
}

/// A span's args by name: the entry's, then the return's, a name already given on the
/// return side with `ret_` (then `_2`), the printed text `text`; a string traced as `cat` is the
/// event's category, in spans and instant events alike, and no arg.
#[test]
fn chrome_args_are_named_and_cat_is_the_clauses() {
    let f = TempPath::new("named.dat");
    let program = bracketed(
        "syscall::read:entry /pid == $target && in_b/ { this->cat = \"POSIX\"; trace(this->cat); this->fd = arg0; trace(this->fd); trace(arg2); }\n\
         syscall::read:return /pid == $target && in_b/ { trace(arg0); self->fd = 7; printf(\"%d bytes %d\", arg0, self->fd); }",
    );
    let out = run(&["-F", "-f", "chrome", "-e", &program, "-c", &bench(2, &f)]);
    out.assert_ok();
    let events: Vec<J> = out.stdout.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect();
    let spans: Vec<&J> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(spans.len(), 8, "{}", out.dump());
    let fd = spans[0]["args"]["fd"].as_u64().expect("fd traced");
    for s in &spans {
        assert_eq!((s["name"].as_str(), s["cat"].as_str()), (Some("read"), Some("POSIX")), "{s}");
        assert_eq!(s["args"], serde_json::json!({"fd": fd, "arg2": 65536, "arg0": 65536, "ret_arg0": 65536, "ret_fd": 7, "text": "65536 bytes 7"}), "{s}");
    }
    // In the order the clauses output them, the entry's first.
    let order = format!(r#""args":{{"fd":{fd},"arg2":65536,"arg0":65536,"ret_arg0":65536,"ret_fd":7,"text":"65536 bytes 7"}}}}"#);
    assert_eq!(out.stdout.lines().filter(|l| l.ends_with(&order)).count(), 8, "{}", out.dump());
    assert_eq!(events.len(), 10, "2 metadata events: {}", out.dump());
    // The same name on both sides: the return's with ret_, then _2; both printed: ret_text.
    let program = bracketed(
        "syscall::read:entry /pid == $target && in_b/ { trace(arg0); printf(\"in\"); }\n\
         syscall::read:return /pid == $target && in_b/ { trace(arg0); trace(arg0); printf(\"out\"); }",
    );
    let out = run(&["-F", "-f", "chrome", "-e", &program, "-c", &bench(1, &f)]);
    out.assert_ok();
    let spans: Vec<J> = out.stdout.lines().filter(|l| l.contains("\"ph\":\"X\"")).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(spans.len(), 4, "{}", out.dump());
    for s in &spans {
        let fd = s["args"]["arg0"].as_u64().expect("fd traced");
        assert_eq!(s["args"], serde_json::json!({"arg0": fd, "text": "in", "ret_arg0": 65536, "ret_arg0_2": 65536, "ret_text": "out"}), "{s}");
    }
    // Without -F: instant events, the category a thread-local's.
    let program = bracketed("syscall::read:entry /pid == $target && in_b/ { self->cat = \"STDIO\"; trace(self->cat); trace(arg2); }");
    let out = run(&["-f", "chrome", "-e", &program, "-c", &bench(2, &f)]);
    out.assert_ok();
    let instants: Vec<J> = out.stdout.lines().filter(|l| l.contains("\"ph\":\"i\"")).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(instants.len(), 8, "{}", out.dump());
    assert!(instants.iter().all(|w| w["name"] == "read" && w["cat"] == "STDIO" && w["args"] == serde_json::json!({"arg2": 65536})), "{}", out.dump());
}
