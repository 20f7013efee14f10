//! `if`/`else`, blocks, and assignments and `++`/`--` used as values (spec §3.3, §4.6).
//! Live: each program runs in the kernel.

mod common;

use common::{assert_compile_error as assert_error, int_col, io_benchmark, printed, run, TempPath};


#[test]
fn if_else_chains_take_one_branch() {
    let p = r#"BEGIN {
        x = 3;
        if (x > 2) { printf("big "); } else { printf("small "); }
        if (x == 1) printf("one "); else if (x == 2) printf("two "); else if (x == 3) printf("three "); else printf("many ");
        if (x < 0) printf("negative ");
        if (x) if (x > 5) printf("inner "); else printf("dangling-else ");
        exit(0);
    }"#;
    assert_eq!(printed(p), "big three dangling-else ");
}

#[test]
fn branches_nest_and_need_no_semicolons() {
    let p = r#"BEGIN {
        a = 1; b = 0;
        if (a) {
            if (b) { printf("ab "); } else { printf("a "); if (!b) { printf("!b "); } }
            { printf("block "); }
        }
        ;
        printf("end")
        ;
        exit(0)
    }"#;
    assert_eq!(printed(p), "a !b block end");
}

#[test]
fn variables_assigned_in_a_branch_keep_their_type_and_this_reads_zero_when_skipped() {
    let p = r#"BEGIN {
        if (0) { this->x = (char)1; n = (short)5; }
        printf("%d %d %d %d\n", this->x, n, sizeof(this->x), sizeof(n));
        if (1) { n = 70000; }
        printf("%d\n", n);
        exit(0);
    }"#;
    assert_eq!(printed(p), "0 0 1 2\n4464\n");
}

#[test]
fn only_the_output_of_branches_taken_is_printed() {
    // Not quiet: the firing's prefix, then what ran (spec §3.3).
    let out = run(&["-e", "BEGIN { x = 1; if (x) trace(1); else trace(2); if (!x) { trace(3); } trace(4); exit(0); }"]);
    out.assert_ok();
    let line = out.stdout.lines().nth(1).unwrap_or_else(|| panic!("{}", out.dump()));
    let after = line.split_once(":BEGIN ").unwrap().1;
    assert_eq!(after, format!("{}{}", common::int32_col(1), common::int32_col(4)), "{}", out.dump());
}

#[test]
fn exit_and_aggregations_inside_branches() {
    // The aggregation counts only where its branch runs; exit() in a branch not taken
    // does nothing, in the branch taken it ends tracing.
    let p = r#"BEGIN { i = 0; }
        profile:::tick-1ms { i++; if (i % 2) { @odd = count(); } else { @even = count(); } if (i == 10) { exit(0); } }
        END { printa("%@d ", @odd); printa("%@d\n", @even); }"#;
    assert_eq!(printed(p), "5 5\n");
}

#[test]
fn reads_by_size_on_a_real_workload() {
    // 66K read 4096 bytes at a time: 16 full reads and one of 2048 (io-benchmark's loop).
    let f = TempPath::new("branches.dat");
    let cmd = format!("{} -c -r -b 4096 -s 66K {}", io_benchmark().display(), f.str());
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::read:return /pid == $target && execname == "io-benchmark"/ {
            if (arg1 == 4096) { @full = count(); } else if (arg1 > 0) { @partial = count(); @last = sum(arg1); } else { @other = count(); }
        }"#,
        "-c",
        &cmd,
    ]);
    out.assert_ok();
    assert_eq!(out.stdout, format!("\n{}\n{}\n{}\n", int_col(16), int_col(1), int_col(2048)), "{}", out.dump());
}

#[test]
fn assignments_are_values() {
    let p = r#"BEGIN {
        x = y = 7;
        z = (w = 2) + 1;
        printf("%d %d %d %d ", x, y, z, w);
        printf("%d %d ", x += 3, x);
        c = (char)0;
        printf("%d %d\n", c = 300, c);
        exit(0);
    }"#;
    assert_eq!(printed(p), "7 7 3 2 10 10 44 44\n");
}

#[test]
fn increments_give_the_value_before_or_after() {
    let p = r#"BEGIN {
        i = 5;
        printf("%d ", i++);
        printf("%d ", i);
        printf("%d ", ++i);
        printf("%d ", i--);
        printf("%d ", --i);
        self->t = 1; this->l = 10;
        printf("%d %d %d %d\n", self->t++, ++self->t, this->l--, this->l);
        exit(0);
    }"#;
    // printf's arguments are evaluated in order.
    assert_eq!(printed(p), "5 6 7 7 5 1 3 10 9\n");
}

/// A postfix `++` belongs to the operand of a cast's unary minus, as the grammar binds it.
#[test]
fn increments_under_a_cast_of_a_unary_operator() {
    let p = r#"BEGIN { x = 3; y = (int)-x++; z = (long)-a[1]++; printf("%d %d %d %d\n", x, y, z, a[1]); exit(0); }"#;
    assert_eq!(printed(p), "4 -3 0 1\n");
}

#[test]
fn increments_in_keys_and_predicates() {
    let p = r#"BEGIN { i = 0; }
        BEGIN { @[i++] = count(); @[i++] = count(); @[i] = count(); }
        BEGIN /(j = i * 10) > 15/ { printf("j=%d ", j); }
        BEGIN /(k = 1) > 15/ { printf("never "); }
        BEGIN { printf("k=%d\n", k); exit(0); }"#;
    assert_eq!(printed(p), format!("j=20 k=1\n\n{}{}\n{}{}\n{}{}", common::int32_col(0), int_col(1), common::int32_col(1), int_col(1), common::int32_col(2), int_col(1)));
}

#[test]
fn not_assignable_is_an_error() {
    assert_error("BEGIN { 1 = 2; }", "cannot assign to this expression", "assign to a variable");
    assert_error("BEGIN { x = 1; (x + 1)++; }", "cannot increment this expression", "assign to a variable");
    // In D (bpftrace reads `@a = 1` as storing into a map, and it is bpftrace unless told).
    let out = run(&["--dialect", "d", "-e", "BEGIN { @a = 1; }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("cannot assign to an aggregation") && out.stderr.contains("aggregating function"), "{}", out.dump());
    assert_error("BEGIN { pid = 1; }", "cannot assign to builtin variable `pid`", "another name");
    assert_error("BEGIN { if (execname) { exit(0); } }", "the condition of `if` must be an integer", "compare strings");
    assert_error("BEGIN { x = 1; printf(\"%d\", this->y++); }", "clause-local variable `this->y` is read before it is assigned", "");
}

#[test]
fn if_and_else_are_reserved_words() {
    assert_error("BEGIN { if = 1; }", "`if` is a reserved word", "");
    assert_error("BEGIN { else = 1; }", "`else` is a reserved word", "");
}
