//! bpftrace's iterator probes (`iter:task`, `iter:task_file`, `iter:task_vma`; spec §13.15):
//! BPF iterators, run once per kernel object when crumbs reads them after BEGIN, then
//! tracing ends. This process is among the tasks, its files among the files.

mod common;

use common::TempPath;

fn bt(args: &[&str]) -> common::Output {
    common::bpftrace_dropin(args, None, &[])
}

fn own_comm() -> String {
    std::fs::read_to_string("/proc/self/comm").unwrap().trim_end().to_string()
}

#[test]
fn task_iterator_runs_once_per_task_between_begin_and_end() {
    let me = std::process::id().to_string();
    let program = r#"BEGIN { printf("begin\n"); } iter:task /ctx.task.pid == $1/ { printf("%s:%d\n", ctx.task.comm, ctx.task.pid); } iter:task { @tasks = count(); } END { printf("end\n"); }"#;
    let out = bt(&["-e", program, &me]);
    assert_eq!(out.code(), 1, "two iterators are refused: {}", out.dump());
    assert!(out.stderr.contains("Iterator probe cannot be used with other probes"), "{}", out.dump());
    let program = r#"BEGIN { printf("begin\n"); } it:task { if (ctx.task.pid == $1) { printf("%s:%d\n", ctx.task.comm, ctx.task.pid); } @tasks = count(); } END { printf("end\n"); }"#;
    let out = bt(&["-e", program, &me]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert!(out.stdout.starts_with(&format!("Attaching 3 probes...\nbegin\n{}:{me}\nend\n\n\n@tasks: ", own_comm())), "{}", out.dump());
    let tasks: u64 = out.stdout.lines().last().unwrap().trim_start_matches("@tasks: ").parse().unwrap();
    assert!(tasks > 10, "{}", out.dump());
}

#[test]
fn task_file_iterator_sees_this_process_files_with_their_paths() {
    let file = TempPath::with_contents("iter-file", "x");
    let held = std::fs::File::open(file.path()).unwrap();
    use std::os::fd::AsRawFd;
    let fd = held.as_raw_fd();
    let me = std::process::id().to_string();
    let out = bt(&["-q", "-e", r#"iter:task_file /ctx.task.pid == $1 && ctx.fd == $2/ { printf("%d %s\n", ctx.fd, path(ctx.file.f_path)); }"#, &me, &fd.to_string()]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stdout, format!("{fd} {}\n\n\n", file.str()), "{}", out.dump());
    drop(held);
}

#[test]
fn task_vma_iterator_and_the_listing() {
    let me = std::process::id().to_string();
    let out = bt(&["-q", "-e", r#"iter:task_vma /ctx.task.pid == $1/ { @maps = count(); @low = min(ctx.vma.vm_start); }"#, &me]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap().lines().count() as i64;
    let n: i64 = out.stdout.lines().find_map(|l| l.strip_prefix("@maps: ")).unwrap().parse().unwrap();
    assert!((n - maps).abs() <= 4, "{n} mappings against {maps} in /proc/self/maps: {}", out.dump());
    let out = bt(&["-lv", "iter:task*"]);
    assert_eq!(out.stdout, "iter:task\n    struct task_struct * task\niter:task_file\n    struct task_struct * task\n    u32 fd\n    struct file * file\niter:task_vma\n    struct task_struct * task\n    struct vm_area_struct * vma\n", "{}", out.dump());
    let out = bt(&["-e", "iter:nosuch { }"]);
    assert!(out.stderr.contains("iter nosuch is not a supported iterator"), "{}", out.dump());
}
