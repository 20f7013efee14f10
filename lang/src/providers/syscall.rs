//! `syscall::NAME:entry|return`: every system call, through the raw_syscalls tracepoints
//! (one attach for all, filtered by number in the kernel).

use super::{ArgType, AttachPoint, Probe, Provider};
use crate::diag::closest;
use crate::facts::KernelFacts;
use crate::syscalls::SyscallTable;
use crate::tracepoints::parse_format;
use crate::types::AddrSpace;

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
        user: None,
        spelled: "",
    }
}

/// The name of a system call's tracepoints where it differs from the call's (the kernel
/// names them after its SYSCALL_DEFINE, not the table).
fn tracepoint_name(call: &str) -> &str {
    match call {
        "stat" => "newstat",
        "fstat" => "newfstat",
        "lstat" => "newlstat",
        "uname" => "newuname",
        "sendfile" => "sendfile64",
        "umount2" => "umount",
        other => other,
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

    /// Entry: the system call's parameters, as its `syscalls:sys_enter_NAME` tracepoint
    /// declares them (the kernel's SYSCALL_DEFINE prototype); their pointers point into the
    /// calling process. Return: the return value, twice (`args[0]` and `args[1]`, as DTrace).
    fn arg_types(&self, probe: &Probe, facts: Option<&dyn KernelFacts>) -> Option<Result<Vec<ArgType>, String>> {
        if probe.attach == AttachPoint::SyscallReturn {
            let ret = ArgType { c_type: "long".into(), size: 8, signed: true, space: AddrSpace::Kernel, kernel: None };
            return Some(Ok(vec![ret.clone(), ret]));
        }
        let facts = facts?;
        let event = format!("sys_enter_{}", tracepoint_name(probe.function));
        Some(facts.tracepoint_format("syscalls", &event).map(|text| {
            parse_format(&text)
                .into_iter()
                .filter(|f| f.name != "__syscall_nr")
                .map(|f| ArgType { c_type: f.c_type, size: f.size as u8, signed: f.signed, space: AddrSpace::User, kernel: None })
                .collect()
        }))
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
