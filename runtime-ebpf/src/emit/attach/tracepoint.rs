//! `tracepoint:CATEGORY:EVENT`: tracepoint programs; the context is the event's record,
//! whose fields `args->NAME` read (see the emitter's `tp_field`).

use super::*;
use crumbs_lang::providers::TRACEPOINT_ID_BASE;

pub(super) struct Tracepoint;

fn index(attach: AttachPoint) -> usize {
    match attach {
        AttachPoint::Tracepoint(i) => i as usize,
        _ => unreachable!("a tracepoint context for {attach:?}"),
    }
}

impl ProbeContext for Tracepoint {
    fn program_name(&self, _: &Program, attach: AttachPoint) -> String {
        format!("crumbs_tp{}", index(attach))
    }

    fn section_kind(&self) -> &'static str {
        "tracepoint"
    }

    /// From where perf's handler was called: `__traceiter_X` or the tracepoint's caller.
    fn stack_top(&self) -> (u32, bool) {
        (0, true)
    }

    fn describe(&self, _: AttachPoint) -> &'static str {
        "tracepoint"
    }

    fn probe_id(&self, e: &mut Emitter) -> Result<(), EmitError> {
        e.push(Insn::mov_imm(R0, (TRACEPOINT_ID_BASE + index(e.attach) as u32) as i32));
        Ok(())
    }

    fn probe_const<'p>(&self, e: &Emitter<'p>, h: VarHook) -> Option<&'p str> {
        let t = &e.p.tracepoints[index(e.attach)];
        Some(match h {
            VarHook::ProbeProv => "tracepoint",
            VarHook::ProbeMod => t.category.as_str(),
            VarHook::ProbeFunc => "",
            VarHook::ProbeName => t.event.as_str(),
            _ => return None,
        })
    }
}
