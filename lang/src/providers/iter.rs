//! bpftrace's `iter:task`, `iter:task_file` and `iter:task_vma` (`it:`): BPF iterators. The
//! program runs once per kernel object (each task; each open file of each task; each memory
//! mapping of each task) when crumbs reads the iterator, right after BEGIN, and tracing then
//! ends as after exit(). Its arguments are the iterator's context, typed from the kernel's
//! `bpf_iter_TARGET` prototype less its `struct bpf_iter_meta *` (`args.task`, `args.fd`,
//! `args.file`; bpftrace's `ctx.task`); the program does not run for the iteration's last
//! call, where the object is NULL.

use super::{AttachPoint, Probe, Provider};
use crate::ast::ProbeDesc;
use crate::diag::{closest, Diagnostic};
use crate::facts::{KernelFacts, KernelType, KernelTypeId};

/// The iterators, by `AttachPoint::Iter`'s index.
pub const ITERATORS: [&str; 3] = ["task", "task_file", "task_vma"];
/// Probe ids of iterators: this base plus the iterator's index.
pub const ITER_ID_BASE: u32 = 8;

pub struct Iter;

impl Provider for Iter {
    fn name(&self) -> &'static str {
        "iter"
    }

    fn doc(&self) -> &'static str {
        "bpftrace's BPF iterators, iter:task, iter:task_file and iter:task_vma (it:): run once per task, open file or memory mapping when read, after BEGIN; args.task, args.fd, args.file, args.vma typed from BTF (bpftrace's ctx.task too)"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["iter:task"]
    }

    fn probes(&self) -> Vec<Probe> {
        ITERATORS.iter().enumerate().map(|(i, name)| Probe { id: ITER_ID_BASE + i as u32, provider: "iter", module: "", function: "", name, attach: AttachPoint::Iter(i as u8, None), nr: None, user: None, spelled: "" }).collect()
    }

    fn probe_by_id(&self, id: u32) -> Option<Probe> {
        self.probes().into_iter().find(|p| p.id == id)
    }

    fn describe(&self, desc: &ProbeDesc, _: Option<&dyn KernelFacts>) -> Option<Result<Vec<Probe>, Diagnostic>> {
        let f: Vec<&str> = desc.fields.iter().map(String::as_str).collect();
        let (target, pin) = match f.as_slice() {
            ["iter", target] => (*target, None),
            ["iter", target, pin] => (*target, Some(*pin)),
            ["iter", ..] => return Some(Err(Diagnostic::new(desc.span.clone(), "iter probe type takes 1 or 2 arguments").label("too many fields").hint("write iter:task, iter:task_file or iter:task_vma"))),
            _ => return None,
        };
        let Some(i) = ITERATORS.iter().position(|t| *t == target) else {
            let hint = match closest(target, ITERATORS.iter().copied()) {
                Some(c) => format!("did you mean iter:{c}? crumbs has iter:{}", ITERATORS.join(", iter:")),
                None => format!("crumbs has iter:{}", ITERATORS.join(", iter:")),
            };
            return Some(Err(Diagnostic::new(desc.span.clone(), format!("iter {target} is not a supported iterator")).label("no such iterator").hint(hint)));
        };
        let mut probe = self.probes().swap_remove(i);
        if let Some(pin) = pin {
            if pin.is_empty() {
                return Some(Err(Diagnostic::new(desc.span.clone(), "iter probe pin file is empty").label("no path").hint(format!("name the pin file: iter:{target}:NAME (under /sys/fs/bpf) or an absolute path"))));
            }
            // bpftrace's: a relative pin is under the BPF file system's mount point.
            let path = if pin.starts_with('/') { pin.to_string() } else { format!("/sys/fs/bpf/{pin}") };
            probe.attach = AttachPoint::Iter(i as u8, Some(super::interned(&path)));
        }
        Some(Ok(vec![probe]))
    }

    fn arg_types(&self, probe: &Probe, facts: Option<&dyn KernelFacts>) -> Option<Result<Vec<super::ArgType>, String>> {
        let facts = facts?;
        Some(params(facts, probe.name).and_then(|ps| ps.into_iter().map(|(_, id)| super::fbt::arg_type(facts, id)).collect()))
    }

    fn arg_names(&self, probe: &Probe, facts: Option<&dyn KernelFacts>) -> Option<Vec<String>> {
        Some(params(facts?, probe.name).ok()?.into_iter().map(|(name, _)| name).collect())
    }
}

/// The context of iterator `target`: the parameters of the kernel's `bpf_iter_TARGET`
/// prototype after its `struct bpf_iter_meta *meta`.
pub fn params(facts: &dyn KernelFacts, target: &str) -> Result<Vec<(String, KernelTypeId)>, String> {
    let Some(id) = facts.kernel_function(&format!("bpf_iter_{target}"))? else {
        return Err(format!("this kernel has no {target} iterator (no bpf_iter_{target} in its BTF)"));
    };
    let KernelType::Function { params, .. } = facts.kernel_type(id)? else {
        return Err(format!("bpf_iter_{target} is not a function"));
    };
    Ok(params.into_iter().skip(1).collect())
}
