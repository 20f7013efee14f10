//! bpftrace's `reg("name")` and `sargN`: the registers saved where the probe fired (the
//! program's context is a `struct pt_regs` at kprobes, uprobes and perf events), and the
//! arguments a function was passed on the stack, read through its saved stack pointer.

use super::*;
use crate::ir::IntFn;
use crate::providers::Probe;

/// x86-64's `struct pt_regs`, word by word, as bpftrace names the registers (its
/// `arch/x86_64.cpp`): `reg("di")` is word 14.
const REGISTERS: [&str; 21] = ["r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10", "r9", "r8", "ax", "cx", "dx", "si", "di", "orig_ax", "ip", "cs", "flags", "sp", "ss"];

/// The word of `struct pt_regs` a bpftrace register name is.
pub(super) fn register_word(name: &str) -> Option<u8> {
    REGISTERS.iter().position(|r| *r == name).map(|i| i as u8)
}

/// The kind of probe bpftrace would call `p` (its error messages name them so).
pub(super) fn bpftrace_kind(p: &Probe) -> &'static str {
    match p.attach {
        AttachPoint::Begin => "BEGIN",
        AttachPoint::End => "END",
        AttachPoint::Error => "ERROR",
        AttachPoint::SelfSignal => "self",
        AttachPoint::Iter(..) => "iter",
        AttachPoint::Watchpoint { .. } => "watchpoint",
        AttachPoint::SyscallEntry | AttachPoint::SyscallReturn | AttachPoint::Tracepoint(_) => "tracepoint",
        AttachPoint::RawTracepoint(_) => "rawtracepoint",
        AttachPoint::FbtEntry(_) => "kprobe",
        AttachPoint::FbtReturn(_) => "kretprobe",
        AttachPoint::UserEntry(_) if !is_function_probe(p) => "usdt",
        AttachPoint::UserEntry(_) => "uprobe",
        AttachPoint::UserReturn(_) => "uretprobe",
        AttachPoint::Profile { .. } if p.name.starts_with("tick-") => "interval",
        AttachPoint::Profile { .. } => "profile",
        AttachPoint::Perf { event, .. } if crate::providers::perf::PERF_EVENTS.get(event as usize).is_some_and(|e| e.hardware) => "hardware",
        AttachPoint::Perf { .. } => "software",
    }
}

/// Whether a user probe is a function's (`uprobe:`, `pid$target:`), not a USDT probe's.
fn is_function_probe(p: &Probe) -> bool {
    p.provider == "uprobe" || p.provider.strip_prefix("pid").is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
}

impl Checker<'_> {
    /// `reg("name")`: the register where the probe fired, from the probe's own context.
    pub(super) fn register(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let ExprKind::Str(name) = &args[0].kind else {
            return Err(Diagnostic::new(args[0].span.clone(), "reg() expects a string literal")
                .label("not a string literal")
                .hint("name the register in quotes: reg(\"ip\"), reg(\"sp\"), reg(\"di\")"));
        };
        let Some(word) = register_word(&name.value) else {
            let hint = match closest(&name.value, REGISTERS.iter().copied()) {
                Some(c) => format!("did you mean \"{c}\"? x86-64's registers are {}", REGISTERS.join(", ")),
                None => format!("x86-64's registers are {}", REGISTERS.join(", ")),
            };
            return Err(Diagnostic::new(args[0].span.clone(), format!("'{}' is not a valid register on this architecture (x86_64)", name.value)).label("no such register").hint(hint));
        };
        if let Some(p) = self.clause_probes.iter().find(|p| !bpftrace_std::has_registers(p.attach)) {
            return Err(Diagnostic::new(span.clone(), format!("reg can not be used with \"{}\" probes", bpftrace_kind(p)))
                .label("no registers here")
                .hint("reg() reads the registers saved where a kprobe, kretprobe, uprobe, uretprobe, usdt, profile, interval, software or hardware probe fired"));
        }
        Ok(TExpr::new(Expr::IntCall { f: IntFn::ProbeReg(word), args: Vec::new() }, self.c_int("uint64_t")))
    }

    /// `sargN`: the Nth argument passed on the stack, at kprobes and uprobes (not at their
    /// return, nor at USDT probes, as bpftrace).
    pub(super) fn stack_arg(&mut self, name: &str, n: u8, span: &Span) -> Result<TExpr, Diagnostic> {
        let allowed = |p: &Probe| matches!(p.attach, AttachPoint::FbtEntry(_)) || matches!(p.attach, AttachPoint::UserEntry(_)) && is_function_probe(p);
        if let Some(p) = self.clause_probes.iter().find(|p| !allowed(p)) {
            return Err(Diagnostic::new(span.clone(), format!("The {name} builtin can only be used with 'kprobes' and 'uprobes' probes"))
                .label(format!("at a {} probe", bpftrace_kind(p)))
                .hint("sarg0..sarg9 read the stack where a function was entered: use them in kprobe:FUNC or uprobe:PATH:FUNC clauses"));
        }
        Ok(TExpr::new(Expr::IntCall { f: IntFn::StackArg(n), args: Vec::new() }, self.c_int("uint64_t")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::sample::SampleKernel;
    use std::rc::Rc;

    fn compile(src: &str) -> Result<Program, Diagnostic> {
        crate::compile(src, &CheckOptions { facts: Some(Rc::new(SampleKernel)), dialect: Some(crate::dialect::Dialect::Bpftrace), ..Default::default() })
    }

    fn calls(p: &Program) -> Vec<IntFn> {
        let mut out = Vec::new();
        for c in p.groups.iter().flat_map(|g| &g.clauses) {
            c.any(&mut |n| {
                if let Node::Expr(Expr::IntCall { f, .. }) = n {
                    out.push(*f);
                }
                false
            });
        }
        out
    }

    #[test]
    fn registers_are_words_of_pt_regs() {
        assert_eq!([register_word("di"), register_word("ip"), register_word("sp"), register_word("r15")], [Some(14), Some(16), Some(19), Some(0)]);
        assert_eq!(register_word("rdi"), None);
        let p = compile(r#"kprobe:vfs_read { @[reg("di"), reg("flags")] = count(); } kretprobe:vfs_read { @r = reg("ax"); } profile:hz:99 { @ip = reg("ip"); }"#).unwrap();
        // Groups in attach point order: profile's, then the kprobe's and the kretprobe's.
        assert_eq!(calls(&p), [IntFn::ProbeReg(16), IntFn::ProbeReg(14), IntFn::ProbeReg(18), IntFn::ProbeReg(10)]);
    }

    #[test]
    fn stack_arguments_are_words_above_the_return_address() {
        let p = compile("kprobe:vfs_read { @ = sarg0 + sarg9; }").unwrap();
        assert_eq!(calls(&p), [IntFn::StackArg(0), IntFn::StackArg(9)]);
    }

    #[test]
    fn bad_registers_and_probes_are_errors() {
        for (src, message) in [
            (r#"kprobe:vfs_read { @ = reg("rdi"); }"#, "'rdi' is not a valid register on this architecture (x86_64)"),
            (r#"kprobe:vfs_read { $r = "di"; @ = reg($r); }"#, "reg() expects a string literal"),
            (r#"kprobe:vfs_read { @ = reg("di", 1); }"#, "reg() takes 1 argument"),
            (r#"rawtracepoint:sched_switch { @ = reg("ip"); }"#, "reg can not be used with \"rawtracepoint\" probes"),
            (r#"BEGIN { @ = reg("ip"); }"#, "reg can not be used with \"BEGIN\" probes"),
            ("kretprobe:vfs_read { @ = sarg0; }", "The sarg0 builtin can only be used with 'kprobes' and 'uprobes' probes"),
            ("BEGIN { @ = sarg3; }", "The sarg3 builtin can only be used with 'kprobes' and 'uprobes' probes"),
        ] {
            let d = compile(src).unwrap_err();
            assert!(d.message.contains(message), "{src}: {}", d.message);
            assert!(d.hint.is_some(), "{src}");
        }
    }
}
