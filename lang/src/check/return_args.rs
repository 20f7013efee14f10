//! A kernel function's arguments by name at its return (`args.count` at
//! `kretfunc:vfs_read`), as bpftrace's kretfunc/fexit read them: a fexit program finds the
//! function's arguments in its context as an fentry program does, so a clause that reads
//! them attaches as fentry/fexit (ir/fbt_needs.rs). Their names and types are the entry's
//! (DTrace's args[] at a return stay the offset and the return value).

use super::ctypes::{Typed, Val};
use super::*;
use crate::ir::IntFn;
use crate::types::TypeId;
use crate::providers::{provider, ArgType, Probe};

impl Checker<'_> {
    /// Whether every probe of the clause is the return of a kernel function (fbt).
    pub(super) fn clause_on_fbt_returns(&self) -> bool {
        !self.clause_probes.is_empty() && self.clause_probes.iter().all(|p| p.provider == "fbt" && p.name == "return")
    }

    /// `args.name` at fbt return probes: the argument of that name in every probe's
    /// function, at one position with one type.
    pub(super) fn return_args_named(&mut self, name: &str, span: &Span) -> Result<Typed, Diagnostic> {
        let facts = self.opts.facts.clone();
        let fbt = provider("fbt").expect("fbt is a provider");
        let mut at: Option<(usize, TypeId, String)> = None;
        for p in self.clause_probes.clone() {
            let entry = Probe { name: "entry", ..p.clone() };
            let what = format!("{}()", p.function);
            let names = fbt.arg_names(&entry, facts.as_deref()).unwrap_or_default();
            let Some(n) = names.iter().position(|a| a == name) else {
                let hint = match names.is_empty() {
                    true => "its prototype names no arguments".to_string(),
                    false => format!("its arguments: {}", names.join(", ")),
                };
                return Err(Diagnostic::new(span.clone(), format!("{what} has no argument `{name}`")).label("no such argument").hint(hint));
            };
            let types: Vec<ArgType> = fbt.arg_types(&entry, facts.as_deref()).and_then(Result::ok).unwrap_or_default();
            let Some(a) = types.get(n) else {
                return Err(Diagnostic::new(span.clone(), format!("the type of {what}'s argument `{name}` is not known")).label("untyped").hint("read it at the entry, kfunc:FUNC, and keep it in a map keyed by tid"));
            };
            let ty = match a.kernel {
                Some(kid) => self.types.kernel(kid),
                None => self.c_type_text(&a.c_type, a.size, a.signed, a.space),
            };
            match &at {
                Some((m, _, first)) if *m != n => {
                    return Err(Diagnostic::new(span.clone(), format!("argument `{name}` is the {m}th of {first} but the {n}th of {what}")).label("different places in this clause's functions").hint("split the clause so each has one prototype"));
                }
                Some((_, t, first)) if self.types.name(*t) != self.types.name(ty) => {
                    let (had, has) = (self.types.name(*t), self.types.name(ty));
                    return Err(Diagnostic::new(span.clone(), format!("argument `{name}` is `{had}` in {first} but `{has}` in {what}")).label("two types in this clause's functions").hint("split the clause so each has one prototype"));
                }
                Some(_) => {}
                None => at = Some((n, ty, what)),
            }
        }
        let (n, ty, _) = at.expect("the clause has probes");
        // The context holds 64 bits per argument; a narrower one is its low bytes.
        let arg = TExpr::new(Expr::IntCall { f: IntFn::FunctionArg(n as u8), args: Vec::new() }, self.c_int("int64_t"));
        let repr = self.int_repr(ty);
        Ok(Typed { val: Val::Value(self.fit(&arg, repr)), ty })
    }
}

#[cfg(test)]
mod tests {
    use crate::check::CheckOptions;
    use crate::dialect::Dialect;

    fn compile(src: &str) -> Result<crate::ir::Program, crate::diag::Diagnostic> {
        crate::compile(src, &CheckOptions { dialect: Some(Dialect::Bpftrace), facts: Some(std::rc::Rc::new(crate::facts::sample::SampleKernel)), ..Default::default() })
    }

    #[test]
    fn arguments_by_name_at_a_return_need_a_trampoline() {
        let p = compile("kretfunc:vfs_read { @[args.count, retval] = count(); }").unwrap_or_else(|d| panic!("{}", d.message));
        assert!(p.fbt_needs().trampoline);
        let p = compile("kretfunc:vfs_read { @[retval] = count(); }").unwrap();
        assert!(!p.fbt_needs().trampoline);
        let src = "fexit:vfs_read { @[args.nope] = count(); }";
        let d = compile(src).unwrap_err();
        assert_eq!((d.message.as_str(), &src[d.span.clone()]), ("vfs_read() has no argument `nope`", "args.nope"));
        assert!(d.hint.as_deref().is_some_and(|h| h.contains("count")), "{:?}", d.hint);
    }
}
