//! User stacks and symbols: `ustack()`, `usym()`/`ufunc()`/`uaddr()`/`umod()`, `ucaller`,
//! `ustackdepth` and printf's `%A`, symbolized with blazesym from the ELF symbols (and
//! DWARF) of the files the process had mapped, in DTrace's `module`symbol+0xoffset` form.
//!
//! A recorded value carries the process's id (tgid). Its memory map (`/proc/PID/maps`) is
//! read the first time one of its addresses is printed, and kept; the `-c` command's is also
//! captured as it exits ([`ExitMaps`]), so that aggregations printed after it has gone still
//! symbolize. An address no mapping or symbol covers prints as `0x` and the address, as
//! DTrace prints it. Nothing here runs, and blazesym is not touched, until a user stack or
//! symbol is printed.

use crate::output::Value;
use crate::sys;
use blazesym::symbolize::source::{Elf, Source};
use blazesym::symbolize::{Input, Symbolized, Symbolizer};
use crumbs_ebpf::abi::USTACK_DEPTH;
use crumbs_lang::ir::{StackMode, UStackUse, USymKind, USTACK_FRAMES_MAX};
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::os::fd::RawFd;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

/// One line of `/proc/PID/maps` that maps a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub start: u64,
    pub end: u64,
    /// Where in the file `start` is.
    pub offset: u64,
    pub path: String,
}

/// The file mappings of a process, by address.
pub type Maps = Vec<Mapping>;

/// Memory maps captured from processes as they exited (the `-c` command's), by tgid.
#[derive(Clone, Default)]
pub struct ExitMaps(Arc<Mutex<HashMap<u32, Maps>>>);

impl ExitMaps {
    /// Reads and keeps `pid`'s maps: called while it is stopped at its exit, its memory still
    /// there.
    pub fn capture(&self, pid: i32) {
        if let Some(maps) = read_maps(pid as u32) {
            self.0.lock().unwrap_or_else(|e| e.into_inner()).insert(pid as u32, maps);
        }
    }

    fn get(&self, pid: u32) -> Option<Maps> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).get(&pid).cloned()
    }
}

/// What an address is in a process: its module (file name, first address and the file's
/// path) and symbol (name and first address), each if known.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Resolved {
    module: Option<(String, u64, String)>,
    symbol: Option<(String, u64)>,
}

/// The user stack map, and what symbolizing needs once it is needed.
pub struct UserStacks {
    fd: Option<RawFd>,
    /// The map of stacks recorded in bpftrace's `build_id` mode, if the program has one.
    build_id_fd: Option<RawFd>,
    /// Frames `ustack()` without a count keeps (the `ustackframes` option).
    default_frames: usize,
    exited: ExitMaps,
    symbolizer: OnceCell<Symbolizer>,
    maps: RefCell<HashMap<u32, Rc<Maps>>>,
    resolved: RefCell<HashMap<(u32, u64), Resolved>>,
}

impl UserStacks {
    pub fn new(fd: Option<RawFd>, default_frames: Option<u8>, exited: ExitMaps) -> Self {
        UserStacks {
            fd,
            build_id_fd: None,
            default_frames: default_frames.unwrap_or(USTACK_FRAMES_MAX) as usize,
            exited,
            symbolizer: OnceCell::new(),
            maps: RefCell::default(),
            resolved: RefCell::default(),
        }
    }

    /// With the map of stacks recorded in bpftrace's `build_id` mode.
    pub fn with_build_ids(mut self, fd: Option<RawFd>) -> Self {
        self.build_id_fd = fd;
        self
    }

    /// The frames `u` keeps of a recorded user stack word (stack id and tgid), symbolized.
    pub fn read(&self, word: i64, u: UStackUse) -> Value {
        let (id, pid) = (word as i32 as i64, (word as u64 >> 32) as u32);
        let UStackUse::Frames(n, mode) = u;
        let n = if n == 0 { self.default_frames } else { n as usize };
        if mode == StackMode::BuildId {
            return Value::Stack(self.build_id_frames(id, n), mode);
        }
        let frame = |pc: u64| match mode {
            StackMode::Bpftrace => self.text(pid, pc, USymKind::Addr),
            StackMode::Perf => perf_frame(&self.resolve(pid, pc), pc),
            StackMode::Raw | StackMode::BuildId => format!("{pc:x}"),
        };
        let frames = match self.recorded(id) {
            Ok(pcs) => pcs.iter().take(n).map(|pc| frame(*pc)).collect(),
            Err(why) if why.is_empty() => Vec::new(),
            Err(why) => vec![why],
        };
        Value::Stack(frames, mode)
    }

    /// User address `pc` of process `pid`, printed as `kind` says (as a key: standing for
    /// its symbol's or module's first address).
    pub fn address(&self, pc: u64, pid: u32, kind: USymKind, key: bool) -> Value {
        let r = self.resolve(pid, pc);
        let at = match (key, kind, &r) {
            (true, USymKind::Func, Resolved { symbol: Some((_, start)), .. }) => *start,
            (true, USymKind::Mod, Resolved { module: Some((_, start, _)), .. }) => *start,
            _ => pc,
        };
        Value::Sym(at, describe(&r, pc, kind))
    }

    /// `pc` of process `pid` as text: DTrace's `dtrace_uaddr2str()` (Addr), `dt_print_usym()`
    /// (Func), `dt_print_umod()` (Mod).
    fn text(&self, pid: u32, pc: u64, kind: USymKind) -> String {
        describe(&self.resolve(pid, pc), pc, kind)
    }

    /// The innermost `n` frames of stack `id` recorded in the `build_id` mode (or the line that
    /// says why there are none).
    fn build_id_frames(&self, id: i64, n: usize) -> Vec<String> {
        if let Err(why) = crate::stacks::missing(id) {
            return if why.is_empty() { Vec::new() } else { vec![why] };
        }
        let Some(fd) = self.build_id_fd.filter(|_| id >= 0) else {
            return vec![format!("<stack not recorded: {}>", std::io::Error::from_raw_os_error(-id as i32))];
        };
        match crate::build_ids::frames(fd, id as u32) {
            Ok(frames) => frames.into_iter().take(n).collect(),
            Err(why) => vec![why],
        }
    }

    /// The frames of user stack `id`, innermost first, or the line that says why there are
    /// none (empty: the probe fired where there is no user stack, in a kernel thread).
    fn recorded(&self, id: i64) -> Result<Vec<u64>, String> {
        crate::stacks::missing(id)?;
        let Some(fd) = self.fd.filter(|_| id >= 0) else {
            return Err(format!("<stack not recorded: {}>", std::io::Error::from_raw_os_error(-id as i32)));
        };
        let mut pcs = vec![0u8; 8 * USTACK_DEPTH];
        if !matches!(sys::lookup(fd, &(id as u32).to_le_bytes(), &mut pcs), Ok(true)) {
            return Err("<stack no longer available>".into());
        }
        Ok(pcs.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).take_while(|pc| *pc != 0).collect())
    }

    /// What `pc` is in process `pid`, looked up once.
    fn resolve(&self, pid: u32, pc: u64) -> Resolved {
        if let Some(r) = self.resolved.borrow().get(&(pid, pc)) {
            return r.clone();
        }
        let r = self.lookup(pid, pc);
        self.resolved.borrow_mut().insert((pid, pc), r.clone());
        r
    }

    fn lookup(&self, pid: u32, pc: u64) -> Resolved {
        let Some(maps) = self.maps_of(pid, pc) else { return Resolved::default() };
        let Some(m) = maps.iter().find(|m| (m.start..m.end).contains(&pc)) else { return Resolved::default() };
        // The module starts at the first mapping of its file.
        let start = maps.iter().filter(|x| x.path == m.path).map(|x| x.start).min().unwrap_or(m.start);
        let module = Some((basename(&m.path).to_string(), start, m.path.clone()));
        let symbolizer = self.symbolizer.get_or_init(|| Symbolizer::builder().enable_code_info(false).enable_inlined_fns(false).enable_demangling(false).build());
        let offset = pc - m.start + m.offset;
        // A process with another root directory (a container's) sees its files under it
        // (gone with the process: then the path as it is), and the files of one path are
        // read once for all processes that share the root; debug information blazesym
        // cannot read leaves the ELF symbols.
        let same_root = std::fs::read_link(format!("/proc/{pid}/root")).map_or(true, |r| r == std::path::Path::new("/"));
        let paths = if same_root { vec![m.path.clone()] } else { vec![format!("/proc/{pid}/root{}", m.path), m.path.clone()] };
        let found = paths.into_iter().flat_map(|path| [true, false].map(|debug| (path.clone(), debug))).find_map(|(path, debug)| {
            let mut elf = Elf::new(path);
            elf.debug_syms = debug;
            symbolizer.symbolize_single(&Source::Elf(elf), Input::FileOffset(offset)).ok()
        });
        let symbol = match found {
            Some(Symbolized::Sym(s)) => Some((demangle(&s.name), pc - s.offset as u64)),
            _ => None,
        };
        Resolved { module, symbol }
    }

    /// Process `pid`'s maps: as captured when it exited, or read now (again if they do not
    /// hold `pc`: the process may have mapped a library since).
    fn maps_of(&self, pid: u32, pc: u64) -> Option<Rc<Maps>> {
        if let Some(m) = self.maps.borrow().get(&pid) {
            if m.iter().any(|m| (m.start..m.end).contains(&pc)) {
                return Some(m.clone());
            }
        }
        let maps = Rc::new(self.exited.get(pid).or_else(|| read_maps(pid))?);
        self.maps.borrow_mut().insert(pid, maps.clone());
        Some(maps)
    }
}

/// How an address prints, as DTrace's user-symbol printers have it: `module`symbol+0xoff`
/// (no offset at the symbol's first byte, or for `usym()`), `module`0xaddr` where no
/// symbol covers it, the module alone for `umod()`, and `0xaddr` outside any file.
fn describe(r: &Resolved, pc: u64, kind: USymKind) -> String {
    match (kind, &r.module, &r.symbol) {
        (USymKind::Mod, Some((m, _, _)), _) => m.clone(),
        (USymKind::Addr, Some((m, _, _)), Some((name, start))) if pc > *start => format!("{m}`{name}+0x{:x}", pc - start),
        (USymKind::Addr | USymKind::Func, Some((m, _, _)), Some((name, _))) => format!("{m}`{name}"),
        (USymKind::Addr | USymKind::Func, Some((m, _, _)), None) => format!("{m}`0x{pc:x}"),
        (_, None, _) => format!("0x{pc:x}"),
    }
}

/// A user frame as bpftrace's perf mode prints it (after its tab): the address in hex, then
/// `symbol+offset (file)` (the offset in decimal, the file as the process mapped it), or
/// `0xaddress ([unknown])` where no symbol covers it.
fn perf_frame(r: &Resolved, pc: u64) -> String {
    match (&r.module, &r.symbol) {
        (Some((_, _, path)), Some((name, start))) => format!("{pc:x} {name}+{} ({path})", pc - start),
        _ => format!("{pc:x} 0x{pc:x} ([unknown])"),
    }
}

/// A Rust (legacy or v0) or C++ name demangled, Rust's without its hash; any other name as
/// it is.
pub(crate) fn demangle(name: &str) -> String {
    if name.starts_with("_R") || name.starts_with("_ZN") {
        if let Ok(d) = rustc_demangle::try_demangle(name) {
            return format!("{d:#}");
        }
    }
    if name.starts_with("_Z") {
        if let Some(d) = cpp_demangle::Symbol::new(name).ok().and_then(|s| s.demangle().ok()) {
            return d;
        }
    }
    name.to_string()
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `/proc/PID/maps`' file mappings; `None` if the process is gone.
pub fn read_maps(pid: u32) -> Option<Maps> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/maps")).ok()?;
    let maps = parse_maps(&text);
    (!maps.is_empty()).then_some(maps)
}

/// One line of `/proc/PID/maps`: `START-END PERMS OFFSET DEV INODE PATH`.
pub(crate) struct MapsLine<'a> {
    pub start: u64,
    pub end: u64,
    pub perms: &'a str,
    pub offset: u64,
    pub inode: u64,
    /// Everything after the inode's padding, spaces included (a file's name may hold them);
    /// "" for an anonymous mapping, `[vdso]` and the like, and ` (deleted)` still on the end
    /// of a file deleted since.
    pub path: &'a str,
}

pub(crate) fn maps_line(line: &str) -> Option<MapsLine<'_>> {
    let mut w = line.splitn(6, ' ');
    let (range, perms, offset, _dev, inode) = (w.next()?, w.next()?, w.next()?, w.next()?, w.next()?);
    let (start, end) = range.split_once('-')?;
    Some(MapsLine {
        start: u64::from_str_radix(start, 16).ok()?,
        end: u64::from_str_radix(end, 16).ok()?,
        perms,
        offset: u64::from_str_radix(offset, 16).ok()?,
        inode: inode.parse().ok()?,
        path: w.next().unwrap_or("").trim_start(),
    })
}

/// Parses `START-END PERMS OFFSET DEV INODE PATH` lines, keeping those that map a file.
pub fn parse_maps(text: &str) -> Maps {
    text.lines()
        .filter_map(|line| {
            let l = maps_line(line)?;
            if !l.path.starts_with('/') {
                return None;
            }
            Some(Mapping { start: l.start, end: l.end, offset: l.offset, path: l.path.strip_suffix(" (deleted)").unwrap_or(l.path).to_string() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_file_mappings() {
        let maps = parse_maps(
            "55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 123 /tmp/prog\n\
             55d0c0a01000-55d0c0a02000 r-xp 00001000 08:01 123 /tmp/prog\n\
             7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n\
             7ffd0000000-7ffd0001000 r-xp 00000000 00:00 0                          [vdso]\n\
             7f1000000000-7f1000100000 r-xp 00028000 08:01 9 /usr/lib/libc.so.6 (deleted)\n",
        );
        assert_eq!(maps.len(), 3);
        assert_eq!(maps[1], Mapping { start: 0x55d0c0a01000, end: 0x55d0c0a02000, offset: 0x1000, path: "/tmp/prog".into() });
        assert_eq!(maps[2].path, "/usr/lib/libc.so.6");
    }

    #[test]
    fn prints_like_dtrace() {
        let r = Resolved { module: Some(("libc.so.6".into(), 0x1000, "/usr/lib/libc.so.6".into())), symbol: Some(("write".into(), 0x1200)) };
        assert_eq!(describe(&r, 0x1234, USymKind::Addr), "libc.so.6`write+0x34");
        assert_eq!(describe(&r, 0x1200, USymKind::Addr), "libc.so.6`write");
        assert_eq!(describe(&r, 0x1234, USymKind::Func), "libc.so.6`write");
        assert_eq!(describe(&r, 0x1234, USymKind::Mod), "libc.so.6");
        let m = Resolved { module: Some(("prog".into(), 0x1000, "/opt/prog".into())), symbol: None };
        assert_eq!(describe(&m, 0x1234, USymKind::Func), "prog`0x1234");
        assert_eq!(describe(&Resolved::default(), 0x1234, USymKind::Mod), "0x1234");
    }

    #[test]
    fn perf_frames_name_the_file() {
        // bpftrace 0.17: uprobe:/lib/x86_64-linux-gnu/libc.so.6:getpid { printf("%s", ustack(perf, 2)); }
        // printed "\t7f151e13c4e0 __getpid+0 (/usr/lib/x86_64-linux-gnu/libc.so.6)" and
        // "\t94bc20 0x94bc20 ([unknown])".
        let r = Resolved { module: Some(("libc.so.6".into(), 0x1000, "/usr/lib/libc.so.6".into())), symbol: Some(("write".into(), 0x1200)) };
        assert_eq!(perf_frame(&r, 0x1234), "1234 write+52 (/usr/lib/libc.so.6)");
        assert_eq!(perf_frame(&r, 0x1200), "1200 write+0 (/usr/lib/libc.so.6)");
        assert_eq!(perf_frame(&Resolved::default(), 0x94bc20), "94bc20 0x94bc20 ([unknown])");
    }

    #[test]
    fn demangles_rust_and_cpp_names_only() {
        assert_eq!(demangle("_ZN12io_benchmark4main17h0123456789abcdefE"), "io_benchmark::main");
        assert_eq!(demangle("_ZN3foo3barEv"), "foo::bar()");
        assert_eq!(demangle("c"), "c");
        assert_eq!(demangle("main"), "main");
    }

    #[test]
    fn a_gone_process_prints_addresses() {
        let u = UserStacks::new(None, None, ExitMaps::default());
        assert_eq!(u.address(0x1234, u32::MAX, USymKind::Addr, false), Value::Sym(0x1234, "0x1234".into()));
        assert_eq!(u.read(-(libc::EFAULT as i64) & 0xffff_ffff, UStackUse::Frames(0, StackMode::Bpftrace)), Value::Stack(vec![], crumbs_lang::ir::StackMode::Bpftrace));
    }

    /// This very process, symbolized through its own maps: its `main` is in its executable.
    #[test]
    fn symbolizes_a_live_process() {
        let u = UserStacks::new(None, None, ExitMaps::default());
        let pc = read_maps as *const () as u64;
        let Value::Sym(start, text) = u.address(pc, std::process::id(), USymKind::Func, true) else { panic!() };
        assert!(text.ends_with("read_maps"), "{text}");
        assert!(start <= pc);
    }
}
