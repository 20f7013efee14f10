//! Lost updates are counted, exactly, and reported on standard error (spec §9.6); the
//! options that make room (aggsize, dynvarsize: §3.2, §5.3, §8.4) make them go away.
//!
//! The workload is io-benchmark, whose only `read()` calls are its loop's: exactly
//! ceil(SIZE / BUFSIZE) per pass. Every update either lands or is counted, so what was kept
//! plus what was dropped is exactly the number of reads.

mod common;

use common::{agg_rows, io_benchmark, run, Output, TempPath};

fn bench() -> String {
    io_benchmark().to_str().unwrap().to_string()
}

/// The drop lines of `kind` ("aggregation drop", "dynamic variable drop", "drop") on
/// standard error: (count, CPU if per CPU, the parenthesis).
fn drops(out: &Output, kind: &str) -> Vec<(u64, Option<u32>, String)> {
    out.stderr
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("crumbs: ")?;
            let (n, rest) = rest.split_once(' ')?;
            let rest = rest.strip_prefix(kind)?.strip_prefix('s').unwrap_or(rest.strip_prefix(kind)?);
            let (cpu, why) = match rest.strip_prefix(" on CPU ") {
                Some(r) => {
                    let (c, why) = r.split_once(' ')?;
                    (Some(c.parse().ok()?), why)
                }
                None => (None, rest.trim_start()),
            };
            Some((n.parse().ok()?, cpu, why.to_string()))
        })
        .collect()
}

fn total(lines: &[(u64, Option<u32>, String)]) -> u64 {
    lines.iter().map(|l| l.0).sum()
}

/// `@[timestamp] = count()` on every read of `-r -b 64 -s 256K`: 4096 distinct keys.
fn timestamp_keys(aggsize: &str) -> (Output, u64) {
    let f = TempPath::new("drops.dat");
    let cmd = format!("{} -c -r -b 64 -s 256K {}", bench(), f.str());
    let out = run(&["-q", "-x", aggsize, "-e", "syscall::read:entry /pid == $target/ { @[timestamp] = count(); }", "-c", &cmd]);
    out.assert_ok();
    (out, 4096)
}

#[test]
fn aggregation_drops_are_counted_exactly_and_aggsize_makes_room() {
    // 16k per CPU is 512 slots of 24 bytes: most of the 4096 keys cannot be kept.
    let (out, reads) = timestamp_keys("aggsize=16k");
    let rows = agg_rows(&out.stdout);
    assert!(rows.iter().all(|(k, v)| k.len() == 1 && *v == 1), "{}", out.dump());
    let lost = drops(&out, "aggregation drop");
    assert!(total(&lost) > 0, "{}", out.dump());
    assert_eq!(rows.len() as u64 + total(&lost), reads, "{}", out.dump());
    for (_, cpu, why) in &lost {
        assert!(cpu.is_some(), "{}", out.dump());
        assert_eq!(why, "(aggregation full; raise it with -x aggsize=64k)", "{}", out.dump());
    }

    let (out, reads) = timestamp_keys("aggsize=1m");
    assert_eq!(agg_rows(&out.stdout).len() as u64, reads, "{}", out.dump());
    assert!(!out.stderr.contains("drop"), "{}", out.dump());
}

#[test]
fn aggsize_out_of_range_is_an_error() {
    let out = run(&["-x", "aggsize=2g", "-e", "BEGIN { exit(0); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("crumbs: -x aggsize=2g: aggsize=2g is out of range (the aggregation space can be 64 to 1g)"), "{}", out.dump());
}

/// Three thread-local variables stored on every read of `-r -b 512 -s 512K` (1024 reads);
/// `@` adds up how many of them were there to read back.
fn three_variables(dynvarsize: &str) -> (Output, i64) {
    let f = TempPath::new("dynvar.dat");
    let cmd = format!("{} -c -r -b 512 -s 512K {}", bench(), f.str());
    let program = "syscall::read:entry /pid == $target/ { self->a = 1; self->b = 2; self->c = 3; \
                   @ = sum((self->a != 0) + (self->b != 0) + (self->c != 0)); }";
    let out = run(&["-q", "-x", dynvarsize, "-e", program, "-c", &cmd]);
    out.assert_ok();
    (out, 1024)
}

#[test]
fn dynamic_variable_drops_are_counted_exactly_and_dynvarsize_makes_room() {
    // 128 bytes: room for two (thread, variable) pairs, so every store to self->c is lost.
    let (out, reads) = three_variables("dynvarsize=128");
    let kept = agg_rows(&out.stdout)[0].1;
    let lost = drops(&out, "dynamic variable drop");
    assert_eq!(lost.len(), 1, "{}", out.dump());
    assert_eq!(lost[0].1, None, "one line for all CPUs\n{}", out.dump());
    assert_eq!(lost[0].2, "(dynamic variables full; raise it with -x dynvarsize=512)", "{}", out.dump());
    assert_eq!(kept + total(&lost) as i64, 3 * reads, "{}", out.dump());
    assert_eq!(total(&lost) as i64, reads, "{}", out.dump());

    let (out, reads) = three_variables("dynvarsize=1k");
    assert_eq!(agg_rows(&out.stdout)[0].1, 3 * reads, "{}", out.dump());
    assert!(!out.stderr.contains("drop"), "{}", out.dump());
}

/// Two io-benchmarks, one per CPU, print a line per read into a 4k buffer: most records are
/// lost, on both CPUs at once, and every one is counted (the counters are per CPU and added
/// to atomically, so no count is lost). (taskset's own reads, before it becomes
/// io-benchmark, are not counted.)
#[test]
fn dropped_records_on_two_busy_cpus_add_up() {
    let (f1, f2) = (TempPath::new("rec1.dat"), TempPath::new("rec2.dat"));
    let pin = |cpu: usize| if std::thread::available_parallelism().map_or(1, |n| n.get()) > cpu { format!("taskset -c {cpu} ") } else { String::new() };
    let one = |cpu: usize, f: &TempPath| format!("{}{} -c -r -b 64 -s 256K {}", pin(cpu), bench(), f.str());
    let cmd = format!("sh -c '{} & {}; wait'", one(0, &f1), one(1, &f2));
    let out = run(&["-q", "-x", "bufsize=4k", "-e", "syscall::read:entry /ppid == $target && execname == \"io-benchmark\"/ { printf(\"%d\\n\", arg2); }", "-c", &cmd]);
    out.assert_ok();
    let printed = out.stdout.lines().filter(|l| *l == "64").count() as u64;
    let lost = drops(&out, "drop");
    assert!(total(&lost) > 0, "{}", out.dump());
    assert_eq!(printed + total(&lost), 2 * 4096, "{}", out.dump());
    for (_, cpu, why) in &lost {
        assert!(cpu.is_some(), "{}", out.dump());
        assert_eq!(why, "(event buffer full; raise it with -x bufsize=16k)", "{}", out.dump());
    }
}

/// Many keyed aggregations in one clause still load: each probe loop is checked by the
/// verifier once per probe, not once per probe of every aggregation before it.
#[test]
fn forty_keyed_aggregations_in_one_clause() {
    let body: String = (0..40).map(|i| format!("@a{i}[timestamp, execname] = count(); ")).collect();
    let f = TempPath::new("forty.dat");
    let cmd = format!("{} -c -r -b 65536 -s 128K {}", bench(), f.str());
    let out = run(&["-q", "-e", &format!("syscall::read:entry /pid == $target/ {{ {body} }}"), "-c", &cmd]);
    out.assert_ok();
    // 2 reads, 40 rows each
    assert_eq!(agg_rows(&out.stdout).len(), 80, "{}", out.dump());
}
