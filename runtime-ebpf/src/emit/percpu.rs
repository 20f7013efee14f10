//! Current bpftrace's `percpu_kaddr("name"[, cpu])`: the kernel's per-CPU variable `name`
//! loaded by its BTF id (a ksym: `ld_imm64` with BPF_PSEUDO_BTF_ID, which the verifier
//! resolves against vmlinux) and placed on a CPU by bpf_this_cpu_ptr or bpf_per_cpu_ptr.

use super::*;

/// An `ld_imm64` source that names a kernel variable by its BTF id.
const PSEUDO_BTF_ID: u8 = 3;

impl Emitter<'_> {
    /// r0 = the address of per-CPU variable `name` (interned) on this CPU, or on CPU
    /// `args[0]` (0 past the CPUs), as a plain number: copied out through the stack, so
    /// that the verifier's pointer types (maybe NULL, per-CPU memory) do not follow it into
    /// the arithmetic and reads a program does with addresses.
    pub(super) fn percpu_kaddr(&mut self, name: u64, args: &[StrArg]) -> Result<(), EmitError> {
        let text = self.p.strings.resolve(name);
        let id = self.target.percpu_vars.iter().find(|(n, _)| *n == text).map(|(_, id)| *id).ok_or_else(|| self.err(format!("percpu_kaddr(\"{text}\"): the kernel's BTF has no variable of that name")))?;
        self.scoped(|e| {
            let cpu = e.slot(8)?;
            if let Some(StrArg::Int(c)) = args.first() {
                e.expr(c)?;
                e.push(Insn::stx(DW, R10, cpu, R0));
            }
            let [mut a, b] = Insn::ld_imm64(R1, 0);
            a.src = PSEUDO_BTF_ID;
            a.imm = id as i32;
            e.push(a);
            e.push(b);
            if args.is_empty() {
                e.push(Insn::call(helper::THIS_CPU_PTR));
            } else {
                e.push(Insn::ldx(DW, R2, R10, cpu));
                e.push(Insn::mov32(R2, R2));
                e.push(Insn::call(helper::PER_CPU_PTR));
            }
            e.launder()
        })
    }
}
