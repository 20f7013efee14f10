//! d_path() of a file the kernel names itself rather than by a path (its dentry operations
//! have `d_dname`): the names of the three the kernel gives most, told apart by their
//! filesystem's magic number: a pipe `pipe:[INODE]`, a socket `socket:[INODE]`, an
//! anonymous inode `anon_inode:NAME` (`anon_inode:[eventfd]`). Others (namespaces, memfds,
//! DMA buffers) are `<unknown>`, dtrace-utils' d_path() text.

use super::strings::Buf;
use super::*;

const PIPEFS_MAGIC: i64 = 0x50495045;
const SOCKFS_MAGIC: i64 = 0x534f434b;
const ANON_INODE_FS_MAGIC: i64 = 0x09041934;

/// What d_path() gives for a file it cannot name.
pub(super) const UNNAMED: &str = "<unknown>";

/// Decimal digits of the largest inode number.
const DIGITS: i32 = 20;

/// Where the walk builds its path: `tmp` holds it at the end of its first `size` bytes,
/// from `pos` on (a stack slot); `dentry` is the slot of the dentry being named, `word`
/// and `spare` are stack slots to use.
#[derive(Clone, Copy)]
pub(super) struct Building {
    pub(super) dentry: i16,
    pub(super) tmp: Buf,
    pub(super) size: i32,
    pub(super) pos: i16,
    pub(super) word: i16,
    pub(super) spare: i16,
}

impl Emitter<'_> {
    /// The name of the file at `b.dentry` built in `b` (then on to `named`), or [`UNNAMED`]
    /// written to `dst` (then on to `out`).
    pub(super) fn dname(&mut self, o: &CwdOffsets, more: &DPathOffsets, b: Building, named: Label, dst: (Buf, u32), out: Label) -> Result<(), EmitError> {
        let dentry = b.dentry;
        let (pipe, socket, anon, unknown) = (self.label(), self.label(), self.label(), self.label());
        // Room for the longest: `socket:[`, 20 digits and `]`; else all are unknown (and
        // the code for them is left out: the verifier refuses code that cannot run).
        let names = b.size > 8 + DIGITS + 2;
        if names {
            self.push(Insn::ldx(DW, R1, R10, dentry));
            self.read_kernel(b.word, R1, more.dentry_sb, 8);
            self.push(Insn::ldx(DW, R1, R10, b.word));
            self.read_kernel(b.word, R1, more.sb_magic, 8);
            self.push(Insn::ldx(DW, R1, R10, b.word));
            for (magic, to) in [(PIPEFS_MAGIC, pipe), (SOCKFS_MAGIC, socket), (ANON_INODE_FS_MAGIC, anon)] {
                self.jump(Insn::jmp_imm(Cond::Eq, R1, magic as i32, 0), to);
            }
        }
        self.bind(unknown);
        self.const_into(UNNAMED, dst.0, dst.1);
        self.goto(out);
        if !names {
            return Ok(());
        }
        for (at, prefix) in [(pipe, "pipe:["), (socket, "socket:[")] {
            self.bind(at);
            self.inode_number(more, b);
            self.prepend(b, prefix, unknown);
            self.goto(named);
        }
        // anon_inode: and the dentry's name.
        self.bind(anon);
        self.push(Insn::ldx(DW, R1, R10, dentry));
        self.read_kernel(b.spare, R1, o.dentry_name, 8);
        self.push(Insn::ldx(DW, R1, R10, dentry));
        self.read_kernel(b.word, R1, o.dentry_len, 4);
        self.push(Insn::ldx(W, R2, R10, b.word));
        let room = b.size - 1 - "anon_inode:".len() as i32;
        self.jump(Insn::jmp_imm(Cond::Gt, R2, room, 0), unknown);
        self.push(Insn::mov_imm(R4, b.size - 1));
        self.push(Insn::alu_reg(Alu::Sub, R4, R2));
        self.push(Insn::stx(DW, R10, b.pos, R4));
        self.buf_addr(R1, b.tmp);
        self.push(Insn::alu_reg(Alu::Add, R1, R4));
        self.push(Insn::ldx(DW, R3, R10, b.spare));
        self.push(Insn::call(helper::PROBE_READ_KERNEL));
        self.prepend(b, "anon_inode:", unknown);
        self.goto(named);
        Ok(())
    }

    /// The inode's number in decimal and `]` at the end of the path, `pos` at its first digit.
    fn inode_number(&mut self, more: &DPathOffsets, b: Building) {
        self.push(Insn::ldx(DW, R1, R10, b.dentry));
        self.read_kernel(b.word, R1, more.dentry_inode, 8);
        self.push(Insn::ldx(DW, R1, R10, b.word));
        self.read_kernel(b.word, R1, more.inode_ino, 8);
        self.push(Insn::ldx(DW, R1, R10, b.word));
        self.buf_addr(R3, b.tmp);
        self.push(Insn::st_imm(B, R3, (b.size - 2) as i16, b']' as i32));
        let end = self.label();
        for k in 0..DIGITS {
            let at = b.size - 3 - k;
            self.push(Insn::mov(R2, R1));
            self.push(Insn::alu_imm(Alu::Mod, R2, 10));
            self.push(Insn::alu_imm(Alu::Add, R2, b'0' as i32));
            self.push(Insn::stx(B, R3, at as i16, R2));
            self.push(Insn::st_imm(DW, R10, b.pos, at));
            self.push(Insn::alu_imm(Alu::Div, R1, 10));
            self.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), end);
        }
        self.bind(end);
    }

    /// `text` before the path built from `pos`; to `no_room` if it does not fit.
    fn prepend(&mut self, b: Building, text: &str, no_room: Label) {
        let n = text.len() as i32;
        self.push(Insn::ldx(DW, R4, R10, b.pos));
        self.push(Insn::alu_imm(Alu::Sub, R4, n));
        self.jump(Insn::jmp_imm(Cond::Slt, R4, 0, 0), no_room);
        self.jump(Insn::jmp_imm(Cond::Sgt, R4, b.size - 1 - n, 0), no_room);
        self.push(Insn::stx(DW, R10, b.pos, R4));
        self.buf_addr(R1, b.tmp);
        self.push(Insn::alu_reg(Alu::Add, R1, R4));
        for (i, c) in text.bytes().enumerate() {
            self.push(Insn::st_imm(B, R1, i as i16, c as i32));
        }
    }
}
