//! fbt probes as fentry and fexit programs (BPF trampolines): one program per probed
//! function, loaded against its BTF prototype, whose context is the function's arguments as
//! an array of u64 (and, at fexit, its return value after them). Arguments are read with
//! bpf_get_func_arg()/bpf_get_func_ret() (Linux 5.17), which know the function's argument
//! count: an argument past it is 0 where a direct read of the context would be refused.

use super::kprobe::index;
use super::*;
use crumbs_lang::providers::FBT_ID_BASE;

pub(super) struct Fentry {
    pub ret: bool,
}

pub(super) const FENTRY: Fentry = Fentry { ret: false };
pub(super) const FEXIT: Fentry = Fentry { ret: true };

impl ProbeContext for Fentry {
    fn section_kind(&self) -> &'static str {
        if self.ret {
            "fexit"
        } else {
            "fentry"
        }
    }

    fn program_name(&self, _: &Program, attach: AttachPoint) -> String {
        format!("crumbs_{}{}", self.section_kind(), index(attach))
    }

    fn describe(&self, _: AttachPoint) -> &'static str {
        self.section_kind()
    }

    /// The stack is taken in the program, which the trampoline called from the probed
    /// function's first instruction (or after it returned).
    fn stack_top(&self) -> (u32, bool) {
        (1, false)
    }

    fn probe_id(&self, e: &mut Emitter) -> Result<(), EmitError> {
        let id = FBT_ID_BASE + 2 * index(e.attach) as u32 + self.ret as u32;
        e.push(Insn::mov_imm(R0, id as i32));
        Ok(())
    }

    fn probe_const<'p>(&self, e: &Emitter<'p>, h: VarHook) -> Option<&'p str> {
        let (provider, module, function, name) = e.p.functions[index(e.attach)].shown(self.ret);
        Some(match h {
            VarHook::ProbeProv => provider,
            VarHook::ProbeMod => module,
            VarHook::ProbeFunc => function,
            VarHook::ProbeName => name,
            _ => return None,
        })
    }

    /// Entry: argument n. Return: DTrace's arg0 is the returning instruction's offset,
    /// which a trampoline does not know (0), arg1 the return value.
    fn arg(&self, e: &mut Emitter, n: u8) -> Result<(), EmitError> {
        let helper = match (self.ret, n) {
            (false, _) => helper::GET_FUNC_ARG,
            (true, 1) => helper::GET_FUNC_RET,
            (true, _) => {
                e.push(Insn::mov_imm(R0, 0));
                return Ok(());
            }
        };
        e.scoped(|e| {
            let tmp = e.slot(8)?;
            e.push(Insn::st_imm(DW, R10, tmp, 0));
            e.push(Insn::mov(R1, R6));
            if self.ret {
                e.push(Insn::mov(R2, R10));
                e.push(Insn::alu_imm(Alu::Add, R2, tmp as i32));
            } else {
                e.push(Insn::mov_imm(R2, n as i32));
                e.push(Insn::mov(R3, R10));
                e.push(Insn::alu_imm(Alu::Add, R3, tmp as i32));
            }
            e.push(Insn::call(helper));
            e.push(Insn::ldx(DW, R0, R10, tmp));
            Ok(())
        })
    }

    /// The context is the arguments as u64s: a pointer read from there is typed by the
    /// function's prototype.
    fn trusted_arg(&self, e: &mut Emitter, reg: Reg, n: u8) -> Result<(), EmitError> {
        e.push(Insn::ldx(DW, reg, R6, 8 * n as i16));
        Ok(())
    }

    /// The trampoline keeps the function's address below its context.
    fn function_address(&self, e: &mut Emitter) -> Result<(), EmitError> {
        e.push(Insn::mov(R1, R6));
        e.push(Insn::call(helper::GET_FUNC_IP));
        Ok(())
    }

    fn register(&self, e: &mut Emitter, _word: u8) -> Result<(), EmitError> {
        Err(e.err(TRAMPOLINE_HAS_NO_REGISTERS.replace("{what}", "reg()")))
    }

    fn stack_arg(&self, e: &mut Emitter, _n: u8) -> Result<(), EmitError> {
        Err(e.err(TRAMPOLINE_HAS_NO_REGISTERS.replace("{what}", "sargN")))
    }
}

/// Why reg() and sargN cannot be read in a trampoline's program: crumbs attaches fbt probes
/// as kprobes for them unless told otherwise.
const TRAMPOLINE_HAS_NO_REGISTERS: &str = "{what} reads the registers saved where the probe fired, which an fentry/fexit trampoline does not save: -x fbtmode=kprobe (or multi) attaches kprobes, which do";
