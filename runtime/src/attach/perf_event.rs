//! perf_event programs: the profile provider, a CPU-clock event on every online CPU
//! (`profile-N`) or on the first one (`tick-N`).

use super::Link;
use crate::kernel::cpus;
use crate::session::RunError;
use aya::programs::perf_event::{PerfEventConfig, PerfEventScope, SamplePolicy, SoftwareEvent};
use aya::programs::PerfEvent;
use crumbs_ebpf::abi::ProgramCode;
use crumbs_lang::providers::AttachPoint;

pub(super) fn attach(p: &mut PerfEvent, code: &ProgramCode) -> Result<Vec<Link>, RunError> {
    let AttachPoint::Profile { all_cpus, period_ns } = code.attach else {
        return Err(RunError::Other(format!("program {} is a perf_event program for {:?}", code.name, code.attach)));
    };
    let online = cpus::online();
    let cpus = if all_cpus { online } else { vec![online.first().copied().unwrap_or(0)] };
    let mut links: Vec<Link> = Vec::with_capacity(cpus.len());
    for cpu in cpus {
        let id = p
            .attach(PerfEventConfig::Software(SoftwareEvent::CpuClock), PerfEventScope::AllProcessesOneCpu { cpu }, SamplePolicy::Period(period_ns), false)
            .map_err(|e| RunError::Other(format!("cannot open a cpu-clock perf event on CPU {cpu}: {e}")))?;
        links.push(Box::new(p.take_link(id).map_err(|e| RunError::Other(e.to_string()))?));
    }
    Ok(links)
}
