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
    // A sleeping child's mappings stay as they are (this test process's change as other
    // tests start threads).
    let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    let pid = child.id().to_string();
    // Its exec done: its maps are sleep's.
    while std::fs::read_link(format!("/proc/{pid}/exe")).map_or(true, |e| !e.to_string_lossy().ends_with("/sleep")) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let out = bt(&["-q", "-e", r#"iter:task_vma /ctx.task.pid == $1/ { @maps = count(); @low = min(ctx.vma.vm_start); }"#, &pid]);
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(out.code(), 0, "{}", out.dump());
    let n: usize = out.stdout.lines().find_map(|l| l.strip_prefix("@maps: ")).unwrap().parse().unwrap();
    // [vsyscall] is the kernel's gate area, in no process's list of mappings.
    assert_eq!(n, maps.lines().filter(|l| !l.ends_with("[vsyscall]")).count(), "{maps}{}", out.dump());
    let low = u64::from_str_radix(maps.lines().next().unwrap().split('-').next().unwrap(), 16).unwrap();
    assert!(out.stdout.contains(&format!("@low: {low}\n")), "{maps}{}", out.dump());
    let out = bt(&["-lv", "iter:task*"]);
    assert_eq!(out.stdout, "iter:task\n    struct task_struct * task\niter:task_file\n    struct task_struct * task\n    u32 fd\n    struct file * file\niter:task_vma\n    struct task_struct * task\n    struct vm_area_struct * vma\n", "{}", out.dump());
    let out = bt(&["-e", "iter:nosuch { }"]);
    assert!(out.stderr.contains("iter nosuch is not a supported iterator"), "{}", out.dump());
}

/// The BPF file system where pinned iterators go (mounted if it is not).
fn bpffs() {
    let mounted = std::process::Command::new("mountpoint").args(["-q", "/sys/fs/bpf"]).status().unwrap().success();
    if !mounted {
        let ok = std::process::Command::new("mount").args(["-t", "bpf", "bpf", "/sys/fs/bpf"]).status().unwrap().success();
        assert!(ok, "cannot mount the BPF file system at /sys/fs/bpf");
    }
}

/// `iter:task:PIN` (current bpftrace's): BEGIN runs, the iterator is pinned (under
/// /sys/fs/bpf for a relative name) and not read, END runs; reading the pin later, crumbs
/// gone, runs the program, whose printf()s the kernel formats into the file.
#[test]
fn a_pinned_iterator_prints_into_its_pin_when_read() {
    bpffs();
    let me = std::process::id().to_string();
    let name = format!("crumbs-test-pin-{me}");
    let path = format!("/sys/fs/bpf/{name}");
    let program = format!(r#"BEGIN {{ printf("begin\n"); }} iter:task:{name} /ctx.task.pid == $1/ {{ printf("%s:%d %5d|%-4x|%c|%03u\n", ctx.task.comm, ctx.task.pid, 42, 10, 65, 7); }} END {{ printf("end\n"); }}"#);
    let out = bt(&["-e", &program, &me]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stdout, format!("Attaching 3 probes...\nbegin\nProgram pinned to {path}\nend\n\n\n"), "{}", out.dump());
    let text = std::fs::read_to_string(&path);
    std::fs::remove_file(&path).expect("the pin removed");
    assert_eq!(text.unwrap(), format!("{}:{me}    42|a   |A|007\n", own_comm()));
    // Read again, it runs again; an absolute pin path, and a file's path (d_path) printed.
    let path = format!("/sys/fs/bpf/crumbs-test-files-{me}");
    let held = std::fs::File::open("/proc/self/status").unwrap();
    use std::os::fd::AsRawFd;
    let fd = held.as_raw_fd().to_string();
    let program = format!(r#"it:task_file:{path} /ctx.task.pid == $1 && ctx.fd == $2/ {{ printf("%d %s\n", ctx.fd, path(ctx.file.f_path)); }}"#);
    let out = bt(&["-q", "-e", &program, &me, &fd]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stdout, format!("Program pinned to {path}\n\n\n"), "{}", out.dump());
    let (first, second) = (std::fs::read_to_string(&path), std::fs::read_to_string(&path));
    std::fs::remove_file(&path).expect("the pin removed");
    assert_eq!(first.unwrap(), format!("{fd} /proc/{me}/status\n"));
    assert_eq!(second.unwrap(), format!("{fd} /proc/{me}/status\n"));
    drop(held);
}

/// What a pinned iterator cannot print, as crumbs has exited when it runs: errors at the call.
#[test]
fn a_pinned_iterator_prints_only_what_the_kernel_formats() {
    for (program, message) in [
        ("iter:task:p { print(1); }", "a pinned iterator prints with printf() alone"),
        ("iter:task:p { @n = count(); printf(\"%.3s\\n\", ctx.task.comm); }", "printf() in a pinned iterator: %s: the kernel's bpf_seq_printf takes no precision"),
        ("iter:task:p { printf(\"%s\\n\", ustack); }", "printf() in a pinned iterator: a user stack: the kernel's bpf_seq_printf prints integers"),
        ("iter:task: { printf(\"x\\n\"); }", "iter probe pin file is empty"),
    ] {
        let out = bt(&["-e", program]);
        assert_eq!(out.code(), 1, "{program}: {}", out.dump());
        assert!(out.stderr.contains(message), "{program}: {}", out.dump());
        assert!(out.stderr.contains("Help: "), "{program}: {}", out.dump());
    }
}
