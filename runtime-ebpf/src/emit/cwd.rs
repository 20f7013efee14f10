//! `cwd` and `d_path()`: a path as the kernel's d_path() writes it, built backwards from
//! its dentry up to the process's root: each name before the ones found so far, a mount's
//! root crossed to its mount point in the parent mount. `cwd` starts from the process's
//! working directory, `d_path(path)` from the `struct path` given. (bpf_d_path() is not
//! allowed in tracepoint programs, and only on some kernel functions elsewhere.)

use super::dname::Building;
use super::strings::Buf;
use super::*;

/// The most path components walked: a deeper directory shows its innermost ones.
const DEPTH: usize = 24;

/// What the kernel's d_path() writes after a file that has been deleted.
const DELETED: &[u8] = b" (deleted)";


impl Emitter<'_> {
    /// Writes the working directory to `dst`, `size` bytes.
    pub(super) fn cwd_into(&mut self, o: &CwdOffsets, dst: Buf, size: u32) -> Result<(), EmitError> {
        self.path_into(o, None, dst, size)
    }

    /// Writes `d_path(path)` to `dst`, `size` bytes: a `path` that cannot be read faults.
    pub(super) fn d_path_into(&mut self, path: &Expr, o: &CwdOffsets, more: &DPathOffsets, dst: Buf, size: u32) -> Result<(), EmitError> {
        self.path_into(o, Some((path, more)), dst, size)
    }

    /// The walk both share: from the struct path at `given`'s address, or from the working
    /// directory.
    fn path_into(&mut self, o: &CwdOffsets, given: Option<(&Expr, &DPathOffsets)>, dst: Buf, size: u32) -> Result<(), EmitError> {
        let whole = (dst, size);
        // All of it: strings compare and hash word by word, to the buffer's end.
        self.zero_buf(dst, size);
        let size = size.min(self.str_limit(size)) as i32;
        self.scoped(|e| {
            // The path is built at the end of the first `size` bytes of `tmp`, its NUL at the
            // last one; `tmp` is twice that, as the verifier bounds a name's offset and length
            // separately.
            let tmp = e.str_temp(2 * size as u32)?;
            let (dentry, vfsmnt, root_dentry, root_mnt, pos, word, name) = (e.slot(8)?, e.slot(8)?, e.slot(8)?, e.slot(8)?, e.slot(8)?, e.slot(8)?, e.slot(8)?);
            let (done, cut, out) = (e.label(), e.label(), e.label());
            e.zero_buf(tmp, size as u32);
            e.push(Insn::st_imm(DW, R10, pos, size - 1));
            if let Some((path, more)) = given {
                // root_dentry holds the path's address until the root is read.
                e.expr(path)?;
                e.push(Insn::stx(DW, R10, root_dentry, R0));
                // mnt first: a bad pointer faults with its own address, as in DTrace.
                for (slot, off) in [(vfsmnt, o.path_mnt), (dentry, o.path_dentry)] {
                    e.push(Insn::ldx(DW, R1, R10, root_dentry));
                    e.read_kernel_or_fault(slot, R1, off, 8)?;
                }
                e.d_path_start(o, more, Building { dentry, tmp, size, pos, word, spare: name }, vfsmnt, (whole, out, done))?;
            }
            e.push(Insn::call(helper::GET_CURRENT_TASK));
            e.read_kernel(word, R0, o.task_fs, 8);
            e.push(Insn::ldx(DW, R1, R10, word));
            e.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), out);
            let start: &[(i16, i32)] = match given {
                Some(_) => &[(root_dentry, o.fs_root + o.path_dentry), (root_mnt, o.fs_root + o.path_mnt)],
                None => &[(dentry, o.fs_pwd + o.path_dentry), (vfsmnt, o.fs_pwd + o.path_mnt), (root_dentry, o.fs_root + o.path_dentry), (root_mnt, o.fs_root + o.path_mnt)],
            };
            for &(slot, off) in start {
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

    /// Before d_path()'s walk: a file the kernel names itself (its dentry operations have
    /// `d_dname`, and it is not the root of its mount) is named as the kernel does (see
    /// [`super::dname`]), then on to `done`; a deleted one (not its own parent, and
    /// unhashed) gets [`DELETED`] at the end. `vfsmnt` is the walk's slot of the mount;
    /// `dst` is the result's buffer and its size, `out` the end of it all.
    fn d_path_start(&mut self, o: &CwdOffsets, more: &DPathOffsets, b: Building, vfsmnt: i16, (dst, out, done): ((Buf, u32), Label, Label)) -> Result<(), EmitError> {
        let (dentry, tmp, size, pos, word, parent) = (b.dentry, b.tmp, b.size, b.pos, b.word, b.spare);
        let (named, root, walk) = (self.label(), self.label(), self.label());
        self.push(Insn::ldx(DW, R1, R10, dentry));
        self.read_kernel(parent, R1, o.dentry_parent, 8);
        self.push(Insn::ldx(DW, R1, R10, dentry));
        self.read_kernel(word, R1, more.dentry_op, 8);
        self.push(Insn::ldx(DW, R1, R10, word));
        self.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), named);
        self.read_kernel(word, R1, more.ops_dname, 8);
        self.push(Insn::ldx(DW, R1, R10, word));
        self.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), named);
        // The root of its mount keeps its path.
        let unnamed = self.label();
        self.push(Insn::ldx(DW, R1, R10, dentry));
        self.push(Insn::ldx(DW, R2, R10, parent));
        self.jump(Insn::jmp_reg(Cond::Ne, R1, R2, 0), unnamed);
        self.push(Insn::ldx(DW, R1, R10, vfsmnt));
        self.read_kernel(word, R1, o.vfsmount_root, 8);
        self.push(Insn::ldx(DW, R1, R10, word));
        self.push(Insn::ldx(DW, R2, R10, dentry));
        self.jump(Insn::jmp_reg(Cond::Eq, R1, R2, 0), named);
        self.bind(unnamed);
        self.dname(o, more, b, done, dst, out)?;
        self.bind(named);
        // Deleted: not a root, and out of the dentry hash.
        self.push(Insn::ldx(DW, R1, R10, dentry));
        self.push(Insn::ldx(DW, R2, R10, parent));
        self.jump(Insn::jmp_reg(Cond::Eq, R1, R2, 0), root);
        self.read_kernel(word, R1, more.dentry_hash_pprev, 8);
        self.push(Insn::ldx(DW, R1, R10, word));
        self.jump(Insn::jmp_imm(Cond::Ne, R1, 0, 0), walk);
        if size > DELETED.len() as i32 + 1 {
            let at = size - 1 - DELETED.len() as i32;
            let (base, off) = self.buf_base(R1, tmp);
            for (i, b) in DELETED.iter().enumerate() {
                self.push(Insn::st_imm(B, base, off + (at + i as i32) as i16, *b as i32));
            }
            self.push(Insn::st_imm(DW, R10, pos, at));
        }
        self.bind(root);
        self.bind(walk);
        Ok(())
    }
}
