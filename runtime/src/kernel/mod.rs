//! The running kernel, as compiling needs it: the checker's facts ([`LiveKernel`], which
//! answers lang's `KernelFacts` from tracefs), the code generator's facts ([`codegen_target`]:
//! clocks, struct offsets from BTF, CPUs) and the CPU lists. Everything that reads the
//! machine to compile a program is here, so lang and the code generator stay pure.

mod btf;
mod codegen;
pub mod cpus;
mod tracefs;

pub use codegen::codegen_target;
pub use tracefs::TRACEFS;

use crumbs_lang::facts::{KernelFacts, Listing};

/// The kernel this process runs on.
#[derive(Debug, Default, Clone, Copy)]
pub struct LiveKernel;

impl KernelFacts for LiveKernel {
    fn tracepoints(&self) -> Listing {
        tracefs::list()
    }

    fn tracepoint_format(&self, category: &str, event: &str) -> Result<String, String> {
        tracefs::format(category, event)
    }
}
