//! Current bpftrace's `&@map` (its MapAddr): the map's own address, the kernel's `struct
//! bpf_map` (what bpftrace's standard library passes to the map helpers), typed as bpftrace
//! types it, a kernel pointer to the map's value type. It can be stored, compared, cast and
//! printed; what it points at is the map, not a value, so `*&@m` and `(&@m)->x` are refused.

use super::*;
use crate::types::AddrSpace;
use ctypes::{Typed, Val};
use vars::VarRef;

impl Checker<'_> {
    /// `&@a`: map `@a`'s address.
    pub(super) fn map_address(&mut self, a: &ast::AggRef) -> Result<Typed, Diagnostic> {
        if !a.keys.is_empty() {
            return Err(Diagnostic::new(a.span.clone(), format!("`&` takes a whole map, not an element of `@{}`", a.name))
                .label("an element")
                .hint(format!("write &@{}; to point at an element's value, copy it into a scratch variable: `$v = @{}[k]; $p = &$v;`", a.name, a.name)));
        }
        if self.aggregation_id(&a.name).is_some() || self.aggregation_later(&a.name) {
            return Err(Diagnostic::new(a.span.clone(), format!("the address of aggregation `@{}` is not in crumbs", a.name))
                .label("an aggregation")
                .hint("crumbs keeps an aggregation in per-CPU tables that user space merges, not in one BPF map; take the address of a map of values"));
        }
        let id = self.map_array(a)?;
        let value = match self.var_types.get(&VarRef::Array(id)).copied() {
            Some(t) => t,
            None => self.c_int("int64_t"),
        };
        Ok(Typed { val: Val::Value(Expr::MapAddr(id)), ty: self.types.pointer(value, AddrSpace::Kernel) })
    }

    /// `*&@m`, `(&@m)->x`, `(&@m)[i]`: the map is no value of its type to read.
    pub(super) fn refuse_read_through_map_address(&self, e: &ast::Expr) -> Result<(), Diagnostic> {
        let ExprKind::AddrOf(inner) = &e.kind else { return Ok(()) };
        let ExprKind::Agg(a) = &inner.kind else { return Ok(()) };
        if !self.bpftrace() {
            return Ok(());
        }
        Err(Diagnostic::new(e.span.clone(), format!("`&@{}` points at the map, not at a value", a.name))
            .label("the map's own address")
            .hint(format!("read the value as @{}[key] (or @{}); &@{} can be stored, compared, cast and printed", a.name, a.name, a.name)))
    }
}
