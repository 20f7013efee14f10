//! Kernel stacks recorded by `stack()`: read from the stack map and symbolized with
//! /proc/kallsyms (read once, on first use), in DTrace's `module`symbol+0xoffset` form.

use crate::output::Value;
use crate::sys;
use crate::ustacks::{ExitMaps, UserStacks};
use crumbs_ebpf::abi::STACK_DEPTH;
use crate::output::bpftrace::keys;
use crumbs_lang::ir::{IntRepr, StackMode, StackUse, SymKind, STACK_FRAMES_DEFAULT};
use crumbs_lang::printf::Conv;
use std::cell::OnceCell;
use std::collections::HashMap;
use std::os::fd::RawFd;

/// The stack map, and the kernel's symbols once needed; the user stacks.
pub struct Stacks {
    fd: Option<RawFd>,
    symbols: OnceCell<Kallsyms>,
    /// Frames `stack()` without a count keeps (the `stackframes` option).
    default_frames: usize,
    pub user: UserStacks,
}

/// A recorded stack as user space reads it: the probed code's frames, innermost first, or
/// the line that says why there are none.
enum Recorded {
    Pcs(Vec<u64>),
    Missing(String),
}

impl Stacks {
    pub fn new(fd: Option<RawFd>) -> Self {
        Stacks { fd, symbols: OnceCell::new(), default_frames: STACK_FRAMES_DEFAULT as usize, user: UserStacks::new(None, None, ExitMaps::default()) }
    }

    /// With the user stacks (see [`UserStacks`]).
    pub fn with_user(mut self, user: UserStacks) -> Self {
        self.user = user;
        self
    }

    /// `stack()` without a count keeps `n` frames (the `stackframes` option).
    pub fn with_default_frames(mut self, n: Option<u8>) -> Self {
        self.default_frames = n.map_or(STACK_FRAMES_DEFAULT as usize, usize::from);
        self
    }

    /// The kernel's symbols, read on first use.
    pub fn symbols(&self) -> &Kallsyms {
        self.symbols.get_or_init(Kallsyms::load)
    }

    /// The frames of stack `id`, innermost first, without the tracing machinery's own frames
    /// (the BPF program and the tracepoint hooks that ran it). A probe that fired in user
    /// mode has no kernel stack (empty, as in DTrace); one the kernel could not record for
    /// another reason (a negative id), or that is gone, is one line saying so.
    pub fn frames(&self, id: i64) -> Vec<String> {
        self.frames_of(self.recorded(id), STACK_DEPTH)
    }

    /// What user space reads from stack `id` as `use` says, as a value.
    pub fn read(&self, id: i64, u: StackUse) -> Value {
        let StackUse::Frames(n, mode) = u;
        let n = if n == 0 { self.default_frames } else { n as usize };
        let frames = match (mode, self.recorded(id)) {
            // As perf prints a frame: the address, then the symbol as bpftrace's own mode has it.
            (StackMode::Perf, Recorded::Pcs(pcs)) => pcs.iter().take(n).map(|pc| format!("{pc:x} {}", keys::frame(&self.symbols().frame(*pc)))).collect(),
            (StackMode::Raw, Recorded::Pcs(pcs)) => pcs.iter().take(n).map(|pc| format!("{pc:x}")).collect(),
            (_, r) => self.frames_of(r, n),
        };
        Value::Stack(frames, mode)
    }

    /// Address `pc` as an integer, or as a symbol of `kind`.
    pub fn address(&self, pc: u64, kind: Option<SymKind>) -> Value {
        match kind {
            Some(k) => Value::Sym(pc, self.symbols().symbol(pc, k)),
            None => Value::Int(pc as i64, IntRepr::U64),
        }
    }

    /// At most `n` frames of a recorded stack, as [`Stacks::frames`] has them.
    fn frames_of(&self, r: Recorded, n: usize) -> Vec<String> {
        match r {
            Recorded::Pcs(pcs) => pcs.iter().take(n).map(|pc| self.symbols().frame(*pc)).collect(),
            Recorded::Missing(why) if why.is_empty() => Vec::new(),
            Recorded::Missing(why) => vec![why],
        }
    }

    fn recorded(&self, id: i64) -> Recorded {
        if let Err(why) = missing(id) {
            return Recorded::Missing(why);
        }
        let Some(fd) = self.fd.filter(|_| id >= 0) else {
            return Recorded::Missing(format!("<stack not recorded: {}>", std::io::Error::from_raw_os_error(-id as i32)));
        };
        let mut pcs = vec![0u8; 8 * STACK_DEPTH];
        if !matches!(sys::lookup(fd, &(id as u32).to_le_bytes(), &mut pcs), Ok(true)) {
            return Recorded::Missing("<stack no longer available>".into());
        }
        let symbols = self.symbols();
        Recorded::Pcs(
            pcs.chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .take_while(|pc| *pc != 0)
                .skip_while(|pc| is_tracing_frame(&symbols.frame(*pc)))
                .collect(),
        )
    }
}

impl Stacks {
    /// `values` printed by the conversions `convs` in order, with the argument of each `%a`
    /// turned into its symbol and offset (DTrace's `dtrace_addr2str()`).
    pub fn symbolize<'c>(&self, convs: impl Iterator<Item = &'c Conv>, values: Vec<Value>) -> Vec<Value> {
        let mut convs = convs;
        values
            .into_iter()
            .map(|v| {
                let pc = match (convs.next().map(|c| c.conv), &v) {
                    (Some('a'), Value::Int(n, _)) => *n as u64,
                    (Some('a'), Value::Sym(pc, _)) => *pc,
                    // %A's argument arrives symbolized in its process; an integer key of
                    // printa() has no process and prints in hex.
                    (Some('A'), Value::Int(n, _)) => return Value::Sym(*n as u64, format!("0x{:x}", *n as u64)),
                    _ => return v,
                };
                Value::Sym(pc, self.symbols().frame(pc))
            })
            .collect()
    }
}

/// Why stack `id` has no frames, if the id says: no stack where the probe fired (empty), or
/// a hash collision in the stack map.
pub fn missing(id: i64) -> Result<(), String> {
    if id == -(libc::EFAULT as i64) {
        return Err(String::new());
    }
    if id == -(libc::EEXIST as i64) {
        return Err("<stack lost: another stack holds its slot in the stack map>".into());
    }
    Ok(())
}

/// Frames of crumbs' own program and of the hooks that called it, at the top of a stack
/// recorded from a tracepoint.
fn is_tracing_frame(frame: &str) -> bool {
    frame.starts_with("bpf`") || frame.contains("`bpf_trace_run") || frame.contains("`__bpf_trace_") || frame.contains("`__traceiter_")
}

/// Text symbols of the kernel and its modules, sorted by address.
pub struct Kallsyms {
    syms: Vec<(u64, String, String)>,
    /// Each module's lowest symbol address (`vmlinux` for the kernel).
    modules: HashMap<String, u64>,
}

impl Kallsyms {
    pub fn load() -> Kallsyms {
        Kallsyms::parse(&std::fs::read_to_string("/proc/kallsyms").unwrap_or_default())
    }

    /// Parses `ADDR TYPE NAME [MODULE]` lines, keeping text symbols with a real address.
    pub fn parse(text: &str) -> Kallsyms {
        let mut syms: Vec<(u64, String, String)> = text
            .lines()
            .filter_map(|line| {
                let mut w = line.split_whitespace();
                let addr = u64::from_str_radix(w.next()?, 16).ok().filter(|a| *a != 0)?;
                let kind = w.next()?;
                if !matches!(kind, "t" | "T" | "w" | "W") {
                    return None;
                }
                let name = w.next()?.to_string();
                let module = w.next().map_or("vmlinux".to_string(), |m| m.trim_matches(['[', ']']).to_string());
                Some((addr, name, module))
            })
            .collect();
        syms.sort_by_key(|s| s.0);
        let mut modules = HashMap::new();
        for (addr, _, module) in &syms {
            modules.entry(module.clone()).or_insert(*addr);
        }
        Kallsyms { syms, modules }
    }

    /// The addresses of the text symbols of `/proc/kallsyms` text that `keep` picks, each
    /// from its start to the next symbol's, as [start, end) ranges (adjacent ones merged).
    /// Reads the text without keeping every symbol, as [`Kallsyms::parse`] does: a
    /// program compiled with `caller` pays for this.
    pub fn extents(text: &str, keep: impl Fn(&str) -> bool) -> Vec<(u64, u64)> {
        let mut addrs = Vec::new();
        let mut starts = Vec::new();
        for line in text.lines() {
            let mut w = line.split_whitespace();
            let (Some(addr), Some(kind), Some(name)) = (w.next(), w.next(), w.next()) else { continue };
            let Some(addr) = u64::from_str_radix(addr, 16).ok().filter(|a| *a != 0 && matches!(kind, "t" | "T" | "w" | "W")) else { continue };
            addrs.push(addr);
            if keep(name) {
                starts.push(addr);
            }
        }
        addrs.sort_unstable();
        starts.sort_unstable();
        let mut out: Vec<(u64, u64)> = Vec::new();
        for start in starts {
            let end = addrs.get(addrs.partition_point(|a| *a <= start)).copied().unwrap_or(start + 1);
            match out.last_mut() {
                Some(last) if last.1 >= start => last.1 = last.1.max(end),
                _ => out.push((start, end)),
            }
        }
        out
    }

    /// Whether no text symbol with an address was read (none, or kptr_restrict hides them).
    pub fn is_empty(&self) -> bool {
        self.syms.is_empty()
    }

    /// The text symbol holding `addr`: its start, name and module (`vmlinux` for the
    /// kernel's own), as stack frames name it.
    pub fn at(&self, addr: u64) -> Option<(u64, &str, &str)> {
        self.lookup(addr).map(|(start, name, module)| (*start, name.as_str(), module.as_str()))
    }

    /// The symbol holding `pc`: its address, name and module.
    fn lookup(&self, pc: u64) -> Option<&(u64, String, String)> {
        self.syms.partition_point(|s| s.0 <= pc).checked_sub(1).map(|i| &self.syms[i])
    }

    /// `module`symbol+0xoffset` (no offset at the symbol's first byte), or the bare address:
    /// DTrace's `dtrace_addr2str()`, for stack frames and printf's `%a`.
    pub fn frame(&self, pc: u64) -> String {
        match self.lookup(pc) {
            Some((addr, name, module)) if pc > *addr => format!("{module}`{name}+0x{:x}", pc - addr),
            Some((_, name, module)) => format!("{module}`{name}"),
            None => format!("0x{pc:x}"),
        }
    }

    /// How `func()`/`sym()` and `mod()` print an address: `module`symbol` (DTrace's
    /// `dt_print_sym()`) or `module` (`dt_print_mod()`), the bare address without a symbol.
    pub fn symbol(&self, pc: u64, kind: SymKind) -> String {
        match (self.lookup(pc), kind) {
            (Some((_, name, module)), SymKind::Func) => format!("{module}`{name}"),
            (Some((_, _, module)), SymKind::Mod) => module.clone(),
            (None, _) => format!("0x{pc:x}"),
        }
    }

    /// Where an aggregation key of `kind` at `pc` starts, so that keys in one function (or
    /// module) aggregate together: the symbol's (or module's) first address, as DTrace's
    /// `dt_aggregate_sym()` and `dt_aggregate_mod()` do.
    pub fn start(&self, pc: u64, kind: SymKind) -> u64 {
        match (self.lookup(pc), kind) {
            (Some((addr, _, _)), SymKind::Func) => *addr,
            (Some((_, _, module)), SymKind::Mod) => self.modules.get(module).copied().unwrap_or(pc),
            (None, _) => pc,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_run_to_the_next_symbol_and_merge() {
        let text = "ffffffff81000000 T a\nffffffff81000100 T run1\nffffffff81000100 T run1_alias\nffffffff81000180 T run2\nffffffff81000200 t b\nffffffff81000250 D run_data\nffffffff81000300 t run3\n";
        assert_eq!(Kallsyms::extents(text, |n| n.starts_with("run")), [(0xffffffff81000100, 0xffffffff81000200), (0xffffffff81000300, 0xffffffff81000301)]);
    }

    #[test]
    fn symbolizes_like_dtrace() {
        let k = Kallsyms::parse("ffffffff81000000 T _stext\nffffffff81000100 t helper\nffffffff81000200 D data\nffffffffc0000000 t mod_fn\t[ext4]\n0000000000000000 T hidden\n");
        assert_eq!(k.frame(0xffffffff81000100), "vmlinux`helper");
        assert_eq!(k.frame(0xffffffff81000123), "vmlinux`helper+0x23");
        assert_eq!(k.frame(0xffffffff81000210), "vmlinux`helper+0x110");
        assert_eq!(k.frame(0xffffffffc0000010), "ext4`mod_fn+0x10");
        assert_eq!(k.frame(0x1000), "0x1000");
    }

    #[test]
    fn symbols_modules_and_starts_like_dtrace() {
        let k = Kallsyms::parse("ffffffff81000000 T _stext\nffffffff81000100 t helper\nffffffffc0000000 t mod_fn\t[ext4]\nffffffffc0000100 t mod_other\t[ext4]\n");
        assert_eq!(k.symbol(0xffffffff81000123, SymKind::Func), "vmlinux`helper");
        assert_eq!(k.symbol(0xffffffff81000123, SymKind::Mod), "vmlinux");
        assert_eq!(k.symbol(0xffffffffc0000110, SymKind::Func), "ext4`mod_other");
        assert_eq!(k.symbol(0xffffffffc0000110, SymKind::Mod), "ext4");
        assert_eq!(k.symbol(3, SymKind::Func), "0x3");
        assert_eq!(k.symbol(3, SymKind::Mod), "0x3");
        assert_eq!(k.start(0xffffffff81000123, SymKind::Func), 0xffffffff81000100);
        assert_eq!(k.start(0xffffffff81000123, SymKind::Mod), 0xffffffff81000000);
        assert_eq!(k.start(0xffffffffc0000110, SymKind::Mod), 0xffffffffc0000000);
        assert_eq!(k.start(3, SymKind::Func), 3);
    }

    #[test]
    fn unrecorded_stacks_read_as_zero() {
        let s = Stacks::new(None).with_default_frames(Some(2));
        assert_eq!(s.read(-(libc::EFAULT as i64), StackUse::Frames(0, StackMode::Bpftrace)), Value::Stack(vec![], crumbs_lang::ir::StackMode::Bpftrace));
        let pieces = crumbs_lang::printf::parse("%a %d").unwrap();
        let v = s.symbolize(crumbs_lang::printf::conversions(&pieces), vec![Value::long(0), Value::long(0)]);
        assert_eq!(v, [Value::Sym(0, "0x0".into()), Value::long(0)]);
    }

    #[test]
    fn drops_the_tracing_machinery() {
        assert!(is_tracing_frame("bpf`bpf_prog_3285e397bb463cc0_crumbs_sys_ente+0xc7"));
        assert!(is_tracing_frame("vmlinux`bpf_trace_run2+0x103"));
        assert!(is_tracing_frame("vmlinux`__bpf_trace_sys_enter+0xc"));
        assert!(!is_tracing_frame("vmlinux`syscall_trace_enter+0x180"));
        assert!(Stacks::new(None).frames(-(libc::EFAULT as i64)).is_empty());
        assert!(Stacks::new(None).frames(-17)[0].contains("stack lost"));
        assert!(Stacks::new(None).frames(-12)[0].contains("not recorded"));
    }
}
