//! The string subroutines: strlen() and those that make a string (strjoin(), substr(),
//! basename(), ...), checked against the builtins table and lowered to IR.

use super::*;

impl Checker<'_> {
    /// A call of a string subroutine `f` (its arity already checked).
    pub(super) fn string_call(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr]) -> Result<TExpr, Diagnostic> {
        let mut lowered = Vec::new();
        for (a, spec) in args.iter().zip(f.args) {
            lowered.push(match spec {
                ArgSpec::Str => StrArg::Str(self.string_arg(a, f.name)?),
                _ => StrArg::Int(self.int_expr(a, &format!("argument {} of {}()", lowered.len() + 1, f.name))?),
            });
        }
        Ok(match f.hook {
            FnHook::Strlen => {
                let Some(StrArg::Str(s)) = lowered.pop() else { unreachable!("strlen takes a string") };
                let size_t = self.c_int("size_t");
                TExpr::new(Expr::Strlen(s), size_t)
            }
            FnHook::Str(sf) => {
                let string = self.c_string();
                TExpr::new(Expr::Str(StrExpr::Call { f: sf, args: lowered, size: self.strsize }), string)
            }
            _ => unreachable!("not a string subroutine"),
        })
    }

    /// An argument that must be a string.
    fn string_arg(&mut self, a: &ast::Expr, name: &str) -> Result<StrExpr, Diagnostic> {
        match self.value(a)?.expr {
            Expr::Str(s) => Ok(s),
            v => Err(Diagnostic::new(a.span.clone(), format!("{name}() needs a string here, but this is {}", v.repr().describe()))
                .label("not a string")
                .hint("give a string: a literal, a string variable, execname, copyinstr(addr), stringof(ptr)")),
        }
    }
}
