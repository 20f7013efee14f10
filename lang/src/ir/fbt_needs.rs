//! What a program's fbt clauses need of the programs their probes run in: how fbt probes
//! attach (kprobe, kprobe.multi, fentry) is the back end's choice, but bpftrace's reg() and
//! sargN read the registers a kprobe saves, which a trampoline does not, override()
//! needs a kprobe of its own, and path(), arguments at a return and the function's address
//! at a return (bpftrace's `func`) a trampoline.

use super::{Expr, IntFn, Node, Program, Stmt, StrExpr};
use crate::providers::AttachPoint;

/// Which contexts the program's fbt clauses can run in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FbtNeeds {
    /// They read the saved registers (reg(), sargN): kprobes or kprobe.multi, not fentry.
    pub registers: bool,
    /// They call override(): a kprobe per function (bpf_override_return), not kprobe.multi.
    pub override_return: bool,
    /// They call path() (bpf_d_path() on an argument the verifier trusts) or
    /// socket_cookie() (bpf_get_socket_cookie(), tracing programs' alone), or read a
    /// function's arguments at its return: only an fentry/fexit program (a trampoline) has
    /// them in its context.
    pub trampoline: bool,
    /// A probe is inside a function (`kprobe:vfs_read+4`): only a kprobe of its own fires
    /// there.
    pub offsets: bool,
}

impl Program {
    /// What the program's fbt clauses need of their context.
    pub fn fbt_needs(&self) -> FbtNeeds {
        let mut needs = FbtNeeds { offsets: self.functions.iter().any(|f| f.offset != 0), ..FbtNeeds::default() };
        let fbt = self.groups.iter().filter(|g| matches!(g.attach, AttachPoint::FbtEntry(_) | AttachPoint::FbtReturn(_)));
        for (ret, c) in fbt.flat_map(|g| g.clauses.iter().map(|c| (matches!(g.attach, AttachPoint::FbtReturn(_)), c))) {
            c.any(&mut |n| {
                match n {
                    // A kretprobe of its own runs where the function's address is no longer
                    // known; kprobe.multi and fexit keep it.
                    Node::Expr(Expr::IntCall { f: IntFn::FuncIp, .. }) if ret => needs.trampoline = true,
                    Node::Expr(Expr::IntCall { f: IntFn::ProbeReg(_) | IntFn::StackArg(_), .. }) => needs.registers = true,
                    Node::Stmt(Stmt::Override(_)) => needs.override_return = true,
                    Node::Str(StrExpr::KernelPath { .. }) | Node::Expr(Expr::IntCall { f: IntFn::FunctionArg(_) | IntFn::SocketCookie(_), .. }) => needs.trampoline = true,
                    _ => {}
                }
                false
            });
        }
        needs
    }
}
