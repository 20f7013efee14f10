//! What the checker needs to know of the running kernel, asked through one interface: lang
//! never touches the kernel. The runtime answers from the machine (runtime/src/kernel); unit
//! tests and the fuzzer answer with fixed facts, so they see the same kernel everywhere.
//! (BTF types, kernel functions and their prototypes join the tracepoints here as the
//! language needs them.)

pub mod sample;
pub mod user;

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// Every (category, event) pair of the kernel's tracepoints, or why they cannot be listed.
pub type Listing = Result<Rc<[(String, String)]>, String>;

/// The names of the kernel functions probes can be put on, sorted, or why they cannot be
/// listed.
pub type Functions = Result<Rc<[String]>, String>;

pub trait KernelFacts: std::fmt::Debug {
    /// Every tracepoint, as (category, event).
    fn tracepoints(&self) -> Listing;
    /// The text of a tracepoint's `format` file.
    fn tracepoint_format(&self, category: &str, event: &str) -> Result<String, String>;

    /// The id of the kernel type named `name` in `space` (`struct task_struct` is
    /// (`Struct`, "task_struct")); `Ok(None)` if the kernel has none, `Err` if its types
    /// cannot be read at all (no BTF).
    fn kernel_type_id(&self, _space: TypeSpace, _name: &str) -> Result<Option<KernelTypeId>, String> {
        Err("the kernel's types (BTF) are not available here".to_string())
    }
    /// The value and enum type of a kernel enum constant (`MM_ANONPAGES`), if the kernel has
    /// one by that name.
    fn kernel_enum_constant(&self, _name: &str) -> Result<Option<(i64, KernelTypeId)>, String> {
        Err("the kernel's types (BTF) are not available here".to_string())
    }
    /// One kernel type, by id (0 is `void`). Types it refers to are ids too, read when needed,
    /// so a script that names one struct reads only what it walks through.
    fn kernel_type(&self, _id: KernelTypeId) -> Result<KernelType, String> {
        Err("the kernel's types (BTF) are not available here".to_string())
    }
    /// The kernel's functions that can be probed (vmlinux's, sorted by name): those its
    /// BTF describes, less those ftrace says cannot be traced where it says.
    fn kernel_functions(&self) -> Functions {
        Err("the kernel's functions (BTF) are not available here".to_string())
    }
    /// A kernel function's prototype: an id whose [`KernelFacts::kernel_type`] is a
    /// [`KernelType::Function`]; `Ok(None)` if the kernel's types do not describe it.
    fn kernel_function(&self, _name: &str) -> Result<Option<KernelTypeId>, String> {
        Err("the kernel's types (BTF) are not available here".to_string())
    }
    /// The ELF files process `pid` runs, its executable first: those it has mapped, and the
    /// shared libraries its executable needs that it has not mapped yet (a `-c` command is
    /// held right after exec, before the dynamic loader ran).
    fn process_modules(&self, _pid: u32) -> user::Modules {
        Err("user-space programs cannot be read here".to_string())
    }
    /// The ELF file at `path` (an executable or a shared library; a bare library name such as
    /// `libc` is looked up as the dynamic loader would).
    fn user_module(&self, _path: &str) -> Result<user::UserModule, String> {
        Err("user-space programs cannot be read here".to_string())
    }
    /// The kernel's raw tracepoints (vmlinux's, sorted by name): those its BTF has a
    /// `btf_trace_NAME` typedef for.
    fn raw_tracepoints(&self) -> Functions {
        Err("the kernel's raw tracepoints (BTF) are not available here".to_string())
    }
    /// A raw tracepoint's prototype: an id whose [`KernelFacts::kernel_type`] is a
    /// [`KernelType::Function`] whose first parameter (`void *`, the program's context) is
    /// not the tracepoint's; `Ok(None)` if the kernel's types do not describe it.
    fn raw_tracepoint(&self, _name: &str) -> Result<Option<KernelTypeId>, String> {
        Err("the kernel's types (BTF) are not available here".to_string())
    }
    /// The loaded kernel modules whose functions can be probed (those with BTF), sorted.
    fn kernel_modules(&self) -> Result<Rc<[String]>, String> {
        Ok(Rc::from([]))
    }
    /// Module `module`'s functions that can be probed, sorted, as [`KernelFacts::kernel_functions`].
    fn module_functions(&self, module: &str) -> Functions {
        Err(format!("no kernel module `{module}` with BTF is loaded"))
    }
    /// The prototype of module `module`'s function `name`, as [`KernelFacts::kernel_function`].
    fn module_function(&self, _module: &str, _name: &str) -> Result<Option<KernelTypeId>, String> {
        Ok(None)
    }
    /// The address of kernel symbol `name` (bpftrace's kaddr()), None if there is none.
    fn kernel_symbol(&self, _name: &str) -> Result<Option<u64>, String> {
        Err("the kernel's symbols are not known here".into())
    }
    /// The kernel text symbol holding address `addr` (bpftrace's `kprobe:ADDRESS`): its
    /// module (`vmlinux` for the kernel's own), its name and how far into it `addr` is; None
    /// if no text symbol holds it.
    fn kernel_text_at(&self, _addr: u64) -> Result<Option<(String, String, u64)>, String> {
        Err("the kernel's symbols are not known here".into())
    }
    /// The id of the cgroup at `path` in the cgroup file system (bpftrace's cgroupid()):
    /// its directory's inode number.
    fn cgroup_id(&self, path: &str) -> Result<u64, String> {
        Err(format!("cgroup {path} is not known here"))
    }
    /// Whether a program of BPF program type `prog_type` may call kernel function `name`
    /// (bpftrace's kfunc_allowed()); false if the kernel has no such function.
    fn kfunc_allowed(&self, _name: &str, _prog_type: u32) -> Result<bool, String> {
        Err("the kernel's functions are not known here".into())
    }
    /// Whether the kernel's BTF describes a variable `name` (bpftrace's percpu_kaddr()).
    fn kernel_variable(&self, _name: &str) -> Result<bool, String> {
        Err("the kernel's variables (BTF) are not known here".into())
    }
}

/// A type id in the running kernel's BTF; 0 is `void`.
pub type KernelTypeId = u32;

/// Which names a kernel type name is looked up among (C's tags and ordinary names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeSpace {
    Struct,
    Union,
    Enum,
    /// Typedefs and base types (`pid_t`, `u64`, `unsigned int`).
    Ordinary,
}

/// One kernel type as BTF describes it, in lang's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelType {
    Void,
    /// An integer: `char` and `_Bool` are told apart because they print differently.
    Int { name: String, size: u32, signed: bool, char: bool, bool: bool },
    Float { name: String, size: u32 },
    Ptr(KernelTypeId),
    Array { elem: KernelTypeId, len: u32 },
    Struct { name: String, size: u32, members: Vec<KernelMember> },
    Union { name: String, size: u32, members: Vec<KernelMember> },
    Enum { name: String, size: u32, signed: bool, values: Vec<(String, i64)> },
    /// A struct, union or enum declared but not defined in this BTF.
    Fwd { name: String, space: TypeSpace },
    Typedef { name: String, to: KernelTypeId },
    /// `const`, `volatile`, `restrict` or a type tag on the type it qualifies.
    Qualified(KernelTypeId),
    /// A function type (opaque to D): its prototype's return type and parameters.
    Function { ret: KernelTypeId, params: Vec<(String, KernelTypeId)> },
}

/// A member of a kernel struct or union; an anonymous struct or union member has the name "".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelMember {
    pub name: String,
    pub ty: KernelTypeId,
    pub bit_offset: u32,
    /// The width of a bitfield; 0 for an ordinary member.
    pub bit_size: u32,
}

/// Facts that ask the ones they wrap each tracefs question, and for the function list, at
/// most once: listing tracefs reads thousands of directories, a program may name
/// tracepoints (or `fbt::vfs_*:`) in a thousand clauses, and `args[N]` of `syscall:::entry`
/// reads each system call's format for every use.
#[derive(Debug)]
pub struct Memo {
    inner: Rc<dyn KernelFacts>,
    tracepoints: OnceCell<Listing>,
    functions: OnceCell<Functions>,
    raw_tracepoints: OnceCell<Functions>,
    formats: RefCell<HashMap<(String, String), Result<String, String>>>,
    /// A process's or a file's symbols are read once however many clauses name them.
    processes: RefCell<HashMap<u32, user::Modules>>,
    files: RefCell<HashMap<String, Result<user::UserModule, String>>>,
}

impl Memo {
    pub fn new(inner: Rc<dyn KernelFacts>) -> Memo {
        Memo { inner, tracepoints: OnceCell::new(), functions: OnceCell::new(), raw_tracepoints: OnceCell::new(), formats: RefCell::default(), processes: RefCell::default(), files: RefCell::default() }
    }
}

impl KernelFacts for Memo {
    fn tracepoints(&self) -> Listing {
        self.tracepoints.get_or_init(|| self.inner.tracepoints()).clone()
    }

    fn tracepoint_format(&self, category: &str, event: &str) -> Result<String, String> {
        let key = (category.to_string(), event.to_string());
        if let Some(text) = self.formats.borrow().get(&key) {
            return text.clone();
        }
        let text = self.inner.tracepoint_format(category, event);
        self.formats.borrow_mut().insert(key, text.clone());
        text
    }

    fn kernel_type_id(&self, space: TypeSpace, name: &str) -> Result<Option<KernelTypeId>, String> {
        self.inner.kernel_type_id(space, name)
    }

    fn kernel_type(&self, id: KernelTypeId) -> Result<KernelType, String> {
        self.inner.kernel_type(id)
    }

    fn kernel_enum_constant(&self, name: &str) -> Result<Option<(i64, KernelTypeId)>, String> {
        self.inner.kernel_enum_constant(name)
    }

    fn kernel_functions(&self) -> Functions {
        self.functions.get_or_init(|| self.inner.kernel_functions()).clone()
    }

    fn kernel_function(&self, name: &str) -> Result<Option<KernelTypeId>, String> {
        self.inner.kernel_function(name)
    }

    fn process_modules(&self, pid: u32) -> user::Modules {
        if let Some(m) = self.processes.borrow().get(&pid) {
            return m.clone();
        }
        let m = self.inner.process_modules(pid);
        self.processes.borrow_mut().insert(pid, m.clone());
        m
    }

    fn user_module(&self, path: &str) -> Result<user::UserModule, String> {
        if let Some(m) = self.files.borrow().get(path) {
            return m.clone();
        }
        let m = self.inner.user_module(path);
        self.files.borrow_mut().insert(path.to_string(), m.clone());
        m
    }

    fn raw_tracepoints(&self) -> Functions {
        self.raw_tracepoints.get_or_init(|| self.inner.raw_tracepoints()).clone()
    }

    fn raw_tracepoint(&self, name: &str) -> Result<Option<KernelTypeId>, String> {
        self.inner.raw_tracepoint(name)
    }

    fn kernel_modules(&self) -> Result<Rc<[String]>, String> {
        self.inner.kernel_modules()
    }

    fn module_functions(&self, module: &str) -> Functions {
        self.inner.module_functions(module)
    }

    fn module_function(&self, module: &str, name: &str) -> Result<Option<KernelTypeId>, String> {
        self.inner.module_function(module, name)
    }

    fn kfunc_allowed(&self, name: &str, prog_type: u32) -> Result<bool, String> {
        self.inner.kfunc_allowed(name, prog_type)
    }

    fn kernel_variable(&self, name: &str) -> Result<bool, String> {
        self.inner.kernel_variable(name)
    }

    fn kernel_symbol(&self, name: &str) -> Result<Option<u64>, String> {
        self.inner.kernel_symbol(name)
    }

    fn kernel_text_at(&self, addr: u64) -> Result<Option<(String, String, u64)>, String> {
        self.inner.kernel_text_at(addr)
    }

    fn cgroup_id(&self, path: &str) -> Result<u64, String> {
        self.inner.cgroup_id(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default)]
    struct Counting(std::cell::Cell<usize>);

    impl KernelFacts for Counting {
        fn tracepoints(&self) -> Listing {
            self.0.set(self.0.get() + 1);
            Ok(vec![("sched".to_string(), "sched_switch".to_string())].into())
        }
        fn tracepoint_format(&self, _: &str, _: &str) -> Result<String, String> {
            Ok(String::new())
        }
    }

    #[test]
    fn memo_reads_each_format_once() {
        #[derive(Debug, Default)]
        struct Formats(std::cell::Cell<usize>);
        impl KernelFacts for Formats {
            fn tracepoints(&self) -> Listing {
                Ok(Vec::new().into())
            }
            fn tracepoint_format(&self, _: &str, event: &str) -> Result<String, String> {
                self.0.set(self.0.get() + 1);
                Ok(event.to_string())
            }
        }
        let inner = Rc::new(Formats::default());
        let memo = Memo::new(inner.clone());
        for _ in 0..3 {
            assert_eq!(memo.tracepoint_format("syscalls", "sys_enter_read").unwrap(), "sys_enter_read");
        }
        memo.tracepoint_format("syscalls", "sys_enter_write").unwrap();
        assert_eq!(inner.0.get(), 2);
    }

    #[test]
    fn memo_lists_once() {
        let inner = Rc::new(Counting::default());
        let memo = Memo::new(inner.clone());
        for _ in 0..3 {
            assert_eq!(memo.tracepoints().unwrap().len(), 1);
        }
        assert_eq!(inner.0.get(), 1);
    }
}
