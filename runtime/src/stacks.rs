//! Kernel stacks recorded by `stack()`: read from the stack map and symbolized with
//! /proc/kallsyms (read once, on first use), in DTrace's `module`symbol+0xoffset` form.

use crate::sys;
use crumbs_ebpf::abi::STACK_DEPTH;
use std::cell::OnceCell;
use std::os::fd::RawFd;

/// The stack map, and the kernel's symbols once needed.
pub struct Stacks {
    fd: Option<RawFd>,
    symbols: OnceCell<Kallsyms>,
}

impl Stacks {
    pub fn new(fd: Option<RawFd>) -> Self {
        Stacks { fd, symbols: OnceCell::new() }
    }

    /// The frames of stack `id`, innermost first, without the tracing machinery's own frames
    /// (the BPF program and the tracepoint hooks that ran it). A probe that fired in user
    /// mode has no kernel stack (empty, as in DTrace); one the kernel could not record for
    /// another reason (a negative id), or that is gone, is one line saying so.
    pub fn frames(&self, id: i64) -> Vec<String> {
        if id == -(libc::EFAULT as i64) {
            return Vec::new();
        }
        if id == -(libc::EEXIST as i64) {
            return vec!["<stack lost: another stack holds its slot in the stack map>".into()];
        }
        let Some(fd) = self.fd.filter(|_| id >= 0) else {
            return vec![format!("<stack not recorded: {}>", std::io::Error::from_raw_os_error(-id as i32))];
        };
        let mut pcs = vec![0u8; 8 * STACK_DEPTH];
        if !matches!(sys::lookup(fd, &(id as u32).to_le_bytes(), &mut pcs), Ok(true)) {
            return vec!["<stack no longer available>".into()];
        }
        let symbols = self.symbols.get_or_init(Kallsyms::load);
        pcs.chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .take_while(|pc| *pc != 0)
            .map(|pc| symbols.frame(pc))
            .skip_while(|f| is_tracing_frame(f))
            .collect()
    }
}

/// Frames of crumbs' own program and of the hooks that called it, at the top of a stack
/// recorded from a tracepoint.
fn is_tracing_frame(frame: &str) -> bool {
    frame.starts_with("bpf`") || frame.contains("`bpf_trace_run") || frame.contains("`__bpf_trace_") || frame.contains("`__traceiter_")
}

/// Text symbols of the kernel and its modules, sorted by address.
pub struct Kallsyms {
    syms: Vec<(u64, String, String)>,
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
        Kallsyms { syms }
    }

    /// `module`symbol+0xoffset` (no offset at the symbol's first byte), or the bare address.
    pub fn frame(&self, pc: u64) -> String {
        match self.syms.partition_point(|s| s.0 <= pc).checked_sub(1).map(|i| &self.syms[i]) {
            Some((addr, name, module)) if pc > *addr => format!("{module}`{name}+0x{:x}", pc - addr),
            Some((_, name, module)) => format!("{module}`{name}"),
            None => format!("0x{pc:x}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
