//! Current bpftrace's questions about the kernel's functions (kfuncs) and variables,
//! answered when compiling (docs/stdlib.md): `kfunc_exist("name")` and
//! `kfunc_allowed("name")`; `comm(pid)`, which calls two kfuncs where the program may; and
//! `percpu_kaddr("name"[, cpu])`, a per-CPU variable the kernel's BTF describes.

use super::*;
use crate::providers::AttachPoint;

/// The BPF program types (the uapi's `enum bpf_prog_type`) crumbs' programs are, as the code
/// generator's attach kinds make them (runtime-ebpf/src/emit/attach: `section_kind`).
const PROG_KPROBE: u32 = 2;
const PROG_TRACEPOINT: u32 = 5;
const PROG_PERF_EVENT: u32 = 7;
const PROG_RAW_TRACEPOINT: u32 = 17;
const PROG_TRACING: u32 = 26;

/// The program type of a probe's program: fbt probes are kprobes' (bpftrace asks the type
/// of `kprobe:`; crumbs may attach them as fentry, §6.6), uprobes and USDT probes kprobes',
/// tracepoints tracepoints', raw tracepoints tp_btf's (tracing), profile, perf events and
/// watchpoints perf events', iterators tracing programs, and BEGIN, END, self:signal and system call
/// probes raw tracepoints'.
pub(super) fn prog_type(a: AttachPoint) -> u32 {
    match a {
        AttachPoint::FbtEntry(_) | AttachPoint::FbtReturn(_) | AttachPoint::UserEntry(_) | AttachPoint::UserReturn(_) => PROG_KPROBE,
        AttachPoint::Tracepoint(_) => PROG_TRACEPOINT,
        AttachPoint::Profile { .. } | AttachPoint::Perf { .. } | AttachPoint::Watchpoint { .. } => PROG_PERF_EVENT,
        AttachPoint::RawTracepoint(_) | AttachPoint::Iter(..) => PROG_TRACING,
        AttachPoint::Begin | AttachPoint::End | AttachPoint::Error | AttachPoint::SelfSignal | AttachPoint::SyscallEntry | AttachPoint::SyscallReturn => PROG_RAW_TRACEPOINT,
    }
}

impl Checker<'_> {
    /// `kfunc_exist("name")` (the kernel's BTF has a function `name`) and
    /// `kfunc_allowed("name")` (the clause's first probe's program may call it, as the
    /// verifier says): 1 or 0, constants.
    pub(super) fn kfunc_question(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span, allowed: bool) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let ExprKind::Str(s) = &args[0].kind else {
            return Err(Diagnostic::new(args[0].span.clone(), format!("{}() accepts a string literal only", f.name))
                .label("not a string literal")
                .hint(format!("name the function: {}(\"bpf_task_from_pid\")", f.name)));
        };
        let Some(facts) = self.opts.facts.clone() else {
            return Err(Diagnostic::new(span.clone(), format!("{}() needs the running system", f.name)).label("not known here").hint("run the program on the machine it traces"));
        };
        let answer = if allowed {
            let Some(p) = self.clause_probes.first() else { return Ok(TExpr::new(Expr::Int(0), self.int())) };
            facts.kfunc_allowed(&s.value, prog_type(p.attach))
        } else {
            facts.kernel_function(&s.value).map(|id| id.is_some())
        };
        let yes = answer.map_err(|m| Diagnostic::new(span.clone(), m).label("cannot tell").hint("the kernel's BTF (/sys/kernel/btf/vmlinux) answers this"))?;
        Ok(TExpr::new(Expr::Int(i64::from(yes)), self.int()))
    }
}

impl Checker<'_> {
    /// `comm(pid)`: the name of the thread with id `pid`, through the kfuncs
    /// bpf_task_from_pid and bpf_task_release, at probes whose programs the kernel lets call
    /// them (as current bpftrace asks it: kfunc_allowed()); elsewhere an error in its words.
    pub(super) fn comm_of_pid(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let pid_value = self.value(&args[0])?;
        let (pid, pid_type) = (pid_value.expr, pid_value.ty);
        if !pid.is_int() {
            return Err(Diagnostic::new(args[0].span.clone(), "Only integer supported for comm()'s pid").label(format!("{}, not an integer", pid.repr().describe())).hint("give the thread's id: comm(pid), comm(args.pid)"));
        }
        if let Some(facts) = self.opts.facts.clone() {
            for p in self.clause_probes.clone() {
                if let Ok(false) = facts.kfunc_allowed("bpf_task_from_pid", prog_type(p.attach)) {
                    return Err(Diagnostic::new(span.clone(), format!("Syntax comm(PID) is not supported in this probe type yet. Type: {}", super::bpftrace_std::probe_type(&p)))
                        .label(format!("at {}:{}:{}:{}", p.provider, p.module, p.function, p.name))
                        .hint("this kernel lets the programs of some probe types alone call bpf_task_from_pid (Linux 6.18: tracepoints, profile and perf events, raw tracepoints): read comm(pid) there"));
                }
            }
        }
        // The pid kept once, for the warning, and a flag the call sets where no task has it.
        let tmp = self.hidden_local(pid_type);
        let local = self.var_expr(VarRef::Clause(tmp), Vec::new()).expr;
        let int = self.int();
        let missing = self.hidden_local(int);
        let set = vec![super::vars::store_into(VarRef::Clause(tmp), Vec::new(), pid), Stmt::SetClauseLocal(missing, Expr::Int(0))];
        let pieces = crate::printf::parse("No such process (pid=%d)").expect("a valid format");
        let at = SourceAt { span: span.clone(), ..Default::default() };
        let item = Item::Message { error: false, pieces, args: vec![local.repr()], at };
        self.warnings_after.push(WarningAfter { flag: missing, item, args: vec![local.clone()] });
        let string = self.c_string();
        let call = StrExpr::Call { f: crate::ir::StrFn::CommOfPid { missing }, args: vec![StrArg::Int(local)], size: crate::ir::COMM_SIZE };
        Ok(TExpr::new(Expr::Str(StrExpr::Seq(set, Box::new(call))), string))
    }
}

impl Checker<'_> {
    /// `percpu_kaddr("name"[, cpu])`: the address of per-CPU variable `name` on this CPU or on
    /// CPU `cpu`, a `uint64_t *` into the kernel; a name the kernel's BTF does not describe as
    /// a variable is an error in bpftrace's words.
    pub(super) fn percpu_kaddr(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let ExprKind::Str(s) = &args[0].kind else {
            return Err(Diagnostic::new(args[0].span.clone(), "percpu_kaddr() takes a string literal")
                .label("not a string literal")
                .hint("name the kernel's per-CPU variable: percpu_kaddr(\"process_counts\")"));
        };
        if let Some(facts) = self.opts.facts.clone() {
            if let Ok(false) = facts.kernel_variable(&s.value) {
                return Err(Diagnostic::new(args[0].span.clone(), format!("Could not resolve variable \"{}\" from BTF", s.value))
                    .label("no such variable")
                    .hint("name a per-CPU variable of the kernel (runqueues, process_counts, ...): its BTF describes those"));
            }
            // The verifier finds the variable's address in kallsyms, which lists data only
            // where the kernel has CONFIG_KALLSYMS_ALL.
            if let Ok(None) = facts.kernel_symbol(&s.value) {
                return Err(Diagnostic::new(args[0].span.clone(), format!("the kernel does not list \"{}\" in /proc/kallsyms, where the verifier finds its address", s.value))
                    .label("no address for it")
                    .hint("a kernel built without CONFIG_KALLSYMS_ALL lists no variables there: percpu_kaddr() cannot run on it"));
            }
        }
        let mut call_args = Vec::new();
        if let Some(cpu) = args.get(1) {
            call_args.push(StrArg::Int(self.int_expr(cpu, "percpu_kaddr()'s CPU")?));
        }
        let name = self.strings.intern(&s.value);
        let u64_t = self.c_int("uint64_t");
        let ty = self.types.pointer(u64_t, crate::types::AddrSpace::Kernel);
        Ok(TExpr::new(Expr::IntCall { f: crate::ir::IntFn::PercpuKaddr(name), args: call_args }, ty))
    }
}
