//! bpftrace's config block, its environment variables, stack modes and macros (spec §13.8
//! to §13.10), live: crumbs' own command line in the bpftrace dialect, and crumbs invoked as
//! `bpftrace`. Layouts were checked against bpftrace 0.17 running the same programs (its
//! `kstack(perf)`, `ustack(perf)`); the config block, `raw` and macros are bpftrace's
//! current language (0.17 has none of them), written as its documentation has them.

mod common;

use common::{compiled_c, io_benchmark, run, Output, TempPath, CALLS};

/// crumbs as `bpftrace` (a symlink) with `args` and the environment variables `env`.
fn bpftrace_with(args: &[&str], env: &[(&str, &str)]) -> Output {
    common::bpftrace_dropin(args, None, env)
}

/// The lines of the map `@name`'s one key (a stack), from bpftrace's output at exit.
fn stack_key<'a>(out: &'a str, name: &str) -> Vec<&'a str> {
    let start = out.find(&format!("@{name}[\n")).unwrap_or_else(|| panic!("no @{name} in\n{out}")) + name.len() + 3;
    let end = start + out[start..].find("]: ").expect("the key's end");
    out[start..end].lines().collect()
}

/// One kernel stack of io-benchmark's reads, as a key in each mode: bpftrace's own
/// (`function+offset` indented by 4), perf's (a tab, the address, the symbol) and raw
/// (addresses); the config block makes perf the mode of `kstack(2)`.
#[test]
fn kernel_stacks_print_in_their_modes() {
    let file = TempPath::new("btconf-reads");
    let program = "config = { stack_mode = perf; max_map_keys = 64 }
        tracepoint:syscalls:sys_enter_read /pid == cpid/ {
            @b[kstack(bpftrace, 2)] = count(); @p[kstack(perf, 2)] = count(); @r[kstack(raw, 2)] = count(); @d[kstack(2)] = count(); }";
    let cmd = format!("{} -c -r -b 512 -s 16K {}", io_benchmark().display(), file.str());
    let out = run(&["-q", "-e", program, "-c", &cmd]);
    out.assert_ok();
    let (b, p, r, d) = (stack_key(&out.stdout, "b"), stack_key(&out.stdout, "p"), stack_key(&out.stdout, "r"), stack_key(&out.stdout, "d"));
    assert_eq!((b.len(), p.len(), r.len()), (2, 2, 2), "{}", out.dump());
    assert_eq!(d, p, "the config block's mode is perf's\n{}", out.dump());
    for i in 0..2 {
        let symbol = b[i].strip_prefix("    ").expect("indented by 4");
        let (name, offset) = symbol.rsplit_once('+').expect("function+offset");
        assert!(!name.is_empty() && offset.parse::<u64>().is_ok(), "{symbol}");
        // perf's line is the raw address, then the same symbol.
        assert!(r[i].chars().all(|c| c.is_ascii_hexdigit()) && r[i].starts_with("ffff"), "{}", r[i]);
        assert_eq!(p[i], format!("\t{} {symbol}", r[i]), "{}", out.dump());
    }
    assert!(out.stdout.ends_with(&format!("@r[\n{}\n{}\n]: 32\n", r[0], r[1])), "io-benchmark reads 16K in 32 reads, and @r is the last map\n{}", out.dump());
}


#[test]
fn user_stacks_print_in_their_modes() {
    let dir = TempPath::dir("btconf-ustack");
    let exe = compiled_c(&dir, "calls", CALLS, &["-O0", "-fno-omit-frame-pointer"]);
    let program = format!("uprobe:{exe}:c {{ @p[ustack(perf, 3)] = count(); @r[ustack(raw, 3)] = count(); @b[ustack(3)] = count(); }}");
    let out = run(&["-q", "-e", &program, "-c", &exe]);
    out.assert_ok();
    assert!(out.stdout.starts_with("\n\n@b[\n"), "{}", out.dump());
    let (p, r, b) = (stack_key(&out.stdout, "p"), stack_key(&out.stdout, "r"), stack_key(&out.stdout, "b"));
    assert_eq!(b[0], "    c+0", "{}", out.dump());
    assert!(b[1].starts_with("    b+") && b[2].starts_with("    a+"), "{}", out.dump());
    for (i, f) in ["c", "b", "a"].iter().enumerate() {
        let offset = b[i].trim_start().strip_prefix(&format!("{f}+")).unwrap();
        assert_eq!(p[i], format!("\t{} {f}+{offset} ({exe})", r[i]), "{}", out.dump());
    }
}

/// `exe`'s GNU build id (`readelf -n`) and the file offset of its symbol `name` plus `offset`
/// (`nm`'s address, less its LOAD segment's address, plus that segment's file offset).
fn build_id_and_offset(exe: &str, name: &str, offset: u64) -> (String, u64) {
    let tool = |cmd: &str, args: &[&str]| String::from_utf8(std::process::Command::new(cmd).args(args).arg(exe).output().unwrap().stdout).unwrap();
    let notes = tool("readelf", &["-n"]);
    let id = notes.lines().find_map(|l| l.trim().strip_prefix("Build ID: ")).expect("a build id note").to_string();
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    let nm = tool("nm", &[]);
    let at = nm.lines().find_map(|l| l.strip_suffix(&format!(" T {name}"))).map(hex).expect("the symbol in nm's output") + offset;
    let segments = tool("readelf", &["-lW"]);
    let (file, addr) = segments
        .lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            ["LOAD", off, vaddr, _, _, memsz, ..] => Some((hex(off), hex(vaddr), hex(memsz))),
            _ => None,
        })
        .find(|(_, vaddr, size)| (*vaddr..vaddr + size).contains(&at))
        .map(|(off, vaddr, _)| (off, vaddr))
        .expect("a LOAD segment holding the symbol");
    (id, at - addr + file)
}

/// `ustack(build_id)` (current bpftrace's): each frame its file's build id and the offset in
/// the file, checked against the ELF's build id note and the symbols the bpftrace mode names;
/// `stack_mode = build_id` makes it the mode of `ustack`, and a printf()'d one is not indented.
#[test]
fn user_stacks_print_build_ids_and_file_offsets() {
    let dir = TempPath::dir("btconf-buildid");
    let exe = compiled_c(&dir, "calls", CALLS, &["-O0", "-fno-omit-frame-pointer", "-Wl,--build-id=sha1"]);
    let program = format!("uprobe:{exe}:c {{ @i[ustack(build_id, 3)] = count(); @b[ustack(3)] = count(); }}");
    let out = run(&["-q", "--dialect", "bpftrace", "-e", &program, "-c", &exe]);
    out.assert_ok();
    let (i, b) = (stack_key(&out.stdout, "i"), stack_key(&out.stdout, "b"));
    assert_eq!(b.len(), 3, "{}", out.dump());
    let expected: Vec<String> = b
        .iter()
        .map(|frame| {
            let (name, offset) = frame.trim_start().rsplit_once('+').expect("function+offset");
            let (id, at) = build_id_and_offset(&exe, name, offset.parse().unwrap());
            format!("{id} 0x{at:02x}")
        })
        .collect();
    assert_eq!(i, expected, "{}", out.dump());
    let program = format!("config = {{ stack_mode = build_id }} uprobe:{exe}:c {{ @i[ustack(3)] = count(); printf(\"%s|\\n\", ustack(1)); }}");
    let out = run(&["-q", "--dialect", "bpftrace", "-e", &program, "-c", &exe]);
    out.assert_ok();
    assert_eq!(out.stdout, format!("\n{}\n|\n\n\n@i[\n{}\n]: 1\n", expected[0], expected.join("\n")), "{}", out.dump());
}

/// printf() of stacks in perf and raw modes: no indent, a tab a line in perf's.
#[test]
fn perf_stacks_in_printf_and_as_values() {
    let dir = TempPath::dir("btconf-uprintf");
    let exe = compiled_c(&dir, "calls", CALLS, &["-O0", "-fno-omit-frame-pointer"]);
    let program = format!("uprobe:{exe}:c {{ printf(\"%s|%s|\\n\", ustack(perf, 1), ustack(raw, 1)); }}");
    let out = run(&["-q", "--dialect", "bpftrace", "-e", &program, "-c", &exe]);
    out.assert_ok();
    let addr = out.stdout.split_once("\n\t").and_then(|(_, rest)| rest.split_once(' ')).map(|(a, _)| a.to_string()).expect("a perf frame");
    assert_eq!(out.stdout, format!("\n\t{addr} c+0 ({exe})\n|\n{addr}\n|\n\n\n"), "{}", out.dump());
}

/// `print_maps_on_exit = false`: the newlines that end tracing, no maps; `max_strlen` is the
/// string size (its NUL included).
#[test]
fn config_variables_crumbs_honours() {
    let out = run(&["--dialect", "bpftrace", "-e", r#"config = { PRINT_MAPS_ON_EXIT = false; BPFTRACE_MAX_STRLEN = 6 } BEGIN { @a = 1; @c = count(); @s = "abcdefgh"; print(@s); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n@s: abcde\n\n\n", "{}", out.dump());
    // Those that change nothing in crumbs are accepted with their values checked.
    let all = r#"config = { max_map_keys = 2; max_probes = 10; max_bpf_progs = 10; max_cat_bytes = 100; log_size = 1000;
        perf_rb_pages = 64; on_stack_limit = 32; cpp_demangle = false; lazy_symbolication = true; show_debug_info = 0;
        missing_probes = warn; cache_user_symbols = PER_PID; license = "Dual BSD/GPL"; str_trunc_trailer = "" }
        BEGIN { @x = 1; exit(); }"#;
    let out = run(&["--dialect", "bpftrace", "-e", all]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n\n\n@x: 1\n", "{}", out.dump());
}

/// The environment's settings win over the block's, as bpftrace's do.
#[test]
fn the_environment_wins_over_the_block() {
    let program = r#"config = { max_strlen = 4; print_maps_on_exit = false } BEGIN { @s = str("abcdefgh"); exit(); }"#;
    let out = bpftrace_with(&["-e", program], &[("BPFTRACE_MAX_STRLEN", "7"), ("BPFTRACE_PRINT_MAPS_ON_EXIT", "1")]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stdout, "Attaching 1 probe...\n\n\n@s: abcdef\n", "{}", out.dump());
    let out = bpftrace_with(&["-e", "BEGIN { exit(); }"], &[("BPFTRACE_STACK_MODE", "fast")]);
    assert_eq!(out.code(), 1, "{}", out.dump());
    assert_eq!(out.stderr, "ERROR: BPFTRACE_STACK_MODE: Invalid value for stack_mode: valid values are bpftrace, raw, perf, and build_id.\n");
    let out = bpftrace_with(&["-e", "BEGIN { exit(); }"], &[("BPFTRACE_PRINT_MAPS_ON_EXIT", "maybe")]);
    assert_eq!(out.code(), 1, "{}", out.dump());
    assert_eq!(out.stderr, "ERROR: BPFTRACE_PRINT_MAPS_ON_EXIT: Invalid bool value: valid values are true, false, 1 or 0.\n");
}

/// Bad config blocks: a diagnostic with span, message (bpftrace's) and hint; exit 2 under
/// crumbs' name, bpftrace's 1 as bpftrace.
#[test]
fn bad_config_blocks_are_diagnostics() {
    for (program, message, hint) in [
        ("config = { stack_mod = perf } BEGIN { exit(); }", "stack_mod: not a known configuration option", "did you mean `stack_mode`?"),
        ("config = { stack_mode = fast } BEGIN { exit(); }", "stack_mode: Invalid value for stack_mode: valid values are bpftrace, raw, perf, and build_id.", "a stack mode is bpftrace"),
        ("config = { max_probes = many } BEGIN { exit(); }", "max_probes: expecting a number, got many", "write a number"),
        ("config = { license = \"MIT\" } BEGIN { exit(); }", "Invalid value for license. Found: MIT.", "write license"),
        ("config = { strlen = 8 } BEGIN { exit(); }", "strlen: key has been renamed to 'max_strlen'", "write `max_strlen`"),
        ("BEGIN { exit(); } config = { stack_mode = perf }", "config must appear before probes and functions", "move the config block"),
        ("config = { a = 1 } config = { b = 2 } BEGIN { exit(); }", "duplicate config block", "the first block"),
        ("BEGIN { @s[kstack(fast, 2)] = count(); exit(); }", "Error parsing stack mode: kstack: Invalid value for stack_mode", "a stack mode is bpftrace"),
        ("BEGIN { @s[kstack(build_id)] = count(); exit(); }", "'build_id' stack mode can only be used for ustack", "name another mode"),
    ] {
        let out = run(&["--dialect", "bpftrace", "-e", program]);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains(message) && out.stderr.contains(hint) && out.stderr.contains('┬'), "{message}\n{}", out.dump());
        let out = bpftrace_with(&["-e", program], &[]);
        assert_eq!(out.code(), 1, "{}", out.dump());
        assert!(out.stderr.contains(message), "{}", out.dump());
    }
    let out = run(&["--dialect", "d", "-e", "config = { stack_mode = perf } BEGIN { exit(0); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("`config` is bpftrace's, not D's"), "{}", out.dump());
}

/// The documentation's example of macros, run: values, expression, variable and map
/// parameters, an expression put in three times, macros using macros.
#[test]
fn macros_expand_as_bpftrace_documents_them() {
    let program = r#"
macro one() { 1 }
macro add_one(x) { x + 1 }
macro add_one_to_each($a, @b) { $a += 1; @b += 1; }
macro side_effects(x) { x; x; x; }
macro add_two(x) { add_one(x) + 1 }
macro twice($v) { $v = $v * 2; $v }
BEGIN {
  print(one());
  print(one);
  $a = 10;
  print(add_one($a));
  print(add_one(1 + 1));
  @b = 5;
  add_one_to_each($a, @b);
  print($a + @b);
  side_effects(printf("hi"));
  printf("\n");
  print(add_two(1));
  $t = 1; $u = twice($t) + 100; printf("%d %d\n", $t, $u);
  exit();
}"#;
    let out = run(&["--dialect", "bpftrace", "-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n1\n1\n11\n3\n17\nhihihi\n3\n2 102\n\n\n@b: 6\n", "{}", out.dump());
}

/// A macro's own scratch variables are its own, even named as the caller's.
#[test]
fn macro_variables_are_hygienic() {
    let program = "macro sq(x) { $t = x; $t * $t } BEGIN { $t = 3; $r = sq($t + 1); printf(\"%d %d\\n\", $t, $r); exit(); }";
    let out = run(&["-q", "--dialect", "bpftrace", "-e", program]);
    out.assert_ok();
    assert_eq!(out.stdout, "3 16\n\n\n", "{}", out.dump());
}

#[test]
fn bad_macro_uses_are_diagnostics() {
    for (program, message, hint) in [
        ("macro w($x) { $x++ } BEGIN { @x = 1; w(@x); }", "Mismatched arg. w() expects a variable for arg $x but got a map.", "Pass a scratch variable"),
        ("macro w($x) { $x++ } BEGIN { w(1 + 1); }", "Mismatched arg. w() expects a variable for arg $x but got an expression.", "Pass a scratch variable"),
        ("macro m(@a) { @a++ } BEGIN { $v = 1; m($v); }", "Mismatched arg. m() expects a map for arg @a but got a variable.", "Pass a map"),
        ("macro two(a, b) { a + b } BEGIN { @x = two(1); }", "Call to two() has arguments that do not match any definition.", "Expected: 2 but got 1"),
        ("macro a() { b() } macro b() { a() } BEGIN { @x = a(); }", "Recursive macro call detected. Call chain: a > b > a", "cannot use itself"),
        ("macro u() { @x++ } BEGIN { @x = 1; u(); }", "Unhygienic access to map: @x. Maps must be passed into the macro as arguments.", "add `@x` to the macro's parameters"),
        ("macro f($x) { $x++; $x } BEGIN { $a = 1; if ($a > 0 && f($a)) { exit(); } }", "f() runs statements before its value", "assign the value to a scratch variable"),
        ("macro f() { printf(\"x\"); } BEGIN { @x = f(); }", "Call to f() has no value", "end the macro's body with an expression"),
        ("macro d(x, x) { 1 } BEGIN { exit(); }", "Ident for macro argument has already been used: x", "its own name"),
        ("macro r(x) { 1 } macro r(y) { 2 } BEGIN { exit(); }", "Redefinition of macro: r", "another name"),
    ] {
        let out = run(&["--dialect", "bpftrace", "-e", program]);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains(message) && out.stderr.contains(hint) && out.stderr.contains('┬'), "{message}\n{}", out.dump());
    }
    let out = run(&["--dialect", "d", "-e", "macro one() { 1 } BEGIN { exit(0); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("`macro` is bpftrace's, not D's"), "{}", out.dump());
}

/// A program with a config block or a macro is bpftrace's without being told.
#[test]
fn config_blocks_and_macros_say_the_dialect() {
    let out = run(&["-e", "macro one() { 1 } BEGIN { printf(\"%d\\n\", one); exit(); }"]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n1\n\n\n", "{}", out.dump());
    let out = run(&["-e", "config = { print_maps_on_exit = 0 } BEGIN { @n = count(); exit(); }"]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n\n\n", "{}", out.dump());
}
