//! Kernel stacks and symbols: `stack([n])`, `func()`/`sym()`/`mod()`, `caller` and
//! `stackdepth`, and the `stackframes` option; and their user-space twins: `ustack([n])`,
//! `usym()`/`ufunc()`/`uaddr()`/`umod()`, `ucaller`, `ustackdepth`, `ustackframes`.

use super::*;
use crate::ir::{UStackUse, USymKind, STACK_FRAMES_MAX, USTACK_FRAMES_MAX};

impl Checker<'_> {
    /// A call of a subroutine that records a stack or names a symbol.
    pub(super) fn stack_or_symbol(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        let (mode, args) = self.stack_mode_arg(f, args)?;
        check_arity(f, args, span)?;
        match f.hook {
            FnHook::Sym(kind) => {
                let ty = self.c_int("uintptr_t");
                let pc = self.value(&args[0])?.expr;
                self.int_expr_check(&pc, &args[0], &format!("the address given to {}()", f.name))?;
                Ok(TExpr::new(Expr::Sym(kind, Box::new(pc)), ty))
            }
            FnHook::USym(kind) => {
                let pc = self.value(&args[0])?.expr;
                Ok(self.user_symbol(kind, pc, &args[0], &format!("the address given to {}()", f.name))?)
            }
            FnHook::UStack { java } => {
                // DTrace's second argument is room for the names of JIT-compiled frames
                // (Java's); crumbs has none, so it is checked and ignored.
                let frames = match args.first() {
                    // 0: the ustackframes option's, which user space knows.
                    None if java => self.jstackframes,
                    None => 0,
                    Some(a) => frame_count(f, a, USTACK_FRAMES_MAX, "a user stack")?,
                };
                if let Some(a) = args.get(1) {
                    string_room(f, a)?;
                }
                Ok(self.ustack(UStackUse::Frames(frames, mode)))
            }
            _ => {
                let frames = match args.first() {
                    None => 0,
                    Some(a) => frame_count(f, a, STACK_FRAMES_MAX, "a kernel stack")?,
                };
                Ok(self.stack(StackUse::Frames(frames, mode)))
            }
        }
    }

    /// Whether every probe of the clause is a kernel function's entry or return (fbt).
    pub(super) fn clause_on_fbt(&self) -> bool {
        !self.clause_probes.is_empty() && self.clause_probes.iter().all(|p| p.provider == "fbt")
    }

    /// bpftrace's `func` at kprobe/kfunc probes: the function's address, a kernel symbol
    /// (a map of `ksym(0)` values takes it, as tools/xfsdist.bt has it). Elsewhere `func`
    /// is the probe's function name, as `probefunc`.
    pub(super) fn function_symbol(&mut self) -> TExpr {
        let ip = Expr::IntCall { f: crate::ir::IntFn::FuncIp, args: Vec::new() };
        TExpr::new(Expr::Sym(SymKind::Func, Box::new(ip)), self.c_int("uintptr_t"))
    }

    /// bpftrace's `kstack(mode, ...)` and `ustack(mode, ...)`: the mode a stack prints in
    /// (the program's `stack_mode` when none is named) and the arguments after it. A name
    /// that is not a mode is the frame count's (a `#define`d constant).
    fn stack_mode_arg<'x>(&self, f: &builtins::BuiltinFn, args: &'x [ast::Expr]) -> Result<(StackMode, &'x [ast::Expr]), Diagnostic> {
        let stack = matches!(f.hook, FnHook::Stack | FnHook::UStack { java: false });
        if !stack || !self.bpftrace() {
            return Ok((StackMode::Bpftrace, args));
        }
        let func = if f.name == "stack" { "kstack" } else { f.name };
        match args.first().map(|a| &a.kind) {
            Some(ast::ExprKind::Ident(m)) if args.len() == 2 || matches!(m.as_str(), "bpftrace" | "perf" | "raw" | "build_id") => {
                let mode = crate::config::stack_mode(func, m).map_err(|(msg, hint)| {
                    Diagnostic::new(args[0].span.clone(), format!("Error parsing stack mode: {msg}")).label("not a stack mode").hint(hint)
                })?;
                if mode == StackMode::BuildId && func == "kstack" {
                    return Err(Diagnostic::new(args[0].span.clone(), "'build_id' stack mode can only be used for ustack").label("a kernel stack").hint("name another mode: kstack(raw), kstack(perf), kstack(bpftrace)"));
                }
                Ok((mode, &args[1..]))
            }
            // bpftrace's kstack falls back to raw under `stack_mode = build_id` (with a
            // warning crumbs does not print).
            _ if self.stack_mode == StackMode::BuildId && func == "kstack" => Ok((StackMode::Raw, args)),
            _ => Ok((self.stack_mode, args)),
        }
    }

    /// User address `pc` printed as `kind` says, in the process where the probe fired: an
    /// integer is recorded with the process's id (a user symbol's address is re-printed).
    pub(super) fn user_symbol(&mut self, kind: USymKind, pc: Expr, at: &ast::Expr, what: &str) -> Result<TExpr, Diagnostic> {
        let ty = self.c_int("uint64_t");
        self.user_symbols = true;
        if let Expr::USym(_, inner) = pc {
            return Ok(TExpr::new(Expr::USym(kind, inner), ty));
        }
        self.int_expr_check(&pc, at, what)?;
        Ok(TExpr::new(Expr::USym(kind, Box::new(pc)), ty))
    }

    /// A user stack recorded (D's `stack` type), its frames read and symbolized in user space.
    pub(super) fn ustack(&mut self, u: UStackUse) -> TExpr {
        self.uses_ustack = true;
        self.uses_build_id_ustack |= matches!(u, UStackUse::Frames(_, StackMode::BuildId));
        self.user_symbols = true;
        TExpr::new(Expr::UStack(u), self.types.stack())
    }

    /// A kernel stack recorded (D's `stack` type), its frames read and symbolized in user space.
    pub(super) fn stack(&mut self, u: StackUse) -> TExpr {
        self.uses_stack = true;
        TExpr::new(Expr::Stack(u), self.types.stack())
    }
}

/// `stack(n)`'s and `ustack(n)`'s n: as DTrace has it, a positive integer constant; at most
/// what the stack map keeps (`max`).
fn frame_count(f: &builtins::BuiltinFn, a: &ast::Expr, max: u8, what: &str) -> Result<u8, Diagnostic> {
    let n = const_int(a).ok_or_else(|| {
        Diagnostic::new(a.span.clone(), format!("{}()'s frame count must be an integer constant", f.name))
            .label("not a constant")
            .hint(format!("write a number of frames from 1 to {max}, e.g. {}(5)", f.name))
    })?;
    if !(1..=max as i64).contains(&n) {
        return Err(Diagnostic::new(a.span.clone(), format!("{}() cannot keep {n} frames", f.name))
            .label("out of range")
            .hint(format!("{what} keeps 1 to {max} frames")));
    }
    Ok(n as u8)
}

/// `ustack(n, strsize)`'s and `jstack(n, strsize)`'s strsize: a non-negative integer
/// constant, as DTrace wants it.
fn string_room(f: &builtins::BuiltinFn, a: &ast::Expr) -> Result<(), Diagnostic> {
    match const_int(a) {
        Some(n) if n >= 0 => Ok(()),
        _ => Err(Diagnostic::new(a.span.clone(), format!("{}()'s string size must be a non-negative integer constant", f.name))
            .label("not a size")
            .hint(format!("DTrace's second argument is room for JIT frame names, which crumbs ignores: write {0}(n) or e.g. {0}(n, 0)", f.name))),
    }
}

/// The `ustackframes` or `jstackframes` option's value (`name`): 1 to
/// [`USTACK_FRAMES_MAX`] frames.
pub(super) fn ustackframes_option(name: &str, value: Option<&str>) -> Result<u8, (String, String)> {
    let hint = || format!("a user stack keeps 1 to {USTACK_FRAMES_MAX} frames, e.g. `{name}=5`");
    let v = value.unwrap_or("");
    match v.trim().parse::<u64>() {
        Ok(n) if (1..=USTACK_FRAMES_MAX as u64).contains(&n) => Ok(n as u8),
        Ok(_) => Err((format!("{name}={v} is out of range"), hint())),
        Err(_) => Err((format!("option `{name}` needs a number of frames, got `{v}`"), hint())),
    }
}

/// The `stackframes` option's value: 1 to [`STACK_FRAMES_MAX`] frames.
pub(super) fn stackframes_option(value: Option<&str>) -> Result<u8, (String, String)> {
    let hint = || format!("a kernel stack keeps 1 to {STACK_FRAMES_MAX} frames, e.g. `stackframes=5`");
    let v = value.unwrap_or("");
    match v.trim().parse::<u64>() {
        Ok(n) if (1..=STACK_FRAMES_MAX as u64).contains(&n) => Ok(n as u8),
        Ok(_) => Err((format!("stackframes={v} is out of range"), hint())),
        Err(_) => Err((format!("option `stackframes` needs a number of frames, got `{v}`"), hint())),
    }
}

/// Where a value that user space turns into text can go, for messages.
pub(super) fn printed_only_hint(r: Repr) -> &'static str {
    match r {
        Repr::Stack(_) => "a stack can be an aggregation key (@[stack()] = count()), traced (stack();) or printed with printf's %k",
        Repr::UStack(_) => "a user stack can be an aggregation key (@[ustack()] = count()), traced (ustack();) or printed with printf's %k",
        Repr::Sym(_) => "a symbol can be an aggregation key (@[func(pc)] = count()), traced, or printed with printf (%a, %p, %x, %d)",
        _ => "a user symbol can be an aggregation key (@[usym(pc)] = count()), traced, or printed with printf (%A, %p, %x, %d)",
    }
}

/// Whether a value prints as an integer does with printf's integer conversions: integers,
/// and addresses user space symbolizes.
pub(super) fn int_like(r: Repr) -> bool {
    matches!(r, Repr::Int(_) | Repr::Sym(_) | Repr::USym(_))
}

/// The error for a printf() argument `r` of conversion `c` if one is a stack and the other
/// is not `%k`.
pub(super) fn stack_conversion(c: &printf::Conv, r: Repr, at: &Span) -> Option<Diagnostic> {
    let stack = r.is_frames();
    let k = matches!(c.arg_kind(), printf::ArgKind::Stack);
    match (stack, k) {
        (true, false) => Some(
            Diagnostic::new(at.clone(), format!("%{} cannot print a stack", c.conv))
                .label("a stack")
                .hint("print a stack with %k: printf(\"%k\", stack()); or trace it with stack(); or count it with @[stack()] = count()"),
        ),
        (false, true) => Some(
            Diagnostic::new(at.clone(), format!("%k prints a stack, but this is {}", r.describe()))
                .label("not a stack")
                .hint("pass stack(), ustack() or stack(n) to %k; print an address as a symbol with %a (kernel) or %A (user)"),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod function_symbol_tests {
    use crate::check::CheckOptions;
    use crate::dialect::Dialect;
    use crate::ir::{Expr, IntFn, Stmt, SymKind};

    fn compile(src: &str, dialect: Dialect) -> Result<crate::ir::Program, crate::diag::Diagnostic> {
        crate::compile(src, &CheckOptions { dialect: Some(dialect), facts: Some(std::rc::Rc::new(crate::facts::sample::SampleKernel)), ..Default::default() })
    }

    fn first_key(p: &crate::ir::Program) -> Expr {
        match &p.groups[0].clauses[0].body[0] {
            Stmt::Aggregate { keys, .. } => keys[0].clone(),
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn bpftraces_func_at_a_kernel_function_is_its_symbol() {
        let ip = Expr::Sym(SymKind::Func, Box::new(Expr::IntCall { f: IntFn::FuncIp, args: Vec::new() }));
        let p = compile("kprobe:vfs_read { @[func] = count(); }", Dialect::Bpftrace).unwrap_or_else(|d| panic!("{}", d.message));
        assert_eq!(first_key(&p), ip);
        assert!(!p.fbt_needs().trampoline, "an entry's kprobe knows its function's address");
        // At a return only fexit and kprobe.multi know it.
        let p = compile("kretprobe:vfs_read { @[func] = count(); }", Dialect::Bpftrace).unwrap();
        assert_eq!(first_key(&p), ip);
        assert!(p.fbt_needs().trampoline);
        // xfsdist.bt types its map with ksym(0) first.
        compile("BEGIN { @name[0] = ksym(0); } kprobe:vfs_read { @name[tid] = func; }", Dialect::Bpftrace).unwrap_or_else(|d| panic!("{}", d.message));
        // Elsewhere, and in D, it is the probe's function name.
        let p = compile("profile:hz:99 { @[func] = count(); }", Dialect::Bpftrace).unwrap();
        assert!(matches!(first_key(&p), Expr::Str(_)));
        let p = compile("fbt::vfs_read:entry { @[probefunc] = count(); }", Dialect::D).unwrap();
        assert!(matches!(first_key(&p), Expr::Str(_)));
    }
}
