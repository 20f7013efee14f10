//! BEGIN and END: raw tracepoint programs that are never attached, only run once
//! (BPF_PROG_TEST_RUN) by the runtime; bpftrace's `self:signal:SIGUSR1` too, run at each
//! SIGUSR1. ERROR: no program of its own; its clauses run inside
//! the program of a clause that faults (emit/faults.rs), with the fault as arguments.

use super::*;
use crumbs_lang::providers::{BEGIN_ID, END_ID, ERROR_ID, SELF_SIGUSR1_ID};

pub(super) struct Dtrace;

impl ProbeContext for Dtrace {
    fn program_name(&self, _: &Program, attach: AttachPoint) -> String {
        match attach {
            AttachPoint::Begin => "crumbs_begin",
            AttachPoint::End => "crumbs_end",
            AttachPoint::SelfSignal => "crumbs_self_sigusr1",
            _ => "crumbs_error",
        }
        .into()
    }

    fn describe(&self, attach: AttachPoint) -> &'static str {
        match attach {
            AttachPoint::Begin => "BEGIN (run once)",
            AttachPoint::End => "END (run once)",
            AttachPoint::SelfSignal => "self:signal:SIGUSR1 (run at each SIGUSR1)",
            _ => "ERROR (inside the programs of clauses that fault)",
        }
    }

    /// Run by a test run: no hooks.
    fn stack_top(&self) -> (u32, bool) {
        (1, false)
    }

    fn probe_id(&self, e: &mut Emitter) -> Result<(), EmitError> {
        let id = match e.attach {
            AttachPoint::Begin => BEGIN_ID,
            AttachPoint::End => END_ID,
            AttachPoint::SelfSignal => SELF_SIGUSR1_ID,
            _ => ERROR_ID,
        };
        e.push(Insn::mov_imm(R0, id as i32));
        Ok(())
    }

    fn probe_const<'p>(&self, e: &Emitter<'p>, h: VarHook) -> Option<&'p str> {
        if e.attach == AttachPoint::SelfSignal {
            return Some(match h {
                VarHook::ProbeProv => "self",
                VarHook::ProbeMod => "signal",
                VarHook::ProbeFunc => "",
                VarHook::ProbeName => "SIGUSR1",
                _ => return None,
            });
        }
        Some(match h {
            VarHook::ProbeProv => "dtrace",
            VarHook::ProbeMod | VarHook::ProbeFunc => "",
            VarHook::ProbeName => match e.attach {
                AttachPoint::Begin => "BEGIN",
                AttachPoint::End => "END",
                _ => "ERROR",
            },
            _ => return None,
        })
    }

    fn arg(&self, e: &mut Emitter, n: u8) -> Result<(), EmitError> {
        if e.attach == AttachPoint::Error {
            return e.error_arg(n);
        }
        e.push(Insn::mov_imm(R0, 0));
        Ok(())
    }
}
