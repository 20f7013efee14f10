//! Loops the verifier can follow. A loop on the kernel's numeric iterator (the kfuncs
//! bpf_iter_num_new, _next and _destroy) is walked until its states repeat, once or twice,
//! however many steps it takes: what a long body needs (a search comparing a whole string
//! at each place), and many loops over large strings, whose steps would add up to more than
//! the verifier's million. A loop written with a counter is walked step by step: crumbs
//! writes that where the kernel has no iterator, and for loops of a few steps; its ways out
//! must not pile up ([`Emitter::exit_if`]).

use super::*;

impl Emitter<'_> {
    /// A loop's way out: to `to` if `insn`'s condition holds. Written as a jump on the
    /// opposite condition back into the loop over a jump out, so that the verifier, which
    /// follows a branch's fall-through first and keeps the jump's target for later, walks
    /// each way out to its end before the next step of the loop: otherwise every step would
    /// leave its ways out waiting, and a few loops of a few hundred steps overflow the 8192
    /// branches it keeps.
    pub(super) fn exit_if(&mut self, insn: Insn, to: Label) {
        let mut stay = insn.inverted();
        stay.off = 1;
        self.push(stay);
        self.goto(to);
    }

    /// `for i in 0..count { body }`: on the numeric iterator where the kernel has it (its
    /// kfunc ids are in the target), else counted. `body` starts with i (known to be below
    /// `count`) in r1, leaves the
    /// loop by jumping to `out`, and falls through at its end to the next step (so its last
    /// instruction must be reachable: the verifier refuses unreachable code). What it
    /// carries from one step to the next must be in the scratch space, which the verifier
    /// does not follow, or the iterator's states never repeat. Its branches should take the
    /// way on through the loop and fall through to the ways out ([`Emitter::exit_if`]), or
    /// a counted loop's steps leave too many branches waiting.
    pub(super) fn for_each(&mut self, count: i32, body: impl FnOnce(&mut Self, Label) -> Result<(), EmitError>) -> Result<(), EmitError> {
        match self.target.iter_num {
            Some(ids) => self.iterate(ids, count, body),
            None => self.counted(count, body),
        }
    }

    /// The loop on the numeric iterator (the kfuncs bpf_iter_num_new, _next, _destroy).
    fn iterate(&mut self, [new, next, destroy]: [u32; 3], count: i32, body: impl FnOnce(&mut Self, Label) -> Result<(), EmitError>) -> Result<(), EmitError> {
        self.scoped(|e| {
            let it = e.slot(8)?;
            let iter_arg = |e: &mut Self| {
                e.push(Insn::mov(R1, R10));
                e.push(Insn::alu_imm(Alu::Add, R1, it as i32));
            };
            iter_arg(e);
            e.push(Insn::mov_imm(R2, 0));
            e.push(Insn::mov_imm(R3, count));
            e.push(Insn::call_kfunc(new));
            let (head, out) = (e.label(), e.label());
            e.bind(head);
            iter_arg(e);
            e.push(Insn::call_kfunc(next));
            e.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), out);
            e.push(Insn::ldx(W, R1, R0, 0));
            // The iterator gives 0..count, but the verifier knows only an int.
            e.exit_if(Insn::jmp_imm(Cond::Ge, R1, count, 0), out);
            e.scoped(|e| body(e, out))?;
            e.goto(head);
            e.bind(out);
            iter_arg(e);
            e.push(Insn::call_kfunc(destroy));
            Ok(())
        })
    }

    /// The loop with a counter on the stack, for kernels without the iterator: the
    /// verifier walks it step by step.
    fn counted(&mut self, count: i32, body: impl FnOnce(&mut Self, Label) -> Result<(), EmitError>) -> Result<(), EmitError> {
        self.scoped(|e| {
            let i = e.slot(8)?;
            e.push(Insn::st_imm(DW, R10, i, 0));
            let (head, out) = (e.label(), e.label());
            e.bind(head);
            e.push(Insn::ldx(DW, R1, R10, i));
            e.exit_if(Insn::jmp_imm(Cond::Ge, R1, count, 0), out);
            e.scoped(|e| body(e, out))?;
            e.push(Insn::ldx(DW, R1, R10, i));
            e.push(Insn::alu_imm(Alu::Add, R1, 1));
            e.push(Insn::stx(DW, R10, i, R1));
            e.goto(head);
            e.bind(out);
            Ok(())
        })
    }
}
