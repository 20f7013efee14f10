//! Facts about the running system that code generation needs (see `crumbs_ebpf::abi::Target`).

use crumbs_ebpf::abi::Target;
use crumbs_lang::builtins::VarHook;
use crumbs_lang::ir::{Expr, FbtMode, IntFn, Node, Program, StrExpr, StrFn};

fn clock(id: libc::clockid_t) -> i64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid timespec.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

/// CLOCK_REALTIME - CLOCK_MONOTONIC: added to bpf_ktime_get_ns() for walltimestamp (and
/// pcap()'s capture times).
pub(crate) fn wall_offset() -> i64 {
    clock(libc::CLOCK_REALTIME) - clock(libc::CLOCK_MONOTONIC)
}

/// CLOCK_TAI - CLOCK_BOOTTIME: added to bpf_ktime_get_boot_ns() for bpftrace's
/// nsecs(sw_tai), as bpftrace reads it.
fn tai_offset() -> i64 {
    clock(libc::CLOCK_TAI) - clock(libc::CLOCK_BOOTTIME)
}

/// Whether the program walks task_structs: ppid, progenyof().
fn uses_ppid(p: &Program) -> bool {
    p.groups.iter().flat_map(|g| &g.clauses).any(|c| c.any(&mut |n| matches!(n, Node::Expr(Expr::Var(VarHook::Ppid) | Expr::IntCall { f: IntFn::Progenyof, .. }))))
}

/// Offsets of task_struct.real_parent and task_struct.tgid, from kernel BTF.
fn task_offsets() -> Option<(i32, i32)> {
    let parent = super::btf::member_offset("task_struct", "real_parent")?;
    let tgid = super::btf::member_offset("task_struct", "tgid")?;
    Some((parent as i32, tgid as i32))
}

/// Whether the program loops over strings (index(), rindex(), strstr(), strchr(),
/// strrchr(), strtok()): those loops run on the kernel's numeric iterator where it has one.
fn loops_over_strings(p: &Program) -> bool {
    p.groups.iter().flat_map(|g| &g.clauses).any(|c| {
        c.any(&mut |n| {
            matches!(n, Node::Expr(Expr::IntCall { f: IntFn::Index | IntFn::Rindex, .. }))
                || matches!(n, Node::Str(StrExpr::Call { f: StrFn::Strstr | StrFn::Strchr | StrFn::Strrchr | StrFn::Strtok | StrFn::StrtokNext | StrFn::Cleanpath, .. }))
        })
    })
}

/// The BTF ids of bpf_iter_num_new, _next and _destroy in this kernel.
pub fn iter_num() -> Option<[u32; 3]> {
    let id = |f: &str| super::btf::func_id(&format!("bpf_iter_num_{f}"));
    Some([id("new")?, id("next")?, id("destroy")?])
}

/// Whether the program reads another task's name (bpftrace's comm(pid)).
fn uses_comm_of_pid(p: &Program) -> bool {
    p.groups.iter().flat_map(|g| &g.clauses).any(|c| c.any(&mut |n| matches!(n, Node::Str(StrExpr::Call { f: StrFn::CommOfPid { .. }, .. }))))
}

/// The BTF ids of bpf_task_from_pid and bpf_task_release, and where task_struct's comm is.
fn task_from_pid() -> Option<crumbs_ebpf::abi::TaskFromPid> {
    Some(crumbs_ebpf::abi::TaskFromPid {
        from_pid: super::btf::func_id("bpf_task_from_pid")?,
        release: super::btf::func_id("bpf_task_release")?,
        comm_offset: i16::try_from(super::btf::member_offset("task_struct", "comm")?).ok()?,
    })
}

/// The BTF ids of the per-CPU variables the program names in percpu_kaddr().
fn percpu_vars(p: &Program) -> Vec<(String, u32)> {
    let mut names = Vec::new();
    for c in p.groups.iter().flat_map(|g| &g.clauses) {
        c.any(&mut |n| {
            if let Node::Expr(Expr::IntCall { f: IntFn::PercpuKaddr(id), .. }) = n {
                names.push(p.strings.resolve(*id));
            }
            false
        });
    }
    names.sort();
    names.dedup();
    names.into_iter().filter_map(|n| Some((n.clone(), super::btf::var_id(&n)?))).collect()
}

/// Whether the program computes `caller` or `stackdepth` of the kernel stack.
fn uses_kernel_stack_values(p: &Program) -> bool {
    p.groups.iter().flat_map(|g| &g.clauses).any(|c| c.any(&mut |n| matches!(n, Node::Expr(Expr::Var(VarHook::Caller { user: false } | VarHook::StackDepth { user: false } | VarHook::StackLen { user: false, .. })))))
}

/// Where the hooks that run the program's tracepoint programs are in the kernel (see
/// `Target::tracing_frames`), from /proc/kallsyms.
fn tracing_frames(p: &Program) -> Vec<(u64, u64)> {
    let mut events: Vec<&str> = Vec::new();
    if p.groups.iter().any(|g| g.attach.is_syscall()) || p.tracepoints.iter().any(|t| t.category == "syscalls") {
        // The syscalls category's events hang off raw_syscalls' tracepoints.
        events.extend(["sys_enter", "sys_exit"]);
    }
    events.extend(p.tracepoints.iter().map(|t| t.event.as_str()));
    // Only tracepoint and system call programs run through these hooks.
    if events.is_empty() {
        return Vec::new();
    }
    let hooks: Vec<String> = events.iter().flat_map(|e| [format!("__bpf_trace_{e}"), format!("__traceiter_{e}")]).collect();
    let text = std::fs::read_to_string("/proc/kallsyms").unwrap_or_default();
    crate::stacks::Kallsyms::extents(&text, |name| name.starts_with("bpf_trace_run") || hooks.iter().any(|h| h == name))
}

/// What the code generator needs to know of this machine for `program`; BTF is read only
/// when the program uses ppid or progenyof(), /proc/kallsyms when it uses caller or
/// stackdepth.
pub fn codegen_target(program: &Program) -> Target {
    let fbt = fbt_mode(program);
    Target {
        wall_offset: wall_offset(),
        tai_offset: tai_offset(),
        task_offsets: if uses_ppid(program) { task_offsets() } else { None },
        cpus: super::cpus::possible() as u32,
        iter_num: if loops_over_strings(program) { iter_num() } else { None },
        task_from_pid: if uses_comm_of_pid(program) { task_from_pid() } else { None },
        percpu_vars: percpu_vars(program),
        tracing_frames: if uses_kernel_stack_values(program) { tracing_frames(program) } else { Vec::new() },
        fbt_multi: fbt == Some(FbtMode::Multi),
        fbt_fentry: fbt == Some(FbtMode::Fentry),
        // Chosen by the output, not the kernel (driver::compile sets it).
        record_meta: false,
    }
}

/// The most functions fentry is chosen for where kprobe.multi is missing: each trampoline
/// takes several times a kprobe's time to attach (Debian's 6.1 under qemu: 287 functions
/// 42.6 s against 10.4 s, one 1.2 s against 0.8 s), but it costs about half per call
/// (vfs_read: 250 against 459 ns at entry, 389 against 1096 at return).
const FENTRY_AUTO_MAX: usize = 8;

/// How the program's fbt probes attach (None: it has none): as `-x fbtmode` says, else
/// with kprobe.multi links wherever the kernel has them (one program and one link for a
/// set of functions: under qemu, 317 functions attached and detached in 1.1 s, against
/// 12.9 s as kprobes and 55 s as fentry, and about a kprobe's cost per call), else fentry
/// for a few functions where the kernel runs it (and the program does not read the
/// registers), else kprobes
/// (tests/guest/bench.sh measures them).
fn fbt_mode(program: &Program) -> Option<FbtMode> {
    if program.functions.is_empty() {
        return None;
    }
    let needs = program.fbt_needs();
    Some(match program.options.fbtmode {
        // A probe inside a function (kprobe:vfs_read+4) is a kprobe's: the program's fbt
        // probes all attach so, whatever fbtmode says.
        _ if needs.offsets => FbtMode::Kprobe,
        Some(mode) => mode,
        // bpf_d_path() (path()) and arguments at a return are only in a trampoline's program.
        None if needs.trampoline => FbtMode::Fentry,
        // bpf_override_return() needs a kprobe of its own.
        None if needs.override_return => FbtMode::Kprobe,
        None if crate::attach::kprobe_multi::supported().is_ok() => FbtMode::Multi,
        // reg() and sargN read the registers a kprobe saves and a trampoline does not.
        None if needs.registers => FbtMode::Kprobe,
        // fentry reaches functions with a BTF prototype of their name (not a compiler's
        // copy, finish_task_switch.isra.0).
        None if program.functions.len() <= FENTRY_AUTO_MAX && program.functions.iter().all(|f| !f.name.contains('.')) && crate::attach::fentry::supported().is_ok() => FbtMode::Fentry,
        None => FbtMode::Kprobe,
    })
}
