//! Translators and the D library (spec §5.9): `translator`, `xlate`, and stdlib's
//! `curpsinfo`/`curlwpsinfo` translated from the kernel's task_struct. Live: each program
//! runs in the kernel.

mod common;

use common::{agg_rows, assert_compile_error as assert_error, printed, run};

#[test]
fn curpsinfo_and_curlwpsinfo_agree_with_the_builtins() {
    let p = r#"BEGIN {
        printf("%d %d %d %d %d %d %s %d|", curpsinfo->pr_pid == pid, curpsinfo->pr_ppid == ppid, curpsinfo->pr_uid == uid,
            curpsinfo->pr_gid == gid, curpsinfo->pr_sid == $sid, curpsinfo->pr_pgid == $pgid, curpsinfo->pr_fname, curpsinfo->pr_dmodel == PR_MODEL_LP64);
        printf("%d %c %s %d %d %d\n", curlwpsinfo->pr_lwpid == tid, curlwpsinfo->pr_sname, curlwpsinfo->pr_name, curlwpsinfo->pr_onpro == cpu,
            curlwpsinfo->pr_state == SRUN, curpsinfo->pr_addr == (uintptr_t)curthread);
        exit(0);
    }"#;
    assert_eq!(printed(p), "1 1 1 1 1 1 crumbs 1|1 R crumbs 1 1 1\n");
}

/// In a predicate and as keys, in the traced process: `cat` reads its file (and the
/// libraries it loads) as `cat`.
#[test]
fn translated_members_work_in_predicates_and_keys() {
    let out = run(&["-q", "-e", "syscall::read:entry /curpsinfo->pr_pid == $target/ { @[curpsinfo->pr_fname, curlwpsinfo->pr_lwpid == $target] = count(); }", "-c", "cat /etc/hostname"]);
    out.assert_ok();
    let rows = agg_rows(&out.stdout);
    assert_eq!(rows.len(), 1, "{}", out.dump());
    assert_eq!(rows[0].0, ["cat", "1"], "{}", out.dump());
}

#[test]
fn a_programs_own_translator() {
    let p = r#"struct ids { int me; int parent; long twice; char name[16]; };
        translator struct ids < struct task_struct *T > { me = T->tgid; parent = T->real_parent->tgid; twice = 2 * T->tgid; name = T->comm; };
        inline struct ids *mine = xlate <struct ids *> (curthread);
        BEGIN { printf("%d %d %d %s %d\n", mine->me == pid, mine->parent == ppid, mine->twice == 2 * pid, mine->name, xlate <struct ids *> (curthread)->me == pid); exit(0); }"#;
    assert_eq!(printed(p), "1 1 1 crumbs 1\n");
}

/// A member converts to the member's type: an `int` member of a 64-bit expression keeps its
/// low 32 bits, signed.
#[test]
fn members_convert_to_their_types() {
    let p = r#"struct s { int low; unsigned char byte; };
        translator struct s < struct task_struct *T > { low = 0x1ffffffff; byte = 0x1ff; };
        BEGIN { printf("%d %d\n", xlate <struct s *> (curthread)->low, xlate <struct s *> (curthread)->byte); exit(0); }"#;
    assert_eq!(printed(p), "-1 255\n");
}

#[test]
fn translation_errors() {
    assert_error("BEGIN { trace(curpsinfo); }", "a translated value is read a member at a time", "curpsinfo->pr_pid");
    assert_error("BEGIN { trace(curpsinfo->pr_nosuch); }", "`psinfo_t` has no translated member `pr_nosuch`", "");
    assert_error("BEGIN { trace(curpsinfo.pr_pid); }", "`.` on a translated pointer", "use `->pr_pid`");
    assert_error("struct s { int a; }; BEGIN { trace(xlate <struct s *> (curthread)->a); }", "no translator to `struct s`", "translator OUT < IN T >");
    assert_error("struct s { int a; }; translator struct s < struct task_struct *T > { b = 1; }; BEGIN { }", "`struct s` has no member `b`", "members of the type it translates to");
    assert_error("translator int < struct task_struct *T > { }; BEGIN { }", "a translator makes a struct or union, not `int`", "");
    assert_error(
        "struct s { int a; }; translator struct s < struct task_struct *T > { a = 1; }; BEGIN { trace(xlate <struct s *> (arg0)->a); }",
        "no translator to `struct s` from `int64_t`",
        "the translator takes `struct task_struct *`",
    );
}

/// vtimestamp (stdlib/sched.d): a thread's time on a CPU. A sleep takes wall time but
/// almost none on the CPU; reading /dev/zero is on the CPU all along.
#[test]
fn vtimestamp_counts_time_on_a_cpu() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::clock_nanosleep:entry,syscall::read:entry /ppid == $target && (execname == "sleep" || execname == "dd")/ { self->v = vtimestamp; self->t = timestamp; }
        syscall::clock_nanosleep:return,syscall::read:return /self->t/ { @v[probefunc] = sum(vtimestamp - self->v); @t[probefunc] = sum(timestamp - self->t); self->v = 0; self->t = 0; }
        END { printa("%s %@d %@d\n", @v, @t); }"#,
        "-c",
        "sh -c 'sleep 0.2; dd if=/dev/zero of=/dev/null bs=1M count=100 2>/dev/null'",
    ]);
    out.assert_ok();
    let line = |name: &str| -> (i64, i64) {
        let l = out.stdout.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no {name}\n{}", out.dump()));
        let v: Vec<i64> = l.split_whitespace().skip(1).map(|x| x.parse().unwrap()).collect();
        (v[0], v[1])
    };
    let (on_cpu, wall) = line("clock_nanosleep");
    assert!(wall >= 150_000_000 && on_cpu * 10 < wall, "{on_cpu} of {wall}\n{}", out.dump());
    // Reads of /dev/zero run on a CPU, unless the machine is busy and takes it away: all
    // that is sure is that they took some of it. The scheduler brings a thread's CPU time up
    // to date at ticks and switches, so each of the 100 reads may also count up to a tick
    // (10 ms at 100 Hz) from before it began: no more than that above the wall time.
    let (on_cpu, wall) = line("read");
    assert!(on_cpu > 0 && on_cpu <= wall + 100 * 10_000_000, "{on_cpu} of {wall}\n{}", out.dump());
}

/// pr_psargs: the process's arguments with spaces between them, the first 79 bytes; "" for
/// a kernel thread (the idle task has no memory of its own).
#[test]
fn pr_psargs_is_the_command_line() {
    let long = format!("/nonexistent/{}", "x".repeat(100));
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::exit_group:entry /ppid == $target/ { printf("[%s] [%s]\n", curpsinfo->pr_fname, curpsinfo->pr_psargs); }"#,
        "-c",
        &format!("sh -c 'cat /etc/hostname >/dev/null; ls -d /tmp {long} >/dev/null 2>&1; true'"),
    ]);
    out.assert_ok();
    let ls = format!("ls -d /tmp {long}");
    assert_eq!(out.stdout, format!("[cat] [cat /etc/hostname]\n[ls] [{}]\n\n", &ls[..79]), "{}", out.dump());
    assert_eq!(printed("profile-997 /pid == 0/ { printf(\"[%s]\\n\", curpsinfo->pr_psargs); exit(0); }"), "[]\n");
}

/// A child with two more threads: it reads its own /proc/self/status and /proc/self/stat
/// and writes them to standard output in one write(), where crumbs reads its psinfo and
/// lwpsinfo; nothing changes its memory map or threads between the reads and the write.
const PROCINFO: &str = r#"
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
static char buf[16384];
static int p[2];
static void *idle(void *x) { char c; read(p[0], &c, 1); return x; }
int main(void) {
    pthread_t t[2];
    if (pipe(p)) return 1;
    for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, idle, 0);
    int fd = open("/proc/self/status", O_RDONLY), n = read(fd, buf, 8000);
    close(fd);
    fd = open("/proc/self/stat", O_RDONLY);
    n += read(fd, buf + n, 8000);
    close(fd);
    if (write(1, buf, n) != n || write(p[1], "xx", 2) != 2) return 1;
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    return 0;
}
"#;

/// PROCINFO built in a temp directory (kept alive by the returned guard).
fn build_procinfo() -> (common::TempPath, String) {
    let dir = common::TempPath::dir("procinfo");
    let src = dir.path().join("procinfo.c");
    std::fs::write(&src, PROCINFO).unwrap();
    let exe = dir.path().join("procinfo");
    let out = std::process::Command::new("gcc").args(["-O1", "-pthread", "-o"]).arg(&exe).arg(&src).output().expect("gcc runs");
    assert!(out.status.success(), "gcc: {}", String::from_utf8_lossy(&out.stderr));
    let exe = exe.to_str().unwrap().to_string();
    (dir, exe)
}

/// The members procfs.d reads from the kernel that /proc shows too, compared with what the
/// child read from its own /proc/self/status and /proc/self/stat just before the write
/// crumbs traces: pr_nlwp (Threads), pr_size (VmSize), pr_ttydev ((struct tty_struct *)-1
/// where stat's tty_nr is 0; the tty's name, pts and its minor number, where it is a
/// pseudo-terminal), pr_clname (stat's policy as ps names it, under each of chrt's
/// policies), pr_nice (stat's nice + 20, under nice); and the Solaris members dtrace-utils gives as 0.
#[test]
fn psinfo_and_lwpsinfo_agree_with_proc() {
    let (_dir, exe) = build_procinfo();
    let program = r#"syscall::write:entry /execname == "procinfo" && arg0 == 1/ {
        printf("crumbs|%d|%d|%d|%s|%s|%d|%d\n", curpsinfo->pr_nlwp, curpsinfo->pr_size, curpsinfo->pr_ttydev == (struct tty_struct *)-1,
            curpsinfo->pr_ttydev == (struct tty_struct *)-1 ? "" : stringof(curpsinfo->pr_ttydev->name), curlwpsinfo->pr_clname, curlwpsinfo->pr_nice,
            curpsinfo->pr_wstat + curpsinfo->pr_taskid + curpsinfo->pr_projid + curpsinfo->pr_nzomb + curpsinfo->pr_poolid + curpsinfo->pr_zoneid
                + curpsinfo->pr_contract + curlwpsinfo->pr_wchan + curlwpsinfo->pr_stype);
    }"#;
    let classes = ["TS", "FF", "RR", "B", "ISO", "IDL", "DLN"];
    let mut ttys = 0;
    for (how, class) in [("", "TS"), ("chrt -f 1 ", "FF"), ("chrt -r 2 ", "RR"), ("chrt -b 0 ", "B"), ("chrt -i 0 ", "IDL"), ("setsid -w ", "TS"), ("script -qec ", "TS"), ("nice -n 7 ", "TS")] {
        let cmd = if how.starts_with("script") { format!("{how}{exe} /dev/null") } else { format!("{how}{exe}") };
        let out = run(&["-q", "-e", program, "-c", &cmd]);
        out.assert_ok();
        let dump = out.dump();
        let text = out.stdout.replace('\r', "");
        let line = |prefix: &str| text.lines().find_map(|l| l.strip_prefix(prefix)).unwrap_or_else(|| panic!("no {prefix}\n{dump}")).trim().to_string();
        let f: Vec<String> = line("crumbs|").split('|').map(str::to_string).collect();
        assert_eq!(f[0], line("Threads:"), "{cmd}\n{dump}");
        assert_eq!(format!("{} kB", f[1]), line("VmSize:"), "{cmd}\n{dump}");
        let stat = text.lines().find(|l| l.contains(" (procinfo) ")).unwrap_or_else(|| panic!("no stat\n{dump}"));
        let fields: Vec<&str> = stat.rsplit_once(") ").unwrap().1.split(' ').collect();
        let (tty_nr, nice, policy): (u64, i64, usize) = (fields[4].parse().unwrap(), fields[16].parse().unwrap(), fields[38].parse().unwrap());
        assert_eq!(f[2], if tty_nr == 0 { "1" } else { "0" }, "{cmd}\n{dump}");
        if tty_nr != 0 && (tty_nr >> 8) & 0xfff == 136 {
            let minor = (tty_nr & 0xff) | ((tty_nr >> 12) & 0xfff00);
            assert_eq!(f[3], format!("pts{minor}"), "{cmd}\n{dump}");
            ttys += 1;
        }
        assert_eq!((f[4].as_str(), f[4].as_str()), (classes[policy], class), "{cmd}\n{dump}");
        assert_eq!(f[5], (nice + 20).to_string(), "{cmd}\n{dump}");
        assert_eq!(f[6], "0", "{cmd}\n{dump}");
    }
    assert!(ttys >= 1, "script gave the child no pseudo-terminal");
}

/// lwpsinfo_t's pr_syscall: the system call the current thread is in (x86-64's numbers:
/// getppid 110, exit_group 231, at a tracepoint inside it too), -1 in user mode (a profile
/// sample of a shell's busy loop).
#[test]
fn pr_syscall_is_the_system_call_in_progress() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::getppid:entry /pid == $target/ { printf("getppid %d\n", curlwpsinfo->pr_syscall); }
           tracepoint:sched:sched_process_exit /pid == $target/ { printf("exit %d\n", curlwpsinfo->pr_syscall); }
           profile-997 /pid == $target && arg1 != 0/ { @user[curlwpsinfo->pr_syscall] = count(); }
           END { printa("user %d %@d\n", @user); }"#,
        "-c",
        "sh -c 'echo $PPID >/dev/null; i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'",
    ]);
    out.assert_ok();
    let dump = out.dump();
    assert!(out.stdout.lines().any(|l| l == "getppid 110"), "{dump}");
    assert!(out.stdout.lines().any(|l| l == "exit 231"), "{dump}");
    let user: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("user ")).collect();
    assert!(!user.is_empty() && user.iter().all(|l| l.starts_with("user -1 ")), "{dump}");
    assert_error("BEGIN { trace(__syscall(\"x\")); }", "__syscall() needs an integer here, but this is a string", "__syscall(task)");
}

/// Found by the fuzzer: a translator member that assigns a variable (a global assigned
/// nowhere else made the checker panic).
#[test]
fn translator_members_cannot_assign() {
    assert_error("struct s { long a; }; translator struct s < struct task_struct *T > { a = e = 1; }; BEGIN { trace(xlate <struct s *> (curthread)->a); }", "a declaration cannot assign a variable", "translator member");
}

/// `cwd` (spec §5.1): the process's working directory, built from its dentries and mounts:
/// crumbs' own in BEGIN (where it was started: loading the program must not move it), the
/// traced command's in a tmpfs mounted inside devtmpfs, and a directory too deep to show
/// whole as its innermost components after `...`.
#[test]
fn cwd_is_the_working_directory() {
    use common::{crumbs_cmd, run_command, TempPath, TIMEOUT};
    let in_dir = |dir: &std::path::Path, args: &[&str]| {
        let mut c = crumbs_cmd(args);
        c.current_dir(dir);
        let out = run_command(c, None, TIMEOUT);
        out.assert_ok();
        out
    };
    let tmp = TempPath::dir("cwd");
    let dir = std::fs::canonicalize(tmp.path()).unwrap();
    let out = in_dir(&dir, &["-q", "-w", "-e", r#"BEGIN { printf("[%s] ", cwd); system("pwd"); exit(0); }"#]);
    assert_eq!(out.stdout, format!("[{0}] {0}\n\n", dir.display()), "{}", out.dump());
    let out = in_dir(std::path::Path::new("/dev/shm"), &["-q", "-e", r#"syscall::openat:entry /pid == $target/ { @[cwd] = count(); }"#, "-c", "cat /etc/hostname"]);
    assert!(out.stdout.contains("  /dev/shm "), "{}", out.dump());
    let mut deep = dir.clone();
    for i in 1..=30 {
        deep.push(format!("d{i}"));
    }
    std::fs::create_dir_all(&deep).unwrap();
    let out = in_dir(&deep, &["-q", "-e", r#"BEGIN { printf("[%s]\n", cwd); exit(0); }"#]);
    let tail: String = (7..=30).map(|i| format!("/d{i}")).collect();
    assert_eq!(out.stdout, format!("[...{tail}]\n\n"), "{}", out.dump());
    let out = in_dir(std::path::Path::new("/"), &["-q", "-e", r#"BEGIN { printf("[%s]\n", cwd); exit(0); }"#]);
    assert_eq!(out.stdout, "[/]\n\n", "{}", out.dump());
}
