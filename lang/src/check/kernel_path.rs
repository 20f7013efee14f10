//! bpftrace's `path(p [, size])`: the name of a `struct path` as the kernel's bpf_d_path()
//! writes it. The kernel allows that helper only in fentry/fexit programs on a few
//! functions, and only on a pointer it trusts: one of the function's arguments, or a
//! `struct path` inside what one points to (`args.file->f_path`). Anything else is refused
//! here, with the reason, rather than by the verifier.

use super::ctypes::{Typed, Val};
use super::*;
use crate::facts::TypeSpace;
use crate::types::{AddrSpace, Type, TypeId};

/// The functions the kernel lets bpf_d_path() run in (kernel/trace/bpf_trace.c's
/// btf_allowlist_d_path, the same from Linux 5.10 to 6.12; security_path_truncate where the
/// kernel has CONFIG_SECURITY_PATH).
pub(super) const D_PATH_FUNCTIONS: [&str; 9] = [
    "security_file_permission",
    "security_inode_getattr",
    "security_file_open",
    "security_path_truncate",
    "vfs_truncate",
    "vfs_fallocate",
    "dentry_open",
    "vfs_getattr",
    "filp_close",
];

impl Checker<'_> {
    pub(super) fn kernel_path(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span, string: TypeId) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        // The kernel allows bpf_d_path() in iterator programs too (bpftrace's iter:task_file).
        let fbt = |p: &crate::providers::Probe| p.provider == "fbt" && matches!(p.attach, AttachPoint::FbtEntry(_) | AttachPoint::FbtReturn(_));
        if let Some(p) = self.clause_probes.iter().find(|p| !fbt(p) && !matches!(p.attach, AttachPoint::Iter(..))) {
            return Err(Diagnostic::new(span.clone(), "The path function can only be used with 'kfunc', 'kretfunc', 'iter' probes")
                .label(format!("at {}:{}:{}:{}", p.provider, p.module, p.function, p.name))
                .hint(format!("path() calls the kernel's bpf_d_path(), which it allows in fentry/fexit programs on {} alone: use it in kfunc:FUNC or kretfunc:FUNC (fentry:FUNC, fexit:FUNC) clauses on them", D_PATH_FUNCTIONS.join(", "))));
        }
        if let Some(p) = self.clause_probes.iter().find(|p| fbt(p) && !D_PATH_FUNCTIONS.contains(&p.function)) {
            return Err(Diagnostic::new(span.clone(), format!("the kernel does not allow path() in {}", p.function))
                .label("bpf_d_path() is refused there")
                .hint(format!("the kernel allows bpf_d_path() in {} alone", D_PATH_FUNCTIONS.join(", "))));
        }
        let (arg, offset) = self.trusted_path(&args[0])?;
        let limit = match args.get(1) {
            None => self.strsize,
            Some(a) => match &a.kind {
                ExprKind::Int(n, _) if *n >= 0 => (*n).min(self.strsize as i64) as u32,
                _ => {
                    return Err(Diagnostic::new(a.span.clone(), "path: invalid size value, need non-negative literal")
                        .label("not a non-negative integer literal")
                        .hint("the most bytes of the name to keep, its NUL included: path(args.file->f_path, 64)"));
                }
            },
        };
        Ok(TExpr::new(Expr::Str(StrExpr::KernelPath { arg, offset, limit, size: self.strsize }), string))
    }

    /// The argument and offset of the `struct path` `a` names (`args.path`,
    /// `args.file->f_path`, `&args.file->f_path`): a `struct path *` argument, or a `struct
    /// path` at a constant offset in what an argument points to.
    fn trusted_path(&mut self, a: &ast::Expr) -> Result<(u8, i32), Diagnostic> {
        let Typed { val, ty } = self.typed(a)?;
        let want = self.types.lookup(TypeSpace::Struct, "path").map_err(|e| ctypes::no_types(&a.span, e))?;
        let want = match want {
            Some(t) => Some(self.types.resolve(t).map_err(|e| ctypes::no_types(&a.span, e))?),
            None => None,
        };
        let resolved = self.types.resolve(ty).map_err(|e| ctypes::no_types(&a.span, e))?;
        let address = match (self.types.real(ty).map_err(|e| ctypes::no_types(&a.span, e))?, val) {
            // A struct path in memory: its address.
            (Type::Struct(_), Val::Place(addr)) if Some(resolved) == want => Some(addr),
            (Type::Ptr { to, space: AddrSpace::Kernel }, Val::Value(v)) if Some(self.types.resolve(to).map_err(|e| ctypes::no_types(&a.span, e))?) == want => Some(v),
            (_, Val::Value(Expr::Str(_))) => {
                return Err(Diagnostic::new(a.span.clone(), "path() only supports pointer or record argument (string provided)")
                    .label("not a struct path")
                    .hint("give it a `struct path *` argument of the function or a struct path it points to: path(args.path), path(args.file->f_path)"));
            }
            (_, Val::Place(_) | Val::Value(_)) if !matches!(self.types.get(resolved), Type::Struct(_) | Type::Ptr { .. }) => {
                return Err(Diagnostic::new(a.span.clone(), format!("path() only supports pointer or record argument ({} provided)", self.types.name(ty)))
                    .label("not a struct path")
                    .hint("give it a `struct path *` argument of the function or a struct path it points to: path(args.path), path(args.file->f_path)"));
            }
            _ => None,
        };
        let Some(address) = address else {
            return Err(Diagnostic::new(a.span.clone(), format!("path() needs a `struct path` or `struct path *`, but this is `{}`", self.types.name(ty)))
                .label("not a struct path")
                .hint("give it a `struct path *` argument of the function or a struct path it points to: path(args.path), path(args.file->f_path)"));
        };
        from_argument(&address).ok_or_else(|| {
            Diagnostic::new(a.span.clone(), "path() takes a struct path reached from the function's arguments alone")
                .label("not straight from an argument")
                .hint("the kernel's bpf_d_path() takes only pointers it trusts: an argument (path(args.path)) or a struct path in what one points to (path(args.file->f_path)), not one read from memory or computed")
        })
    }
}

/// `arg` or `arg + k`: the argument and the offset. At a return (kretfunc/fexit) the
/// argument is read from the trampoline's context as at the entry.
pub(super) fn from_argument(addr: &Expr) -> Option<(u8, i32)> {
    let argument = |e: &Expr| match e {
        Expr::Var(VarHook::Arg(n)) | Expr::IntCall { f: crate::ir::IntFn::FunctionArg(n), .. } => Some(*n),
        _ => None,
    };
    match addr {
        Expr::Binary(BinOp::Add, a, k) => match &**k {
            Expr::Int(k) => Some((argument(a)?, i32::try_from(*k).ok()?)),
            _ => None,
        },
        a => Some((argument(a)?, 0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::sample::SampleKernel;
    use std::rc::Rc;

    fn compile(src: &str) -> Result<Program, Diagnostic> {
        crate::compile(src, &CheckOptions { facts: Some(Rc::new(SampleKernel)), dialect: Some(crate::dialect::Dialect::Bpftrace), ..Default::default() })
    }

    fn paths(p: &Program) -> Vec<(u8, i32, u32)> {
        let mut out = Vec::new();
        for c in p.groups.iter().flat_map(|g| &g.clauses) {
            c.any(&mut |n| {
                if let Node::Str(StrExpr::KernelPath { arg, offset, limit, .. }) = n {
                    out.push((*arg, *offset, *limit));
                }
                false
            });
        }
        out
    }

    #[test]
    fn a_path_is_an_argument_or_a_struct_path_in_what_one_points_to() {
        let p = compile(r#"kfunc:vfs_getattr { printf("%s\n", path(args.path)); } fentry:security_file_open { @[path(args.file->f_path, 64)] = count(); print(path(&args[0]->f_path)); }"#).unwrap();
        // The sample kernel's struct file has f_path at byte 64; strsize is 256.
        assert_eq!(paths(&p), [(0, 0, 256), (0, 64, 64), (0, 64, 256)]);
        assert!(p.fbt_needs().trampoline);
        // At the return the arguments are the entry's, read from the trampoline's context.
        let p = compile(r#"kretfunc:security_file_open { @[path(args.file->f_path), retval] = count(); } fexit:vfs_getattr { print(path(args.path)); }"#).unwrap_or_else(|d| panic!("{}", d.message));
        assert_eq!(paths(&p), [(0, 64, 256), (0, 0, 256)]);
        assert!(p.fbt_needs().trampoline);
    }

    #[test]
    fn path_elsewhere_or_of_anything_else_is_an_error() {
        for (src, message) in [
            ("BEGIN { print(path(0)); }", "The path function can only be used with 'kfunc', 'kretfunc', 'iter' probes"),
            ("profile:hz:99 { print(path(0)); }", "The path function can only be used with 'kfunc', 'kretfunc', 'iter' probes"),
            ("kretfunc:vfs_getattr { print(path(0)); }", "path() only supports pointer or record argument (int provided)"),
            ("kfunc:vfs_read { print(path(args.file->f_path)); }", "the kernel does not allow path() in vfs_read"),
            ("kfunc:vfs_getattr { print(path(args.path->dentry)); }", "path() needs a `struct path` or `struct path *`, but this is `struct dentry *`"),
            ("kfunc:vfs_getattr { print(path(\"/tmp\")); }", "path() only supports pointer or record argument (string provided)"),
            ("kfunc:vfs_getattr { print(path(arg0)); }", "path() only supports pointer or record argument (int64_t provided)"),
            ("kfunc:vfs_getattr { $p = args.path; print(path($p)); }", "path() takes a struct path reached from the function's arguments alone"),
            ("kfunc:vfs_getattr { print(path(args.path, -1)); }", "path: invalid size value, need non-negative literal"),
            ("kfunc:vfs_getattr { print(path(args.path, 1, 2)); }", "path() takes 1 or 2 arguments, but 3 given"),
        ] {
            let d = compile(src).unwrap_err();
            assert_eq!(d.message, message, "{src}");
            assert!(d.hint.is_some(), "{src}");
        }
    }
}
