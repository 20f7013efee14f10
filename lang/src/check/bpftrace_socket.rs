//! Current bpftrace's `socket_cookie(sk)` (docs/stdlib.md): the kernel's cookie of a socket,
//! bpf_get_socket_cookie(). The kernel has that helper for tracing programs alone (fentry,
//! fexit, tp_btf), on a pointer it trusts: so a `struct sock *` argument of the probed
//! function or raw tracepoint, read from the program's context.

use super::*;
use crate::facts::TypeSpace;
use crate::types::{AddrSpace, Type};

impl Checker<'_> {
    pub(super) fn socket_cookie(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        if let Some(p) = self.clause_probes.iter().find(|p| !(p.provider == "fbt" && matches!(p.attach, AttachPoint::FbtEntry(_) | AttachPoint::FbtReturn(_)) || matches!(p.attach, AttachPoint::RawTracepoint(_)))) {
            return Err(Diagnostic::new(span.clone(), format!("socket_cookie can not be used with \"{}\" probes", super::registers::bpftrace_kind(p)))
                .label(format!("at {}:{}:{}:{}", p.provider, p.module, p.function, p.name))
                .hint("the kernel's bpf_get_socket_cookie() runs in tracing programs alone: use it at fentry:FUNC/fexit:FUNC (kprobe:, kfunc:), which then attach as fentry/fexit, or rawtracepoint:EVENT"));
        }
        let a = &args[0];
        let v = self.value(a)?;
        let want = self.types.lookup(TypeSpace::Struct, "sock").map_err(|e| ctypes::no_types(&a.span, e))?;
        let pointee = match self.types.real(v.ty).map_err(|e| ctypes::no_types(&a.span, e))? {
            Type::Ptr { to, space: AddrSpace::Kernel } => Some(to),
            _ => None,
        };
        let is_sock = match (pointee, want) {
            (Some(to), Some(want)) => self.types.resolve(to).map_err(|e| ctypes::no_types(&a.span, e))? == self.types.resolve(want).map_err(|e| ctypes::no_types(&a.span, e))?,
            _ => false,
        };
        if !is_sock {
            let given = match pointee {
                Some(_) => format!("'{}'", self.types.name(v.ty)),
                None if v.expr.repr().is_str() => "string".to_string(),
                None => self.types.name(v.ty),
            };
            return Err(Diagnostic::new(a.span.clone(), format!("socket_cookie() only supports 'struct sock *' as the argument ({given} provided)"))
                .label("not a struct sock *")
                .hint("give it a `struct sock *` argument of the probed function: socket_cookie(args.sk)"));
        }
        let Some((arg, 0)) = super::kernel_path::from_argument(&v.expr) else {
            return Err(Diagnostic::new(a.span.clone(), "socket_cookie() takes a `struct sock *` argument of the probe alone")
                .label("not straight from an argument")
                .hint("the kernel's bpf_get_socket_cookie() takes only pointers it trusts: an argument as the probe gives it (socket_cookie(args.sk)), not one read from memory or computed"));
        };
        Ok(TExpr::new(Expr::IntCall { f: crate::ir::IntFn::SocketCookie(arg), args: Vec::new() }, self.c_int("uint64_t")))
    }
}
