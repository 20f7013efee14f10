//! bpftrace's tuples and loops (spec §13.3, §13.8): tuples as values of scratch variables,
//! keys and print()'s argument; `for` over a range and over a map; output actions inside
//! loops, each printed as the loop goes round. Outputs that bpftrace 0.17 can produce were
//! checked against it on the same program (it has no `for`, and refuses tuples as keys).

mod common;

use common::{bpftrace_dropin, io_benchmark, run, TempPath};

/// io-benchmark creating a 64 KiB file and reading it back in 128 reads of 512 bytes.
fn reader(file: &TempPath) -> String {
    format!("{} -c -r -b 512 -s 64K {}", io_benchmark().display(), file.str())
}

/// The lines of `text` that are not maps printed at exit nor the attach line, sorted (a
/// map's elements come in its hash order).
fn printed_sorted(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().filter(|l| !l.is_empty() && !l.starts_with('@') && !l.starts_with("Attaching")).collect();
    lines.sort();
    lines
}

#[test]
fn tuples_are_values_keys_and_print_arguments() {
    let program = r#"BEGIN { $t = (1, "hi", (2, "x"), (uint8)3, -4); print($t); print((1, 2)); printf("%d %s\n", $t.0, $t.2.1);
        $u = $t; print($u.2); print($u[2][0]); $s = ($t.0, 5); $s = ($s.1, $s.0); print($s);
        if ($u == $t) { printf("eq\n"); } if ($s != (5, 1)) { printf("ne\n"); }
        $k = (7, "k"); @m[$k] = 1; @m[(8, "l")] = 2; @n[(1, 2), 3] = 4;
        if (has_key(@m, (7, "k"))) { printf("has\n"); } delete(@m, $k); exit(); }"#;
    let out = run(&["-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n(1, hi, (2, x), 3, -4)\n(1, 2)\n1 x\n(2, x)\n2\n(5, 1)\neq\nhas\n\n\n@m[8, l]: 2\n@n[(1, 2), 3]: 4\n", "{}", out.dump());
}

/// bpftrace's records (current bpftrace's docs; 0.17 lacks them): fields by name, in any
/// order, printed as current bpftrace's text output writes them (`{ .color = green, .size =
/// 2 }`: its docs quote the string, its output does not), compared field by field, inside
/// tuples.
#[test]
fn records_are_fields_by_name() {
    let program = r#"BEGIN { $a = (color = "green", size = 2); print($a); print($a.size); $a = (size = 10, color = "blue"); print($a.color);
        $t = (1, $a); print($t.1.size); if ($a == (color = "blue", size = 10)) { printf("eq\n"); } print((n = 1)); exit(); }"#;
    let out = run(&["-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n{ .color = green, .size = 2 }\n2\nblue\n10\neq\n{ .n = 1 }\n\n\n", "{}", out.dump());
}

/// A tuple's or record's 64-bit elements print whole (they printed their low 32 bits): a
/// tuple as 0.17 prints it (a pointer as a signed 64-bit number, checked against 0.17), a
/// record as current bpftrace does (a pointer in hex, as its types_format.cpp writes it).
#[test]
fn tuples_and_records_print_64_bit_elements_whole() {
    let program = r#"BEGIN { print(((uint64)-1, (int64)-5000000000, (uint32)-1, (int8*)1, (uint8*)-1)); $t = ((uint64)-2, 3); print($t);
        print((p = (uint8*)-1, q = (uint64)-1, r = (1, (int8*)0), s = (int64)-5000000000)); exit(); }"#;
    let out = run(&["-e", program]);
    out.assert_ok();
    assert_eq!(
        out.stdout,
        "Attaching 1 probe...\n(18446744073709551615, -5000000000, 4294967295, 1, -1)\n(18446744073709551614, 3)\n{ .p = 0xffffffffffffffff, .q = 18446744073709551615, .r = (1, 0x0), .s = -5000000000 }\n\n\n",
        "{}",
        out.dump()
    );
}

#[test]
fn range_loops_count_from_start_to_before_end() {
    let program = r#"BEGIN { for ($i : 0..5) { if ($i == 1) { continue; } if ($i == 4) { break; } printf("%d\n", $i); @s += $i; }
        $n = 3; for ($j : $n..$n + 2) { $n = 100; printf("j%d\n", $j); } for ($k : 2..2) { printf("never\n"); } exit(); }"#;
    let out = run(&["-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n0\n2\n3\nj3\nj4\n\n\n@s: 5\n", "{}", out.dump());
}

/// printf() in a while loop prints at each turn, in order with what the clause prints
/// around the loop (checked against bpftrace 0.17).
#[test]
fn output_inside_a_loop_prints_at_each_turn() {
    let program = r#"BEGIN { printf("a\n"); $i = 0; while ($i < 4) { $i++; if ($i == 2) { continue; } printf("i=%d\n", $i); @w[$i] = $i * 10; } printf("b %d\n", $i); exit(); }"#;
    let out = run(&["-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\na\ni=1\ni=3\ni=4\nb 4\n\n\n@w[1]: 10\n@w[3]: 30\n@w[4]: 40\n", "{}", out.dump());
}

/// `for` over maps of values filled by io-benchmark's reads: one key, two keys (a tuple
/// of them), string keys and values; each element once.
#[test]
fn map_loops_visit_every_element() {
    let file = TempPath::new("btforreads");
    let program = r#"BEGIN { @names["first"] = "one"; @names["second"] = "two"; }
        tracepoint:syscalls:sys_enter_read /pid == cpid/ { @calls[args->count, comm] = @calls[args->count, comm] + 1; @bytes[args->fd > 2] = @bytes[args->fd > 2] + args->count; }
        END { for ($kv : @calls) { printf("calls %d %s %d\n", $kv.0.0, $kv.0.1, $kv.1); }
              for ($kv : @bytes) { printf("bytes %d %d\n", $kv.0, $kv.1); }
              for ($kv : @names) { printf("name %s=%s\n", $kv.0, $kv.1); print($kv); }
              clear(@calls); clear(@bytes); clear(@names); }"#;
    let out = run(&["-e", program, "-c", &reader(&file)]);
    out.assert_ok();
    assert_eq!(
        printed_sorted(&out.stdout),
        ["(first, one)", "(second, two)", "bytes 1 65536", "calls 512 io-benchmark 128", "name first=one", "name second=two"],
        "{}",
        out.dump()
    );
}

/// A map keyed by a struct (with an integer beside it): the loop's `$kv.0.0` is the struct,
/// copied whole, its members read as anywhere.
#[test]
fn map_loops_over_struct_keys() {
    let program = r#"BEGIN { @m[curtask->se.load, 7] = 3; for ($kv : @m) { printf("%d %d %d\n", $kv.0.0.weight == curtask->se.load.weight, $kv.0.1, $kv.1); } clear(@m); exit(); }"#;
    let out = run(&["--dialect", "bpftrace", "-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n1 7 3\n\n\n\n", "{}", out.dump());
}

/// continue, break and return inside a map loop, a loop inside a loop, and the loop's
/// variables: each firing walks the whole map (three elements) unless it leaves.
#[test]
fn map_loops_continue_break_return_and_nest() {
    let file = TempPath::new("btforjumps");
    let program = r#"BEGIN { @m[1] = 10; @m[2] = 20; @m[3] = 30; @n["a"] = 1; @n["b"] = 2; }
        tracepoint:syscalls:sys_enter_read /pid == cpid/ {
            $seen = 0; for ($kv : @m) { $seen++; for ($x : @n) { @inner += $x.1; } if ($kv.0 == 2) { continue; } @sum += $kv.1; }
            @seen = $seen; for ($kv : @m) { break; }
            for ($kv : @m) { @ret++; return; } @never++; }
        END { clear(@m); clear(@n); }"#;
    let out = run(&["-q", "-e", program, "-c", &reader(&file)]);
    out.assert_ok();
    let maps: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with('@')).collect();
    assert_eq!(maps, ["@inner: 1152", "@ret: 128", "@seen: 3", "@sum: 5120"], "{}", out.dump());
}

/// exit() inside a map loop ends tracing after the record that holds it.
#[test]
fn exit_inside_a_map_loop_ends_tracing() {
    let file = TempPath::new("btforexit");
    let program = r#"BEGIN { @s["k"] = "v"; } tracepoint:syscalls:sys_enter_read /pid == cpid/ { for ($kv : @s) { printf("%s=%s\n", $kv.0, $kv.1); exit(); } }"#;
    let out = run(&["-q", "-e", program, "-c", &reader(&file)]);
    out.assert_ok();
    assert_eq!(out.stdout.lines().filter(|l| *l == "k=v").count(), 1, "{}", out.dump());
}

/// A fault in a loop's body (a division by zero) is reported as the clause's action's, and
/// the clause's firing ends there.
#[test]
fn a_fault_in_a_map_loop_is_reported() {
    let file = TempPath::new("btforfault");
    let program = r#"BEGIN { @m[1] = 0; } tracepoint:syscalls:sys_enter_read /pid == cpid/ { @before++; for ($kv : @m) { @x = 1 / $kv.1; } @after++; } END { clear(@m); }"#;
    let out = run(&["-q", "-e", program, "-c", &reader(&file)]);
    assert!(out.stderr.contains("divide-by-zero in action #2"), "{}", out.dump());
    let maps: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with('@')).collect();
    assert_eq!(maps, ["@before: 128"], "{}", out.dump());
}

#[test]
fn wrong_tuples_and_loops_are_compile_errors() {
    let cases = [
        ("BEGIN { $t = (1, 2); $x = $t + 1; }", "a tuple cannot be used here", "read one of its elements"),
        ("BEGIN { $t = (1, 2); printf(\"%d\\n\", $t.2); }", "the tuple has no element 2", "elements 0 to 1"),
        ("BEGIN { $t = (1, 2); $i = 1; printf(\"%d\\n\", $t[$i]); }", "a tuple's index must be a constant", "$t[1]"),
        ("BEGIN { @m[1] = 1; for ($kv : @m[1]) { } }", "`for` runs over a whole map, not an element of @m", "$kv.1 its value"),
        ("BEGIN { for ($kv : @nothing) { } }", "map `@nothing` is never assigned", "store into it"),
        ("BEGIN { @m[1] = (1, 2); @m[2] = 3; }", "`@m` is given values of two shapes", "a map keeps one type of value"),
    ];
    for (program, message, hint) in cases {
        let out = run(&["--dialect", "bpftrace", "-e", program]);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains(message) && out.stderr.contains(hint), "{message:?} {hint:?}\n{}", out.dump());
    }
    for (program, message) in [("BEGIN { x = (1, 2); }", "a tuple is bpftrace's, not D's"), ("BEGIN { x = y.0; }", "`0` is not a member's name")] {
        let out = run(&["--dialect", "d", "-e", program]);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains(message), "{message:?}\n{}", out.dump());
    }
}

/// Tuples and records among a map's keys print nested, as current bpftrace prints them
/// (its src/output/text.cpp: the keys' tuple without its outer parentheses; json.cpp: the
/// same without spaces); bpftrace 0.17 refuses them ("tuple cannot be used as a map key").
#[test]
fn nested_keys_print_nested() {
    let program = r#"BEGIN { @m[1, (2, 3)] = 1; @n[(1, "a"), 2] = 5; @c[1, (2, "x")] = count(); $t = (4, (5, 6)); @t[$t] = 2;
        @r[(b = "x", a = 1)] = 3; @q[7, (n = 2)] = count(); @p[(1, 2)] = 1;
        for ($kv : @m) { printf("%d %d %d\n", $kv.0.0, $kv.0.1.0, $kv.0.1.1); print($kv.0); }
        for ($kv : @r) { printf("%d %s\n", $kv.0.a, $kv.0.b); } exit(); }"#;
    let out = run(&["-e", program]);
    out.assert_ok();
    assert_eq!(
        out.stdout,
        "Attaching 1 probe...\n1 2 3\n(1, (2, 3))\n1 x\n\n\n@c[1, (2, x)]: 1\n@m[1, (2, 3)]: 1\n@n[(1, a), 2]: 5\n@p[1, 2]: 1\n@q[7, { .n = 2 }]: 1\n@r[{ .a = 1, .b = x }]: 3\n@t[4, (5, 6)]: 2\n",
        "{}",
        out.dump()
    );
    let json = bpftrace_dropin(&["-f", "json", "-e", r#"BEGIN { @m[1, (2, 3)] = 1; @r[(a = 1, b = "x y")] = 3; @w["x", "y z"] = 1; exit(); }"#], None, &[]);
    assert_eq!(
        json.stdout,
        "{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}\n\n\n{\"type\": \"map\", \"data\": {\"@m\": {\"1,(2,3)\": 1}}}\n{\"type\": \"map\", \"data\": {\"@r\": {\"{.a=1,.b=xy}\": 3}}}\n{\"type\": \"map\", \"data\": {\"@w\": {\"x,y z\": 1}}}\n",
        "{}",
        json.dump()
    );
    let bad = run(&["-e", "BEGIN { @m[1, (2, 3)] = 1; @m[1, 2, 3] = 2; }"]);
    assert_eq!(bad.code(), 2, "{}", bad.dump());
    assert!(bad.stderr.contains("@m's keys are nested differently here"), "{}", bad.dump());
}
