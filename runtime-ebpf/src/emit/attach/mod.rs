//! One file per kind of attach point: how its programs are sectioned in the ELF and how the
//! probe's context reads (its id, its constant names, `argN`, `errno`). The rest of the code
//! generator asks [`context`] and never matches on the attach point itself.

use super::{EmitError, Emitter};
use crate::insn::*;
use crumbs_lang::builtins::VarHook;
use crumbs_lang::ir::{Group, Program};
use crumbs_lang::providers::AttachPoint;

mod dtrace;
mod fentry;
mod iter;
mod kprobe;
mod profile;
mod pt_regs;
mod rawtracepoint;
mod syscall;
mod tracepoint;
mod uprobe;

pub(crate) trait ProbeContext {
    /// The ELF section prefix that tells aya the program type (`raw_tp`, `perf_event`, ...).
    fn section_kind(&self) -> &'static str {
        "raw_tp"
    }

    /// The program's name in the ELF (and the kernel).
    fn program_name(&self, p: &Program, attach: AttachPoint) -> String;

    /// What the program attaches to, for `--dump-bpf`.
    fn describe(&self, attach: AttachPoint) -> &'static str;

    /// Code after `r6 = ctx`, before the first clause.
    fn prologue(&self, _e: &mut Emitter, _group: &Group) {}

    /// The DTrace probe id of the firing probe, into r0.
    fn probe_id(&self, e: &mut Emitter) -> Result<(), EmitError>;

    /// probeprov/probemod/probefunc/probename when they are the same for every firing.
    fn probe_const<'p>(&self, e: &Emitter<'p>, h: VarHook) -> Option<&'p str>;

    /// The interned id of probefunc into r0 when it varies per firing; false if it does not.
    fn probe_func_id(&self, _e: &mut Emitter) -> bool {
        false
    }

    /// `argN` into r0 (0 where the probe has no such argument).
    fn arg(&self, e: &mut Emitter, _n: u8) -> Result<(), EmitError> {
        e.push(Insn::mov_imm(R0, 0));
        Ok(())
    }

    /// How a kernel stack taken in the program begins: with how many frames of the program
    /// itself, and whether the frames of the tracepoint hooks that ran it follow (a raw
    /// tracepoint program's stack is taken inside it; a perf event's starts where the event
    /// fired).
    fn stack_top(&self) -> (u32, bool) {
        (1, true)
    }

    /// bpftrace's `reg()`: word `word` of the registers saved where the probe fired, into
    /// r0; only a context that is a `struct pt_regs` has them (the checker allows reg() at
    /// those alone, but an fbt probe's context depends on how it attaches).
    fn register(&self, e: &mut Emitter, _word: u8) -> Result<(), EmitError> {
        Err(e.err("reg() reads the registers saved where the probe fired, and this probe's program has none"))
    }

    /// bpftrace's `sargN`: the function's Nth argument passed on the stack, into r0.
    fn stack_arg(&self, e: &mut Emitter, _n: u8) -> Result<(), EmitError> {
        Err(e.err("sargN reads the stack through the registers saved where the probe fired, and this probe's program has none"))
    }

    /// bpftrace's `override(rc)`, rc in r0: the probed function returns it without running.
    /// Only a kprobe of its own on a function's entry can (the checker allows override() at
    /// fbt entry probes alone, and they attach as kprobes for it).
    fn override_return(&self, e: &mut Emitter) -> Result<(), EmitError> {
        Err(e.err("override() makes a kernel function return at once, which only a kprobe of its own on the function's entry can do: -x fbtmode=kprobe attaches those"))
    }

    /// bpftrace's `path()`: argument `n` of the probed function into `reg` as the pointer
    /// the verifier trusts (PTR_TO_BTF_ID), which only a trampoline's context holds; the
    /// kernel allows bpf_d_path() only there (the checker allows path() at fbt probes alone,
    /// and they attach as fentry for it).
    fn trusted_arg(&self, e: &mut Emitter, _reg: Reg, _n: u8) -> Result<(), EmitError> {
        Err(e.err("path() (the kernel's bpf_d_path()) and a function's arguments at its return are read only in fentry/fexit programs: -x fbtmode=fentry attaches fbt probes as those"))
    }

    /// The address of the kernel function the probe fired in, into r0 (bpftrace's `func`
    /// at fbt probes; the checker allows it there alone).
    fn function_address(&self, e: &mut Emitter) -> Result<(), EmitError> {
        Err(e.err("the address of the function a probe fired in (bpftrace's func) is known only at kernel function probes"))
    }

    /// `errno` into r0 (0 except where a failed system call returns).
    fn errno(&self, e: &mut Emitter) {
        e.push(Insn::mov_imm(R0, 0));
    }
}

/// The context of a program for `attach`, one for many functions (`multi`: kprobe.multi)
/// or not, a BPF trampoline's (`fentry`) or not.
pub(crate) fn context_for(attach: AttachPoint, multi: bool, fentry: bool) -> &'static dyn ProbeContext {
    match attach {
        AttachPoint::FbtEntry(_) if fentry => &fentry::FENTRY,
        AttachPoint::FbtReturn(_) if fentry => &fentry::FEXIT,
        AttachPoint::FbtEntry(_) if multi => &kprobe::MULTI_ENTRY,
        AttachPoint::FbtReturn(_) if multi => &kprobe::MULTI_RETURN,
        _ => context(attach),
    }
}

/// The context of a compiled program.
pub(crate) fn context_of(code: &crate::abi::ProgramCode) -> &'static dyn ProbeContext {
    context_for(code.attach, !code.functions.is_empty(), code.fentry)
}

/// The context of an attach point: the one place that maps attach points to their files.
pub(crate) fn context(attach: AttachPoint) -> &'static dyn ProbeContext {
    match attach {
        AttachPoint::Begin | AttachPoint::End | AttachPoint::Error | AttachPoint::SelfSignal => &dtrace::Dtrace,
        AttachPoint::SyscallEntry | AttachPoint::SyscallReturn => &syscall::Syscall,
        AttachPoint::Profile { .. } | AttachPoint::Perf { .. } | AttachPoint::Watchpoint { .. } => &profile::Profile,
        AttachPoint::Tracepoint(_) => &tracepoint::Tracepoint,
        AttachPoint::FbtEntry(_) => &kprobe::ENTRY,
        AttachPoint::FbtReturn(_) => &kprobe::RETURN,
        AttachPoint::UserEntry(_) => &uprobe::ENTRY,
        AttachPoint::UserReturn(_) => &uprobe::RETURN,
        AttachPoint::RawTracepoint(_) => &rawtracepoint::RawTracepoint,
        AttachPoint::Iter(..) => &iter::Iter,
    }
}
