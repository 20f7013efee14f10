//! Actions and expressions, checked through what crumbs prints: printf (C semantics for
//! 64-bit integers, as DTrace hands conversions to printf(3C)), trace() in quiet and
//! non-quiet mode, the default action, exit(), globals, clause order, predicates,
//! arithmetic, literals, the `< >` block, `$target`, `-o` and `-x`.
//!
//! Non-quiet output (dtrace.c `chew()`): the heading `"%3s %6s %32s\n"` once, before the
//! first firing, then for every firing `"%3d %6d %32s "` of cpu, probe id and
//! `function:name`, the firing's records (`trace()` of an integer as `" %16lld"`, of a
//! string as `"  %-33s"`), and `"\n"`. When tracing stops, one more `"\n"`.

mod common;

use common::{int32_col, int_col, quiet, run, TempPath};

const HEADER: &str = "CPU     ID                    FUNCTION:NAME\n";

/// Checks one non-quiet firing line's prefix `"%3d %6d %32s "` and returns
/// (cpu, id, the rest of the line after the prefix).
fn split_prefix<'a>(line: &'a str, func_name: &str) -> (u32, u32, &'a str) {
    assert!(line.len() >= 44, "line too short for a probe prefix: {line:?}");
    let cpu = line[0..3].trim_start().parse::<u32>().unwrap_or_else(|_| panic!("bad cpu column in {line:?}"));
    assert_eq!(&line[3..4], " ", "{line:?}");
    let id = line[4..10].trim_start().parse::<u32>().unwrap_or_else(|_| panic!("bad id column in {line:?}"));
    assert_eq!(&line[10..11], " ", "{line:?}");
    assert_eq!(&line[11..43], format!("{func_name:>32}"), "function:name column of {line:?}");
    assert_eq!(&line[43..44], " ", "{line:?}");
    let ncpu = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1024) as u32;
    assert!(cpu < ncpu.max(1024), "cpu {cpu} out of range in {line:?}");
    (cpu, id, &line[44..])
}

// ---------------------------------------------------------------- printf

#[test]
fn printf_conversions() {
    let out = quiet(r#"BEGIN { printf("%d|%i|%u|%x|%X|%o|%c|%s|%%\n", -42, 42, -1, 255, 255, 8, 65, "str"); exit(0); }"#);
    // %u of the int -1 is its 4 bytes unsigned (DTrace's pfprint_uint() by the type's size).
    assert_eq!(out, "-42|42|4294967295|ff|FF|10|A|str|%\n\n");
    // A long's 8 bytes; %d of an unsigned type prints it unsigned (pfprint_dint()); %p is %x.
    let out = quiet(r#"BEGIN { printf("%u|%x|%d|%d|%i|%p|%d\n", -1L, -1L, -1UL, (unsigned int)-1, (unsigned char)-1, 0x1234, (char)200); exit(0); }"#);
    assert_eq!(out, "18446744073709551615|ffffffffffffffff|18446744073709551615|4294967295|255|1234|-56\n\n");
}

#[test]
fn printf_flags_width_precision() {
    let out = quiet(
        r#"BEGIN { printf("[%5d][%-5d][%05d][%+d][% d][%#x][%#o][%.3d][%8.3d][%-8s][%.2s][%5s]\n", 42, 42, 42, 42, 42, 255, 8, 7, 7, "ab", "abcdef", "ab"); exit(0); }"#,
    );
    assert_eq!(out, "[   42][42   ][00042][+42][ 42][0xff][010][007][     007][ab      ][ab][   ab]\n\n");

    let out = quiet(
        r#"BEGIN { printf("[%3c][%-3c][%x][%X][%#X][%#o][%+5d][%-+5d][% 05d][%-05d][%+d][%05d]\n", 66, 67, -1, 3054, 3054, 0, 7, 7, 7, 7, -7, -42); exit(0); }"#,
    );
    assert_eq!(out, "[  B][C  ][ffffffff][BEE][0XBEE][0][   +7][+7   ][ 0007][7    ][-7][-0042]\n\n");

    // Precision 0 of 0 prints no digits; #x of 0 has no prefix; %.0s prints nothing.
    let out = quiet(r#"BEGIN { printf("[%.0d][%#x][%.0s][%3.1s]\n", 0, 0, "abc", "xyz"); exit(0); }"#);
    assert_eq!(out, "[][0][][  x]\n\n");
}

#[test]
fn printf_length_modifiers() {
    // The length modifier is accepted; the argument's type decides the width, as in DTrace.
    let out = quiet(r#"BEGIN { printf("%ld %lld %lu %lx %li %llu %lu\n", -1, -2, -1, 255, 3, 4, -1L); exit(0); }"#);
    assert_eq!(out, "-1 -2 4294967295 ff 3 4 18446744073709551615\n\n");
}

#[test]
fn string_escapes() {
    let out = quiet(r#"BEGIN { printf("a\tb\\c\"d\x41\101\n"); printf("%s|\n", "q\"t\\"); exit(0); }"#);
    assert_eq!(out, "a\tb\\c\"dAA\nq\"t\\|\n\n");
}

// ---------------------------------------------------------------- trace

#[test]
fn trace_quiet_prints_bare_values() {
    let out = quiet(r#"BEGIN { trace(-5); trace("s"); trace(execname); trace(42); exit(0); }"#);
    assert_eq!(out, "-5scrumbs42\n");
}

#[test]
fn trace_not_quiet_prints_header_and_prefix() {
    let out = run(&["-e", r#"BEGIN { trace(42); trace("hi"); } BEGIN { trace(-1); exit(0); }"#]);
    out.assert_ok();
    let lines: Vec<&str> = out.stdout.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 4, "{}", out.dump());
    // The heading once, not per firing.
    assert_eq!(lines[0], HEADER);
    let (cpu1, id1, rest1) = split_prefix(lines[1], ":BEGIN");
    assert_eq!(id1, 1, "BEGIN is probe 1");
    assert_eq!(rest1, format!("{}  {:<33}\n", int32_col(42), "hi"));
    let (cpu2, id2, rest2) = split_prefix(lines[2], ":BEGIN");
    assert_eq!((cpu2, id2), (cpu1, 1));
    assert_eq!(rest2, format!("{}\n", int32_col(-1)));
    // Tracing stopped.
    assert_eq!(lines[3], "\n");
    // The banner goes to stderr, not stdout.
    assert!(out.stderr.contains("matched 2 probes"), "{}", out.dump());
}

#[test]
fn default_action_prints_probe_line() {
    // A clause with no block and one with an empty block both print the probe line.
    let out = run(&["-e", "BEGIN BEGIN {} BEGIN { exit(0); }"]);
    out.assert_ok();
    let lines: Vec<&str> = out.stdout.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 5, "{}", out.dump());
    assert_eq!(lines[0], HEADER);
    for l in &lines[1..4] {
        let (_, id, rest) = split_prefix(l, ":BEGIN");
        assert_eq!((id, rest), (1, "\n"), "{}", out.dump());
    }
    assert_eq!(lines[4], "\n");
}

#[test]
fn default_action_in_quiet_mode_prints_nothing() {
    assert_eq!(quiet("BEGIN BEGIN {} BEGIN { exit(0); }"), "\n");
}

#[test]
fn end_probe_line_not_quiet() {
    let out = run(&["-e", "BEGIN { trace(1); } END { trace(2); }", "-c", "true"]);
    out.assert_ok();
    let lines: Vec<&str> = out.stdout.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 4, "{}", out.dump());
    assert_eq!(lines[0], HEADER);
    let (_, id, rest) = split_prefix(lines[1], ":BEGIN");
    assert_eq!((id, rest), (1, format!("{}\n", int32_col(1)).as_str()));
    let (_, id, rest) = split_prefix(lines[2], ":END");
    assert_eq!((id, rest), (2, format!("{}\n", int32_col(2)).as_str()));
    assert_eq!(lines[3], "\n");
}

// ---------------------------------------------------------------- exit

#[test]
fn exit_discards_what_follows_it_and_end_still_runs() {
    // spec §7.4, §9.1: once the exit() record is read, the records left in the buffer (later
    // BEGIN clauses, a second exit()) are discarded; END runs and prints; the first exit()
    // sets the status.
    let out = run(&["-q", "-e", r#"BEGIN { exit(0); } BEGIN { exit(1); } END { printf("end\n"); }"#]);
    out.assert_no_panic();
    assert_eq!((out.code(), out.stdout.as_str()), (0, "end\n\n"), "{}", out.dump());

    // Actions after exit() in its own clause run and print; the later clauses of the same
    // firing do not run at all (DTrace's rule): no record, no variable or aggregation update.
    let out = run(&[
        "-q",
        "-e",
        r#"BEGIN { printf("a\n"); } BEGIN { exit(3); printf("b\n"); } BEGIN { printf("c\n"); x = 5; @n = count(); }
           END { printf("end %d\n", x); }"#,
    ]);
    out.assert_no_panic();
    assert_eq!((out.code(), out.stdout.as_str()), (3, "a\nb\nend 0\n\n"), "{}", out.dump());

    // In END, the first exit() sets the final status and END's later records are not printed.
    let out = run(&[
        "-q",
        "-e",
        r#"BEGIN { exit(1); } END { printf("e1\n"); exit(4); printf("e2\n"); } END { printf("e3\n"); exit(5); }"#,
    ]);
    out.assert_no_panic();
    assert_eq!((out.code(), out.stdout.as_str()), (4, "e1\ne2\n\n"), "{}", out.dump());
}

#[test]
fn exit_status_is_the_low_8_bits() {
    // spec §7.4, §10.3: like DTrace, the status is truncated to 8 bits, not clamped.
    for (status, want) in [("-1", 255), ("256", 0), ("257", 1), ("511", 255), ("-256", 0), ("0x100000002", 2)] {
        let out = run(&["-q", "-e", &format!("BEGIN {{ exit({status}); }}")]);
        out.assert_no_panic();
        assert_eq!(out.code(), want, "exit({status})\n{}", out.dump());
        assert_eq!(out.stdout, "\n", "{}", out.dump());
    }
    // Also for the status set in END.
    let out = run(&["-q", "-e", "BEGIN { exit(0); } END { exit(-2); }"]);
    assert_eq!(out.code(), 254, "{}", out.dump());
}

#[test]
fn exit_status_is_crumbs_status() {
    let out = run(&["-q", "-e", "BEGIN { exit(3); }"]);
    out.assert_no_panic();
    assert_eq!(out.code(), 3, "{}", out.dump());
    let out = run(&["-q", "-e", "BEGIN { exit(42); }"]);
    assert_eq!(out.code(), 42, "{}", out.dump());
    let out = run(&["-q", "-e", "BEGIN { exit(0); }"]);
    assert_eq!(out.code(), 0, "{}", out.dump());
}

// ---------------------------------------------------------------- variables

#[test]
fn global_variables() {
    assert_eq!(quiet(r#"BEGIN { x = 5; x += 2; x++; printf("%d\n", x); exit(0); }"#), "8\n\n");
    // Uninitialized globals read 0.
    assert_eq!(quiet(r#"BEGIN { printf("%d %d\n", y, z); y = 1; exit(0); } END { z = 1; }"#), "0 0\n\n");
}

#[test]
fn compound_assignments() {
    let out = quiet(
        r#"BEGIN { x = 10; x -= 3; x *= 4; x /= 3; x %= 5; x <<= 3; x >>= 1; x |= 1; x &= 7; x ^= 2; x--; ++x; --x; printf("%d\n", x); exit(0); }"#,
    );
    // 10 7 28 9 4 32 16 17 1 3 2 3 2
    assert_eq!(out, "2\n\n");
}

#[test]
fn clauses_run_in_program_order_and_share_globals() {
    let out = quiet(
        r#"BEGIN { x = 1; printf("a %d\n", x); }
           BEGIN { x *= 10; printf("b %d\n", x); }
           BEGIN /x == 10/ { printf("c\n"); }
           BEGIN { printf("d %d\n", x); exit(0); }"#,
    );
    assert_eq!(out, "a 1\nb 10\nc\nd 10\n\n");
}

#[test]
fn globals_persist_from_begin_to_end() {
    let out = run(&["-q", "-e", r#"BEGIN { n = 41; } END { n++; printf("%d\n", n); }"#, "-c", "true"]);
    out.assert_ok();
    assert_eq!(out.stdout, "42\n\n");
}

// ---------------------------------------------------------------- predicates

#[test]
fn predicates() {
    let out = quiet(
        r#"BEGIN /1/ { printf("a\n"); }
           BEGIN /0/ { printf("b\n"); }
           BEGIN { x = 3; }
           BEGIN /x == 3/ { printf("c\n"); }
           BEGIN /x != 3/ { printf("d\n"); }
           BEGIN /x == 3 && !(x != 3)/ { printf("e\n"); }
           BEGIN /x == 4 || x >= 3/ { printf("f\n"); }
           BEGIN /x == 4 || x < 3/ { printf("g\n"); }
           BEGIN /1 ^^ 1/ { printf("h\n"); }
           BEGIN /1 ^^ 0/ { printf("i\n"); }
           BEGIN /!x/ { printf("j\n"); }
           BEGIN /!undefined_yet/ { printf("k\n"); }
           BEGIN /x <= 3 && x > 2 && x < 4 && x >= 3/ { printf("l\n"); }
           BEGIN { undefined_yet = 1; exit(0); }"#,
    );
    assert_eq!(out, "a\nc\ne\nf\ni\nk\nl\n\n");
}

#[test]
fn ternary() {
    let out = quiet(r#"BEGIN { x = 3; printf("%d %d %d\n", x > 2 ? 10 : 20, x > 5 ? 10 : 20, x ? x == 3 ? 1 : 2 : 3); exit(0); }"#);
    assert_eq!(out, "10 20 1\n\n");
}

#[test]
fn string_comparisons_on_execname() {
    let out = quiet(
        r#"BEGIN /execname == "crumbs"/ { printf("eq\n"); }
           BEGIN /execname != "crumbs"/ { printf("ne\n"); }
           BEGIN /execname == "crumb"/ { printf("prefix\n"); }
           BEGIN /execname != "cat"/ { printf("ne-cat\n"); }
           BEGIN /execname < "d"/ { printf("lt-d\n"); }
           BEGIN /execname < "crumbs"/ { printf("lt-self\n"); }
           BEGIN /execname > "crumb"/ { printf("gt-prefix\n"); }
           BEGIN /"crumbs" == execname/ { printf("rev\n"); }
           BEGIN { exit(0); }"#,
    );
    assert_eq!(out, "eq\nne-cat\nlt-d\ngt-prefix\nrev\n\n");
}

#[test]
fn execname_ordered_against_literals_of_16_bytes_or_more() {
    // spec §4.5: a comm holds at most 15 bytes, so a literal of 16 bytes or more never
    // equals it, and the order is decided by the literal's first 15 bytes, equal meaning
    // that execname ("crumbs" here) is the smaller. Columns: < <= > >= == !=.
    let all = |lit: &str| {
        format!(
            r#"printf("%d%d%d%d%d%d ", execname < "{lit}", execname <= "{lit}", execname > "{lit}", execname >= "{lit}", execname == "{lit}", execname != "{lit}");"#
        )
    };
    let program = format!(
        r#"BEGIN {{ {} {} {} printf("%d%d%d%d\n", "aaaaaaaaaaaaaaaa" < execname, "aaaaaaaaaaaaaaaa" >= execname, "zzzzzzzzzzzzzzzz" > execname, "zzzzzzzzzzzzzzzz" <= execname); exit(0); }}"#,
        all("aaaaaaaaaaaaaaaa"),
        all("crumbsaaaaaaaaaaaaaa"),
        all("zzzzzzzzzzzzzzzz"),
    );
    assert_eq!(quiet(&program), "001101 110001 110001 1010\n\n");
}

#[test]
fn execname_of_15_bytes_against_a_longer_literal() {
    // spec §4.5, through a process whose comm is 15 bytes: crumbs run through a symlink
    // named `crumbsxxxxxxxxxyz` has the comm `crumbsxxxxxxxxx`.
    let dir = TempPath::dir("comm");
    let link = dir.path().join("crumbsxxxxxxxxxyz");
    std::os::unix::fs::symlink(common::crumbs(), &link).unwrap();
    let all = |lit: &str| {
        format!(
            r#"printf("%d%d%d%d%d%d ", execname < "{lit}", execname <= "{lit}", execname > "{lit}", execname >= "{lit}", execname == "{lit}", execname != "{lit}");"#
        )
    };
    let program = format!(
        r#"BEGIN {{ printf("%s ", execname); {} {} {} printf("%d\n", "crumbsxxxxxxxxxyz" > execname); exit(0); }}"#,
        all("crumbsxxxxxxxxxyz"),
        all("crumbsxxxxxxxxy0"),
        all("crumbsxxxxxxxxw0"),
    );
    let mut cmd = std::process::Command::new(&link);
    cmd.args(["-q", "-e", &program]);
    let out = common::run_command(cmd, None, common::TIMEOUT);
    out.assert_ok();
    assert_eq!(out.stdout, "crumbsxxxxxxxxx 110001 110001 001101 1\n\n", "{}", out.dump());
}

#[test]
fn comm_is_an_alias_of_execname() {
    assert_eq!(quiet(r#"BEGIN /comm == "crumbs"/ { printf("%s %s\n", comm, execname); exit(0); }"#), "crumbs crumbs\n\n");
}

#[test]
fn execname_compared_with_comm() {
    assert_eq!(quiet(r#"BEGIN /comm == execname/ { printf("same\n"); exit(0); }"#), "same\n\n");
}

#[test]
fn probe_name_variables_in_begin() {
    assert_eq!(
        quiet(r#"BEGIN { printf("[%s][%s][%s][%s]\n", probeprov, probemod, probefunc, probename); exit(0); }"#),
        "[dtrace][][][BEGIN]\n\n"
    );
}

// ---------------------------------------------------------------- arithmetic

#[test]
fn arithmetic_without_spaces() {
    let out = quiet(r#"BEGIN { printf("%d %d %d %d %d %d %d\n", 3-1, 2*3+1, 1+2*3, (1+2)*3, 10-2-3, 7&3|8, 6^3); exit(0); }"#);
    assert_eq!(out, "2 7 7 9 5 11 5\n\n");
}

#[test]
fn arithmetic_with_spaces() {
    // The usual way to write D: operators surrounded by spaces.
    let out = quiet(r#"BEGIN { printf("%d %d %d %d %d %d %d\n", 3 - 1, 2 * 3 + 1, 1 + 2 * 3, (1 + 2) * 3, 10 - 2 - 3, 7 & 3 | 8, 6 ^ 3); exit(0); }"#);
    assert_eq!(out, "2 7 7 9 5 11 5\n\n");
    let out = quiet(r#"BEGIN { x = 1 << 10; y = -16 >> 2; printf("%d %d %d %d\n", x, y, -7 / 2, -7 % 2); exit(0); }"#);
    assert_eq!(out, "1024 -4 -3 -1\n\n");
}

#[test]
fn signed_division_and_modulo() {
    // C (and D) semantics: division truncates toward zero; the remainder has the sign of
    // the dividend.
    let out = quiet(r#"BEGIN { printf("%d %d %d %d %d %d\n", -7/2, -7%2, 7/-2, 7%-2, -7/-2, -7%-2); exit(0); }"#);
    assert_eq!(out, "-3 -1 -3 1 3 -1\n\n");
    let out = quiet(r#"BEGIN { a = -7; b = 2; printf("%d %d %d %d\n", a/b, a%b, 7/-b, 7%-b); exit(0); }"#);
    assert_eq!(out, "-3 -1 -3 1\n\n");
}

#[test]
fn shifts() {
    // >> of a signed (int64) value is arithmetic in D.
    let out = quiet(r#"BEGIN { printf("%d %d %d\n", 1<<10, -16>>2, 256>>4); exit(0); }"#);
    assert_eq!(out, "1024 -4 16\n\n");
    let out = quiet(r#"BEGIN { one = 1; m = -16; printf("%d %d %d\n", one<<10, m>>2, 256>>one); exit(0); }"#);
    assert_eq!(out, "1024 -4 128\n\n");
}

#[test]
fn unary_operators() {
    let out = quiet(r#"BEGIN { x = 5; printf("%d %d %d %d %d\n", -x, ~0, !x, !0, -(3)); exit(0); }"#);
    assert_eq!(out, "-5 -1 0 1 -3\n\n");
}

#[test]
fn character_constants_above_0x7f_are_signed_bytes() {
    // spec §2.3: a character constant is one byte, read as a signed char.
    let out = quiet(r#"BEGIN { printf("%d %d %d %d %d %d\n", '\377', '\xff', '\200', '\x80', '\177', 'A'); trace('\376'); exit(0); }"#);
    assert_eq!(out, "-1 -1 -128 -128 127 65\n-2\n");
}

#[test]
fn string_escapes_above_0x7f() {
    // spec §2.4: escapes are bytes; bytes that are not UTF-8 become U+FFFD, valid UTF-8
    // written as escapes is kept. Read through -o to see the exact bytes.
    let f = TempPath::new("bytes.txt");
    let out = run(&[
        "-q",
        "-o",
        f.str(),
        "-e",
        r#"BEGIN { printf("a\377b|%s|\xc3\xa9|\xf0\x9f\x98x\n", "\376\375"); } BEGIN /"\376" == "\377"/ { printf("same\n"); exit(0); }"#,
    ]);
    out.assert_ok();
    let bytes = std::fs::read(f.path()).expect("-o file written");
    assert_eq!(bytes, "a\u{fffd}b|\u{fffd}\u{fffd}|\u{e9}|\u{fffd}x\nsame\n\n".as_bytes(), "{:?}", String::from_utf8_lossy(&bytes));
}

#[test]
fn integer_literals() {
    let out = quiet(r#"BEGIN { printf("%d %d %d %d %d %d %d\n", 0x1f, 0X1F, 017, 'A', '\n', 10UL, 0); exit(0); }"#);
    assert_eq!(out, "31 31 15 65 10 10 0\n\n");
}

// ---------------------------------------------------------------- syntax forms

#[test]
fn angle_bracket_action_block() {
    assert_eq!(quiet(r#"BEGIN < printf("angle\n"); exit(0) >"#), "angle\n\n");
    assert_eq!(quiet(r#"BEGIN <@c=count()> BEGIN { exit(0); }"#), format!("\n{}\n", int_col(1)));
}

#[test]
fn empty_statements() {
    // spec §3.3: `;` may come before the first statement, repeat, and follow the last.
    assert_eq!(quiet(r#"BEGIN { ; ; printf("a\n"); ; ; exit(0); ; }"#), "a\n\n");
    assert_eq!(quiet(r#"BEGIN { ; } BEGIN {;;} BEGIN < ; printf("b\n"); exit(0) >"#), "b\n\n");
    // A block of only `;` is an empty block: the default action (spec §3.6).
    let out = run(&["-e", "BEGIN { ; } BEGIN { exit(0); }"]);
    out.assert_ok();
    let lines: Vec<&str> = out.stdout.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 4, "{}", out.dump());
    assert_eq!(split_prefix(lines[1], ":BEGIN").2, "\n", "{}", out.dump());
}

#[test]
fn unary_minus_twice() {
    // spec §4.6: `- -x` is two negations; only `--` written together is decrement.
    let out = quiet(r#"BEGIN { x = 2; printf("%d %d %d %d %d %d\n", - -3, 5 - -x, + +3, - - -x, -(-x), 5 + +x); exit(0); }"#);
    assert_eq!(out, "3 7 3 -2 2 7\n\n");
}

#[test]
fn interpreter_line_is_skipped() {
    // spec §3.1: a first `#!` line is ignored, so scripts can be executable.
    let f = TempPath::with_contents(
        "shebang.d",
        "#!/usr/bin/env -S crumbs -q -s\n#pragma D option quiet\nBEGIN { printf(\"from shebang\\n\"); exit(0); }\n",
    );
    let out = run(&["-s", f.str()]);
    out.assert_ok();
    assert_eq!(out.stdout, "from shebang\n\n", "{}", out.dump());
    // Only whitespace and comments may come before it.
    let out = run(&["-q", "-e", "\n  /* c */ #! anything\nBEGIN { printf(\"ok\\n\"); exit(0); }"]);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n\n", "{}", out.dump());
}

#[test]
fn executable_script() {
    // spec §3.1: a script with `#!/path/to/crumbs -s` runs when executed.
    use std::os::unix::fs::PermissionsExt;
    let f = TempPath::with_contents(
        "exec.d",
        &format!("#!{} -s\n#pragma D option quiet\nBEGIN {{ printf(\"executed\\n\"); exit(3); }}\n", common::crumbs().display()),
    );
    std::fs::set_permissions(f.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = common::run_command(std::process::Command::new(f.path()), None, common::TIMEOUT);
    let (status, stdout, stderr) = (out.status, out.stdout, out.stderr);
    assert_eq!((status.code(), stdout.as_str(), stderr.as_str()), (Some(3), "executed\n\n", ""));
}

#[test]
fn last_statement_needs_no_semicolon() {
    assert_eq!(quiet(r#"BEGIN { printf("x\n"); exit(0) }"#), "x\n\n");
}

// ---------------------------------------------------------------- command line

#[test]
fn target_is_the_pid_of_the_c_command() {
    let out = run(&["-q", "-e", r#"BEGIN { printf("target=%d\n", $target); }"#, "-c", r#"sh -c 'echo child=$$'"#]);
    out.assert_ok();
    let field = |name: &str| -> i64 {
        out.stdout
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} line\n{}", out.dump()))
            .parse()
            .unwrap()
    };
    assert_eq!(field("target="), field("child="), "{}", out.dump());
}

#[test]
fn output_file() {
    let f = TempPath::new("out.txt");
    let out = run(&["-q", "-o", f.str(), "-e", r#"BEGIN { printf("to file %d\n", 7); @a = count(); exit(0); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "", "{}", out.dump());
    let text = std::fs::read_to_string(f.path()).expect("-o file written");
    assert_eq!(text, format!("to file 7\n\n{}\n", int_col(1)));
}

#[test]
fn output_file_not_quiet() {
    let f = TempPath::new("out2.txt");
    let out = run(&["-o", f.str(), "-e", "BEGIN { trace(5); exit(0); }"]);
    out.assert_ok();
    assert_eq!(out.stdout, "");
    let text = std::fs::read_to_string(f.path()).expect("-o file written");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0], HEADER);
    let (_, _, rest) = split_prefix(lines[1], ":BEGIN");
    assert_eq!(rest, format!("{}\n", int32_col(5)));
    assert_eq!(lines[2], "\n");
}

#[test]
fn x_quiet_option() {
    let out = run(&["-x", "quiet", "-e", "BEGIN { trace(5); exit(0); }"]);
    out.assert_ok();
    assert_eq!(out.stdout, "5\n");
    // Quiet also silences the "matched N probes" banner.
    assert_eq!(out.stderr, "", "{}", out.dump());
}

#[test]
fn pragma_quiet_option() {
    let out = run(&["-e", "#pragma D option quiet\nBEGIN { trace(5); exit(0); }"]);
    out.assert_ok();
    assert_eq!(out.stdout, "5\n");
}

#[test]
fn script_file_with_s_and_positional() {
    let f = TempPath::with_contents(
        "script.d",
        "/* a script */\n#pragma D option quiet\nBEGIN\n{\n\tprintf(\"from file\\n\");\n\texit(0);\n}\n",
    );
    let out = run(&["-s", f.str()]);
    out.assert_ok();
    assert_eq!(out.stdout, "from file\n\n");
    let out = run(&[f.str()]);
    out.assert_ok();
    assert_eq!(out.stdout, "from file\n\n");
}

#[test]
fn program_from_stdin_is_not_read() {
    // -e gives the program; stdin is left alone (no hang on an open stdin).
    let out = common::run_stdin(&["-q", "-e", r#"BEGIN { printf("ok\n"); exit(0); }"#], "garbage that is not D\n");
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n\n");
}

/// spec §10.1: `-n` is DTrace's spelling of `-e`; repeated texts form one program.
#[test]
fn dash_n_and_repeated_programs() {
    let out = run(&["-q", "-n", r#"BEGIN { printf("one\n"); }"#, "-e", r#"BEGIN { printf("two\n"); exit(0); }"#]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stdout, "one\ntwo\n\n", "{}", out.dump());
    // The second text is line 2 of the program.
    let out = run(&["-n", "BEGIN {}", "-n", "BEGIN { x = ; }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("<command line>:2:13"), "{}", out.dump());
}

/// spec §4.7: a long left-deep chain within the limit compiles and runs (constants on the
/// right need no stack).
#[test]
fn long_constant_chain() {
    let p = format!("BEGIN {{ printf(\"%d\\n\", 1{}); exit(0); }}", "+1".repeat(90));
    let out = run(&["-q", "-e", &p]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stdout, "91\n\n", "{}", out.dump());
}

/// spec §10.3: when the reader goes away crumbs ends by SIGPIPE, quietly.
#[test]
fn closed_output_pipe_ends_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_crumbs"))
        .args(["-q", "-e", r#"tick-10ms { printf("x\n"); }"#])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 2];
    child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
    drop(child.stdout.take());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "crumbs kept running with no reader");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(status.signal(), Some(libc::SIGPIPE), "{status:?} {err}");
    assert!(err.is_empty(), "{err}");
}

/// spec §5.5, §10.1: macro arguments after the script, with a script file or -e.
#[test]
fn macro_arguments() {
    let dir = TempPath::dir("macro");
    let script = dir.path().join("m.d");
    std::fs::write(&script, "BEGIN { printf(\"%s %d %s %s\\n\", $0, $1 + 1, $$1, $2); exit(0); }\n").unwrap();
    let path = script.to_str().unwrap();
    let out = run(&["-q", path, "41", "word"]);
    assert_eq!(out.stdout, format!("{path} 42 41 word\n\n"), "{}", out.dump());
    let out = run(&["-q", "-s", path, "0x10", "x"]);
    assert_eq!(out.stdout, format!("{path} 17 0x10 x\n\n"), "{}", out.dump());
    let out = run(&["-q", "-e", "BEGIN { printf(\"%d\\n\", $1 * 2); exit(0); }", "21"]);
    assert_eq!(out.stdout, "42\n\n", "{}", out.dump());
    let out = run(&["-q", path]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("macro argument `$1` is not given"), "{}", out.dump());
}

/// spec §7.2: %Y prints nanoseconds since the epoch as local time (here UTC).
#[test]
fn printf_date_conversion() {
    let mut cmd = common::crumbs_cmd(&["-q", "-e", r#"BEGIN { printf("%Y|%-22Y|\n", 90000000000000, 0); exit(0); }"#]);
    cmd.env("TZ", "UTC");
    let out = common::run_command(cmd, None, common::TIMEOUT);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stdout, "1970 Jan  2 01:00:00|1970 Jan  1 00:00:00  |\n\n", "{}", out.dump());
}

/// spec §10.4: the REPL runs each program typed, reports errors and goes on; a program may
/// span lines until its brackets close.
#[test]
fn repl_runs_programs_one_after_another() {
    let input = "BEGIN { printf(\"one\\n\"); exit(0); }\nBEGIN { x = ; }\nBEGIN {\n  printf(\"two\\n\");\n  exit(0);\n}\n:quit\n";
    let mut cmd = common::crumbs_cmd(&["--repl", "-q"]);
    cmd.env("HOME", std::env::temp_dir());
    let out = common::run_command(cmd, Some(input), common::TIMEOUT);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stdout, "one\n\ntwo\n\n", "{}", out.dump());
    assert!(out.stderr.contains("<repl>:1:13") && out.stderr.contains("unexpected `;`"), "{}", out.dump());
}

/// spec §7.4: after exit(), no clause runs but END's — not on this firing, not on later ones
/// on any CPU — so nothing is counted after it.
#[test]
fn nothing_counts_after_exit() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::read:entry /pid == $target && arg0 == 0/ { @before = count(); }
           syscall::read:entry /pid == $target && arg0 == 0/ { @n = count(); exit(0); }
           syscall::read:entry /pid == $target && arg0 == 0/ { @after = count(); }
           END { @end = count(); }"#,
        "-c",
        "dd if=/dev/zero of=/dev/null bs=1k count=50",
    ]);
    out.assert_ok();
    let rows = common::agg_rows(&out.stdout);
    // @before, @n and @end hold 1 each (first use order); @after never ran.
    assert_eq!(rows, vec![(vec![], 1), (vec![], 1), (vec![], 1)], "{}", out.dump());
}

/// setopt() changes how what follows is printed (spec §7.17): quiet from the next firing,
/// the aggregation order at the end.
#[test]
fn setopt_changes_runtime_options_from_the_next_record() {
    let out = run(&["-e", r#"BEGIN { @[1] = count(); @[2] = count(); @[2] = count(); printf("a\n"); } BEGIN { setopt("quiet"); setopt("aggsortkey"); setopt("aggsortrev"); } BEGIN { printf("b\n"); exit(0); }"#]);
    out.assert_ok();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines[1].ends_with(":BEGIN a") && lines[3].ends_with(":BEGIN ") && lines[4] == "b", "{}", out.dump());
    // by key, reversed
    assert_eq!(&lines[6..], [format!("{}{}", int32_col(2), int_col(2)), format!("{}{}", int32_col(1), int_col(1))], "{}", out.dump());
    // by key: 1 (counted twice) before 2; by value (the default) it would be 2 before 1
    let out = run(&["-q", "-e", r#"BEGIN { @[1] = count(); @[1] = count(); @[2] = count(); setopt("aggsortkey"); exit(0); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, format!("\n{}{}\n{}{}\n", int32_col(1), int_col(2), int32_col(2), int_col(1)), "{}", out.dump());
}

#[test]
fn setopt_takes_runtime_options_as_literals() {
    for (program, message) in [
        (r#"BEGIN { setopt("bufsize", "4m"); }"#, "option `bufsize` cannot change while tracing"),
        (r#"BEGIN { setopt("nosuch"); }"#, "unknown option `nosuch`"),
        (r#"BEGIN { x = "quiet"; setopt(x); }"#, "setopt() takes string literals"),
        (r#"BEGIN { setopt("aggsortpos", "x"); }"#, "option `aggsortpos` needs a position"),
    ] {
        let out = run(&["-e", program]);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains(message), "{message}\n{}", out.dump());
    }
}

/// switchrate: the event buffer is read once per interval, so output comes in batches and
/// the end of tracing waits for the next read; nothing is lost.
#[test]
fn switchrate_reads_the_buffer_once_per_interval() {
    let program = "tick-10ms /i++ == 4/ { exit(0); } tick-10ms { printf(\"%d\\n\", i); }";
    let slow = run(&["-q", "-x", "switchrate=1s", "-e", program]);
    slow.assert_ok();
    assert_eq!(slow.stdout, "1\n2\n3\n4\n\n", "{}", slow.dump());
    // The exit record waits for the read a second after the first (the ticks take 50 ms).
    assert!(slow.elapsed >= std::time::Duration::from_millis(500), "{}", slow.dump());
    let out = run(&["-q", "-x", "switchrate=100hz", "-x", "aggrate=1hz", "-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "1\n2\n3\n4\n\n", "{}", out.dump());
    let bad = run(&["-x", "switchrate=abc", "-e", "BEGIN { }"]);
    assert_eq!(bad.code(), 2, "{}", bad.dump());
    assert!(bad.stderr.contains("option `switchrate` needs a rate, got `abc`"), "{}", bad.dump());
}

/// rawbytes: trace() of a string prints the bytes recorded as tracemem() does; integers and
/// printf are as they were.
#[test]
fn rawbytes_traces_strings_as_hex_dumps() {
    let out = run(&["-q", "-x", "rawbytes", "-e", r#"BEGIN { trace(execname); trace(1); printf("\n%s\n", execname); exit(0); }"#]);
    out.assert_ok();
    let dump = "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n         0: 63 72 75 6d 62 73 00 00 00 00 00 00 00 00 00 00  crumbs..........\n";
    assert_eq!(out.stdout, format!("{dump}1\ncrumbs\n\n"), "{}", out.dump());
}
