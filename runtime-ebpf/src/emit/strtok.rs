//! strtok(), with DTrace's state: strtok(s, delims) keeps s and where it stopped, and
//! strtok(NULL, delims) goes on from there. The state is this CPU's, in the scratch space,
//! emptied when the program starts: it lasts for one firing of the probe, through all its
//! clauses, as DTrace's does.

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
        self.buf_addr(R1, Buf::Scratch(at));
        self.push(Insn::st_imm(DW, R1, 0, 0));
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
        let delims = if f == StrFn::Strtok {
            let s = str_arg(self, args, 0)?;
            // Built aside: s may be another strtok() of the state's own string.
            self.scoped(|e| {
                let tmp = Buf::Scratch(e.scratch(n as usize)?);
                e.str_into(s, tmp, n)?;
                e.buf_copy(tmp, n, text, n);
                Ok(())
            })?;
            self.buf_addr(R1, pos);
            self.push(Insn::st_imm(DW, R1, 0, 0));
            str_arg(self, args, 1)?
        } else {
            str_arg(self, args, 0)?
        };
        let dsize = self.arg_size(delims);
        self.scoped(|e| {
            // The token's start goes through the scratch space, whose words the verifier
            // does not follow: the token loop then starts from one state, not from one per
            // step of the loop before it.
            let start = Buf::Scratch(e.scratch(8)?);
            let td = Buf::Scratch(e.scratch(dsize as usize)?);
            // One byte per character: 1 for a delimiter.
            let table = Buf::Scratch(e.scratch(256)?);
            e.str_into(delims, td, dsize)?;
            e.zero_buf(table, 256);
            let (mark, marked) = (e.label(), e.label());
            e.push(Insn::mov_imm(R2, 0));
            e.bind(mark);
            e.exit_if(Insn::jmp_imm(Cond::Ge, R2, dsize as i32 - 1, 0), marked);
            e.buf_addr(R3, td);
            e.push(Insn::alu_reg(Alu::Add, R3, R2));
            e.push(Insn::ldx(B, R4, R3, 0));
            e.exit_if(Insn::jmp_imm(Cond::Eq, R4, 0, 0), marked);
            e.buf_addr(R3, table);
            e.push(Insn::alu_reg(Alu::Add, R3, R4));
            e.push(Insn::st_imm(B, R3, 0, 1));
            e.push(Insn::alu_imm(Alu::Add, R2, 1));
            e.goto(mark);
            e.bind(marked);
            // r4 = the byte at r2 and r5 whether it is a delimiter, or to `end` at the NUL.
            let (end, cut, done) = (e.label(), e.label(), e.label());
            let byte = |e: &mut Self, stop: Label| {
                e.exit_if(Insn::jmp_imm(Cond::Ge, R2, n as i32, 0), stop);
                e.buf_addr(R3, text);
                e.push(Insn::alu_reg(Alu::Add, R3, R2));
                e.push(Insn::ldx(B, R4, R3, 0));
                e.exit_if(Insn::jmp_imm(Cond::Eq, R4, 0, 0), stop);
                e.buf_addr(R3, table);
                e.push(Insn::alu_reg(Alu::Add, R3, R4));
                e.push(Insn::ldx(B, R5, R3, 0));
            };
            let (skip, token) = (e.label(), e.label());
            e.buf_addr(R1, pos);
            e.push(Insn::ldx(DW, R2, R1, 0));
            e.bind(skip);
            byte(e, end);
            e.exit_if(Insn::jmp_imm(Cond::Eq, R5, 0, 0), token);
            e.push(Insn::alu_imm(Alu::Add, R2, 1));
            e.goto(skip);
            e.bind(token);
            e.buf_addr(R1, start);
            e.push(Insn::stx(DW, R1, 0, R2));
            e.push(Insn::ldx(DW, R2, R1, 0));
            let more = e.label();
            e.bind(more);
            byte(e, cut);
            e.exit_if(Insn::jmp_imm(Cond::Ne, R5, 0, 0), cut);
            e.push(Insn::alu_imm(Alu::Add, R2, 1));
            e.goto(more);
            // The token: bytes start..r2; the next call starts at r2.
            e.bind(cut);
            e.buf_addr(R1, pos);
            e.push(Insn::stx(DW, R1, 0, R2));
            e.zero_buf(out, own);
            e.buf_addr(R1, pos);
            e.push(Insn::ldx(DW, R2, R1, 0));
            e.buf_addr(R3, start);
            e.push(Insn::ldx(DW, R3, R3, 0));
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
            // Nothing left: stay at the end.
            e.bind(end);
            e.buf_addr(R1, pos);
            e.push(Insn::stx(DW, R1, 0, R2));
            e.zero_buf(out, own);
            e.bind(done);
            Ok(())
        })
    }
}
