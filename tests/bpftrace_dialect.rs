//! The bpftrace dialect (spec §13) through crumbs' own command line: which programs are
//! bpftrace, how its maps and scratch variables read, and its output at exit (§9.9), byte
//! for byte. Each expected output was checked against bpftrace 0.17 running the same
//! program on the same workload (noted where bpftrace cannot run it here).

mod common;

use common::{crumbs_cmd, io_benchmark, run, run_command, TempPath, TIMEOUT};

/// io-benchmark creating a 64 KiB file and reading it back in 128 reads of 512 bytes.
fn reader(file: &TempPath) -> String {
    format!("{} -c -r -b 512 -s 64K {}", io_benchmark().display(), file.str())
}

/// Every aggregating function and maps of values, printed at exit in bpftrace's layout and
/// order, over io-benchmark's 128 reads of 512 bytes.
#[test]
fn maps_print_at_exit_as_bpftrace_prints_them() {
    let file = TempPath::new("btreads");
    let program = "tracepoint:syscalls:sys_enter_read /pid == cpid/ {
        @reads = count(); @bytes = sum(args->count); @sizes = hist(args->count);
        @lin = lhist(args->count, 0, 1024, 256); @st = stats(args->fd > 2 ? args->count : 0); @byfd[args->fd > 2] = count();
        @last = args->count; @name[comm] = 1; @mx = max(args->count); @mn = min(args->count);
        @av = avg(args->count); }";
    let out = run(&["-e", program, "-c", &reader(&file)]);
    out.assert_ok();
    let want = "Attaching 1 probe...\n\n\n\
@av: 512\n\n\
@byfd[1]: 128\n\
@bytes: 65536\n\
@last: 512\n\
@lin: \n\
[512, 768)           128 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n\
@mn: 512\n\
@mx: 512\n\
@name[io-benchmark]: 1\n\
@reads: 128\n\
@sizes: \n\
[512, 1K)            128 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n\
@st: count 128, average 512, total 65536\n\n";
    assert_eq!(out.stdout, want, "{}", out.dump());
}

/// Pointers in maps print as bpftrace 0.17 prints them: a key in hex (`0x10`, in a tuple
/// of keys too), a value as a signed 64-bit number; a pointer cast to an
/// integer is a number (checked against bpftrace 0.17).
#[test]
fn pointers_in_maps_print_as_bpftrace_prints_them() {
    let program = r#"BEGIN { @b[(int8*)0x10, 2] = 1; @q[(int8*)0] = 1; $p = (int8*)0x10; @s[$p] = count(); @s[(int8*)0x10] = count(); @t[(uint64)5] = 1;
        @f[1] = (int8*)-1; @g = (uint64*)0x2000; printf("%d %d\n", @b[(int8*)0x10, 2], @f[1] == (int8*)-1); exit(); }"#;
    let out = run(&["--dialect", "bpftrace", "-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n1 1\n\n\n@b[0x10, 2]: 1\n@f[1]: -1\n@g: 8192\n@q[0x0]: 1\n@s[0x10]: 2\n@t[5]: 1\n", "{}", out.dump());
}

/// Scratch variables, maps stored into and read back (in predicates too), `++`, delete()
/// and clear(): a read's latency kept per thread between entry and exit, as bpftrace scripts
/// do; only what is left in the maps prints at exit.
#[test]
fn maps_of_values_pair_entry_and_exit() {
    let file = TempPath::new("btpairs");
    let program = "tracepoint:syscalls:sys_enter_read /pid == cpid/ { @start[tid] = nsecs; @fd[tid] = args->fd; @n++; }
        tracepoint:syscalls:sys_exit_read /@start[tid]/ { $lat = nsecs - @start[tid]; @ok[@fd[tid] > 2, args->ret] = count();
            @slow = max($lat); @pairs++; delete(@start[tid]); delete(@fd, tid); @seen[tid] = 1; }
        END { clear(@seen); @left = @n - @pairs + 1; clear(@slow); }";
    let out = run(&["-q", "-e", program, "-c", &reader(&file)]);
    out.assert_ok();
    // Two newlines, @fd emptied (an empty line), @left, @n, @ok, @pairs, then @seen
    // cleared, @slow cleared and @start emptied: an empty line each.
    assert_eq!(out.stdout, "\n\n\n@left: 1\n@n: 128\n@ok[1, 512]: 128\n@pairs: 128\n\n\n\n", "{}", out.dump());
}

/// A bpftrace program that opens files through `cat`: the path from args->filename kept as
/// a user pointer in a map and read with str() at exit, string maps, and time().
#[test]
fn user_pointers_in_maps_and_time() {
    let program = r#"tracepoint:syscalls:sys_enter_openat /comm == "cat"/ { @name[tid] = args->filename; @func[tid] = "openat"; }
        tracepoint:syscalls:sys_exit_openat /@name[tid]/ { time("%H:%M:%S "); printf("%s %s %d\n", @func[tid], str(@name[tid]), args->ret >= 0);
            @opened[str(@name[tid], 6)] = count(); delete(@name[tid]); delete(@func[tid]); }"#;
    let out = run(&["-q", "-e", program, "-c", "cat /etc/hostname /no/such/file"]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let rows: Vec<&str> = out.stdout.lines().filter(|l| l.contains(" openat ")).collect();
    let files: Vec<String> = rows.iter().map(|r| r[9..].to_string()).filter(|r| r.contains("/etc/hostname") || r.contains("/no/such")).collect();
    assert_eq!(files, ["openat /etc/hostname 1", "openat /no/such/file 0"], "{}", out.dump());
    for r in &rows {
        let t = r.as_bytes();
        assert!(t.len() > 9 && t[2] == b':' && t[5] == b':' && t[8] == b' ', "time() is HH:MM:SS: {r}");
    }
    // str(p, 6): five bytes and the NUL (/etc/ld.so.cache and /etc/hostname).
    assert!(out.stdout.contains("@opened[/etc/]: 2\n") && out.stdout.contains("@opened[/no/s]: 1\n"), "{}", out.dump());
    // Every element deleted: @func and @name print as empty lines, no rows.
    assert!(!out.stdout.contains("@func[") && !out.stdout.contains("@name["), "{}", out.dump());
}

/// A `.bt` file is bpftrace whatever it holds; `--dialect` says it for any program, and a
/// program with nothing of bpftrace's own is D.
#[test]
fn which_programs_are_bpftrace() {
    let dir = TempPath::dir("btfiles");
    let script = dir.path().join("count.bt");
    std::fs::write(&script, "BEGIN { @c = count(); @c = count(); exit(); }\n").unwrap();
    let bt = run(&[script.to_str().unwrap()]);
    assert_eq!(bt.stdout, "Attaching 1 probe...\n\n\n@c: 2\n", "{}", bt.dump());
    let d = run(&["-q", "-e", "BEGIN { @c = count(); @c = count(); exit(0); }"]);
    assert_eq!(d.stdout, "\n                2\n", "{}", d.dump());
    let forced = run(&["--dialect", "bpftrace", "-q", "-e", "BEGIN { @c = count(); exit(0); }"]);
    assert_eq!(forced.stdout, "\n\n@c: 1\n", "{}", forced.dump());
    let bad = run(&["--dialect", "awk", "-e", "BEGIN { exit(0); }"]);
    assert_eq!(bad.code(), 2, "{}", bad.dump());
    assert!(bad.stderr.contains("`awk` is not a dialect: d or bpftrace"), "{}", bad.dump());
}

/// Positional parameters: given ones as in D, missing ones 0, and `$#`.
#[test]
fn positional_parameters() {
    let out = run(&["-q", "-e", r#"BEGIN { printf("%d %d %d %s\n", $#, $1 + 1, $3, $$2); exit(); }"#, "41", "word"]);
    assert_eq!(out.stdout, "2 42 0 word\n\n\n", "{}", out.dump());
}

/// With __BPFTRACE_NOTIFY_PROBES_ATTACHED set, that line goes to standard error once the
/// probes are attached, before BEGIN runs (and with -q too); BEGIN's output follows.
#[test]
fn notify_line_for_test_harnesses() {
    let mut cmd = crumbs_cmd(&["-q", "-e", r#"BEGIN { printf("begun\n"); exit(); } tracepoint:syscalls:sys_enter_getpid /pid == 0/ { @ = count(); }"#]);
    cmd.env("__BPFTRACE_NOTIFY_PROBES_ATTACHED", "1");
    let out = run_command(cmd, None, TIMEOUT);
    assert_eq!(out.stderr, "__BPFTRACE_NOTIFY_PROBES_ATTACHED\n", "{}", out.dump());
    assert_eq!(out.stdout, "begun\n\n\n@: 0\n", "{}", out.dump());
    let plain = run(&["-q", "-e", r#"BEGIN { printf("begun\n"); exit(); }"#]);
    assert_eq!(plain.stderr, "", "{}", plain.dump());
}

/// A D program says it too, once its probes are attached (its BEGIN ran before): a script
/// that starts its workload itself waits for the line (the guest lane's DataCrumbs test).
#[test]
fn notify_line_for_a_d_program() {
    let mut cmd = crumbs_cmd(&["-q", "-e", r#"BEGIN { printf("begun\n"); } syscall::getpid:entry /pid == $target/ { @ = count(); }"#, "-c", "true"]);
    cmd.env("__BPFTRACE_NOTIFY_PROBES_ATTACHED", "1");
    let out = run_command(cmd, None, TIMEOUT);
    assert_eq!(out.stderr, "__BPFTRACE_NOTIFY_PROBES_ATTACHED\n", "{}", out.dump());
    assert_eq!(out.stdout, "begun\n\n", "{}", out.dump());
    // exit() in BEGIN: nothing is attached, no line.
    let mut cmd = crumbs_cmd(&["-q", "-e", r#"BEGIN { exit(0); } syscall::getpid:entry { }"#]);
    cmd.env("__BPFTRACE_NOTIFY_PROBES_ATTACHED", "1");
    let out = run_command(cmd, None, TIMEOUT);
    assert_eq!(out.stderr, "", "{}", out.dump());
}

/// Errors of the dialect: a compile error each, with its span and hint, status 2.
#[test]
fn errors_say_what_bpftrace_allows() {
    let cases = [
        ("BEGIN { @c = hist(1); if (@c > 1) { exit(); } }", "map `@c` holds hist(), which cannot be read in an expression", "print the others with print()"),
        ("BEGIN { @a[1] = 2; delete(@a[1], 2); }", "delete() takes a map's element", "delete(@map[key])"),
        ("BEGIN { @a = count(); delete(@a); }", "delete() of aggregation `@a`'s element", "clear(@a)"),
        ("BEGIN { $x = 1; printf(\"%s\\n\", str($x, 0)); }", "str()'s length must be a positive constant", "str(p, 64)"),
        ("BEGIN { printf(\"%d\\n\", $y); }", "scratch variable `$y` is read before it is assigned", "assign `$y = ...;`"),
        ("BEGIN { time(1); }", "time() takes a format string", "strftime(3)"),
    ];
    for (program, message, hint) in cases {
        let out = run(&["--dialect", "bpftrace", "-e", program]);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains(message), "message {message:?}\n{}", out.dump());
        assert!(out.stderr.contains(hint), "hint {hint:?}\n{}", out.dump());
        assert!(out.stdout.is_empty(), "{}", out.dump());
    }
}

/// while with break and continue, unroll, let and return, as bpftrace runs them (checked
/// against bpftrace 0.17 but for `let`, which it does not have yet).
#[test]
fn loops_jumps_and_let() {
    let program = r#"BEGIN { $i = 0; $sum = 0; while ($i < 10) { $i++; if ($i == 3) { continue; } if ($i == 8) { break; } $sum += $i; }
        @sum = $sum; @i = $i; unroll(3) { @u++; printf("u %d\n", @u); } let $z = 5; let $w; $w = 2; @zw = $z * $w;
        if (@sum > 0) { printf("ret\n"); exit(); return; } printf("not here\n"); }"#;
    let out = run(&["-e", program]);
    assert_eq!(out.stdout, "Attaching 1 probe...\nu 1\nu 2\nu 3\nret\n\n\n@i: 8\n@sum: 25\n@u: 3\n@zw: 10\n", "{}", out.dump());
    let cases = [
        ("BEGIN { @c = hist(1); for ($kv : @c) { } }", "map `@c` holds hist(), which cannot be walked by `for`", "print the others with print()"),
        ("BEGIN { break; }", "`break` outside a loop", "leaves or restarts"),
        ("BEGIN { unroll(101) { @x++; } }", "unroll(101) repeats its block 101 times", "from 1 to 100"),
    ];
    for (program, message, hint) in cases {
        let out = run(&["-e", program]);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains(message) && out.stderr.contains(hint), "{message:?} {hint:?}\n{}", out.dump());
    }
    let d = run(&["--dialect", "d", "-e", "BEGIN { while (1) { x = 1; } }"]);
    assert_eq!(d.code(), 2, "{}", d.dump());
    assert!(d.stderr.contains("`while` is bpftrace's, not D's"), "{}", d.dump());
}

/// A loop the verifier sees never ends is refused when loading, with a message that says
/// so (not a code generation bug).
#[test]
fn an_endless_loop_is_refused_by_the_verifier() {
    let out = run(&["-e", "BEGIN { $i = 0; while (1) { $i = 1; } exit(); }"]);
    assert_ne!(out.code(), 0, "{}", out.dump());
    assert!(out.stderr.contains("a while loop never ends"), "{}", out.dump());
    assert!(!out.stderr.contains("bug in crumbs"), "{}", out.dump());
}

/// print(), zero(), clear() of an aggregation and has_key(), checked against bpftrace 0.17
/// (but for has_key(), which it does not have yet).
#[test]
fn map_functions() {
    let program = r#"BEGIN { @a[1] = 10; @a[2] = 20; @a[3] = 30; @c[1] = count(); @c[2] = count(); @c[2] = count(); @h = hist(5);
        print(@a); print(@a, 2); print(@a, 0, 10); print(@c, 1); zero(@c); print(@c, 1); clear(@c); print(@c);
        print(7); print("s"); print(@h); printf("%d %d\n", has_key(@a, 1), has_key(@a, 9)); exit(); }"#;
    let out = run(&["-q", "-e", program]);
    let want = "@a[1]: 10\n@a[2]: 20\n@a[3]: 30\n@a[2]: 20\n@a[3]: 30\n@a[1]: 1\n@a[2]: 2\n@a[3]: 3\n@c[2]: 2\n";
    assert!(out.stdout.starts_with(want), "{}", out.dump());
    let rest = &out.stdout[want.len()..];
    // zero() keeps both keys at 0 (which prints first is a tie), clear() removes them.
    assert!(rest.starts_with("@c[1]: 0\n") || rest.starts_with("@c[2]: 0\n"), "{}", out.dump());
    assert!(rest.ends_with("\n7\ns\n@h: \n[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n1 0\n\n\n@a[1]: 10\n@a[2]: 20\n@a[3]: 30\n\n@h: \n[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n"), "{}", out.dump());
}

/// software: events (page faults counted every 1 in the traced command: as under bpftrace,
/// some are its child's before it execs, named as crumbs), named as bpftrace names them;
/// hardware: events where the machine has the counters, else a clear error.
#[test]
fn software_and_hardware_events() {
    let out = run(&["-e", "software:faults:1 /pid == cpid/ { @[comm] = count(); @p[probe] = count(); } software:cs /pid == cpid/ { @cs[probe] = count(); }", "-c", "/bin/true"]);
    out.assert_ok();
    let count = |key: &str| out.stdout.lines().find_map(|l| l.strip_prefix(key)).and_then(|v| v.trim().parse::<i64>().ok());
    let faults = count("@[true]:").unwrap_or_else(|| panic!("{}", out.dump()));
    assert!(faults > 0, "{}", out.dump());
    assert_eq!(count("@p[software:faults:1]:"), Some(faults + count("@[crumbs]:").unwrap_or(0)), "{}", out.dump());
    assert!(out.stdout.starts_with("Attaching 2 probes...\n"), "{}", out.dump());
    let hw = run(&["-e", "hardware:cycles:1000000 { @ = count(); exit(); }"]);
    if hw.code() != 0 {
        assert!(hw.stderr.contains("cannot open a cpu-cycles perf event") && hw.stderr.contains("hardware counters"), "{}", hw.dump());
    }
    let bad = run(&["-e", "software:nosuch:1 { @ = count(); }"]);
    assert_eq!(bad.code(), 2, "{}", bad.dump());
    assert!(bad.stderr.contains("no software event `nosuch`") && bad.stderr.contains("faults"), "{}", bad.dump());
}

/// kaddr() and cgroupid() are found when compiling; cgroup is the current thread's cgroup;
/// printf's %s prints ksym() as the symbol's name.
#[test]
fn symbols_and_cgroups() {
    let root = if std::path::Path::new("/sys/fs/cgroup/unified").is_dir() { "/sys/fs/cgroup/unified" } else { "/sys/fs/cgroup" };
    let program = format!(r#"tracepoint:syscalls:sys_enter_getppid /pid == cpid/ {{ printf("%d %d %s\n", cgroup > 0, kaddr("vfs_read") > 0, ksym(kaddr("vfs_read"))); @[cgroup == cgroupid("{root}")] = count(); }}"#);
    let out = run(&["-q", "-e", &program, "-c", "sh -c 'exec cat /dev/null'"]);
    out.assert_ok();
    assert!(out.stdout.starts_with("1 1 vfs_read\n"), "{}", out.dump());
    let bad = run(&["-e", r#"BEGIN { printf("%d\n", kaddr("no_such_symbol_here")); }"#]);
    assert_eq!(bad.code(), 2, "{}", bad.dump());
    assert!(bad.stderr.contains("the kernel has no symbol `no_such_symbol_here`"), "{}", bad.dump());
}

/// strftime() of nsecs is the local time then (the wall clock now, give or take the run),
/// printed and as a key.
#[test]
fn strftime_of_nsecs() {
    let out = run(&["-q", "-e", r#"BEGIN { printf("%s\n", strftime("%Y-%m-%d %H:%M", nsecs)); @[strftime("%Y", nsecs)] = count(); exit(); }"#]);
    out.assert_ok();
    let now = |f: &str| String::from_utf8(std::process::Command::new("date").arg(f).output().unwrap().stdout).unwrap().trim().to_string();
    let (printed, year) = (out.stdout.lines().next().unwrap_or_default().to_string(), now("+%Y"));
    assert!(printed.starts_with(&format!("{year}-")) && printed.len() == 16, "{}", out.dump());
    assert!(out.stdout.ends_with(&format!("\n\n\n@[{year}]: 1\n")), "{}", out.dump());
}

/// len() counts a map's elements now: after stores and a delete. clear() empties the map
/// when crumbs reads its record, as bpftrace's asynchronous clear() does, so the firing
/// that clears still counts 2 (bpftrace 0.17 has no len()).
#[test]
fn len_counts_a_maps_elements() {
    let program = r#"BEGIN { @m[1] = 1; @m[2] = 2; @m[3] = 0; printf("%d\n", len(@m)); delete(@m[1]); printf("%d\n", len(@m)); clear(@m); printf("%d\n", len(@m)); exit(); }"#;
    let out = run(&["-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n3\n2\n2\n\n\n\n", "{}", out.dump());
    let out = run(&["-e", "BEGIN { @c = count(); printf(\"%d\\n\", len(@c)); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("len() counts a map of values; @c holds count()"), "{}", out.dump());
}

/// Current bpftrace's spellings: `if` and `for` without parentheses, `$pid` as a scratch
/// variable, a tool's own `#define` of a constant crumbs knows, `.` through a pointer,
/// delete() as a value, getopt() (bpftrace 0.17 has none of them; the values are the ones
/// bpftrace's docs give; @m, emptied, prints as an empty line at exit).
#[test]
fn current_bpftrace_spellings() {
    let program = r#"#define AF_INET 2
        BEGIN { $pid = 5; if $pid > 3 { printf("bare if %d\n", $pid); } else { printf("no\n"); }
            for $i : 0..2 { printf("for %d\n", $i); }
            @m[1] = 1; $d = delete(@m, 1); $e = delete(@m, 1); printf("%d %d %d\n", $d, $e, AF_INET);
            printf("%d\n", curtask.pid == pid);
            printf("%d %d %d %s\n", getopt("n", 7), getopt("flag"), getopt("other"), getopt("s", "dflt")); exit(); }"#;
    let out = run(&["-e", program, "--", "--n=9", "--flag"]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\nbare if 5\nfor 0\nfor 1\n1 0 2\n1\n9 1 0 dflt\n\n\n\n", "{}", out.dump());
    let d = run(&["--dialect", "d", "-e", "BEGIN { if 1 { exit(0); } }"]);
    assert_eq!(d.code(), 2, "{}", d.dump());
    assert!(d.stderr.contains("a condition without parentheses is bpftrace's, not D's"), "{}", d.dump());
}

/// `let @m = hash(N)` declarations: a declared hash holds N elements and drops the next
/// (counted, with the declaration to raise); an lruhash makes room by evicting (which element the kernel picks is
/// approximate: the newest is kept and there are never more than N); an aggregation is
/// declared per CPU. bpftrace's pcomm, leader_comm and leader_tid name the parent and the
/// thread group's leader. (The maps at exit are as bpftrace 0.17 prints them, @l emptied
/// among them.)
#[test]
fn map_declarations_and_process_names() {
    let program = r#"let @h = hash(2); let @l = lruhash(2); let @c = percpuhash(2);
        BEGIN { @h[1] = 1; @h[2] = 2; @h[3] = 3; @l[1] = 1; @l[2] = 2; @l[3] = 3; @c[1] = count(); @c[2] = count();
            printf("%d %d %d\n", len(@h), len(@l), has_key(@l, 3));
            printf("%d %d %s\n", leader_tid == pid, leader_comm == comm, pcomm);
            clear(@l); exit(); }"#;
    let out = run(&["-e", program]);
    out.assert_ok();
    let parent = std::fs::read_to_string("/proc/thread-self/comm").unwrap();
    assert_eq!(out.stdout, format!("Attaching 1 probe...\n2 2 1\n1 1 {}\n\n\n@c[1]: 1\n@c[2]: 1\n@h[1]: 1\n@h[2]: 2\n\n", parent.trim_end()), "{}", out.dump());
    assert!(out.stderr.contains("1 map update drop (a map declared with its size was full; raise the size in its declaration, e.g. `let @a = hash(5000)`)"), "{}", out.dump());
    assert!(!out.stderr.contains("dynvarsize"), "{}", out.dump());
}

/// print() of an element of a map of tuples prints that value, as bpftrace 0.17 does
/// (output byte for byte 0.17's); it was taken for print() of a map with keys.
#[test]
fn print_of_an_element_of_a_map_of_tuples() {
    let program = r#"BEGIN { @m[1] = (1, ("x", 2)); print(@m[1].0); print(@m[1].1); print(@m[1].1.0); exit(); }"#;
    let out = run(&["--dialect", "bpftrace", "-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n1\n(x, 2)\nx\n\n\n@m[1]: (1, (x, 2))\n", "{}", out.dump());
}

/// Maps whose values are records (current bpftrace; 0.17 lacks records): a map per field,
/// stored and read whole and by field, walked by `for`, printed at exit and by print() as
/// current bpftrace's text output writes a record (`{ .a = 1, .b = x }`, fields in name
/// order, strings unquoted); its JSON is in bpftrace_cli.rs.
#[test]
fn maps_of_records() {
    let program = r#"BEGIN { @r[2] = (name = "b", n = 2); @r[1] = (n = 1, name = "a"); @t = (1, (x = "y"));
        $v = @r[2]; printf("%s %d %d\n", $v.name, @r[1].n, @r[1] == (name = "a", n = 1));
        for ($kv : @r) { if ($kv.0 == 1) { printf("for %d %s\n", $kv.1.n, $kv.1.name); } }
        @r[1] = (n = @r[1].n + 10, name = @r[2].name); print(@r); exit(); }"#;
    let out = run(&["--dialect", "bpftrace", "-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\nb 1 1\nfor 1 a\n@r[1]: { .n = 11, .name = b }\n@r[2]: { .n = 2, .name = b }\n\n\n@r[1]: { .n = 11, .name = b }\n@r[2]: { .n = 2, .name = b }\n@t: (1, { .x = y })\n", "{}", out.dump());
}

/// The empty tuple `()` (current bpftrace; 0.17 refuses it): a value of no elements,
/// printed `()`, equal to itself; not a map's key or value.
#[test]
fn the_empty_tuple() {
    let out = run(&["--dialect", "bpftrace", "-e", r#"BEGIN { $e = (); print($e); print((1, ())); if ($e == ()) { printf("eq\n"); } exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n()\n(1, ())\neq\n\n\n", "{}", out.dump());
    let out = run(&["--dialect", "bpftrace", "-e", "BEGIN { @m[1] = (); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("the empty tuple cannot be a map's value"), "{}", out.dump());
}

/// Maps whose values are tuples: stored, read whole and by element, printed at exit and by
/// print() (the first program's output is bpftrace 0.17's, byte for byte; its JSON is in
/// bpftrace_cli.rs); then a loop, has_key, delete and len, which 0.17 lacks. Live: cat's reads keep
/// (fd, comm) per thread at entry, read back at return.
#[test]
fn maps_of_tuples() {
    let program = r#"BEGIN { @m[2] = (1, "a"); @m[1] = (0, "b"); @n = (5, (6, "x")); @s["z"] = (1, 2); @s["a"] = (3,4); print(@m); $t = @m[1]; printf("%d %s\n", $t.0, @m[2].1); exit(); }"#;
    let out = run(&["--dialect", "bpftrace", "-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n@m[1]: (0, b)\n@m[2]: (1, a)\n0 a\n\n\n@m[1]: (0, b)\n@m[2]: (1, a)\n@n: (5, (6, x))\n@s[a]: (3, 4)\n@s[z]: (1, 2)\n", "{}", out.dump());
    let program = r#"BEGIN { @m[1, "x"] = (10, ("a", 7)); @m[2, "y"] = (20, ("b", 8)); @m[3, "z"] = (0, ("c", 9));
        @m[1, "x"] = (@m[1, "x"].0 + 1, @m[2, "y"].1);
        for ($kv : @m) { if ($kv.0.0 == 2) { printf("%s %d %s %d\n", $kv.0.1, $kv.1.0, $kv.1.1.0, $kv.1.1.1); } }
        delete(@m, (3, "z")); printf("%d %d %d %d\n", len(@m), has_key(@m, 1, "x"), has_key(@m, 3, "z"), @m[1, "x"] == (11, ("b", 8)));
        @c[@m[1, "x"].1] = count(); exit(); }"#;
    let out = run(&["--dialect", "bpftrace", "-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\ny 20 b 8\n2 1 0 1\n\n\n@c[b, 8]: 1\n@m[1, x]: (11, (b, 8))\n@m[2, y]: (20, (b, 8))\n", "{}", out.dump());
    let program = r#"tracepoint:syscalls:sys_enter_read /pid == cpid/ { @r[tid] = (args.fd, comm); }
        tracepoint:syscalls:sys_exit_read /has_key(@r, tid)/ { $r = @r[tid]; @reads[$r.1, $r.0] = count(); delete(@r, tid); }"#;
    let dir = TempPath::dir("bttuplemaps");
    let cat = dir.path().join("bttuplecat");
    std::fs::copy("/bin/cat", &cat).unwrap();
    let input = dir.path().join("in");
    std::fs::write(&input, "hello\n").unwrap();
    let out = run(&["--dialect", "bpftrace", "-e", program, "-c", &format!("{} {}", cat.display(), input.display())]);
    out.assert_ok();
    // cat reads the file until read(2) returns 0 (twice); which descriptor it gets depends
    // on what the harness leaves open.
    let rows: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("@reads[")).collect();
    assert!(!rows.is_empty() && rows.iter().all(|r| r.starts_with("@reads[bttuplecat, ")), "{}", out.dump());
    let total: u64 = rows.iter().map(|r| r.rsplit(": ").next().unwrap().parse::<u64>().unwrap()).sum();
    assert!(total >= 2, "{}", out.dump());
    assert!(!out.stdout.contains("@r["), "{}", out.dump());
}

/// exit() ends the clause's run where it is, as bpftrace's does: nothing after it in the
/// clause prints or stores, also inside an `if`; a `return` or `continue` likewise skips
/// the rest of its block (each output is bpftrace 0.17's, byte for byte).
#[test]
fn nothing_after_exit_or_return_runs() {
    for (program, want) in [
        (r#"BEGIN { exit(); printf("after\n"); }"#, "Attaching 1 probe...\n\n\n"),
        (r#"BEGIN { if (1) { printf("a\n"); exit(); } printf("after\n"); } END { printf("end\n"); }"#, "Attaching 2 probes...\na\nend\n\n\n"),
        (r#"BEGIN { @x = 1; exit(); @y = 2; }"#, "Attaching 1 probe...\n\n\n@x: 1\n\n"),
        (r#"BEGIN { if (pid > 0) { printf("a\n"); exit(); } else { exit(); } printf("c\n"); } END { printf("e\n"); }"#, "Attaching 2 probes...\na\ne\n\n\n"),
        (r#"BEGIN { return; printf("x\n"); } END { printf("e\n"); } interval:ms:20 { exit(); }"#, "Attaching 3 probes...\ne\n\n\n"),
        (r#"BEGIN { $i = 0; while ($i < 3) { $i++; if ($i == 2) { continue; } printf("%d\n", $i); } exit(); }"#, "Attaching 1 probe...\n1\n3\n\n\n"),
    ] {
        let out = run(&["--dialect", "bpftrace", "-e", program]);
        out.assert_ok();
        assert_eq!(out.stdout, want, "{program}\n{}", out.dump());
    }
}

/// printf's integer conversions read their argument as C reads bpftrace's 64-bit value (the
/// length modifier picks the width), rand is unsigned, an expression statement prints
/// nothing, and a ternary of two print()s runs one: each output is bpftrace 0.17's, byte for
/// byte.
#[test]
fn printf_widths_rand_and_expression_statements_as_bpftrace() {
    for (program, want) in [
        (
            r#"BEGIN { $x = (int64)(-1); $y = (uint64)5000000000; $z = (int32)(-1); printf("%d %u %d %u | %u %lu %x | %u %hu %d %hd | %ld %lu %c %5.3d %-4hhx|\n", 5000000000, 5000000000, $y, $y, $x, $x, $x, $z, $z, $z, $z, nsecs > 0, $y, 65, 7, 4095); exit(); }"#,
            "Attaching 1 probe...\n705032704 705032704 705032704 705032704 | 4294967295 18446744073709551615 ffffffff | 4294967295 65535 -1 -1 | 1 5000000000 A   007 ff  |\n\n\n",
        ),
        (
            r#"BEGIN { printf("%hhu %hd %hhd %hu %lu %ld %llu %lld %d %u %x %hx %hhx %lx %zu %jd\n", 257, 70000, 255, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1); exit(); }"#,
            "Attaching 1 probe...\n1 4464 -1 65535 18446744073709551615 -1 18446744073709551615 -1 -1 4294967295 ffffffff ffff ff ffffffffffffffff 18446744073709551615 -1\n\n\n",
        ),
        (r#"BEGIN { $n = 0; unroll (20) { $n += rand % 10 >= 0 && rand >= 0; } printf("%d\n", $n); exit(); }"#, "Attaching 1 probe...\n20\n\n\n"),
        (r#"BEGIN { $a = 5; $a; comm; 5; @z[1] = 2; kstack; str(arg0); exit(); }"#, "Attaching 1 probe...\n\n\n@z[1]: 2\n"),
        (r#"BEGIN { $a = 1; $a == 1 ? print("true") : print("false"); $a == 2 ? printf("x\n") : printf("y\n"); exit(); }"#, "Attaching 1 probe...\ntrue\ny\n\n\n"),
    ] {
        let out = run(&["--dialect", "bpftrace", "-e", program]);
        out.assert_ok();
        assert_eq!(out.stdout, want, "{program}\n{}", out.dump());
    }
}

/// strstr() is current bpftrace's: the needle's index in the haystack, -1 if absent (D's
/// strstr() gives the rest of the string).
#[test]
fn strstr_is_an_index_in_bpftrace() {
    let out = run(&["--dialect", "bpftrace", "-e", r#"BEGIN { printf("%d %d %d\n", strstr("hello", "lo"), strstr("hello", "xx"), strstr("hello", "")); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n3 -1 0\n\n\n", "{}", out.dump());
}

/// zero() of a map of values (integers, strings, tuples) keeps its keys and zeroes the
/// values, as it does an aggregation's (output bpftrace 0.17's, byte for byte).
#[test]
fn zero_of_maps_of_values_keeps_keys() {
    let out = run(&["--dialect", "bpftrace", "-e", r#"BEGIN { @m[2] = 7; @n = 3; @s[1] = "abc"; @t[1] = (1, "a"); @c[1] = count(); zero(@m); zero(@n); zero(@s); zero(@t); zero(@c); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n\n\n@c[1]: 0\n@m[2]: 0\n@n: 0\n@s[1]: \n@t[1]: (0, )\n", "{}", out.dump());
}

/// Current bpftrace reads a count, sum, min, max or avg as the integer its CPUs' values
/// merge to, in an expression and in `for` (bpftrace 0.17 refuses both: the outputs follow
/// current bpftrace's docs/language.md "PERCPU types" and its per-CPU reads, avg truncated
/// toward zero). Here the reads agree with the maps printed at exit, over io-benchmark's
/// 128 reads on whichever CPUs it ran, and clear()/zero() empty what is read.
#[test]
fn aggregations_read_as_integers() {
    let program = r#"BEGIN { @c = count(); @s = sum(5); @s = sum(7); @a = avg(-7); @a = avg(-2); @mn = min(4); @mn = min(-3); @mx = max(4); @mx = max(9);
        if (@s == 12) { printf("%d %d %d %d %d\n", (int64)@c, @s, @a, @mn, @mx); }
        @k["b"] = count(); @k["b"] = count(); @k["a"] = count(); @v[1, "x"] = avg(10); @v[1, "x"] = avg(5);
        $x = @k["b"] + @k["none"]; printf("x=%d\n", $x);
        $t = 0; for ($kv : @k) { $t += $kv.1; if ($kv.0 == "b") { printf("k %s %d\n", $kv.0, $kv.1); } } printf("t=%d\n", $t);
        for ($kv : @v) { printf("v %d %s %d\n", $kv.0.0, $kv.0.1, $kv.1); }
        zero(@s); clear(@k); exit(); }
        END { printf("end %d %d\n", @s, @k["b"]); }"#;
    let out = run(&["-q", "-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "1 12 -4 -3 9\nx=2\nk b 2\nt=3\nv 1 x 7\nend 0 0\n\n\n@a: -4\n\n@c: 1\n\n@mn: -3\n@mx: 9\n@s: 0\n@v[1, x]: 7\n\n", "{}", out.dump());

    // A predicate reads @n before its clause updates it.
    let file = TempPath::new("btaggread");
    let program = "tracepoint:syscalls:sys_enter_read /pid == cpid && @n < 1000/ { @n = count(); @b[args.count] = sum(args.count); }
        END { printf(\"read %d %d\\n\", @n, @b[512]); }";
    let out = run(&["-q", "-e", program, "-c", &reader(&file)]);
    out.assert_ok();
    assert!(out.stdout.starts_with("read 128 65536\n\n\n@b[512]: 65536\n@n: 128\n"), "{}", out.dump());
}
