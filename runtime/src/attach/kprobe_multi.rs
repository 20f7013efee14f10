//! kprobe.multi programs: one program attached to many kernel functions with one link
//! (BPF_LINK_CREATE, BPF_TRACE_KPROBE_MULTI; Linux 5.18 with CONFIG_FPROBE). aya 0.14 can
//! neither load a kprobe program with the expected attach type this link needs nor create
//! the link, so both are done here with bpf(2); the program's map references are resolved
//! to the maps aya created. Each function's attach cookie says which fired
//! (`crumbs_ebpf::abi::fbt_cookie`).
//!
//! The kernel refuses a whole link when it refuses one of its functions: the set is then
//! halved until the refused functions stand alone, and those are skipped and counted.

use super::{Link, Tally};
use crate::session::RunError;
use crate::sys::bpf;
use aya::Ebpf;
use crumbs_ebpf::abi::{fbt_cookie, ProgramCode};
use crumbs_ebpf::emit::{GLOBALS_SYMBOL, SEQ_FORMATS_SYMBOL};
use crumbs_ebpf::insn::Insn;
use crumbs_lang::ir::Program;
use crumbs_lang::providers::AttachPoint;
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::OnceLock;

const BPF_PROG_LOAD: i32 = 5;
pub(super) const BPF_LINK_CREATE: i32 = 28;
const BPF_PROG_TYPE_KPROBE: u32 = 2;
const BPF_TRACE_KPROBE_MULTI: u32 = 42;
const BPF_F_KPROBE_MULTI_RETURN: u32 = 1;
const BPF_PSEUDO_MAP_FD: u8 = 1;
const BPF_PSEUDO_MAP_VALUE: u8 = 2;

/// bpf_attr for BPF_PROG_LOAD, as far as crumbs fills it.
#[repr(C)]
#[derive(Default)]
struct ProgLoad {
    prog_type: u32,
    insn_cnt: u32,
    insns: u64,
    license: u64,
    log_level: u32,
    log_size: u32,
    log_buf: u64,
    kern_version: u32,
    prog_flags: u32,
    prog_name: [u8; 16],
    prog_ifindex: u32,
    expected_attach_type: u32,
    prog_btf_fd: u32,
    func_info_rec_size: u32,
    func_info: u64,
    func_info_cnt: u32,
    line_info_rec_size: u32,
    line_info: u64,
    line_info_cnt: u32,
    attach_btf_id: u32,
    /// The kernel module's BTF object `attach_btf_id` is in (0: vmlinux's).
    attach_btf_obj_fd: u32,
}

/// bpf_attr for BPF_LINK_CREATE of a kprobe.multi link.
#[repr(C)]
#[derive(Default)]
struct LinkCreate {
    prog_fd: u32,
    target_fd: u32,
    attach_type: u32,
    flags: u32,
    multi_flags: u32,
    cnt: u32,
    syms: u64,
    addrs: u64,
    cookies: u64,
}

pub(super) fn attr<T>(a: &T) -> [u64; 16] {
    let mut out = [0u64; 16];
    // SAFETY: T is a repr(C) bpf_attr prefix no bigger than 128 bytes; out is zeroed.
    unsafe { std::ptr::copy_nonoverlapping(a as *const T as *const u8, out.as_mut_ptr() as *mut u8, std::mem::size_of::<T>().min(128)) };
    out
}

/// Loads `insns` as a kprobe program for kprobe.multi links; on a refusal, the error and
/// the verifier's log.
fn load_insns(name: &str, insns: &[Insn]) -> Result<OwnedFd, (io::Error, String)> {
    load_program(name, insns, BPF_PROG_TYPE_KPROBE, BPF_TRACE_KPROBE_MULTI, 0, 0)
}

/// Loads `insns` as a kprobe program with another expected attach type (uprobe.multi's).
pub(super) fn load_kprobe_as(name: &str, insns: &[Insn], expected_attach_type: u32) -> Result<OwnedFd, (io::Error, String)> {
    load_program(name, insns, BPF_PROG_TYPE_KPROBE, expected_attach_type, 0, 0)
}

const BPF_PROG_TYPE_TRACING: u32 = 26;

/// Loads `insns` as an fentry program on the kernel function whose BTF id is `btf_id` (to
/// find out whether the kernel allows fentry programs).
pub(crate) fn load_tracing(insns: &[Insn], btf_id: u32) -> io::Result<OwnedFd> {
    const BPF_TRACE_FENTRY: u32 = 24;
    load_program("crumbs_probe", insns, BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, btf_id, 0).map_err(|(e, _)| e)
}

/// Loads `insns` as a tracing program of `expected_attach_type` on the kernel's BTF type
/// `btf_id` (a tp_btf program: BPF_TRACE_RAW_TP on a `btf_trace_EVENT` typedef), of the
/// module whose BTF object `btf_obj` is (None: vmlinux's).
pub(super) fn load_tracing_as(name: &str, insns: &[Insn], expected_attach_type: u32, btf_id: u32, btf_obj: Option<&OwnedFd>) -> Result<OwnedFd, (io::Error, String)> {
    load_program(name, insns, BPF_PROG_TYPE_TRACING, expected_attach_type, btf_id, btf_obj.map_or(0, |fd| fd.as_raw_fd() as u32))
}

/// Attaches a loaded tracing program (tp_btf, fentry, fexit) where its load named
/// (BPF_RAW_TRACEPOINT_OPEN with no name): the descriptor returned is the attachment.
pub(super) fn raw_tracepoint_open(prog: &OwnedFd) -> io::Result<OwnedFd> {
    const BPF_RAW_TRACEPOINT_OPEN: i32 = 17;
    let mut attr = [0u64; 16];
    // bpf_attr.raw_tracepoint: name (0), prog_fd.
    attr[1] = prog.as_raw_fd() as u64;
    let fd = bpf(BPF_RAW_TRACEPOINT_OPEN, &mut attr)?;
    // SAFETY: on success the kernel returns a new descriptor this process owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

fn load_program(name: &str, insns: &[Insn], prog_type: u32, expected_attach_type: u32, attach_btf_id: u32, attach_btf_obj_fd: u32) -> Result<OwnedFd, (io::Error, String)> {
    let code: Vec<u8> = insns.iter().flat_map(|i| i.encode()).collect();
    let license = c"GPL";
    let mut a = ProgLoad { prog_type, insn_cnt: insns.len() as u32, insns: code.as_ptr() as u64, license: license.as_ptr() as u64, expected_attach_type, attach_btf_id, attach_btf_obj_fd, ..Default::default() };
    // The kernel takes a name of letters, digits, `_` and `.`, 15 at most.
    for (d, s) in a.prog_name.iter_mut().zip(name.bytes().take(15)) {
        *d = s;
    }
    // SAFETY: on success the kernel returns a new program descriptor this process owns.
    let once = |a: &ProgLoad| bpf(BPF_PROG_LOAD, &mut attr(a)).map(|fd| unsafe { OwnedFd::from_raw_fd(fd as RawFd) });
    let e = match once(&a) {
        Ok(fd) => return Ok(fd),
        Err(e) => e,
    };
    // Again with the verifier's log, for the message.
    let mut log = vec![0u8; 1 << 20];
    a.log_level = 1;
    a.log_size = log.len() as u32;
    a.log_buf = log.as_mut_ptr() as u64;
    let again = once(&a);
    let text = log_text(&log);
    match again {
        Ok(fd) => Ok(fd),
        Err(_) => Err((e, text)),
    }
}

/// The verifier's log: the buffer up to its NUL, or all of it where it filled it (the
/// kernel truncates a log too long for it).
fn log_text(log: &[u8]) -> String {
    String::from_utf8_lossy(&log[..log.iter().position(|&b| b == 0).unwrap_or(log.len())]).into_owned()
}

/// Whether this kernel has kprobe.multi links, found once: a trivial program linked to a
/// function that does not exist is refused for the missing function (ESRCH, ENOENT) where
/// the kernel has them, and as an unknown or unsupported attach (EINVAL, EOPNOTSUPP) where
/// it has not. Turned off ([`super::features`]), they are not used.
pub(crate) fn supported() -> Result<(), String> {
    if super::features::disabled(super::features::Feature::KprobeMulti) {
        return Err("they are turned off (--no-feature kprobe_multi)".to_string());
    }
    static SUPPORTED: OnceLock<Result<(), String>> = OnceLock::new();
    SUPPORTED
        .get_or_init(|| {
            let exit = [Insn::mov_imm(crumbs_ebpf::insn::R0, 0), Insn::exit()];
            let prog = load_insns("crumbs_probe", &exit).map_err(|(e, _)| format!("the kernel refused a kprobe.multi program: {e}"))?;
            let missing = c"crumbs_no_such_function";
            let syms = [missing.as_ptr() as u64];
            match link(&prog, &syms, &[0], false) {
                Ok(_) => Ok(()),
                Err(e) if matches!(e.raw_os_error(), Some(libc::ESRCH | libc::ENOENT)) => Ok(()),
                Err(e) => Err(format!("the kernel refused a kprobe.multi link ({e}): it needs Linux 5.18 or later built with CONFIG_FPROBE")),
            }
        })
        .clone()
}

fn link(prog: &OwnedFd, syms: &[u64], cookies: &[u64], ret: bool) -> io::Result<OwnedFd> {
    let a = LinkCreate {
        prog_fd: prog.as_raw_fd() as u32,
        attach_type: BPF_TRACE_KPROBE_MULTI,
        multi_flags: if ret { BPF_F_KPROBE_MULTI_RETURN } else { 0 },
        cnt: syms.len() as u32,
        syms: syms.as_ptr() as u64,
        cookies: cookies.as_ptr() as u64,
        ..Default::default()
    };
    // SAFETY: on success the kernel returns a new link descriptor this process owns.
    bpf(BPF_LINK_CREATE, &mut attr(&a)).map(|fd| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

fn map_fd(ebpf: &Ebpf, name: &str) -> Option<RawFd> {
    // D's globals are the `.bss` section, which aya makes a map of that name; a pinned
    // iterator's printf() formats are `.rodata`.
    let name = match name {
        GLOBALS_SYMBOL => ".bss",
        SEQ_FORMATS_SYMBOL => ".rodata",
        _ => name,
    };
    crate::session::map_fd(ebpf.map(name)?)
}

/// Loads a kprobe.multi program, its map references resolved to the maps aya created (as
/// aya's loader would: a map's descriptor, or for the globals the `.bss` map's value at the
/// offset the instruction holds).
pub(crate) fn load(ebpf: &Ebpf, code: &ProgramCode) -> Result<Result<OwnedFd, (io::Error, String)>, RunError> {
    Ok(load_insns(&code.name, &resolved(ebpf, code)?))
}

/// The program's instructions with its map references resolved to the maps aya created.
/// Callbacks are not linked here: a program that passes one is loaded by aya.
pub(super) fn resolved(ebpf: &Ebpf, code: &ProgramCode) -> Result<Vec<Insn>, RunError> {
    if let Some(r) = code.func_refs.first() {
        return Err(RunError::Other(format!("program {} passes callback {} to a helper, which crumbs' own loader does not link", code.name, crumbs_ebpf::abi::func_name(&code.name, r.func))));
    }
    let mut insns = code.insns.clone();
    for r in &code.map_refs {
        let fd = map_fd(ebpf, &r.map).ok_or_else(|| RunError::Other(format!("map {} missing for program {}", r.map, code.name)))?;
        let (first, second) = insns.split_at_mut(r.insn + 1);
        let (ld, next) = (&mut first[r.insn], &mut second[0]);
        if r.map == GLOBALS_SYMBOL || r.map == SEQ_FORMATS_SYMBOL {
            ld.src = BPF_PSEUDO_MAP_VALUE;
            next.imm = ld.imm;
        } else {
            ld.src = BPF_PSEUDO_MAP_FD;
        }
        ld.imm = fd;
    }
    Ok(insns)
}

/// Attaches a loaded kprobe.multi program to its functions.
pub(crate) fn attach(prog: &OwnedFd, program: &Program, code: &ProgramCode, tally: &mut Tally) -> Result<Vec<Link>, RunError> {
    let ret = matches!(code.attach, AttachPoint::FbtReturn(_));
    let names: Vec<CString> = code.functions.iter().map(|&i| CString::new(program.functions[i as usize].name.as_str()).map_err(|e| RunError::Other(e.to_string()))).collect::<Result<_, _>>()?;
    let syms: Vec<u64> = names.iter().map(|n| n.as_ptr() as u64).collect();
    let cookies: Vec<u64> = code.functions.iter().map(|&i| fbt_cookie(program, i, ret)).collect();
    tally.functions += syms.len();
    tally.how = Some("a kprobe.multi link");
    let mut links: Vec<Link> = Vec::new();
    let mut refused = Vec::new();
    halving(0..syms.len(), &mut |r| link(prog, &syms[r.clone()], &cookies[r], ret).map(|fd| Box::new(fd) as Link), &mut links, &mut refused);
    for (i, e) in refused {
        tally.skipped.push((program.functions[code.functions[i] as usize].name.clone(), e.to_string()));
    }
    Ok(links)
}

/// Links the functions `set` (indexes into the program's set) with `try_link`; where the
/// kernel refuses them, each half on its own, down to the single functions it refuses.
fn halving<T>(set: std::ops::Range<usize>, try_link: &mut impl FnMut(std::ops::Range<usize>) -> io::Result<T>, links: &mut Vec<T>, refused: &mut Vec<(usize, io::Error)>) {
    match try_link(set.clone()) {
        Ok(l) => links.push(l),
        Err(e) if set.len() == 1 => refused.push((set.start, e)),
        Err(_) => {
            let half = set.start + set.len() / 2;
            halving(set.start..half, try_link, links, refused);
            halving(half..set.end, try_link, links, refused);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_log_is_kept() {
        assert_eq!(log_text(b"0: R1=ctx\n\0\0"), "0: R1=ctx\n");
        assert_eq!(log_text(b"R2 type=scalar"), "R2 type=scalar");
    }

    #[test]
    fn refused_functions_are_found_by_halving_and_the_rest_linked() {
        // The kernel refuses any set holding function 3 or 6 of 8.
        let mut tries = 0;
        let mut try_link = |r: std::ops::Range<usize>| {
            tries += 1;
            if r.clone().any(|i| i == 3 || i == 6) { Err(io::Error::from_raw_os_error(libc::EINVAL)) } else { Ok(r) }
        };
        let (mut links, mut refused) = (Vec::new(), Vec::new());
        halving(0..8, &mut try_link, &mut links, &mut refused);
        assert_eq!(links, [0..2, 2..3, 4..6, 7..8]);
        assert_eq!(refused.iter().map(|(i, _)| *i).collect::<Vec<_>>(), [3, 6]);
        assert_eq!(tries, 11);
        let (mut links, mut refused) = (Vec::new(), Vec::new());
        halving(0..500, &mut |r| Ok::<_, io::Error>(r), &mut links, &mut refused);
        assert_eq!((links.len(), links[0].clone()), (1, 0..500));
    }
}
