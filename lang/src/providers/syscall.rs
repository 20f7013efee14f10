//! `syscall::NAME:entry|return`: every system call, through the raw_syscalls tracepoints
//! (one attach for all, filtered by number in the kernel).

use super::{AttachPoint, Probe, Provider};
use crate::diag::closest;
use crate::syscalls::SyscallTable;

/// Syscall probe ids: entry = base + 2*nr, return = base + 2*nr + 1.
pub const SYSCALL_ID_BASE: u32 = 16;

pub struct Syscall;

fn probe(nr: u32, name: &'static str, ret: bool) -> Probe {
    Probe {
        id: SYSCALL_ID_BASE + 2 * nr + ret as u32,
        provider: "syscall",
        module: "vmlinux",
        function: name,
        name: if ret { "return" } else { "entry" },
        attach: if ret { AttachPoint::SyscallReturn } else { AttachPoint::SyscallEntry },
        nr: Some(nr),
    }
}

impl Provider for Syscall {
    fn name(&self) -> &'static str {
        "syscall"
    }

    fn doc(&self) -> &'static str {
        "entry to and return from every system call (one attach for all)"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["syscall::read:entry", "syscall:::return"]
    }

    fn probes(&self) -> Vec<Probe> {
        SyscallTable::get().iter().flat_map(|(nr, name)| [probe(nr, name, false), probe(nr, name, true)]).collect()
    }

    fn probe_by_id(&self, id: u32) -> Option<Probe> {
        let n = id.checked_sub(SYSCALL_ID_BASE)?;
        Some(probe(n / 2, SyscallTable::get().name(n / 2)?, n % 2 == 1))
    }

    fn no_match_hint(&self, [_, _, func, _]: [&str; 4]) -> Option<String> {
        if func.is_empty() || func.contains(['*', '?', '[']) || SyscallTable::get().number(func).is_some() {
            return None;
        }
        Some(match closest(func, SyscallTable::get().iter().map(|(_, n)| n)) {
            Some(c) => format!("there is no system call `{func}`; did you mean `{c}`?"),
            None => format!("there is no system call `{func}`"),
        })
    }
}
