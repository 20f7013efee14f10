//! Live system call tracing with exact counts.
//!
//! The workload is io-benchmark: its only `read()` calls are its loop's, exactly
//! ceil(SIZE / BUFSIZE) per pass (`-n` passes, one `lseek` between passes), and `-j`
//! prints what it did as JSON. Predicates (`pid == $target`, `execname == "..."`) keep
//! other processes out of the counts. The card one-liner and the L41 script select
//! io-benchmark by name only, so every test that runs io-benchmark holds `BY_NAME`:
//! two of them never run at once in this test binary. (Another io-benchmark started on
//! the machine by someone else during those tests would still be counted.)

mod common;

use common::{
    agg_rows, agg_value, assert_no_process_with, int_col, io_benchmark, json_field, path_with_bins, run, run_command, unique,
    Output, TempPath, TIMEOUT,
};
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

static BY_NAME: Mutex<()> = Mutex::new(());

fn by_name() -> MutexGuard<'static, ()> {
    BY_NAME.lock().unwrap_or_else(|e| e.into_inner())
}

fn bench() -> String {
    io_benchmark().to_str().unwrap().to_string()
}

fn script(name: &str) -> String {
    format!("{}/scripts/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// ceil(size / bufsize): the number of read() calls of one pass.
fn reads_per_pass(size: u64, bufsize: u64) -> i64 {
    size.div_ceil(bufsize) as i64
}

/// Runs io-benchmark alone with `-j` and returns its JSON "reads".
fn bench_reads(args: &[&str]) -> i64 {
    let f = TempPath::new("bench.dat");
    let mut cmd = Command::new(io_benchmark());
    cmd.args(args).arg("-j").arg(f.path());
    let out = run_command(cmd, None, TIMEOUT);
    assert_eq!(out.status.code(), Some(0), "{}", out.dump());
    json_field(&out.stdout, "reads").unwrap_or_else(|| panic!("no reads in JSON\n{}", out.dump()))
}

// ---------------------------------------------------------------- (a) the card one-liner

/// The one-liner as on the card, with `-c 'io-benchmark BENCH_ARGS FILE'`, io-benchmark
/// found through PATH as in a shell.
fn card_one_liner(bench_args: &str, f: &TempPath) -> Output {
    let mut cmd = common::crumbs_cmd(&[
        "-e",
        r#"syscall:::entry /comm=="io-benchmark"/ <@[probefunc]=count()>"#,
        "-c",
        &format!("io-benchmark {bench_args} {}", f.str()),
    ]);
    cmd.env("PATH", path_with_bins());
    let out = run_command(cmd, None, TIMEOUT);
    out.assert_ok();
    out
}

#[test]
fn card_one_liner_exactly_as_typed() {
    let _g = by_name();
    let f = TempPath::new("iofile");
    let out = card_one_liner("-c -r -b 512 -s 256K", &f);
    // What the benchmark itself reports for the same run.
    let reported = bench_reads(&["-c", "-r", "-b", "512", "-s", "256K"]);
    assert_eq!(reported, reads_per_pass(256 * 1024, 512));
    assert_eq!(agg_value(&out.stdout, "read"), Some(reported), "{}", out.dump());
    // Every row is one system call name with a positive count.
    let rows = agg_rows(&out.stdout);
    assert!(rows.iter().all(|(k, v)| k.len() == 1 && *v > 0), "{}", out.dump());
    assert_eq!(agg_value(&out.stdout, "exit_group"), Some(1), "{}", out.dump());
    assert!(out.stderr.contains("matched"), "{}", out.dump());
}

#[test]
fn card_one_liner_with_json_in_the_same_run() {
    let _g = by_name();
    let f = TempPath::new("iofile");
    let out = card_one_liner("-c -r -b 4096 -s 256K -j", &f);
    let reported = json_field(&out.stdout, "reads").unwrap_or_else(|| panic!("no JSON\n{}", out.dump()));
    assert_eq!(reported, 64);
    assert_eq!(agg_value(&out.stdout, "read"), Some(reported), "{}", out.dump());
}

// ---------------------------------------------------------------- (b) the L41 script

fn l41(bufsize: u64, passes: u64) {
    let _g = by_name();
    let f = TempPath::new("l41.dat");
    let size = 256 * 1024;
    let cmd = format!("{} -c -r -n {passes} -b {bufsize} -s 256K -j {}", bench(), f.str());
    let out = run(&["-s", &script("l41-syscalls.d"), "-c", &cmd]);
    out.assert_ok();
    let want = reads_per_pass(size, bufsize) * passes as i64;
    assert_eq!(json_field(&out.stdout, "reads"), Some(want), "{}", out.dump());
    assert_eq!(agg_value(&out.stdout, "read"), Some(want), "{}", out.dump());
    // The bracketing calls themselves are not counted.
    assert_eq!(agg_value(&out.stdout, "clock_gettime"), None, "{}", out.dump());
    assert!(!out.stdout.contains("clock_gettime"), "{}", out.dump());
    // One lseek between passes, inside the bracket.
    let lseeks = if passes > 1 { Some(passes as i64 - 1) } else { None };
    assert_eq!(agg_value(&out.stdout, "lseek"), lseeks, "{}", out.dump());
    // No other read-like call sneaks in.
    assert_eq!(agg_value(&out.stdout, "pread64"), None, "{}", out.dump());
    assert!(out.stderr.contains("script '") && out.stderr.contains("l41-syscalls.d' matched"), "{}", out.dump());
}

#[test]
fn l41_script_bufsize_512() {
    l41(512, 1);
}

#[test]
fn l41_script_bufsize_4096_two_passes() {
    l41(4096, 2);
}

#[test]
fn l41_script_bufsize_65536_two_passes() {
    l41(65536, 2);
}

#[test]
fn l41_script_bufsize_512_two_passes() {
    l41(512, 2);
}

#[test]
fn l41_script_uneven_bufsize() {
    // 100K in 1000-byte reads: 102 full reads and a short one.
    let _g = by_name();
    let f = TempPath::new("l41u.dat");
    let cmd = format!("{} -c -r -b 1000 -s 100K {}", bench(), f.str());
    let out = run(&["-q", "-s", &script("l41-syscalls.d"), "-c", &cmd]);
    out.assert_ok();
    assert_eq!(agg_value(&out.stdout, "read"), Some(103), "{}", out.dump());
    assert_eq!(out.stderr, "", "quiet: no banner\n{}", out.dump());
}

// ---------------------------------------------------------------- (c) probes and arguments

#[test]
fn read_entry_arguments() {
    let _g = by_name();
    let f = TempPath::new("args.dat");
    let cmd = format!("{} -c -r -b 4096 -s 64K {}", bench(), f.str());
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::read:entry /pid == $target && execname == "io-benchmark"/ { @size[arg2] = count(); @bytes[arg2, 0] = sum(arg2); }"#,
        "-c",
        &cmd,
    ]);
    out.assert_ok();
    // arg2 of read() is the buffer size: 16 reads of 4096 bytes, 65536 bytes asked for.
    let want = format!("\n{}{}\n{}{}{}\n", int_col(4096), int_col(16), int_col(4096), common::int32_col(0), int_col(65536));
    assert_eq!(out.stdout, want, "{}", out.dump());
}

#[test]
fn read_entry_via_dd_counts_exactly() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::read:entry /pid == $target && arg0 == 0/ { @n = count(); @b = sum(arg2); }"#,
        "-c",
        "dd if=/dev/zero of=/dev/null bs=1k count=7",
    ]);
    out.assert_ok();
    assert_eq!(out.stdout, format!("\n{}\n{}\n", int_col(7), int_col(7 * 1024)), "{}", out.dump());
}

#[test]
fn wildcard_read_return_probes() {
    let _g = by_name();
    let f = TempPath::new("ret.dat");
    let cmd = format!("{} -c -r -b 8192 -s 128K -n 2 {}", bench(), f.str());
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::*read*:return /pid == $target && execname == "io-benchmark"/ { @calls[probefunc] = count(); @bytes[probefunc, 1] = sum(arg0); }"#,
        "-c",
        &cmd,
    ]);
    out.assert_ok();
    assert_eq!(agg_value(&out.stdout, "read"), Some(32), "{}", out.dump());
    // arg0 of a return probe is the return value: the bytes read, 2 x 128K.
    let bytes: Vec<i64> =
        agg_rows(&out.stdout).into_iter().filter(|(k, _)| k == &["read".to_string(), "1".to_string()]).map(|(_, v)| v).collect();
    assert_eq!(bytes, vec![2 * 128 * 1024], "{}", out.dump());
    // Only *read* functions matched.
    for (k, _) in agg_rows(&out.stdout) {
        assert!(k[0].contains("read"), "{k:?} does not match *read*\n{}", out.dump());
    }
}

#[test]
fn read_return_with_pid_target_counts_only_the_commands_reads() {
    // `pid == $target` must select the traced command's system calls only: nothing that
    // crumbs' own forked child does before it execs the command may show up.
    let _g = by_name();
    let f = TempPath::new("pidret.dat");
    std::fs::write(f.path(), vec![7u8; 64 * 1024]).unwrap();
    let cmd = format!("{} -r -b 4096 {}", bench(), f.str());
    let out = run(&["-q", "-e", r#"syscall::read:return /pid == $target/ { @[execname, arg0] = count(); }"#, "-c", &cmd]);
    out.assert_ok();
    let want = format!("\n{}{}{}\n", common::str_col("io-benchmark"), int_col(4096), int_col(16));
    assert_eq!(out.stdout, want, "{}", out.dump());
}

#[test]
fn write_return_values() {
    let _g = by_name();
    let f = TempPath::new("w.dat");
    let cmd = format!("{} -c -w -b 4096 -s 64K -j {}", bench(), f.str());
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::write:return /pid == $target && execname == "io-benchmark" && arg0 == 4096/ { @w["loop"] = count(); }
           syscall::write:return /pid == $target && execname == "io-benchmark" && arg0 != arg1/ { @w["mismatch"] = count(); }
           syscall::write:return /pid == $target && execname == "io-benchmark"/ { @e["errno"] = max(errno); }"#,
        "-c",
        &cmd,
    ]);
    out.assert_ok();
    let writes = json_field(&out.stdout, "writes").unwrap_or_else(|| panic!("no JSON\n{}", out.dump()));
    assert_eq!(writes, 16);
    assert_eq!(agg_value(&out.stdout, "loop"), Some(writes), "{}", out.dump());
    assert_eq!(agg_value(&out.stdout, "mismatch"), None, "arg0 and arg1 are both the return value\n{}", out.dump());
    assert_eq!(agg_value(&out.stdout, "errno"), Some(0), "{}", out.dump());
}

#[test]
fn failing_syscall_sets_errno() {
    let _g = by_name();
    // io-benchmark opens its file once; ENOENT is 2, the return value -2.
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::openat:return /pid == $target && execname == "io-benchmark"/ { printf("%d %d %d\n", arg0, arg1, errno); }"#,
        "-c",
        &format!("{} -r /nonexistent-{}/file", bench(), unique()),
    ]);
    out.assert_ok();
    assert_eq!(out.stdout, "-2 -2 2\n\n", "{}", out.dump());
}

#[test]
fn failing_syscall_of_cat() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::openat:return /pid == $target && arg0 < 0/ { @fail[arg0, errno] = count(); }
           syscall::openat:return /pid == $target && arg0 >= 0/ { @ok[errno] = count(); }"#,
        "-c",
        "cat /nonexistent",
    ]);
    out.assert_ok();
    let rows = agg_rows(&out.stdout);
    let fails: Vec<_> = rows.iter().filter(|(k, _)| k.len() == 2).collect();
    assert!(!fails.is_empty(), "cat's failed openat not seen\n{}", out.dump());
    for (k, v) in &fails {
        assert_eq!((k[0].as_str(), k[1].as_str()), ("-2", "2"), "{}", out.dump());
        assert!(*v >= 1);
    }
    // Successful opens have errno 0.
    for (k, _) in rows.iter().filter(|(k, _)| k.len() == 1) {
        assert_eq!(k[0], "0", "{}", out.dump());
    }
}

#[test]
fn probe_description_variables() {
    let _g = by_name();
    let f = TempPath::new("pv.dat");
    let cmd = format!("{} -c -r -b 65536 -s 128K {}", bench(), f.str());
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::read:entry,syscall::read:return /pid == $target && execname == "io-benchmark"/ { @[probeprov, probemod, probefunc, probename] = count(); }"#,
        "-c",
        &cmd,
    ]);
    out.assert_ok();
    let r = |name: &str| format!("{}{}{}{}{}\n", common::str_col("syscall"), common::str_col("vmlinux"), common::str_col("read"), common::str_col(name), int_col(2));
    assert_eq!(out.stdout, format!("\n{}{}", r("entry"), r("return")), "{}", out.dump());
}

#[test]
fn id_is_the_probe_id_that_l_lists() {
    // The ids of read's entry and return probes, from -l.
    let listed = run(&["-l", "-e", "syscall::read:entry,syscall::read:return"]);
    listed.assert_ok();
    let ids: Vec<String> = listed.stdout.lines().skip(1).map(|l| l.split_whitespace().next().unwrap().to_string()).collect();
    assert_eq!(ids.len(), 2, "{}", listed.dump());
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::read:entry /pid == $target && arg0 == 0/ { self->in = 1; printf("%s %d\n", probename, id); }
           syscall::read:return /self->in/ { self->in = 0; printf("%s %d\n", probename, id); }"#,
        "-c",
        "dd if=/dev/zero of=/dev/null bs=1k count=1",
    ]);
    out.assert_ok();
    assert_eq!(out.stdout, format!("entry {}\nreturn {}\n\n", ids[0], ids[1]), "{}", out.dump());
    // In a return clause that sends no record, `id` alone needs the system call number
    // (the fuzzer found it read before it was loaded).
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::read:entry /pid == $target && arg0 == 0/ { self->in = 1; } syscall::read:return /self->in/ { self->in = 0; @[id] = count(); }"#,
        "-c",
        "dd if=/dev/zero of=/dev/null bs=1k count=2",
    ]);
    out.assert_ok();
    assert_eq!(out.stdout, format!("\n{}{}\n", common::int32_col(ids[1].parse().unwrap()), int_col(2)), "{}", out.dump());
}

#[test]
fn probefunc_comparison_in_predicate() {
    let _g = by_name();
    let f = TempPath::new("pf.dat");
    let cmd = format!("{} -c -r -b 65536 -s 128K {}", bench(), f.str());
    let out = run(&[
        "-q",
        "-e",
        r#"syscall:::entry /pid == $target && execname == "io-benchmark" && probefunc == "read" && probename == "entry"/ { @["read"] = count(); }
           syscall:::entry /pid == $target && execname == "io-benchmark" && probefunc != "read" && probeprov == "syscall"/ { @["other"] = count(); }"#,
        "-c",
        &cmd,
    ]);
    out.assert_ok();
    assert_eq!(agg_value(&out.stdout, "read"), Some(2), "{}", out.dump());
    assert!(agg_value(&out.stdout, "other").unwrap_or(0) > 0, "{}", out.dump());
}

#[test]
fn syscall_probe_line_not_quiet() {
    let out = run(&["-e", "syscall::exit_group:entry /pid == $target/", "-c", "true"]);
    out.assert_ok();
    let lines: Vec<&str> = out.stdout.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 3, "{}", out.dump());
    assert_eq!(lines[0], "CPU     ID                    FUNCTION:NAME\n");
    let l = lines[1];
    assert!(l.len() > 44, "{}", out.dump());
    assert!(l[0..3].trim_start().parse::<u32>().is_ok(), "{}", out.dump());
    assert!(l[4..10].trim_start().parse::<u32>().is_ok(), "{}", out.dump());
    assert_eq!(&l[10..], format!(" {:>32} \n", "exit_group:entry"), "{}", out.dump());
    assert_eq!(lines[2], "\n");
    assert!(out.stderr.contains("matched 1 probe"), "{}", out.dump());
}

// ---------------------------------------------------------------- process control

#[test]
fn end_runs_after_the_c_command_exits() {
    let out = run(&["-q", "-e", r#"BEGIN { printf("begin\n"); } END { printf("end %d\n", $target > 0); }"#, "-c", "true"]);
    out.assert_ok();
    assert_eq!(out.stdout, "begin\nend 1\n\n", "{}", out.dump());
}

#[test]
fn c_command_output_comes_through() {
    let out = run(&["-q", "-e", r#"END { printf("end\n"); }"#, "-c", "echo hello from the child"]);
    out.assert_ok();
    assert_eq!(out.stdout, "hello from the child\nend\n\n", "{}", out.dump());
}

#[test]
fn trace_a_running_process_with_p() {
    let mut sleeper = Command::new("sleep").arg("2").stdin(Stdio::null()).spawn().expect("start sleep");
    let pid = sleeper.id().to_string();
    let start = Instant::now();
    let out = run(&["-q", "-e", r#"syscall:::entry /pid == $target/ { @[probefunc] = count(); } END { printf("end %d\n", $target); }"#, "-p", &pid]);
    let status = common::wait_with_timeout(&mut sleeper, Duration::from_secs(5), "sleep 2");
    assert!(status.success());
    out.assert_ok();
    // crumbs stops when the process does.
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}\n{}", start.elapsed(), out.dump());
    assert!(out.stdout.starts_with(&format!("end {pid}\n\n")), "{}", out.dump());
    assert_eq!(agg_value(&out.stdout, "exit_group"), Some(1), "{}", out.dump());
}

#[test]
fn exit_from_a_syscall_probe() {
    // A unique command line lets the test see whether the -c process is left running.
    let secs = format!("30.{:06}", unique() * 7919 % 1_000_000 + std::process::id() as usize % 1000);
    let sleep_cmd = format!("sleep {secs}");
    let start = Instant::now();
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::clock_nanosleep:entry,syscall::nanosleep:entry /pid == $target/ { printf("sleeping\n"); exit(5); }
           END { printf("end\n"); }"#,
        "-c",
        &sleep_cmd,
    ]);
    out.assert_no_panic();
    assert_eq!(out.code(), 5, "{}", out.dump());
    assert_eq!(out.stdout, "sleeping\nend\n\n", "{}", out.dump());
    assert!(start.elapsed() < Duration::from_secs(10), "crumbs waited for the command\n{}", out.dump());
    // The command crumbs started is not left behind.
    assert_no_process_with(&sleep_cmd, Duration::from_secs(3));
}

#[test]
fn exit_from_every_syscall_discards_the_rest() {
    // spec §7.4, §9.1: many firings may call exit() before the probes are detached; the
    // records after the first one read are discarded, and END still runs and prints.
    let out = run(&["-q", "-e", r#"syscall:::entry { exit(0); } END { printf("end\n"); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "end\n\n", "{}", out.dump());
    assert_eq!(out.stderr, "", "{}", out.dump());
}

#[test]
fn exit_in_begin_never_starts_the_c_command() {
    // spec §9.1, §10.2: if BEGIN calls exit(), the -c command is killed before its first
    // instruction. END's output is larger than a pipe, so crumbs blocks writing it while
    // this test does not read: a released command would have all that time to run.
    let marker = TempPath::new("never-created");
    let mut child = common::crumbs_cmd(&[
        "-q",
        "-e",
        r#"BEGIN { printf("target %d\n", $target > 0); exit(3); } END { printf("%65535d%65535d%65535d\n", 1, 2, 3); }"#,
        "-c",
        &format!("touch {}", marker.str()),
    ])
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("spawn crumbs");
    std::thread::sleep(Duration::from_millis(1500));
    let mut stdout = String::new();
    child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = common::wait_with_timeout(&mut child, TIMEOUT, "crumbs");
    assert_eq!(status.code(), Some(3), "stdout: {:?}\nstderr: {stderr}", &stdout[..stdout.len().min(100)]);
    assert_eq!(stderr, "");
    assert!(stdout.starts_with("target 1\n"), "{:?}", &stdout[..stdout.len().min(100)]);
    assert_eq!(stdout.len(), "target 1\n".len() + 3 * 65535 + 1 + 1, "END's output and the final newline");
    assert!(!marker.path().exists(), "the -c command ran although BEGIN called exit()");
}

#[test]
fn p_of_a_process_that_does_not_exist() {
    // spec §9.1, §10.2: the pidfd is opened before BEGIN runs, so BEGIN prints nothing.
    // pid_max itself is never a process id.
    let pid = std::fs::read_to_string("/proc/sys/kernel/pid_max").unwrap().trim().to_string();
    let out = run(&["-q", "-e", r#"BEGIN { printf("begin\n"); exit(0); }"#, "-p", &pid]);
    out.assert_no_panic();
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert_eq!(out.stdout, "", "BEGIN must not run\n{}", out.dump());
    assert_eq!(out.stderr, format!("crumbs: -p {pid}: cannot watch that process: No such process (os error 3)\n"), "{}", out.dump());
}

#[test]
fn p_process_exit_is_reported_unless_quiet() {
    // spec §10.2: as for -c, "crumbs: pid N has exited" on stderr, not with -q.
    for quiet in [false, true] {
        let mut sleeper = Command::new("sleep").arg("0.5").stdin(Stdio::null()).spawn().expect("start sleep");
        let pid = sleeper.id().to_string();
        let program = r#"END { printf("end\n"); }"#;
        let mut args = vec!["-e", program, "-p", &pid];
        if quiet {
            args.insert(0, "-q");
        }
        let out = run(&args);
        let status = common::wait_with_timeout(&mut sleeper, Duration::from_secs(5), "sleep 0.5");
        assert!(status.success());
        out.assert_ok();
        if quiet {
            assert_eq!(out.stdout, "end\n\n", "{}", out.dump());
            assert_eq!(out.stderr, "", "{}", out.dump());
        } else {
            assert!(out.stdout.ends_with(":END end\n\n\n"), "{}", out.dump());
            assert_eq!(
                out.stderr,
                format!("crumbs: description '{program}' matched 1 probe\ncrumbs: pid {pid} has exited\n"),
                "{}",
                out.dump()
            );
        }
    }
}

/// Spawns crumbs, waits until its probes see this process, runs `work`, sends SIGINT,
/// and returns (exit code, stdout, stderr).
fn interrupt_after(program: &str, work: impl FnOnce()) -> (Option<i32>, String, String) {
    signal_after(program, libc::SIGINT, work)
}

/// Like [`interrupt_after`] with another signal.
fn signal_after(program: &str, signal: i32, work: impl FnOnce()) -> (Option<i32>, String, String) {
    let mut child = common::crumbs_cmd(&["-q", "-e", program])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn crumbs");
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let out_thread = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match so.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    all.extend_from_slice(&buf[..n]);
                    let _ = tx.send(buf[..n].to_vec());
                }
            }
        }
        all
    });
    let err_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = se.read_to_end(&mut v);
        v
    });
    // getppid() from this process until crumbs reports that it saw one.
    let start = Instant::now();
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains("ready\n") {
        if start.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("crumbs never saw getppid(); output so far: {:?}", String::from_utf8_lossy(&seen));
        }
        let _ = std::os::unix::process::parent_id();
        if let Ok(chunk) = rx.recv_timeout(Duration::from_millis(50)) {
            seen.extend(chunk);
        }
    }
    work();
    // SAFETY: sending a signal to the crumbs process this test spawned.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
    let status = common::wait_with_timeout(&mut child, Duration::from_secs(10), "crumbs after the signal");
    let out = out_thread.join().unwrap();
    let err = err_thread.join().unwrap();
    (status.code(), String::from_utf8_lossy(&out).into_owned(), String::from_utf8_lossy(&err).into_owned())
}

/// The signal tests' program: "ready" on this thread's first getppid(), a count of its
/// getsid() calls, "end" in END. Filtering by thread id keeps the tests that run in
/// parallel in this process out of each other's counts.
fn ctrl_c_program() -> String {
    // SAFETY: gettid() has no side effects.
    let tid = unsafe { libc::gettid() };
    format!(
        r#"syscall::getppid:entry /tid == {tid} && !ready/ {{ ready = 1; printf("ready\n"); }}
           syscall::getsid:entry /tid == {tid}/ {{ @sid = count(); }}
           END {{ printf("end\n"); }}"#
    )
}

fn five_getsid() {
    for _ in 0..5 {
        // SAFETY: getsid(0) has no side effects.
        unsafe {
            libc::getsid(0);
        }
    }
}

#[test]
fn ctrl_c_stops_runs_end_and_prints_aggregations() {
    let (code, out, err) = interrupt_after(&ctrl_c_program(), five_getsid);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(code, Some(0), "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.starts_with("ready\n"), "{out}");
    assert!(out.contains("end\n"), "END did not run:\n{out}");
    assert!(out.ends_with(&format!("end\n\n{}\n", int_col(5))), "{out:?}");
}

#[test]
fn ctrl_c_output_layout_like_dtrace() {
    // dtrace(1M): the first SIGINT makes the work loop print "\n" (even when quiet, to
    // end the terminal's ^C line) before the remaining records and END; then the "\n"
    // of the end of tracing, then the aggregations (runtime/src/output/record.rs).
    let (code, out, err) = interrupt_after(&ctrl_c_program(), five_getsid);
    assert_eq!(code, Some(0), "stdout:\n{out}\nstderr:\n{err}");
    assert_eq!(out, format!("ready\n\nend\n\n{}\n", int_col(5)));
}

#[test]
fn sigterm_also_stops_cleanly() {
    let (code, out, err) = signal_after(&ctrl_c_program(), libc::SIGTERM, five_getsid);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(code, Some(0), "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("end\n"), "END did not run:\n{out}");
    assert!(out.ends_with(&format!("end\n\n{}\n", int_col(5))), "{out:?}");
}
