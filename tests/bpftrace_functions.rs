//! bpftrace's functions and variables that D spells otherwise or lacks (spec §13.4), run
//! for real; each expected output was checked against bpftrace 0.17 running the same
//! program on the same workload (noted where bpftrace 0.17 cannot run it).

mod common;

use common::{io_benchmark, run, TempPath};

/// io-benchmark creating a 64 KiB file and reading it back in 128 reads of 512 bytes: it
/// opens the file twice, to write (O_WRONLY|O_CREAT|O_TRUNC) and to read (O_RDONLY).
fn reader(file: &TempPath) -> String {
    format!("{} -c -r -b 512 -s 64K {}", io_benchmark().display(), file.str())
}

/// bswap() at its argument's width, strcontains() of constants, numaid (this machine has
/// one NUMA node).
#[test]
fn bswap_strcontains_and_numaid_of_constants() {
    let program = r#"BEGIN { $i = (uint32)0x12345678; printf("%x %x %x %d\n", bswap($i), bswap((uint16)0x1234), bswap((uint8)0x12), strcontains("hello", "ll"));
        printf("%d %d %d\n", strcontains("hello", ""), strcontains("", "x"), strcontains("abc", "abcd")); printf("%d\n", numaid); exit(); }"#;
    let out = run(&["-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n78563412 3412 12 1\n1 0 0\n0\n\n\n", "{}", out.dump());
}

/// strcontains() of the file names a process opens, bswap() of their flags as keys.
#[test]
fn strcontains_and_bswap_of_a_workloads_opens() {
    let file = TempPath::new("btfnsopen");
    let program = r#"tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @[strcontains(str(args->filename), "btfnsopen"), strcontains(str(args->filename), "/nowhere/")] = count(); @flags = sum(bswap((uint16)args->flags)); }"#;
    let out = run(&["-e", program, "-c", &reader(&file)]);
    out.assert_ok();
    // O_RDONLY is 0; O_WRONLY|O_CREAT|O_TRUNC is 0x241, 0x4102 swapped.
    assert_eq!(out.stdout, "Attaching 1 probe...\n\n\n@[1, 0]: 2\n@flags: 16642\n", "{}", out.dump());
}

/// jiffies (bpftrace 0.18's; 0.17 does not know it) counts up between two firings.
#[test]
fn jiffies_counts_up() {
    let program = "BEGIN { @j = jiffies; } interval:ms:50 { printf(\"%d\\n\", jiffies > @j && @j > 0); exit(); }";
    let out = run(&["-q", "-e", program]);
    out.assert_ok();
    assert!(out.stdout.starts_with("1\n"), "{}", out.dump());
}

/// ntop() of integers: constants, and a workload's read sizes and descriptors as keys.
#[test]
fn ntop_of_integers() {
    let program = r#"BEGIN { printf("%s %s %s\n", ntop(0x0100007f), ntop(2, 0xfeffffc0), ntop(0)); exit(); }"#;
    let out = run(&["-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n127.0.0.1 192.255.255.254 0.0.0.0\n\n\n", "{}", out.dump());
    let file = TempPath::new("btfnsntop");
    let program = "tracepoint:syscalls:sys_enter_read /pid == cpid/ { @[ntop(args->count), ntop(2, args->fd > 2)] = count(); }";
    let out = run(&["-e", program, "-c", &reader(&file)]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n\n\n@[0.2.0.0, 1.0.0.0]: 128\n", "{}", out.dump());
}

/// What ntop() does not take says so, with exit status 2.
#[test]
fn ntop_refuses_what_it_cannot_print() {
    for (program, message) in [
        ("BEGIN { printf(\"%s\", ntop(10, 1)); exit(); }", "ntop() of an IPv6 address is not in crumbs yet"),
        ("BEGIN { printf(\"%s\", ntop(3, 1)); exit(); }", "ntop()'s address family must be AF_INET (2)"),
        ("BEGIN { printf(\"%s\", ntop(comm)); exit(); }", "ntop() takes an IPv4 address as an integer, but this is a string"),
    ] {
        let out = run(&["--dialect", "bpftrace", "-e", program]);
        assert_eq!(out.status.code(), Some(2), "{}", out.dump());
        assert!(out.stderr.contains(message), "{}", out.dump());
    }
}
