//! `caller`, `stackdepth`, `ucaller` and `ustackdepth`: integers computed where they are
//! used, from a stack `bpf_get_stack()` writes into the scratch space. A kernel stack begins
//! with the tracing machinery's frames, which `stack()` leaves out when it prints: the BPF
//! program's own (in a program run by a raw tracepoint or a test run) and those of the hooks
//! that ran it (`bpf_trace_run*`, `__bpf_trace_*`, `__traceiter_*`), whose address ranges
//! user space finds in /proc/kallsyms ([`Target::tracing_frames`]). How many of those there
//! are varies with how many programs share the tracepoint, so the program counts them at
//! each firing, and the values agree with the stack `stack()` prints.

use super::strings::Buf;
use super::*;
use crate::abi::{F_USER_STACK, STACK_DEPTH, USTACK_DEPTH};

/// The most machinery frames looked for at the top of a kernel stack (a raw tracepoint's
/// are four: the program, `bpf_trace_runN`, `__bpf_trace_X`, `__traceiter_X`).
const MACHINERY_MAX: i32 = 8;

impl Emitter<'_> {
    /// `caller` or `stackdepth` (`depth`) of the kernel stack, or of the user stack (`user`:
    /// no machinery there), into r0; 0 and 0 where there is no stack.
    pub(super) fn stack_value(&mut self, user: bool, depth: bool) -> Result<(), EmitError> {
        let frames = if user { USTACK_DEPTH } else { STACK_DEPTH };
        let size = 8 * frames as i32;
        // An ERROR clause runs in the program of the clause that faulted, on its stack.
        let program = self.error_args.map_or(self.attach, |a| a.program);
        let (own, hooks) = if user { (0, false) } else { attach::context_for(program, self.multi, self.fentry).stack_top() };
        self.scoped(|e| {
            let buf = Buf::Scratch(e.scratch(size as usize)?);
            e.push(Insn::mov(R1, R6));
            e.buf_addr(R2, buf);
            e.push(Insn::mov_imm(R3, size));
            e.push(Insn::mov_imm(R4, if user { F_USER_STACK } else { 0 }));
            e.push(Insn::call(helper::GET_STACK));
            // r2: the frames written (none on an error); r3: the machinery's (at most r2).
            e.push(Insn::mov(R2, R0));
            e.push(Insn::jmp_imm(Cond::Sge, R2, 0, 1));
            e.push(Insn::mov_imm(R2, 0));
            e.push(Insn::alu_imm(Alu::Rsh, R2, 3));
            e.buf_addr(R1, buf);
            let counted = e.label();
            e.push(Insn::mov_imm(R3, 0));
            for k in 0..MACHINERY_MAX {
                e.jump(Insn::jmp_imm(Cond::Le, R2, k, 0), counted);
                if k >= own as i32 {
                    if !hooks {
                        break;
                    }
                    e.machinery_frame(k, counted)?;
                }
                e.push(Insn::mov_imm(R3, k + 1));
            }
            e.bind(counted);
            if depth {
                e.push(Insn::mov(R0, R2));
                e.push(Insn::alu_reg(Alu::Sub, R0, R3));
                return Ok(());
            }
            // The frame after the first the probed code has, if any.
            let none = e.label();
            let done = e.label();
            e.push(Insn::alu_imm(Alu::Add, R3, 1));
            e.jump(Insn::jmp_reg(Cond::Ge, R3, R2, 0), none);
            e.jump(Insn::jmp_imm(Cond::Gt, R3, MACHINERY_MAX, 0), none);
            e.push(Insn::alu_imm(Alu::Lsh, R3, 3));
            e.push(Insn::alu_reg(Alu::Add, R1, R3));
            e.push(Insn::ldx(DW, R0, R1, 0));
            e.goto(done);
            e.bind(none);
            e.push(Insn::mov_imm(R0, 0));
            e.bind(done);
            Ok(())
        })
    }

    /// Goes to `counted` unless frame `k` of the stack at r1 is in one of the machinery's
    /// address ranges (clobbers r4).
    fn machinery_frame(&mut self, k: i32, counted: Label) -> Result<(), EmitError> {
        let ranges = self.target.tracing_frames.clone();
        if ranges.is_empty() {
            self.goto(counted);
            return Ok(());
        }
        let hook = self.label();
        self.push(Insn::ldx(DW, R4, R1, (8 * k) as i16));
        for (lo, hi) in ranges {
            let next = self.label();
            self.ld64(R5, lo as i64);
            self.jump(Insn::jmp_reg(Cond::Lt, R4, R5, 0), next);
            self.ld64(R5, hi as i64);
            self.jump(Insn::jmp_reg(Cond::Lt, R4, R5, 0), hook);
            self.bind(next);
        }
        self.goto(counted);
        self.bind(hook);
        Ok(())
    }
}
