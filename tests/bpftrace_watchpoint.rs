//! bpftrace's `watchpoint:ADDRESS:LENGTH:MODE` (spec §13.16): a hardware breakpoint on every
//! CPU, here on a global of a small program built without PIE (its address fixed, from nm).

mod common;

use common::TempPath;

const WRITER: &str = r#"
#include <unistd.h>
volatile long counter;
int main(void) { usleep(200000); for (int i = 0; i < 5; i++) { counter++; usleep(10000); } return 0; }
"#;

fn bt(args: &[&str]) -> common::Output {
    common::bpftrace_dropin(args, None, &[])
}

#[test]
fn a_write_watchpoint_fires_at_each_write() {
    let dir = TempPath::dir("watchpoint");
    let exe = common::compiled_c(&dir, "wpwriter", WRITER, &["-O0", "-no-pie"]);
    let nm = std::process::Command::new("nm").arg(&exe).output().unwrap();
    let nm = String::from_utf8_lossy(&nm.stdout);
    let addr = nm.lines().find_map(|l| l.strip_suffix(" B counter")).expect("counter in nm's output");
    let addr = u64::from_str_radix(addr, 16).unwrap();
    // Writes from main, the program's own; the kernel clearing .bss at exec writes there
    // too (from kernel code).
    let program = format!(r#"watchpoint:{addr:#x}:8:w /comm == "wpwriter"/ {{ @[usym(reg("ip"))] = count(); @p[probe] = count(); }}"#);
    let out = bt(&["-c", &exe, "-e", &program]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert!(out.stdout.lines().any(|l| l == "@[main]: 5"), "{}", out.dump());
    assert!(out.stdout.lines().any(|l| l.starts_with(&format!("@p[watchpoint:{addr:#x}:8:w]: "))), "{}", out.dump());
}

#[test]
fn watchpoint_forms_are_checked_in_bpftraces_words() {
    for (probe, message) in [
        ("w:0x1000:3:w", "watchpoint length must be one of (1,2,4,8)"),
        ("w:0x1000:8:r", "invalid watchpoint mode: r"),
        ("w:0x1000:8:ww", "watchpoint modes may not be duplicated"),
        ("w:0x1000:8:q", "watchpoint mode must be combination of (r,w,x)"),
        ("w:0:8:w", "watchpoint must be attached to a non-zero address"),
        ("watchpoint:0x1000:8", "watchpoint probe type requires 3 arguments"),
    ] {
        let out = bt(&["-e", &format!("{probe} {{ }}")]);
        assert_eq!(out.code(), 1, "{probe}: {}", out.dump());
        assert!(out.stderr.contains(message), "{probe}: {}", out.dump());
    }
}

#[test]
fn dropped_watchpoint_forms_say_current_bpftrace_dropped_them() {
    for (probe, message) in [
        ("asyncwatchpoint:increment+arg1:4:w", "Invalid probe type: asyncwatchpoint: current bpftrace dropped asyncwatchpoint and watchpoints on a function's argument"),
        ("aw:0x1000:8:w", "Invalid probe type: asyncwatchpoint: current bpftrace dropped asyncwatchpoint and watchpoints on a function's argument"),
        ("watchpoint:increment+arg1:4:w", "Invalid function/address argument: increment+arg1: current bpftrace dropped asyncwatchpoint and watchpoints on a function's argument"),
    ] {
        let out = bt(&["-e", &format!("{probe} {{ }}")]);
        assert_eq!(out.code(), 1, "{probe}: {}", out.dump());
        assert!(out.stderr.contains(message), "{probe}: {}", out.dump());
        assert!(out.stderr.contains("watch an address: watchpoint:ADDRESS:LENGTH:MODE"), "{probe}: {}", out.dump());
    }
    // A name that is not FUNC+argN keeps bpftrace's plain error.
    let out = bt(&["-e", "watchpoint:increment:4:w { }"]);
    assert!(out.stderr.contains("Invalid function/address argument: increment"), "{}", out.dump());
    assert!(!out.stderr.contains("dropped"), "{}", out.dump());
}
