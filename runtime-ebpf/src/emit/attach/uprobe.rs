//! pid and uprobe probes as uprobes and uretprobes: one program per probed place, whose
//! context is the user registers (`struct pt_regs *`) where the function starts (or the
//! instruction is) or has returned. A pid probe's program leaves at once in any other
//! process: the kernel runs every program on a uprobe for every process that hits it, when
//! another probe on the same place traces them all.

use super::*;
use crumbs_lang::facts::user::UsdtLoc;
use crumbs_lang::ir::UserProbe;
use crumbs_lang::providers::USER_ID_BASE;

use super::pt_regs::{AX as REG_AX, ARG_REGS, SP as REG_SP};

pub(super) struct Uprobe {
    pub ret: bool,
}

pub(super) const ENTRY: Uprobe = Uprobe { ret: false };
pub(super) const RETURN: Uprobe = Uprobe { ret: true };

/// The index of the probed place in the program's user probes.
fn index(attach: AttachPoint) -> usize {
    match attach {
        AttachPoint::UserEntry(i) | AttachPoint::UserReturn(i) => i as usize,
        _ => unreachable!("a uprobe context for {attach:?}"),
    }
}

fn place<'p>(e: &Emitter<'p>) -> &'p UserProbe {
    &e.p.user_probes[index(e.attach)]
}

impl ProbeContext for Uprobe {
    fn section_kind(&self) -> &'static str {
        if self.ret {
            "uretprobe"
        } else {
            "uprobe"
        }
    }

    fn program_name(&self, _: &Program, attach: AttachPoint) -> String {
        format!("crumbs_{}{}", if self.ret { "uret" } else { "uprobe" }, index(attach))
    }

    fn describe(&self, _: AttachPoint) -> &'static str {
        if self.ret {
            "uretprobe"
        } else {
            "uprobe"
        }
    }

    fn prologue(&self, e: &mut Emitter, _: &Group) {
        let Some(pid) = place(e).pid else { return };
        e.push(Insn::call(helper::GET_CURRENT_PID_TGID));
        e.push(Insn::alu_imm(Alu::Rsh, R0, 32));
        e.push(Insn::jmp_imm(Cond::Eq, R0, pid as i32, 2));
        e.push(Insn::mov_imm(R0, 0));
        e.push(Insn::exit());
    }

    /// The stack is taken from the registers: it starts in the probed function (at its
    /// entry) or in its caller (at its return).
    fn stack_top(&self) -> (u32, bool) {
        (0, false)
    }

    fn probe_id(&self, e: &mut Emitter) -> Result<(), EmitError> {
        e.push(Insn::mov_imm(R0, (USER_ID_BASE + index(e.attach) as u32) as i32));
        Ok(())
    }

    fn probe_const<'p>(&self, e: &Emitter<'p>, h: VarHook) -> Option<&'p str> {
        let u = place(e);
        Some(match h {
            VarHook::ProbeProv => u.provider.as_str(),
            VarHook::ProbeMod => u.module.as_str(),
            VarHook::ProbeFunc => u.function.as_str(),
            VarHook::ProbeName => u.name.as_str(),
            _ => return None,
        })
    }

    /// Entry: the function's arguments (x86-64 SysV), the first six from their registers,
    /// the rest from the user stack (above the return address sp points at). Return:
    /// DTrace's arg0 is the offset of the returning instruction, which a uretprobe cannot
    /// know (0 here), and arg1 the return value.
    fn arg(&self, e: &mut Emitter, n: u8) -> Result<(), EmitError> {
        if !place(e).usdt_args.is_empty() {
            return usdt_arg(e, n);
        }
        match (self.ret, n) {
            (false, n) if (n as usize) < ARG_REGS.len() => e.push(Insn::ldx(DW, R0, R6, ARG_REGS[n as usize])),
            (false, n) => e.scoped(|e| {
                let tmp = e.slot(8)?;
                e.push(Insn::st_imm(DW, R10, tmp, 0));
                e.push(Insn::ldx(DW, R3, R6, REG_SP));
                e.push(Insn::alu_imm(Alu::Add, R3, 8 * (n as i32 - 5)));
                e.push(Insn::mov(R1, R10));
                e.push(Insn::alu_imm(Alu::Add, R1, tmp as i32));
                e.push(Insn::mov_imm(R2, 8));
                e.push(Insn::call(helper::PROBE_READ_USER));
                e.push(Insn::ldx(DW, R0, R10, tmp));
                Ok(())
            })?,
            (true, 1) => e.push(Insn::ldx(DW, R0, R6, REG_AX)),
            (true, _) => e.push(Insn::mov_imm(R0, 0)),
        }
        Ok(())
    }

    fn register(&self, e: &mut Emitter, word: u8) -> Result<(), EmitError> {
        super::pt_regs::register(e, word)
    }

    /// The user stack's words above the return address sp points at a function's entry.
    fn stack_arg(&self, e: &mut Emitter, n: u8) -> Result<(), EmitError> {
        super::pt_regs::stack_word(e, n, true)
    }
}


/// A USDT probe's argument `n` into r0, as its note's spec locates it, sign- or
/// zero-extended from its size; 0 for an argument the probe does not have, or whose spec
/// crumbs does not read, or whose memory cannot be read.
fn usdt_arg(e: &mut Emitter, n: u8) -> Result<(), EmitError> {
    let Some(arg) = place(e).usdt_args.get(n as usize) else {
        e.push(Insn::mov_imm(R0, 0));
        return Ok(());
    };
    match &arg.at {
        UsdtLoc::Const(v) => {
            e.ld64(R0, *v);
            return Ok(());
        }
        UsdtLoc::Reg(r) => match super::pt_regs::offset(r) {
            Some(off) => e.push(Insn::ldx(DW, R0, R6, off)),
            None => e.push(Insn::mov_imm(R0, 0)),
        },
        UsdtLoc::Mem { base, disp } => match (super::pt_regs::offset(base), i32::try_from(*disp)) {
            (Some(off), Ok(disp)) => e.scoped(|e| {
                let tmp = e.slot(8)?;
                e.push(Insn::st_imm(DW, R10, tmp, 0));
                e.push(Insn::ldx(DW, R3, R6, off));
                e.push(Insn::alu_imm(Alu::Add, R3, disp));
                e.push(Insn::mov(R1, R10));
                e.push(Insn::alu_imm(Alu::Add, R1, tmp as i32));
                e.push(Insn::mov_imm(R2, arg.size as i32));
                e.push(Insn::call(helper::PROBE_READ_USER));
                e.push(Insn::ldx(DW, R0, R10, tmp));
                Ok(())
            })?,
            _ => e.push(Insn::mov_imm(R0, 0)),
        },
        UsdtLoc::Unsupported(_) => e.push(Insn::mov_imm(R0, 0)),
    }
    if arg.size < 8 {
        let shift = 64 - 8 * arg.size as i32;
        e.push(Insn::alu_imm(Alu::Lsh, R0, shift));
        e.push(Insn::alu_imm(if arg.signed { Alu::Arsh } else { Alu::Rsh }, R0, shift));
    }
    Ok(())
}
