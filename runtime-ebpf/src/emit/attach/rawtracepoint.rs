//! `rawtracepoint:vmlinux::EVENT`: BTF-typed raw tracepoint programs (tp_btf: a tracing
//! program attached to the tracepoint's BTF id), whose context is the tracepoint's
//! arguments as an array of u64.

use super::*;
use crumbs_lang::providers::RAWTP_ID_BASE;

pub(super) struct RawTracepoint;

fn index(attach: AttachPoint) -> usize {
    match attach {
        AttachPoint::RawTracepoint(i) => i as usize,
        _ => unreachable!("a raw tracepoint context for {attach:?}"),
    }
}

impl ProbeContext for RawTracepoint {
    fn section_kind(&self) -> &'static str {
        "tp_btf"
    }

    fn program_name(&self, _: &Program, attach: AttachPoint) -> String {
        format!("crumbs_rawtp{}", index(attach))
    }

    fn describe(&self, _: AttachPoint) -> &'static str {
        "tp_btf"
    }

    fn probe_id(&self, e: &mut Emitter) -> Result<(), EmitError> {
        e.push(Insn::mov_imm(R0, (RAWTP_ID_BASE + index(e.attach) as u32) as i32));
        Ok(())
    }

    fn probe_const<'p>(&self, e: &Emitter<'p>, h: VarHook) -> Option<&'p str> {
        let (provider, module, name) = e.p.raw_tracepoints[index(e.attach)].shown();
        Some(match h {
            VarHook::ProbeProv => provider,
            VarHook::ProbeMod => module,
            VarHook::ProbeFunc => "",
            VarHook::ProbeName => name,
            _ => return None,
        })
    }

    /// Argument n from the context: past the tracepoint's last, 0 (the verifier refuses a
    /// read there). A pointer is copied out with bpf_probe_read_kernel rather than loaded:
    /// loaded, the verifier types it as the kernel object it points to and refuses the
    /// arithmetic D may do on it (`arg1 & 0xfff`, a cast to int).
    /// Argument n as the verifier types it, loaded from the context (a pointer it trusts,
    /// for bpf_get_socket_cookie()).
    fn trusted_arg(&self, e: &mut Emitter, reg: Reg, n: u8) -> Result<(), EmitError> {
        e.push(Insn::ldx(DW, reg, R6, 8 * n as i16));
        Ok(())
    }

    fn arg(&self, e: &mut Emitter, n: u8) -> Result<(), EmitError> {
        let off = 8 * n as i16;
        match e.p.raw_tracepoints[index(e.attach)].pointers.get(n as usize) {
            None => e.push(Insn::mov_imm(R0, 0)),
            Some(false) => e.push(Insn::ldx(DW, R0, R6, off)),
            Some(true) => e.scoped(|e| {
                let tmp = e.slot(8)?;
                e.read_kernel(tmp, R6, off as i32, 8);
                e.push(Insn::ldx(DW, R0, R10, tmp));
                Ok(())
            })?,
        }
        Ok(())
    }
}
