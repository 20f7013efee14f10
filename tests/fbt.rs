//! Host tests of the fbt provider (spec §6.6). This host's kernel has no kprobes: fbt
//! programs are matched, listed, compiled and verified here, and running one fails with a
//! clear error; they fire in the guest lane (tests/guest/tests.sh, test_crumbs_fbt*).

mod common;

use common::run;
use crumbs_runtime::driver::{self, CompileOptions};
use crumbs_runtime::kernel::LiveKernel;
use std::path::Path;

fn kprobes_here() -> bool {
    Path::new("/sys/bus/event_source/devices/kprobe/type").exists() || Path::new("/sys/kernel/tracing/kprobe_events").exists()
}

/// Without kprobes, an fbt program says why it cannot run, exits with 2, and runs nothing
/// (BEGIN's output would show it did).
#[test]
fn no_kprobes_is_a_clear_error() {
    if kprobes_here() {
        eprintln!("skipped: this kernel has kprobes");
        return;
    }
    let out = run(&["-e", r#"BEGIN { printf("began\n"); } fbt::vfs_read:entry { @ = count(); }"#]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("fbt probes need kprobes, and this kernel has none"), "{}", out.dump());
    assert!(!out.stderr.contains("does not match"), "{}", out.dump());
    assert!(!out.stdout.contains("began"), "{}", out.dump());
    // bpftrace's spelling reaches the same probes, and the same error.
    let out = run(&["-e", "kretprobe:vfs_read { @ = sum(arg1); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("need kprobes"), "{}", out.dump());
}

/// fbt programs pass the verifier (as kprobe programs), with typed struct chains, the
/// return value, stack arguments and latency: loading needs no kprobes.
#[test]
fn fbt_programs_verify() {
    let text = r#"
        fbt::vfs_read:entry { self->ts = timestamp; @files[stringof(args[0]->f_path.dentry->d_name.name)] = count(); @[arg6] = count(); }
        fbt::vfs_read:return /self->ts/ { @lat = quantize(timestamp - self->ts); @bytes = sum(args[1]); self->ts = 0; }
        fbt::vfs_write*:entry { @calls[probefunc, probename] = count(); printf("%s %d\n", probemod, arg1); stack(); }
    "#;
    let compiled = driver::compile(text, &CompileOptions::default(), &LiveKernel).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(compiled.program.functions.len() >= 2, "{:?}", compiled.program.functions);
    crumbs_runtime::verify::load_only(&compiled.program, &compiled.code).unwrap_or_else(|e| panic!("{e:?}"));
}

/// kprobe.multi programs, which crumbs loads itself (their map references and D globals
/// resolved to the maps aya made), pass the verifier here although this kernel cannot link
/// them; one program serves both functions.
#[test]
fn kprobe_multi_programs_verify() {
    let text = r#"#pragma D option fbtmode=multi
        fbt::vfs_read:entry, fbt::vfs_write:entry { n++; self->ts = timestamp; @[probefunc, probename, id] = count(); }
        fbt::vfs_read:return /self->ts/ { @lat[probefunc] = quantize(timestamp - self->ts); @bytes = sum(arg1); self->ts = 0; }
    "#;
    let compiled = driver::compile(text, &CompileOptions::default(), &LiveKernel).unwrap_or_else(|e| panic!("{e:?}"));
    let sets: Vec<&[u16]> = compiled.code.programs.iter().map(|c| &c.functions[..]).collect();
    assert_eq!(sets, [&[0, 1][..], &[0][..]]);
    crumbs_runtime::verify::load_only(&compiled.program, &compiled.code).unwrap_or_else(|e| panic!("{e:?}"));
}

/// Forcing an attach mode this kernel lacks says which and why, exits with 2, and runs
/// nothing; an unknown mode is refused.
#[test]
fn forced_modes_this_kernel_lacks_are_clear_errors() {
    if kprobes_here() {
        eprintln!("skipped: this kernel has kprobes");
        return;
    }
    let program = r#"BEGIN { printf("began\n"); } fbt::vfs_read:entry { @ = count(); }"#;
    for (mode, says) in [("multi", "fbt probes with -x fbtmode=multi need kprobe.multi links, and the kernel refused"), ("fentry", "fbt probes with -x fbtmode=fentry need fentry/fexit programs, and the kernel refused")] {
        let out = run(&["-x", &format!("fbtmode={mode}"), "-e", program]);
        assert_eq!(out.code(), 2, "{}", out.dump());
        assert!(out.stderr.contains(says), "{}", out.dump());
        assert!(!out.stdout.contains("began"), "{}", out.dump());
    }
    let out = run(&["-x", "fbtmode=fast", "-e", program]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("option `fbtmode` is `kprobe`, `multi` or `fentry`, got `fast`"), "{}", out.dump());
}

#[test]
fn listing_with_globs_and_types() {
    let out = run(&["-l", "-e", "fbt::vfs_read:"]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let rows: Vec<Vec<&str>> = out.stdout.lines().skip(1).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows, [["131072", "fbt", "vmlinux", "vfs_read", "entry"], ["131073", "fbt", "vmlinux", "vfs_read", "return"]], "{}", out.dump());
    let out = run(&["-l", "-e", "fbt::vfs_*:entry"]);
    assert!(out.stdout.lines().count() > 10, "{}", out.dump());
    assert!(out.stdout.lines().skip(1).all(|l| l.contains(" vfs_") && l.ends_with(" entry")), "{}", out.dump());
    let out = run(&["-lv", "-e", "kprobe:vfs_read, kretprobe:vfs_read"]);
    // Entry arguments by name too (args->file, bpftrace's args.file).
    assert!(out.stdout.contains("args[0]: struct file * (args->file)\n") && out.stdout.contains("args[2]: size_t (args->count)\n"), "{}", out.dump());
    assert!(out.stdout.contains("args[1]: ssize_t\n"), "{}", out.dump());
    let out = run(&["-l", "-e", "fbt::vfs_raed:entry"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("did you mean `vfs_read`?"), "{}", out.dump());
}
