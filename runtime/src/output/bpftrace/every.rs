//! The maps bpftrace prints when tracing ends: every aggregation and every map of values,
//! together, sorted bytewise by name (so `@` comes first), whatever the output format.

use super::super::AggRow;
use super::maps::AggMap;
use crate::value_maps::ValueMap;
use crumbs_lang::ir::Aggregation;

/// One map at the end: an aggregation with its rows, or a map of values.
pub enum AnyMap<'a> {
    Agg(AggMap<'a>, &'a [AggRow]),
    Values(&'a ValueMap),
}

impl AnyMap<'_> {
    /// The name without `@`.
    pub fn name(&self) -> &str {
        match self {
            AnyMap::Agg(m, _) => m.name,
            AnyMap::Values(v) => v.name.trim_start_matches('@'),
        }
    }
}

/// Every map by name: the `aggregations` (by id, `stats[id]` saying which are stats())
/// with their `rows` (by id; missing ones have none), and the maps of `values`.
pub fn by_name<'a>(aggregations: &'a [Aggregation], stats: &[bool], rows: &'a [Vec<AggRow>], values: &'a [ValueMap]) -> Vec<AnyMap<'a>> {
    let mut all: Vec<AnyMap> = Vec::new();
    for (id, agg) in aggregations.iter().enumerate() {
        let r = rows.get(id).map_or(&[][..], |r| &r[..]);
        all.push(AnyMap::Agg(AggMap::of(agg, stats.get(id).copied().unwrap_or(false)), r));
    }
    all.extend(values.iter().map(AnyMap::Values));
    all.sort_by(|a, b| a.name().as_bytes().cmp(b.name().as_bytes()));
    all
}
