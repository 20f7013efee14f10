//! Stacks, symbols, probes and names kept in bpftrace maps and scratch variables (spec
//! §13.12), live: stored in one probe keyed by the thread, read back in another as keys,
//! printed by print()/printf and at exit in bpftrace's layout. The exact outputs were
//! checked against bpftrace 0.17 running the same programs on the same workloads (diff of
//! the two outputs: identical; where bpftrace 0.17 cannot symbolize a user stack of a
//! process that has exited, its layout only).

mod common;

use common::{compiled_c, io_benchmark, run, TempPath, CALLS};

/// The lines of the first stack key of `@name` in `out` (a `@name[` line, then the frames,
/// then `]: `).
fn stack_key<'a>(out: &'a str, name: &str) -> Vec<&'a str> {
    let start = out.find(&format!("@{name}[\n")).unwrap_or_else(|| panic!("no @{name} in\n{out}")) + name.len() + 3;
    let end = start + out[start..].find("]: ").expect("the key's end");
    out[start..end].lines().collect()
}

/// A kernel stack, the probe and the user name stored at sys_enter_read per thread, read
/// back at sys_exit_read: a stack key, a key of probe and name, a scratch variable printed
/// by print() and printf's %s, and maps holding them printed at exit. io-benchmark's 32
/// reads of 512 bytes; bpftrace 0.17 prints the same bytes.
#[test]
fn kernel_stacks_probes_and_names_stored_per_thread() {
    let file = TempPath::new("btstored-reads");
    let program = r#"tracepoint:syscalls:sys_enter_read /pid == cpid/ { @s[tid] = kstack(3); @p[tid] = probe; @n[tid] = username; @in[tid] = 1; }
        tracepoint:syscalls:sys_exit_read /@in[tid]/ { @c[@s[tid]] = count(); @by[@p[tid], @n[tid]] = count(); $s = @s[tid];
            @last = $s; @lastp = @p[tid];
            if (@once == 0) { @once = 1; print($s); printf("%s %s %s|\n", @p[tid], @n[tid], $s); }
            delete(@s[tid]); delete(@p[tid]); delete(@n[tid]); delete(@in[tid]); }"#;
    let cmd = format!("{} -c -r -b 512 -s 16K {}", io_benchmark().display(), file.str());
    let out = run(&["-e", program, "-c", &cmd]);
    out.assert_ok();
    let frames = stack_key(&out.stdout, "c");
    assert_eq!(frames.len(), 3, "kstack(3)\n{}", out.dump());
    for f in &frames {
        let (name, offset) = f.strip_prefix("    ").and_then(|f| f.rsplit_once('+')).unwrap_or_else(|| panic!("`    function+offset`: {f:?}"));
        assert!(!name.is_empty() && offset.parse::<u64>().is_ok(), "{f}");
    }
    // As a value: the frames indented by 8, an empty line before and after.
    let value: String = frames.iter().map(|f| format!("    {f}\n")).collect();
    let want = format!(
        "Attaching 2 probes...\n\n{value}\ntracepoint:syscalls:sys_enter_read root \n{value}|\n\n\n\
@by[tracepoint:syscalls:sys_enter_read, root]: 32\n\
@c[\n{keys}]: 32\n\n\
@last: \n{value}\n\
@lastp: tracepoint:syscalls:sys_enter_read\n\
@n: \n@once: 1\n\n\n",
        keys = frames.iter().map(|f| format!("{f}\n")).collect::<String>(),
    );
    let want = want.replace("@n: \n", "\n");
    assert_eq!(out.stdout, want, "{}", out.dump());
}


/// A user stack and a user symbol (16 bytes: the address and the process) stored at the
/// uprobe, read back at the uretprobe as keys and into scratch variables, and maps holding
/// them printed at exit: symbolized in the process that recorded them. bpftrace 0.17 prints
/// the same layout (it cannot name the frames of the process once it has exited).
#[test]
fn user_stacks_and_symbols_stored_per_thread() {
    let dir = TempPath::dir("btstored-ustack");
    let exe = compiled_c(&dir, "calls", CALLS, &["-O0", "-fno-omit-frame-pointer"]);
    let program = format!(
        r#"uprobe:{exe}:c {{ @s[tid] = ustack(3); @f[tid] = usym(reg("ip")); $x = @f[tid]; print($x); }}
        uretprobe:{exe}:c {{ @k[@s[tid], @f[tid]] = count(); $u = @s[tid]; print($u); printf("%s|\n", $u);
            @last = $u; @lastf = @f[tid]; delete(@s[tid]); delete(@f[tid]); }}"#
    );
    let out = run(&["-e", &program, "-c", &exe]);
    out.assert_ok();
    // The stack key's frames, then the symbol key after them.
    let frames: Vec<&str> = stack_key(&out.stdout, "k").into_iter().take_while(|f| *f != ", c").collect();
    assert_eq!(frames.len(), 3, "{}", out.dump());
    assert_eq!(frames[0], "    c+0", "{}", out.dump());
    assert!(frames[1].starts_with("    b+") && frames[2].starts_with("    a+"), "{}", out.dump());
    let value: String = frames.iter().map(|f| format!("    {f}\n")).collect();
    let keys: String = frames.iter().map(|f| format!("{f}\n")).collect();
    // print($x), print($u) and printf; the two newlines that end tracing; @f emptied;
    // @k, @last, @lastf; @s emptied.
    let want = format!("Attaching 2 probes...\nc\n\n{value}\n\n{value}|\n\n\n\n@k[\n{keys}, c]: 1\n@last: \n{value}\n@lastf: c\n\n");
    assert_eq!(out.stdout, want, "{}", out.dump());
}

/// bpftrace's tools/biostacks.bt as it is today (tuple keys, `args.dev`): each block I/O's
/// initialization stack kept in a map keyed by device and sector, its latency histogram
/// keyed by that stack when the request is issued. dd writing a file with O_DIRECT and
/// O_SYNC on this host's disk.
#[test]
fn tool_biostacks_keys_latencies_by_stored_stacks() {
    const BIOSTACKS: &str = r#"#!/usr/bin/env bpftrace
// biostacks - Show disk I/O latency with initialization stacks.
//
// See BPF Performance Tools, Chapter 9, for an explanation of this tool.
//
// Example of usage:
//
// # ./biostacks.bt
// Attaching 5 probes...
// Tracing block I/O with init stacks. Hit Ctrl-C to end.
// ^C
//
// @usecs[
//     blk_account_io_start+1
//     blk_mq_make_request+1102
//     generic_make_request+292
//     submit_bio+115
//     _xfs_buf_ioapply+798
//     xfs_buf_submit+101
//     xlog_bdstrat+43
//     xlog_sync+705
//     xlog_state_release_iclog+108
//     _xfs_log_force+542
//     xfs_log_force+44
//     xfsaild+428
//     kthread+289
//     ret_from_fork+53
// ]:
// [64K, 128K)            1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
//
// [...]
//
// @usecs[
//     blk_account_io_start+1
//     blk_mq_make_request+707
//     generic_make_request+292
//     submit_bio+115
//     xfs_add_to_ioend+455
//     xfs_do_writepage+758
//     write_cache_pages+524
//     xfs_vm_writepages+190
//     do_writepages+75
//     __writeback_single_inode+69
//     writeback_sb_inodes+481
//     __writeback_inodes_wb+103
//     wb_writeback+625
//     wb_workfn+384
//     process_one_work+478
//     worker_thread+50
//     kthread+289
//     ret_from_fork+53
// ]:
// [8K, 16K)            560 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
// [16K, 32K)           218 |@@@@@@@@@@@@@@@@@@@@                                |
// [32K, 64K)            26 |@@                                                  |
// [64K, 128K)            2 |                                                    |
// [128K, 256K)          53 |@@@@                                                |
// [256K, 512K)          60 |@@@@@                                               |
//
// This output shows the most frequent stack was XFS writeback, with latencies
// between 8 and 512 microseconds. The other stack included here shows an XFS
// log sync.
//
// Copyright (c) 2019 Brendan Gregg.
// This was originally created for the BPF Performance Tools book
// published by Addison Wesley. ISBN-13: 9780136554820
// When copying or porting, include this comment.

BEGIN
{
  printf("Tracing block I/O with init stacks. Hit Ctrl-C to end.\n");
}

tracepoint:block:block_io_start
{
  $key = (args.dev, args.sector);
  @reqstack[$key] = kstack;
  @reqts[$key] = nsecs;
}

tracepoint:block:block_rq_issue
/@reqts[args.dev, args.sector]/
{
  $key = (args.dev, args.sector);
  @usecs[@reqstack[$key]] = hist(nsecs - @reqts[$key]);
  delete(@reqstack, $key);
  delete(@reqts, $key);
}

END
{
  clear(@reqstack);
  clear(@reqts);
}
"#;
    let dir = TempPath::dir("btstored-bio");
    let tool = dir.path().join("biostacks.bt");
    std::fs::write(&tool, BIOSTACKS).unwrap();
    let cmd = format!("/usr/bin/dd if=/dev/zero of={}/io bs=4k count=32 oflag=direct,sync", dir.str());
    let out = run(&[tool.to_str().unwrap(), "-c", &cmd]);
    out.assert_ok();
    assert!(out.stdout.starts_with("Attaching 4 probes...\nTracing block I/O with init stacks. Hit Ctrl-C to end.\n"), "{}", out.dump());
    let frames = stack_key(&out.stdout, "usecs");
    assert!(frames.len() > 3, "{}", out.dump());
    assert!(frames.iter().all(|f| f.strip_prefix("    ").and_then(|f| f.rsplit_once('+')).is_some_and(|(n, o)| !n.is_empty() && o.parse::<u64>().is_ok())), "{}", out.dump());
    assert!(frames.iter().any(|f| f.contains("submit_bio")), "a block I/O's stack\n{}", out.dump());
    // The key's closing line, then a histogram of microseconds.
    let after = &out.stdout[out.stdout.find("]: \n").expect("a histogram after the stack")..];
    let bucket = after.lines().nth(1).unwrap_or_default();
    assert!(bucket.starts_with('[') && bucket.contains(") ") && bucket.ends_with('|'), "{bucket:?}\n{}", out.dump());
    // Tracing ends (two newlines), then @reqstack and @reqts, cleared at END: an empty
    // line each, before @usecs.
    assert!(out.stdout.contains("Hit Ctrl-C to end.\n\n\n\n\n@usecs[\n"), "{}", out.dump());
    assert!(out.stdout.ends_with("|\n\n"), "{}", out.dump());
}

/// Arithmetic on a stored stack is a diagnostic: span, message, hint, exit status 2.
#[test]
fn computing_with_a_stored_stack_is_an_error() {
    let out = run(&["-e", "tracepoint:syscalls:sys_enter_read { @s[tid] = kstack; @s[tid] += 1; }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("a compound assignment of `@s[...]`, which holds a stack"), "{}", out.dump());
    assert!(out.stderr.contains("it is printed as text, never computed with"), "{}", out.dump());
}
