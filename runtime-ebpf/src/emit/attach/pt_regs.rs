//! x86-64's `struct pt_regs`: where each register is saved, for the contexts that are one
//! (kprobes, uprobes, USDT argument specs) or point to one (system calls).

/// The byte offset of register `name` (as a USDT argument spec names it) in `struct pt_regs`.
pub(super) fn offset(name: &str) -> Option<i16> {
    Some(match name {
        "r15" => 0,
        "r14" => 8,
        "r13" => 16,
        "r12" => 24,
        "rbp" => 32,
        "rbx" => 40,
        "r11" => 48,
        "r10" => 56,
        "r9" => 64,
        "r8" => 72,
        "rax" => 80,
        "rcx" => 88,
        "rdx" => 96,
        "rsi" => 104,
        "rdi" => 112,
        "orig_rax" => 120,
        "rip" => 128,
        "rsp" => 152,
        _ => return None,
    })
}

/// The registers that pass a function's first six arguments (SysV: di, si, dx, cx, r8, r9).
pub(super) const ARG_REGS: [i16; 6] = [112, 104, 96, 88, 72, 64];
/// The registers that pass a system call's six arguments (di, si, dx, r10, r8, r9).
pub(super) const SYSCALL_ARG_REGS: [i16; 6] = [112, 104, 96, 56, 72, 64];
/// The return value.
pub(super) const AX: i16 = 80;
/// The system call number at entry.
pub(super) const ORIG_AX: i16 = 120;
/// The stack pointer.
pub(super) const SP: i16 = 152;

use super::{EmitError, Emitter};
use crate::insn::*;

/// bpftrace's `reg()`: word `word` of the registers the context (r6) is, into r0.
pub(super) fn register(e: &mut Emitter, word: u8) -> Result<(), EmitError> {
    if word > 20 {
        return Err(e.err(format!("internal: pt_regs has no word {word}")));
    }
    e.push(Insn::ldx(DW, R0, R6, 8 * word as i16));
    Ok(())
}

/// The `n`th word above the return address at the top of the stack the context's sp
/// points at (a function's stack arguments: bpftrace's `sargN`, and `arg6`...), into r0;
/// read from user memory (`user`, at a uprobe) or the kernel's; 0 if it cannot be read.
pub(super) fn stack_word(e: &mut Emitter, n: u8, user: bool) -> Result<(), EmitError> {
    e.scoped(|e| {
        let tmp = e.slot(8)?;
        e.push(Insn::st_imm(DW, R10, tmp, 0));
        e.push(Insn::ldx(DW, R3, R6, SP));
        e.push(Insn::alu_imm(Alu::Add, R3, 8 * (n as i32 + 1)));
        e.push(Insn::mov(R1, R10));
        e.push(Insn::alu_imm(Alu::Add, R1, tmp as i32));
        e.push(Insn::mov_imm(R2, 8));
        e.push(Insn::call(if user { helper::PROBE_READ_USER } else { helper::PROBE_READ_KERNEL }));
        e.push(Insn::ldx(DW, R0, R10, tmp));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_named_offsets_agree_with_the_table() {
        let by_name = |names: [&str; 6]| names.map(|n| offset(n).unwrap());
        assert_eq!(ARG_REGS, by_name(["rdi", "rsi", "rdx", "rcx", "r8", "r9"]));
        assert_eq!(SYSCALL_ARG_REGS, by_name(["rdi", "rsi", "rdx", "r10", "r8", "r9"]));
        assert_eq!([AX, ORIG_AX, SP], [offset("rax"), offset("orig_rax"), offset("rsp")].map(Option::unwrap));
    }
}
