//! A fixed, in-memory tracepoint catalog: the fuzzer needs no tracefs and every machine sees
//! the same tracepoints. The format files were copied from a Linux 6.18 tracefs; they cover
//! every field kind the checker knows (integers, `char[16]` names, `__data_loc` strings,
//! a large array).

use crumbs_lang::facts::{sample, Functions, KernelFacts, KernelType, Listing, TypeSpace};

const FORMATS: &[(&str, &str, &str)] = &[
    ("irq", "irq_handler_entry", include_str!("../catalog/irq.irq_handler_entry.format")),
    ("raw_syscalls", "sys_enter", include_str!("../catalog/raw_syscalls.sys_enter.format")),
    ("sched", "sched_process_exec", include_str!("../catalog/sched.sched_process_exec.format")),
    ("sched", "sched_process_fork", include_str!("../catalog/sched.sched_process_fork.format")),
    ("sched", "sched_switch", include_str!("../catalog/sched.sched_switch.format")),
    ("sched", "sched_wakeup", include_str!("../catalog/sched.sched_wakeup.format")),
    ("syscalls", "sys_enter_openat", include_str!("../catalog/syscalls.sys_enter_openat.format")),
    ("syscalls", "sys_enter_read", include_str!("../catalog/syscalls.sys_enter_read.format")),
    ("syscalls", "sys_enter_write", include_str!("../catalog/syscalls.sys_enter_write.format")),
    ("syscalls", "sys_exit_openat", include_str!("../catalog/syscalls.sys_exit_openat.format")),
    ("syscalls", "sys_exit_read", include_str!("../catalog/syscalls.sys_exit_read.format")),
    ("syscalls", "sys_exit_write", include_str!("../catalog/syscalls.sys_exit_write.format")),
];

#[derive(Debug, Default)]
pub struct FixedCatalog;

impl KernelFacts for FixedCatalog {
    fn tracepoints(&self) -> Listing {
        Ok(FORMATS.iter().map(|(c, e, _)| (c.to_string(), e.to_string())).collect::<Vec<_>>().into())
    }

    fn tracepoint_format(&self, category: &str, event: &str) -> Result<String, String> {
        FORMATS.iter().find(|(c, e, _)| *c == category && *e == event).map(|(_, _, f)| f.to_string()).ok_or_else(|| format!("no tracepoint {category}:{event}"))
    }

    // The sample kernel types, so typed programs compile (and load in the live lane).
    fn kernel_type_id(&self, space: TypeSpace, name: &str) -> Result<Option<u32>, String> {
        Ok(sample::type_id(space, name))
    }

    fn kernel_type(&self, id: u32) -> Result<KernelType, String> {
        sample::kernel_type(id)
    }

    fn kernel_functions(&self) -> Functions {
        sample::SampleKernel.kernel_functions()
    }

    fn kernel_function(&self, name: &str) -> Result<Option<u32>, String> {
        Ok(sample::function(name))
    }

    /// The sample process (pid 42) and files: mutated pid and uprobe probes reach the
    /// matcher and the code generator, never this machine's processes.
    fn process_modules(&self, pid: u32) -> crumbs_lang::facts::user::Modules {
        sample::SampleKernel.process_modules(pid)
    }

    fn user_module(&self, path: &str) -> Result<crumbs_lang::facts::user::UserModule, String> {
        sample::SampleKernel.user_module(path)
    }
}

/// `category:event` of every tracepoint, for the mutators' dictionary.
pub fn names() -> impl Iterator<Item = String> {
    FORMATS.iter().map(|(c, e, _)| format!("{c}:{e}"))
}

/// The record fields of every tracepoint, for the mutators and the generator.
pub fn field_names() -> &'static [String] {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names: Vec<String> = FORMATS.iter().flat_map(|(_, _, f)| crumbs_lang::tracepoints::parse_format(f)).map(|f| f.name).collect();
        names.sort();
        names.dedup();
        names
    })
}

/// The record fields of one tracepoint of the catalog.
pub fn fields(category: &str, event: &str) -> Vec<crumbs_lang::tracepoints::Field> {
    FixedCatalog.tracepoint_format(category, event).map(|f| crumbs_lang::tracepoints::parse_format(&f)).unwrap_or_default()
}
