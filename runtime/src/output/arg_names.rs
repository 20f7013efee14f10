//! Names for the values a firing outputs, for the structured outputs that name them (Chrome
//! trace events' `args`, JSON lines' `names`): each value is named after the source text
//! of its expression as parquet names its columns (`this->bytes` -> `bytes`, `arg2`,
//! `args[0]`), `vN` (its place among the record's values) where it has none; [`Unique`]
//! makes one event's names distinct. spec.md §9.11, §9.12.

use super::{Firing, Output};
use crumbs_lang::ir::{Item, Record};
use std::collections::HashMap;
use std::rc::Rc;

/// Each record's value names, by item, worked out the first time the record is seen (so a
/// firing clones a few reference counts, not strings).
#[derive(Default)]
pub struct ArgNames {
    records: HashMap<u32, Rc<[Vec<Rc<str>>]>>,
}

/// The name a value gets, by item and position, before names are made distinct.
fn record_names(record: &Record) -> Rc<[Vec<Rc<str>>]> {
    let mut n = 0;
    let mut by_item = Vec::with_capacity(record.items.len());
    for (i, item) in record.items.iter().enumerate() {
        let count = match item {
            Item::Trace(_) | Item::Print(..) => 1,
            Item::Printf { args, .. } => args.len(),
            _ => 0,
        };
        let sources = record.sources.get(i);
        let names = (0..count)
            .map(|a| {
                n += 1;
                let named = sources.and_then(|s| s.get(a)).map(|s| s.column()).filter(|c| !c.is_empty());
                Rc::from(named.unwrap_or_else(|| format!("v{n}")))
            })
            .collect();
        by_item.push(names);
    }
    by_item.into()
}

impl ArgNames {
    /// The name of each value firing `f` output, in order: printf()'s arguments after the
    /// format, trace()'s and print()'s value (the order the sinks list the values in).
    pub fn names(&mut self, f: &Firing) -> Vec<Rc<str>> {
        let names = self.records.entry(f.record).or_insert_with(|| f.program.records.get(f.record as usize).map_or_else(|| Rc::from([]), record_names));
        let mut out: Vec<Rc<str>> = Vec::new();
        for (k, o) in f.outputs.iter().enumerate() {
            let item: &[Rc<str>] = f.items.get(k).and_then(|&i| names.get(i as usize)).map_or(&[], |v| v.as_slice());
            let count = match o {
                Output::Printf { values, .. } => values.len(),
                Output::Trace(_) | Output::Print { .. } => 1,
                _ => 0,
            };
            for a in 0..count {
                let name = item.get(a).cloned().unwrap_or_else(|| Rc::from(format!("v{}", out.len() + 1)));
                out.push(name);
            }
        }
        out
    }
}

/// The names one event has given out: a name taken again gets `_2`, `_3`...; on the return
/// side of a span, `ret_` in front first.
#[derive(Default)]
pub struct Unique {
    taken: Vec<Rc<str>>,
}

impl Unique {
    /// A distinct name for `base`; `ret`: it names a return probe's value in a span.
    pub fn name(&mut self, base: &Rc<str>, ret: bool) -> Rc<str> {
        let first = if !self.taken.contains(base) {
            base.clone()
        } else if ret {
            Rc::from(format!("ret_{base}"))
        } else {
            base.clone()
        };
        let mut name = first.clone();
        let mut k = 2;
        while self.taken.contains(&name) {
            name = Rc::from(format!("{first}_{k}"));
            k += 1;
        }
        self.taken.push(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_distinct_return_side_first_with_ret() {
        let mut u = Unique::default();
        let n = |u: &mut Unique, s: &str, ret| u.name(&Rc::from(s), ret).to_string();
        assert_eq!([n(&mut u, "arg0", false), n(&mut u, "arg0", false), n(&mut u, "size", false)], ["arg0", "arg0_2", "size"]);
        assert_eq!([n(&mut u, "arg1", true), n(&mut u, "arg0", true), n(&mut u, "arg0", true), n(&mut u, "arg0_2", true)], ["arg1", "ret_arg0", "ret_arg0_2", "ret_arg0_2_2"]);
    }

    #[test]
    fn records_name_values_after_their_source() {
        let p = crumbs_lang::compile(r#"BEGIN { this->bytes = 1; self->ts = 2; trace(this->bytes); printf("%d %s", 2 + 3, "x"); trace(self->ts); stack(); }"#, &Default::default()).unwrap();
        let names = record_names(&p.records[0]);
        let flat: Vec<&str> = names.iter().flatten().map(|n| &**n).collect();
        assert_eq!(flat, ["bytes", "2 + 3", "\"x\"", "ts", "stack()"]);
    }
}
