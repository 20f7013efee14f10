//! The raw tracepoints `rawtracepoint:` probes can name: vmlinux's, from the `btf_trace_EVENT`
//! typedefs of its BTF (the kernel's own list of what a tp_btf program can attach to).

use crumbs_lang::facts::Functions;
use std::sync::OnceLock;

/// Read once per process (vmlinux's BTF is 5 MB).
pub fn list() -> Functions {
    static LIST: OnceLock<Result<Vec<String>, String>> = OnceLock::new();
    LIST.get_or_init(read).as_ref().map(|v| v.as_slice().into()).map_err(Clone::clone)
}

fn read() -> Result<Vec<String>, String> {
    let path = super::btf::VMLINUX;
    let raw = std::fs::read(path).map_err(|e| format!("cannot read the kernel's raw tracepoints from {path}: {e}"))?;
    let mut names = super::btf::raw_tracepoint_names(&raw).ok_or_else(|| format!("cannot read the kernel's raw tracepoints from {path}: not BTF crumbs can read"))?;
    names.sort_unstable();
    names.dedup();
    Ok(names)
}
