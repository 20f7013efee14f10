//! bpftrace's syntax as its docs and bpftrace 0.17 accept it (spec §13): casts before unary
//! operators, short probe names, positional parameters, offsets and quoted parts in probe
//! names, builtins called with parentheses and duration literals. Each expected output was
//! compared with bpftrace 0.17 running the same program here, where 0.17 has the form (noted
//! where it does not: current bpftrace's docs are the reference then).

mod common;

use common::{compiled_c, run, Output, TempPath};

/// `crumbs --dialect bpftrace ARGS...`, which must not panic.
fn bt(args: &[&str]) -> Output {
    let mut all = vec!["--dialect", "bpftrace"];
    all.extend_from_slice(args);
    let out = run(&all);
    out.assert_no_panic();
    out
}

/// A bad form: exit status 2, the message and hint on stderr, with a labelled span.
fn assert_bt_error(args: &[&str], message: &str, hint: &str) {
    let out = bt(args);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains(message), "message {message:?}\n{}", out.dump());
    assert!(out.stderr.contains(hint), "hint {hint:?}\n{}", out.dump());
    assert!(out.stderr.contains('┬') && out.stderr.contains("╰─"), "a span with a label\n{}", out.dump());
}

/// `(uint32)-1`: bpftrace's integer type names cast a unary minus (and `*`), as 0.17 prints.
#[test]
fn casts_of_bpftrace_integer_names_before_a_minus() {
    let out = bt(&["-e", r#"BEGIN { $x = 5; printf("%u %d %d %d %d\n", (uint32)-1, (int64)-1, (uint16)-1, (int32)-$x, (uint8)-1); print((uint32)-1); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n4294967295 -1 65535 -5 255\n4294967295\n\n\n", "{}", out.dump());
    // Found bpftrace by the cast alone, without --dialect.
    let out = run(&["-e", r#"BEGIN { printf("%d\n", (int16)-2); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n-2\n\n\n", "{}", out.dump());
}

/// `work` in assembly, so that its instructions are known whatever the compiler: four
/// one-byte `nop`s, then `lea` and `ret` (offsets 0 to 4 start instructions). main calls it
/// N times (its argument), fires a USDT probe once, and with `addr` prints work's address
/// (built without PIE: the address in the file is the address in the process).
const WORK: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
__asm__(".text\n.globl work\n.type work,@function\nwork:\n nop\n nop\n nop\n nop\n lea 1(%rdi,%rdi,2), %eax\n ret\n.size work, .-work\n");
int work(int);
int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "addr") == 0) {
        printf("%#lx\n", (unsigned long)work);
        return 0;
    }
    int n = argc > 1 ? atoi(argv[1]) : 0, s = 0;
    for (int i = 0; i < n; i++)
        s += work(i);
    DTRACE_PROBE1(btsyn, done, s);
    return 0;
}
"#;

fn work(dir: &TempPath) -> String {
    compiled_c(dir, "work", WORK, &["-no-pie"])
}

/// bpftrace's short probe names read as the long ones (language.md's "Probes" table), and
/// `probe` names them long, as bpftrace 0.17 does.
#[test]
fn short_probe_names() {
    let out = bt(&["-e", r#"t:syscalls:sys_enter_clock_nanosleep /pid == cpid/ { printf("%s\n", probe); }"#, "-c", "/bin/sleep 0.01"]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\ntracepoint:syscalls:sys_enter_clock_nanosleep\n\n\n", "{}", out.dump());
    let out = bt(&["-e", r#"i:ms:50 { printf("%s\n", probe); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\ninterval:ms:50\n\n\n", "{}", out.dump());
    let dir = TempPath::dir("btshort");
    let exe = work(&dir);
    let program = format!("u:{exe}:work {{ @calls = count(); }} ur:{exe}:work {{ @sum = sum(retval); }} U:{exe}:btsyn:done {{ @done = arg0; }}");
    let out = bt(&["-e", &program, "-c", &format!("{exe} 5")]);
    out.assert_ok();
    // work(i) is 3i + 1: 1 + 4 + 7 + 10 + 13.
    assert_eq!(out.stdout, "Attaching 3 probes...\n\n\n@calls: 5\n@done: 35\n@sum: 35\n", "{}", out.dump());
    // Kernel functions (this host has no kprobes or fentry: compiled only).
    for program in ["k:vfs_read { @ = count(); }", "kr:vfs_read { @ = count(); }", "f:vfs_read { @ = count(); }", "fr:vfs_read { @ = count(); }", "s:faults:10 { @ = count(); }", "w:0x1000:8:rw { @ = count(); }", "it:task { @ = count(); }"] {
        let out = bt(&["--dump-bpf", "-e", program]);
        out.assert_ok();
    }
    // w: is watchpoint (live in tests/bpftrace_watchpoint.rs), checked as bpftrace checks it.
    assert_bt_error(&["-e", "w:0x1000:8:r { exit(); }"], "invalid watchpoint mode: r", "supported modes: rw,w,x");
}

/// Positional parameters in probe names are their text, inside the part they are in
/// (`interval:ms:$1`, `uprobe:$1:work`, `tracepoint:$1:$2`), as bpftrace 0.17 substitutes them;
/// in quotes they are as written.
#[test]
fn positional_parameters_in_probe_names() {
    let out = bt(&["-e", r#"interval:ms:$1 { printf("%s\n", probe); exit(); }"#, "50"]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\ninterval:ms:50\n\n\n", "{}", out.dump());
    let out = bt(&["-e", r#"tracepoint:$1:$2 /pid == cpid/ { printf("%s %s\n", probe, str($1)); }"#, "-c", "/bin/sleep 0.01", "syscalls", "sys_enter_clock_nanosleep"]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\ntracepoint:syscalls:sys_enter_clock_nanosleep syscalls\n\n\n", "{}", out.dump());
    let dir = TempPath::dir("btparams");
    let exe = work(&dir);
    let out = bt(&["-e", r#"uprobe:$1:"work" { @calls = count(); }"#, "-c", &format!("{exe} 3"), &exe]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n\n\n@calls: 3\n", "{}", out.dump());
    // A parameter not given is empty, which bpftrace 0.17 refuses too (`stoull`).
    assert_bt_error(&["-e", "interval:ms:$2 { exit(); }", "50"], "bad interval probe `interval:ms:`", "interval:ms:100");
    // Quoted, it is not a parameter.
    assert_bt_error(&["-e", r#"uprobe:"$1":work { exit(); }"#, "/bin/true"], "cannot read the functions of $1", "a uprobe names");
    // D reads $N in a probe description too, and refuses one not given.
    let out = run(&["-q", "-e", "profile:::tick-$1 { printf(\"tick\\n\"); exit(0); }", "50ms"]);
    out.assert_ok();
    assert_eq!(out.stdout, "tick\n\n", "{}", out.dump());
    let out = run(&["-e", "syscall::$1:entry { exit(0); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("macro argument `$1` is not given"), "{}", out.dump());
}

/// `uprobe:PATH:FUNCTION+N` and `uprobe:PATH:ADDRESS` attach inside a function, with exact
/// counts; crumbs does not disassemble to check that N starts an instruction, so they need
/// -w (--unsafe), as bpftrace refuses what it cannot check unless unsafe. bpftrace 0.17 here
/// is built without offset support: the forms are current bpftrace's docs'.
#[test]
fn uprobes_at_offsets_and_addresses() {
    let dir = TempPath::dir("btoffsets");
    let exe = work(&dir);
    let addr = std::process::Command::new(&exe).arg("addr").output().unwrap();
    let addr = u64::from_str_radix(String::from_utf8_lossy(&addr.stdout).trim().trim_start_matches("0x"), 16).unwrap();
    let program = format!(
        r#"uprobe:{exe}:work+4 {{ @at[probe] = count(); @di[reg("di")] = count(); }} uprobe:"{exe}":"work+0x2" {{ @two = count(); }}
           u:{exe}:work+0 {{ @zero = count(); }} uprobe:{exe}:{start:#x} {{ @start = count(); }} uprobe:{exe}:{end} {{ @end = count(); }}
           uretprobe:{exe}:{start:#x} {{ @ret = sum(retval); }}"#,
        start = addr,
        end = addr + 4
    );
    let out = bt(&["-w", "-e", &program, "-c", &format!("{exe} 3")]);
    out.assert_ok();
    let want = format!("Attaching 6 probes...\n\n\n@at[uprobe:{exe}:work+4]: 3\n@di[0]: 1\n@di[1]: 1\n@di[2]: 1\n@end: 3\n@ret: 12\n@start: 3\n@two: 3\n@zero: 3\n");
    assert_eq!(out.stdout, want, "{}", out.dump());
    // Without -w: refused, as crumbs cannot check the instruction boundary.
    assert_bt_error(&["-e", &format!("uprobe:{exe}:work+4 {{ exit(); }}")], "crumbs cannot check that work+4", "give --unsafe (-w)");
    assert_bt_error(&["-e", &format!("uprobe:{exe}:{:#x} {{ exit(); }}", addr + 1)], "crumbs cannot check that work+1", "give --unsafe (-w)");
    // Bad forms.
    assert_bt_error(&["-w", "-e", &format!("uprobe:{exe}:work+9 {{ exit(); }}")], "offset 0x9 is past the end of work (9 bytes)", "an offset probe names an instruction");
    assert_bt_error(&["-w", "-e", &format!("uprobe:{exe}:work+x {{ exit(); }}")], "`work+x` is not a function and an offset", "uprobe:/bin/bash:readline+4");
    assert_bt_error(&["-w", "-e", &format!("uprobe:{exe}:work+1+2 {{ exit(); }}")], "has more than one offset", "FUNCTION+N");
    assert_bt_error(&["-w", "-e", &format!("uretprobe:{exe}:work+1 {{ exit(); }}")], "a uretprobe has no offset", "for a uprobe");
    assert_bt_error(&["-w", "-e", &format!("uretprobe:{exe}:{:#x} {{ exit(); }}", addr + 1)], "a uretprobe cannot be at an offset", "where it starts");
    assert_bt_error(&["-w", "-e", &format!("uprobe:{exe}:0x10 {{ exit(); }}")], "could not resolve address", "as `nm` shows");
    // A kernel function at an offset is a kprobe of its own (live in the guest lane); at an
    // address (unsafe) the function holding it, from /proc/kallsyms, and the offset in it.
    assert_bt_error(&["--dump-bpf", "-e", "kretprobe:vfs_read+4 { exit(); }"], "kretprobe probes take no offset", "kretprobe:vfs_read");
    assert_bt_error(&["--dump-bpf", "-e", "kprobe:0xffffffff81000000 { exit(); }"], "Probing by address requires --unsafe", "--unsafe");
    let kallsyms = std::fs::read_to_string("/proc/kallsyms").expect("/proc/kallsyms");
    let vfs_read = kallsyms.lines().find_map(|l| l.strip_suffix(" T vfs_read").or_else(|| l.strip_suffix(" t vfs_read"))).expect("vfs_read in /proc/kallsyms");
    let addr = u64::from_str_radix(vfs_read, 16).unwrap();
    let out = bt(&["-w", "--dump-bpf", "-e", &format!("kprobe:{:#x}, kretprobe:{addr:#x} {{ exit(); }}", addr + 5)]);
    out.assert_ok();
    assert!(out.stdout.contains("(kprobe)") && out.stdout.contains("(kretprobe)"), "{}", out.dump());
    let (into, start) = (format!("{:#x}", addr + 5), format!("{addr:#x}"));
    assert_bt_error(&["-w", "--dump-bpf", "-e", &format!("kretprobe:{into} {{ exit(); }}")], &format!("address {into} is 5 bytes into vfs_read: a return probe is on a function's start"), &format!("write kretprobe:{start} (or kretprobe:vfs_read)"));
    assert_bt_error(&["-w", "--dump-bpf", "-e", "kprobe:0x10 { exit(); }"], "no kernel function holds address 0x10", "a function's code");
}

/// Counts and intervals read as bpftrace reads numbers: `hardware:cache-misses:1e6`, and a
/// number without a unit is nanoseconds (`interval:100000000`, current bpftrace's; 0.17
/// refuses it).
#[test]
fn counts_and_bare_intervals() {
    let out = bt(&["-e", r#"interval:100000000 { printf("%s\n", probe); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\ninterval:ns:100000000\n\n\n", "{}", out.dump());
    let out = bt(&["-e", r#"i:1e8 { printf("%s\n", probe); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\ninterval:ns:100000000\n\n\n", "{}", out.dump());
    let out = bt(&["-e", r#"s:cpu-clock:1e6 { printf("%s\n", probe); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\nsoftware:cpu:1000000\n\n\n", "{}", out.dump());
    let out = bt(&["--dump-bpf", "-e", "hardware:cache-misses:1e6 { @ = count(); }"]);
    out.assert_ok();
    assert_bt_error(&["-e", "interval:100 { exit(); }"], "bad interval probe `interval:100`", "at least 10us apart");
    assert_bt_error(&["-e", "hardware:cache-misses:1x { exit(); }"], "bad count in `hardware:cache-misses:1x`", "not a positive number");
}

/// Builtin variables called with parentheses, as current bpftrace's docs have them (`pid`
/// and `pid()` are the same; 0.17 has only the variables): each equals its variable.
#[test]
fn builtins_called_with_parentheses() {
    let program = r#"BEGIN { printf("%d %d %d %d %d %d %d %d %d %d %d\n", pid() == pid, tid() == tid, pid(init) == pid, tid(curr_ns) == tid,
        nsecs() > 0, nsecs(monotonic) > 0, uid() == uid, cpu() == cpu, curtask() == curtask, cgroup() == cgroup, elapsed() >= 0);
        printf("%s %s %s %s %s\n", comm(), username(), pcomm(), probe(), comm); exit(); }"#;
    let out = bt(&["-e", program]);
    out.assert_ok();
    let want = format!("Attaching 1 probe...\n1 1 1 1 1 1 1 1 1 1 1\ncrumbs {} {} BEGIN crumbs\n\n\n", user_name(), parent_comm());
    assert_eq!(out.stdout, want, "{}", out.dump());
    // Found bpftrace by the call alone.
    let out = run(&["-e", r#"BEGIN { printf("%d\n", pid() == pid); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n1\n\n\n", "{}", out.dump());
    assert_bt_error(&["-e", "BEGIN { print(pid(x)); }"], "pid() takes curr_ns or init or nothing", "pid(init)");
    assert_bt_error(&["-e", "BEGIN { print(comm(1, 2)); }"], "comm() takes 1 argument", "comm(pid)");
    assert_bt_error(&["-e", "BEGIN { print(cpu(1)); }"], "cpu() takes no arguments", "cpu or cpu()");
    assert_bt_error(&["-e", "BEGIN { print(nsecs(foo)); }"], "Invalid timestamp mode: foo", "nsecs(sw_tai)");
}

/// The user name of this process's real uid, as bpftrace's `username` prints it.
fn user_name() -> String {
    let uid = std::fs::read_to_string("/proc/self/status").unwrap().lines().find_map(|l| l.strip_prefix("Uid:").map(|r| r.split_whitespace().next().unwrap().to_string())).unwrap();
    std::fs::read_to_string("/etc/passwd").unwrap().lines().find_map(|l| {
        let f: Vec<&str> = l.split(':').collect();
        (f.get(2) == Some(&uid.as_str())).then(|| f[0].to_string())
    }).unwrap_or(uid)
}

/// The command name of crumbs' parent: the test thread that starts it (pcomm at BEGIN).
fn parent_comm() -> String {
    std::fs::read_to_string("/proc/thread-self/comm").unwrap().trim().to_string()
}

/// Duration literals (current bpftrace's docs, "Literals"; 0.17 lacks them): integers of
/// nanoseconds wherever an integer goes, and `interval:1s` in a probe name.
#[test]
fn duration_literals_are_nanoseconds() {
    let out = bt(&["-e", r#"interval:1s { $a = 1m; print($a); printf("%d %d %d %d\n", 100ms, 5us + 10ns, 2h / 1s, 1d / 1h); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n60000000000\n100000000 5010 7200 24\n\n\n", "{}", out.dump());
    assert_bt_error(&["-e", "BEGIN { $a = 10xs; }"], "invalid integer suffix 'xs'", "a duration's unit: ns us ms s m h d");
}

/// Typed `let` (current bpftrace's docs, "Data Types"; 0.17 lacks it): the variable has the
/// declared type from the start (zero, or "", without a value), a wider value is truncated
/// to it, and a literal that does not fit is bpftrace's error.
#[test]
fn typed_let_declares_the_scratch_variables_type() {
    let out = bt(&["-e", r#"BEGIN { let $a: uint16 = 5; $a = (uint32)70000; let $b: int8; let $s: string; printf("%d %d [%s] %d\n", $a, $b, $s, sizeof($a)); let $c: int8 = -3; $c = $c - 1; let $p: struct task_struct * = curtask; print(($c, $p->pid > 0)); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n4464 0 [] 2\n(-4, 1)\n\n\n", "{}", out.dump());
    assert_bt_error(&["-e", "BEGIN { let $a: uint16 = -1; }"], "Type mismatch for $a: trying to assign value of type 'int8' when variable already has a type 'uint16'", "cast it to keep its low bits: `(uint16)...`");
}

/// Postfix type syntax (current bpftrace's docs, "Type Syntax", "Array Casts"; 0.17 has none
/// of it): `[N]` and `*` read left to right in sizeof, casts between integers and integer
/// arrays (memory order, no byte swap), `string[N]`'s size, and `let` of an array (zeroed)
/// or a sized string.
#[test]
fn postfix_types_in_casts_sizeof_and_let() {
    let out = bt(&["-e", r#"BEGIN { $a = (int8[8])(uint64)12345; printf("%x %x\n", $a[0], $a[1]); printf("%d\n", (uint64)$a); $b = (uint8[])12345; print($b); @c = (uint16[2])(uint32)65539; print((sizeof(uint32*[10]), sizeof(int32[4]*), sizeof(string[64]))); let $z: uint8[4]; print($z); $z = pton("10.0.0.1"); print($z); let $s: string[8] = "hi"; print($s); printf("%x\n", (uint32)pton("1.2.3.4")); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n39 30\n12345\n[57,48]\n(80, 8, 64)\n[0,0,0,0]\n[10,0,0,1]\nhi\n4030201\n\n\n@c: [3,1]\n", "{}", out.dump());
    assert_bt_error(&["-e", "BEGIN { $a = (uint8[4])(uint64)1; }"], "Cannot cast from \"uint64\" to \"uint8[4]\"", "the integer and the array must have the same size");
    // A kernel char array is a string of its length: it casts to a string type that large.
    let out = bt(&["-e", r#"BEGIN { $s = (string[16])curtask->comm; printf("%d\n", $s == comm); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n1\n\n\n", "{}", out.dump());
    assert_bt_error(&["-e", "BEGIN { $s = (string[8])curtask->comm; }"], "Cannot cast from \"string[16]\" to \"string[8]\"", "a string casts to a string type at least its size");
    assert_bt_error(&["-e", r#"BEGIN { let $x: string[3] = "hello"; }"#], "Type mismatch for $x: trying to assign value of type 'string[6]' when variable already has a type 'string[3]'", "holds strings of at most 2 characters");
    assert_bt_error(&["-e", "BEGIN { let $a: uint8[4]; $a = pton(\"::1\"); }"], "Type mismatch for $a: trying to assign value of type 'uint8[16]' when variable already has a type 'uint8[4]'", "a variable declared with a type keeps it");
}

/// Block expressions (current bpftrace's docs, "Block Expressions"; 0.17 lacks them): the
/// statements run, then the last expression (no `;` after it) is the value; `_ = v;` drops one.
#[test]
fn block_expressions_give_their_last_expression() {
    let out = bt(&["-e", r#"BEGIN { let $a = { let $b = 2; $b + 1 }; @m[1] = 1; _ = has_key(@m, 1); printf("%d %d\n", $a, { $c = 5; $c * 2 } + { 1 }); print({ printf("side "); 7 }); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n3 11\nside 7\n\n\n@m[1]: 1\n", "{}", out.dump());
    assert_bt_error(&["-e", "BEGIN { $a = { 1; }; }"], "a block used as a value must end with an expression", "end the block with an expression and no `;` after it");
}

/// A block passed to a macro's expression parameter (current bpftrace's docs, "Macros") runs
/// where the body names the parameter, each time.
#[test]
fn a_block_argument_runs_at_each_use() {
    let out = bt(&["-e", r#"macro three(x) { x; x; x; } BEGIN { three({ printf("hi") }); $n = 0; three({ $n += 10; printf(" %d", $n) }); printf("\n"); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\nhihihi 10 20 30\n\n\n", "{}", out.dump());
}

/// Booleans: `true`/`false` and comparisons print as numbers, as bpftrace 0.17 prints them
/// (checked against 0.17 here); a conversion to `bool` is 1 for any value not 0.
#[test]
fn booleans_print_as_bpftrace_0_17_prints_them() {
    let out = bt(&["-e", r#"BEGIN { @ = (1 == 1); print(2 > 1); $b = true; print($b); @f = false; $c = (bool)256; let $d: bool = 7; let $e: bool; printf("%d %d %d %d\n", 1 < 2, $c, $d, $e); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n1\n1\n1 1 1 0\n\n\n@: 1\n@f: 0\n", "{}", out.dump());
}

/// `&$a` (current bpftrace's docs, "Pointers"; 0.17 lacks it): a pointer to the scratch
/// variable, read through with `*` (seeing later stores), `str()` or `->`.
#[test]
fn the_address_of_a_scratch_variable_reads_it() {
    let out = bt(&["-e", r#"BEGIN { $a = 1234; $b = &$a; print(*$b); $a = 99; let $c: uint16 = 513; $s = "abc"; printf("%d %d %s %d\n", *$b, *&$c, str(&$s), $b != 0); $t = *curtask; $p = &$t; print($p->tgid == pid); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n1234\n99 513 abc 1\n1\n\n\n", "{}", out.dump());
    assert_bt_error(&["-e", "BEGIN { $b = &$x; }"], "Undefined or undeclared variable: $x", "assign the variable before taking its address");
}

/// `&@map` (current bpftrace's MapAddr; 0.17 lacks it): the map's own `struct bpf_map`, read
/// here through a cast to see its declared size, key and value sizes and name.
#[test]
fn the_address_of_a_map_is_the_kernels_map() {
    let out = bt(&["-e", r#"let @b = hash(77); BEGIN { @a = 1; @b[1] = 2; $x = &@a; $m = (struct bpf_map *)&@b; printf("%d %d %d %d %d\n", $m->max_entries, $m->key_size, $m->value_size, $x != 0, $x != &@b); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n77 8 8 1 1\n\n\n@a: 1\n@b[1]: 2\n", "{}", out.dump());
    assert_bt_error(&["-e", "BEGIN { @a = 1; $x = *&@a; }"], "`&@a` points at the map, not at a value", "read the value as @a[key]");
    assert_bt_error(&["-e", "BEGIN { @c = count(); $x = &@c; }"], "the address of aggregation `@c` is not in crumbs", "take the address of a map of values");
}

/// `typeof()` (current bpftrace's stdlib.md) in a typed let, a cast, sizeof and as a macro's
/// type argument; `comptime` (its language docs' grammar) folds a value known when compiling.
#[test]
fn typeof_and_comptime() {
    let out = bt(&["-e", r#"macro sz(t) { sizeof(t) } macro as(t, v) { (t)v } BEGIN { $b = (uint16)3; let $a: typeof($b) = 65535; $c = (typeof($b))65537; printf("%d %d %d %d %d %d\n", $a, $c, sizeof(typeof($b)), sz(typeof(uint32 *)), as(typeof(uint8), 257), comptime 5 + 1); if comptime (sizeof($b) == 2) { print("two"); } else { fail("not two"); } exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n65535 1 2 8 1 6\ntwo\n\n\n", "{}", out.dump());
    assert_bt_error(&["-e", "BEGIN { $x = pid; if comptime ($x > 1) { print(1); } }"], "Unable to resolve comptime expression", "comptime takes what is known when compiling");
}

/// `typeinfo()` (current bpftrace's, unstable: its ast_transformer.cpp's record, read by
/// field), folded when compiling and compared by `comptime`; refused unless the config
/// enables it, as bpftrace refuses it.
#[test]
fn typeinfo_describes_a_type_when_compiling() {
    let out = bt(&["-e", r#"config = { unstable_typeinfo = enable } BEGIN { $a = (uint64)1; if comptime (typeinfo($a).full_type == "uint64") { print("u64"); } else { fail("no"); } printf("%s %s %d|%s %s|%s|%s|%s\n", typeinfo($a).base_type, typeinfo($a).full_type, typeinfo($a).btf_id, typeinfo(int32*[4]).full_type, typeinfo(int32*[4]).base_type, typeinfo(struct task_struct*).full_type, typeinfo(comm).full_type, typeinfo(pton("1.2.3.4")).full_type); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\nu64\nint uint64 0|int32 *[4] array|struct task_struct *|string[16]|uint8[4]\n\n\n", "{}", out.dump());
    assert_bt_error(&["-e", "BEGIN { $a = typeinfo(1).full_type; }"], "typeinfo feature is not enabled by default. To enable this unstable feature, set the config flag to enable. unstable_typeinfo=enable", "config = { unstable_typeinfo = enable }");
}

/// A D global assigned in bpftrace's dialect is bpftrace 0.17's syntax error (compared with
/// 0.17 here: the same message and place).
#[test]
fn a_d_global_is_bpftraces_syntax_error() {
    let out = bt(&["-e", "BEGIN { x = 1; }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("syntax error, unexpected =, expecting }") && out.stderr.contains("1:11"), "{}", out.dump());
    assert_bt_error(&["-e", "BEGIN { x++; }"], "The ++ operator must be applied to a map or variable", "bpftrace's variables are scratch variables");
    // Invoked as bpftrace (no --dialect): the same error, and bpftrace's exit status.
    let out = common::bpftrace_dropin(&["-e", "BEGIN { x += 1; }"], None, &[]);
    assert_eq!(out.code(), 1, "{}", out.dump());
    assert!(out.stderr.contains("syntax error, unexpected +=, expecting }") && out.stderr.contains("stdin:1:11"), "{}", out.dump());
}

/// A difference of integers is an int64, unsigned operands' too (current bpftrace's docs,
/// "Arithmetic Operators"; bpftrace 0.17 made it unsigned where an operand was:
/// `print((uint64)1 - (uint64)2)` printed 18446744073709551615 there), printed as 0.17 prints
/// an int64.
#[test]
fn a_difference_of_unsigned_values_is_signed() {
    let out = bt(&["-e", r#"BEGIN { $a = (uint8)1 - (uint8)2; print($a); @x = (uint32)3 - (uint32)5; print((uint64)1 - (uint64)2); printf("%d\n", (uint64)1 - (uint64)2 < 0); $u = (uint32)5; print($u - 10); print($u + (uint32)1); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n-1\n-1\n1\n-5\n6\n\n\n@x: -2\n", "{}", out.dump());
}
