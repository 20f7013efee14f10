//! The running kernel, as compiling needs it: the checker's facts ([`LiveKernel`], which
//! answers lang's `KernelFacts` from tracefs and BTF), the code generator's facts ([`Kernel::codegen_target`]:
//! clocks, struct offsets from BTF, CPUs) and the CPU lists. Everything that reads the
//! machine to compile a program is here, so lang and the code generator stay pure.

pub(crate) mod btf;
pub(crate) mod codegen;
pub mod cpus;
mod functions;
mod kfuncs;
mod raw_tracepoints;
pub(crate) mod tracefs;
mod user;

use codegen::codegen_target;
pub use codegen::iter_num;
pub use tracefs::TRACEFS;
/// vmlinux's types as C definitions (bpftrace's `-lv 'struct NAME'`).
pub use btf::c_decl;

use crumbs_ebpf::abi::Target;
use crumbs_lang::facts::user::{Modules, UserModule};
use crumbs_lang::facts::{Functions, KernelFacts, KernelType, KernelTypeId, Listing, TypeSpace};
use crumbs_lang::ir::Program;
use std::rc::Rc;

/// The kernel a program is compiled for: what the checker asks ([`KernelFacts`]) and what
/// the code generator needs ([`Target`]). [`LiveKernel`] is this machine; tests give fixed
/// ones so their output does not depend on the machine.
pub trait Kernel {
    fn facts(&self) -> Rc<dyn KernelFacts>;
    fn codegen_target(&self, program: &Program) -> Target;
}

/// The kernel this process runs on.
#[derive(Debug, Default, Clone, Copy)]
pub struct LiveKernel;

impl Kernel for LiveKernel {
    fn facts(&self) -> Rc<dyn KernelFacts> {
        Rc::new(*self)
    }

    fn codegen_target(&self, program: &Program) -> Target {
        codegen_target(program)
    }
}

impl KernelFacts for LiveKernel {
    fn tracepoints(&self) -> Listing {
        tracefs::list()
    }

    fn tracepoint_format(&self, category: &str, event: &str) -> Result<String, String> {
        tracefs::format(category, event)
    }

    fn kernel_type_id(&self, space: TypeSpace, name: &str) -> Result<Option<KernelTypeId>, String> {
        btf::type_id(space, name)
    }

    fn kernel_enum_constant(&self, name: &str) -> Result<Option<(i64, KernelTypeId)>, String> {
        btf::enum_constant(name)
    }

    fn kernel_type(&self, id: KernelTypeId) -> Result<KernelType, String> {
        btf::kernel_type(id)
    }

    fn kernel_functions(&self) -> Functions {
        functions::list()
    }

    fn kernel_function(&self, name: &str) -> Result<Option<KernelTypeId>, String> {
        btf::function(name)
    }

    fn process_modules(&self, pid: u32) -> Modules {
        user::process_modules(pid)
    }

    fn user_module(&self, path: &str) -> Result<UserModule, String> {
        user::user_module(path)
    }

    fn raw_tracepoints(&self) -> Functions {
        raw_tracepoints::list()
    }

    fn raw_tracepoint(&self, event: &str) -> Result<Option<KernelTypeId>, String> {
        btf::raw_tracepoint(event)
    }

    fn kernel_modules(&self) -> Result<std::rc::Rc<[String]>, String> {
        Ok(functions::modules().into())
    }

    fn module_functions(&self, module: &str) -> Functions {
        functions::module_list(module)
    }

    fn module_function(&self, module: &str, name: &str) -> Result<Option<KernelTypeId>, String> {
        btf::module_function(module, name)
    }

    fn kernel_symbol(&self, name: &str) -> Result<Option<u64>, String> {
        let text = std::fs::read_to_string("/proc/kallsyms").map_err(|e| format!("cannot read /proc/kallsyms: {e}"))?;
        let found = text.lines().find_map(|l| {
            let mut w = l.split_whitespace();
            let (addr, _, sym) = (w.next()?, w.next()?, w.next()?);
            (sym == name).then(|| u64::from_str_radix(addr, 16).ok()).flatten()
        });
        match found {
            Some(0) => Err("/proc/kallsyms shows no addresses (kernel.kptr_restrict): run as root".into()),
            f => Ok(f),
        }
    }

    fn kernel_text_at(&self, addr: u64) -> Result<Option<(String, String, u64)>, String> {
        let text = std::fs::read_to_string("/proc/kallsyms").map_err(|e| format!("cannot read /proc/kallsyms: {e}"))?;
        let syms = crate::stacks::Kallsyms::parse(&text);
        if syms.is_empty() {
            return Err("/proc/kallsyms shows no addresses (kernel.kptr_restrict): run as root".into());
        }
        Ok(syms.at(addr).map(|(start, name, module)| (module.to_string(), name.to_string(), addr - start)))
    }

    fn kfunc_allowed(&self, name: &str, prog_type: u32) -> Result<bool, String> {
        kfuncs::allowed(name, prog_type)
    }

    fn kernel_variable(&self, name: &str) -> Result<bool, String> {
        btf::vmlinux()?;
        Ok(btf::var_id(name).is_some())
    }

    fn cgroup_id(&self, path: &str) -> Result<u64, String> {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).map(|m| m.ino()).map_err(|e| format!("cannot stat {path}: {e}"))
    }
}
