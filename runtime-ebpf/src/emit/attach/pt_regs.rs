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
