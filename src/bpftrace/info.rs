//! `bpftrace --info`: what this kernel offers crumbs, in bpftrace's sections (System, Build,
//! Kernel features, Probe types). Only what can be told without loading a program is
//! said: whether each kind of probe has its kernel interface (a PMU, tracefs, BTF). Where a
//! feature is only known by trying (fentry, kprobe.multi), crumbs tries when a program
//! needs it and falls back or says why, so this report says so instead of guessing.

use std::path::Path;

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// The report, as bpftrace prints it on standard error.
pub fn report() -> String {
    // SAFETY: uname only fills the struct it is given.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    let (release, version, machine) = if unsafe { libc::uname(&mut u) } == 0 {
        // SAFETY: uname's fields are NUL-terminated.
        let field = |f: &[libc::c_char]| unsafe { std::ffi::CStr::from_ptr(f.as_ptr()) }.to_string_lossy().into_owned();
        (field(&u.release), field(&u.version), field(&u.machine))
    } else {
        Default::default()
    };
    let exists = |p: &str| Path::new(p).exists();
    let tracefs = exists("/sys/kernel/tracing/events") || exists("/sys/kernel/debug/tracing/events");
    let kprobe = exists("/sys/bus/event_source/devices/kprobe") || exists("/sys/kernel/tracing/kprobe_events");
    let uprobe = exists("/sys/bus/event_source/devices/uprobe") || exists("/sys/kernel/tracing/uprobe_events");
    let btf = exists("/sys/kernel/btf/vmlinux");
    let perf = exists("/proc/sys/kernel/perf_event_paranoid");
    format!(
        "System\n  OS: Linux {release} {version}\n  Arch: {machine}\n\n\
         Build\n  version: {}\n  LLVM: none (crumbs emits BPF itself)\n\n\
         Kernel features\n  btf: {}\n  tracefs: {}\n  fentry (kfunc): tried when a program needs it\n  kprobe_multi: tried when a program needs it\n\n\
         Probe types\n  kprobe: {}\n  tracepoint: {}\n  rawtracepoint: {}\n  uprobe: {}\n  usdt: {}\n  perf_event: {}\n",
        super::VERSION,
        yes(btf),
        yes(tracefs),
        yes(kprobe),
        yes(tracefs),
        yes(btf),
        yes(uprobe),
        yes(uprobe),
        yes(perf),
    )
}
