//! Loading and attaching, one file per aya program type: each loads its programs and
//! attaches them where their attach point says. Attaching hands back owned links: dropping
//! one detaches it.

use crate::session::RunError;
use aya::programs::{Program as AyaProgram, ProgramError};
use aya::Ebpf;
use crumbs_ebpf::abi::ProgramCode;
use crumbs_lang::ir::Program;
use crumbs_lang::providers::AttachPoint;

mod btf_tracepoint;
pub mod features;
pub(crate) mod fentry;
pub(crate) mod iter;
mod kprobe;
pub(crate) mod kprobe_multi;
mod module_btf;
mod perf_event;
mod raw_tracepoint;
mod tracepoint;
mod uprobe;
mod uprobe_multi;
mod usdt;

/// An attached probe; dropping it detaches it.
pub type Link = Box<dyn Send>;

/// What loading leaves for attaching besides aya's programs: the programs crumbs loads
/// itself (kprobe.multi), by name, and the functions whose fentry/fexit program the kernel
/// refused (with why).
#[derive(Default)]
pub(crate) struct OwnPrograms(Vec<(String, std::os::fd::OwnedFd)>, Vec<(String, String)>);

impl OwnPrograms {
    /// Keeps a program crumbs loaded itself (None: one the kernel refused a place for,
    /// noted already); a refusal by the verifier is the load's error.
    fn keep(&mut self, code: &ProgramCode, loaded: Result<Option<std::os::fd::OwnedFd>, (std::io::Error, String)>) -> Result<(), ProgramError> {
        match loaded {
            Ok(fd) => {
                self.0.extend(fd.map(|fd| (code.name.clone(), fd)));
                Ok(())
            }
            Err((io_error, log)) => Err(ProgramError::LoadError { io_error, verifier_log: aya_obj::VerifierLog::new(log) }),
        }
    }

    /// The descriptor of a program crumbs loaded itself, by name.
    fn fd(&self, code: &ProgramCode) -> Option<&std::os::fd::OwnedFd> {
        self.0.iter().find(|(n, _)| *n == code.name).map(|(_, fd)| fd)
    }
}

fn missing(code: &ProgramCode) -> RunError {
    RunError::Other(format!("program {} missing from the ELF", code.name))
}

/// Whether the kernel has what the program's probes attach with, asked before anything is
/// loaded, so that a kernel without kprobes says so (and nothing runs, BEGIN included);
/// and room for their files.
pub(crate) fn prepare(program: &Program, compiled: &[ProgramCode]) -> Result<(), RunError> {
    let kprobes = compiled.iter().filter(|c| matches!(c.attach, AttachPoint::FbtEntry(_) | AttachPoint::FbtReturn(_))).count();
    if compiled.iter().any(|c| c.fentry) {
        // Chosen for path() (bpf_d_path() runs in a trampoline's program alone) or arguments
        // at a return, or forced.
        let chosen = program.options.fbtmode.is_none() && program.fbt_needs().trampoline;
        fentry::supported().map_err(|why| match chosen {
            true => RunError::Other(format!("path() (the kernel's bpf_d_path()) and a function's arguments at its return are read only in fentry/fexit programs, and {why}. Nothing was attached")),
            false => RunError::Other(format!("fbt probes with -x fbtmode=fentry need fentry/fexit programs, and {why}; -x fbtmode=kprobe attaches kprobes instead. Nothing was attached")),
        })?;
    }
    if compiled.iter().any(|c| !c.functions.is_empty()) {
        kprobe_multi::supported().map_err(|why| RunError::Other(format!("fbt probes with -x fbtmode=multi need kprobe.multi links, and {why}; -x fbtmode=kprobe attaches a kprobe per function instead. Nothing was attached")))?;
    }
    if compiled.iter().any(|c| !c.fentry && matches!(c.attach, AttachPoint::FbtEntry(_) | AttachPoint::FbtReturn(_))) {
        kprobe::available()?;
    }
    if kprobes > 0 {
        kprobe::raise_file_limit(kprobes);
    }
    Ok(())
}

/// Loads one program of the ELF into the kernel (through the verifier).
pub(crate) fn load(ebpf: &mut Ebpf, own: &mut OwnPrograms, program: &Program, code: &ProgramCode) -> Result<Result<(), ProgramError>, RunError> {
    if !code.functions.is_empty() {
        return Ok(own.keep(code, kprobe_multi::load(ebpf, code)?.map(Some)));
    }
    if code.fentry && code.func_refs.is_empty() {
        let loaded = fentry::load_own(ebpf, program, code, &mut own.1)?;
        return Ok(own.keep(code, loaded));
    }
    if matches!(code.attach, AttachPoint::Iter(..)) {
        return Ok(own.keep(code, iter::load(ebpf, code)?.map(Some)));
    }
    if btf_tracepoint::own(code) {
        return Ok(own.keep(code, btf_tracepoint::load_own(ebpf, program, code)?.map(Some)));
    }
    // A program that passes a callback to a helper (chill()'s bpf_loop) needs the callback
    // linked in as a BPF subprogram, which only aya's loader does: it takes the perf-event
    // path.
    if matches!(code.attach, AttachPoint::UserEntry(_) | AttachPoint::UserReturn(_)) && code.func_refs.is_empty() && uprobe_multi::supported() {
        return Ok(own.keep(code, uprobe_multi::load(ebpf, code)?.map(Some)));
    }
    Ok(match ebpf.program_mut(&code.name) {
        Some(AyaProgram::RawTracePoint(p)) => p.load(),
        Some(AyaProgram::PerfEvent(p)) => p.load(),
        Some(AyaProgram::TracePoint(p)) => p.load(),
        Some(AyaProgram::KProbe(p)) => p.load(),
        Some(AyaProgram::UProbe(p)) => p.load(),
        Some(AyaProgram::BtfTracePoint(p)) => btf_tracepoint::load(p, program, code)?,
        Some(AyaProgram::FEntry(p)) => fentry::load_entry(p, program, code, &mut own.1)?,
        Some(AyaProgram::FExit(p)) => fentry::load_exit(p, program, code, &mut own.1)?,
        _ => return Err(missing(code)),
    })
}

/// What attaching made of the program's kernel functions: how many it tried, and those the
/// kernel refused, with why.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub functions: usize,
    pub skipped: Vec<(String, String)>,
    /// The same for pid and uprobe probes.
    pub user: uprobe::UserTally,
    /// How the refused functions were to be probed, for the message: "a kprobe" if unset.
    pub how: Option<&'static str>,
    /// Iterators made (`iter:task`), for the session to read once BEGIN has run.
    pub iters: Vec<iter::Made>,
}

impl Tally {
    /// The line to say on standard error when some functions were skipped; an error when
    /// they all were (the program would trace nothing it was asked to).
    pub fn outcome(&self) -> Result<Option<String>, RunError> {
        let user = self.user.outcome()?;
        let Some((first, why)) = self.skipped.first() else { return Ok(user) };
        let n = self.skipped.len();
        let how = self.how.unwrap_or("a kprobe");
        if n == self.functions {
            let what = if n == 1 { format!("kernel function {first}") } else { format!("any of the {n} kernel function probes (the first, {first})") };
            return Err(RunError::Other(format!("cannot attach {how} to {what}: {why}")));
        }
        let line = format!("{n} of {} fbt probes skipped: the kernel refused {how} on their functions (notrace, the kprobe blacklist, a name several functions share), e.g. {first}: {why}", self.functions);
        Ok(Some(match user {
            Some(u) => format!("{line}; {u}"),
            None => line,
        }))
    }
}

/// Attaches one loaded program; BEGIN and END are never attached (they have no links).
pub(crate) fn attach(ebpf: &mut Ebpf, own: &OwnPrograms, program: &Program, code: &ProgramCode, tally: &mut Tally) -> Result<Vec<Link>, RunError> {
    if !code.functions.is_empty() {
        let fd = own.fd(code).ok_or_else(|| missing(code))?;
        return kprobe_multi::attach(fd, program, code, tally);
    }
    if let Some(fd) = own.fd(code) {
        return match code.attach {
            AttachPoint::UserEntry(i) | AttachPoint::UserReturn(i) => Ok(uprobe_multi::attach(fd, &program.user_probes[i as usize], &mut tally.user)),
            AttachPoint::RawTracepoint(_) => btf_tracepoint::attach_own(fd, program, code),
            AttachPoint::Iter(..) => iter::attach(fd, code, tally),
            _ => Ok(fentry::attach_own(fd, program, code, tally)),
        };
    }
    match ebpf.program_mut(&code.name) {
        Some(AyaProgram::RawTracePoint(p)) => raw_tracepoint::attach(p, code),
        Some(AyaProgram::PerfEvent(p)) => perf_event::attach(p, code),
        Some(AyaProgram::TracePoint(p)) => tracepoint::attach(p, program, code),
        Some(AyaProgram::KProbe(p)) => kprobe::attach(p, program, code, tally),
        Some(AyaProgram::UProbe(p)) => uprobe::attach(p, program, code, &mut tally.user),
        Some(AyaProgram::BtfTracePoint(p)) => btf_tracepoint::attach(p, program, code),
        Some(AyaProgram::FEntry(p)) => fentry::attach(|| p.attach().and_then(|id| p.take_link(id)).map(|l| Box::new(l) as Link), program, code, tally, &own.1),
        Some(AyaProgram::FExit(p)) => fentry::attach(|| p.attach().and_then(|id| p.take_link(id)).map(|l| Box::new(l) as Link), program, code, tally, &own.1),
        _ => Err(missing(code)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_functions_are_counted_and_all_skipped_is_an_error() {
        assert!(matches!(Tally::default().outcome(), Ok(None)));
        let why = |f: &str| (f.to_string(), "`perf_event_open` failed: Invalid argument (os error 22)".to_string());
        let some = Tally { functions: 3, skipped: vec![why("__die")], ..Default::default() };
        let line = some.outcome().unwrap().unwrap();
        assert!(line.starts_with("1 of 3 fbt probes skipped") && line.contains("__die: `perf_event_open` failed: Invalid argument"), "{line}");
        let all = Tally { functions: 1, skipped: vec![why("__die")], ..Default::default() };
        let Err(RunError::Other(msg)) = all.outcome() else { panic!("all skipped is not an error") };
        assert!(msg.starts_with("cannot attach a kprobe to kernel function __die: "), "{msg}");
    }
}
