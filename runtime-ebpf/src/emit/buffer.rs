//! bpftrace's buf(addr, len): a count, then up to `cap` bytes read from kernel or user
//! memory into their place, zero past the count (equal buffers are equal keys). A read that
//! fails leaves zeros, as the helpers write them, and is never a fault: bpftrace ignores it.

use super::strings::Buf;
use super::*;
use crumbs_lang::ir::ReadFrom;

impl Emitter<'_> {
    /// Buffer `addr`/`len`/`cap` ([`Expr::Buf`]) written at `dst` (clobbers r0-r5).
    pub(super) fn buffer(&mut self, addr: &Expr, from: ReadFrom, len: &Expr, cap: u32, dst: Buf) -> Result<(), EmitError> {
        let data = dst.plus(8).ok_or_else(|| self.err("internal: a buffer at a kept address"))?;
        self.scoped(|e| {
            let (ptr, count) = (e.slot(8)?, e.slot(8)?);
            e.expr(addr)?;
            e.push(Insn::stx(DW, R10, ptr, R0));
            e.expr(len)?;
            e.at_most(cap);
            e.push(Insn::stx(DW, R10, count, R0));
            e.zero_buf(data, cap.next_multiple_of(8));
            e.push(Insn::ldx(DW, R0, R10, count));
            let (base, off) = e.buf_base(R1, dst);
            e.push(Insn::stx(DW, base, off, R0));
            match from {
                ReadFrom::User => e.read_counted(data, ptr, count, helper::PROBE_READ_USER),
                ReadFrom::Kernel => e.read_counted(data, ptr, count, helper::PROBE_READ_KERNEL),
                // Kernel addresses are the upper half: negative as signed numbers.
                ReadFrom::ByAddress => {
                    let (in_kernel, done) = (e.label(), e.label());
                    e.push(Insn::ldx(DW, R0, R10, ptr));
                    e.jump(Insn::jmp_imm(Cond::Slt, R0, 0, 0), in_kernel);
                    e.read_counted(data, ptr, count, helper::PROBE_READ_USER);
                    e.goto(done);
                    e.bind(in_kernel);
                    e.read_counted(data, ptr, count, helper::PROBE_READ_KERNEL);
                    e.bind(done);
                }
            }
            Ok(())
        })
    }

    /// Buffer of string `s` ([`Expr::StrBuf`]) written at `dst`: the count (`len`, at most
    /// `cap`), then that many of the string buffer's bytes, read from where the string is
    /// (in place, or written aside), zeros past the buffer's size.
    pub(super) fn string_buffer(&mut self, s: &StrExpr, len: &Expr, cap: u32, dst: Buf) -> Result<(), EmitError> {
        let data = dst.plus(8).ok_or_else(|| self.err("internal: a buffer at a kept address"))?;
        let size = s.repr().size() as u32;
        self.scoped(|e| {
            let src = e.readable(s, size)?;
            let (ptr, count) = (e.slot(8)?, e.slot(8)?);
            e.buf_addr(R0, src);
            e.push(Insn::stx(DW, R10, ptr, R0));
            e.expr(len)?;
            e.at_most(cap);
            let (base, off) = e.buf_base(R1, dst);
            e.push(Insn::stx(DW, base, off, R0));
            // What the string's buffer holds of them.
            let inside = e.label();
            e.jump(Insn::jmp_imm(Cond::Le, R0, size as i32, 0), inside);
            e.push(Insn::mov_imm(R0, size as i32));
            e.bind(inside);
            e.push(Insn::stx(DW, R10, count, R0));
            e.zero_buf(data, cap.next_multiple_of(8));
            e.read_counted(data, ptr, count, helper::PROBE_READ_KERNEL);
            Ok(())
        })
    }

    /// `read(data, *count, *ptr)`: the count reloaded from its slot keeps the bound the
    /// verifier needs.
    fn read_counted(&mut self, data: Buf, ptr: i16, count: i16, read: helper::bpf_func_id) {
        self.buf_addr(R1, data);
        self.push(Insn::ldx(DW, R2, R10, count));
        self.push(Insn::ldx(DW, R3, R10, ptr));
        self.push(Insn::call(read));
    }
}

impl Emitter<'_> {
    /// r0 = min(r0, cap), unsigned: at most `cap` bytes; a negative count, unsigned, is more
    /// (bpftrace's select).
    fn at_most(&mut self, cap: u32) {
        let within = self.label();
        self.jump(Insn::jmp_imm(Cond::Le, R0, cap as i32, 0), within);
        self.push(Insn::mov_imm(R0, cap as i32));
        self.bind(within);
    }
}
