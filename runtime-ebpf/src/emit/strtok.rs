//! strtok(), with DTrace's state: strtok(s, delims) keeps s and where it stopped, and
//! strtok(NULL, delims) goes on from there. The state is this CPU's, in the scratch space,
//! emptied when the program starts: it lasts for one firing of the probe, through all its
//! clauses, as DTrace's does; strtok(NULL, ...) before any string in the firing faults
//! (invalid address), as dtrace's does.

use super::search::str_arg;
use super::strings::Buf;
use super::*;

impl Emitter<'_> {
    /// Takes the strtok state's place in the scratch space for the whole program (the place
    /// to go on from, then the string) and empties it.
    pub(super) fn strtok_prologue(&mut self) -> Result<(), EmitError> {
        let n = str_buffer(self.p.options.strsize());
        let at = self.scratch(8 + n as usize)?;
        self.strtok = Some(at);
        // -1: no string yet.
        self.buf_addr(R1, Buf::Scratch(at));
        self.push(Insn::st_imm(DW, R1, 0, -1));
        self.push(Insn::st_imm(DW, R1, 8, 0));
        Ok(())
    }

    /// strtok(s, delims) (`StrFn::Strtok`) or strtok(NULL, delims) (`StrFn::StrtokNext`) at
    /// `out`: the next run of bytes not in delims after any bytes in delims, "" when none is
    /// left (DTrace's NULL).
    pub(super) fn strtok(&mut self, f: StrFn, args: &[StrArg], out: Buf, own: u32) -> Result<(), EmitError> {
        let state = self.strtok.ok_or_else(|| self.err("internal: strtok() without its state"))?;
        let n = str_buffer(self.p.options.strsize());
        let (pos, text) = (Buf::Scratch(state), Buf::Scratch(state + 8));
        let (s, delims) = match f {
            StrFn::Strtok => (Some(str_arg(self, args, 0)?), str_arg(self, args, 1)?),
            _ => (None, str_arg(self, args, 0)?),
        };
        let dsize = self.arg_size(delims);
        self.scoped(|e| {
            // Where the token starts (-1: none is left) and where it stops.
            const START: i16 = 0;
            const STOP: i16 = 8;
            let marks = Buf::Scratch(e.scratch(16)?);
            let td = Buf::Scratch(e.scratch(dsize as usize)?);
            // One byte per character: 1 for a delimiter.
            let table = Buf::Scratch(e.scratch(256)?);
            // Both arguments first, as DTrace evaluates them, then the state: either may be
            // another strtok() of the state's own string.
            match s {
                Some(s) => {
                    let tmp = Buf::Scratch(e.scratch(n as usize)?);
                    e.str_into(s, tmp, n)?;
                    e.str_into(delims, td, dsize)?;
                    e.buf_copy(tmp, n, text, n);
                    e.buf_addr(R1, pos);
                    e.push(Insn::st_imm(DW, R1, 0, 0));
                }
                None => {
                    e.str_into(delims, td, dsize)?;
                    // No string given yet in this firing: DTrace's invalid address (0).
                    e.buf_addr(R1, pos);
                    e.push(Insn::ldx(DW, R1, R1, 0));
                    e.fault_unless(Cond::Sge, R1, 0, Fault::BadAddr, FaultValue::Zero)?;
                }
            }
            e.zero_buf(table, 256);
            e.for_each(dsize as i32 - 1, |e, out| {
                e.buf_addr(R3, td);
                e.push(Insn::alu_reg(Alu::Add, R3, R1));
                e.push(Insn::ldx(B, R4, R3, 0));
                e.exit_if(Insn::jmp_imm(Cond::Eq, R4, 0, 0), out);
                e.buf_addr(R3, table);
                e.push(Insn::alu_reg(Alu::Add, R3, R4));
                e.push(Insn::st_imm(B, R3, 0, 1));
                Ok(())
            })?;
            // r4 = the byte at place r2 of the string, r5 whether it is a delimiter; to
            // `end` past the string.
            let byte = |e: &mut Self, end: Label| {
                e.exit_if(Insn::jmp_imm(Cond::Ge, R2, n as i32, 0), end);
                e.buf_addr(R3, text);
                e.push(Insn::alu_reg(Alu::Add, R3, R2));
                e.push(Insn::ldx(B, R4, R3, 0));
                e.exit_if(Insn::jmp_imm(Cond::Eq, R4, 0, 0), end);
                e.buf_addr(R3, table);
                e.push(Insn::alu_reg(Alu::Add, R3, R4));
                e.push(Insn::ldx(B, R5, R3, 0));
            };
            // The token starts at the first byte from `pos` that is not a delimiter.
            e.buf_addr(R1, marks);
            e.push(Insn::st_imm(DW, R1, START, -1));
            e.push(Insn::st_imm(DW, R1, STOP, n as i32 - 1));
            e.for_each(n as i32, |e, out| {
                let (next, found) = (e.label(), e.label());
                e.buf_addr(R2, pos);
                e.push(Insn::ldx(DW, R2, R2, 0));
                e.push(Insn::alu_reg(Alu::Add, R2, R1));
                byte(e, out);
                e.exit_if(Insn::jmp_imm(Cond::Eq, R5, 0, 0), found);
                e.goto(next);
                e.bind(found);
                e.buf_addr(R1, marks);
                e.push(Insn::stx(DW, R1, START, R2));
                e.goto(out);
                e.bind(next);
                Ok(())
            })?;
            let (none, done) = (e.label(), e.label());
            e.zero_buf(out, own);
            e.buf_addr(R1, marks);
            e.push(Insn::ldx(DW, R2, R1, START));
            e.jump(Insn::jmp_imm(Cond::Slt, R2, 0, 0), none);
            // ... and stops before the next delimiter or the end.
            e.for_each(n as i32, |e, out| {
                let (next, stop) = (e.label(), e.label());
                e.buf_addr(R2, marks);
                e.push(Insn::ldx(DW, R2, R2, START));
                e.push(Insn::alu_reg(Alu::Add, R2, R1));
                byte(e, stop);
                e.exit_if(Insn::jmp_imm(Cond::Ne, R5, 0, 0), stop);
                e.goto(next);
                e.bind(stop);
                e.buf_addr(R1, marks);
                e.push(Insn::stx(DW, R1, STOP, R2));
                e.goto(out);
                e.bind(next);
                Ok(())
            })?;
            // The token: bytes start..stop; the next call starts at stop.
            e.buf_addr(R1, marks);
            e.push(Insn::ldx(DW, R2, R1, STOP));
            e.push(Insn::ldx(DW, R3, R1, START));
            e.buf_addr(R1, pos);
            e.push(Insn::stx(DW, R1, 0, R2));
            e.jump(Insn::jmp_imm(Cond::Ge, R3, n as i32, 0), done);
            e.push(Insn::alu_reg(Alu::Sub, R2, R3));
            e.push(Insn::alu_imm(Alu::Add, R2, 1));
            let limit = e.str_limit(own) as i32;
            e.push(Insn::jmp_imm(Cond::Le, R2, limit, 1));
            e.push(Insn::mov_imm(R2, limit));
            e.push(Insn::jmp_imm(Cond::Sge, R2, 1, 1));
            e.push(Insn::mov_imm(R2, 1));
            e.buf_addr(R1, text);
            e.push(Insn::alu_reg(Alu::Add, R3, R1));
            e.buf_addr(R1, out);
            e.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
            e.goto(done);
            // Nothing left: from now on, every strtok(NULL, ...) finds nothing.
            e.bind(none);
            e.buf_addr(R1, pos);
            e.push(Insn::st_imm(DW, R1, 0, n as i32));
            e.bind(done);
            Ok(())
        })
    }
}
