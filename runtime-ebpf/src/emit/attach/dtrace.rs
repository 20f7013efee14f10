//! BEGIN and END: raw tracepoint programs that are never attached, only run once
//! (BPF_PROG_TEST_RUN) by the runtime.

use super::*;
use crumbs_lang::providers::{BEGIN_ID, END_ID};

pub(super) struct Dtrace;

impl ProbeContext for Dtrace {
    fn program_name(&self, _: &Program, attach: AttachPoint) -> String {
        if attach == AttachPoint::Begin { "crumbs_begin" } else { "crumbs_end" }.into()
    }

    fn describe(&self, attach: AttachPoint) -> &'static str {
        if attach == AttachPoint::Begin {
            "BEGIN (run once)"
        } else {
            "END (run once)"
        }
    }

    fn probe_id(&self, e: &mut Emitter) -> Result<(), EmitError> {
        let id = if e.attach == AttachPoint::Begin { BEGIN_ID } else { END_ID };
        e.push(Insn::mov_imm(R0, id as i32));
        Ok(())
    }

    fn probe_const<'p>(&self, e: &Emitter<'p>, h: VarHook) -> Option<&'p str> {
        Some(match h {
            VarHook::ProbeProv => "dtrace",
            VarHook::ProbeMod | VarHook::ProbeFunc => "",
            VarHook::ProbeName if e.attach == AttachPoint::Begin => "BEGIN",
            VarHook::ProbeName => "END",
            _ => return None,
        })
    }
}
