//! The subroutines that give an integer (index(), rindex(), htons() and the other byte
//! swaps, rand(), progenyof()) and lltostr(), which writes one.

use super::strings::Buf;
use super::*;

/// How far progenyof() walks up the parents, as DTrace's does: far deeper than any
/// process tree, and a bound the verifier can see.
const ANCESTORS_MAX: i32 = 256;

impl Emitter<'_> {
    /// An integer subroutine's value into r0.
    pub(super) fn int_call(&mut self, f: IntFn, args: &[StrArg]) -> Result<(), EmitError> {
        let int_arg = |e: &Self, i: usize| match args.get(i) {
            Some(StrArg::Int(x)) => Ok(x),
            _ => Err(e.err(format!("internal: argument {i} of {f:?} is not an integer"))),
        };
        match f {
            IntFn::Index | IntFn::Rindex => self.index_of(args, f == IntFn::Rindex)?,
            IntFn::Swap(bytes) => {
                self.expr(int_arg(self, 0)?)?;
                self.push(Insn::to_be(R0, 8 * bytes as i32));
            }
            IntFn::Rand => {
                // An int: the 32 random bits, sign-extended.
                self.push(Insn::call(helper::GET_PRANDOM_U32));
                self.push(Insn::alu_imm(Alu::Lsh, R0, 32));
                self.push(Insn::alu_imm(Alu::Arsh, R0, 32));
            }
            IntFn::Progenyof => {
                let pid = int_arg(self, 0)?;
                self.progenyof(pid)?;
            }
        }
        Ok(())
    }

    /// r0 = 1 if the current process (thread group) is `pid` or descends from it: its
    /// real_parent chain holds a task whose tgid is pid; else 0.
    fn progenyof(&mut self, pid: &Expr) -> Result<(), EmitError> {
        let (parent, tgid) = self.target.task_offsets.ok_or_else(|| self.err("progenyof() needs kernel BTF (/sys/kernel/btf/vmlinux) to find task_struct fields"))?;
        self.scoped(|e| {
            let (want, task, left, tmp) = (e.slot(8)?, e.slot(8)?, e.slot(8)?, e.slot(8)?);
            e.expr(pid)?;
            e.push(Insn::mov32(R0, R0));
            e.push(Insn::stx(DW, R10, want, R0));
            e.push(Insn::call(helper::GET_CURRENT_TASK));
            e.push(Insn::stx(DW, R10, task, R0));
            e.push(Insn::st_imm(DW, R10, left, ANCESTORS_MAX));
            let (head, yes, no, done) = (e.label(), e.label(), e.label(), e.label());
            e.bind(head);
            e.push(Insn::ldx(DW, R1, R10, left));
            e.exit_if(Insn::jmp_imm(Cond::Sle, R1, 0, 0), no);
            e.push(Insn::alu_imm(Alu::Sub, R1, 1));
            e.push(Insn::stx(DW, R10, left, R1));
            e.push(Insn::ldx(DW, R0, R10, task));
            e.exit_if(Insn::jmp_imm(Cond::Eq, R0, 0, 0), no);
            e.read_kernel(tmp, R0, tgid, 4);
            e.exit_if(Insn::jmp_imm(Cond::Ne, R0, 0, 0), no);
            e.push(Insn::ldx(W, R1, R10, tmp));
            e.push(Insn::ldx(DW, R2, R10, want));
            e.exit_if(Insn::jmp_reg(Cond::Eq, R1, R2, 0), yes);
            e.push(Insn::ldx(DW, R0, R10, task));
            e.read_kernel(tmp, R0, parent, 8);
            e.exit_if(Insn::jmp_imm(Cond::Ne, R0, 0, 0), no);
            // The idle task is its own parent: the top.
            e.push(Insn::ldx(DW, R1, R10, tmp));
            e.push(Insn::ldx(DW, R2, R10, task));
            e.exit_if(Insn::jmp_reg(Cond::Eq, R1, R2, 0), no);
            e.push(Insn::stx(DW, R10, task, R1));
            e.goto(head);
            e.bind(yes);
            e.push(Insn::mov_imm(R0, 1));
            e.goto(done);
            e.bind(no);
            e.push(Insn::mov_imm(R0, 0));
            e.bind(done);
            Ok(())
        })
    }

    /// lltostr(n) at `out`: n, signed, in decimal (cut to the string's limit).
    pub(super) fn lltostr(&mut self, n: &Expr, out: Buf, own: u32) -> Result<(), EmitError> {
        // "-9223372036854775808" and its NUL fit 24 bytes; digits are written from the end.
        const DIGITS: u32 = 24;
        self.scoped(|e| {
            let (val, neg) = (e.slot(8)?, e.slot(8)?);
            let digits = Buf::Scratch(e.scratch(DIGITS as usize)?);
            e.expr(n)?;
            e.push(Insn::stx(DW, R10, val, R0));
            e.push(Insn::mov(R1, R0));
            e.push(Insn::alu_imm(Alu::Rsh, R1, 63));
            e.push(Insn::stx(DW, R10, neg, R1));
            e.zero_buf(digits, DIGITS);
            e.push(Insn::ldx(DW, R1, R10, val));
            // |n| as unsigned (the most negative n is its own negation, right as unsigned).
            e.push(Insn::jmp_imm(Cond::Sge, R1, 0, 1));
            e.push(Insn::neg(R1));
            let (head, written) = (e.label(), e.label());
            e.push(Insn::mov_imm(R2, DIGITS as i32 - 2));
            e.bind(head);
            e.push(Insn::mov(R4, R1));
            e.push(Insn::alu_imm(Alu::Mod, R4, 10));
            e.push(Insn::alu_imm(Alu::Add, R4, b'0' as i32));
            e.buf_addr(R3, digits);
            e.push(Insn::alu_reg(Alu::Add, R3, R2));
            e.push(Insn::stx(B, R3, 0, R4));
            e.push(Insn::alu_imm(Alu::Div, R1, 10));
            e.push(Insn::alu_imm(Alu::Sub, R2, 1));
            e.exit_if(Insn::jmp_imm(Cond::Eq, R1, 0, 0), written);
            e.jump(Insn::jmp_imm(Cond::Sgt, R2, 0, 0), head);
            e.bind(written);
            let positive = e.label();
            e.push(Insn::ldx(DW, R1, R10, neg));
            e.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), positive);
            e.buf_addr(R3, digits);
            e.push(Insn::alu_reg(Alu::Add, R3, R2));
            e.push(Insn::st_imm(B, R3, 0, b'-' as i32));
            e.push(Insn::alu_imm(Alu::Sub, R2, 1));
            e.bind(positive);
            let at = e.slot(8)?;
            e.push(Insn::stx(DW, R10, at, R2));
            e.zero_buf(out, own);
            e.push(Insn::ldx(DW, R2, R10, at));
            e.buf_addr(R3, digits);
            e.push(Insn::alu_reg(Alu::Add, R3, R2));
            e.push(Insn::alu_imm(Alu::Add, R3, 1));
            e.buf_addr(R1, out);
            e.push(Insn::mov_imm(R2, e.str_limit(own) as i32));
            e.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
            Ok(())
        })
    }
}
