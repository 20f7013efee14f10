//! fbt probes as kprobes and kretprobes: one program per probed function, or one for many
//! (kprobe.multi, [`MULTI_ENTRY`]), whose context is the registers (`struct pt_regs *`)
//! where the function starts or has returned.

use super::*;
use crate::abi::COOKIE_SYSCALL_NAME;
use crumbs_lang::ir::SYSCALL_STR_BASE;
use crumbs_lang::providers::FBT_ID_BASE;

use super::pt_regs::{AX as REG_AX, ARG_REGS, SP as REG_SP};

pub(super) struct Kprobe {
    pub ret: bool,
    /// Attached to many functions with one kprobe.multi link: which one fired is in the
    /// attach cookie (`abi::fbt_cookie`), which the prologue keeps in r7.
    pub multi: bool,
}

pub(super) const ENTRY: Kprobe = Kprobe { ret: false, multi: false };
pub(super) const RETURN: Kprobe = Kprobe { ret: true, multi: false };
pub(super) const MULTI_ENTRY: Kprobe = Kprobe { ret: false, multi: true };
pub(super) const MULTI_RETURN: Kprobe = Kprobe { ret: true, multi: true };

/// The index of the probed function in the program's functions.
pub(super) fn index(attach: AttachPoint) -> usize {
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
        format!("crumbs_{}{}{}", if self.ret { "kret" } else { "kprobe" }, if self.multi { "multi" } else { "" }, index(attach))
    }

    fn describe(&self, _: AttachPoint) -> &'static str {
        match (self.ret, self.multi) {
            (false, false) => "kprobe",
            (true, false) => "kretprobe",
            (false, true) => "kprobe.multi",
            (true, true) => "kretprobe.multi",
        }
    }

    fn prologue(&self, e: &mut Emitter, _: &Group) {
        if self.multi {
            e.push(Insn::mov(R1, R6));
            e.push(Insn::call(helper::GET_ATTACH_COOKIE));
            e.push(Insn::mov(R7, R0));
        }
    }

    /// The stack is taken from the registers: it starts in the probed function (at its
    /// entry) or in its caller (at its return).
    fn stack_top(&self) -> (u32, bool) {
        (0, false)
    }

    fn probe_id(&self, e: &mut Emitter) -> Result<(), EmitError> {
        if self.multi {
            e.push(Insn::mov32(R0, R7));
            return Ok(());
        }
        let id = FBT_ID_BASE + 2 * index(e.attach) as u32 + self.ret as u32;
        e.push(Insn::mov_imm(R0, id as i32));
        Ok(())
    }

    /// A kprobe.multi program's function: the interned id in the cookie's high half.
    fn probe_func_id(&self, e: &mut Emitter) -> bool {
        if !self.multi {
            return false;
        }
        e.push(Insn::mov(R0, R7));
        e.push(Insn::alu_imm(Alu::Rsh, R0, 32));
        let plain = e.label();
        e.push(Insn::mov(R1, R0));
        e.push(Insn::alu_imm(Alu::Rsh, R1, COOKIE_SYSCALL_NAME.trailing_zeros() as i32));
        e.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), plain);
        e.push(Insn::alu_imm(Alu::And, R0, (COOKIE_SYSCALL_NAME - 1) as i32));
        e.ld64(R1, SYSCALL_STR_BASE as i64);
        e.push(Insn::alu_reg(Alu::Add, R0, R1));
        e.bind(plain);
        true
    }

    fn probe_const<'p>(&self, e: &Emitter<'p>, h: VarHook) -> Option<&'p str> {
        let f = &e.p.functions[index(e.attach)];
        let (provider, module, function, name) = f.shown(self.ret);
        Some(match h {
            VarHook::ProbeProv => provider,
            VarHook::ProbeMod => module,
            // A multi program's functions differ, but a stable probe's are all its own.
            VarHook::ProbeFunc if self.multi && f.stable.is_none() => return None,
            VarHook::ProbeFunc => function,
            VarHook::ProbeName => name,
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

    /// bpf_get_func_ip(): the kprobe's address at an entry (the function's, the probe being
    /// on its first instruction), the cookie's function under kprobe.multi; a kretprobe of
    /// its own fires in a trampoline that no longer knows it (the program then attaches as
    /// fexit, ir/fbt_needs.rs).
    fn function_address(&self, e: &mut Emitter) -> Result<(), EmitError> {
        if self.ret && !self.multi {
            return Err(e.err("the address of a returning function (bpftrace's func at a kretprobe) is known to fexit and kprobe.multi programs only: -x fbtmode=fentry attaches fbt probes as fentry/fexit"));
        }
        e.push(Insn::mov(R1, R6));
        e.push(Insn::call(helper::GET_FUNC_IP));
        Ok(())
    }

    /// bpf_override_return(ctx, rc): the kernel refuses the program where it was not built
    /// with CONFIG_BPF_KPROBE_OVERRIDE, and the attachment on a function it does not allow
    /// errors to be injected into.
    fn override_return(&self, e: &mut Emitter) -> Result<(), EmitError> {
        if self.ret || self.multi {
            return Err(e.err("override() makes a kernel function return at once, which only a kprobe of its own on the function's entry can do: -x fbtmode=kprobe attaches those"));
        }
        e.push(Insn::mov(R2, R0));
        e.push(Insn::mov(R1, R6));
        e.push(Insn::call(helper::OVERRIDE_RETURN));
        Ok(())
    }

    fn register(&self, e: &mut Emitter, word: u8) -> Result<(), EmitError> {
        super::pt_regs::register(e, word)
    }

    /// At entry, where the probe fires on the function's first instruction: sp points at
    /// the return address, the stack arguments above it.
    fn stack_arg(&self, e: &mut Emitter, n: u8) -> Result<(), EmitError> {
        super::pt_regs::stack_word(e, n, false)
    }
}
