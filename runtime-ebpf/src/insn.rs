//! BPF instructions: encoding, constructors and a readable disassembly.

use aya_obj::generated as uapi;
use helper::bpf_func_id;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    pub code: u8,
    pub dst: u8,
    pub src: u8,
    pub off: i16,
    pub imm: i32,
}

pub type Reg = u8;
pub const R0: Reg = 0;
pub const R1: Reg = 1;
pub const R2: Reg = 2;
pub const R3: Reg = 3;
pub const R4: Reg = 4;
pub const R5: Reg = 5;
pub const R6: Reg = 6;
pub const R7: Reg = 7;
pub const R8: Reg = 8;
pub const R9: Reg = 9;
pub const R10: Reg = 10;

// Opcode parts from the kernel's uapi header (linux/bpf.h, linux/bpf_common.h), as aya-obj
// generates them.
// Classes.
pub const LD: u8 = uapi::BPF_LD as u8;
pub const LDX: u8 = uapi::BPF_LDX as u8;
pub const STX: u8 = uapi::BPF_STX as u8;
pub const ST: u8 = uapi::BPF_ST as u8;
pub const ALU: u8 = uapi::BPF_ALU as u8;
pub const JMP: u8 = uapi::BPF_JMP as u8;
pub const ALU64: u8 = uapi::BPF_ALU64 as u8;
// Sizes.
pub const W: u8 = uapi::BPF_W as u8;
pub const H: u8 = uapi::BPF_H as u8;
pub const B: u8 = uapi::BPF_B as u8;
pub const DW: u8 = uapi::BPF_DW as u8;
pub const IMM: u8 = uapi::BPF_IMM as u8;
pub const MEM: u8 = uapi::BPF_MEM as u8;
pub const ATOMIC: u8 = uapi::BPF_ATOMIC as u8;
/// Atomic operations (the immediate of an ATOMIC store).
pub const ATOMIC_ADD: i32 = uapi::BPF_ADD as i32;
pub const ATOMIC_CMPXCHG: i32 = uapi::BPF_CMPXCHG as i32;
// Sources.
pub const K: u8 = uapi::BPF_K as u8;
pub const X: u8 = uapi::BPF_X as u8;
/// Byte swap (an ALU operation) and its direction.
const END: u8 = uapi::BPF_END as u8;
const TO_BE: u8 = uapi::BPF_TO_BE as u8;
/// ld_imm64's source register when its immediate is a map fd or a map value's address.
const PSEUDO_MAP_FD: u8 = uapi::BPF_PSEUDO_MAP_FD as u8;
const PSEUDO_MAP_VALUE: u8 = uapi::BPF_PSEUDO_MAP_VALUE as u8;

// The header splits an opcode with macros (BPF_CLASS, BPF_SIZE, BPF_MODE, BPF_OP, BPF_SRC),
// which bindgen does not translate: their masks are ours.
const CLASS_MASK: u8 = 0x07;
const SIZE_MASK: u8 = 0x18;
const MODE_MASK: u8 = 0xe0;
const OP_MASK: u8 = 0xf0;
const SRC_MASK: u8 = 0x08;

/// ALU operations (the high nibble of an ALU opcode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alu {
    Add = uapi::BPF_ADD as isize,
    Sub = uapi::BPF_SUB as isize,
    Mul = uapi::BPF_MUL as isize,
    Div = uapi::BPF_DIV as isize,
    Or = uapi::BPF_OR as isize,
    And = uapi::BPF_AND as isize,
    Lsh = uapi::BPF_LSH as isize,
    Rsh = uapi::BPF_RSH as isize,
    Neg = uapi::BPF_NEG as isize,
    Mod = uapi::BPF_MOD as isize,
    Xor = uapi::BPF_XOR as isize,
    Mov = uapi::BPF_MOV as isize,
    Arsh = uapi::BPF_ARSH as isize,
}

impl Alu {
    const ALL: [Alu; 13] = [Alu::Add, Alu::Sub, Alu::Mul, Alu::Div, Alu::Or, Alu::And, Alu::Lsh, Alu::Rsh, Alu::Neg, Alu::Mod, Alu::Xor, Alu::Mov, Alu::Arsh];

    /// The operator in the verifier's notation (`dst op= src`); Neg is written apart.
    fn symbol(self) -> &'static str {
        match self {
            Alu::Add => "+=",
            Alu::Sub => "-=",
            Alu::Mul => "*=",
            Alu::Div => "/=",
            Alu::Or => "|=",
            Alu::And => "&=",
            Alu::Lsh => "<<=",
            Alu::Rsh => ">>=",
            Alu::Neg => "= -",
            Alu::Mod => "%=",
            Alu::Xor => "^=",
            Alu::Mov => "=",
            Alu::Arsh => "s>>=",
        }
    }
}

/// Jump conditions (the high nibble of a JMP opcode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    Ja = uapi::BPF_JA as isize,
    Eq = uapi::BPF_JEQ as isize,
    Gt = uapi::BPF_JGT as isize,
    Ge = uapi::BPF_JGE as isize,
    Set = uapi::BPF_JSET as isize,
    Ne = uapi::BPF_JNE as isize,
    Sgt = uapi::BPF_JSGT as isize,
    Sge = uapi::BPF_JSGE as isize,
    Lt = uapi::BPF_JLT as isize,
    Le = uapi::BPF_JLE as isize,
    Slt = uapi::BPF_JSLT as isize,
    Sle = uapi::BPF_JSLE as isize,
}

impl Cond {
    const ALL: [Cond; 12] = [Cond::Ja, Cond::Eq, Cond::Gt, Cond::Ge, Cond::Set, Cond::Ne, Cond::Sgt, Cond::Sge, Cond::Lt, Cond::Le, Cond::Slt, Cond::Sle];

    /// The comparison in the verifier's notation (`if dst op src goto`); Ja is `goto`.
    fn symbol(self) -> &'static str {
        match self {
            Cond::Ja => "goto",
            Cond::Eq => "==",
            Cond::Gt => ">",
            Cond::Ge => ">=",
            Cond::Set => "&",
            Cond::Ne => "!=",
            Cond::Sgt => "s>",
            Cond::Sge => "s>=",
            Cond::Lt => "<",
            Cond::Le => "<=",
            Cond::Slt => "s<",
            Cond::Sle => "s<=",
        }
    }
}

pub const CALL: u8 = uapi::BPF_CALL as u8;
pub const EXIT: u8 = uapi::BPF_EXIT as u8;

/// Kernel helper functions the code generator calls, under the uapi's ids.
pub mod helper {
    pub use aya_obj::generated::bpf_func_id;
    pub use bpf_func_id::{
        BPF_FUNC_get_current_comm as GET_CURRENT_COMM, BPF_FUNC_get_current_pid_tgid as GET_CURRENT_PID_TGID,
        BPF_FUNC_get_current_task as GET_CURRENT_TASK, BPF_FUNC_get_current_task_btf as GET_CURRENT_TASK_BTF, BPF_FUNC_task_pt_regs as TASK_PT_REGS, BPF_FUNC_get_current_uid_gid as GET_CURRENT_UID_GID,
        BPF_FUNC_get_prandom_u32 as GET_PRANDOM_U32, BPF_FUNC_loop as LOOP, BPF_FUNC_probe_write_user as PROBE_WRITE_USER, BPF_FUNC_get_smp_processor_id as GET_SMP_PROCESSOR_ID, BPF_FUNC_get_stack as GET_STACK, BPF_FUNC_get_stackid as GET_STACKID,
        BPF_FUNC_ktime_get_ns as KTIME_GET_NS, BPF_FUNC_map_delete_elem as MAP_DELETE_ELEM,
        BPF_FUNC_map_lookup_elem as MAP_LOOKUP_ELEM, BPF_FUNC_map_update_elem as MAP_UPDATE_ELEM,
        BPF_FUNC_probe_read_kernel as PROBE_READ_KERNEL, BPF_FUNC_probe_read_kernel_str as PROBE_READ_KERNEL_STR,
        BPF_FUNC_probe_read_user as PROBE_READ_USER, BPF_FUNC_probe_read_user_str as PROBE_READ_USER_STR,
        BPF_FUNC_ringbuf_output as RINGBUF_OUTPUT, BPF_FUNC_ringbuf_reserve as RINGBUF_RESERVE,
        BPF_FUNC_ringbuf_submit as RINGBUF_SUBMIT, BPF_FUNC_ringbuf_discard as RINGBUF_DISCARD, BPF_FUNC_send_signal as SEND_SIGNAL, BPF_FUNC_get_attach_cookie as GET_ATTACH_COOKIE,
        BPF_FUNC_get_func_arg as GET_FUNC_ARG, BPF_FUNC_get_func_ret as GET_FUNC_RET, BPF_FUNC_get_current_cgroup_id as GET_CURRENT_CGROUP_ID,
        BPF_FUNC_for_each_map_elem as FOR_EACH_MAP_ELEM,
        BPF_FUNC_get_numa_node_id as GET_NUMA_NODE_ID, BPF_FUNC_jiffies64 as JIFFIES64, BPF_FUNC_override_return as OVERRIDE_RETURN,
        BPF_FUNC_d_path as D_PATH, BPF_FUNC_get_func_ip as GET_FUNC_IP,
        BPF_FUNC_ktime_get_boot_ns as KTIME_GET_BOOT_NS, BPF_FUNC_ktime_get_tai_ns as KTIME_GET_TAI_NS,
        BPF_FUNC_send_signal_thread as SEND_SIGNAL_THREAD, BPF_FUNC_get_socket_cookie as GET_SOCKET_COOKIE,
        BPF_FUNC_this_cpu_ptr as THIS_CPU_PTR, BPF_FUNC_per_cpu_ptr as PER_CPU_PTR,
        BPF_FUNC_seq_printf as SEQ_PRINTF,
    };

    /// The helpers the disassembler names (the enum cannot be built from a call's id).
    pub(super) const NAMED: [bpf_func_id; 42] = [
        SEQ_PRINTF,
        KTIME_GET_BOOT_NS,
        KTIME_GET_TAI_NS,
        SEND_SIGNAL_THREAD,
        GET_SOCKET_COOKIE,
        THIS_CPU_PTR,
        PER_CPU_PTR,
        GET_FUNC_IP,
        D_PATH,
        OVERRIDE_RETURN,
        FOR_EACH_MAP_ELEM,
        GET_NUMA_NODE_ID,
        JIFFIES64,
        GET_CURRENT_CGROUP_ID,
        GET_ATTACH_COOKIE,
        GET_FUNC_ARG,
        GET_FUNC_RET,
        MAP_LOOKUP_ELEM,
        MAP_UPDATE_ELEM,
        MAP_DELETE_ELEM,
        KTIME_GET_NS,
        GET_SMP_PROCESSOR_ID,
        GET_CURRENT_PID_TGID,
        GET_CURRENT_UID_GID,
        GET_CURRENT_COMM,
        GET_STACKID,
        GET_STACK,
        GET_CURRENT_TASK,
        GET_CURRENT_TASK_BTF,
        TASK_PT_REGS,
        PROBE_READ_KERNEL,
        PROBE_READ_USER,
        PROBE_READ_USER_STR,
        PROBE_READ_KERNEL_STR,
        RINGBUF_OUTPUT,
        RINGBUF_RESERVE,
        RINGBUF_SUBMIT,
        RINGBUF_DISCARD,
        SEND_SIGNAL,
        GET_PRANDOM_U32,
        LOOP,
        PROBE_WRITE_USER,
    ];
}

impl Insn {
    pub fn new(code: u8, dst: Reg, src: Reg, off: i16, imm: i32) -> Insn {
        Insn { code, dst, src, off, imm }
    }
    pub fn alu_imm(op: Alu, dst: Reg, imm: i32) -> Insn {
        Insn::new(ALU64 | op as u8 | K, dst, 0, 0, imm)
    }
    pub fn alu_reg(op: Alu, dst: Reg, src: Reg) -> Insn {
        Insn::new(ALU64 | op as u8 | X, dst, src, 0, 0)
    }
    pub fn mov_imm(dst: Reg, imm: i32) -> Insn {
        Insn::alu_imm(Alu::Mov, dst, imm)
    }
    pub fn mov(dst: Reg, src: Reg) -> Insn {
        Insn::alu_reg(Alu::Mov, dst, src)
    }
    /// 32-bit move: zero-extends the low half of `src`.
    pub fn mov32(dst: Reg, src: Reg) -> Insn {
        Insn::new(ALU | Alu::Mov as u8 | X, dst, src, 0, 0)
    }
    pub fn neg(dst: Reg) -> Insn {
        Insn::new(ALU64 | Alu::Neg as u8, dst, 0, 0, 0)
    }
    /// Byte swap of the low `bits` (16, 32 or 64) to big endian, the rest zeroed: htons() and
    /// the others on a little-endian machine.
    pub fn to_be(dst: Reg, bits: i32) -> Insn {
        Insn::new(ALU | END | TO_BE, dst, 0, 0, bits)
    }
    pub fn ldx(size: u8, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(LDX | MEM | size, dst, src, off, 0)
    }
    pub fn stx(size: u8, dst: Reg, off: i16, src: Reg) -> Insn {
        Insn::new(STX | MEM | size, dst, src, off, 0)
    }
    /// `lock *(u64 *)(dst + off) += src`.
    pub fn atomic_add(dst: Reg, off: i16, src: Reg) -> Insn {
        Insn::new(STX | ATOMIC | DW, dst, src, off, ATOMIC_ADD)
    }
    /// `src` = the old `*(u64 *)(dst + off)`, which gains `src`.
    pub fn atomic_fetch_add(dst: Reg, off: i16, src: Reg) -> Insn {
        Insn::new(STX | ATOMIC | DW, dst, src, off, ATOMIC_ADD | uapi::BPF_FETCH as i32)
    }
    /// Compare-and-exchange: if `*(u64 *)(dst + off)` equals r0 it becomes `src`; either way r0
    /// receives the old value.
    pub fn cmpxchg(dst: Reg, off: i16, src: Reg) -> Insn {
        Insn::new(STX | ATOMIC | DW, dst, src, off, ATOMIC_CMPXCHG)
    }
    pub fn st_imm(size: u8, dst: Reg, off: i16, imm: i32) -> Insn {
        Insn::new(ST | MEM | size, dst, 0, off, imm)
    }
    pub fn jmp_imm(c: Cond, dst: Reg, imm: i32, off: i16) -> Insn {
        Insn::new(JMP | c as u8 | K, dst, 0, off, imm)
    }
    pub fn jmp_reg(c: Cond, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(JMP | c as u8 | X, dst, src, off, 0)
    }
    pub fn call(helper: bpf_func_id) -> Insn {
        Insn::new(JMP | CALL, 0, 0, 0, helper as i32)
    }
    /// A call of the kernel function (kfunc) with BTF id `id` in vmlinux.
    pub fn call_kfunc(id: u32) -> Insn {
        Insn::new(JMP | CALL, 0, uapi::BPF_PSEUDO_KFUNC_CALL as u8, 0, id as i32)
    }
    pub fn exit() -> Insn {
        Insn::new(JMP | EXIT, 0, 0, 0, 0)
    }
    /// The two halves of a 64-bit immediate load.
    pub fn ld_imm64(dst: Reg, v: i64) -> [Insn; 2] {
        [Insn::new(LD | DW | IMM, dst, 0, 0, v as i32), Insn::new(0, 0, 0, 0, (v >> 32) as i32)]
    }

    pub fn encode(&self) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0] = self.code;
        b[1] = (self.src << 4) | (self.dst & 0x0f);
        b[2..4].copy_from_slice(&self.off.to_le_bytes());
        b[4..8].copy_from_slice(&self.imm.to_le_bytes());
        b
    }

    /// A conditional jump on the opposite condition (same operands and offset).
    pub fn inverted(&self) -> Insn {
        let c = Cond::ALL.into_iter().find(|c| *c as u8 == self.code & OP_MASK).expect("a jump");
        let opposite = match c {
            Cond::Eq => Cond::Ne,
            Cond::Ne => Cond::Eq,
            Cond::Gt => Cond::Le,
            Cond::Le => Cond::Gt,
            Cond::Ge => Cond::Lt,
            Cond::Lt => Cond::Ge,
            Cond::Sgt => Cond::Sle,
            Cond::Sle => Cond::Sgt,
            Cond::Sge => Cond::Slt,
            Cond::Slt => Cond::Sge,
            Cond::Ja | Cond::Set => panic!("{c:?} has no opposite condition"),
        };
        Insn { code: (self.code & !OP_MASK) | opposite as u8, ..*self }
    }

    pub fn is_jump(&self) -> bool {
        let class = self.code & CLASS_MASK;
        (class == JMP) && !matches!(self.code & OP_MASK, CALL | EXIT)
    }
}

/// A readable listing, one instruction per line, in the kernel verifier's notation.
pub fn disassemble(insns: &[Insn]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < insns.len() {
        let n = insns[i];
        let text = describe(&n, insns.get(i + 1));
        out.push_str(&format!("{i:4}: {text}\n"));
        i += if n.code == LD | DW | IMM { 2 } else { 1 };
    }
    out
}

fn describe(n: &Insn, next: Option<&Insn>) -> String {
    let class = n.code & CLASS_MASK;
    let size = |c: u8| match c & SIZE_MASK {
        W => "u32",
        H => "u16",
        B => "u8",
        _ => "u64",
    };
    let op = n.code & OP_MASK;
    match class {
        ALU64 | ALU => {
            if op == Alu::Neg as u8 {
                return format!("r{} = -r{}", n.dst, n.dst);
            }
            if op == END {
                return format!("r{} = be{} r{}", n.dst, n.imm, n.dst);
            }
            let op = Alu::ALL.into_iter().find(|a| *a as u8 == op).map_or("?=", Alu::symbol);
            let reg = if class == ALU { "w" } else { "r" };
            if n.code & SRC_MASK == X {
                format!("{reg}{} {op} {reg}{}", n.dst, n.src)
            } else {
                format!("{reg}{} {op} {}", n.dst, n.imm)
            }
        }
        LDX => format!("r{} = *({} *)(r{} {:+})", n.dst, size(n.code), n.src, n.off),
        STX if n.code & MODE_MASK == ATOMIC => match n.imm {
            ATOMIC_ADD => format!("lock *({} *)(r{} {:+}) += r{}", size(n.code), n.dst, n.off, n.src),
            ATOMIC_CMPXCHG => format!("r0 = cmpxchg(({} *)(r{} {:+}), r0, r{})", size(n.code), n.dst, n.off, n.src),
            op if op == ATOMIC_ADD | uapi::BPF_FETCH as i32 => format!("r{} = atomic_fetch_add(({} *)(r{} {:+}), r{})", n.src, size(n.code), n.dst, n.off, n.src),
            op => format!("atomic op {op:#x} on ({} *)(r{} {:+}) with r{}", size(n.code), n.dst, n.off, n.src),
        },
        STX => format!("*({} *)(r{} {:+}) = r{}", size(n.code), n.dst, n.off, n.src),
        ST => format!("*({} *)(r{} {:+}) = {}", size(n.code), n.dst, n.off, n.imm),
        LD => {
            let hi = next.map_or(0, |x| x.imm) as i64;
            let v = (hi << 32) | (n.imm as u32 as i64);
            match n.src {
                PSEUDO_MAP_FD => format!("r{} = map_fd({})", n.dst, n.imm),
                PSEUDO_MAP_VALUE => format!("r{} = map_value({}) + {}", n.dst, n.imm, hi),
                _ => format!("r{} = {:#x} ll", n.dst, v),
            }
        }
        JMP => match op {
            CALL if n.src == uapi::BPF_PSEUDO_KFUNC_CALL as u8 => format!("call kfunc#{}", n.imm),
            CALL => format!("call {}", helper_name(n.imm)),
            EXIT => "exit".to_string(),
            c if c == Cond::Ja as u8 => format!("goto {:+}", n.off),
            c => {
                let op = Cond::ALL.into_iter().find(|k| *k as u8 == c).map_or("?", Cond::symbol);
                let rhs = if n.code & SRC_MASK == X { format!("r{}", n.src) } else { n.imm.to_string() };
                format!("if r{} {op} {rhs} goto {:+}", n.dst, n.off)
            }
        },
        _ => format!("raw {:02x} {} {} {} {}", n.code, n.dst, n.src, n.off, n.imm),
    }
}

/// `bpf_map_lookup_elem` for BPF_FUNC_map_lookup_elem, as the kernel's headers name helpers.
fn helper_name(id: i32) -> String {
    match helper::NAMED.into_iter().find(|h| *h as i32 == id) {
        Some(h) => format!("{h:?}").replacen("BPF_FUNC_", "bpf_", 1),
        None => format!("helper#{id}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_the_kernel() {
        // r0 = 0 ; exit
        assert_eq!(Insn::mov_imm(R0, 0).encode(), [0xb7, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(Insn::exit().encode(), [0x95, 0, 0, 0, 0, 0, 0, 0]);
        // *(u64 *)(r10 -8) = r1
        assert_eq!(Insn::stx(DW, R10, -8, R1).encode(), [0x7b, 0x1a, 0xf8, 0xff, 0, 0, 0, 0]);
        // r2 = *(u32 *)(r1 +4)
        assert_eq!(Insn::ldx(W, R2, R1, 4).encode(), [0x61, 0x12, 4, 0, 0, 0, 0, 0]);
        // if r1 == 5 goto +3
        assert_eq!(Insn::jmp_imm(Cond::Eq, R1, 5, 3).encode(), [0x15, 0x01, 3, 0, 5, 0, 0, 0]);
        // call bpf_ktime_get_ns
        assert_eq!(Insn::call(helper::KTIME_GET_NS).encode(), [0x85, 0, 0, 0, 5, 0, 0, 0]);
        // lock *(u64 *)(r1 +8) += r2 ; r0 = cmpxchg((u64 *)(r3 +0), r0, r4)
        assert_eq!(Insn::atomic_add(R1, 8, R2).encode(), [0xdb, 0x21, 8, 0, 0, 0, 0, 0]);
        assert_eq!(Insn::cmpxchg(R3, 0, R4).encode(), [0xdb, 0x43, 0, 0, 0xf1, 0, 0, 0]);
        let [a, b] = Insn::ld_imm64(R1, 0x1_0000_0002);
        assert_eq!(a.encode(), [0x18, 1, 0, 0, 2, 0, 0, 0]);
        assert_eq!(b.encode(), [0, 0, 0, 0, 1, 0, 0, 0]);
    }

    #[test]
    fn disassembles_readably() {
        let [a, b] = Insn::ld_imm64(R1, 7);
        let text = disassemble(&[Insn::mov_imm(R0, 1), a, b, Insn::call(helper::GET_CURRENT_COMM), Insn::exit()]);
        assert_eq!(text, "   0: r0 = 1\n   1: r1 = 0x7 ll\n   3: call bpf_get_current_comm\n   4: exit\n");
        let text = disassemble(&[Insn::atomic_add(R0, 8, R1), Insn::cmpxchg(R3, 0, R1)]);
        assert_eq!(text, "   0: lock *(u64 *)(r0 +8) += r1\n   1: r0 = cmpxchg((u64 *)(r3 +0), r0, r1)\n");
        let text = disassemble(&[Insn::call(helper::PROBE_READ_USER_STR), Insn::new(JMP | CALL, 0, 0, 0, 9999)]);
        assert_eq!(text, "   0: call bpf_probe_read_user_str\n   1: call helper#9999\n");
        let text = disassemble(&[Insn::call_kfunc(1234), Insn::to_be(R0, 16), Insn::call(helper::GET_PRANDOM_U32)]);
        assert_eq!(text, "   0: call kfunc#1234\n   1: r0 = be16 r0\n   2: call bpf_get_prandom_u32\n");
    }

    /// A kfunc call names the function by BTF id with source register 2; byte swaps are
    /// BPF_END to big endian.
    #[test]
    fn kfunc_calls_and_swaps_encode_like_the_kernel() {
        assert_eq!(Insn::call_kfunc(0x1234).encode(), [0x85, 0x20, 0, 0, 0x34, 0x12, 0, 0]);
        assert_eq!(Insn::to_be(R3, 32).encode(), [0xdc, 0x03, 0, 0, 32, 0, 0, 0]);
    }

    /// The opposite condition keeps the operands and offset.
    #[test]
    fn inverted_jumps() {
        let pairs = [(Cond::Eq, Cond::Ne), (Cond::Gt, Cond::Le), (Cond::Ge, Cond::Lt), (Cond::Sgt, Cond::Sle), (Cond::Sge, Cond::Slt)];
        for (a, b) in pairs {
            assert_eq!(Insn::jmp_imm(a, R2, 7, 5).inverted(), Insn::jmp_imm(b, R2, 7, 5));
            assert_eq!(Insn::jmp_reg(b, R1, R3, -4).inverted(), Insn::jmp_reg(a, R1, R3, -4));
        }
    }
}
