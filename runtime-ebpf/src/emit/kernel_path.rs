//! bpftrace's `path(p [, size])`: the kernel's own bpf_d_path() of a `struct path`. The
//! verifier takes it only on a pointer it trusts (PTR_TO_BTF_ID of struct path, or a struct
//! that holds one at a constant offset), which is what an fentry program's context gives
//! for the probed function's pointer arguments; and only in programs on the functions the
//! kernel allows it in (its btf_allowlist_d_path, which the checker knows).

use super::strings::Buf;
use super::*;

impl Emitter<'_> {
    /// Writes the name of the `struct path` at `offset` past argument `arg` to `dst`, `size`
    /// bytes, at most `limit` of them with the NUL. Cleared first, as bpftrace does: the
    /// kernel writes the name from the buffer's start, or where it is too long its last
    /// `limit - 1` bytes, and leaves the rest as it was.
    pub(super) fn kernel_path_into(&mut self, arg: u8, offset: i32, limit: u32, dst: Buf, size: u32) -> Result<(), EmitError> {
        self.zero_buf(dst, size);
        self.buf_addr(R2, dst);
        self.context().trusted_arg(self, R1, arg)?;
        if offset != 0 {
            self.push(Insn::alu_imm(Alu::Add, R1, offset));
        }
        self.push(Insn::mov_imm(R3, limit.min(self.str_limit(size)) as i32));
        self.push(Insn::call(helper::D_PATH));
        Ok(())
    }
}
