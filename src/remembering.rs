//! The running kernel for a front end that matches a program's descriptions itself before
//! compiling it (dtrace's `-Z`, bpftrace's `missing_probes`): each tracefs, BTF or file
//! question is answered once for both.

use crumbs_lang::facts::{KernelFacts, Memo};
use crumbs_runtime::kernel::{Kernel, LiveKernel};
use std::rc::Rc;

/// The running kernel, answering each tracefs question once for both the matching here and
/// the compiler (listing the kernel's tracepoints takes tens of milliseconds).
pub struct Remembering(Rc<dyn KernelFacts>);

impl Remembering {
    pub fn new() -> Remembering {
        Remembering(Rc::new(Memo::new(LiveKernel.facts())))
    }
}

impl Kernel for Remembering {
    fn facts(&self) -> Rc<dyn KernelFacts> {
        self.0.clone()
    }

    fn codegen_target(&self, program: &crumbs_lang::ir::Program) -> crumbs_ebpf::abi::Target {
        LiveKernel.codegen_target(program)
    }
}
