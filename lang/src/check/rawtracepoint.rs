//! Raw tracepoints: numbering the program's raw tracepoints, and arguments by name
//! (`args->prev`, bpftrace's `args.prev`) where the probes' prototypes name them.

use super::*;
use crate::providers::provider;

/// The most raw tracepoints one program attaches to (each is a program of its own).
const MAX_RAW_TRACEPOINTS: usize = 4096;

impl Checker<'_> {
    /// The attach point of raw tracepoint `name` of `module`, numbering it on its first use
    /// with which of its arguments are pointers (the back end reads those differently).
    /// A stable probe on it (`stable`: its provider and name) is numbered apart.
    pub(super) fn raw_tracepoint(&mut self, opts: &CheckOptions, module: &str, name: &str, stable: Option<(&str, &str)>, desc: &ast::ProbeDesc) -> Result<AttachPoint, Diagnostic> {
        let stable = stable.map(|(p, n)| (p.to_string(), n.to_string()));
        if let Some(i) = self.raw_tracepoints.iter().position(|t| t.name == name && t.module == module && t.stable == stable) {
            return Ok(AttachPoint::RawTracepoint(i as u16));
        }
        if self.raw_tracepoints.len() >= MAX_RAW_TRACEPOINTS {
            return Err(Diagnostic::new(desc.span.clone(), "too many raw tracepoints in one program").label(format!("over {MAX_RAW_TRACEPOINTS}")).hint("narrow the pattern"));
        }
        let facts = opts.facts.as_deref().expect("matched through the kernel facts");
        let cannot = |e: String| Diagnostic::new(desc.span.clone(), format!("cannot read the prototype of raw tracepoint {name}: {e}")).label("here").hint("raw tracepoints are typed from the kernel's BTF, /sys/kernel/btf/vmlinux");
        let params = crate::providers::raw_tracepoint_params(facts, name).map_err(cannot)?;
        let mut pointers = Vec::with_capacity(params.len());
        for (_, id) in params {
            pointers.push(is_pointer(facts, id).map_err(cannot)?);
        }
        self.raw_tracepoints.push(crate::ir::RawTracepoint { module: module.into(), name: name.into(), pointers, stable });
        Ok(AttachPoint::RawTracepoint(self.raw_tracepoints.len() as u16 - 1))
    }

    /// Whether every probe of the clause names its arguments (and it has one).
    pub(super) fn clause_args_named(&self) -> bool {
        let facts = self.opts.facts.clone();
        !self.clause_probes.is_empty() && self.clause_probes.iter().all(|p| provider(p.provider).and_then(|prov| prov.arg_names(p, facts.as_deref())).is_some())
    }

    /// `args->name` (`args.name`): the argument of that name, `args[N]` where every probe
    /// of the clause has it as its N-th.
    pub(super) fn args_named(&mut self, name: &str, span: &Span) -> Result<ctypes::Typed, Diagnostic> {
        let facts = self.opts.facts.clone();
        let mut at: Option<(usize, String)> = None;
        for p in self.clause_probes.clone() {
            let what = format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name);
            let names = provider(p.provider).and_then(|prov| prov.arg_names(&p, facts.as_deref())).unwrap_or_default();
            let Some(n) = names.iter().position(|a| a == name) else {
                let hint = match closest(name, names.iter().map(String::as_str)) {
                    Some(c) => format!("did you mean `args->{c}`? arguments: {}", names.join(", ")),
                    None if names.is_empty() => "it has no arguments".to_string(),
                    None => format!("its arguments: {}", names.join(", ")),
                };
                return Err(Diagnostic::new(span.clone(), format!("{what} has no argument `{name}`")).label("no such argument").hint(hint));
            };
            match &at {
                Some((m, first)) if *m != n => {
                    return Err(Diagnostic::new(span.clone(), format!("argument `{name}` is args[{m}] in {first} but args[{n}] in {what}")).label("different places in this clause's probes").hint("split the clause so each has one prototype"));
                }
                Some(_) => {}
                None => at = Some((n, what)),
            }
        }
        let (n, _) = at.expect("the clause has probes");
        let int = crate::types::IntType { name: "int".into(), size: 4, signed: true, char: false, bool: false };
        let index = ast::Expr { kind: ExprKind::Int(n as i64, int), span: span.clone() };
        self.args_index(&index, span)
    }
}

/// Whether kernel type `id` is a pointer, typedefs and qualifiers looked through.
fn is_pointer(facts: &dyn crate::facts::KernelFacts, mut id: crate::facts::KernelTypeId) -> Result<bool, String> {
    use crate::facts::KernelType;
    for _ in 0..32 {
        match facts.kernel_type(id)? {
            KernelType::Typedef { to, .. } | KernelType::Qualified(to) => id = to,
            KernelType::Ptr(_) => return Ok(true),
            _ => return Ok(false),
        }
    }
    Err(format!("kernel type {id}: a typedef chain too long to follow"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::sample::SampleKernel;
    use std::rc::Rc;

    fn compile(src: &str) -> Result<Program, Diagnostic> {
        crate::compile(src, &CheckOptions { facts: Some(Rc::new(SampleKernel)), ..Default::default() })
    }

    #[test]
    fn raw_tracepoints_are_numbered_once_with_their_pointers() {
        let p = compile("rawtracepoint:sched_switch, rt:sys_enter { @ = count(); } rawtracepoint:vmlinux::sched_switch { trace(arg1); }").unwrap();
        let names: Vec<_> = p.raw_tracepoints.iter().map(|t| (t.name.as_str(), t.pointers.clone())).collect();
        assert_eq!(names, [("sched_switch", vec![false, true, true, false]), ("sys_enter", vec![true, false])]);
        let attach: Vec<_> = p.groups.iter().map(|g| g.attach).collect();
        assert_eq!(attach, [AttachPoint::RawTracepoint(0), AttachPoint::RawTracepoint(1)]);
        assert_eq!(p.probe_description(crate::providers::RAWTP_ID_BASE + 1), "rawtracepoint:vmlinux::sys_enter");
    }

    #[test]
    fn args_by_index_and_by_name_are_typed() {
        for src in [
            "rawtracepoint:sched_switch { trace(args[1]->comm); trace(args[3] + 1); }",
            "rawtracepoint:sched_switch { trace(args->prev->comm); trace(args.next->pid); }",
            "rawtracepoint:sched_process_exec { trace(args->p->real_parent->tgid); trace(args.old_pid); }",
            // Two prototypes with `prev`-like names at the same place meet.
            "rawtracepoint:sched_switch, rawtracepoint:sched_switch { trace(args->prev_state); }",
        ] {
            compile(src).unwrap_or_else(|d| panic!("{src}: {}", d.message));
        }
    }

    #[test]
    fn wrong_args_are_errors() {
        let d = compile("rawtracepoint:sched_switch { trace(args[4]); }").unwrap_err();
        assert!(d.message.contains("has 4 arguments"), "{}", d.message);
        let d = compile("rawtracepoint:sched_switch { trace(args->prevv); }").unwrap_err();
        assert!(d.message.contains("no argument `prevv`") && d.hint.unwrap().contains("`args->prev`"), "{}", d.message);
        let d = compile("rawtracepoint:sched_switch, rawtracepoint:sys_enter { trace(args->prev); }").unwrap_err();
        assert!(d.message.contains("no argument `prev`"), "{}", d.message);
        let d = compile("rawtracepoint:sched_switch { trace(args[1]->no_such); }").unwrap_err();
        assert!(d.message.contains("no_such"), "{}", d.message);
    }
}
