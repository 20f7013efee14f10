//! perf_event programs: the profile provider, a CPU-clock event on every online CPU
//! (`profile-N`) or on the first one (`tick-N`); bpftrace's software and hardware events
//! on every online CPU.

use super::Link;
use crate::kernel::cpus;
use crate::session::RunError;
use aya::programs::perf_event::{BreakpointConfig, HardwareEvent, PerfBreakpointLength, PerfBreakpointType, PerfEventConfig, PerfEventScope, SamplePolicy, SoftwareEvent};
use crumbs_lang::providers::perf::PERF_EVENTS;
use aya::programs::PerfEvent;
use crumbs_ebpf::abi::ProgramCode;
use crumbs_lang::providers::AttachPoint;

pub(super) fn attach(p: &mut PerfEvent, code: &ProgramCode) -> Result<Vec<Link>, RunError> {
    let online = cpus::online();
    let (config, what, cpus, period) = match code.attach {
        AttachPoint::Profile { all_cpus, period_ns } => {
            let cpus = if all_cpus { online } else { vec![online.first().copied().unwrap_or(0)] };
            (PerfEventConfig::Software(SoftwareEvent::CpuClock), "cpu-clock", cpus, period_ns)
        }
        AttachPoint::Perf { event, count } => {
            let e = PERF_EVENTS.get(event as usize).ok_or_else(|| RunError::Other(format!("program {}: no perf event {event}", code.name)))?;
            (perf_config(e.hardware, e.config)?, e.name, online, count)
        }
        AttachPoint::Watchpoint { addr, len, mode } => (breakpoint(addr, len, mode), "watchpoint", online, 1),
        _ => return Err(RunError::Other(format!("program {} is a perf_event program for {:?}", code.name, code.attach))),
    };
    let mut links: Vec<Link> = Vec::with_capacity(cpus.len());
    for cpu in cpus {
        let id = p.attach(config, PerfEventScope::AllProcessesOneCpu { cpu }, SamplePolicy::Period(period), false).map_err(|e| {
            let hint = if matches!(config, PerfEventConfig::Hardware(_)) { " (virtual machines often have no hardware counters)" } else { "" };
            RunError::Other(format!("cannot open a {what} perf event on CPU {cpu}: {e}{hint}"))
        })?;
        links.push(Box::new(p.take_link(id).map_err(|e| RunError::Other(e.to_string()))?));
    }
    Ok(links)
}

/// bpftrace's watchpoint: a hardware breakpoint on the `len` bytes at `addr`, for writes,
/// reads and writes, or execution (then the length is a word's, as perf wants it).
fn breakpoint(addr: u64, len: u8, mode: u8) -> PerfEventConfig {
    use crumbs_lang::providers::watchpoint::{EXECUTE, READ};
    use PerfBreakpointLength as L;
    if mode & EXECUTE != 0 {
        return PerfEventConfig::Breakpoint(BreakpointConfig::Instruction { address: addr });
    }
    let length = match len {
        1 => L::Len1,
        2 => L::Len2,
        4 => L::Len4,
        _ => L::Len8,
    };
    let r#type = if mode & READ != 0 { PerfBreakpointType::ReadWrite } else { PerfBreakpointType::Write };
    PerfEventConfig::Breakpoint(BreakpointConfig::Data { r#type, address: addr, length })
}

/// aya's name for perf's software or hardware event `config` (PERF_COUNT_SW_*, _HW_*).
fn perf_config(hardware: bool, config: u32) -> Result<PerfEventConfig, RunError> {
    use HardwareEvent as H;
    use SoftwareEvent as S;
    let sw = [S::CpuClock, S::TaskClock, S::PageFaults, S::ContextSwitches, S::CpuMigrations, S::PageFaultsMin, S::PageFaultsMaj, S::AlignmentFaults, S::EmulationFaults, S::Dummy, S::BpfOutput];
    let hw = [H::CpuCycles, H::Instructions, H::CacheReferences, H::CacheMisses, H::BranchInstructions, H::BranchMisses, H::BusCycles, H::StalledCyclesFrontend, H::StalledCyclesBackend, H::RefCpuCycles];
    let unknown = || RunError::Other(format!("no perf event {config}"));
    Ok(if hardware { PerfEventConfig::Hardware(*hw.get(config as usize).ok_or_else(unknown)?) } else { PerfEventConfig::Software(*sw.get(config as usize).ok_or_else(unknown)?) })
}
