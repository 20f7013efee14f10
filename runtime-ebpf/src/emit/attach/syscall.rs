//! System calls: raw tracepoint programs on `sys_enter`/`sys_exit`, whose context is
//! (`struct pt_regs *`, syscall number or return value). r7 holds the system call number
//! for the whole program.

use super::*;
use crate::emit::Filter;
use crumbs_lang::ir::{Expr, Node, StrExpr, SYSCALL_STR_BASE};
use crumbs_lang::providers::SYSCALL_ID_BASE;

use super::pt_regs::{ORIG_AX, SYSCALL_ARG_REGS as ARG_REGS};

pub(super) struct Syscall;

/// Whether a sys_exit program needs the system call number (a helper call on every return):
/// for a clause's filter, for the probe id (of its output record, or `id`), or for
/// probefunc. (A fault report reads it when a fault happens: [`Syscall::probe_id`].)
fn needs_syscall_number(group: &Group) -> bool {
    group.clauses.iter().any(|c| {
        c.filter != Filter::All
            || c.record.is_some()
            || c.any(&mut |n| matches!(n, Node::Str(StrExpr::Probe(VarHook::ProbeFunc))) || matches!(n, Node::Expr(Expr::Var(VarHook::ProbeId))))
    })
}

impl ProbeContext for Syscall {
    fn program_name(&self, _: &Program, attach: AttachPoint) -> String {
        if attach == AttachPoint::SyscallEntry { "crumbs_sys_enter" } else { "crumbs_sys_exit" }.into()
    }

    fn describe(&self, attach: AttachPoint) -> &'static str {
        if attach == AttachPoint::SyscallEntry {
            "raw_tracepoint:sys_enter"
        } else {
            "raw_tracepoint:sys_exit"
        }
    }

    fn prologue(&self, e: &mut Emitter, group: &Group) {
        if e.attach == AttachPoint::SyscallEntry {
            e.push(Insn::ldx(DW, R7, R6, 8));
            e.nr_in_r7 = true;
        } else if needs_syscall_number(group) {
            read_orig_ax(e, -8);
            e.push(Insn::ldx(DW, R7, R10, -8));
            e.nr_in_r7 = true;
        }
    }

    fn probe_id(&self, e: &mut Emitter) -> Result<(), EmitError> {
        if e.nr_in_r7 {
            e.push(Insn::mov(R0, R7));
        } else {
            // Only a fault report asks without the prologue having read it.
            e.scoped(|e| {
                let at = e.slot(8)?;
                read_orig_ax(e, at);
                e.push(Insn::ldx(DW, R0, R10, at));
                Ok(())
            })?;
        }
        e.push(Insn::alu_imm(Alu::Lsh, R0, 1));
        let ret = (e.attach == AttachPoint::SyscallReturn) as i32;
        e.push(Insn::alu_imm(Alu::Add, R0, SYSCALL_ID_BASE as i32 + ret));
        Ok(())
    }

    fn probe_const<'p>(&self, e: &Emitter<'p>, h: VarHook) -> Option<&'p str> {
        Some(match h {
            VarHook::ProbeProv => "syscall",
            VarHook::ProbeMod => "vmlinux",
            VarHook::ProbeName if e.attach == AttachPoint::SyscallEntry => "entry",
            VarHook::ProbeName => "return",
            _ => return None,
        })
    }

    /// The system call's name: its number's id among the interned strings.
    fn probe_func_id(&self, e: &mut Emitter) -> bool {
        e.ld64(R0, SYSCALL_STR_BASE as i64);
        e.push(Insn::alu_reg(Alu::Add, R0, R7));
        true
    }

    fn arg(&self, e: &mut Emitter, n: u8) -> Result<(), EmitError> {
        // A system call has at most six arguments: arg6..arg9 are 0, as DTrace's are.
        if e.attach == AttachPoint::SyscallEntry && (n as usize) < ARG_REGS.len() {
            e.scoped(|e| {
                let tmp = e.slot(8)?;
                e.push(Insn::ldx(DW, R0, R6, 0));
                e.read_kernel(tmp, R0, ARG_REGS[n as usize] as i32, 8);
                e.push(Insn::ldx(DW, R0, R10, tmp));
                Ok(())
            })?;
        } else if e.attach == AttachPoint::SyscallReturn && n <= 1 {
            e.push(Insn::ldx(DW, R0, R6, 8));
        } else {
            e.push(Insn::mov_imm(R0, 0));
        }
        Ok(())
    }

    fn errno(&self, e: &mut Emitter) {
        if e.attach != AttachPoint::SyscallReturn {
            e.push(Insn::mov_imm(R0, 0));
            return;
        }
        // errno = -ret for ret in [-4095, -1], else 0.
        e.push(Insn::ldx(DW, R0, R6, 8));
        e.push(Insn::jmp_imm(Cond::Sge, R0, 0, 3));
        e.push(Insn::jmp_imm(Cond::Slt, R0, -4095, 2));
        e.push(Insn::neg(R0));
        e.push(Insn::jmp_imm(Cond::Ja, 0, 0, 1));
        e.push(Insn::mov_imm(R0, 0));
    }
}

/// The system call number at a sys_exit, which is not among its arguments: regs->orig_ax,
/// read into the stack at r10 + `at` (clobbers r0-r5).
fn read_orig_ax(e: &mut Emitter, at: i16) {
    e.push(Insn::mov(R1, R10));
    e.push(Insn::alu_imm(Alu::Add, R1, at as i32));
    e.push(Insn::mov_imm(R2, 8));
    e.push(Insn::ldx(DW, R3, R6, 0));
    e.push(Insn::alu_imm(Alu::Add, R3, ORIG_AX as i32));
    e.push(Insn::call(helper::PROBE_READ_KERNEL));
}
