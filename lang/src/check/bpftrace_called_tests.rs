//! Unit tests of current bpftrace's forms of its variables called with an argument
//! (check/bpftrace_called.rs): what each lowers to, and each error's span, message and hint.

use super::*;
use crate::builtins::{KernelValue, Part, VarHook};
use crate::compile;
use crate::dialect::Dialect;
use crate::facts::sample::SampleKernel;
use crate::facts::{KernelFacts, Listing};
use std::rc::Rc;
use super::bpftrace_std_tests::emitted;

/// The sample kernel, with kernel symbols: those named are there (at address 0x1000).
#[derive(Debug)]
struct WithSymbols(&'static [&'static str]);

impl KernelFacts for WithSymbols {
    fn tracepoints(&self) -> Listing {
        SampleKernel.tracepoints()
    }
    fn tracepoint_format(&self, category: &str, event: &str) -> Result<String, String> {
        SampleKernel.tracepoint_format(category, event)
    }
    fn kernel_symbol(&self, name: &str) -> Result<Option<u64>, String> {
        Ok(self.0.contains(&name).then_some(0x1000))
    }
    fn kernel_function(&self, name: &str) -> Result<Option<crate::facts::KernelTypeId>, String> {
        Ok(self.0.contains(&name).then_some(7))
    }
    /// The variables are those named, and those ending in `_unlisted` (which kallsyms lacks).
    fn kernel_variable(&self, name: &str) -> Result<bool, String> {
        Ok(self.0.contains(&name) || name.ends_with("_unlisted"))
    }
    /// Tracepoint programs (type 5) may call the functions named.
    fn kfunc_allowed(&self, name: &str, prog_type: u32) -> Result<bool, String> {
        Ok(prog_type == 5 && self.0.contains(&name))
    }
}

fn compile_on(src: &str, facts: Rc<dyn KernelFacts>) -> Result<Program, Diagnostic> {
    compile(src, &CheckOptions { facts: Some(facts), dialect: Some(Dialect::Bpftrace), args: vec!["stdin".into()], ..Default::default() })
}

fn ok(src: &str) -> Program {
    compile_on(src, Rc::new(SampleKernel)).unwrap_or_else(|d| panic!("{src}: {} ({:?})", d.message, d.hint))
}

/// The error, the source text its span covers, and its hint.
fn err_on(src: &str, facts: Rc<dyn KernelFacts>) -> (String, String, String) {
    let d = compile_on(src, facts).expect_err(src);
    (d.message.clone(), src[d.span.clone()].to_string(), d.hint.clone().unwrap_or_else(|| panic!("{src}: no hint for {}", d.message)))
}

fn err(src: &str) -> (String, String, String) {
    err_on(src, Rc::new(SampleKernel))
}

#[test]
fn nsecs_reads_the_clock_named() {
    let p = ok("BEGIN { printf(\"%lu %lu %lu %lu %lu %lu\\n\", nsecs, nsecs(), nsecs(monotonic), nsecs(boot), nsecs(tai), nsecs(sw_tai)); }");
    let clock = |v| Expr::Var(VarHook::Kernel(v, Part::Whole));
    use KernelValue::*;
    assert_eq!(emitted(&p), [clock(MonotonicNs), clock(MonotonicNs), clock(MonotonicNs), clock(BootNs), clock(TaiNs), clock(SwTaiNs)]);
}

#[test]
fn nsecs_of_another_name_is_an_error() {
    let (m, text, hint) = err("BEGIN { print(nsecs(realtime)); }");
    assert_eq!((m.as_str(), text.as_str()), ("Invalid timestamp mode: realtime", "realtime"));
    assert!(hint.contains("nsecs(sw_tai)"), "{hint}");
    let (m, text, _) = err("BEGIN { print(nsecs(1)); }");
    assert_eq!((m.as_str(), text.as_str()), ("not a clock", "1"));
    let (m, _, _) = err("BEGIN { print(nsecs(boot, tai)); }");
    assert!(m.contains("nsecs"), "{m}");
}

#[test]
fn nsecs_tai_needs_the_kernels_helper() {
    let (m, text, hint) = err_on("BEGIN { print(nsecs(tai)); }", Rc::new(WithSymbols(&[])));
    assert_eq!((m.as_str(), text.as_str()), ("Kernel does not support tai timestamp, please try sw_tai", "nsecs(tai)"));
    assert!(hint.contains("sw_tai"), "{hint}");
    compile_on("BEGIN { print(nsecs(tai)); print(nsecs(sw_tai)); }", Rc::new(WithSymbols(&["bpf_ktime_get_tai_ns"]))).unwrap();
    compile_on("BEGIN { print(nsecs(sw_tai)); }", Rc::new(WithSymbols(&[]))).unwrap();
}

#[test]
fn task_forms_read_the_tasks_members() {
    // pcomm(t) is t->real_parent->comm: the same program as the member chain written out.
    let forms = ok("kprobe:vfs_read { printf(\"%s %d %d\\n\", pcomm(curtask), ppid(curtask->real_parent), ppid); }");
    let written = ok("kprobe:vfs_read { printf(\"%s %d %d\\n\", curtask->real_parent->comm, curtask->real_parent->real_parent->pid, ppid); }");
    assert_eq!(emitted(&forms), emitted(&written));
    // (The sample kernel's task_struct has no group_leader.)
    let (m, text, _) = err("kprobe:vfs_read { print(leader_comm(curtask)); }");
    assert_eq!((m.as_str(), text.as_str()), ("`struct task_struct` has no member `group_leader`", "leader_comm"));
    let (m, text, hint) = err("BEGIN { print(pcomm(curtask, 1)); }");
    assert_eq!((m.as_str(), text.as_str()), ("pcomm() takes a task or nothing", "1"));
    assert!(hint.contains("pcomm(task)"), "{hint}");
    let (m, text, _) = err("BEGIN { print(leader_tid(1)); }");
    assert_eq!((m.as_str(), text.as_str()), ("`->` needs a pointer to a struct or union, but this is `int`", "1"));
}

#[test]
fn memcmp_strcap_and_container_of() {
    let p = ok("BEGIN { printf(\"%d %ld %ld %ld\\n\", memcmp(comm, \"bash\", 4), strcap(\"abc\"), strcap(comm), strcap(str(0))); }");
    let e = emitted(&p);
    assert!(matches!(&e[0], Expr::IntCall { f: crate::ir::IntFn::Memcmp(4), .. }), "{e:?}");
    assert_eq!(e[1..], [Expr::Int(4), Expr::Int(16), Expr::Int(256)]);
    // A computed count (current bpftrace's) is compared with each place when the probe fires.
    let p = ok("BEGIN { $n = 3; print(memcmp(comm, \"bash\", $n)); }");
    let e = emitted(&p);
    assert!(matches!(&e[0], Expr::IntCall { f: crate::ir::IntFn::Memcmp(256), args } if args.len() == 3), "{e:?}");
    let (m, text, hint) = err("BEGIN { print(memcmp(comm, \"bash\", -1)); }");
    assert_eq!((m.as_str(), text.as_str()), ("memcmp() needs a non-negative count", "-1"));
    assert!(hint.contains("memcmp(comm"), "{hint}");
    let (m, text, _) = err("BEGIN { print(memcmp(comm, 1, 2)); }");
    assert_eq!((m.as_str(), text.as_str()), ("memcmp() needs a string here, but this is an integer", "1"));
    let (m, text, _) = err("BEGIN { print(strcap(5)); }");
    assert_eq!((m.as_str(), text.as_str()), ("string-like values must be either strings, arrays or pointers", "5"));
    // container_of(p, T, m) is (T *)((uint64_t)p - offsetof(T, m)).
    let forms = ok("kprobe:vfs_read { printf(\"%d\\n\", container_of(curtask->real_parent, struct task_struct, tasks)->pid); }");
    let written = ok("kprobe:vfs_read { printf(\"%d\\n\", ((struct task_struct *)((uint64_t)curtask->real_parent - offsetof(struct task_struct, tasks)))->pid); }");
    assert_eq!(emitted(&forms), emitted(&written));
    let (m, text, _) = err("BEGIN { print(container_of(curtask, struct task_struct, nope)); }");
    assert_eq!((m.as_str(), text.as_str()), ("`struct task_struct` has no member `nope`", "nope"));
}

#[test]
fn kfunc_questions_are_asked_of_the_kernel_when_compiling() {
    let facts = || Rc::new(WithSymbols(&["bpf_task_from_pid"]));
    // The sample kernel has no tracepoints: ask only what BEGIN's program may call.
    let p = compile_on("BEGIN { printf(\"%d %d %d\\n\", kfunc_exist(\"bpf_task_from_pid\"), kfunc_exist(\"nope\"), kfunc_allowed(\"bpf_task_from_pid\")); }", facts()).unwrap();
    assert_eq!(emitted(&p), [Expr::Int(1), Expr::Int(0), Expr::Int(0)]);
    assert_eq!(super::bpftrace_kfuncs::prog_type(crate::providers::AttachPoint::Tracepoint(0)), 5);
    let (m, text, hint) = err_on("BEGIN { print(kfunc_exist(comm)); }", facts());
    assert_eq!((m.as_str(), text.as_str()), ("kfunc_exist() accepts a string literal only", "comm"));
    assert!(hint.contains("kfunc_exist(\""), "{hint}");
}

#[test]
fn signal_thread_and_write_user_are_unsafe() {
    let unsafe_on = |src: &str| compile(src, &CheckOptions { facts: Some(Rc::new(SampleKernel)), dialect: Some(Dialect::Bpftrace), destructive: true, args: vec!["stdin".into()], ..Default::default() });
    let p = unsafe_on("kprobe:vfs_read { signal_thread(\"SIGSTOP\"); signal(\"STOP\"); }").unwrap();
    let mut signals = Vec::new();
    for c in p.groups.iter().flat_map(|g| &g.clauses) {
        c.any(&mut |n| {
            if let Node::Stmt(Stmt::Signal { sig, thread }) = n {
                signals.push((sig.clone(), *thread));
            }
            false
        });
    }
    assert_eq!(signals, [(Expr::Int(19), true), (Expr::Int(19), false)]);
    let d = unsafe_on("BEGIN { signal_thread(9); }").unwrap_err();
    assert_eq!(d.message, "signal_thread() can not be used for this probetype special");
    let (m, _, _) = err("kprobe:vfs_read { signal_thread(9); }");
    assert_eq!(m, "signal_thread() is an unsafe function being used in safe mode");
    let (m, _, _) = err("kprobe:vfs_read { write_user(0, \"x\", 1); }");
    assert_eq!(m, "write_user() is an unsafe function being used in safe mode");
    let d = unsafe_on("kprobe:vfs_read { write_user(0, \"x\", 0); }").unwrap_err();
    assert!(d.message.starts_with("write_user() writes 1 to"), "{}", d.message);
    // A computed length: bounded by the string's buffer when the probe fires.
    let p = unsafe_on("kprobe:vfs_read { $n = 3; write_user(0, \"xyz\", $n); }").unwrap();
    let computed = p.groups.iter().flat_map(|g| &g.clauses).filter(|c| c.any(&mut |n| matches!(n, Node::Expr(Expr::IntCall { f: crate::ir::IntFn::WriteUser(_), args }) if args.len() == 3))).count();
    assert_eq!(computed, 1);
    // Its value unused, the call still runs: a test with empty branches.
    let p = unsafe_on("kprobe:vfs_read { write_user(0, \"x\", 2); }").unwrap();
    let calls = p.groups.iter().flat_map(|g| &g.clauses).filter(|c| c.any(&mut |n| matches!(n, Node::Expr(Expr::IntCall { f: crate::ir::IntFn::WriteUser(2), .. })))).count();
    assert_eq!(calls, 1);
}

#[test]
fn comm_of_a_pid_asks_whether_the_program_may() {
    // The sample kernel lets tracepoint programs (type 5) call bpf_task_from_pid alone.
    let facts = || Rc::new(WithSymbols(&["bpf_task_from_pid"]));
    let d = compile_on("BEGIN { print(comm(2)); }", facts()).unwrap_err();
    assert_eq!(d.message, "Syntax comm(PID) is not supported in this probe type yet. Type: special");
    let p = ok("BEGIN { printf(\"%s %s\\n\", comm(2), comm); }");
    let e = emitted(&p);
    // The pid and a flag in clause-locals: where the call sets the flag, the warning (an
    // item of the clause's record) is sent with the pid after the statement.
    let Expr::Str(StrExpr::Seq(set, call)) = &e[0] else { panic!("{e:?}") };
    assert_eq!(set.len(), 2, "{set:?}");
    assert!(matches!(**call, StrExpr::Call { f: crate::ir::StrFn::CommOfPid { .. }, size: 16, .. }), "{call:?}");
    let warnings: Vec<_> = p.records.iter().flat_map(|r| &r.items).filter_map(|i| match i { Item::Message { error: false, pieces, args, .. } => Some((pieces.clone(), args.len())), _ => None }).collect();
    assert_eq!(warnings, [(crate::printf::parse("No such process (pid=%d)").unwrap(), 1)]);
    assert!(matches!(&e[1], Expr::Str(StrExpr::Comm)), "{e:?}");
    let (m, text, _) = err("BEGIN { print(comm(\"x\")); }");
    assert_eq!((m.as_str(), text.as_str()), ("Only integer supported for comm()'s pid", "\"x\""));
}

#[test]
fn percpu_kaddr_is_a_kernel_variables_address() {
    let facts = || Rc::new(WithSymbols(&["runqueues"]));
    let p = compile_on("BEGIN { printf(\"%lu %lu\\n\", percpu_kaddr(\"runqueues\"), percpu_kaddr(\"runqueues\", 1)); }", facts()).unwrap();
    let id = p.strings.clone().intern("runqueues");
    let e = emitted(&p);
    assert!(matches!(&e[0], Expr::IntCall { f: crate::ir::IntFn::PercpuKaddr(n), args } if *n == id && args.is_empty()), "{e:?}");
    assert!(matches!(&e[1], Expr::IntCall { f: crate::ir::IntFn::PercpuKaddr(n), args } if *n == id && args.len() == 1), "{e:?}");
    let (m, text, _) = err_on("BEGIN { print(percpu_kaddr(\"nope\")); }", facts());
    assert_eq!((m.as_str(), text.as_str()), ("Could not resolve variable \"nope\" from BTF", "\"nope\""));
    let (m, _, hint) = err_on("BEGIN { print(percpu_kaddr(\"x_unlisted\")); }", facts());
    assert_eq!(m, "the kernel does not list \"x_unlisted\" in /proc/kallsyms, where the verifier finds its address");
    assert!(hint.contains("CONFIG_KALLSYMS_ALL"), "{hint}");
    let (m, _, _) = err_on("BEGIN { print(percpu_kaddr(comm)); }", facts());
    assert_eq!(m, "percpu_kaddr() takes a string literal");
}

#[test]
fn current_bpftraces_functions_make_a_program_bpftrace() {
    for src in [
        "BEGIN { trace(memcmp(execname, \"a\", 1)); }",
        "BEGIN { trace(strcap(execname)); }",
        "BEGIN { trace(kfunc_exist(\"f\")); }",
        "BEGIN { trace(kfunc_allowed(\"f\")); }",
        "syscall::read:entry { signal_thread(9); }",
        "syscall::read:entry { write_user(arg1, \"x\", 1); }",
        "fbt::tcp_close:entry { trace(socket_cookie(args[0])); }",
        "BEGIN { trace(container_of(curthread, struct task_struct, tasks)); }",
        "BEGIN { trace(comm(1)); }",
        "BEGIN { trace(nsecs(boot)); }",
    ] {
        assert_eq!(crate::parse::detect_dialect(src), Dialect::Bpftrace, "{src}");
    }
    assert_eq!(crate::parse::detect_dialect("BEGIN { trace(execname); }"), Dialect::D);
}
