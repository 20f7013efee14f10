//! print() of a struct, union or array in the bpftrace dialect, printed as bpftrace 0.17
//! prints it (spec §13.4): `{ .a = 1, .b = { ... } }`, run for real on a struct whose
//! bytes are known. Each expected output was checked against bpftrace 0.17 running the
//! same program (with `(uint64)args + 24` for `&args->args[1]`), except bitfields, which
//! 0.17 prints as the whole word holding them and current bpftrace by their bits.

mod common;

use common::{run, Output, TempPath};

/// crumbs invoked as `bpftrace` (a symlink), which has `-f json`.
fn bpftrace(args: &[&str]) -> Output {
    common::bpftrace_dropin(args, None, &[])
}

/// A process that makes getpid(2) with arguments whose bytes are known: 0x1234, then
/// 00 1a 2b 3c 4d 5e ff ee, ab cd ef 01 23 45 67 89, (uint64)-2 and "cat" in memory.
const KNOWN_BYTES: &str = "import ctypes, struct\nlibc = ctypes.CDLL(None)\na, b = struct.unpack('<QQ', bytes.fromhex('001a2b3c4d5effeeabcdef0123456789'))\nname, = struct.unpack('<Q', b'cat\\0\\0\\0\\0\\0')\nlibc.syscall(39, 0x1234, ctypes.c_ulong(a), ctypes.c_ulong(b), ctypes.c_ulong(2**64 - 2), ctypes.c_ulong(name), 0)\n";

/// A struct with an array, a nested struct, an anonymous union (its members printed as
/// the struct's), bitfields, a pointer (a signed number, as 0.17 prints it) and a char
/// array (the string), printed through a pointer, from a variable, and a member struct.
const PROGRAM: &str = r#"struct t { unsigned char b[2]; short s; struct { int x; } in; union { unsigned int u; unsigned short h[2]; }; unsigned int lo:3, hi:5; void *p; char name[8]; }
tracepoint:raw_syscalls:sys_enter /pid == cpid && args->id == 39 && args->args[0] == 0x1234/
{
  $p = (struct t *)(&args->args[1]);
  print(*$p);
  $s = *$p;
  print($s);
  print($p->in);
}"#;

#[test]
fn structs_print_as_bpftrace_prints_them() {
    let script = TempPath::with_contents("btstruct.py", KNOWN_BYTES);
    let command = format!("python3 {}", script.str());
    let out = run(&["--dialect", "bpftrace", "-e", PROGRAM, "-c", &command]);
    out.assert_ok();
    let s = "{ .b = [0,26], .s = 15403, .in = { .x = -285254067 }, .u = 32492971, .h = [52651,495], .lo = 3, .hi = 4, .p = -2, .name = cat }";
    assert_eq!(out.stdout, format!("Attaching 1 probe...\n{s}\n{s}\n{{ .x = -285254067 }}\n\n\n"), "{}", out.dump());
    let out = bpftrace(&["-f", "json", "-e", PROGRAM, "-c", &command]);
    out.assert_ok();
    let s = r#"{"type": "value", "data": { "b": [0,26], "s": 15403, "in": { "x": -285254067 }, "u": 32492971, "h": [52651,495], "lo": 3, "hi": 4, "p": -2, "name": "cat" }}"#;
    let want = format!("{{\"type\": \"attached_probes\", \"data\": {{\"probes\": 1}}}}\n{s}\n{s}\n{{\"type\": \"value\", \"data\": {{ \"x\": -285254067 }}}}\n\n\n");
    assert_eq!(out.stdout, want, "{}", out.dump());
}

/// An array of structs prints as a list of them, with no space between (as 0.17 prints
/// `print(curtask->pid_links)`); each struct's members as above.
#[test]
fn arrays_of_structs_print_as_lists() {
    let script = TempPath::with_contents("btstructs.py", KNOWN_BYTES);
    let program = r#"struct two { unsigned short a; unsigned char c[2]; }
struct w { struct two v[2]; }
tracepoint:raw_syscalls:sys_enter /pid == cpid && args->id == 39 && args->args[0] == 0x1234/
{
  $p = (struct w *)(&args->args[1]);
  print($p->v);
}"#;
    let command = format!("python3 {}", script.str());
    let out = run(&["--dialect", "bpftrace", "-e", program, "-c", &command]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n[{ .a = 6656, .c = [43,60] },{ .a = 24141, .c = [255,238] }]\n\n\n", "{}", out.dump());
    let out = bpftrace(&["-f", "json", "-e", program, "-c", &command]);
    out.assert_ok();
    let want = "{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}\n{\"type\": \"value\", \"data\": [{ \"a\": 6656, \"c\": [43,60] },{ \"a\": 24141, \"c\": [255,238] }]}\n\n\n";
    assert_eq!(out.stdout, want, "{}", out.dump());
}

/// A struct kept in a map prints by its members at exit, in print(@m) and in `-f json`, as
/// a value (`{ .a = 1 }`, as print() prints it), as a tuple's element, and as a key, which
/// 0.17 prints without spaces, its pointers in hex and its integers as signed
/// (`{.h=[-12885,495],.p=0xfffffffffffffffe}`). Checked against bpftrace 0.17 running the
/// same program with `(uint64)args + 24` for `&args->args[1]`.
#[test]
fn structs_kept_in_maps_print_by_their_members() {
    let script = TempPath::with_contents("btmapstruct.py", KNOWN_BYTES);
    let program = r#"struct t { unsigned char b[2]; short s; struct { int x; } in; union { unsigned int u; unsigned short h[2]; }; unsigned int w; void *p; char name[8]; }
tracepoint:raw_syscalls:sys_enter /pid == cpid && args->id == 39 && args->args[0] == 0x1234/
{
  $p = (struct t *)(&args->args[1]);
  @m[1] = *$p;
  @k[*$p, 2] = count();
  @t = (-1, *$p);
  print(@m);
}"#;
    let command = format!("python3 {}", script.str());
    let out = run(&["--dialect", "bpftrace", "-e", program, "-c", &command]);
    out.assert_ok();
    let s = "{ .b = [0,26], .s = 15403, .in = { .x = -285254067 }, .u = 32492971, .h = [52651,495], .w = 2305246499, .p = -2, .name = cat }";
    let k = "{.b=[0,26],.s=15403,.in={.x=-285254067},.u=32492971,.h=[-12885,495],.w=-1989720797,.p=0xfffffffffffffffe,.name=cat}";
    assert_eq!(out.stdout, format!("Attaching 1 probe...\n@m[1]: {s}\n\n\n@k[{k}, 2]: 1\n@m[1]: {s}\n@t: (-1, {s})\n"), "{}", out.dump());
    let out = bpftrace(&["-f", "json", "-e", program, "-c", &command]);
    out.assert_ok();
    let s = r#"{ "b": [0,26], "s": 15403, "in": { "x": -285254067 }, "u": 32492971, "h": [52651,495], "w": 2305246499, "p": -2, "name": "cat" }"#;
    let m = format!(r#"{{"type": "map", "data": {{"@m": {{"1": {s}}}}}}}"#);
    let want = format!(
        "{{\"type\": \"attached_probes\", \"data\": {{\"probes\": 1}}}}\n{m}\n\n\n{{\"type\": \"map\", \"data\": {{\"@k\": {{\"{k},2\": 1}}}}}}\n{m}\n{{\"type\": \"map\", \"data\": {{\"@t\": [-1,{s}]}}}}\n"
    );
    assert_eq!(out.stdout, want, "{}", out.dump());
}

/// A key's unsigned members print as signed numbers of their size, a value's as their
/// type says (0.17: `@k[{.c=[0,26,43,60,77,94,-1,-18],.x=-8545785751253561941,...}]`).
#[test]
fn a_struct_keys_integers_print_signed() {
    let script = TempPath::with_contents("btmapkey.py", KNOWN_BYTES);
    let program = r#"struct t { unsigned char c[8]; unsigned long x; unsigned long y; char d; unsigned char e; }
tracepoint:raw_syscalls:sys_enter /pid == cpid && args->id == 39 && args->args[0] == 0x1234/
{
  $p = (struct t *)(&args->args[1]);
  @k[*$p] = 1;
  @v = *$p;
}"#;
    let command = format!("python3 {}", script.str());
    let out = run(&["--dialect", "bpftrace", "-e", program, "-c", &command]);
    out.assert_ok();
    let want = "Attaching 1 probe...\n\n\n@k[{.c=[0,26,43,60,77,94,-1,-18],.x=-8545785751253561941,.y=-2,.d=99,.e=97}]: 1\n@v: { .c = [0,26,43,60,77,94,255,238], .x = 9900958322455989675, .y = 18446744073709551614, .d = 99, .e = 97 }\n";
    assert_eq!(out.stdout, want, "{}", out.dump());
}
