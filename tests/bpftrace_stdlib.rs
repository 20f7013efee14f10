//! Current bpftrace's standard library functions that bpftrace 0.17 lacks (docs/stdlib.md;
//! spec §13.4), run for real: the clocks of nsecs(), the task and pid forms of comm, pcomm,
//! ppid, ..., memcmp(), strcap(), signal_thread() and the others.

mod common;

use common::run;

/// nsecs(boot) counts time suspended, so it is at least nsecs(monotonic) read before it;
/// nsecs(tai) is the time since 1970 (the kernel's TAI offset, at most 37 s, added) and
/// nsecs(sw_tai) the same clock read without the kernel's helper: between two reads of
/// nsecs(tai), give or take a millisecond.
#[test]
fn nsecs_of_each_clock() {
    let program = "BEGIN { $m = nsecs(monotonic); $b = nsecs(boot); $t = nsecs(tai); $s = nsecs(sw_tai); $t2 = nsecs(tai);
        printf(\"%d %d %d %lu\\n\", $b >= $m, $m >= nsecs - 1000000000, (int64)($s - $t) > -1000000 && (int64)($t2 - $s) > -1000000, $t / 1000000000); exit(); }";
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let out = run(&["-q", "-e", program]);
    out.assert_ok();
    let (flags, tai) = out.stdout.trim().rsplit_once(' ').unwrap_or_else(|| panic!("{}", out.dump()));
    assert_eq!(flags, "1 1 1", "{}", out.dump());
    let tai: u64 = tai.parse().unwrap();
    assert!(tai + 1 >= now && tai <= now + 40, "tai {tai}, now {now}\n{}", out.dump());
}

/// pcomm(task), leader_comm(task), ppid(task) and leader_tid(task) of the current task at a
/// shell's getppid(): its parent is crumbs (the -c command's), it leads its own group.
#[test]
fn task_forms_of_comm_and_ids() {
    let program = "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @[pcomm(curtask), leader_comm(curtask), ppid(curtask) == ppid, leader_tid(curtask) == tid, pcomm(curtask->group_leader) == pcomm] = count(); }";
    let out = run(&["-e", program, "-c", "sh -c 'echo $PPID'"]);
    out.assert_ok();
    let keys: Vec<&str> = out.stdout.lines().filter_map(|l| l.split_once("]: ").map(|(k, _)| k)).collect();
    assert_eq!(keys, ["@[crumbs, sh, 1, 1, 1"], "{}", out.dump());
}

/// memcmp() of comm and of the file name a process opens, with literals; strcap() of each
/// kind of string; container_of() of members of the current task back to the task.
#[test]
fn memcmp_strcap_and_container_of_at_a_workloads_open() {
    let program = r#"tracepoint:syscalls:sys_enter_openat /pid == cpid/ { $f = str(args.filename);
        if (memcmp($f, "/etc/hostname", 14) == 0) {
            printf("%d %d %d %d %d\n", memcmp(comm, "cat", 4), memcmp(comm, "cau", 3), memcmp(comm, "cas", 3), memcmp($f, "/etc/hosts", 9), memcmp($f, "/etc/hosts", 10));
            printf("%d %d %d %d\n", strcap(comm), strcap("abc"), strcap($f), strcap(args.filename));
            printf("%d %d\n", container_of(&curtask->tasks, struct task_struct, tasks) == curtask, container_of(&curtask->se.load, struct task_struct, se.load)->pid == tid); } }"#;
    let out = run(&["-q", "-e", program, "-c", "cat /etc/hostname"]);
    out.assert_ok();
    // 'n' - 's' is -5; "/etc/hostname" is 13 bytes and its NUL. (cat's line, the host's
    // name, has no space.)
    let printed: Vec<&str> = out.stdout.lines().filter(|l| l.contains(' ')).collect();
    assert_eq!(printed, ["0 -1 1 0 -5", "16 4 256 13", "1 1"], "{}", out.dump());
}

/// memcmp() with a count computed when the probe fires (current bpftrace's): of a literal
/// and comm, stopping at the count, 0 compares nothing, a negative count (bpftrace's uint64)
/// compares the whole buffers.
#[test]
fn memcmp_with_a_computed_count() {
    let program = r#"tracepoint:syscalls:sys_enter_openat /pid == cpid/ { $n = args.flags & 0; $f = str(args.filename);
        if (memcmp($f, "/etc/hostnamf", $n + 12) == 0) {
        printf("%d %d %d %d %d\n", memcmp("abc", "abd", $n + 2), memcmp("abc", "abd", $n + 3), memcmp("abc", "abd", $n), memcmp(comm, "cas", $n - 1), memcmp($f, "/etc/hostnamf", $n + 13)); } }"#;
    let out = run(&["--dialect", "bpftrace", "-q", "-e", program, "-c", "cat /etc/hostname"]);
    out.assert_ok();
    // 'c' - 'd' is -1, 't' - 's' 1, 'e' - 'f' -1. (cat's line, the host's name, has no space.)
    let printed: Vec<&str> = out.stdout.lines().filter(|l| l.contains(' ')).collect();
    assert_eq!(printed, ["0 -1 0 1 -1"], "{}", out.dump());
}

/// kfunc_exist() and kfunc_allowed() as this kernel (6.18) answers: bpf_task_from_pid is a
/// kfunc that tracepoint programs may call and BEGIN's (a raw tracepoint program) and
/// kprobes' may not.
#[test]
fn kfunc_exist_and_allowed_of_this_kernel() {
    let program = r#"BEGIN { printf("%d %d %d\n", kfunc_exist("bpf_task_from_pid"), kfunc_exist("crumbs_no_such_kfunc"), kfunc_allowed("bpf_task_from_pid")); }
        tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { printf("%d %d\n", kfunc_allowed("bpf_task_from_pid"), kfunc_allowed("crumbs_no_such_kfunc")); }"#;
    let out = run(&["-q", "-e", program, "-c", "sh -c 'echo $PPID'"]);
    out.assert_ok();
    let printed: Vec<&str> = out.stdout.lines().filter(|l| l.contains(' ')).collect();
    assert_eq!(printed, ["1 0 0", "1 0"], "{}", out.dump());
    let kprobe = run(&["--dialect", "bpftrace", "--dump-bpf", "-e", r#"kprobe:vfs_read { static_assert(!kfunc_allowed("bpf_task_from_pid"), "allowed at a kprobe"); }"#]);
    kprobe.assert_ok();
}

/// signal_thread() with a signal's name, at a shell's open of /dev/null: its trap runs, and
/// it goes on. Where bpftrace refuses it (BEGIN; without --unsafe; a number beyond 64) it
/// is an error in its words.
#[test]
fn signal_thread_of_a_shell() {
    let program = r#"tracepoint:syscalls:sys_enter_openat /pid == cpid && str(args.filename) == "/dev/null"/ { signal_thread("USR1"); }"#;
    let out = run(&["--dialect", "bpftrace", "-w", "-q", "-e", program, "-c", "sh -c 'trap \"echo got\" USR1; : </dev/null; echo after'"]);
    out.assert_ok();
    assert_eq!(out.stdout.lines().filter(|l| !l.is_empty()).collect::<Vec<_>>(), ["got", "after"], "{}", out.dump());
    for (args, message) in [
        (["--dialect", "bpftrace", "-w", "-e", "BEGIN { signal_thread(9); }"], "signal_thread() can not be used for this probetype special"),
        (["--dialect", "bpftrace", "-w", "-e", "tracepoint:syscalls:sys_enter_getppid { signal_thread(65); }"], "signal_thread() accepts a string literal or an integer between 1 and 64 (inclusive)"),
        (["--dialect", "bpftrace", "-q", "-e", "tracepoint:syscalls:sys_enter_getppid { signal_thread(9); }"], "signal_thread() is an unsafe function being used in safe mode"),
        (["--dialect", "bpftrace", "-q", "-e", "tracepoint:syscalls:sys_enter_getppid { write_user(0, \"x\", 1); }"], "write_user() is an unsafe function being used in safe mode"),
    ] {
        let out = run(&args);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains(message), "{}", out.dump());
    }
}

/// write_user() is bpf_probe_write_user(), which this host's lockdown refuses: compiled, it
/// calls the helper once per call (its value used or not); run, crumbs says why not. (The
/// guest lane writes with it: tests/guest/tests.sh, crumbs_bt_write_user.)
#[test]
fn write_user_compiles_and_is_refused_under_lockdown() {
    let program = r#"tracepoint:syscalls:sys_enter_openat { if (write_user(args.filename, "/tmp/x", 7)) { printf("ok\n"); } write_user(args.filename, "y", args.flags); }"#;
    let out = run(&["--dialect", "bpftrace", "-w", "--dump-bpf", "-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout.matches("probe_write_user").count(), 2, "{}", out.dump());
    let lockdown = std::fs::read_to_string("/sys/kernel/security/lockdown").unwrap_or_default();
    if lockdown.contains("[integrity]") || lockdown.contains("[confidentiality]") {
        let out = run(&["--dialect", "bpftrace", "-w", "-e", program]);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains("so copyout(), copyoutstr() and write_user() cannot run here"), "{}", out.dump());
    }
}

/// socket_cookie() of the socket a raw tracepoint (tp_btf) passes: the client's, as it
/// connects (TCP_SYN_SENT, 2), is the cookie getsockopt(SO_COOKIE) gives the client.
#[test]
fn socket_cookie_at_a_raw_tracepoint() {
    let dir = common::TempPath::dir("btfncookie");
    let script = dir.path().join("cookie.py");
    // One write(2) for the cookie's line: print() writes its pieces apart when Python's
    // output is unbuffered, and crumbs' lines, on the same pipe, came between them in CI.
    std::fs::write(&script, "import os, socket, struct\nl = socket.socket(); l.bind((\"127.0.0.1\", 0)); l.listen(1)\nc = socket.socket(); c.connect(l.getsockname())\nos.write(1, b\"cookie %d\\n\" % struct.unpack(\"Q\", c.getsockopt(socket.SOL_SOCKET, 57, 8))[0])\na, _ = l.accept(); c.close(); a.close(); l.close()\n").unwrap();
    let program = "rawtracepoint:inet_sock_set_state /pid == cpid/ { printf(\"%d %lu\\n\", args.newstate, socket_cookie(args.sk)); }";
    let out = run(&["--dialect", "bpftrace", "-q", "-e", program, "-c", &format!("python3 {}", script.display())]);
    out.assert_ok();
    let cookie = out.stdout.lines().find_map(|l| l.strip_prefix("cookie ")).unwrap_or_else(|| panic!("{}", out.dump()));
    assert!(cookie != "0" && out.stdout.lines().any(|l| l == format!("2 {cookie}")), "{}", out.dump());
}

/// socket_cookie() where the kernel has no bpf_get_socket_cookie() for the program, and of
/// what is not a `struct sock *`, in bpftrace's words; at fentry (which this host refuses)
/// it compiles to the helper's call.
#[test]
fn socket_cookie_errors_and_fentry() {
    for (program, message) in [
        ("tracepoint:sock:inet_sock_set_state { @[socket_cookie(args.skaddr)] = count(); }", "socket_cookie can not be used with \"tracepoint\" probes"),
        ("kprobe:tcp_rcv_established { @[socket_cookie(args.skb)] = count(); }", "socket_cookie() only supports 'struct sock *' as the argument ('struct sk_buff *' provided)"),
        ("kprobe:tcp_rcv_established { @[socket_cookie(args.skb->sk)] = count(); }", "socket_cookie() takes a `struct sock *` argument of the probe alone"),
    ] {
        let out = run(&["--dialect", "bpftrace", "-e", program]);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains(message), "{}", out.dump());
    }
    let out = run(&["--dialect", "bpftrace", "--dump-bpf", "-e", "fentry:tcp_rcv_established { @[socket_cookie(args.sk)] = count(); }"]);
    out.assert_ok();
    assert!(out.stdout.contains("(fentry)") && out.stdout.contains("call bpf_get_socket_cookie"), "{}", out.dump());
}

/// ntop() of comm, a 16-byte string: its bytes as an IPv6 address, or the first four as
/// IPv4 with AF_INET, as bpftrace 0.17 prints them for cat (checked against it).
#[test]
fn ntop_of_comm() {
    let out = run(&["--dialect", "bpftrace", "-e", "tracepoint:syscalls:sys_enter_openat /pid == cpid/ { printf(\"%s %s\\n\", ntop(comm), ntop(2, comm)); @[ntop(comm)] = count(); exit(); }", "-c", "/usr/bin/cat /dev/null"]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n6361:7400:: 99.97.116.0\n\n\n@[6361:7400::]: 1\n", "{}", out.dump());
}

/// ntop() of comm kept in a scratch variable and in maps, and of a 3-character literal kept
/// in one: bpftrace 0.17 gives those 16 and 4 bytes and reads them as addresses; crumbs
/// reads the first bytes of its string (checked against 0.17, which counted 2 openats).
#[test]
fn ntop_of_comm_kept_in_a_variable() {
    let program = r#"tracepoint:syscalls:sys_enter_openat /pid == cpid/ { $c = comm; @m[1] = comm; $l = "abc"; @v = $c;
        printf("%s %s %s %s %s\n", ntop($c), ntop(2, $c), ntop(@m[1]), ntop($l), ntop(@v)); @[ntop($c)] = count(); exit(); }"#;
    let out = run(&["--dialect", "bpftrace", "-e", program, "-c", "/usr/bin/cat /dev/null"]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n6361:7400:: 99.97.116.0 6361:7400:: 97.98.99.0 6361:7400::\n\n\n@[6361:7400::]: 1\n@m[1]: cat\n@v: cat\n", "{}", out.dump());
}

/// comm(pid) of the shell itself, of its parent (crumbs, which ran it) and of a thread id
/// no task has ("N/A", and current bpftrace's warning at the call, which `--no-warnings`
/// silences), at a tracepoint, whose programs this kernel (6.18) lets call
/// bpf_task_from_pid; at BEGIN (a raw tracepoint program, which it does not) an error in
/// current bpftrace's words.
#[test]
fn comm_of_a_pid() {
    let program = "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { printf(\"%s|%s|%s\\n\", comm(pid), comm(curtask->real_parent->tgid), comm(2147483647)); @[comm(tid)] = count(); }";
    let out = run(&["--dialect", "bpftrace", "-q", "-e", program, "-c", "sh -c 'echo $PPID >/dev/null'"]);
    out.assert_ok();
    assert_eq!(out.stdout.lines().filter(|l| !l.is_empty()).collect::<Vec<_>>(), ["sh|crumbs|N/A", "@[sh]: 1"], "{}", out.dump());
    assert_eq!(out.stderr, "<command line>:1:121-137: WARNING: No such process (pid=2147483647)\n", "{}", out.dump());
    // Invoked as bpftrace, the program is `stdin`, as bpftrace names it.
    let out = common::bpftrace_dropin(&["-q", "-e", program, "-c", "sh -c 'echo $PPID >/dev/null'"], None, &[]);
    out.assert_ok();
    assert_eq!(out.stderr, "stdin:1:121-137: WARNING: No such process (pid=2147483647)\n", "{}", out.dump());
    let out = common::bpftrace_dropin(&["-q", "--no-warnings", "-e", program, "-c", "sh -c 'echo $PPID >/dev/null'"], None, &[]);
    out.assert_ok();
    assert_eq!((out.stdout.lines().next(), out.stderr.as_str()), (Some("sh|bpftrace|N/A"), ""), "{}", out.dump());
    let out = run(&["--dialect", "bpftrace", "-e", "BEGIN { print(comm(2)); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("Syntax comm(PID) is not supported in this probe type yet. Type: special"), "{}", out.dump());
}

/// percpu_kaddr(): where /proc/kallsyms lists the kernel's variables (CONFIG_KALLSYMS_ALL),
/// CPU 0's runqueue names CPU 0 and the current CPU's its own; where it does not (this
/// host), the verifier could not place the variable and crumbs says so first. (The guest
/// lane runs it: tests/guest/tests.sh, crumbs_bt_percpu_kaddr.)
#[test]
fn percpu_kaddr_of_the_runqueues() {
    let program = "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { $rq = (struct rq *)percpu_kaddr(\"runqueues\", 0); printf(\"%d %d %d\\n\", $rq->cpu, ((struct rq *)percpu_kaddr(\"runqueues\"))->cpu == cpu, percpu_kaddr(\"runqueues\", 1000000) == 0); }";
    let out = run(&["--dialect", "bpftrace", "-q", "-e", program, "-c", "sh -c 'echo $PPID >/dev/null'"]);
    let kallsyms = std::fs::read_to_string("/proc/kallsyms").unwrap();
    if kallsyms.lines().any(|l| l.ends_with(" runqueues")) {
        out.assert_ok();
        assert_eq!(out.stdout.trim(), "0 1 1", "{}", out.dump());
    } else {
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains("the kernel does not list \"runqueues\" in /proc/kallsyms"), "{}", out.dump());
    }
}

/// printf's %gr (current bpftrace's): GFP flags by name, of constants and of the flags of a
/// workload's kmalloc() calls (GFP_KERNEL, 0xcc0, among them); D has no %gr.
#[test]
fn printf_gr_names_gfp_flags() {
    let out = run(&["--dialect", "bpftrace", "-e", r#"BEGIN { printf("%gr|%gr|%-20gr|%gr|%gr\n", 0xcc0, 0, 0x820, (uint32)0x400dc0, 0x8000000008); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\nGFP_KERNEL|0|GFP_ATOMIC          |GFP_KERNEL_ACCOUNT|__GFP_ZERO|0x8000000008\n\n\n", "{}", out.dump());
    let program = "tracepoint:kmem:kmalloc /pid == cpid/ { @[args.gfp_flags] = args.gfp_flags; } END { for ($kv : @) { printf(\"%x %gr\\n\", $kv.0, $kv.1); } clear(@); }";
    let out = run(&["--dialect", "bpftrace", "-q", "-e", program, "-c", "/usr/bin/cat /etc/hostname"]);
    out.assert_ok();
    assert!(out.stdout.lines().any(|l| l == "cc0 GFP_KERNEL"), "{}", out.dump());
    let out = run(&["-e", r#"BEGIN { printf("%gr\n", 0xcc0); exit(0); }"#]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("%gr is bpftrace's conversion"), "{}", out.dump());
}
