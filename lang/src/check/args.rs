//! Probe arguments with C types: `args[N]` from the prototype of the clause's probes (each
//! provider's `arg_types`), and the C types written in prototypes and tracepoint formats.
//! Where a clause's probes disagree, integers meet at their common type; anything else is
//! an error that names both.

use super::ctypes::{Typed, Val};
use super::*;
use crate::providers::{provider, ArgType, Probe};
use crate::types::{AddrSpace, IntType, Type, TypeId};

/// What a clause's probes are, for the error when they type one expression differently.
pub(super) struct Across {
    probes: &'static str,
    hint: &'static str,
}

pub(super) const PROTOTYPES: Across = Across { probes: "probes", hint: "split the clause so each has one prototype" };
pub(super) const TRACEPOINTS: Across = Across { probes: "tracepoints", hint: "split the clause by tracepoint" };

fn probe_name(p: &Probe) -> String {
    format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name)
}

impl Checker<'_> {
    /// The type C text names (`const char *`, `umode_t`), its pointers into `space`. A name
    /// the kernel's types do not know is an integer of the size the kernel passes (a pointer
    /// to something unknown, a `void *`), so a probe stays usable without every typedef.
    pub(super) fn c_type_text(&mut self, text: &str, size: u8, signed: bool, space: AddrSpace) -> TypeId {
        if let Some(t) = crate::types::type_name_from_c(text, 0..0) {
            if let Ok(id) = self.type_of_name_in(&t, space) {
                return id;
            }
        }
        if text.contains('*') {
            let void = self.types.void();
            return self.types.pointer(void, space);
        }
        self.types.int_of(IntType::named(text, size, signed))
    }

    /// Whether `ty` is a pointer into the traced process.
    pub(super) fn is_user_pointer(&mut self, ty: TypeId) -> bool {
        matches!(self.types.real(ty), Ok(Type::Ptr { space: AddrSpace::User, .. }))
    }

    /// The type two probes' values of one expression meet at: the same type, or two
    /// integers' common type; None if they cannot meet.
    pub(super) fn meet(&mut self, a: TypeId, b: TypeId) -> Option<TypeId> {
        if a == b {
            return Some(a);
        }
        let (Ok(Some(x)), Ok(Some(y))) = (self.types.as_int(a), self.types.as_int(b)) else { return None };
        if (x.size, x.signed) == (y.size, y.signed) {
            return Some(a);
        }
        Some(self.types.int_of(crate::types::arithmetic(&x, &y)))
    }

    /// The type a clause's probes so far (`found`: the type they meet at and the first of
    /// them) and one more (`here`, of type `ty`) give one expression (`what`), or an error
    /// naming both types.
    pub(super) fn meet_across(&mut self, found: Option<(TypeId, String)>, ty: TypeId, here: String, what: &str, across: &Across, span: &Span) -> Result<(TypeId, String), Diagnostic> {
        let Some((prev, first)) = found else { return Ok((ty, here)) };
        match self.meet(prev, ty) {
            Some(t) => Ok((t, first)),
            None => {
                let (was, is) = (self.types.name(prev), self.types.name(ty));
                Err(Diagnostic::new(span.clone(), format!("{what} is `{was}` in {first} but `{is}` in {here}")).label(format!("different types in this clause's {}", across.probes)).hint(across.hint))
            }
        }
    }

    /// `args[N]`: the clause's probes' argument N, typed by their prototypes.
    pub(super) fn args_index(&mut self, index: &ast::Expr, span: &Span) -> Result<Typed, Diagnostic> {
        let n = match &index.kind {
            ExprKind::Int(n, _) if (0..10).contains(n) => *n as usize,
            _ => return Err(Diagnostic::new(index.span.clone(), "args[] takes a constant index from 0 to 9").label("not 0..9").hint("write args[0], args[1], ...")),
        };
        if self.clause_probes.is_empty() {
            return Err(Diagnostic::new(span.clone(), "args[] needs a probe").label("outside a clause").hint("use args[N] in a probe clause"));
        }
        if self.stable_clause(span)? {
            return self.stable_args_index(n, span);
        }
        // Found once per clause: a clause on many probes reads every prototype.
        let ty = match self.clause_arg_types.get(&n) {
            Some(ty) => *ty,
            None => {
                let ty = self.arg_type_across(n, index, span)?;
                self.clause_arg_types.insert(n, ty);
                ty
            }
        };
        // The register holds 64 bits; a narrower argument is its low bytes.
        let arg = TExpr::new(Expr::Var(VarHook::Arg(n as u8)), self.c_int("int64_t"));
        let repr = self.int_repr(ty);
        Ok(Typed { val: Val::Value(self.fit(&arg, repr)), ty })
    }

    /// The type of argument `n` of every probe of the clause, or an error naming one that
    /// has none or another.
    fn arg_type_across(&mut self, n: usize, index: &ast::Expr, span: &Span) -> Result<TypeId, Diagnostic> {
        let facts = self.opts.facts.clone();
        let mut found: Option<(TypeId, String)> = None;
        for p in self.clause_probes.clone() {
            let Some(types) = provider(p.provider).and_then(|prov| prov.arg_types(&p, facts.as_deref())) else {
                return Err(Diagnostic::new(span.clone(), format!("the arguments of {} have no types", probe_name(&p)))
                    .label("args[] is not typed here")
                    .hint(format!("use arg{n} (an int64_t), and cast it to what it is, e.g. (struct file *)arg{n}")));
            };
            let types: Vec<ArgType> = types.map_err(|e| {
                Diagnostic::new(span.clone(), format!("cannot read the argument types of {}: {e}", probe_name(&p))).label("args[] needs them").hint(format!("use arg{n} (an int64_t) instead"))
            })?;
            let Some(a) = types.get(n) else {
                let has = match types.len() {
                    0 => "no arguments".to_string(),
                    1 => "one argument, args[0]".to_string(),
                    k => format!("{k} arguments, args[0] to args[{}]", k - 1),
                };
                return Err(Diagnostic::new(index.span.clone(), format!("{} has {has}", probe_name(&p))).label("no such argument").hint("count from 0"));
            };
            let ty = match a.kernel {
                Some(kid) => self.types.kernel(kid),
                None => self.c_type_text(&a.c_type, a.size, a.signed, a.space),
            };
            found = Some(self.meet_across(found, ty, probe_name(&p), &format!("args[{n}]"), &PROTOTYPES, span)?);
        }
        Ok(found.expect("the clause has probes").0)
    }
}
