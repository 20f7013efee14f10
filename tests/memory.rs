//! Scratch memory (spec §7.14): `alloca()`, `copyin()`, `copyinto()`, `bcopy()`, read back
//! through pointers like any kernel memory. Live: each program runs in the kernel.

mod common;

use common::{assert_compile_error as assert_error, run, Output};

fn traced(args: &[&str]) -> Output {
    let out = run(args);
    out.assert_ok();
    out
}

/// The error lines on standard error, without their BPF instruction.
fn errors(out: &Output) -> Vec<String> {
    out.stderr.lines().filter_map(|l| l.strip_prefix("crumbs: error on enabled probe ")).map(|l| l.rsplit_once(" at BPF pc ").expect("pc").0.to_string()).collect()
}

#[test]
fn copyin_reads_user_memory_through_a_pointer() {
    let out = traced(&[
        "-q",
        "-e",
        r#"syscall::write:entry /pid == $target/ { this->b = (char *)copyin(arg1, arg2); printf("%d [%s] %c %c\n", arg2, stringof(this->b), this->b[0], *(this->b + 4)); }"#,
        "-c",
        "printf hello",
    ]);
    assert_eq!(out.stdout, "hello5 [hello] h o\n\n", "{}", out.dump());
}

/// A struct copied in whole, read by member: clock_nanosleep's request of 0.01 s.
#[test]
fn copyin_of_a_struct_is_read_by_member() {
    let out = traced(&[
        "-q",
        "-e",
        r#"syscall::clock_nanosleep:entry /pid == $target/ { t = (struct __kernel_timespec *)copyin(arg2, sizeof(struct __kernel_timespec)); printf("%d %d\n", t->tv_sec, t->tv_nsec); }"#,
        "-c",
        "sleep 0.01",
    ]);
    assert_eq!(out.stdout, "0 10000000\n\n", "{}", out.dump());
}

#[test]
fn alloca_is_zeroed_and_bcopy_fills_it() {
    let out = traced(&["-q", "-e", r#"BEGIN { p = (int *)alloca(8); printf("%d %d ", p[0], p[1]); bcopy(&curthread->pid, p + 1, 4); printf("%d %d\n", p[0], p[1] == pid); exit(0); }"#]);
    assert_eq!(out.stdout, "0 0 0 1\n\n", "{}", out.dump());
}

#[test]
fn copyinto_writes_into_the_clauses_scratch_memory() {
    let out = traced(&["-q", "-e", r#"syscall::write:entry /pid == $target/ { p = (char *)alloca(16); copyinto(arg1, 3, p + 2); printf("[%s][%s]\n", stringof(p), stringof(p + 2)); }"#, "-c", "printf world"]);
    assert_eq!(out.stdout, "world[][wor]\n\n", "{}", out.dump());
}

/// Each call of a clause has its own piece, alive until the clause ends.
#[test]
fn each_allocation_has_its_own_piece() {
    let out = traced(&["-q", "-e", r#"BEGIN { a = (long *)alloca(8); b = (long *)alloca(8); bcopy(&curthread->pid, b, 4); printf("%d %d %d\n", a != b, *a, *b == pid); exit(0); }"#]);
    assert_eq!(out.stdout, "1 0 1\n\n", "{}", out.dump());
}

#[test]
fn copies_outside_the_scratch_memory_fault() {
    let out = traced(&[
        "-q",
        "-e",
        r#"syscall::write:entry /pid == $target/ { p = (char *)alloca(16); copyinto(arg1, 5, p + 14); }
        syscall::write:entry /pid == $target/ { p = (char *)alloca(16); copyinto(arg1, 5, p - 1); }
        syscall::write:entry /pid == $target/ { copyin(arg1, 5000 + arg2); }
        syscall::write:entry /pid == $target/ { bcopy(0, alloca(8), 8); }
        syscall::write:entry /pid == $target/ { copyin(0, 4); }
        ERROR { @[arg1, arg4] = count(); }"#,
        "-c",
        "printf x",
    ]);
    let e = errors(&out);
    assert_eq!(e.len(), 5, "{}", out.dump());
    let write = "(ID 18: syscall:vmlinux:write:entry)";
    assert_eq!(e[0], format!("ID 1 {write}: out of scratch space in action #2"));
    assert!(e[1].starts_with(&format!("ID 2 {write}: invalid address (0x")), "{e:?}");
    assert_eq!(e[2], format!("ID 3 {write}: out of scratch space in action #1"));
    assert_eq!(e[3], format!("ID 4 {write}: invalid address (0x0) in action #1"));
    assert_eq!(e[4], format!("ID 5 {write}: invalid address (0x0) in action #1"));
}

#[test]
fn scratch_memory_errors() {
    assert_error("BEGIN { copyin(arg0, 20000); }", "copyin() of 20000 bytes", "0 to 16384 bytes");
    assert_error("BEGIN { alloca(-1); }", "alloca() of -1 bytes", "scratch memory holds");
    assert_error("BEGIN { copyin(\"a\", 1); }", "the address given to copyin() must be an integer", "");
    assert_error("BEGIN { bcopy(0, 1); }", "bcopy() takes 3 arguments", "");
}

/// Found by review: copies need a piece to copy into, a 0-byte piece is one, and pieces
/// fill the scratch space exactly.
#[test]
fn pieces_edge_cases() {
    assert_error("BEGIN { bcopy(curthread, 0, 8); }", "bcopy() and copyinto() copy into scratch memory from alloca() or copyin() in the same clause, and this clause has none", "");
    let out = traced(&["-q", "-e", "BEGIN { p = alloca(0); bcopy(curthread, p, 0); printf(\"ok\\n\"); } BEGIN { a = alloca(16384); b = alloca(16384); printf(\"%d\\n\", (long)b - (long)a); exit(0); }"]);
    assert_eq!(out.stdout, "ok\n16384\n\n", "{}", out.dump());
    assert_error("BEGIN { a = alloca(16384); b = alloca(16384); c = alloca(8); }", "need more scratch memory than there is", "take less");
}
