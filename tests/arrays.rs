//! Associative arrays, global and thread-local (spec §5.6). Live: each program runs in the
//! kernel.

mod common;

use common::{assert_compile_error as assert_error, int_col, printed, run, str_col};


#[test]
fn tuple_keys_of_integers_and_strings() {
    let p = r#"BEGIN {
        a[1, "x"] = 10; a[1, "y"] = 20; a[2, "x"] = 30;
        printf("%d %d %d %d ", a[1, "x"], a[1, "y"], a[2, "x"], a[2, "y"]);
        a[1, "x"] += 5; a[2, "x"]++; ++a[2, "y"];
        printf("%d %d %d\n", a[1, "x"], a[2, "x"], a[2, "y"]);
        exit(0);
    }"#;
    assert_eq!(printed(p), "10 20 30 0 15 31 1\n");
}

#[test]
fn assigning_zero_deletes_and_deleted_elements_read_zero() {
    // dynvarsize=1k holds 18 elements of a one-integer-key array (1024 / (8 + 8 + 40)):
    // without deletion the 19th store would be lost.
    let p = r#"#pragma D option dynvarsize=1k
        BEGIN { i = 0; }
        profile:::tick-1ms /i < 40/ { a[i] = i + 1; a[i] = 0; b[i % 4] = i; i++; }
        profile:::tick-1ms /i == 40/ { a[100] = 7; printf("%d %d %d %d\n", a[100], a[3], b[3], b[0]); exit(0); }"#;
    let out = run(&["-q", "-e", p]);
    out.assert_ok();
    assert_eq!(out.stdout, "7 0 39 36\n\n", "{}", out.dump());
    assert!(!out.stderr.contains("drop"), "{}", out.dump());
}

#[test]
fn a_full_array_loses_new_elements_and_counts_them() {
    let p = r#"#pragma D option dynvarsize=1k
        BEGIN { i = 0; }
        profile:::tick-1ms /i < 20/ { a[i] = 1; i++; }
        profile:::tick-1ms /i == 20/ { a[0] = 5; printf("%d %d %d\n", a[0], a[17], a[18]); exit(0); }"#;
    let out = run(&["-q", "-e", p]);
    out.assert_ok();
    // 18 fit (1024 / 56); the 2 others are lost; an existing element can still be updated.
    assert_eq!(out.stdout, "5 1 0\n\n", "{}", out.dump());
    assert!(out.stderr.contains("crumbs: 2 dynamic variable drops (dynamic variables full; raise it with -x dynvarsize=4k)"), "{}", out.dump());
}

#[test]
fn reading_before_the_first_assignment_in_program_order() {
    // The element's type is that of its assignment in a later clause (a short).
    let p = r#"END { printf("%d %d\n", n["k"], sizeof(n["k"])); } BEGIN { n["k"] = (short)-2; exit(0); }"#;
    assert_eq!(printed(p), "-2 2\n");
}

#[test]
fn integer_keys_convert_to_the_first_keys_type() {
    // The key is an int: 4294967295 is -1 there, as in C.
    let p = r#"BEGIN { a[-1] = 3; printf("%d %d\n", a[4294967295], a[(char)-1]); exit(0); }"#;
    assert_eq!(printed(p), "3 3\n");
}

#[test]
fn keys_with_side_effects_are_evaluated_once() {
    let p = r#"BEGIN { i = 0; a[i++] += 5; a[i++]++; printf("%d %d %d %d\n", i, a[0], a[1], a[2]); exit(0); }"#;
    assert_eq!(printed(p), "2 5 1 0\n");
}

#[test]
fn thread_local_arrays_pair_entry_and_return_on_a_real_workload() {
    // dd reads standard input exactly 7 times; each entry stores a timestamp keyed by the
    // file descriptor, its return finds it and deletes it.
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::read:entry /pid == $target && arg0 == 0/ { self->ts[arg0] = timestamp; self->fd = arg0 + 1; }
           syscall::read:return /self->fd && self->ts[self->fd - 1]/ { @n = count(); @later = sum(timestamp > self->ts[self->fd - 1]); self->ts[self->fd - 1] = 0; }
           syscall::read:return /self->fd && self->ts[self->fd - 1] == 0/ { @deleted = count(); self->fd = 0; }"#,
        "-c",
        "dd if=/dev/zero of=/dev/null bs=1k count=7",
    ]);
    out.assert_ok();
    assert_eq!(out.stdout, format!("\n{}\n{}\n{}\n", int_col(7), int_col(7), int_col(7)), "{}", out.dump());
}

#[test]
fn process_names_as_keys_and_literals_looking_them_up() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::read:entry /pid == $target && arg0 == 0/ { n[execname, arg0]++; }
           END { printf("%d %d %d\n", n["dd", 0], n["cat", 0], n["dd", 1]); }"#,
        "-c",
        "dd if=/dev/zero of=/dev/null bs=1k count=7",
    ]);
    out.assert_ok();
    assert_eq!(out.stdout, "7 0 0\n\n", "{}", out.dump());
}

#[test]
fn thread_local_and_global_arrays_are_separate() {
    let p = r#"BEGIN { a[1] = 1; self->a[1] = 2; printf("%d %d\n", a[1], self->a[1]); exit(0); }"#;
    assert_eq!(printed(p), "1 2\n");
}

#[test]
fn array_errors() {
    assert_error("BEGIN { a[1] = 1; a[1, 2] = 2; }", "associative array `a` has 1 key(s) elsewhere, 2 here", "same number of keys");
    assert_error("BEGIN { a[1] = 1; a[execname] = 2; }", "key 1 of `a` has another type elsewhere", "all be integers");
    assert_error("BEGIN { a[stack()] = 1; }", "an associative array's key cannot be a stack", "integers and strings");
    assert_error("BEGIN { a[1] = 1; trace(a); }", "`a` is an associative array, used here without a key", "a[key]");
    assert_error("BEGIN { x = 1; x[1] = 2; }", "`x` is assigned both as a variable and as an associative array", "another name");
    assert_error("BEGIN { a[1] = execname; a[2] = 3; }", "`a[...]` is `string`, but this is `int`", "first assignment");
    assert_error("BEGIN { args[0] = 1; }", "cannot assign to builtin variable `args`", "");
    assert_error("BEGIN { p = curthread; trace(p[1, 2]); }", "`[]` of an array or a pointer takes one index", "associative arrays");
}

/// A key position first used with a literal and later with a string in a buffer keys both
/// by content (spec §5.6): the literal is written out in the buffer too.
#[test]
fn literal_first_then_buffer_strings_share_a_key_position() {
    let out = run(&["-q", "-e", r#"BEGIN { @["ALL"] = count(); @[execname] = count(); @[probename] = count(); a["x"] = 1; a[execname] = 2; a["crumbs"]++; printf("%d %d\n", a["x"], a["crumbs"]); exit(0); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, format!("1 3\n\n{}{}\n{}{}\n{}{}\n", str_col("ALL"), int_col(1), str_col("BEGIN"), int_col(1), str_col("crumbs"), int_col(1)), "{}", out.dump());
}

/// A literal longer than the first use's buffer (a process name's 16 bytes) widens the key
/// position: kept whole, not cut to 15 bytes (spec §5.6).
#[test]
fn a_long_literal_widens_a_process_name_key() {
    let out = run(&["-q", "-e", r#"BEGIN { @[execname] = count(); @["a literal longer than sixteen bytes"] = count(); a[execname] = 1; printf("%d %d\n", a["crumbs"], a["a-much-longer-key-than-comm"]); exit(0); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, format!("1 0\n\n{}{}\n{}{}\n", str_col("a literal longer than sixteen bytes"), int_col(1), str_col("crumbs"), int_col(1)), "{}", out.dump());
}

/// Keys of two strsize strings (512 bytes, the whole BPF stack) are built in the scratch
/// space: an aggregation and associative arrays keyed by both paths of each rename. 30
/// files renamed a→b, back, and a→b again: 60 keys (more than fit one probe of the table,
/// so some are found past colliding slots), each counted exactly.
#[test]
fn keys_of_two_strsize_strings() {
    let dir = std::env::temp_dir().join(format!("crumbs-two-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = "i=0; while [ $i -lt 30 ]; do : > a$i; mv a$i b$i; mv b$i a$i; mv a$i b$i; i=$((i+1)); done";
    let p = r#"syscall::renameat2:entry /progenyof($target)/ {
        @[copyinstr(arg1), copyinstr(arg3)] = count();
        seen[copyinstr(arg1), copyinstr(arg3)]++;
        self->last[copyinstr(arg1), copyinstr(arg3)] = seen[copyinstr(arg1), copyinstr(arg3)];
        this->n = self->last[copyinstr(arg1), copyinstr(arg3)];
        @check[this->n == seen[copyinstr(arg1), copyinstr(arg3)]] = count();
    }"#;
    let cmd = format!("sh -c 'cd {} && {script}'", dir.display());
    let out = run(&["-q", "-e", p, "-c", &cmd]);
    std::fs::remove_dir_all(&dir).ok();
    out.assert_ok();
    let rows = common::agg_rows(&out.stdout);
    let check: Vec<_> = rows.iter().filter(|(k, _)| k.len() == 1).collect();
    assert_eq!(check, [&(vec!["1".to_string()], 90)], "{}", out.dump());
    let pairs: Vec<_> = rows.iter().filter(|(k, _)| k.len() == 2).collect();
    assert_eq!(pairs.len(), 60, "{}", out.dump());
    for i in 0..30 {
        let (a, b) = (format!("a{i}"), format!("b{i}"));
        assert!(pairs.contains(&&(vec![a.clone(), b.clone()], 2)), "{a} -> {b}\n{}", out.dump());
        assert!(pairs.contains(&&(vec![b, a], 1)), "{}", out.dump());
    }
}
