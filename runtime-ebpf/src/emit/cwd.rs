//! `cwd`: the current process's working directory, as d_path() would write it, built
//! backwards from its dentry up to the process's root: each name before the ones found so
//! far, a mount's root crossed to its mount point in the parent mount. (bpf_d_path() is
//! not allowed in tracepoint programs.)

use super::strings::Buf;
use super::*;

/// The most path components walked: a deeper directory shows its innermost ones.
const DEPTH: usize = 24;

impl Emitter<'_> {
    /// Writes the working directory to `dst`, `size` bytes.
    pub(super) fn cwd_into(&mut self, o: &CwdOffsets, dst: Buf, size: u32) -> Result<(), EmitError> {
        let size = size.min(self.str_limit(size)) as i32;
        self.zero_buf(dst, size as u32);
        self.scoped(|e| {
            // The path is built at the end of the first `size` bytes of `tmp`, its NUL at the
            // last one; `tmp` is twice that, as the verifier bounds a name's offset and length
            // separately.
            let tmp = e.str_temp(2 * size as u32)?;
            let (dentry, vfsmnt, root_dentry, root_mnt, pos, word, name) = (e.slot(8)?, e.slot(8)?, e.slot(8)?, e.slot(8)?, e.slot(8)?, e.slot(8)?, e.slot(8)?);
            let (done, cut, out) = (e.label(), e.label(), e.label());
            e.zero_buf(tmp, size as u32);
            e.push(Insn::st_imm(DW, R10, pos, size - 1));
            e.push(Insn::call(helper::GET_CURRENT_TASK));
            e.read_kernel(word, R0, o.task_fs, 8);
            e.push(Insn::ldx(DW, R1, R10, word));
            e.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), out);
            for (slot, off) in [(dentry, o.fs_pwd + o.path_dentry), (vfsmnt, o.fs_pwd + o.path_mnt), (root_dentry, o.fs_root + o.path_dentry), (root_mnt, o.fs_root + o.path_mnt)] {
                e.push(Insn::ldx(DW, R1, R10, word));
                e.read_kernel(slot, R1, off, 8);
            }
            for _ in 0..DEPTH {
                let next = e.label();
                // At the process's root: done.
                let not_root = e.label();
                e.push(Insn::ldx(DW, R1, R10, dentry));
                e.push(Insn::ldx(DW, R2, R10, root_dentry));
                e.jump(Insn::jmp_reg(Cond::Ne, R1, R2, 0), not_root);
                e.push(Insn::ldx(DW, R1, R10, vfsmnt));
                e.push(Insn::ldx(DW, R2, R10, root_mnt));
                e.jump(Insn::jmp_reg(Cond::Eq, R1, R2, 0), done);
                e.bind(not_root);
                // At its mount's root: on to the mount point in the parent mount.
                let inside = e.label();
                e.push(Insn::ldx(DW, R1, R10, vfsmnt));
                e.read_kernel(word, R1, o.vfsmount_root, 8);
                e.push(Insn::ldx(DW, R1, R10, word));
                e.push(Insn::ldx(DW, R2, R10, dentry));
                e.jump(Insn::jmp_reg(Cond::Ne, R1, R2, 0), inside);
                e.push(Insn::ldx(DW, R1, R10, vfsmnt));
                e.read_kernel(word, R1, o.mount_parent - o.mount_mnt, 8);
                e.push(Insn::ldx(DW, R1, R10, word));
                e.push(Insn::ldx(DW, R2, R10, vfsmnt));
                e.push(Insn::alu_imm(Alu::Sub, R2, o.mount_mnt));
                // The topmost mount is its own parent.
                e.jump(Insn::jmp_reg(Cond::Eq, R1, R2, 0), done);
                e.push(Insn::ldx(DW, R1, R10, vfsmnt));
                e.read_kernel(dentry, R1, o.mount_mountpoint - o.mount_mnt, 8);
                e.push(Insn::ldx(DW, R1, R10, word));
                e.push(Insn::alu_imm(Alu::Add, R1, o.mount_mnt));
                e.push(Insn::stx(DW, R10, vfsmnt, R1));
                e.goto(next);
                e.bind(inside);
                // `/name` before what is there.
                e.push(Insn::ldx(DW, R1, R10, dentry));
                e.read_kernel(name, R1, o.dentry_name, 8);
                e.push(Insn::ldx(DW, R1, R10, dentry));
                e.read_kernel(word, R1, o.dentry_len, 4);
                e.push(Insn::ldx(W, R2, R10, word));
                e.jump(Insn::jmp_imm(Cond::Eq, R2, 0, 0), done);
                e.jump(Insn::jmp_imm(Cond::Gt, R2, size - 2, 0), cut);
                e.push(Insn::ldx(DW, R3, R10, pos));
                // Room for the name and its slash: pos - len - 1 >= 0.
                e.push(Insn::mov(R4, R3));
                e.push(Insn::alu_reg(Alu::Sub, R4, R2));
                e.jump(Insn::jmp_imm(Cond::Sle, R4, 0, 0), cut);
                e.jump(Insn::jmp_imm(Cond::Sgt, R4, size - 1, 0), cut);
                e.push(Insn::stx(DW, R10, pos, R4));
                e.buf_addr(R1, tmp);
                e.push(Insn::alu_reg(Alu::Add, R1, R4));
                e.push(Insn::ldx(DW, R3, R10, name));
                e.push(Insn::call(helper::PROBE_READ_KERNEL));
                e.push(Insn::ldx(DW, R4, R10, pos));
                e.push(Insn::alu_imm(Alu::Sub, R4, 1));
                e.jump(Insn::jmp_imm(Cond::Slt, R4, 0, 0), done);
                e.jump(Insn::jmp_imm(Cond::Sgt, R4, size - 1, 0), done);
                e.push(Insn::stx(DW, R10, pos, R4));
                e.buf_addr(R1, tmp);
                e.push(Insn::alu_reg(Alu::Add, R1, R4));
                e.push(Insn::st_imm(B, R1, 0, b'/' as i32));
                e.push(Insn::ldx(DW, R1, R10, dentry));
                e.read_kernel(dentry, R1, o.dentry_parent, 8);
                e.bind(next);
            }
            // Not all the way to the root (too deep, or too long for the buffer): `...`
            // before the innermost components, where it fits.
            e.bind(cut);
            e.push(Insn::ldx(DW, R4, R10, pos));
            e.jump(Insn::jmp_imm(Cond::Slt, R4, 3, 0), done);
            e.jump(Insn::jmp_imm(Cond::Sgt, R4, size - 1, 0), done);
            e.push(Insn::alu_imm(Alu::Sub, R4, 3));
            e.push(Insn::stx(DW, R10, pos, R4));
            e.buf_addr(R1, tmp);
            e.push(Insn::alu_reg(Alu::Add, R1, R4));
            for i in 0..3 {
                e.push(Insn::st_imm(B, R1, i, b'.' as i32));
            }
            e.bind(done);
            // The root itself is "/".
            let copy = e.label();
            e.push(Insn::ldx(DW, R4, R10, pos));
            e.jump(Insn::jmp_imm(Cond::Ne, R4, size - 1, 0), copy);
            e.push(Insn::alu_imm(Alu::Sub, R4, 1));
            e.push(Insn::stx(DW, R10, pos, R4));
            e.buf_addr(R1, tmp);
            e.push(Insn::st_imm(B, R1, size as i16 - 2, b'/' as i32));
            e.bind(copy);
            // The path and its NUL to the front of `dst`.
            e.push(Insn::ldx(DW, R4, R10, pos));
            e.jump(Insn::jmp_imm(Cond::Slt, R4, 0, 0), out);
            e.jump(Insn::jmp_imm(Cond::Sgt, R4, size - 1, 0), out);
            e.buf_addr(R3, tmp);
            e.push(Insn::alu_reg(Alu::Add, R3, R4));
            e.push(Insn::mov_imm(R2, size));
            e.push(Insn::alu_reg(Alu::Sub, R2, R4));
            e.buf_addr(R1, dst);
            e.push(Insn::call(helper::PROBE_READ_KERNEL));
            e.bind(out);
            Ok(())
        })
    }
}
