//! Current bpftrace's reads of an aggregation's value: `if (@c > 10)`, `$x = @s[k]`,
//! `(int64)@c` and `for ($kv : @c)` of a `count`, `sum`, `min`, `max` or `avg`, read as
//! the integer its per-CPU values merge to.
//!
//! crumbs keeps an aggregation in per-CPU tables of its own (§8.4) that only user space
//! merges. An aggregation the program reads also keeps its merged value in maps of values
//! (one per [`ReadPart`]: avg's sum and count), which every update changes atomically in
//! the kernel: a read is then a lookup, and `for` walks them. Their names (`read:@c:0`)
//! start with no `@`, so they are never printed as maps; clear(), zero() and trunc() of the
//! aggregation change them too (runtime's events.rs).

use super::keys::KeyOwner;
use super::*;
use crate::ir::agg::ReadPart;

impl Checker<'_> {
    /// The aggregation `@name` is, if it is one.
    pub(super) fn aggregation_id(&self, name: &str) -> Option<usize> {
        self.aggs.iter().position(|x| x.name == name)
    }

    /// `@a[k]` (or `@a`) of aggregation `id` as a value.
    pub(super) fn agg_read(&mut self, id: usize, a: &ast::AggRef) -> Result<TExpr, Diagnostic> {
        let arrays = self.read_arrays(id, a, "read in an expression")?;
        let first = self.aggs[id].keys.clone();
        let display = format!("@{}", a.name);
        let (mut keys, _) = self.keys(&a.keys, Some(&first), KeyOwner { kind: "aggregation", name: &display }, &a.span)?;
        let ty = self.read_type(id);
        if let [array] = arrays[..] {
            return Ok(TExpr::new(Expr::Element { array, keys }, ty));
        }
        // avg: read twice (sum and count), so keys that change variables are evaluated once.
        let setup = self.keys_read_once(&mut keys, &a.keys)?;
        let avg = average(arrays[0], arrays[1], keys);
        Ok(TExpr::new(if setup.is_empty() { avg } else { Expr::Seq(setup, Box::new(avg)) }, ty))
    }

    /// The maps of values keeping aggregation `id`'s merged value (made at its first read);
    /// an error for a function whose value is not one number.
    pub(super) fn read_arrays(&mut self, id: usize, a: &ast::AggRef, what: &str) -> Result<Vec<usize>, Diagnostic> {
        let Some(parts) = self.aggs[id].kind.read_parts() else {
            let func = self.agg_spans[id].1.clone();
            return Err(Diagnostic::new(a.span.clone(), format!("map `@{}` holds {func}(), which cannot be {what}", a.name))
                .label("an aggregation")
                .related(self.agg_spans[id].0.clone(), "made an aggregation here")
                .hint("count(), sum(), min(), max() and avg() can be read as numbers; print the others with print()"));
        };
        if self.aggs[id].read.is_empty() {
            let ty = self.read_type(id);
            for i in 0..parts.len() {
                let name = format!("read:@{}:{i}", a.name);
                let keys = Some(self.aggs[id].keys.clone());
                self.arrays.push(vars::ArrayVar { name, thread: false, span: a.span.clone(), keys, len: None });
                let array = self.arrays.len() - 1;
                self.var_types.insert(VarRef::Array(array), ty);
                self.aggs[id].read.push(array);
            }
        }
        Ok(self.aggs[id].read.clone())
    }

    /// The C type a read of aggregation `id` gives: a count is unsigned, as bpftrace's.
    pub(super) fn read_type(&mut self, id: usize) -> crate::types::TypeId {
        match self.aggs[id].kind.read_parts() {
            Some([ReadPart::Count]) => self.c_int("uint64_t"),
            _ => self.c_int("int64_t"),
        }
    }

    /// A `for` over aggregation `id`: the map of values it walks and, for avg, the value
    /// each element stands for (its sum, in `sum`, divided by the count kept under the same
    /// keys, the loop's key variables `keys`).
    pub(super) fn agg_loop_value(&mut self, id: usize, sum: usize, keys: &[usize]) -> Expr {
        let arrays = self.aggs[id].read.clone();
        let keys: Vec<Expr> = keys.iter().map(|l| self.var_expr(VarRef::Clause(*l), Vec::new()).expr).collect();
        let count = Expr::Element { array: arrays[1], keys };
        guarded_div(Expr::ClauseLocal(sum), count)
    }
}

/// avg's value: the sum over the count, truncated toward zero; 0 without a count.
fn average(sum: usize, count: usize, keys: Vec<Expr>) -> Expr {
    guarded_div(Expr::Element { array: sum, keys: keys.clone() }, Expr::Element { array: count, keys })
}

fn guarded_div(sum: Expr, count: Expr) -> Expr {
    let none = Expr::Binary(BinOp::Eq, Box::new(count.clone()), Box::new(Expr::Int(0)));
    Expr::Ternary(Box::new(none), Box::new(Expr::Int(0)), Box::new(Expr::Binary(BinOp::Div, Box::new(sum), Box::new(count))))
}
