//! The string subroutines: strlen(), those that make a string (strjoin(), substr(),
//! basename(), strtok(), ...) and those that give an integer (index(), htons(), rand(),
//! ...), checked against the builtins table and lowered to IR.

use super::*;
use crate::ir::IntFn;

impl Checker<'_> {
    /// A call of a string subroutine `f` (its arity already checked).
    pub(super) fn string_call(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr]) -> Result<TExpr, Diagnostic> {
        let mut lowered = Vec::new();
        let mut hook = f.hook;
        for (a, spec) in args.iter().zip(f.args) {
            let what = format!("argument {} of {}()", lowered.len() + 1, f.name);
            lowered.push(match spec {
                ArgSpec::Str => StrArg::Str(self.string_arg(a, f.name)?),
                // strtok(NULL, delims) goes on with the last string: no argument.
                ArgSpec::StrOrNull if is_null(a) => {
                    hook = FnHook::Str(StrFn::StrtokNext);
                    continue;
                }
                ArgSpec::StrOrNull => StrArg::Str(self.string_arg(a, f.name)?),
                ArgSpec::OptConstInt | ArgSpec::ConstInt => match self.int_arg(a, f)? {
                    x @ Expr::Int(_) => StrArg::Int(x),
                    _ => {
                        return Err(Diagnostic::new(a.span.clone(), format!("{what} must be a constant"))
                            .label("known only when the probe fires")
                            .hint(format!("give an integer literal, e.g. {}", f.signature)))
                    }
                },
                _ => StrArg::Int(self.int_arg(a, f)?),
            });
        }
        if let (FnHook::Str(StrFn::Lltostr), Some(StrArg::Int(Expr::Int(base))), Some(a)) = (hook, lowered.get(1), args.get(1)) {
            if !(2..=36).contains(base) {
                return Err(Diagnostic::new(a.span.clone(), format!("lltostr() base {base} is out of range"))
                    .label("not a base from 2 to 36")
                    .hint("digits are 0-9 and a-z: give a base from 2 to 36, e.g. lltostr(n, 16)"));
            }
        }
        Ok(match hook {
            FnHook::Strlen => {
                let Some(StrArg::Str(s)) = lowered.pop() else { unreachable!("strlen takes a string") };
                let size_t = self.c_int("size_t");
                TExpr::new(Expr::Strlen(s), size_t)
            }
            FnHook::Str(sf) => {
                let string = self.c_string();
                TExpr::new(Expr::Str(StrExpr::Call { f: sf, args: lowered, size: self.strsize }), string)
            }
            FnHook::Int(g) => {
                let ty = match g {
                    IntFn::Swap(2) => self.c_int("uint16_t"),
                    IntFn::Swap(4) => self.c_int("uint32_t"),
                    IntFn::Swap(_) => self.c_int("uint64_t"),
                    // bpftrace's rand is the helper's u32 as it is; D's rand() an int.
                    IntFn::Rand if self.bpftrace() => self.c_int("uint32_t"),
                    IntFn::Index | IntFn::Rindex | IntFn::Rand | IntFn::Progenyof | IntFn::Syscall | IntFn::Memcmp(_) | IntFn::WriteUser(_) => self.int(),
                    IntFn::ByteAt => self.c_int("char"),
                    IntFn::UserReg(_) | IntFn::Cgroup | IntFn::ProbeReg(_) | IntFn::StackArg(_) | IntFn::FunctionArg(_) | IntFn::FuncIp | IntFn::Ncpus | IntFn::SocketCookie(_) | IntFn::PercpuKaddr(_) => self.c_int("uint64_t"),
                };
                TExpr::new(Expr::IntCall { f: g, args: lowered }, ty)
            }
            _ => unreachable!("not a string subroutine"),
        })
    }

    /// An argument that must be an integer.
    fn int_arg(&mut self, a: &ast::Expr, f: &builtins::BuiltinFn) -> Result<Expr, Diagnostic> {
        let v = self.value(a)?.expr;
        if let Expr::Str(_) = v {
            return Err(Diagnostic::new(a.span.clone(), format!("{}() needs an integer here, but this is a string", f.name))
                .label("not an integer")
                .hint(format!("usage: {}", f.signature)));
        }
        self.int_expr_check(&v, a, &format!("argument of {}()", f.name))?;
        Ok(v)
    }

    /// An argument that must be a string.
    pub(super) fn string_arg(&mut self, a: &ast::Expr, name: &str) -> Result<StrExpr, Diagnostic> {
        match self.value(a)?.expr {
            Expr::Str(s) => Ok(s),
            v => Err(Diagnostic::new(a.span.clone(), format!("{name}() needs a string here, but this is {}", v.repr().describe()))
                .label("not a string")
                .hint("give a string: a literal, a string variable, execname, copyinstr(addr), stringof(ptr)")),
        }
    }
}

/// `NULL` or the constant 0, as D's strtok() takes it.
fn is_null(a: &ast::Expr) -> bool {
    match &a.kind {
        ExprKind::Ident(n) => n == "NULL",
        ExprKind::Int(0, _) => true,
        _ => false,
    }
}
