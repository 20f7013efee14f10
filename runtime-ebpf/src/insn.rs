//! BPF instructions: encoding, constructors and a readable disassembly.

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

// Classes.
pub const LD: u8 = 0x00;
pub const LDX: u8 = 0x01;
pub const STX: u8 = 0x03;
pub const ST: u8 = 0x02;
pub const ALU: u8 = 0x04;
pub const JMP: u8 = 0x05;
pub const ALU64: u8 = 0x07;
// Sizes.
pub const W: u8 = 0x00;
pub const H: u8 = 0x08;
pub const B: u8 = 0x10;
pub const DW: u8 = 0x18;
pub const IMM: u8 = 0x00;
pub const MEM: u8 = 0x60;
pub const ATOMIC: u8 = 0xc0;
/// Atomic operations (the immediate of an ATOMIC store).
pub const ATOMIC_ADD: i32 = 0x00;
pub const ATOMIC_CMPXCHG: i32 = 0xf1;
// Sources.
pub const K: u8 = 0x00;
pub const X: u8 = 0x08;

/// ALU operations (the high nibble of an ALU opcode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alu {
    Add = 0x00,
    Sub = 0x10,
    Mul = 0x20,
    Div = 0x30,
    Or = 0x40,
    And = 0x50,
    Lsh = 0x60,
    Rsh = 0x70,
    Neg = 0x80,
    Mod = 0x90,
    Xor = 0xa0,
    Mov = 0xb0,
    Arsh = 0xc0,
}

/// Jump conditions (the high nibble of a JMP opcode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    Ja = 0x00,
    Eq = 0x10,
    Gt = 0x20,
    Ge = 0x30,
    Set = 0x40,
    Ne = 0x50,
    Sgt = 0x60,
    Sge = 0x70,
    Lt = 0xa0,
    Le = 0xb0,
    Slt = 0xc0,
    Sle = 0xd0,
}

pub const CALL: u8 = 0x80;
pub const EXIT: u8 = 0x90;

/// Kernel helper function ids used by the code generator.
pub mod helper {
    pub const MAP_LOOKUP_ELEM: i32 = 1;
    pub const MAP_UPDATE_ELEM: i32 = 2;
    pub const MAP_DELETE_ELEM: i32 = 3;
    pub const KTIME_GET_NS: i32 = 5;
    pub const GET_SMP_PROCESSOR_ID: i32 = 8;
    pub const GET_CURRENT_PID_TGID: i32 = 14;
    pub const GET_CURRENT_UID_GID: i32 = 15;
    pub const GET_CURRENT_COMM: i32 = 16;
    pub const GET_STACKID: i32 = 27;
    pub const GET_CURRENT_TASK: i32 = 35;
    pub const PROBE_READ_KERNEL: i32 = 113;
    pub const PROBE_READ_USER_STR: i32 = 114;
    pub const RINGBUF_OUTPUT: i32 = 130;
    pub const RINGBUF_RESERVE: i32 = 131;
    pub const RINGBUF_SUBMIT: i32 = 132;
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
    /// Byte swap to big endian (64-bit): turns a little-endian string word into one that
    /// compares like the bytes it holds.
    pub fn to_be64(dst: Reg) -> Insn {
        Insn::new(ALU | 0xd0 | X, dst, 0, 0, 64)
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
    pub fn call(helper: i32) -> Insn {
        Insn::new(JMP | CALL, 0, 0, 0, helper)
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

    pub fn is_jump(&self) -> bool {
        let class = self.code & 0x07;
        (class == JMP) && !matches!(self.code & 0xf0, CALL | EXIT)
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
    let class = n.code & 0x07;
    let size = |c: u8| match c & 0x18 {
        W => "u32",
        H => "u16",
        B => "u8",
        _ => "u64",
    };
    match class {
        ALU64 | ALU => {
            let op = match n.code & 0xf0 {
                0x00 => "+=",
                0x10 => "-=",
                0x20 => "*=",
                0x30 => "/=",
                0x40 => "|=",
                0x50 => "&=",
                0x60 => "<<=",
                0x70 => ">>=",
                0x80 => return format!("r{} = -r{}", n.dst, n.dst),
                0x90 => "%=",
                0xa0 => "^=",
                0xb0 => "=",
                0xc0 => "s>>=",
                0xd0 => return format!("r{} = be{} r{}", n.dst, n.imm, n.dst),
                _ => "?=",
            };
            let reg = if class == ALU { "w" } else { "r" };
            if n.code & X != 0 {
                format!("{reg}{} {op} {reg}{}", n.dst, n.src)
            } else {
                format!("{reg}{} {op} {}", n.dst, n.imm)
            }
        }
        LDX => format!("r{} = *({} *)(r{} {:+})", n.dst, size(n.code), n.src, n.off),
        STX if n.code & 0xe0 == ATOMIC => match n.imm {
            ATOMIC_ADD => format!("lock *({} *)(r{} {:+}) += r{}", size(n.code), n.dst, n.off, n.src),
            ATOMIC_CMPXCHG => format!("r0 = cmpxchg(({} *)(r{} {:+}), r0, r{})", size(n.code), n.dst, n.off, n.src),
            op => format!("atomic op {op:#x} on ({} *)(r{} {:+}) with r{}", size(n.code), n.dst, n.off, n.src),
        },
        STX => format!("*({} *)(r{} {:+}) = r{}", size(n.code), n.dst, n.off, n.src),
        ST => format!("*({} *)(r{} {:+}) = {}", size(n.code), n.dst, n.off, n.imm),
        LD => {
            let hi = next.map_or(0, |x| x.imm) as i64;
            let v = (hi << 32) | (n.imm as u32 as i64);
            match n.src {
                1 => format!("r{} = map_fd({})", n.dst, n.imm),
                2 => format!("r{} = map_value({}) + {}", n.dst, n.imm, hi),
                _ => format!("r{} = {:#x} ll", n.dst, v),
            }
        }
        JMP => match n.code & 0xf0 {
            CALL => format!("call {}", helper_name(n.imm)),
            EXIT => "exit".to_string(),
            0x00 => format!("goto {:+}", n.off),
            c => {
                let op = match c {
                    0x10 => "==",
                    0x20 => ">",
                    0x30 => ">=",
                    0x40 => "&",
                    0x50 => "!=",
                    0x60 => "s>",
                    0x70 => "s>=",
                    0xa0 => "<",
                    0xb0 => "<=",
                    0xc0 => "s<",
                    0xd0 => "s<=",
                    _ => "?",
                };
                let rhs = if n.code & X != 0 { format!("r{}", n.src) } else { n.imm.to_string() };
                format!("if r{} {op} {rhs} goto {:+}", n.dst, n.off)
            }
        },
        _ => format!("raw {:02x} {} {} {} {}", n.code, n.dst, n.src, n.off, n.imm),
    }
}

fn helper_name(id: i32) -> String {
    use helper::*;
    match id {
        MAP_LOOKUP_ELEM => "bpf_map_lookup_elem",
        MAP_UPDATE_ELEM => "bpf_map_update_elem",
        MAP_DELETE_ELEM => "bpf_map_delete_elem",
        KTIME_GET_NS => "bpf_ktime_get_ns",
        GET_SMP_PROCESSOR_ID => "bpf_get_smp_processor_id",
        GET_CURRENT_PID_TGID => "bpf_get_current_pid_tgid",
        GET_CURRENT_UID_GID => "bpf_get_current_uid_gid",
        GET_CURRENT_COMM => "bpf_get_current_comm",
        GET_STACKID => "bpf_get_stackid",
        GET_CURRENT_TASK => "bpf_get_current_task",
        PROBE_READ_KERNEL => "bpf_probe_read_kernel",
        PROBE_READ_USER_STR => "bpf_probe_read_user_str",
        RINGBUF_OUTPUT => "bpf_ringbuf_output",
        RINGBUF_RESERVE => "bpf_ringbuf_reserve",
        RINGBUF_SUBMIT => "bpf_ringbuf_submit",
        _ => return format!("helper#{id}"),
    }
    .to_string()
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
    }
}
