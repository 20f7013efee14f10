//! `chill(ns)`: the probe spins on its CPU for `ns` nanoseconds, as DTrace's
//! dtrace_action_chill() does. A CPU spins at most [`CHILL_MAX`] in each [`CHILL_INTERVAL`]
//! (its budget is kept per CPU in [`CHILL_MAP`]); a chill() past it is an illegal-operation
//! fault. The spin itself is `bpf_loop` calling [`Callback::ChillSpin`] until the clock
//! passes the end time: the verifier checks the callback once, where a loop in the program
//! would be walked step by step.

use super::*;
use crate::abi::{Callback, Func, CHILL_MAP};

/// bpf_loop's largest count (BPF_MAX_LOOPS). With [`SPIN_READS`] clock reads per call it
/// covers far more than [`CHILL_MAX`] even at a few ns per read.
const MAX_LOOPS: i32 = 1 << 23;
/// Clock reads per call of the spin callback.
pub(super) const SPIN_READS: usize = 32;

impl Emitter<'_> {
    pub(super) fn chill(&mut self, ns: &Expr) -> Result<(), EmitError> {
        self.expr(ns)?;
        self.scoped(|e| {
            let (val, now, end, state, key) = (e.slot(8)?, e.slot(8)?, e.slot(8)?, e.slot(8)?, e.slot(8)?);
            e.push(Insn::stx(DW, R10, val, R0));
            e.push(Insn::st_imm(W, R10, key, 0));
            e.ld_map(R1, CHILL_MAP, 0);
            e.push(Insn::mov(R2, R10));
            e.push(Insn::alu_imm(Alu::Add, R2, key as i32));
            e.push(Insn::call(helper::MAP_LOOKUP_ELEM));
            let done = e.label();
            // Never taken (the array has its one element on every CPU); the verifier asks.
            e.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), done);
            e.push(Insn::stx(DW, R10, state, R0));
            e.push(Insn::call(helper::KTIME_GET_NS));
            e.push(Insn::stx(DW, R10, now, R0));
            // The state: the start of the CPU's interval, then the ns spun in it.
            e.push(Insn::ldx(DW, R1, R10, state));
            e.push(Insn::ldx(DW, R2, R1, 0));
            e.push(Insn::mov(R3, R0));
            e.push(Insn::alu_reg(Alu::Sub, R3, R2));
            let same_interval = e.label();
            e.ld64(R4, CHILL_INTERVAL as i64);
            e.jump(Insn::jmp_reg(Cond::Le, R3, R4, 0), same_interval);
            e.push(Insn::stx(DW, R1, 0, R0));
            e.push(Insn::st_imm(DW, R1, 8, 0));
            e.bind(same_interval);
            e.push(Insn::ldx(DW, R2, R1, 8));
            e.push(Insn::ldx(DW, R3, R10, val));
            // Past the budget: val > CHILL_MAX - spun (no overflow for any val).
            e.ld64(R4, CHILL_MAX as i64);
            e.push(Insn::alu_reg(Alu::Sub, R4, R2));
            let within = e.label();
            e.jump(Insn::jmp_reg(Cond::Le, R3, R4, 0), within);
            e.fault(Fault::IllOp, FaultValue::Reg(R3))?;
            e.bind(within);
            // Counted before the spin, so a probe firing inside it on this CPU sees it.
            e.push(Insn::alu_reg(Alu::Add, R2, R3));
            e.push(Insn::stx(DW, R1, 8, R2));
            e.push(Insn::ldx(DW, R0, R10, now));
            e.push(Insn::alu_reg(Alu::Add, R0, R3));
            e.push(Insn::stx(DW, R10, end, R0));
            e.push(Insn::mov_imm(R1, MAX_LOOPS));
            e.ld_func(R2, Func::Shared(Callback::ChillSpin));
            e.push(Insn::mov(R3, R10));
            e.push(Insn::alu_imm(Alu::Add, R3, end as i32));
            e.push(Insn::mov_imm(R4, 0));
            e.push(Insn::call(helper::LOOP));
            e.bind(done);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every clock read's jump lands on `r0 = 1; exit`.
    #[test]
    fn the_spin_stops_once_the_time_has_come() {
        let code = Callback::ChillSpin.code();
        let stop = code.len() - 2;
        assert_eq!(code[stop], Insn::mov_imm(R0, 1));
        for (at, insn) in code.iter().enumerate().filter(|(_, i)| i.code == JMP | Cond::Ge as u8 | X) {
            assert_eq!(at as i64 + 1 + insn.off as i64, stop as i64, "jump at {at}");
        }
        assert_eq!(code.iter().filter(|i| **i == Insn::call(helper::KTIME_GET_NS)).count(), SPIN_READS);
    }
}
