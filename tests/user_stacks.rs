//! Live tests of user stacks and symbols (spec §7.16): ustack(n) and the ustackframes option,
//! usym()/ufunc()/uaddr()/umod(), ucaller, ustackdepth, printf's %A and %k, on C programs
//! built with frame pointers (dynamic and static) and on io-benchmark; the checker's errors.

mod common;

use common::{agg_rows, assert_compile_error, io_benchmark, run, str_col, TempPath};
use std::process::Command;

/// main -> a -> b -> c, three times; c makes the write system call itself (inline
/// `syscall`), so its own frame is the first of the stack (a call to libc's write() would
/// put libc's frame-pointer-less wrapper first and hide c). Then one write() through libc.
const PROGRAM: &str = r#"
#include <unistd.h>
#include <sys/syscall.h>
__attribute__((noinline)) void c(void) {
    long ret;
    static const char msg[] = "hi\n";
    __asm__ volatile ("syscall" : "=a"(ret) : "0"((long)SYS_write), "D"((long)1), "S"(msg), "d"((long)(sizeof msg - 1)) : "rcx", "r11", "memory");
}
__attribute__((noinline)) void b(void) { c(); }
__attribute__((noinline)) void a(void) { b(); }
int main(void) { for (int i = 0; i < 3; i++) a(); write(1, "bye\n", 4); return 0; }
"#;

/// main -> r(60) -> r(59) -> ... -> r(0), which makes the write system call itself: a user
/// stack of more than 60 frames.
const DEEP: &str = r#"
#include <unistd.h>
#include <sys/syscall.h>
__attribute__((noinline)) void r(int n) {
    if (n > 0) { r(n - 1); return; }
    long ret;
    static const char msg[] = "deep\n";
    __asm__ volatile ("syscall" : "=a"(ret) : "0"((long)SYS_write), "D"((long)1), "S"(msg), "d"((long)(sizeof msg - 1)) : "rcx", "r11", "memory");
}
int main(void) { r(60); return 0; }
"#;

/// The program built with frame pointers, dynamic or static, in a temp directory (kept
/// alive by the returned guard) as `prog`.
fn build(static_: bool) -> (TempPath, String) {
    build_source(PROGRAM, static_)
}

/// C `source` built as [`build`] builds the program.
fn build_source(source: &str, static_: bool) -> (TempPath, String) {
    let dir = TempPath::dir("ustack");
    let src = dir.path().join("prog.c");
    std::fs::write(&src, source).unwrap();
    let exe = dir.path().join("prog");
    let mut gcc = Command::new("gcc");
    gcc.args(["-O0", "-fno-omit-frame-pointer", "-o"]).arg(&exe).arg(&src);
    if static_ {
        gcc.arg("-static");
    }
    let out = gcc.output().expect("gcc runs");
    assert!(out.status.success(), "gcc: {}", String::from_utf8_lossy(&out.stderr));
    let exe = exe.to_str().unwrap().to_string();
    (dir, exe)
}

/// `module`name+0xoff` as (module, name); ("?", the frame) for a frame that is no symbol, so
/// that the assertion comparing it fails with the whole output.
fn frame(f: &str) -> (&str, &str) {
    let Some((module, rest)) = f.trim().split_once('`') else { return ("?", f.trim()) };
    (module, rest.split_once("+0x").map_or(rest, |(n, _)| n))
}

/// The stacks printed in `text` by ustack(): blocks of lines indented by 14 spaces.
fn stacks(text: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        match line.strip_prefix(&" ".repeat(14)) {
            // An aggregation's value (" %16lld") of three or more digits lines up too.
            Some(f) if !f.starts_with(' ') && f.parse::<i64>().is_err() => {
                if !open {
                    out.push(Vec::new());
                }
                out.last_mut().unwrap().push(f.to_string());
                open = true;
            }
            _ => open = false,
        }
    }
    out
}

/// c, b, a, main in order at the top of the stack, each `prog`name+0xoff`.
fn assert_chain(frames: &[String], dump: &str) {
    let names: Vec<(&str, &str)> = frames.iter().take(4).map(|f| frame(f)).collect();
    assert_eq!(names, [("prog", "c"), ("prog", "b"), ("prog", "a"), ("prog", "main")], "{dump}");
    assert!(frames.iter().take(4).all(|f| f.contains("+0x")), "{dump}");
}

/// ustack() traced shows the call chain, innermost first, symbolized from the executable;
/// as an aggregation key, printed after the program has exited, it still does, with the
/// exact count; ustack(2) keeps two frames; ustackdepth counts them all.
fn chain(static_: bool) {
    let (_dir, exe) = build(static_);
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::write:entry /pid == $target && arg2 == 3/ { ustack(); printf("depth %d\n", ustackdepth); @[ustack()] = count(); @two[ustack(2)] = count(); }"#,
        "-c",
        &exe,
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let dump = out.dump();
    let all = stacks(&out.stdout);
    // Three traced, one key of @, one of @two.
    assert_eq!(all.len(), 5, "{dump}");
    for s in &all[..4] {
        assert_chain(s, &dump);
    }
    let depths: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("depth ")).collect();
    assert_eq!(depths.len(), 3, "{dump}");
    assert!(depths.iter().all(|d| d[6..].parse::<usize>().unwrap() >= all[0].len().min(4)), "{dump}");
    assert_eq!(all[4].len(), 2, "{dump}");
    assert_eq!(frame(&all[4][0]), ("prog", "c"), "{dump}");
    assert_eq!(frame(&all[4][1]), ("prog", "b"), "{dump}");
    // Each aggregation row's value follows its stack.
    let counts: Vec<&str> = out.stdout.lines().filter(|l| l.trim() == "3").collect();
    assert_eq!(counts.len(), 2, "{dump}");
}

#[test]
fn ustack_of_a_dynamic_program() {
    chain(false);
}

#[test]
fn ustack_of_a_static_program() {
    chain(true);
}

/// usym()/ufunc() print `module`symbol`, uaddr() and %A `module`symbol+0xoff`, umod() the
/// module; as keys, addresses in one function (module) are one row; ucaller is the second
/// frame (b, which c returns to).
#[test]
fn user_symbols_and_ucaller() {
    let (_dir, exe) = build(false);
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::write:entry /pid == $target && arg2 == 3/ {
               printf("%A|%-20A|%p|\n", ucaller, ucaller, ucaller);
               trace(usym(ucaller)); trace(uaddr(ucaller)); trace(umod(ucaller)); trace(ufunc(ucaller)); printf("\n");
               @f[usym(ucaller)] = count(); @u[ufunc(ucaller)] = count(); @m[umod(ucaller)] = count(); @d[uaddr(ucaller)] = count(); @c[ucaller] = count(); }"#,
        "-c",
        &exe,
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let dump = out.dump();
    let lines: Vec<&str> = out.stdout.lines().filter(|l| l.contains('|')).collect();
    assert_eq!(lines.len(), 3, "{dump}");
    let parts: Vec<&str> = lines[0].split('|').collect();
    assert_eq!(frame(parts[0]), ("prog", "b"), "{dump}");
    assert!(parts[0].contains("+0x"), "{dump}");
    assert_eq!(parts[1], format!("{:<20}", parts[0]), "{dump}");
    let pc = u64::from_str_radix(parts[2], 16).unwrap();
    assert!(pc > 0, "{dump}");
    let traced = format!("{}{}{}{}", str_col("prog`b"), str_col(parts[0]), str_col("prog"), str_col("prog`b"));
    assert_eq!(out.stdout.lines().filter(|l| *l == traced).count(), 3, "{dump}");
    let rows = agg_rows(&out.stdout);
    for key in ["prog`b", "prog", parts[0]] {
        let n: Vec<i64> = rows.iter().filter(|(k, _)| k.len() == 1 && k[0] == key).map(|(_, v)| *v).collect();
        // usym and ufunc: two aggregations with the same row.
        let want = if key == "prog`b" { vec![3, 3] } else { vec![3] };
        assert_eq!(n, want, "{key}\n{dump}");
    }
    assert!(rows.iter().any(|(k, v)| k == &[pc.to_string()] && *v == 3), "{dump}");
}

/// ucaller and ustackdepth are integers computed in the kernel: usable in predicates,
/// arithmetic, variables and aggregating functions, and equal to the second frame and the
/// frame count of the ustack() taken with them (b, which c returns to; main -> a -> b -> c
/// and what called main).
#[test]
fn ucaller_and_ustackdepth_are_integers() {
    let (_dir, exe) = build(false);
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::write:entry /pid == $target && arg2 == 3 && ustackdepth >= 4 && ucaller != 0/ {
               self->u = ucaller; this->n = ustackdepth + 1;
               printf("u|%A|%d|%d|%d|%d\n", ucaller, ucaller, ustackdepth, this->n - 1 == ustackdepth, self->u == ucaller); ustack();
               @s = sum(ustackdepth); @m = min(ucaller - self->u); }"#,
        "-c",
        &exe,
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let dump = out.dump();
    let lines: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("u|")).collect();
    assert_eq!(lines.len(), 3, "{dump}");
    let all = stacks(&out.stdout);
    assert_eq!(all.len(), 3, "{dump}");
    for (line, frames) in lines.iter().zip(&all) {
        let f: Vec<&str> = line.split('|').collect();
        assert_eq!(f[1], frames[1], "{dump}");
        assert_eq!(frame(f[1]), ("prog", "b"), "{dump}");
        assert_eq!(f[3], frames.len().to_string(), "{dump}");
        assert_eq!((f[4], f[5]), ("1", "1"), "{dump}");
    }
    let depth: i64 = lines[0].split('|').nth(3).unwrap().parse().unwrap();
    assert!(out.stdout.lines().any(|l| l.trim() == (3 * depth).to_string()), "{dump}");
}

/// A user symbol of another address than a stack's: `%A` and uaddr() of the string c()
/// writes, a data symbol of the executable.
#[test]
fn any_user_address() {
    let (_dir, exe) = build(false);
    let out = run(&["-q", "-e", r#"syscall::write:entry /pid == $target && arg2 == 3/ { printf("%A\n", arg1); @[umod(arg1)] = count(); }"#, "-c", &exe]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let dump = out.dump();
    assert_eq!(out.stdout.lines().filter(|l| *l == "prog`msg.0").count(), 3, "{dump}");
    assert_eq!(agg_rows(&out.stdout), [(vec!["prog".to_string()], 3)], "{dump}");
}

/// The ustackframes option sets what ustack() without a count keeps; ustack(n, strsize)
/// takes DTrace's second argument and ignores it.
#[test]
fn ustackframes_and_strsize() {
    let (_dir, exe) = build(false);
    let out = run(&["-q", "-x", "ustackframes=3", "-e", r#"syscall::write:entry /pid == $target && arg2 == 3/ { ustack(); printf("%k", ustack(1, 500)); }"#, "-c", &exe]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let dump = out.dump();
    let all = stacks(&out.stdout);
    assert_eq!(all.len(), 3, "{dump}");
    assert!(all.iter().all(|s| s.len() == 3), "{dump}");
    // %k without the - flag: frames not indented.
    assert_eq!(out.stdout.lines().filter(|l| l.starts_with("prog`c+0x")).count(), 3, "{dump}");
}

/// jstack() is ustack() on Linux (no Java helper): the same frames, but without a count it
/// keeps the jstackframes option's number, 50 unless set; jstack(n, strsize) takes DTrace's
/// second argument and ignores it; jstackstrsize is accepted.
#[test]
fn jstack_is_a_user_stack_of_jstackframes() {
    let (_dir, exe) = build(false);
    let out = run(&["-q", "-e", r#"syscall::write:entry /pid == $target && arg2 == 3/ { jstack(); @[jstack(2, 500)] = count(); }"#, "-c", &exe]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let dump = out.dump();
    let all = stacks(&out.stdout);
    assert_eq!(all.len(), 4, "{dump}");
    for s in &all[..3] {
        assert_chain(s, &dump);
    }
    assert_eq!(all[3].iter().map(|f| frame(f)).collect::<Vec<_>>(), [("prog", "c"), ("prog", "b")], "{dump}");
    let out = run(&["-q", "-x", "jstackframes=3", "-x", "jstackstrsize=1k", "-e", r#"syscall::write:entry /pid == $target && arg2 == 3/ { jstack(); }"#, "-c", &exe]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let all = stacks(&out.stdout);
    assert_eq!(all.len(), 3, "{}", out.dump());
    assert!(all.iter().all(|s| s.len() == 3), "{}", out.dump());
    // A stack deeper than 50: jstack() keeps 50 frames, ustack() 100 (of more than 60).
    let (_deep, exe) = build_source(DEEP, false);
    let out = run(&["-q", "-e", r#"syscall::write:entry /pid == $target && arg2 == 5/ { jstack(); ustack(); printf("depth %d\n", ustackdepth); }"#, "-c", &exe]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let dump = out.dump();
    let all = stacks(&out.stdout);
    assert_eq!(all.len(), 2, "{dump}");
    assert_eq!(all[0].len(), 50, "{dump}");
    assert!(all[1].len() > 60, "{dump}");
    assert_eq!(all[0][..], all[1][..50], "{dump}");
    assert!(all[0].iter().all(|f| frame(f) == ("prog", "r")), "{dump}");
    let out = run(&["-q", "-e", "#pragma D option jstackframes=7\nsyscall::write:entry /pid == $target && arg2 == 5/ { jstack(); }", "-c", &exe]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(stacks(&out.stdout).iter().map(Vec::len).collect::<Vec<_>>(), [7], "{}", out.dump());
}

/// io-benchmark (Rust, static, built without frame pointers): its read() system calls come
/// from glibc's read wrapper in the executable, the first frame of every user stack; the
/// frames under it are whatever the frame pointer register held (no frame pointers), so
/// only the first is asserted. 64K read in 4K chunks: 16 reads.
#[test]
fn ustack_on_io_benchmark() {
    let file = TempPath::new("ustack-io");
    let bench = io_benchmark();
    let bench = bench.to_str().unwrap();
    let created = Command::new(bench).args(["-c", "-s", "64K", file.str()]).status().unwrap();
    assert!(created.success());
    let out = run(&["-q", "-e", "syscall::read:entry /pid == $target/ { @[ustack(1)] = count(); @m[umod(arg1)] = count(); }", "-c", &format!("{bench} -r -b 4K {}", file.str())]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let dump = out.dump();
    let all = stacks(&out.stdout);
    assert_eq!(all.len(), 1, "{dump}");
    let (module, name) = frame(&all[0][0]);
    assert_eq!(module, "io-benchmark", "{dump}");
    assert!(name.contains("read"), "{dump}");
    assert!(out.stdout.lines().any(|l| l == format!(" {:>16}", 16)), "{dump}");
    // The buffer is on the heap: no module.
    assert_eq!(agg_rows(&out.stdout).iter().filter(|(k, _)| k.len() == 1 && k[0].starts_with("0x")).map(|(_, v)| *v).sum::<i64>(), 16, "{dump}");
}

#[test]
fn misuse_is_a_compile_error() {
    assert_compile_error("BEGIN { x = usym(arg0) + 1; }", "an operand of `+` must be an integer, but this is a user symbol", "@[usym(pc)] = count()");
    assert_compile_error("BEGIN { a[1] = ustack(); }", "`a[...]` cannot hold a user stack: storing 0 deletes an associative array's element", "a bpftrace map");
    assert_compile_error("BEGIN { ustack(0); }", "ustack() cannot keep 0 frames", "a user stack keeps 1 to 100 frames");
    assert_compile_error("BEGIN { ustack(101); }", "ustack() cannot keep 101 frames", "a user stack keeps 1 to 100 frames");
    assert_compile_error("BEGIN { ustack(arg0); }", "ustack()'s frame count must be an integer constant", "e.g. ustack(5)");
    assert_compile_error("BEGIN { ustack(5, -1); }", "ustack()'s string size must be a non-negative integer constant", "ignores");
    assert_compile_error("BEGIN { ustack(1, 2, 3); }", "ustack() takes at most 2 arguments, but 3 given", "usage: ustack([nframes [, strsize]])");
    assert_compile_error(r#"BEGIN { printf("%d", ustack()); }"#, "%d cannot print a stack", "%k");
    assert_compile_error(r#"BEGIN { printf("%A", "x"); }"#, "%A's argument must be an integer, but this is a string", "");
    assert_compile_error("#pragma D option ustackframes=101\nBEGIN { }", "ustackframes=101 is out of range", "a user stack keeps 1 to 100 frames");
    assert_compile_error("BEGIN { @[ustack(2)] = count(); @[ustack(3)] = count(); }", "key 1 of `@` is ustack(2) elsewhere", "user stack keys");
    assert_compile_error("BEGIN { print(usym(arg0)); }", "print() cannot print a user symbol", "trace()");
    assert_compile_error("BEGIN { @[ustack()] = sum(usym(ucaller)); }", "the argument of sum() must be an integer", "");
    assert_compile_error("BEGIN { jstack(101); }", "jstack() cannot keep 101 frames", "a user stack keeps 1 to 100 frames");
    assert_compile_error("BEGIN { jstack(arg0); }", "jstack()'s frame count must be an integer constant", "e.g. jstack(5)");
    assert_compile_error("BEGIN { jstack(5, arg0); }", "jstack()'s string size must be a non-negative integer constant", "jstack(n, 0)");
    assert_compile_error("BEGIN { jstack(1, 2, 3); }", "jstack() takes at most 2 arguments, but 3 given", "usage: jstack([nframes [, strsize]])");
    assert_compile_error("BEGIN { a[1] = jstack(); }", "`a[...]` cannot hold a user stack: storing 0 deletes an associative array's element", "a bpftrace map");
    assert_compile_error("#pragma D option jstackframes=0\nBEGIN { }", "jstackframes=0 is out of range", "a user stack keeps 1 to 100 frames");
    assert_compile_error("#pragma D option jstackstrsize=big\nBEGIN { }", "option `jstackstrsize` needs a size, got `big`", "jstackstrsize=4m");
}

/// The program has exited when END runs: its stacks, kept as keys, still symbolize (its
/// memory map was read as it exited). printa()'s %k prints a user stack key.
#[test]
fn stacks_of_a_process_gone_before_end() {
    let (_dir, exe) = build(false);
    let out = run(&["-q", "-e", r#"syscall::write:entry /pid == $target && arg2 == 3/ { @[ustack(4)] = count(); } END { printa("%k|%@d\n", @); }"#, "-c", &exe]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let dump = out.dump();
    let frames: Vec<(&str, &str)> = out.stdout.lines().filter(|l| l.starts_with("prog`")).map(frame).collect();
    // Printed by printa() in END (and, as crumbs does today, at exit).
    assert!(frames.len() >= 4, "{dump}");
    assert_eq!(frames[..4], [("prog", "c"), ("prog", "b"), ("prog", "a"), ("prog", "main")], "{dump}");
    assert!(out.stdout.lines().any(|l| l == "|3"), "{dump}");
}

/// At a profile probe, arg1 is the interrupted user address and ustack() starts there:
/// a process that spins in spin() (called by outer(), called by main()) is mostly there.
#[test]
fn profile_samples_in_user_code() {
    let dir = TempPath::dir("ustack-spin");
    let src = dir.path().join("spin.c");
    std::fs::write(
        &src,
        "__attribute__((noinline)) long spin(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * i; return s; }\n\
         __attribute__((noinline)) long outer(long n) { return spin(n) + 1; }\n\
         int main(void) { volatile long r = 0; for (int i = 0; i < 8; i++) r += outer(20000000); return (int)(r & 1) * 0; }\n",
    )
    .unwrap();
    let exe = dir.path().join("spin");
    let built = Command::new("gcc").args(["-O0", "-fno-omit-frame-pointer", "-o"]).arg(&exe).arg(&src).status().unwrap();
    assert!(built.success());
    let out = run(&["-q", "-e", "profile-997 /pid == $target && arg1/ { @[ufunc(arg1)] = count(); @s[ustack(3)] = count(); }", "-c", exe.to_str().unwrap()]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let dump = out.dump();
    let rows = agg_rows(&out.stdout);
    let top = rows.iter().filter(|(k, _)| k.len() == 1).max_by_key(|(_, v)| *v).unwrap_or_else(|| panic!("{dump}"));
    assert_eq!(top.0[0], "spin`spin", "{dump}");
    let chains = stacks(&out.stdout);
    assert!(!chains.is_empty(), "{dump}");
    let spinning: Vec<&Vec<String>> = chains.iter().filter(|s| frame(&s[0]) == ("spin", "spin")).collect();
    assert!(!spinning.is_empty(), "{dump}");
    for s in spinning {
        assert_eq!(s.iter().map(|f| frame(f)).collect::<Vec<_>>(), [("spin", "spin"), ("spin", "outer"), ("spin", "main")], "{dump}");
    }
}
