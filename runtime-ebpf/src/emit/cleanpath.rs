//! cleanpath(s): a path cleaned by its text alone, as dtrace-utils' cleanpath() does (and
//! Go's path.Clean, but for "" staying ""): no empty or `.` components, each `..` taking
//! out the component before it (at the root, nothing; in a relative path with nothing
//! before it, it stays), no trailing slash; "." if nothing is left of a relative path, "/"
//! of an absolute one.
//!
//! Loops on the iterator where the kernel has it (see [`super::loops`]; the runtime asks
//! for its ids when a program calls cleanpath()), one byte a step, their state in the
//! scratch space. The first copies `/` + s + `/` leaving out each `/` that follows a `/`
//! and each `.` component, so every component is between two slashes and not empty or
//! `.`. The second walks that backwards, copying each byte to the front of the result
//! (also built backwards); at a component's slash it keeps the component, or takes it
//! back out if it is `..` (one more pending) or a `..` after it is pending (one fewer).
//! `..`s still pending at the start stay in front of a relative path.

use super::strings::Buf;
use super::*;

/// Words of the state: the first loop's write place in the copy, the string's length; the
/// second loop's write place in the result, where it was at the last slash, that slash's
/// place in the copy, and the `..`s pending.
const W: i16 = 0;
const LEN: i16 = 8;
const P: i16 = 16;
const ENDP: i16 = 24;
const END: i16 = 32;
const PEND: i16 = 40;

/// The buffers of one cleanpath().
#[derive(Clone, Copy)]
struct Clean {
    state: Buf,
    src: Buf,
    /// The copy: `/` + s + `/`, then what the first loop kept.
    copy: Buf,
    copy_size: i32,
    /// The result, built backwards from its last byte (a NUL).
    result: Buf,
    result_size: i32,
}

impl Emitter<'_> {
    /// cleanpath(s) at `out` (an `own`-byte buffer).
    pub(super) fn cleanpath(&mut self, s: &StrExpr, out: Buf, own: u32) -> Result<(), EmitError> {
        let limit = self.str_limit(own) as i32;
        self.scoped(|e| {
            let c = Clean {
                state: Buf::Scratch(e.scratch(48)?),
                src: Buf::Scratch(e.scratch(own as usize)?),
                copy: Buf::Scratch(e.scratch(own as usize + 8)?),
                copy_size: own as i32 + 8,
                result: Buf::Scratch(e.scratch(own as usize + 16)?),
                result_size: own as i32 + 16,
            };
            e.str_into(s, c.src, own)?;
            e.zero_buf(out, own);
            e.zero_buf(c.result, c.result_size as u32);
            e.buf_len(c.src, own);
            // "" stays "".
            let done = e.label();
            e.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), done);
            e.buf_addr(R5, c.state);
            e.push(Insn::stx(DW, R5, LEN, R0));
            e.push(Insn::st_imm(DW, R5, W, 1));
            e.buf_addr(R4, c.copy);
            e.push(Insn::st_imm(B, R4, 0, b'/' as i32));
            e.for_each(limit, |e, out| e.clean_forward(c, out))?;
            e.buf_addr(R5, c.state);
            e.push(Insn::ldx(DW, R2, R5, W));
            e.push(Insn::alu_imm(Alu::Sub, R2, 1));
            e.push(Insn::stx(DW, R5, END, R2));
            e.push(Insn::st_imm(DW, R5, P, c.result_size - 1));
            e.push(Insn::st_imm(DW, R5, ENDP, c.result_size - 1));
            e.push(Insn::st_imm(DW, R5, PEND, 0));
            e.for_each(limit + 1, |e, out| e.clean_backward(c, out))?;
            // An absolute path drops the `..`s pending; a relative one keeps them in front,
            // and loses its first slash.
            let (relative, copy) = (e.label(), e.label());
            e.buf_addr(R4, c.src);
            e.push(Insn::ldx(B, R0, R4, 0));
            e.buf_addr(R5, c.state);
            e.push(Insn::ldx(DW, R2, R5, P));
            e.jump(Insn::jmp_imm(Cond::Ne, R0, b'/' as i32, 0), relative);
            e.jump(Insn::jmp_imm(Cond::Ne, R2, c.result_size - 1, 0), copy);
            e.const_into("/", out, own);
            e.goto(done);
            e.bind(relative);
            e.for_each(limit / 3 + 1, |e, out| e.clean_pending(c, out))?;
            e.buf_addr(R5, c.state);
            e.push(Insn::ldx(DW, R2, R5, P));
            let something = e.label();
            e.jump(Insn::jmp_imm(Cond::Ne, R2, c.result_size - 1, 0), something);
            e.const_into(".", out, own);
            e.goto(done);
            e.bind(something);
            e.push(Insn::alu_imm(Alu::Add, R2, 1));
            e.bind(copy);
            e.jump(Insn::jmp_imm(Cond::Gt, R2, c.result_size - 1, 0), done);
            e.buf_addr(R3, c.result);
            e.push(Insn::alu_reg(Alu::Add, R3, R2));
            e.buf_addr(R1, out);
            e.push(Insn::mov_imm(R2, limit));
            e.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
            e.bind(done);
            Ok(())
        })
    }

    /// One byte of the first loop (r1: its place in s; the one after the last is a `/`).
    fn clean_forward(&mut self, c: Clean, out: Label) -> Result<(), EmitError> {
        let (next, have, dot) = (self.label(), self.label(), self.label());
        self.buf_addr(R5, c.state);
        self.push(Insn::ldx(DW, R2, R5, LEN));
        self.exit_if(Insn::jmp_reg(Cond::Sgt, R1, R2, 0), out);
        self.push(Insn::mov_imm(R3, b'/' as i32));
        self.jump(Insn::jmp_reg(Cond::Sge, R1, R2, 0), have);
        self.buf_addr(R4, c.src);
        self.push(Insn::alu_reg(Alu::Add, R4, R1));
        self.push(Insn::ldx(B, R3, R4, 0));
        self.bind(have);
        // copy[W++] = the byte.
        self.push(Insn::ldx(DW, R2, R5, W));
        self.exit_if(Insn::jmp_imm(Cond::Gt, R2, c.copy_size - 1, 0), out);
        self.buf_addr(R4, c.copy);
        self.push(Insn::alu_reg(Alu::Add, R4, R2));
        self.push(Insn::stx(B, R4, 0, R3));
        self.push(Insn::alu_imm(Alu::Add, R2, 1));
        self.push(Insn::stx(DW, R5, W, R2));
        // A slash after a slash goes, and so does `/.` before one.
        self.jump(Insn::jmp_imm(Cond::Ne, R3, b'/' as i32, 0), next);
        self.jump(Insn::jmp_imm(Cond::Lt, R2, 2, 0), next);
        self.buf_addr(R4, c.copy);
        self.push(Insn::alu_reg(Alu::Add, R4, R2));
        self.push(Insn::ldx(B, R0, R4, -2));
        self.jump(Insn::jmp_imm(Cond::Ne, R0, b'/' as i32, 0), dot);
        self.push(Insn::alu_imm(Alu::Sub, R2, 1));
        self.push(Insn::stx(DW, R5, W, R2));
        self.goto(next);
        self.bind(dot);
        self.jump(Insn::jmp_imm(Cond::Ne, R0, b'.' as i32, 0), next);
        self.jump(Insn::jmp_imm(Cond::Lt, R2, 3, 0), next);
        self.buf_addr(R4, c.copy);
        self.push(Insn::alu_reg(Alu::Add, R4, R2));
        self.push(Insn::ldx(B, R0, R4, -3));
        self.jump(Insn::jmp_imm(Cond::Ne, R0, b'/' as i32, 0), next);
        self.push(Insn::alu_imm(Alu::Sub, R2, 2));
        self.push(Insn::stx(DW, R5, W, R2));
        self.bind(next);
        Ok(())
    }

    /// One byte of the second loop (r1: how many steps back from the copy's last slash).
    fn clean_backward(&mut self, c: Clean, out: Label) -> Result<(), EmitError> {
        let (next, not_dots, drop, keep) = (self.label(), self.label(), self.label(), self.label());
        self.buf_addr(R5, c.state);
        // j = W - 2 - step: the copy's byte.
        self.push(Insn::ldx(DW, R3, R5, W));
        self.push(Insn::alu_imm(Alu::Sub, R3, 2));
        self.push(Insn::alu_reg(Alu::Sub, R3, R1));
        self.exit_if(Insn::jmp_imm(Cond::Slt, R3, 0, 0), out);
        self.exit_if(Insn::jmp_imm(Cond::Gt, R3, c.copy_size - 1, 0), out);
        self.buf_addr(R4, c.copy);
        self.push(Insn::alu_reg(Alu::Add, R4, R3));
        self.push(Insn::ldx(B, R0, R4, 0));
        // result[--P] = the byte.
        self.push(Insn::ldx(DW, R2, R5, P));
        self.push(Insn::alu_imm(Alu::Sub, R2, 1));
        self.exit_if(Insn::jmp_imm(Cond::Gt, R2, c.result_size - 1, 0), out);
        self.buf_addr(R4, c.result);
        self.push(Insn::alu_reg(Alu::Add, R4, R2));
        self.push(Insn::stx(B, R4, 0, R0));
        self.push(Insn::stx(DW, R5, P, R2));
        self.jump(Insn::jmp_imm(Cond::Ne, R0, b'/' as i32, 0), next);
        // The slash before a component, which ends at END: is it `..`?
        self.push(Insn::ldx(DW, R4, R5, END));
        self.push(Insn::alu_reg(Alu::Sub, R4, R3));
        self.jump(Insn::jmp_imm(Cond::Ne, R4, 3, 0), not_dots);
        self.jump(Insn::jmp_imm(Cond::Gt, R3, c.copy_size - 3, 0), not_dots);
        self.buf_addr(R4, c.copy);
        self.push(Insn::alu_reg(Alu::Add, R4, R3));
        for i in 1..=2 {
            self.push(Insn::ldx(B, R0, R4, i));
            self.jump(Insn::jmp_imm(Cond::Ne, R0, b'.' as i32, 0), not_dots);
        }
        self.push(Insn::ldx(DW, R0, R5, PEND));
        self.push(Insn::alu_imm(Alu::Add, R0, 1));
        self.push(Insn::stx(DW, R5, PEND, R0));
        self.goto(drop);
        self.bind(not_dots);
        self.push(Insn::ldx(DW, R0, R5, PEND));
        self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), keep);
        self.push(Insn::alu_imm(Alu::Sub, R0, 1));
        self.push(Insn::stx(DW, R5, PEND, R0));
        // Taken back out: the result as it was at the last slash.
        self.bind(drop);
        self.push(Insn::ldx(DW, R0, R5, ENDP));
        self.push(Insn::stx(DW, R5, P, R0));
        self.bind(keep);
        self.push(Insn::ldx(DW, R0, R5, P));
        self.push(Insn::stx(DW, R5, ENDP, R0));
        self.push(Insn::stx(DW, R5, END, R3));
        self.bind(next);
        Ok(())
    }

    /// One pending `..` of a relative path: `/..` in front of the result.
    fn clean_pending(&mut self, c: Clean, out: Label) -> Result<(), EmitError> {
        self.buf_addr(R5, c.state);
        self.push(Insn::ldx(DW, R0, R5, PEND));
        self.exit_if(Insn::jmp_imm(Cond::Eq, R0, 0, 0), out);
        self.push(Insn::alu_imm(Alu::Sub, R0, 1));
        self.push(Insn::stx(DW, R5, PEND, R0));
        self.push(Insn::ldx(DW, R2, R5, P));
        self.push(Insn::alu_imm(Alu::Sub, R2, 3));
        self.exit_if(Insn::jmp_imm(Cond::Gt, R2, c.result_size - 3, 0), out);
        self.push(Insn::stx(DW, R5, P, R2));
        self.buf_addr(R4, c.result);
        self.push(Insn::alu_reg(Alu::Add, R4, R2));
        for (i, b) in b"/..".iter().enumerate() {
            self.push(Insn::st_imm(B, R4, i as i16, *b as i32));
        }
        Ok(())
    }
}
