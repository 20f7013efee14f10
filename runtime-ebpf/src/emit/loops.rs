//! Loops the verifier can follow. A loop written with a counter is walked by the verifier
//! step by step: fine for a short body, if its ways out do not pile up ([`Emitter::exit_if`]).
//! A loop on the kernel's numeric iterator (the kfuncs bpf_iter_num_new, _next and
//! _destroy) is walked until its states repeat, once or twice: what a long body needs (a
//! search comparing a whole string at each place), whose few hundred steps would be more
//! than the verifier's million.

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

    /// `for i in 0..count { body }` on the numeric iterator: `body` starts with i in r1, may
    /// jump to `out` (the end of the loop), and falls through at its end to the next step
    /// (so its last instruction must be reachable: the verifier refuses unreachable code).
    /// What it carries from one step to the next must be in the scratch space, which the
    /// verifier does not follow, or its states never repeat.
    pub(super) fn iterate(&mut self, count: i32, body: impl FnOnce(&mut Self, Label) -> Result<(), EmitError>) -> Result<(), EmitError> {
        let [new, next, destroy] = self.target.iter_num.ok_or_else(|| self.err("index(), rindex() and strstr() need the kernel's BTF (/sys/kernel/btf/vmlinux) to find bpf_iter_num"))?;
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
            e.scoped(|e| body(e, out))?;
            e.goto(head);
            e.bind(out);
            iter_arg(e);
            e.push(Insn::call_kfunc(destroy));
            Ok(())
        })
    }
}
