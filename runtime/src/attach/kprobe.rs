//! kprobe and kretprobe programs: fbt probes, one program per kernel function. A function
//! the kernel refuses a kprobe on (notrace, the kprobe blacklist, a static name several
//! functions share: EADDRNOTAVAIL, gone since listing) is skipped and counted, not an
//! error: `fbt::vfs_*:entry` should trace what it can.

use super::{Link, Tally};
use crate::session::RunError;
use aya::programs::KProbe;
use crumbs_ebpf::abi::ProgramCode;
use crumbs_lang::ir::Program;
use crumbs_lang::providers::AttachPoint;
use std::path::Path;

pub(super) fn attach(p: &mut KProbe, program: &Program, code: &ProgramCode, tally: &mut Tally) -> Result<Vec<Link>, RunError> {
    let (AttachPoint::FbtEntry(i) | AttachPoint::FbtReturn(i)) = code.attach else {
        return Err(RunError::Other(format!("program {} is a kprobe program for {:?}", code.name, code.attach)));
    };
    let f = &program.functions[i as usize];
    let function = &f.name;
    tally.functions += 1;
    // An entry probe inside the function (kprobe:vfs_read+4) is at its offset; the kernel
    // refuses one that does not start an instruction (EILSEQ).
    match p.attach(function, f.offset) {
        Ok(id) => Ok(vec![Box::new(p.take_link(id).map_err(|e| RunError::Other(e.to_string()))?)]),
        Err(e) => {
            let mut why = with_causes(&e);
            // The kernel decodes the function up to the place and refuses one inside an
            // instruction (bpftrace: "Possible attachment attempt in the middle of an
            // instruction, try a different offset.").
            if f.offset != 0 && why.contains(&format!("(os error {})", libc::EILSEQ)) {
                why = format!("offset {} is in the middle of an instruction, try a different offset ({why})", f.offset);
            }
            tally.skipped.push((function.clone(), why));
            Ok(Vec::new())
        }
    }
}

/// An error and what caused it (aya's "`perf_event_open` failed" says nothing of why: its
/// source is the errno).
pub(super) fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

/// Raises the soft limit on open files to the hard one: each probed function holds a
/// program and a perf event open, and the usual soft limit (1024) would refuse the files
/// of a few hundred functions, which would then look like functions the kernel refuses.
pub(super) fn raise_file_limit(functions: usize) {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit with a valid rlimit struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max && (lim.rlim_cur as usize) < 2 * functions + 256 {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

/// Whether this kernel can attach kprobes at all: through the kprobe PMU (perf_event_open),
/// or through tracefs' kprobe_events, the two ways aya tries.
pub(super) fn available() -> Result<(), RunError> {
    const PMU: &str = "/sys/bus/event_source/devices/kprobe/type";
    let events = format!("{}/kprobe_events", crate::kernel::TRACEFS);
    if Path::new(PMU).exists() || Path::new(&events).exists() {
        return Ok(());
    }
    Err(RunError::Other(format!(
        "fbt probes need kprobes, and this kernel has none (no {PMU}, no {events}): it was built without CONFIG_KPROBES or they are turned off; nothing was attached"
    )))
}
