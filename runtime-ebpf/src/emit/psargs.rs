//! `__psargs(task)`, stdlib's `pr_psargs`: the current process's arguments as `ps` shows
//! them. They are the user memory from `mm->arg_start` to `mm->arg_end`, NUL between
//! them; only the current task's can be read (a probe reads the current address space).

use super::strings::Buf;
use super::*;

impl Emitter<'_> {
    /// Writes the arguments of `task` (if it is the current one) to `dst`, `size` bytes.
    pub(super) fn psargs_into(&mut self, task: &Expr, [mm, start, end]: [i32; 3], dst: Buf, size: u32) -> Result<(), EmitError> {
        // At most the buffer's room, less its NUL.
        let room = self.str_limit(size).min(PSARGS_SIZE) as i32 - 1;
        let out = self.label();
        self.zero_buf(dst, size);
        self.scoped(|e| {
            let (t, m, s, n) = (e.slot(8)?, e.slot(8)?, e.slot(8)?, e.slot(8)?);
            e.expr(task)?;
            e.push(Insn::stx(DW, R10, t, R0));
            e.push(Insn::call(helper::GET_CURRENT_TASK));
            e.push(Insn::ldx(DW, R1, R10, t));
            e.jump(Insn::jmp_reg(Cond::Ne, R0, R1, 0), out);
            // mm (none for a kernel thread), then the arguments' bounds.
            e.read_kernel(m, R1, mm, 8);
            e.push(Insn::ldx(DW, R1, R10, m));
            e.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), out);
            e.read_kernel(s, R1, start, 8);
            e.push(Insn::ldx(DW, R1, R10, m));
            e.read_kernel(n, R1, end, 8);
            e.push(Insn::ldx(DW, R2, R10, n));
            e.push(Insn::ldx(DW, R3, R10, s));
            e.push(Insn::alu_reg(Alu::Sub, R2, R3));
            e.jump(Insn::jmp_imm(Cond::Sle, R2, 0, 0), out);
            let fits = e.label();
            e.jump(Insn::jmp_imm(Cond::Le, R2, room, 0), fits);
            e.push(Insn::mov_imm(R2, room));
            e.bind(fits);
            e.push(Insn::stx(DW, R10, n, R2));
            e.buf_addr(R1, dst);
            e.push(Insn::call(helper::PROBE_READ_USER));
            e.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), out);
            // The NULs between the arguments become spaces (the last one ends the string).
            e.push(Insn::ldx(DW, R4, R10, n));
            e.push(Insn::alu_imm(Alu::Sub, R4, 1));
            let (base, off) = e.buf_base(R3, dst);
            for i in 0..room {
                e.jump(Insn::jmp_imm(Cond::Le, R4, i, 0), out);
                e.push(Insn::ldx(B, R5, base, off + i as i16));
                e.push(Insn::jmp_imm(Cond::Ne, R5, 0, 1));
                e.push(Insn::st_imm(B, base, off + i as i16, b' ' as i32));
            }
            Ok(())
        })?;
        self.bind(out);
        Ok(())
    }
}
