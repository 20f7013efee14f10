//! fentry and fexit programs: fbt probes as BPF trampolines, one program per function,
//! each loaded against the function's BTF prototype (aya's FEntry/FExit, given the
//! kernel's BTF, parsed once) and attached with its own link. A function the kernel
//! refuses a trampoline on is skipped and counted, as a refused kprobe is.

use super::{kprobe_multi, Link, Tally};
use crate::session::RunError;
use aya::programs::{FEntry, FExit, ProgramError};
use aya::{Btf, Endianness};
use crumbs_ebpf::abi::ProgramCode;
use crumbs_ebpf::insn::{Insn, R0};
use crumbs_lang::ir::Program;
use crumbs_lang::providers::{AttachPoint, FBT_MODULE};
use std::os::fd::OwnedFd;
use std::sync::OnceLock;

/// The kernel's BTF as aya reads it (a read, not a map: 6.1 cannot mmap it), parsed once
/// for the fentry/fexit and tp_btf programs that are loaded against its types.
pub(super) fn kernel_btf() -> Result<&'static Btf, RunError> {
    static BTF: OnceLock<Result<Btf, String>> = OnceLock::new();
    BTF.get_or_init(|| {
        let path = "/sys/kernel/btf/vmlinux";
        let data = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        Btf::parse(&data, Endianness::default()).map_err(|e| format!("cannot parse {path}: {e}"))
    })
    .as_ref()
    .map_err(|e| RunError::Other(format!("fentry, fexit and tp_btf programs need the kernel's BTF: {e}")))
}

fn function<'p>(program: &'p Program, code: &ProgramCode) -> &'p str {
    let (AttachPoint::FbtEntry(i) | AttachPoint::FbtReturn(i)) = code.attach else { unreachable!("an fentry program for {:?}", code.attach) };
    &program.functions[i as usize].name
}

/// Whether the program's function is a module's: its trampoline would need the module's BTF
/// object (attach_btf_obj_fd), which aya 0.14's FEntry cannot be given; and vmlinux's BTF
/// could name another function of the same name.
fn in_module(program: &Program, code: &ProgramCode, refused: &mut Vec<(String, String)>) -> bool {
    let (AttachPoint::FbtEntry(i) | AttachPoint::FbtReturn(i)) = code.attach else { return false };
    let f = &program.functions[i as usize];
    if f.module == FBT_MODULE {
        return false;
    }
    refused.push((f.name.clone(), format!("an fentry/fexit trampoline on module {}'s functions needs the module's BTF object, which crumbs does not pass yet (-x fbtmode=kprobe attaches them)", f.module)));
    true
}

/// Loads an fentry program. A function whose trampoline the kernel refuses at load time (no
/// BTF prototype of its name, too many arguments) is not an error here: attach skips it.
pub(super) fn load_entry(p: &mut FEntry, program: &Program, code: &ProgramCode, refused: &mut Vec<(String, String)>) -> Result<Result<(), ProgramError>, RunError> {
    if in_module(program, code, refused) {
        return Ok(Ok(()));
    }
    let f = function(program, code);
    Ok(skip_refused(f, p.load(f, kernel_btf()?), refused))
}

/// Loads an fexit program, as [`load_entry`] does an fentry one.
pub(super) fn load_exit(p: &mut FExit, program: &Program, code: &ProgramCode, refused: &mut Vec<(String, String)>) -> Result<Result<(), ProgramError>, RunError> {
    if in_module(program, code, refused) {
        return Ok(Ok(()));
    }
    let f = function(program, code);
    Ok(skip_refused(f, p.load(f, kernel_btf()?), refused))
}

/// A verifier rejection stays an error (crumbs' code is wrong); a function the kernel
/// cannot attach a trampoline to (no BTF FUNC of that name, an argument it cannot pass,
/// a function it does not allow) is noted as refused.
fn skip_refused(f: &str, r: Result<(), ProgramError>, refused: &mut Vec<(String, String)>) -> Result<(), ProgramError> {
    match r {
        Err(ProgramError::LoadError { io_error, verifier_log }) if !refused_by_attach(&verifier_log.to_string()) => Err(ProgramError::LoadError { io_error, verifier_log }),
        Err(e) => {
            refused.push((f.to_string(), super::kprobe::with_causes(&e)));
            Ok(())
        }
        Ok(()) => Ok(()),
    }
}

/// Loads an fentry or fexit program with bpf(2) (crumbs' own loader: aya's FEntry parses
/// the kernel's BTF and attaches one program at a time); a function the kernel refuses a
/// trampoline on is noted in `refused` (None), a verifier rejection is the error.
pub(super) fn load_own(ebpf: &aya::Ebpf, program: &Program, code: &ProgramCode, refused: &mut Vec<(String, String)>) -> Result<Result<Option<OwnedFd>, (std::io::Error, String)>, RunError> {
    const BPF_TRACE_FENTRY: u32 = 24;
    const BPF_TRACE_FEXIT: u32 = 25;
    let (AttachPoint::FbtEntry(i) | AttachPoint::FbtReturn(i)) = code.attach else { unreachable!("an fentry program for {:?}", code.attach) };
    let module = &program.functions[i as usize].module;
    let f = function(program, code);
    // A module's function: its id in the module's split BTF, loaded against the module's
    // BTF object.
    let (id, object) = if module == FBT_MODULE {
        (crate::kernel::btf::func_id(f), None)
    } else {
        let id = crate::kernel::btf::module_function_btf_id(module, f).map_err(RunError::Other)?;
        let object = super::module_btf::fd(module).map_err(|e| RunError::Other(format!("fentry on {module}'s function {f}: {e}")))?;
        (id, Some(object))
    };
    let Some(id) = id else {
        refused.push((f.to_string(), "the kernel's BTF has no prototype of this name (a compiler's copy of a function, or not a function BTF describes)".into()));
        return Ok(Ok(None));
    };
    let kind = if matches!(code.attach, AttachPoint::FbtReturn(_)) { BPF_TRACE_FEXIT } else { BPF_TRACE_FENTRY };
    Ok(match kprobe_multi::load_tracing_as(&code.name, &kprobe_multi::resolved(ebpf, code)?, kind, id, object.as_deref()) {
        Ok(fd) => Ok(Some(fd)),
        Err((e, log)) if refused_by_attach(&log) => {
            refused.push((f.to_string(), format!("{e}: {}", log.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim())));
            Ok(None)
        }
        Err(e) => Err(e),
    })
}

/// Attaches an fentry/fexit program crumbs loaded: the descriptor BPF_RAW_TRACEPOINT_OPEN
/// returns is the attachment. (From several threads at once it is no faster: the kernel
/// rebuilds one trampoline at a time, under ftrace's lock.)
pub(super) fn attach_own(fd: &OwnedFd, program: &Program, code: &ProgramCode, tally: &mut Tally) -> Vec<Link> {
    tally.functions += 1;
    tally.how = Some("an fentry/fexit trampoline");
    match kprobe_multi::raw_tracepoint_open(fd) {
        Ok(l) => vec![Box::new(l)],
        Err(e) => {
            tally.skipped.push((function(program, code).to_string(), e.to_string()));
            Vec::new()
        }
    }
}

/// Whether a verifier log is the kernel refusing the attach target rather than the code.
fn refused_by_attach(log: &str) -> bool {
    ["is not traceable", "cannot be attached", "is not a function", "doesn't have", "too many arguments", "not supported", "Cannot attach", "unsupported"].iter().any(|m| log.contains(m))
}

/// Attaches a loaded fentry or fexit program (nothing for one whose load was refused).
pub(super) fn attach(link: impl FnOnce() -> Result<Link, ProgramError>, program: &Program, code: &ProgramCode, tally: &mut Tally, refused: &[(String, String)]) -> Result<Vec<Link>, RunError> {
    let f = function(program, code);
    tally.functions += 1;
    tally.how = Some("an fentry/fexit trampoline");
    if let Some((_, why)) = refused.iter().find(|(g, _)| g == f) {
        tally.skipped.push((f.to_string(), why.clone()));
        return Ok(Vec::new());
    }
    match link() {
        Ok(l) => Ok(vec![l]),
        Err(e) => {
            tally.skipped.push((f.to_string(), super::kprobe::with_causes(&e)));
            Ok(Vec::new())
        }
    }
}

/// Whether this kernel runs fentry programs, found once: a trivial one loaded against
/// vfs_read's prototype (the host's kernel refuses it: EPERM; kernels before 5.5 or
/// without BTF have none).
pub(crate) fn supported() -> Result<(), String> {
    static SUPPORTED: OnceLock<Result<(), String>> = OnceLock::new();
    SUPPORTED
        .get_or_init(|| {
            let id = crate::kernel::btf::func_id("vfs_read").ok_or("the kernel's BTF (/sys/kernel/btf/vmlinux) has no vfs_read to try one on")?;
            kprobe_multi::load_tracing(&[Insn::mov_imm(R0, 0), Insn::exit()], id).map(drop).map_err(|e| format!("the kernel refused an fentry program ({e})"))
        })
        .clone()
}
