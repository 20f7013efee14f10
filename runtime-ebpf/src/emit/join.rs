//! bpftrace's join(arr): the strings the first pointers of an array point at (execve's
//! argv), each read into its own place of the record. bpftrace reads a fixed number of
//! pointers whatever the array holds, past its NULL: a pointer or a string that cannot be
//! read is "" (the helpers zero what they could not read), never a fault, and user space
//! stops at the first empty string.

use super::strings::Buf;
use super::*;
use crumbs_lang::ir::ReadFrom;

impl Emitter<'_> {
    /// The `count` strings at `dst`, `size` bytes each (clobbers r0-r5).
    pub(super) fn pointed_strings(&mut self, addr: &Expr, from: ReadFrom, count: u32, size: u32, dst: Buf) -> Result<(), EmitError> {
        let user = (helper::PROBE_READ_USER, helper::PROBE_READ_USER_STR);
        let kernel = (helper::PROBE_READ_KERNEL, helper::PROBE_READ_KERNEL_STR);
        self.scoped(|e| {
            let (array, ptr) = (e.slot(8)?, e.slot(8)?);
            e.expr(addr)?;
            e.push(Insn::stx(DW, R10, array, R0));
            match from {
                ReadFrom::User => e.read_each(array, ptr, count, size, dst, user),
                ReadFrom::Kernel => e.read_each(array, ptr, count, size, dst, kernel),
                // Kernel addresses are the upper half: negative as signed numbers.
                ReadFrom::ByAddress => {
                    let (in_kernel, done) = (e.label(), e.label());
                    e.jump(Insn::jmp_imm(Cond::Slt, R0, 0, 0), in_kernel);
                    e.read_each(array, ptr, count, size, dst, user)?;
                    e.goto(done);
                    e.bind(in_kernel);
                    e.read_each(array, ptr, count, size, dst, kernel)?;
                    e.bind(done);
                    Ok(())
                }
            }
        })
    }

    /// Each pointer of the array whose address is in stack slot `array`, through slot
    /// `ptr`, and its string, with the `(read, read_str)` helpers.
    fn read_each(&mut self, array: i16, ptr: i16, count: u32, size: u32, dst: Buf, (read, read_str): (helper::bpf_func_id, helper::bpf_func_id)) -> Result<(), EmitError> {
        for i in 0..count {
            self.push(Insn::mov(R1, R10));
            self.push(Insn::alu_imm(Alu::Add, R1, ptr as i32));
            self.push(Insn::mov_imm(R2, 8));
            self.push(Insn::ldx(DW, R3, R10, array));
            self.push(Insn::alu_imm(Alu::Add, R3, 8 * i as i32));
            self.push(Insn::call(read));
            let at = i16::try_from(i * size).ok().and_then(|by| dst.plus(by)).ok_or_else(|| self.err("internal: join()'s strings past a buffer's reach"))?;
            self.buf_addr(R1, at);
            self.push(Insn::mov_imm(R2, size as i32));
            self.push(Insn::ldx(DW, R3, R10, ptr));
            self.push(Insn::call(read_str));
        }
        Ok(())
    }
}
