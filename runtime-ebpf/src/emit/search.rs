//! Searching strings: index(), rindex(), strstr(), strchr(), strrchr(), as DTrace has them.
//! A search for a string tries each place in a loop on the numeric iterator (see
//! [`super::loops`]) and compares the string there with the wanted one word by word, both
//! NUL-padded, so no byte loop nests in another; a search for a byte is a loop on the
//! iterator too, one byte a step.

use super::strings::Buf;
use super::*;

/// One step of a search, for each place (see [`super::loops`]): where its state and
/// strings are in the scratch space.
struct FindStep {
    /// Five words: the first place to try, the last place t could start (len(s) - len(t)),
    /// len(t), the place found (-1 until one is), and the place being tried.
    state: i16,
    /// s, t, and the candidate: len(t) bytes of s from the place tried.
    ts: Buf,
    tt: Buf,
    cand: Buf,
    /// Bytes of each of the three buffers.
    n: u32,
    /// Backwards from the first place (rindex()).
    reverse: bool,
}

const FIRST: i16 = 0;
const LAST: i16 = 8;
const TLEN: i16 = 16;
const FOUND: i16 = 24;
const AT: i16 = 32;

impl Emitter<'_> {
    /// The buffer size two string arguments are both written into: the larger of theirs.
    fn pair_size(&self, a: &StrExpr, b: &StrExpr) -> u32 {
        self.arg_size(a).max(self.arg_size(b))
    }

    /// index(), rindex() into r0.
    pub(super) fn index_of(&mut self, args: &[StrArg], reverse: bool) -> Result<(), EmitError> {
        let (s, t) = (str_arg(self, args, 0)?, str_arg(self, args, 1)?);
        let start = match args.get(2) {
            Some(StrArg::Int(x)) => Some(x),
            _ => None,
        };
        let n = self.pair_size(s, t);
        self.scoped(|e| {
            let ts = Buf::Scratch(e.scratch(n as usize)?);
            e.str_into(s, ts, n)?;
            e.find(ts, t, n, start, reverse)
        })
    }

    /// r0 = where string `t` occurs in the string at `ts` (an `n`-byte buffer): the first
    /// place from `start` (0 if none or negative), or with `reverse` the last place at
    /// `start` or before (anywhere if none; nowhere if negative). -1 if there is none.
    pub(super) fn find(&mut self, ts: Buf, t: &StrExpr, n: u32, start: Option<&Expr>, reverse: bool) -> Result<(), EmitError> {
        self.scoped(|e| {
            let state = e.scratch(40)?;
            let at_state = |e: &mut Self, r: Reg| e.buf_addr(r, Buf::Scratch(state));
            match start {
                Some(x) => e.expr(x)?,
                None if reverse => e.ld64(R0, i64::MAX),
                None => e.push(Insn::mov_imm(R0, 0)),
            }
            at_state(e, R1);
            e.push(Insn::stx(DW, R1, FIRST, R0));
            e.push(Insn::st_imm(DW, R1, FOUND, -1));
            let tt = Buf::Scratch(e.scratch(n as usize)?);
            let cand = Buf::Scratch(e.scratch(n as usize)?);
            e.str_into(t, tt, n)?;
            e.zero_buf(cand, n);
            e.buf_len(tt, n);
            at_state(e, R1);
            e.push(Insn::stx(DW, R1, TLEN, R0));
            e.buf_len(ts, n);
            at_state(e, R1);
            e.push(Insn::ldx(DW, R2, R1, TLEN));
            e.push(Insn::alu_reg(Alu::Sub, R0, R2));
            e.push(Insn::stx(DW, R1, LAST, R0));
            let done = e.label();
            e.jump(Insn::jmp_imm(Cond::Slt, R0, 0, 0), done);
            e.push(Insn::ldx(DW, R2, R1, FIRST));
            if reverse {
                // A negative start finds nothing; one past the last place starts there.
                e.jump(Insn::jmp_imm(Cond::Slt, R2, 0, 0), done);
                e.push(Insn::jmp_reg(Cond::Sle, R2, R0, 1));
                e.push(Insn::mov(R2, R0));
            } else {
                e.push(Insn::jmp_imm(Cond::Sge, R2, 0, 1));
                e.push(Insn::mov_imm(R2, 0));
            }
            e.push(Insn::stx(DW, R1, FIRST, R2));
            let step = FindStep { state, ts, tt, cand, n, reverse };
            e.for_each(n as i32, |e, out| {
                let next = e.label();
                e.find_step(&step, next, out)
            })?;
            e.bind(done);
            at_state(e, R1);
            e.push(Insn::ldx(DW, R0, R1, FOUND));
            Ok(())
        })
    }

    /// One place of a search: r1 is the step. Goes to `out` when t is found there or the
    /// places are used up, else to `next`, which it binds at its end.
    fn find_step(&mut self, f: &FindStep, next: Label, out: Label) -> Result<(), EmitError> {
        let n = f.n as i32;
        self.buf_addr(R5, Buf::Scratch(f.state));
        self.push(Insn::ldx(DW, R2, R5, FIRST));
        self.push(Insn::alu_reg(if f.reverse { Alu::Sub } else { Alu::Add }, R2, R1));
        self.push(Insn::ldx(DW, R0, R5, LAST));
        self.exit_if(Insn::jmp_reg(Cond::Sgt, R2, R0, 0), out);
        // Unsigned: also before the first place.
        self.exit_if(Insn::jmp_imm(Cond::Ge, R2, n, 0), out);
        self.push(Insn::stx(DW, R5, AT, R2));
        self.buf_addr(R3, f.ts);
        self.push(Insn::alu_reg(Alu::Add, R3, R2));
        // len(t) bytes from the place, NUL-terminated: the rest of `cand` stays zero, as
        // the rest of `tt` is, so equal words mean a match.
        self.push(Insn::ldx(DW, R2, R5, TLEN));
        self.push(Insn::alu_imm(Alu::Add, R2, 1));
        self.exit_if(Insn::jmp_imm(Cond::Gt, R2, n, 0), out);
        self.exit_if(Insn::jmp_imm(Cond::Lt, R2, 1, 0), out);
        self.buf_addr(R1, f.cand);
        self.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
        self.buf_addr(R3, f.cand);
        self.buf_addr(R4, f.tt);
        self.push(Insn::mov_imm(R0, 0));
        for w in 0..(f.n / 8) as i16 {
            self.push(Insn::ldx(DW, R1, R3, 8 * w));
            self.push(Insn::ldx(DW, R2, R4, 8 * w));
            self.push(Insn::alu_reg(Alu::Xor, R1, R2));
            self.push(Insn::alu_reg(Alu::Or, R0, R1));
        }
        self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), next);
        self.buf_addr(R5, Buf::Scratch(f.state));
        self.push(Insn::ldx(DW, R2, R5, AT));
        self.push(Insn::stx(DW, R5, FOUND, R2));
        self.goto(out);
        self.bind(next);
        Ok(())
    }

    /// The string at `ts` (an `n`-byte buffer) from place r0 at `out` (`own` bytes); "" if r0
    /// is negative.
    fn tail_from(&mut self, ts: Buf, n: u32, out: Buf, own: u32) -> Result<(), EmitError> {
        self.scoped(|e| {
            let at = e.slot(8)?;
            e.push(Insn::stx(DW, R10, at, R0));
            e.zero_buf(out, own);
            let done = e.label();
            e.push(Insn::ldx(DW, R0, R10, at));
            e.jump(Insn::jmp_imm(Cond::Slt, R0, 0, 0), done);
            e.jump(Insn::jmp_imm(Cond::Ge, R0, n as i32, 0), done);
            e.buf_addr(R3, ts);
            e.push(Insn::alu_reg(Alu::Add, R3, R0));
            e.buf_addr(R1, out);
            e.push(Insn::mov_imm(R2, e.str_limit(own) as i32));
            e.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
            e.bind(done);
            Ok(())
        })
    }

    /// strstr(s, t) at `out`: s from the first place t occurs, "" if none.
    pub(super) fn strstr(&mut self, args: &[StrArg], out: Buf, own: u32) -> Result<(), EmitError> {
        let (s, t) = (str_arg(self, args, 0)?, str_arg(self, args, 1)?);
        let n = self.pair_size(s, t);
        self.scoped(|e| {
            let ts = Buf::Scratch(e.scratch(n as usize)?);
            e.str_into(s, ts, n)?;
            e.find(ts, t, n, None, false)?;
            e.tail_from(ts, n, out, own)
        })
    }

    /// strchr(s, c), strrchr(s, c) at `out`: s from its first (last) byte c, "" if none (c
    /// is taken as a char: its low byte; the NUL is never found). strrchr() looks from the
    /// end back, so that both stop at the first byte found.
    pub(super) fn strchr(&mut self, args: &[StrArg], out: Buf, own: u32, last: bool) -> Result<(), EmitError> {
        const CH: i16 = 0;
        const CH_FOUND: i16 = 8;
        const LEN: i16 = 16;
        let s = str_arg(self, args, 0)?;
        let Some(StrArg::Int(c)) = args.get(1) else { return Err(self.err("internal: strchr() without a char")) };
        let n = self.arg_size(s);
        self.scoped(|e| {
            let state = Buf::Scratch(e.scratch(24)?);
            let ts = Buf::Scratch(e.scratch(n as usize)?);
            e.expr(c)?;
            e.push(Insn::alu_imm(Alu::And, R0, 0xff));
            e.buf_addr(R1, state);
            e.push(Insn::stx(DW, R1, CH, R0));
            e.push(Insn::st_imm(DW, R1, CH_FOUND, -1));
            e.str_into(s, ts, n)?;
            if last {
                e.buf_len(ts, n);
                e.buf_addr(R1, state);
                e.push(Insn::stx(DW, R1, LEN, R0));
            }
            e.for_each(n as i32 - 1, |e, out| {
                let next = e.label();
                e.buf_addr(R5, state);
                if last {
                    // From the last byte back.
                    e.push(Insn::ldx(DW, R2, R5, LEN));
                    e.push(Insn::alu_imm(Alu::Sub, R2, 1));
                    e.push(Insn::alu_reg(Alu::Sub, R2, R1));
                } else {
                    e.push(Insn::mov(R2, R1));
                }
                // Unsigned: a place before the start is past the end too.
                e.exit_if(Insn::jmp_imm(Cond::Ge, R2, n as i32 - 1, 0), out);
                e.buf_addr(R3, ts);
                e.push(Insn::alu_reg(Alu::Add, R3, R2));
                e.push(Insn::ldx(B, R4, R3, 0));
                e.exit_if(Insn::jmp_imm(Cond::Eq, R4, 0, 0), out);
                e.push(Insn::ldx(DW, R0, R5, CH));
                e.jump(Insn::jmp_reg(Cond::Ne, R4, R0, 0), next);
                e.push(Insn::stx(DW, R5, CH_FOUND, R2));
                e.goto(out);
                e.bind(next);
                Ok(())
            })?;
            e.buf_addr(R1, state);
            e.push(Insn::ldx(DW, R0, R1, CH_FOUND));
            e.tail_from(ts, n, out, own)
        })
    }
}

/// Argument `i` of a subroutine, which must be a string.
pub(super) fn str_arg<'a>(e: &Emitter, args: &'a [StrArg], i: usize) -> Result<&'a StrExpr, EmitError> {
    match args.get(i) {
        Some(StrArg::Str(s)) => Ok(s),
        _ => Err(e.err(format!("internal: argument {i} is not a string"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::check::CheckOptions;

    /// A search is one loop on the numeric iterator (new, next, destroy: each called once
    /// in the code) where the kernel has it, else a counted loop.
    #[test]
    fn a_search_loops_on_the_numeric_iterator() {
        let p = crumbs_lang::compile(r#"BEGIN { trace(index(execname, "ru")); }"#, &CheckOptions::default()).unwrap();
        let target = Target { iter_num: Some([11, 12, 13]), ..Default::default() };
        let code = emit_program(&p, &p.groups[0], &target).unwrap();
        let text = disassemble(&code.insns);
        for id in [11, 12, 13] {
            assert_eq!(text.matches(&format!("call kfunc#{id}\n")).count(), 1, "{text}");
        }
        let counted = disassemble(&emit_program(&p, &p.groups[0], &Target::default()).unwrap().insns);
        assert!(!counted.contains("kfunc"), "{counted}");
    }
}
