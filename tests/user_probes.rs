//! Live tests of the pid and uprobe providers (spec §6.8) on small programs built here with
//! gcc and g++: exact call counts at entry and return, arguments from registers and the
//! stack, return values, a function in a shared library (one built here, found through the
//! executable's runpath before the held `-c` command has mapped it, and libc's), a C++
//! name matched demangled, a static executable, bpftrace's uprobe in every process, an
//! offset probe, listing and the errors.

mod common;

use common::{agg_rows, run, TempPath};
use std::process::Command;

/// The program's functions: `work` takes eight arguments (two on the stack) and returns
/// 2a + b + h; `lib_add` (in libcrumbsadd.so) returns a + b. `main` calls each N times
/// (argv[1]) and getpid() N times.
const MAIN_C: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int lib_add(int a, int b);
__attribute__((noinline)) int work(int a, int b, long c, long d, long e, long f, long g, long h) { return a * 2 + b + (int)h; }
int main(int argc, char **argv) {
    int n = atoi(argv[1]), s = 0;
    for (int i = 0; i < n; i++) { s += work(i, 7, 0, 0, 0, 0, 0, 100 + i); s += lib_add(i, 1000); getpid(); }
    printf("%d\n", s);
    return 0;
}
"#;
const LIB_C: &str = "int lib_add(int a, int b) { return a + b; }\n";
const CPP: &str = r#"
#include <cstdio>
#include <cstdlib>
namespace geo { struct Shape { int w; __attribute__((noinline)) int area(int k) const { return w * k; } }; }
int main(int argc, char **argv) { int n = atoi(argv[1]), s = 0; for (int i = 0; i < n; i++) { geo::Shape sh{i}; s += sh.area(2); } printf("%d\n", s); }
"#;
const STATIC_C: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((noinline)) int work(int a) { return a + 1; }
int main(int argc, char **argv) { int n = atoi(argv[1]), s = 0; for (int i = 0; i < n; i++) { s += work(i); getpid(); } printf("%d\n", s); return 0; }
"#;

fn compile(compiler: &str, args: &[&str]) {
    let out = Command::new(compiler).args(args).output().unwrap_or_else(|e| panic!("{compiler} runs: {e}"));
    assert!(out.status.success(), "{compiler} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The C program and its library, in `dir`: (executable, library).
fn build_c(dir: &TempPath) -> (String, String) {
    let d = dir.str();
    std::fs::write(format!("{d}/main.c"), MAIN_C).unwrap();
    std::fs::write(format!("{d}/add.c"), LIB_C).unwrap();
    let lib = format!("{d}/libcrumbsadd.so");
    compile("gcc", &["-O1", "-shared", "-fPIC", "-o", &lib, &format!("{d}/add.c")]);
    let exe = format!("{d}/probed");
    compile("gcc", &["-O1", "-o", &exe, &format!("{d}/main.c"), &format!("-L{d}"), "-lcrumbsadd", &format!("-Wl,-rpath,{d}")]);
    (exe, lib)
}

/// `crumbs -q -e PROGRAM -c CMD`, expected to succeed: stdout.
fn traced(program: &str, cmd: &str) -> String {
    let out = run(&["-q", "-e", program, "-c", cmd]);
    out.assert_ok();
    out.stdout
}

fn value(text: &str, keys: &[&str]) -> Option<i64> {
    agg_rows(text).into_iter().find(|(k, _)| k == keys).map(|(_, v)| v)
}

#[test]
fn counts_arguments_and_return_values() {
    let dir = TempPath::dir("pid");
    let (exe, _) = build_c(&dir);
    let n: i64 = 7;
    // One thread calls them all: plain global counters are exact.
    let out = traced(
        r#"pid$target:a.out:work:entry { entries++; a += arg0; b += arg1; h += arg7; }
           pid$target:a.out:work:return { returns++; r += retval; r1 += arg1; off += arg0; }
           pid$target:libcrumbsadd.so:lib_add:entry /probemod == "libcrumbsadd.so" && probefunc == "lib_add" && probename == "entry"/ { lib++; }
           pid$target:libcrumbs*:lib_add:return { libret += arg1; }
           pid$target:libc.so.6:getpid:entry { getpids++; }
           END { printf("%d %d %d %d / %d %d %d %d / %d %d %d\n", entries, a, b, h, returns, r, r1, off, lib, libret, getpids); }"#,
        &format!("{exe} {n}"),
    );
    let sum = |f: &dyn Fn(i64) -> i64| (0..n).map(f).sum::<i64>();
    let want = format!(
        "{n} {} {} {} / {n} {} {} 0 / {n} {} {n}",
        sum(&|i| i),
        7 * n,
        sum(&|i| 100 + i),
        sum(&|i| 3 * i + 107),
        sum(&|i| 3 * i + 107),
        sum(&|i| i + 1000)
    );
    assert!(out.lines().any(|l| l == want), "want {want:?}:\n{out}");
}

/// The same counts, each on its own, so that every figure is checked exactly.
#[test]
fn exact_counts_one_by_one() {
    let dir = TempPath::dir("pidexact");
    let (exe, _) = build_c(&dir);
    let n = 5;
    let cmd = format!("{exe} {n}");
    let single = |program: &str| -> i64 {
        let out = traced(program, &cmd);
        let v: Vec<i64> = out.lines().filter_map(|l| l.trim().parse().ok()).collect();
        assert_eq!(v.len(), 2, "the program's output line and one value:\n{out}");
        v[1]
    };
    assert_eq!(single("pid$target:a.out:work:entry { @ = count(); }"), n);
    assert_eq!(single("pid$target:a.out:work:return { @ = count(); }"), n);
    assert_eq!(single("pid$target:a.out:work:return { @ = sum(retval); }"), (0..n).map(|i| 3 * i + 107).sum::<i64>());
    assert_eq!(single("pid$target:a.out:work:entry { @ = sum(arg7); }"), (0..n).map(|i| 100 + i).sum::<i64>());
    assert_eq!(single("pid$target:libcrumbsadd.so:lib_add:return { @ = sum(arg1); }"), (0..n).map(|i| i + 1000).sum::<i64>());
    assert_eq!(single("pid$target:libc.so.6:getpid:entry { @ = count(); }"), n);
    // Every process calls getpid: only the target's are counted.
    assert_eq!(single("uretprobe:libc:getpid /pid == $target/ { @ = count(); }"), n, "uretprobe by a library's name");
}

#[test]
fn cpp_names_are_demangled() {
    let dir = TempPath::dir("cpp");
    let src = format!("{}/shape.cpp", dir.str());
    std::fs::write(&src, CPP).unwrap();
    let exe = format!("{}/shape", dir.str());
    compile("g++", &["-O1", "-o", &exe, &src]);
    let out = traced("pid$target:a.out:*Shape??area*:entry { @[probefunc] = count(); } pid$target:a.out:*area*:return { @r = sum(retval); }", &format!("{exe} 4"));
    assert_eq!(value(&out, &["geo::Shape::area(int)", "const"]), Some(4), "{out}");
    assert!(out.lines().any(|l| l.trim() == "12"), "sum of 2i for i < 4:\n{out}");
}

#[test]
fn static_executable() {
    let dir = TempPath::dir("static");
    let src = format!("{}/s.c", dir.str());
    std::fs::write(&src, STATIC_C).unwrap();
    let exe = format!("{}/s", dir.str());
    compile("gcc", &["-O1", "-static", "-o", &exe, &src]);
    let out = traced("pid$target:a.out:work:entry, pid$target::getpid:entry { @[probefunc] = count(); }", &format!("{exe} 6"));
    assert_eq!(value(&out, &["work"]), Some(6), "{out}");
    assert_eq!(value(&out, &["getpid"]), Some(6), "{out}");
    // A static executable has no libc.so.6.
    let out = run(&["-e", "pid$target:libc.so.6:getpid:entry { }", "-c", &format!("{exe} 1")]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("has no module `libc.so.6`"), "{}", out.dump());
}

/// bpftrace's uprobe fires in every process running the file: here two children of the
/// -c shell, which is $target and does not run it.
#[test]
fn uprobe_traces_every_process() {
    let dir = TempPath::dir("uprobe");
    let (exe, lib) = build_c(&dir);
    let program = format!("uprobe:{exe}:work {{ @e = count(); }} uretprobe:{exe}:work {{ @r = count(); }} uprobe:{lib}:lib_add {{ @l = count(); }}");
    let out = traced(&program, &format!("sh -c '{exe} 3; {exe} 4'"));
    let v: Vec<i64> = out.lines().filter_map(|l| l.trim().parse().ok()).collect();
    // The two programs' own lines, then @e, @r and @l.
    assert_eq!(&v[v.len() - 3..], [7, 7, 7], "{out}");
}

/// An instruction inside `work`, as objdump shows it: its second.
#[test]
fn offset_probe() {
    let dir = TempPath::dir("offset");
    let (exe, _) = build_c(&dir);
    let dis = Command::new("objdump").args(["-d", "--no-show-raw-insn", &exe]).output().expect("objdump runs");
    let text = String::from_utf8_lossy(&dis.stdout);
    let body: Vec<u64> = text
        .split("<work>:\n")
        .nth(1)
        .expect("work in the disassembly")
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| u64::from_str_radix(l.trim().split(':').next()?, 16).ok())
        .collect();
    assert!(body.len() >= 2, "{text}");
    let offset = body[1] - body[0];
    let out = traced(&format!("pid$target:a.out:work:{offset:x} {{ @[probename] = count(); }}"), &format!("{exe} 3"));
    assert_eq!(value(&out, &[&format!("{offset:x}")]), Some(3), "{out}");
}

#[test]
fn listing() {
    let dir = TempPath::dir("list");
    let (exe, _) = build_c(&dir);
    let out = run(&["-l", "-c", &format!("{exe} 1"), "-e", "pid$target:a.out:wor*:"]);
    out.assert_ok();
    let rows: Vec<Vec<&str>> = out.stdout.lines().skip(1).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows.len(), 2, "{}", out.dump());
    assert_eq!(rows[0][2..], ["probed", "work", "entry"]);
    assert_eq!(rows[1][2..], ["probed", "work", "return"]);
    assert!(rows[0][1].starts_with("pid"), "{}", out.dump());
    let out = run(&["-l", "-e", &format!("uprobe:{exe}:lib_*")]);
    assert_eq!(out.code(), 2, "lib_add is the library's, not the executable's: {}", out.dump());
    let out = run(&["-l", "-e", &format!("uprobe:{exe}:w*")]);
    out.assert_ok();
    assert!(out.stdout.contains(&format!("uprobe {exe}")) && out.stdout.contains("work entry"), "{}", out.dump());
}

fn assert_error(args: &[&str], message: &str, hint: &str) {
    let out = run(args);
    out.assert_no_panic();
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains(message), "message {message:?}\n{}", out.dump());
    assert!(out.stderr.contains(hint), "hint {hint:?}\n{}", out.dump());
}

#[test]
fn errors() {
    let dir = TempPath::dir("errors");
    let (exe, _) = build_c(&dir);
    let cmd = format!("{exe} 1");
    assert_error(&["-e", "pid$target:a.out:work:entry { }"], "$target is not set", "-c CMD");
    assert_error(&["-e", "pid2147483647:a.out:work:entry { }"], "no process 2147483647", "pid$target");
    assert_error(&["-e", "pid$target:libc.so.7:getpid:entry { }", "-c", &cmd], "has no module `libc.so.7`", "did you mean `libc.so.6`?");
    assert_error(&["-e", "pid$target:a.out:wrok:entry { }", "-c", &cmd], "no function `wrok`", "did you mean `work`?");
    assert_error(&["-e", "pid$target:a.out:work:exit { }", "-c", &cmd], "no user-space probe is named `exit`", "entry, return");
    assert_error(&["-e", "uprobe:/no/such/file:main { }"], "cannot read the functions of /no/such/file", "ELF");
    assert_error(&["-e", "pid$target:a.out:work:entry { trace(args[0]); }", "-c", &cmd], "have no types", "use arg0");
}

/// io-benchmark is static (crt-static): libc's `read` is in the executable. Reading 1 MiB in
/// 4 KiB calls enters and returns from it 256 times, once per read system call.
#[test]
fn io_benchmark_reads() {
    let file = TempPath::new("iofile");
    let bench = common::io_benchmark();
    let made = Command::new(&bench).args(["-c", "-s", "1M", file.str()]).status().expect("io-benchmark runs");
    assert!(made.success());
    let out = traced(
        "pid$target:a.out:read:entry { entries++; } pid$target:a.out:read:return { returns++; } syscall::read:entry /pid == $target/ { calls++; } END { printf(\"%d %d %d\\n\", entries, returns, calls); }",
        &format!("{} -r -b 4K {}", bench.display(), file.str()),
    );
    assert!(out.lines().any(|l| l == "256 256 256"), "{out}");
}

/// A pid probe fires in every thread of its process: four threads and the main one call
/// `work` 1000 times each.
#[test]
fn every_thread_of_the_process() {
    let dir = TempPath::dir("threads");
    let src = format!("{}/thr.c", dir.str());
    std::fs::write(
        &src,
        r#"#include <pthread.h>
#include <stdio.h>
__attribute__((noinline)) int work(int a) { __asm__ volatile(""); return a + 1; }
static void *run(void *p) { long s = 0; for (int i = 0; i < 1000; i++) s += work(i); return (void *)s; }
int main(void) { pthread_t t[4]; for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, run, 0); for (int i = 0; i < 4; i++) pthread_join(t[i], 0); run(0); puts("ok"); return 0; }
"#,
    )
    .unwrap();
    let exe = format!("{}/thr", dir.str());
    compile("gcc", &["-O1", "-pthread", "-o", &exe, &src]);
    let out = traced(r#"pid$target:a.out:work:entry { @[tid == $target ? "main" : "thread"] = count(); }"#, &exe);
    assert_eq!(value(&out, &["main"]), Some(1000), "{out}");
    assert_eq!(value(&out, &["thread"]), Some(4000), "{out}");
}

/// A pid probe's program that passes a callback to a helper (chill()'s bpf_loop) is loaded
/// by aya, which links the callback in; crumbs' own uprobe.multi loader does not.
#[test]
fn a_program_with_a_callback() {
    let dir = TempPath::dir("pidchill");
    let (exe, _) = build_c(&dir);
    let out = run(&["-w", "-q", "-e", r#"pid$target:a.out:work:entry { chill(1000); n++; } END { printf("n %d\n", n); }"#, "-c", &format!("{exe} 3")]);
    out.assert_ok();
    assert!(out.stdout.lines().any(|l| l == "n 3"), "{}\n{}", out.stdout, out.stderr);
}

/// A running process (`-p`) whose shared library was replaced on disk since it mapped it
/// (as a package upgrade does): its probes go into the file it runs, not the new one, and
/// the module keeps the library's name.
#[test]
fn a_replaced_library_of_a_running_process() {
    let dir = TempPath::dir("pidreplaced");
    let d = dir.str();
    std::fs::write(format!("{d}/add.c"), LIB_C).unwrap();
    std::fs::write(format!("{d}/main.c"), "#include <unistd.h>\nint lib_add(int a, int b);\nint main(void) { int s = 0; for (int i = 0; i < 400; i++) { s += lib_add(i, 1); usleep(10000); } return s == 0; }\n").unwrap();
    let lib = format!("{d}/libcrumbsadd.so");
    compile("gcc", &["-O1", "-shared", "-fPIC", "-o", &lib, &format!("{d}/add.c")]);
    let exe = format!("{d}/looping");
    compile("gcc", &["-O1", "-o", &exe, &format!("{d}/main.c"), &format!("-L{d}"), "-lcrumbsadd", &format!("-Wl,-rpath,{d}")]);
    let mut child = Command::new(&exe).spawn().expect("start the program");
    std::thread::sleep(std::time::Duration::from_millis(300));
    // The new library: lib_add at another offset, in another inode at the same path.
    std::fs::write(format!("{d}/new.c"), format!("int pad(int x) {{ return x * 3 + 1; }}\n{LIB_C}")).unwrap();
    compile("gcc", &["-O1", "-shared", "-fPIC", "-o", &format!("{d}/new.so"), &format!("{d}/new.c")]);
    std::fs::rename(format!("{d}/new.so"), &lib).unwrap();
    let pid = child.id().to_string();
    let out = run(&["-q", "-p", &pid, "-e", r#"pid$target:libcrumbsadd.so:lib_add:entry { @[probemod] = count(); } tick-500ms { exit(0); }"#]);
    let _ = child.kill();
    let _ = child.wait();
    out.assert_ok();
    assert!(value(&out.stdout, &["libcrumbsadd.so"]).is_some_and(|n| n > 10), "{}\n{}", out.stdout, out.stderr);
}

/// uregs[] (stdlib/regs.d's names): at a function's entry the program counter is the
/// function's address and the first argument is in rdi; at a system call's entry orig_ax
/// is its number and rax -ENOSYS; registers pt_regs does not save read 0.
#[test]
fn user_registers() {
    let dir = TempPath::dir("uregs");
    let (exe, _) = build_c(&dir);
    let out = traced(
        r#"pid$target:a.out:work:entry { @pc[usym(uregs[R_PC])] = count(); @di = sum(uregs[R_RDI] == arg0); @sp = sum(uregs[R_SP] == uregs[R_RSP] && uregs[R_SP] != 0); }
           syscall::getpid:entry /pid == $target/ { @nr = sum(uregs[R_ERR] == 39); @ax = sum((int64_t)uregs[R_RAX] == -38); @gs = sum(uregs[R_GS]); }"#,
        &format!("{exe} 5"),
    );
    let rows = agg_rows(&out);
    assert!(rows.iter().any(|(k, v)| k.len() == 1 && k[0].ends_with("`work") && *v == 5), "{out}");
    // @di, @sp, @nr, @ax: all five calls; @gs: 0.
    let singles: Vec<i64> = rows.iter().filter(|(k, _)| k.is_empty()).map(|(_, v)| *v).collect();
    assert_eq!(singles, [5, 5, 5, 5, 0], "{out}");
}

#[test]
fn user_register_errors() {
    assert_error(&["-e", "BEGIN { trace(uregs[26]); }"], "uregs[] has no register 26", "R_TRAPNO");
    assert_error(&["-e", "BEGIN { trace(uregs[arg0]); }"], "uregs[] takes a constant index", "uregs[R_PC]");
}
