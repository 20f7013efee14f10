//! Current bpftrace's `&$a`: the address of a scratch variable, where the clause keeps it (on
//! the BPF stack, or in scratch memory for a string or struct). It is a kernel pointer to the
//! variable's type, valid while the clause runs: read through it (`*$p`, `str($p)`), pass it
//! where a pointer goes, or print it.

use super::ctypes::{Typed, Val};
use super::*;
use crate::types::AddrSpace;
use vars::VarRef;

impl Checker<'_> {
    /// `&$name`.
    pub(super) fn scratch_address(&mut self, name: &str, span: &Span) -> Result<Typed, Diagnostic> {
        let slot = self.clause_locals.iter().position(|n| n == name);
        let Some((l, ty)) = slot.and_then(|l| Some((l, *self.var_types.get(&VarRef::Clause(l))?))) else {
            return Err(Diagnostic::new(span.clone(), format!("Undefined or undeclared variable: {name}"))
                .label("no value yet")
                .hint(format!("assign the variable before taking its address: `{name} = 0; $p = &{name};`")));
        };
        if self.printed_of(ty).is_some() {
            return Err(Diagnostic::new(span.clone(), format!("cannot take the address of {name}, which holds a value printed as text"))
                .label("a stack, symbol or other printed value")
                .hint("take the address of an integer, string or struct variable"));
        }
        let pointer = self.types.pointer(ty, AddrSpace::Kernel);
        Ok(Typed { val: Val::Value(Expr::VarAddr(StrVar::Clause(l))), ty: pointer })
    }
}
