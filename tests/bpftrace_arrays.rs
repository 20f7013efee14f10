//! bpftrace's arrays of integers as values (spec §13.4): pton()'s bytes, a record's
//! `__u8 saddr[4]` and a struct's `unsigned char b[6]` kept in scratch variables and maps,
//! as keys, printed, compared and formatted by ntop() and macaddr(), run for real. Each
//! expected output was checked against bpftrace 0.17 running the same program (noted where
//! crumbs allows more than it does).

mod common;

use common::{run, Output, TempPath};

/// crumbs invoked as `bpftrace` (a symlink), which has `-f json`.
fn bpftrace(args: &[&str]) -> Output {
    common::bpftrace_dropin(args, None, &[])
}

/// pton()'s bytes in variables, maps and keys, printed by print() and at exit, formatted by
/// ntop(), indexed and compared; `ntop("abc")` reads the literal's four bytes.
const PTON: &str = r#"BEGIN
{
  $a = pton("1.2.3.4");
  $b = pton("fe80::1:2");
  print($a);
  print($b);
  printf("%s %s %s %d\n", ntop($a), ntop($b), ntop(10, $a), $b[15]);
  @v4 = pton("1.2.3.4");
  @v6[1] = pton("fe80::1:2");
  @v6[2] = pton("::1");
  @k[pton("10.0.0.1")] = count();
  @k[pton("10.0.0.2")] = count();
  @k[pton("10.0.0.1")] = count();
  @s[pton("1.2.3.4"), "x"] = 7;
  printf("%s %s\n", ntop(@v4), ntop(@v6[2]));
  if ($a == pton("1.2.3.4")) { printf("eq\n"); }
  if (@v4 == $a) { printf("map eq\n"); }
  if (@v6[1] != @v6[2]) { printf("ne\n"); }
  printf("%s\n", ntop("abc"));
  exit();
}"#;

#[test]
fn pton_values_print_as_bpftrace_prints_arrays() {
    let out = run(&["-e", PTON]);
    out.assert_ok();
    let want = "Attaching 1 probe...\n[1,2,3,4]\n[254,128,0,0,0,0,0,0,0,0,0,0,0,1,0,2]\n1.2.3.4 fe80::1:2 102:304:: 2\n1.2.3.4 ::1\neq\nmap eq\nne\n97.98.99.0\n\n\n\
        @k[[10,0,0,2]]: 1\n@k[[10,0,0,1]]: 2\n@s[[1,2,3,4], x]: 7\n@v4: [1,2,3,4]\n@v6[1]: [254,128,0,0,0,0,0,0,0,0,0,0,0,1,0,2]\n@v6[2]: [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1]\n";
    assert_eq!(out.stdout, want, "{}", out.dump());
}

#[test]
fn pton_values_in_json() {
    let out = bpftrace(&["-f", "json", "-e", PTON]);
    out.assert_ok();
    let want = r#"{"type": "attached_probes", "data": {"probes": 1}}
{"type": "value", "data": [1,2,3,4]}
{"type": "value", "data": [254,128,0,0,0,0,0,0,0,0,0,0,0,1,0,2]}
{"type": "printf", "data": "1.2.3.4 fe80::1:2 102:304:: 2\n"}
{"type": "printf", "data": "1.2.3.4 ::1\n"}
{"type": "printf", "data": "eq\n"}
{"type": "printf", "data": "map eq\n"}
{"type": "printf", "data": "ne\n"}
{"type": "printf", "data": "97.98.99.0\n"}


{"type": "map", "data": {"@k": {"[10,0,0,2]": 1, "[10,0,0,1]": 2}}}
{"type": "map", "data": {"@s": {"[1,2,3,4],x": 7}}}
{"type": "map", "data": {"@v4": [1,2,3,4]}}
{"type": "map", "data": {"@v6": {"1": [254,128,0,0,0,0,0,0,0,0,0,0,0,1,0,2], "2": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1]}}}
"#;
    assert_eq!(out.stdout, want, "{}", out.dump());
}

/// A scratch variable's array stored in a map, as a key and in a tuple: bpftrace 0.17
/// aborts on these (an assertion in its code generator); crumbs copies the bytes.
#[test]
fn arrays_from_variables_into_maps() {
    let program = r#"BEGIN { $a = pton("1.2.3.4"); @v = $a; @k[$a] = 1; @t = ($a, 2); $b = @v; print($b); exit(); }
        END { for ($kv : @k) { printf("%s %d\n", ntop($kv.0), $kv.1); } }"#;
    let out = run(&["-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 2 probes...\n[1,2,3,4]\n1.2.3.4 1\n\n\n@k[[1,2,3,4]]: 1\n@t: ([1,2,3,4], 2)\n@v: [1,2,3,4]\n", "{}", out.dump());
}

/// A map's element never stored reads as zeros, in a variable, ntop(), a key and a value.
/// bpftrace 0.17 printed the same.
#[test]
fn unstored_elements_read_as_zeros() {
    let program = r#"BEGIN { @m[1] = pton("1.2.3.4"); $b = @m[9]; print($b); printf("%s\n", ntop(@m[9])); @c[@m[7]] = count(); @d = @m[8]; exit(); }"#;
    let out = run(&["-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n[0,0,0,0]\n0.0.0.0\n\n\n@c[[0,0,0,0]]: 1\n@d: [0,0,0,0]\n@m[1]: [1,2,3,4]\n", "{}", out.dump());
}

/// An array in memory that cannot be read is zeros, printed or stored, as bpftrace 0.17
/// printed `print($p->in6_u.u6_addr8)` of a NULL `struct in6_addr *`.
#[test]
fn unreadable_arrays_are_zeros() {
    let program = r#"BEGIN { $p = (struct in6_addr *)0; print($p->in6_u.u6_addr8); $a = $p->in6_u.u6_addr16; print($a); exit(); }"#;
    let out = run(&["-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]\n[0,0,0,0,0,0,0,0]\n\n\n", "{}", out.dump());
}

/// A process that connects a TCP socket to a listener on 127.0.0.1.
const CONNECT_V4: &str = r#"import socket
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
c = socket.create_connection(srv.getsockname()); a, _ = srv.accept()
c.close(); a.close(); srv.close()
"#;

/// sock:inet_sock_set_state's address arrays in scratch variables: ntop() of them, an
/// element, compared with the record's other array and with pton(), at both ends of the
/// connection. bpftrace 0.17 printed the same.
#[test]
fn record_arrays_in_variables() {
    let script = TempPath::with_contents("btarrconn.py", CONNECT_V4);
    let program = r#"tracepoint:sock:inet_sock_set_state /pid == cpid && args->newstate == 1/
{
  $s = args->saddr;
  $d = args->daddr_v6;
  printf("%s %s %d.%d\n", ntop($s), ntop($d), $s[0], $s[3]);
  if ($s == args->daddr) { printf("same\n"); }
  if ($s == pton("127.0.0.1")) { printf("loopback\n"); }
  if ($d != pton("::1")) { printf("not ::1\n"); }
}"#;
    let out = run(&["-e", program, "-c", &format!("python3 {}", script.str())]);
    out.assert_ok();
    let once = "127.0.0.1 ::ffff:127.0.0.1 127.1\nsame\nloopback\nnot ::1\n";
    assert_eq!(out.stdout, format!("Attaching 1 probe...\n{once}{once}\n\n"), "{}", out.dump());
}

/// The record's arrays printed, kept in maps and as keys: bpftrace 0.17 refuses these
/// ("context cannot be assigned to a map", "... is not printable"); crumbs copies them.
#[test]
fn record_arrays_in_maps_and_printed() {
    let script = TempPath::with_contents("btarrmaps.py", CONNECT_V4);
    let program = r#"tracepoint:sock:inet_sock_set_state /pid == cpid && args->newstate == 1/
{
  print(args->saddr);
  @src[args->saddr] = count();
  @last = args->daddr_v6;
}"#;
    let out = run(&["-e", program, "-c", &format!("python3 {}", script.str())]);
    out.assert_ok();
    let want = "Attaching 1 probe...\n[127,0,0,1]\n[127,0,0,1]\n\n\n@last: [0,0,0,0,0,0,0,0,0,0,255,255,127,0,0,1]\n@src[[127,0,0,1]]: 2\n";
    assert_eq!(out.stdout, want, "{}", out.dump());
}

/// A process that makes getpid(2) with arguments whose bytes are known: 0x1234, then
/// 00 1a 2b 3c 4d 5e ff ee and ab cd ef 01 23 45 67 89 in memory.
const KNOWN_BYTES: &str = "import ctypes, struct\nlibc = ctypes.CDLL(None)\na, b = struct.unpack('<QQ', bytes.fromhex('001a2b3c4d5effeeabcdef0123456789'))\nlibc.syscall(39, 0x1234, ctypes.c_ulong(a), ctypes.c_ulong(b), 0, 0, 0)\n";

/// macaddr() of a 6-byte array held in a scratch variable and in a map, the array printed,
/// kept as a key, indexed and compared. bpftrace 0.17 (which has no `&`) printed the same
/// for `(struct six *)((uint64)args + 24)`.
#[test]
fn macaddr_of_arrays_in_variables_and_maps() {
    let script = TempPath::with_contents("btarrmac.py", KNOWN_BYTES);
    let program = r#"struct six { unsigned char b[6]; }
tracepoint:raw_syscalls:sys_enter /pid == cpid && args->id == 39 && args->args[0] == 0x1234/
{
  $s = (struct six *)(&args->args[1]);
  $m = $s->b;
  printf("%s %s\n", macaddr($m), macaddr($s->b));
  print($m);
  @m = $s->b;
  @k[$s->b] = count();
  printf("%s %d\n", macaddr(@m), $m[5]);
  if ($m == $s->b) { printf("same\n"); }
  if ($m != @m) { printf("differ\n"); }
}"#;
    let out = run(&["-e", program, "-c", &format!("python3 {}", script.str())]);
    out.assert_ok();
    let want = "Attaching 1 probe...\n00:1A:2B:3C:4D:5E 00:1A:2B:3C:4D:5E\n[0,26,43,60,77,94]\n00:1A:2B:3C:4D:5E 94\nsame\n\n\n@k[[0,26,43,60,77,94]]: 1\n@m: [0,26,43,60,77,94]\n";
    assert_eq!(out.stdout, want, "{}", out.dump());
}

/// An array of signed ints printed by print() (each element by its sign), and pton() as a
/// key in another clause's predicate, in text and in -f json. bpftrace 0.17 printed the
/// same for `(struct s *)((uint64)args + 24)`.
#[test]
fn signed_elements_and_pton_keys_in_predicates() {
    let script = TempPath::with_contents("btarrint.py", KNOWN_BYTES);
    let program = r#"struct s { int a[3]; }
tracepoint:raw_syscalls:sys_enter /pid == cpid && args->id == 39 && args->args[0] == 0x1234/
{
  $p = (struct s *)(&args->args[1]);
  print($p->a);
  @x[pton("1.2.3.4")] = 1;
  print(@x);
}
tracepoint:raw_syscalls:sys_enter /pid == cpid && @x[pton("1.2.3.4")] == 1/ { @hit = 1; }"#;
    let command = format!("python3 {}", script.str());
    let out = run(&["-e", program, "-c", &command]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 2 probes...\n[1009457664,-285254067,32492971]\n@x[[1,2,3,4]]: 1\n\n\n@hit: 1\n@x[[1,2,3,4]]: 1\n", "{}", out.dump());
    let out = bpftrace(&["-f", "json", "-e", program, "-c", &command]);
    out.assert_ok();
    let want = r#"{"type": "attached_probes", "data": {"probes": 2}}
{"type": "value", "data": [1009457664,-285254067,32492971]}
{"type": "map", "data": {"@x": {"[1,2,3,4]": 1}}}


{"type": "map", "data": {"@hit": 1}}
{"type": "map", "data": {"@x": {"[1,2,3,4]": 1}}}
"#;
    assert_eq!(out.stdout, want, "{}", out.dump());
}

/// What arrays cannot do says so, with exit status 2.
#[test]
fn array_misuse_is_refused() {
    for (program, message) in [
        (r#"BEGIN { $a = pton("1.2.3.4"); printf("%s\n", $a); exit(); }"#, "an array (`uint8_t [4]`) cannot be used as a value here"),
        (r#"BEGIN { $a = pton("1.2.3.4"); $b = pton("::1"); if ($a == $b) { exit(); } }"#, "arrays of the same size and element size compare"),
        (r#"BEGIN { $a = pton("1.2.3.4"); printf("%s\n", macaddr($a)); exit(); }"#, "macaddr() argument must be 6 bytes in size, but a `uint8_t [4]` is 4"),
        (r#"BEGIN { printf("%s\n", macaddr("abcdef")); exit(); }"#, "macaddr() does not support literal string arguments"),
    ] {
        let out = run(&["--dialect", "bpftrace", "-e", program]);
        assert_eq!(out.status.code(), Some(2), "{}", out.dump());
        assert!(out.stderr.contains(message), "{}", out.dump());
    }
}

/// A tracepoint's plain `char` array longer than a process name (writeback's `char
/// name[32]`, which the format file says is unsigned) is text, as bpftrace reads it:
/// tools/writeback.bt prints it with %s.
#[test]
fn a_long_char_array_of_a_tracepoint_is_text() {
    let out = run(&["--dialect", "bpftrace", "--dump-bpf", "-e", r#"tracepoint:writeback:writeback_written { printf("%s\n", args.name); @[args.name] = count(); }"#]);
    out.assert_ok();
}
