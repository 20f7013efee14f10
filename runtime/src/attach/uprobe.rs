//! uprobe and uretprobe programs: pid and uprobe probes, one program per probed place, at a
//! file offset in an executable or shared library. A pid probe's uprobe fires only in its
//! process (the kernel filters by the process's memory, its threads included); a place the
//! kernel refuses (an instruction it cannot single-step, an offset past the file) is
//! skipped and counted, as fbt's are.

use super::{Link, RunError};
use aya::programs::uprobe::{UProbeAttachLocation, UProbeScope};
use aya::programs::UProbe;
use crumbs_ebpf::abi::ProgramCode;
use crumbs_lang::ir::Program;
use crumbs_lang::providers::AttachPoint;
use std::num::NonZeroU32;

/// The user-space places attaching tried, and those the kernel refused, with why.
#[derive(Debug, Default)]
pub(crate) struct UserTally {
    pub places: usize,
    pub skipped: Vec<(String, String)>,
}

impl UserTally {
    /// The line for standard error when some places were skipped; an error when all were.
    pub fn outcome(&self) -> Result<Option<String>, RunError> {
        let Some((first, why)) = self.skipped.first() else { return Ok(None) };
        let n = self.skipped.len();
        if n == self.places {
            let what = if n == 1 { first.clone() } else { format!("any of the {n} user-space probes (the first, {first})") };
            return Err(RunError::Other(format!("cannot attach a uprobe to {what}: {why}")));
        }
        Ok(Some(format!("{n} of {} user-space probes skipped: the kernel refused a uprobe there, e.g. {first}: {why}", self.places)))
    }
}

pub(super) fn attach(p: &mut UProbe, program: &Program, code: &ProgramCode, tally: &mut UserTally) -> Result<Vec<Link>, RunError> {
    let (AttachPoint::UserEntry(i) | AttachPoint::UserReturn(i)) = code.attach else {
        return Err(RunError::Other(format!("program {} is a uprobe program for {:?}", code.name, code.attach)));
    };
    let u = &program.user_probes[i as usize];
    let scope = match u.pid.and_then(NonZeroU32::new) {
        Some(pid) => UProbeScope::OneProcess(pid),
        None => UProbeScope::AllProcesses,
    };
    tally.places += 1;
    if u.semaphore != 0 {
        return Ok(match super::usdt::attach(p, u) {
            Ok(event) => vec![Box::new(event)],
            Err(e) => {
                tally.skipped.push((format!("{}:{}:{}:{}", u.provider, u.module, u.function, u.name), e.to_string()));
                Vec::new()
            }
        });
    }
    match p.attach(UProbeAttachLocation::AbsoluteOffset(u.offset), &u.path, scope) {
        Ok(id) => Ok(vec![Box::new(p.take_link(id).map_err(|e| RunError::Other(e.to_string()))?)]),
        Err(e) => {
            let name = format!("{}:{}:{}:{}", u.provider, u.module, u.function, u.name);
            tally.skipped.push((name, super::kprobe::with_causes(&e)));
            Ok(Vec::new())
        }
    }
}
