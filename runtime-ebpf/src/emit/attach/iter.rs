//! bpftrace's `iter:TARGET`: BPF iterator programs (a tracing program loaded against the
//! kernel's `bpf_iter_TARGET`, run by reading the iterator), whose context is the
//! iterator's arguments as an array of u64: its `struct bpf_iter_meta *`, then the object
//! (`task`) and what goes with it (`fd`, `file`; `vma`).

use super::*;
use crumbs_lang::providers::iter::{ITERATORS, ITER_ID_BASE};

pub(super) struct Iter;

fn index(attach: AttachPoint) -> usize {
    match attach {
        AttachPoint::Iter(i, _) => i as usize,
        _ => unreachable!("an iterator context for {attach:?}"),
    }
}

impl ProbeContext for Iter {
    fn section_kind(&self) -> &'static str {
        "iter"
    }

    fn program_name(&self, _: &Program, attach: AttachPoint) -> String {
        format!("crumbs_iter_{}", ITERATORS[index(attach)])
    }

    fn describe(&self, _: AttachPoint) -> &'static str {
        "iter (run once per object when read)"
    }

    /// The iteration's last call has no object (its `task` is NULL): the program does not
    /// run for it, as bpftrace's does not.
    fn prologue(&self, e: &mut Emitter, _: &Group) {
        e.push(Insn::ldx(DW, R0, R6, 8));
        e.push(Insn::jmp_imm(Cond::Ne, R0, 0, 2));
        e.push(Insn::mov_imm(R0, 0));
        e.push(Insn::exit());
    }

    /// Run by reading the iterator, in crumbs itself.
    fn stack_top(&self) -> (u32, bool) {
        (1, false)
    }

    fn probe_id(&self, e: &mut Emitter) -> Result<(), EmitError> {
        e.push(Insn::mov_imm(R0, (ITER_ID_BASE + index(e.attach) as u32) as i32));
        Ok(())
    }

    fn probe_const<'p>(&self, e: &Emitter<'p>, h: VarHook) -> Option<&'p str> {
        Some(match h {
            VarHook::ProbeProv => "iter",
            VarHook::ProbeMod | VarHook::ProbeFunc => "",
            VarHook::ProbeName => ITERATORS[index(e.attach)],
            _ => return None,
        })
    }

    /// Argument n (after the meta pointer) copied out of the context with
    /// bpf_probe_read_kernel, so that a pointer is a number the program may compute with (a
    /// load would type it as the kernel object it points to). Past the last, the read fails
    /// and leaves 0.
    fn arg(&self, e: &mut Emitter, n: u8) -> Result<(), EmitError> {
        let off = 8 * (n as i32 + 1);
        if off >= 32 {
            e.push(Insn::mov_imm(R0, 0));
            return Ok(());
        }
        e.scoped(|e| {
            let tmp = e.slot(8)?;
            e.push(Insn::st_imm(DW, R10, tmp, 0));
            e.read_kernel(tmp, R6, off, 8);
            e.push(Insn::ldx(DW, R0, R10, tmp));
            Ok(())
        })
    }

    /// The context's pointers are the kernel's objects (PTR_TO_BTF_ID), loaded as they are
    /// for path()'s bpf_d_path(); one may be NULL, which the verifier wants checked first (a
    /// NULL one faults the clause, as a bad address).
    fn trusted_arg(&self, e: &mut Emitter, reg: Reg, n: u8) -> Result<(), EmitError> {
        e.push(Insn::ldx(DW, reg, R6, 8 * (n as i16 + 1)));
        e.fault_unless(Cond::Ne, reg, 0, crumbs_lang::ir::Fault::BadAddr, crate::emit::FaultValue::Zero)
    }
}
