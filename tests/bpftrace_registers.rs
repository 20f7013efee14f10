//! bpftrace's reg("name") and sargN at uprobes and perf events, run for real (the host has
//! no kprobes: tests/guest/tests.sh has them at kprobes). Each expected output was checked
//! against bpftrace 0.17 running the same program on the same binary.

mod common;

use common::{compiled_c, run, TempPath};

/// A function of nine arguments: the first six in registers (di, si, dx, cx, r8, r9), the
/// last three on the stack, above the return address. main calls it three times.
const MANY: &str = r#"
__attribute__((noinline)) long many(long a, long b, long c, long d, long e, long f, long g, long h, long i) { return a + b + c + d + e + f + g + h + i; }
int main(void) { long t = 0; for (long k = 0; k < 3; k++) t += many(100 + k, 2, 3, 4, 5, 6, 700 + k, 800 + k, 900 + k); return t == 0; }
"#;

#[test]
fn registers_and_stack_arguments_at_a_uprobe() {
    let dir = TempPath::dir("btkfn-regs");
    let exe = compiled_c(&dir, "many", MANY, &[]);
    let program = format!(r#"uprobe:{exe}:many {{ printf("%d %d %d %d %d %d %d\n", reg("di"), reg("si"), reg("r9"), sarg0, sarg1, sarg2, reg("sp") == reg("sp") && reg("ip") != 0); }}"#);
    let out = run(&["-e", &program, "-c", &exe]);
    out.assert_ok();
    assert_eq!(out.stdout, "Attaching 1 probe...\n100 2 6 700 800 900 1\n101 2 6 701 801 901 1\n102 2 6 702 802 902 1\n\n\n", "{}", out.dump());
}

/// reg("ax") where the function returns is its return value; a word past the arguments
/// is what the caller left there (not asserted), read without a fault.
#[test]
fn the_return_register_at_a_uretprobe() {
    let dir = TempPath::dir("btkfn-ret");
    let exe = compiled_c(&dir, "many", MANY, &[]);
    let program = format!(r#"uretprobe:{exe}:many {{ printf("%d\n", reg("ax")); }} uprobe:{exe}:many {{ @far = sarg9 + 1; }}"#);
    let out = run(&["-q", "-e", &program, "-c", &exe]);
    out.assert_ok();
    assert!(out.stdout.starts_with("2520\n2524\n2528\n"), "{}", out.dump());
}

/// At a perf event the registers are those it interrupted: a kernel's (cs's privilege
/// level 0) or the user's (3); ip is never 0.
#[test]
fn interrupted_registers_at_a_perf_event() {
    let out = run(&["-q", "-e", r#"profile:hz:99 { printf("%d %d\n", reg("ip") != 0, (reg("cs") & 3) == 0 || (reg("cs") & 3) == 3); exit(); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "1 1\n\n\n", "{}", out.dump());
}

/// What cannot be read says so, in bpftrace's words, with exit status 2.
#[test]
fn registers_where_there_are_none_are_errors() {
    for (program, message) in [
        (r#"tracepoint:syscalls:sys_enter_read { @ = reg("ip"); }"#, r#"reg can not be used with "tracepoint" probes"#),
        (r#"BEGIN { @ = reg("ip"); }"#, r#"reg can not be used with "BEGIN" probes"#),
        (r#"profile:hz:99 { @ = reg("eax"); }"#, "'eax' is not a valid register on this architecture (x86_64)"),
        (r#"profile:hz:99 { $n = "ip"; @ = reg($n); }"#, "reg() expects a string literal"),
        ("profile:hz:99 { @ = sarg0; }", "The sarg0 builtin can only be used with 'kprobes' and 'uprobes' probes"),
        ("tracepoint:syscalls:sys_enter_read { @ = sarg1; }", "The sarg1 builtin can only be used with 'kprobes' and 'uprobes' probes"),
    ] {
        let out = run(&["--dialect", "bpftrace", "-e", program]);
        assert_eq!(out.status.code(), Some(2), "{}", out.dump());
        assert!(out.stderr.contains(message), "{}", out.dump());
    }
}
