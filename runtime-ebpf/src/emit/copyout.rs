//! `copyout(buf, addr, nbytes)` and `copyoutstr(str, addr, maxlen)`: destructive writes to
//! the memory of the process that fired the probe, with `bpf_probe_write_user`. That helper
//! writes only from memory the verifier knows, so the bytes are staged in the scratch space
//! first ([`COPYOUT_LIMIT`] at most). A source that cannot be read, or a user address that
//! cannot be written (not mapped, read-only, or a probe where the kernel refuses the write:
//! a kernel thread, an interrupt), is an invalid address error.

use super::strings::Buf;
use super::*;

impl Emitter<'_> {
    pub(super) fn copy_out(&mut self, src: &CopyOutSrc, addr: &Expr, size: &Expr) -> Result<(), EmitError> {
        self.scoped(|e| {
            let (a, n) = (e.slot(8)?, e.slot(8)?);
            let (stage, room) = match src {
                CopyOutSrc::Memory(from) => {
                    let s = e.slot(8)?;
                    e.expr(from)?;
                    e.push(Insn::stx(DW, R10, s, R0));
                    e.addr_and_size(addr, size, a, n)?;
                    e.fault_unless(Cond::Le, R0, COPYOUT_LIMIT as i32, Fault::NoScratch, FaultValue::Reg(R0))?;
                    // The size from the checked register: the verifier knows its bound there.
                    e.push(Insn::mov(R2, R0));
                    let stage = Buf::Scratch(e.scratch(COPYOUT_LIMIT as usize)?);
                    e.buf_addr(R1, stage);
                    e.push(Insn::ldx(DW, R3, R10, s));
                    e.keep_fault_value(R3)?;
                    e.push(Insn::call(helper::PROBE_READ_KERNEL));
                    e.fault_unless(Cond::Eq, R0, 0, Fault::BadAddr, FaultValue::Kept)?;
                    (stage, COPYOUT_LIMIT)
                }
                CopyOutSrc::Str(s) => {
                    let len = s.repr().size() as u32;
                    e.addr_and_size(addr, size, a, n)?;
                    let stage = Buf::Scratch(e.scratch(len as usize)?);
                    e.str_into(s, stage, len)?;
                    // The string and its NUL, or maxlen bytes of it if that is less.
                    e.buf_len(stage, len);
                    e.push(Insn::alu_imm(Alu::Add, R0, 1));
                    e.push(Insn::ldx(DW, R2, R10, n));
                    e.push(Insn::jmp_reg(Cond::Le, R2, R0, 1));
                    e.push(Insn::mov(R2, R0));
                    e.push(Insn::stx(DW, R10, n, R2));
                    (stage, len)
                }
            };
            let done = e.label();
            e.push(Insn::ldx(DW, R3, R10, n));
            // The helper refuses a write of nothing, and a verifier before 6.8 learns no lower
            // bound from `!= 0`: so the size less one is bounded, then given back its one.
            e.jump(Insn::jmp_imm(Cond::Eq, R3, 0, 0), done);
            e.fault_unless(Cond::Le, R3, room as i32, Fault::NoScratch, FaultValue::Reg(R3))?;
            e.push(Insn::alu_imm(Alu::Sub, R3, 1));
            e.push(Insn::jmp_imm(Cond::Le, R3, room as i32 - 1, 1));
            e.push(Insn::mov_imm(R3, 0));
            e.push(Insn::alu_imm(Alu::Add, R3, 1));
            e.buf_addr(R2, stage);
            e.push(Insn::ldx(DW, R1, R10, a));
            e.keep_fault_value(R1)?;
            e.push(Insn::call(helper::PROBE_WRITE_USER));
            e.fault_unless(Cond::Eq, R0, 0, Fault::BadAddr, FaultValue::Kept)?;
            e.bind(done);
            Ok(())
        })
    }

    /// Evaluates the user address into stack `a` and the size into stack `n` (and r0).
    fn addr_and_size(&mut self, addr: &Expr, size: &Expr, a: i16, n: i16) -> Result<(), EmitError> {
        self.expr(addr)?;
        self.push(Insn::stx(DW, R10, a, R0));
        self.expr(size)?;
        self.push(Insn::stx(DW, R10, n, R0));
        Ok(())
    }
}
