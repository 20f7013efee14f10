//! fbt probes as kprobes and kretprobes: one program per probed function, whose context is
//! the registers (`struct pt_regs *`) where the function starts or has returned.

use super::*;
use crumbs_lang::providers::FBT_ID_BASE;

/// pt_regs offsets on x86-64 of the registers that pass the first six arguments (di, si, dx,
/// cx, r8, r9), of ax (the return value) and of sp.
const ARG_REGS: [i16; 6] = [112, 104, 96, 88, 72, 64];
const REG_AX: i16 = 80;
const REG_SP: i16 = 152;

pub(super) struct Kprobe {
    pub ret: bool,
}

pub(super) const ENTRY: Kprobe = Kprobe { ret: false };
pub(super) const RETURN: Kprobe = Kprobe { ret: true };

/// The index of the probed function in the program's functions.
fn index(attach: AttachPoint) -> usize {
    match attach {
        AttachPoint::FbtEntry(i) | AttachPoint::FbtReturn(i) => i as usize,
        _ => unreachable!("a kprobe context for {attach:?}"),
    }
}

impl ProbeContext for Kprobe {
    fn section_kind(&self) -> &'static str {
        if self.ret {
            "kretprobe"
        } else {
            "kprobe"
        }
    }

    fn program_name(&self, _: &Program, attach: AttachPoint) -> String {
        format!("crumbs_{}{}", if self.ret { "kret" } else { "kprobe" }, index(attach))
    }

    fn describe(&self, _: AttachPoint) -> &'static str {
        if self.ret {
            "kretprobe"
        } else {
            "kprobe"
        }
    }

    /// The stack is taken from the registers: it starts in the probed function (at its
    /// entry) or in its caller (at its return).
    fn stack_top(&self) -> (u32, bool) {
        (0, false)
    }

    fn probe_id(&self, e: &mut Emitter) -> Result<(), EmitError> {
        let id = FBT_ID_BASE + 2 * index(e.attach) as u32 + self.ret as u32;
        e.push(Insn::mov_imm(R0, id as i32));
        Ok(())
    }

    fn probe_const<'p>(&self, e: &Emitter<'p>, h: VarHook) -> Option<&'p str> {
        let f = &e.p.functions[index(e.attach)];
        Some(match h {
            VarHook::ProbeProv => "fbt",
            VarHook::ProbeMod => f.module.as_str(),
            VarHook::ProbeFunc => f.name.as_str(),
            VarHook::ProbeName if self.ret => "return",
            VarHook::ProbeName => "entry",
            _ => return None,
        })
    }

    /// Entry: the function's arguments, the first six from their registers, the rest from
    /// the stack (above the return address sp points at). Return: DTrace's arg0 is the
    /// offset of the returning instruction, which a kretprobe cannot know (0 here), and arg1
    /// the return value.
    fn arg(&self, e: &mut Emitter, n: u8) -> Result<(), EmitError> {
        match (self.ret, n) {
            (false, n) if (n as usize) < ARG_REGS.len() => e.push(Insn::ldx(DW, R0, R6, ARG_REGS[n as usize])),
            (false, n) => e.scoped(|e| {
                let tmp = e.slot(8)?;
                e.push(Insn::ldx(DW, R0, R6, REG_SP));
                e.read_kernel(tmp, R0, 8 * (n as i32 - 5), 8);
                e.push(Insn::ldx(DW, R0, R10, tmp));
                Ok(())
            })?,
            (true, 1) => e.push(Insn::ldx(DW, R0, R6, REG_AX)),
            (true, _) => e.push(Insn::mov_imm(R0, 0)),
        }
        Ok(())
    }
}
