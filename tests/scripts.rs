//! Every ready-to-run script in scripts/ (subdirectories included) compiles (to BPF) with
//! the current crumbs and this machine's kernel (its BTF types and functions).

mod common;

use common::{run, scripts};

#[test]
fn every_script_compiles() {
    let all = scripts::all();
    assert!(all.len() >= 7, "{all:?}");
    for s in all {
        let mut argv = vec!["--dump-bpf", "-c", "true", "-s", s.to_str().unwrap()];
        argv.extend(scripts::args(&s));
        let out = run(&argv);
        assert_eq!(out.code(), 0, "{}: {}", s.display(), out.dump());
        assert!(out.stdout.contains("instructions:"), "{}", out.dump());
    }
}

/// The ML-storage scripts (scripts/ml-storage/, bpftrace's trace_vfs_rw.bt and
/// trace_open.bt in D) compile in every fbt attach mode against this kernel's BTF (this host
/// cannot attach fbt probes: the guest lane runs them, tests/guest/tests.sh), to an entry
/// and a return program per function; without the process name they are a diagnostic at
/// the `$$1`, status 2.
#[test]
fn ml_storage_scripts_compile_in_every_fbt_mode() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/ml-storage");
    let vfs_rw = dir.join("vfs_rw.d");
    let open = dir.join("open.d");
    for (mode, entry, ret) in [("kprobe", "(kprobe)", "(kretprobe)"), ("fentry", "(fentry)", "(fexit)"), ("multi", "(kprobe.multi)", "(kretprobe.multi)")] {
        let opt = format!("fbtmode={mode}");
        for (script, functions) in [(&vfs_rw, 2), (&open, 1)] {
            let out = run(&["--dump-bpf", "-x", &opt, "-s", script.to_str().unwrap(), "io-benchmark"]);
            assert_eq!(out.code(), 0, "{}", out.dump());
            let programs: Vec<&str> = out.stdout.lines().filter(|l| l.contains(" instructions:")).collect();
            let count = |kind: &str| programs.iter().filter(|l| l.contains(&format!(" {kind}, "))).count();
            assert_eq!((count(entry), count(ret)), (functions, functions), "fbtmode={mode}: {programs:?}\n{}", out.dump());
        }
    }
    // openat's entry and return are system call programs.
    let out = run(&["--dump-bpf", "-s", open.to_str().unwrap(), "io-benchmark"]);
    assert!(out.stdout.contains("(raw_tracepoint:sys_enter)") && out.stdout.contains("(raw_tracepoint:sys_exit)"), "{}", out.dump());
    for script in [&vfs_rw, &open] {
        let out = run(&["--dump-bpf", "-s", script.to_str().unwrap()]);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains("macro argument `$$1` is not given") && out.stderr.contains("/execname == $$1/"), "{}", out.dump());
    }
}
