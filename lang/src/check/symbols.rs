//! Kernel stacks and symbols: `stack([n])`, `func()`/`sym()`/`mod()`, `caller` and
//! `stackdepth`, and the `stackframes` option; and their user-space twins: `ustack([n])`,
//! `usym()`/`ufunc()`/`uaddr()`/`umod()`, `ucaller`, `ustackdepth`, `ustackframes`.

use super::*;
use crate::ir::{UStackUse, USymKind, STACK_FRAMES_MAX, USTACK_FRAMES_MAX};

impl Checker<'_> {
    /// A call of a subroutine that records a stack or names a symbol.
    pub(super) fn stack_or_symbol(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        match f.hook {
            FnHook::Sym(kind) => {
                let ty = self.c_int("uintptr_t");
                // `caller` is read from the stack in user space, and symbolized there.
                let pc = self.value(&args[0])?.expr;
                if let Expr::Stack(StackUse::Caller(None)) = pc {
                    return Ok(TExpr::new(Expr::Stack(StackUse::Caller(Some(kind))), ty));
                }
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
                Ok(self.ustack(UStackUse::Frames(frames)))
            }
            _ => {
                let frames = match args.first() {
                    None => 0,
                    Some(a) => frame_count(f, a, STACK_FRAMES_MAX, "a kernel stack")?,
                };
                Ok(self.stack(StackUse::Frames(frames)))
            }
        }
    }

    /// User address `pc` printed as `kind` says, in the process where the probe fired:
    /// `ucaller` stays a value read from the user stack; any other integer is recorded with
    /// the process's id.
    pub(super) fn user_symbol(&mut self, kind: USymKind, pc: Expr, at: &ast::Expr, what: &str) -> Result<TExpr, Diagnostic> {
        let ty = self.c_int("uint64_t");
        self.user_symbols = true;
        match pc {
            Expr::UStack(UStackUse::Caller(_)) => return Ok(TExpr::new(Expr::UStack(UStackUse::Caller(Some(kind))), ty)),
            Expr::USym(_, inner) => return Ok(TExpr::new(Expr::USym(kind, inner), ty)),
            _ => {}
        }
        self.int_expr_check(&pc, at, what)?;
        Ok(TExpr::new(Expr::USym(kind, Box::new(pc)), ty))
    }

    /// A value read from the recorded user stack: D's `stack` for frames, an address for
    /// `ucaller`, a count for `ustackdepth`.
    pub(super) fn ustack(&mut self, u: UStackUse) -> TExpr {
        self.uses_ustack = true;
        self.user_symbols = true;
        let ty = match u {
            UStackUse::Frames(_) => self.types.stack(),
            UStackUse::Caller(_) => self.c_int("uint64_t"),
            UStackUse::Depth => self.c_int("uint32_t"),
        };
        TExpr::new(Expr::UStack(u), ty)
    }

    /// A value read from the recorded kernel stack: D's `stack` for frames, an address for
    /// `caller`, a count for `stackdepth`.
    pub(super) fn stack(&mut self, u: StackUse) -> TExpr {
        self.uses_stack = true;
        let ty = match u {
            StackUse::Frames(_) => self.types.stack(),
            StackUse::Caller(_) => self.c_int("uintptr_t"),
            StackUse::Depth => self.c_int("uint32_t"),
        };
        TExpr::new(Expr::Stack(u), ty)
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
        Repr::Stack(StackUse::Frames(_)) => "a stack can be an aggregation key (@[stack()] = count()), traced (stack();) or printed with printf's %k",
        Repr::UStack(UStackUse::Frames(_)) => "a user stack can be an aggregation key (@[ustack()] = count()), traced (ustack();) or printed with printf's %k",
        Repr::Sym(_) | Repr::Stack(StackUse::Caller(Some(_))) => "a symbol can be an aggregation key (@[func(pc)] = count()), traced, or printed with printf (%a, %p, %x, %d)",
        Repr::USym(_) | Repr::UStack(UStackUse::Caller(Some(_))) => "a user symbol can be an aggregation key (@[usym(pc)] = count()), traced, or printed with printf (%A, %p, %x, %d)",
        Repr::UStack(_) => "user space reads it from the recorded user stack when printing: trace it, print it with printf (%d; %A for ucaller) or make it an aggregation key",
        _ => "user space reads it from the recorded stack when printing: trace it, print it with printf (%d; %a for caller) or make it an aggregation key",
    }
}

/// Whether a value prints as an integer does with printf's integer conversions: integers,
/// and addresses and counts user space reads or symbolizes.
pub(super) fn int_like(r: Repr) -> bool {
    matches!(r, Repr::Int(_) | Repr::Sym(_) | Repr::Stack(StackUse::Caller(_) | StackUse::Depth) | Repr::USym(_) | Repr::UStack(UStackUse::Caller(_) | UStackUse::Depth))
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
