//! Run-time errors and the ERROR probe (spec §4.10): a division by zero, an address that
//! cannot be read and an index past an array's end abort the clause, fire ERROR with
//! DTrace's arguments and are reported on standard error; the rest of the program goes on.
//! Live: each program runs in the kernel.

mod common;

use common::{agg_rows, assert_compile_error as assert_error, run, Output};

/// `crumbs -q -e PROGRAM`, expected to succeed.
fn traced(program: &str) -> Output {
    let out = run(&["-q", "-e", program]);
    out.assert_ok();
    out
}

/// The error lines of standard error, each without its ` at BPF pc N` (the instruction
/// depends on code generation).
fn errors(out: &Output) -> Vec<String> {
    out.stderr
        .lines()
        .filter(|l| l.starts_with("crumbs: error on enabled probe"))
        .map(|l| {
            let (msg, pc) = l.rsplit_once(" at BPF pc ").unwrap_or_else(|| panic!("no pc in {l:?}"));
            assert!(pc.parse::<u32>().is_ok(), "{l:?}");
            msg.to_string()
        })
        .collect()
}

#[test]
fn division_by_zero_fires_error_with_dtraces_arguments() {
    let out = traced(
        r#"BEGIN { myid = id; }
        BEGIN { faulting = epid; i = 1; j = 2; j = i / (j - 2); printf("not reached\n"); }
        BEGIN { printf("next clause runs\n"); }
        ERROR { printf("%d %d %d %d %s:%s %d %d %d %d\n", arg1, arg2, arg4, arg5, probeprov, probename, id, arg3 > 0, arg1 == faulting, epid); }
        BEGIN { exit(0); }"#,
    );
    // Clause 2 faulted at its fourth statement; ERROR (clause 4) runs before the next BEGIN
    // clause.
    assert_eq!(out.stdout, "2 4 4 0 dtrace:ERROR 3 1 1 4\nnext clause runs\n\n", "{}", out.dump());
    assert_eq!(errors(&out), ["crumbs: error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): divide-by-zero in action #4"]);
}

#[test]
fn remainder_by_zero_and_unsigned_division_fault_too() {
    let out = traced(
        r#"BEGIN { z = 0; x = 7 % z; } BEGIN { u = (unsigned long)8; v = u / (unsigned long)z; }
        ERROR { @[arg1, arg4] = count(); } BEGIN { exit(0); }"#,
    );
    let rows = agg_rows(&out.stdout);
    assert_eq!(rows, [(vec!["1".into(), "4".into()], 1), (vec!["2".into(), "4".into()], 1)], "{}", out.dump());
    assert_eq!(errors(&out).len(), 2, "{}", out.dump());
}

#[test]
fn an_address_that_cannot_be_read_is_reported_with_the_address() {
    let out = traced(
        r#"BEGIN { x = (int *)0x4000; y = *x; trace(y); }
        ERROR { printf("%d %d %d %d\n", arg1, arg2, arg4 == DTRACEFLT_BADADDR, arg1 == 1 ? arg5 : arg5 == offsetof(struct task_struct, pid)); }
        BEGIN { trace(((struct task_struct *)NULL)->pid); }
        ERROR /arg1 == 3/ { printf("third\n"); }
        BEGIN { exit(0); }"#,
    );
    // Both ERROR clauses run in order; the second's predicate holds for the second fault.
    assert_eq!(out.stdout, "1 2 1 16384\n3 1 1 1\nthird\n\n", "{}", out.dump());
    let e = errors(&out);
    assert_eq!(e[0], "crumbs: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): invalid address (0x4000) in action #2");
    assert!(e[1].starts_with("crumbs: error on enabled probe ID 3 (ID 1: dtrace:::BEGIN): invalid address (0x"), "{e:?}");
}

#[test]
fn a_fault_in_the_predicate_is_action_zero() {
    let out = traced(r#"BEGIN /1 / (arg0 - arg0)/ { trace(1); } ERROR { printf("%d %d\n", arg2, arg4); } BEGIN { exit(0); }"#);
    assert_eq!(out.stdout, "0 4\n\n", "{}", out.dump());
    assert_eq!(errors(&out), ["crumbs: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): divide-by-zero in predicate"]);
}

/// What the clause printed is discarded, exit() included; what it stored stays.
#[test]
fn the_faulting_clause_prints_nothing_but_keeps_what_it_stored() {
    let out = traced(
        r#"BEGIN { printf("discarded\n"); @stored = count(); g = 5; exit(3); x = 1 / arg0; }
        BEGIN { printf("g=%d\n", g); }
        tick-10ms { exit(0); }"#,
    );
    assert_eq!(out.code(), 0, "exit(3) went with the discarded record\n{}", out.dump());
    assert_eq!(out.stdout, "g=5\n\n                1\n", "{}", out.dump());
}

#[test]
fn error_clauses_can_end_the_session() {
    let out = run(&["-q", "-e", "BEGIN { x = 1 / arg0; } ERROR { exit(1); } tick-5s { exit(0); }"]);
    out.assert_no_panic();
    assert_eq!(out.code(), 1, "{}", out.dump());
    assert_eq!(errors(&out).len(), 1, "{}", out.dump());
}

#[test]
fn an_index_past_the_end_is_out_of_bounds() {
    let out = traced(
        r#"BEGIN { trace(curthread->comm[arg0 + 20]); }
        BEGIN { printf("%c", curthread->comm[arg0 + 2]); }
        ERROR { printf("%d %d\n", arg4 == DTRACEFLT_BADINDEX, arg5); }
        BEGIN { exit(0); }"#,
    );
    assert_eq!(out.stdout, "1 20\nu\n", "{}", out.dump());
    assert_eq!(errors(&out), ["crumbs: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): index out of bounds (20) in action #1"]);
}

/// copyinstr() of an address no user string can be at (the first page, the kernel's half)
/// faults at every firing: as many errors as the traced command opens files. An unmapped
/// user address gives "" (it cannot be told from a page not yet read in).
#[test]
fn copyinstr_of_an_impossible_address_faults_at_each_firing() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::openat:entry /pid == $target/ { @opens = count(); }
        syscall::openat:entry /pid == $target/ { printf("%s\n", copyinstr(arg1 | 0xffff000000000000)); }
        syscall::openat:entry /pid == $target/ { printf("%s\n", copyinstr(NULL)); }
        syscall::openat:entry /pid == $target/ { printf("[%s]\n", copyinstr(0x10000)); }
        ERROR { @errors[arg4, arg1, arg2] = count(); }"#,
        "-c",
        "cat /etc/hostname",
    ]);
    out.assert_ok();
    let rows = agg_rows(&out.stdout);
    let opens = rows.iter().find(|r| r.0.is_empty()).map(|r| r.1).unwrap_or_else(|| panic!("{}", out.dump()));
    assert!(opens >= 1, "{}", out.dump());
    for clause in ["2", "3"] {
        assert!(rows.contains(&(vec!["1".into(), clause.into(), "1".into()], opens)), "{rows:?}\n{}", out.dump());
    }
    assert_eq!(out.stdout.lines().filter(|l| *l == "[]").count() as i64, opens, "{}", out.dump());
    let e = errors(&out);
    assert_eq!(e.len() as i64, 2 * opens, "{}", out.dump());
    assert!(e.iter().all(|e| e.contains("(ID 530: syscall:vmlinux:openat:entry): invalid address (0x")), "{}", out.dump());
    assert!(e.iter().any(|e| e.contains("invalid address (0x0) in action #1")), "{}", out.dump());
}

/// A fault inside an ERROR clause is reported but fires no ERROR clause again.
#[test]
fn a_fault_in_an_error_clause_does_not_nest() {
    let out = traced(r#"BEGIN { x = 1 / arg0; } ERROR { printf("in error\n"); y = 1 / arg0; printf("not reached\n"); } BEGIN { exit(0); }"#);
    assert_eq!(out.stdout, "\n", "{}", out.dump());
    let e = errors(&out);
    assert_eq!(e.len(), 2, "{}", out.dump());
    assert_eq!(e[1], "crumbs: error on enabled probe ID 2 (ID 3: dtrace:::ERROR): divide-by-zero in action #2");
}

#[test]
fn constant_faults_are_compile_errors() {
    assert_error("BEGIN { trace(1 / 0); }", "expression contains division by zero", "run-time error instead");
    assert_error("BEGIN { x = 5; trace(x % 0); }", "expression contains division by zero", "the ERROR probe fires");
    assert_error("BEGIN { trace(curthread->comm[16]); }", "index outside array bounds: 16, max is 16", "indexed 0 to 15");
    assert_error("BEGIN { NULL = 1; }", "cannot assign to builtin variable `NULL`", "another name");
}

#[test]
fn library_constants_have_dtraces_values() {
    let out = traced(r#"BEGIN { printf("%d %d %d %d %d\n", NULL, DTRACEFLT_BADADDR, DTRACEFLT_ILLOP, DTRACEFLT_DIVZERO, DTRACEFLT_BADINDEX); exit(0); }"#);
    assert_eq!(out.stdout, "0 1 3 4 11\n\n");
}

/// A return probe reports the system call it fired for (the number is read for the report
/// even where nothing else needs it).
#[test]
fn faults_at_syscall_returns_name_the_call() {
    let out = run(&[
        "-q",
        "-e",
        "syscall::read:return /pid == $target/ { @reads = count(); } syscall::read:return /pid == $target/ { x = 1 / (arg0 - arg0); }",
        "-c",
        "cat /etc/hostname",
    ]);
    out.assert_ok();
    let reads = agg_rows(&out.stdout).iter().find(|r| r.0.is_empty()).map(|r| r.1).unwrap_or_else(|| panic!("{}", out.dump()));
    let e = errors(&out);
    assert_eq!(e.len() as i64, reads, "{}", out.dump());
    assert!(e.iter().all(|l| l == "crumbs: error on enabled probe ID 2 (ID 17: syscall:vmlinux:read:return): divide-by-zero in action #1"), "{}", out.dump());
}

/// A fault in END after exit() still fires ERROR (END runs after exit(), and so do the
/// ERROR clauses of its faults).
#[test]
fn errors_in_end_fire_error_after_exit() {
    let out = traced("BEGIN { exit(0); } END { x = 1 / arg0; } ERROR { printf(\"E %d\\n\", arg4); }");
    assert_eq!(out.stdout, "E 4\n\n", "{}", out.dump());
}
