//! `profile-N`/`tick-N`: perf_event programs on a CPU-clock event, and bpftrace's
//! `software:`/`hardware:` events; the context is the interrupted registers
//! (`bpf_perf_event_data` starts with `pt_regs`).

use super::*;

/// pt_regs offsets of ip and cs (its low two bits: the privilege level) on x86-64.
const REG_IP: i16 = 128;
const REG_CS: i16 = 136;

pub(super) struct Profile;

impl ProbeContext for Profile {
    fn program_name(&self, p: &Program, attach: AttachPoint) -> String {
        format!("crumbs_profile{}", p.profile_probe(attach).map_or(0, |q| q.id))
    }

    fn section_kind(&self) -> &'static str {
        "perf_event"
    }

    /// The interrupted code's stack.
    fn stack_top(&self) -> (u32, bool) {
        (0, false)
    }

    fn describe(&self, attach: AttachPoint) -> &'static str {
        match attach {
            AttachPoint::Profile { all_cpus: true, .. } => "perf_event cpu-clock, every CPU",
            AttachPoint::Perf { .. } => "perf_event, every CPU",
            _ => "perf_event cpu-clock, CPU 0",
        }
    }

    fn probe_id(&self, e: &mut Emitter) -> Result<(), EmitError> {
        let id = e.p.profile_probe(e.attach).map_or(0, |q| q.id);
        e.push(Insn::mov_imm(R0, id as i32));
        Ok(())
    }

    fn probe_const<'p>(&self, e: &Emitter<'p>, h: VarHook) -> Option<&'p str> {
        let perf = match e.attach {
            AttachPoint::Perf { event, .. } => crumbs_lang::providers::perf::PERF_EVENTS.get(event as usize),
            _ => None,
        };
        Some(match (h, perf) {
            (VarHook::ProbeProv, None) => "profile",
            (VarHook::ProbeProv, Some(p)) => if p.hardware { "hardware" } else { "software" },
            (VarHook::ProbeFunc, Some(p)) => p.name,
            (VarHook::ProbeMod | VarHook::ProbeFunc, _) => "",
            (VarHook::ProbeName, _) => e.p.profile_probe(e.attach).map_or("", |q| q.name.as_str()),
            _ => return None,
        })
    }

    /// arg0 is the kernel PC (0 in user mode), arg1 the user PC (0 in the kernel).
    fn arg(&self, e: &mut Emitter, n: u8) -> Result<(), EmitError> {
        if n > 1 {
            e.push(Insn::mov_imm(R0, 0));
            return Ok(());
        }
        e.push(Insn::ldx(DW, R0, R6, REG_IP));
        e.push(Insn::ldx(DW, R1, R6, REG_CS));
        e.push(Insn::alu_imm(Alu::And, R1, 3));
        let keep = if n == 0 { Cond::Eq } else { Cond::Ne };
        e.push(Insn::jmp_imm(keep, R1, 0, 1));
        e.push(Insn::mov_imm(R0, 0));
        Ok(())
    }

    /// The interrupted registers (`bpf_perf_event_data` begins with them).
    fn register(&self, e: &mut Emitter, word: u8) -> Result<(), EmitError> {
        super::pt_regs::register(e, word)
    }
}
