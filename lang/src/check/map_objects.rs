//! The C types of the structs, unions and arrays bpftrace's maps keep (`@m[k] =
//! *curtask->fs`, `@s[*curtask->cred] = count()`): output prints such a value or key by its
//! members, as bpftrace does, rather than as bytes.

use super::*;
use crate::ir::{Aggregation, MapSlot};
use std::collections::BTreeMap;
use std::sync::Arc;

impl Checker<'_> {
    /// Each bpftrace map's struct, union or array values and keys with their layouts.
    pub(super) fn map_objects(&mut self, arrays: &[Array], aggs: &[Aggregation]) -> BTreeMap<MapSlot, Arc<Layout>> {
        let mut out = BTreeMap::new();
        if !self.bpftrace() {
            return out;
        }
        for (id, a) in arrays.iter().enumerate().filter(|(_, a)| a.keeps_zero) {
            if matches!(a.value, Repr::Object(_)) {
                if let Some(t) = self.var_types.get(&VarRef::Array(id)).copied() {
                    self.keep_layout(&mut out, MapSlot::Value(id), t);
                }
            }
            // An element map of a map of tuples (`@m.1`) has the keys of the user's `@m`.
            let user = crate::tuples::split_element_name(&a.name).map_or(a.name.as_str(), |(base, _)| base);
            let owner = keys::KeyOwner { kind: "associative array", name: user }.id();
            self.keep_key_layouts(&mut out, &a.keys, &owner, |i| MapSlot::ArrayKey(id, i));
        }
        for (id, a) in aggs.iter().enumerate() {
            let owner = keys::KeyOwner { kind: "aggregation", name: &format!("@{}", a.name) }.id();
            self.keep_key_layouts(&mut out, &a.keys, &owner, |i| MapSlot::AggKey(id, i));
        }
        out
    }

    fn keep_key_layouts(&mut self, out: &mut BTreeMap<MapSlot, Arc<Layout>>, keys: &[Repr], owner: &str, slot: impl Fn(usize) -> MapSlot) {
        for (i, _) in keys.iter().enumerate().filter(|(_, r)| matches!(r, Repr::Object(_))) {
            if let Some(t) = self.key_types.get(&(owner.to_string(), i)).copied() {
                self.keep_layout(out, slot(i), t);
            }
        }
    }

    /// Type `t`'s layout at `slot` if it is a struct, union or array (an unknown type's is
    /// left out: output prints its bytes).
    fn keep_layout(&mut self, out: &mut BTreeMap<MapSlot, Arc<Layout>>, slot: MapSlot, t: crate::types::TypeId) {
        if let Ok(layout) = self.layout_of(t) {
            if matches!(layout.shape, crate::ir::layout::Shape::Record { .. } | crate::ir::layout::Shape::Array { .. }) {
                out.insert(slot, Arc::new(layout));
            }
        }
    }
}
