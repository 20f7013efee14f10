//! bpftrace's `override(rc)`: the probed kernel function returns rc without running
//! (bpf_override_return), at kprobes on its entry; destructive (`--unsafe`, `-w`).

use super::*;

impl Checker<'_> {
    /// `override(rc)` at fbt entry probes (bpftrace's kprobes) alone, as bpftrace.
    pub(super) fn override_return(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span, body: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        check_arity(f, args, span)?;
        if let Some(p) = self.clause_probes.iter().find(|p| !(p.provider == "fbt" && matches!(p.attach, AttachPoint::FbtEntry(_)))) {
            let at = match p.attach {
                AttachPoint::FbtReturn(_) => "a kretprobe".to_string(),
                _ => format!("a {} probe", p.provider),
            };
            return Err(Diagnostic::new(span.clone(), "override can only be used with kprobes.")
                .label(format!("at {at}"))
                .hint("override() makes a kernel function return at once from its entry: use it in kprobe:FUNC clauses, FUNC a function the kernel allows errors to be injected into (ALLOW_ERROR_INJECTION)"));
        }
        let rc = self.int_expr(&args[0], "override()'s return value")?;
        body.push(Stmt::Override(rc));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::sample::SampleKernel;
    use std::rc::Rc;

    fn compile(src: &str, destructive: bool) -> Result<Program, Diagnostic> {
        crate::compile(src, &CheckOptions { facts: Some(Rc::new(SampleKernel)), dialect: Some(crate::dialect::Dialect::Bpftrace), destructive, ..Default::default() })
    }

    #[test]
    fn override_is_a_statement_at_kprobes() {
        let p = compile("kprobe:vfs_read { override(-5); }", true).unwrap();
        assert_eq!(p.groups[0].clauses[0].body, [Stmt::Override(Expr::Int(-5))]);
        assert_eq!(p.fbt_needs(), crate::ir::FbtNeeds { registers: false, override_return: true, trampoline: false, offsets: false });
    }

    #[test]
    fn override_elsewhere_or_unsafe_is_an_error() {
        for (src, destructive, message) in [
            ("kprobe:vfs_read { override(1); }", false, "override() is an unsafe function being used in safe mode"),
            ("kretprobe:vfs_read { override(1); }", true, "override can only be used with kprobes."),
            ("BEGIN { override(1); }", true, "override can only be used with kprobes."),
            ("kprobe:vfs_read { override(comm); }", true, "override()'s return value"),
            ("kprobe:vfs_read { override(); }", true, "override() takes 1 argument"),
        ] {
            let d = compile(src, destructive).unwrap_err();
            assert!(d.message.contains(message), "{src}: {}", d.message);
            assert!(d.hint.is_some(), "{src}");
        }
    }
}
