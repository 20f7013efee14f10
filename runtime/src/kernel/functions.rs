//! The kernel functions fbt probes can name: vmlinux's, as its BTF describes them, less those
//! ftrace's available_filter_functions leaves out (notrace, inlined everywhere, the kprobe
//! blacklist's `__kprobes` sections) where that file can be read. It cannot be under kernel
//! lockdown (EPERM) or without root: the BTF list alone is used then, and a function that
//! cannot be attached is skipped when attaching.

use super::tracefs::TRACEFS;
use crumbs_lang::facts::Functions;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

/// Read once per process: vmlinux's BTF is 5 MB and ftrace's list some 50k lines.
pub fn list() -> Functions {
    static LIST: OnceLock<Result<Vec<String>, String>> = OnceLock::new();
    LIST.get_or_init(read).as_ref().map(|v| v.as_slice().into()).map_err(Clone::clone)
}

fn read() -> Result<Vec<String>, String> {
    let path = super::btf::VMLINUX;
    let raw = std::fs::read(path).map_err(|e| format!("cannot read the kernel's functions from {path}: {e}"))?;
    let mut names = crate::kernel::btf::function_names(&raw).ok_or_else(|| format!("cannot read the kernel's functions from {path}: not BTF crumbs can read"))?;
    if let Some(traceable) = traceable() {
        names = traceable_of(names, traceable);
    }
    names.sort_unstable();
    names.dedup();
    Ok(names)
}

type ModuleList = Result<Arc<[String]>, String>;

/// Module `module`'s functions, as [`list`] has vmlinux's: from the module's BTF, less
/// those ftrace cannot trace where it says. Read once per module.
pub fn module_list(module: &str) -> Functions {
    static LISTS: Mutex<Option<HashMap<String, ModuleList>>> = Mutex::new(None);
    let mut lists = LISTS.lock().unwrap_or_else(|e| e.into_inner());
    let found = lists.get_or_insert_default().entry(module.to_string()).or_insert_with(|| {
        let mut names = crate::kernel::btf::module_function_names(module)?;
        if let Some(traceable) = traceable_in(module) {
            names = traceable_of(names, traceable);
        }
        Ok(names.into())
    });
    found.as_ref().map(|v| v.iter().cloned().collect::<Vec<_>>().into()).map_err(Clone::clone)
}

/// The functions of `btf` (names as BTF has them) that ftrace can trace, and the local
/// copies the compiler made of functions (`finish_task_switch.isra.0`, `.constprop.0`,
/// `.part.0`): ftrace lists those by their symbols' names, and a kprobe attaches to them
/// by those; BTF has no prototype of theirs (pahole leaves out a function whose copy's
/// signature the compiler changed, so often not even the source's name). Sorted, as fbt
/// looks a named function up by binary search (a module's list is not sorted again).
fn traceable_of(mut btf: Vec<String>, traceable: &HashSet<String>) -> Vec<String> {
    let copies: Vec<String> = traceable.iter().filter(|t| t.contains('.')).cloned().collect();
    btf.retain(|n| traceable.contains(n.as_str()));
    btf.extend(copies);
    btf.sort_unstable();
    btf.dedup();
    btf
}

/// The modules whose functions can be probed: those with BTF.
pub fn modules() -> Vec<String> {
    crate::kernel::btf::module_names()
}

/// vmlinux's functions ftrace can trace (its `NAME` lines), if the list can be read.
fn traceable() -> Option<&'static HashSet<String>> {
    traceable_in("")
}

/// Module `module`'s functions ftrace can trace (its `NAME [MODULE]` lines; "" is vmlinux),
/// if the list can be read. Some 50k lines, read once for vmlinux and every module.
fn traceable_in(module: &str) -> Option<&'static HashSet<String>> {
    static BY_MODULE: OnceLock<Option<HashMap<String, HashSet<String>>>> = OnceLock::new();
    let all = BY_MODULE.get_or_init(|| {
        let text = std::fs::read_to_string(format!("{TRACEFS}/available_filter_functions")).ok()?;
        let mut all: HashMap<String, HashSet<String>> = HashMap::new();
        for line in text.lines() {
            let (name, module) = match line.split_once(" [") {
                Some((name, rest)) => (name, rest.trim_end_matches(']')),
                None => (line, ""),
            };
            all.entry(module.to_string()).or_default().insert(name.to_string());
        }
        Some(all)
    });
    static NONE: OnceLock<HashSet<String>> = OnceLock::new();
    all.as_ref().map(|all| all.get(module).unwrap_or_else(|| NONE.get_or_init(HashSet::new)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiler_copies_of_btf_functions_are_traceable() {
        let btf: Vec<String> = ["finish_task_switch", "inlined_away", "vfs_read"].map(String::from).to_vec();
        let traceable: HashSet<String> = ["vfs_read", "finish_task_switch.isra.0", "other.part.0"].map(String::from).into_iter().collect();
        // Sorted as it comes: a module's list is searched as it is.
        assert_eq!(traceable_of(btf, &traceable), ["finish_task_switch.isra.0", "other.part.0", "vfs_read"]);
    }
}
