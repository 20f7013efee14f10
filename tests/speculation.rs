//! Speculations (spec §7.13): `speculation()`, `speculate()`, `commit()`, `discard()`, the
//! `nspec` and `specsize` options and DTrace's rules on speculating and committing clauses.
//! Live: each program runs in the kernel.

mod common;

use common::{agg_rows, assert_compile_error as assert_error, run, Output};

fn quiet(args: &[&str], program: &str) -> Output {
    let mut all = vec!["-q"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-e", program]);
    let out = run(&all);
    out.assert_ok();
    out
}

/// The Dynamic Tracing Guide's use: speculate on entry, commit what failed on return.
/// Every committed line is a failed open, every failed open is committed, and the opens
/// that worked print nothing.
#[test]
fn failed_opens_are_committed_and_the_others_discarded() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::openat:entry /pid == $target/ { self->spec = speculation(); speculate(self->spec); printf("open %s\n", copyinstr(arg1)); }
        syscall::openat:return /pid == $target && (int)arg1 < 0/ { @failed = count(); }
        syscall::openat:return /self->spec && (int)arg1 < 0/ { commit(self->spec); self->spec = 0; }
        syscall::openat:return /self->spec/ { discard(self->spec); self->spec = 0; }"#,
        "-c",
        "cat /nonexistent-one /etc/hostname /nonexistent-two",
    ]);
    out.assert_no_panic();
    let opens: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("open ")).collect();
    assert!(opens.contains(&"open /nonexistent-one") && opens.contains(&"open /nonexistent-two"), "{}", out.dump());
    assert!(!opens.contains(&"open /etc/hostname"), "{}", out.dump());
    let failed = agg_rows(&out.stdout).iter().find(|r| r.0.is_empty()).map(|r| r.1).unwrap_or_else(|| panic!("{}", out.dump()));
    assert_eq!(opens.len() as i64, failed, "{}", out.dump());
    // In the order they were opened.
    let one = opens.iter().position(|l| *l == "open /nonexistent-one").unwrap();
    assert!(opens.iter().position(|l| *l == "open /nonexistent-two").unwrap() > one);
}

#[test]
fn a_commit_prints_what_the_speculation_holds_after_its_own_record() {
    let out = quiet(
        &[],
        r#"BEGIN { s = speculation(); } BEGIN { speculate(s); printf("spec1\n"); } BEGIN { printf("plain\n"); }
        BEGIN { speculate(s); trace(2); } BEGIN { commit(s); } BEGIN { printf("then %d\n", speculation()); exit(0); }"#,
    );
    // A committed speculation is free again: the next speculation() has id 1.
    assert_eq!(out.stdout, "plain\nspec1\n2then 1\n\n", "{}", out.dump());
    let out = run(&["-e", "BEGIN { s = speculation(); } BEGIN { speculate(s); printf(\"spec\"); } BEGIN { commit(s); } BEGIN { exit(0); }"]);
    out.assert_ok();
    let lines: Vec<&str> = out.stdout.lines().collect();
    // The commit clause's own firing, then the committed one, then exit()'s.
    assert!(lines[1].ends_with(":BEGIN ") && lines[2].ends_with(":BEGIN spec") && lines[3].ends_with(":BEGIN "), "{}", out.dump());
}

#[test]
fn discarded_and_never_committed_speculations_print_nothing() {
    let out = quiet(
        &["-x", "nspec=2"],
        r#"BEGIN { a = speculation(); b = speculation(); } BEGIN { speculate(a); printf("a\n"); } BEGIN { speculate(b); printf("b\n"); }
        BEGIN { discard(a); } BEGIN { printf("%d\n", speculation()); } tick-10ms { exit(0); }"#,
    );
    assert_eq!(out.stdout, "1\n\n", "{}", out.dump());
}

#[test]
fn speculate_to_a_speculation_not_in_use_drops_the_record() {
    let out = quiet(&[], r#"BEGIN { speculate(0); printf("zero\n"); } BEGIN { speculate(1); printf("unclaimed\n"); } BEGIN { commit(1); } BEGIN { exit(0); }"#);
    assert_eq!(out.stdout, "\n", "{}", out.dump());
}

#[test]
fn nspec_speculations_at_once_then_failed_speculations() {
    let out = quiet(&[], r#"BEGIN { a = speculation(); b = speculation(); printf("%d %d\n", a, b); exit(0); }"#);
    assert_eq!(out.stdout, "1 0\n\n");
    assert_eq!(out.stderr, "crumbs: 1 failed speculation (no speculative buffer available; raise it with -x nspec=4)\n");
    let out = quiet(&["-x", "nspec=3"], r#"BEGIN { printf("%d %d %d %d\n", speculation(), speculation(), speculation(), speculation()); exit(0); }"#);
    assert_eq!(out.stdout, "1 2 3 0\n\n");
    let out = quiet(&[], r#"#pragma D option nspec=16
        BEGIN { a = speculation(); } BEGIN /speculation() == 2/ { printf("second\n"); exit(0); }"#);
    assert_eq!(out.stdout, "second\n\n");
}

/// A speculation holds specsize bytes of records (each record: a 16-byte header, then its
/// values, 8 bytes each here); the ones past it are dropped and counted.
#[test]
fn specsize_bounds_a_speculation() {
    let out = quiet(
        &["-x", "specsize=64"],
        r#"BEGIN { s = speculation(); } BEGIN { speculate(s); printf("%d\n", 1); } BEGIN { speculate(s); printf("%d\n", 2); }
        BEGIN { speculate(s); printf("%d\n", 3); } BEGIN { commit(s); } BEGIN { exit(0); }"#,
    );
    assert_eq!(out.stdout, "1\n2\n\n", "{}", out.dump());
    assert_eq!(out.stderr, "crumbs: 1 speculative drop (speculation full; raise it with -x specsize=256)\n");
}

#[test]
fn committing_an_id_past_nspec_is_an_illegal_operation() {
    let out = quiet(&[], "BEGIN { commit(5); } ERROR { printf(\"%d\\n\", arg4); } BEGIN { exit(0); }");
    assert_eq!(out.stdout, "3\n\n", "{}", out.dump());
    assert!(out.stderr.starts_with("crumbs: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): illegal operation in action #1 at BPF pc "), "{}", out.dump());
}

#[test]
fn dtraces_rules_on_speculating_and_committing_clauses() {
    assert_error("BEGIN { s = speculation(); speculate(s); speculate(s); }", "a clause can speculate() only once", "a clause of its own");
    assert_error("BEGIN { printf(\"x\"); speculate(1); }", "speculate() must come before the clause's data-recording actions", "call speculate() first");
    assert_error("BEGIN { speculate(1); @ = count(); }", "aggregations cannot be speculative", "aggregate in a clause of its own");
    assert_error("BEGIN { speculate(1); exit(0); }", "exit() cannot be speculative", "in a clause of its own");
    assert_error("BEGIN { speculate(1); commit(1); }", "a clause that speculates cannot commit()", "commit() in a clause of its own");
    assert_error("BEGIN { speculate(1); discard(1); }", "a clause that speculates cannot discard()", "discard() in a clause of its own");
    assert_error("BEGIN { trace(1); commit(1); }", "a clause that commits cannot record data", "speculate it before committing");
    assert_error("BEGIN { if (1) { speculate(1); } }", "speculate() cannot be inside `if`", "put the condition in the predicate");
    assert_error("#pragma D option nspec=17\nBEGIN { }", "nspec=17 is out of range", "from 1 to 16");
    assert_error("BEGIN { speculate(\"a\"); }", "speculate()'s speculation id", "");
}

/// Found by review: every recording action of a speculating clause is checked (exit() after
/// a printf() used to compile and then hang), destructive actions cannot be speculative, a
/// committing clause cannot aggregate.
#[test]
fn every_action_of_a_speculating_clause_is_checked() {
    assert_error("BEGIN { s = speculation(); } BEGIN { speculate(s); printf(\"x\\n\"); exit(3); }", "exit() cannot be speculative", "");
    assert_error("BEGIN { s = speculation(); @a = count(); } BEGIN { speculate(s); printf(\"x\\n\"); printa(@a); }", "printa() cannot be speculative", "");
    assert_error("#pragma D option destructive\nBEGIN { s = speculation(); } BEGIN { speculate(s); raise(10); }", "raise() cannot be speculative", "");
    assert_error("BEGIN { s = speculation(); } BEGIN { commit(s); @a = count(); }", "a clause that commits cannot aggregate", "aggregate in another clause");
}

/// A commit whose record a fault discards frees nothing: the speculation stays in use, as
/// user space, which never saw the commit, still holds its records.
#[test]
fn a_commit_that_faults_frees_nothing() {
    let out = quiet(&[], r#"BEGIN { s = speculation(); } BEGIN { speculate(s); printf("spec1\n"); } BEGIN { commit(s); x = 1 / arg0; }
        BEGIN { printf("%d\n", speculation()); exit(0); }"#);
    assert_eq!(out.stdout, "0\n\n", "{}", out.dump());
}
