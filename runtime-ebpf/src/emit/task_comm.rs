//! Current bpftrace's `comm(pid)`: another thread's name, through the kernel's kfuncs
//! bpf_task_from_pid (which takes a reference on the task, or gives NULL) and
//! bpf_task_release; the name is loaded from the task the verifier then trusts.

use super::strings::Buf;
use super::*;

impl Emitter<'_> {
    /// The name of the thread with the id `args[0]` at `out` (`own` bytes, at least 16),
    /// "N/A" where there is none, as current bpftrace's standard library writes it.
    pub(super) fn comm_of_pid(&mut self, args: &[StrArg], missing: usize, out: Buf, own: u32) -> Result<(), EmitError> {
        let Some(StrArg::Int(pid)) = args.first() else { return Err(self.err("internal: comm(pid) without a pid")) };
        let k = self.target.task_from_pid.ok_or_else(|| self.err("comm(pid) needs the kernel's bpf_task_from_pid and bpf_task_release kfuncs and its BTF (Linux 6.2 or later)"))?;
        if own < crumbs_lang::ir::COMM_SIZE {
            return Err(self.err("internal: comm(pid) into a buffer smaller than a name"));
        }
        self.zero_buf(out, own);
        self.expr(pid)?;
        self.push(Insn::mov32(R1, R0));
        self.push(Insn::call_kfunc(k.from_pid));
        let (none, done) = (self.label(), self.label());
        self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), none);
        for word in 0..2 {
            self.push(Insn::ldx(DW, R1, R0, k.comm_offset + 8 * word));
            let (base, off) = self.buf_base(R2, out);
            self.push(Insn::stx(DW, base, off + 8 * word, R1));
        }
        self.push(Insn::mov(R1, R0));
        self.push(Insn::call_kfunc(k.release));
        self.goto(done);
        self.bind(none);
        // No such task: flagged for the warning, and the name.
        self.stmt(&Stmt::SetClauseLocal(missing, Expr::Int(1)), None)?;
        self.const_into("N/A", out, own);
        self.bind(done);
        Ok(())
    }
}
