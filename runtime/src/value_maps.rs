//! bpftrace's maps of values (`@m[k] = v`, `@v = 3`): the associative arrays the checker
//! names with their `@` (a map without keys is an array of one element), read back from the
//! kernel when tracing ends (bpftrace prints every map then) and emptied by `clear(@m)`.
//! A map of tuples or records is a map per element (`@m.0`, `@m.1.0`, `@r.size`, ...:
//! lang's tuples.rs), read back as one map whose values are the tuples or records.

use crate::aggregate::{self, Decoder};
use crate::output::Value;
use crate::sys;
use crumbs_lang::ir::{MapSlot, Program};
use crumbs_lang::tuples::{split_element_name, Step};
use std::io;
use std::os::fd::RawFd;

/// One map's name (with its `@`) and its rows: keys (none for a global) and value.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueMap {
    pub name: String,
    pub rows: Vec<(Vec<Value>, Value)>,
}

/// The kernel maps holding a program's maps of values.
#[derive(Default)]
pub struct ValueMaps {
    /// By associative array id: its hash map, for those named `@...`.
    arrays: Vec<Option<RawFd>>,
}

impl ValueMaps {
    pub fn new(arrays: Vec<Option<RawFd>>) -> Self {
        ValueMaps { arrays }
    }

    /// `clear(@m)`: every element of associative array `id` deleted.
    pub fn clear(&self, program: &Program, id: usize) -> io::Result<()> {
        let Some(fd) = self.arrays.get(id).copied().flatten() else { return Ok(()) };
        let size = program.arrays[id].key_size().max(1);
        // Deleting while walking restarts at the first key each time: never skips one.
        while let Some(k) = sys::next_key(fd, None, size)? {
            sys::delete(fd, &k)?;
        }
        Ok(())
    }

    /// The elements of associative array `id` whose key bytes `keep` refuses deleted.
    pub fn retain(&self, program: &Program, id: usize, keep: impl Fn(&[u8]) -> bool) -> io::Result<()> {
        let Some(fd) = self.arrays.get(id).copied().flatten() else { return Ok(()) };
        let size = program.arrays[id].key_size().max(1);
        let mut gone = Vec::new();
        let mut key: Option<Vec<u8>> = None;
        while let Some(k) = sys::next_key(fd, key.as_deref(), size)? {
            if !keep(&k) {
                gone.push(k.clone());
            }
            key = Some(k);
        }
        gone.iter().try_for_each(|k| sys::delete(fd, k))
    }

    /// bpftrace's `zero()` of map of values `id`: each element's value set to zero bytes,
    /// its key kept.
    pub fn zero(&self, program: &Program, id: usize) -> io::Result<()> {
        let Some(fd) = self.arrays.get(id).copied().flatten() else { return Ok(()) };
        let a = &program.arrays[id];
        let zero = vec![0u8; a.value.size().next_multiple_of(8)];
        let mut key: Option<Vec<u8>> = None;
        while let Some(k) = sys::next_key(fd, key.as_deref(), a.key_size().max(1))? {
            sys::update_existing(fd, &k, &zero)?;
            key = Some(k);
        }
        Ok(())
    }

    /// Every map of values with what it holds now, in the order the program names them (a
    /// map of tuples where its first element's map is).
    pub fn read(&self, program: &Program, dec: &Decoder) -> io::Result<Vec<ValueMap>> {
        let mut out = Vec::new();
        let mut tuple_maps = Vec::new();
        // The maps keeping aggregations' read values are not the program's maps.
        for id in (0..program.arrays.len()).filter(|id| program.arrays[*id].keeps_zero && self.arrays.get(*id).copied().flatten().is_some()) {
            if let Some((base, _)) = split_element_name(&program.arrays[id].name) {
                if tuple_maps.contains(&base) {
                    continue;
                }
                tuple_maps.push(base);
            }
            out.push(self.read_array(program, id, dec)?);
        }
        Ok(out)
    }

    /// What map of values `id` (an associative array's id) holds now: the whole map of
    /// tuples if it is one of its elements' maps.
    pub fn read_array(&self, program: &Program, id: usize, dec: &Decoder) -> io::Result<ValueMap> {
        match split_element_name(&program.arrays[id].name) {
            Some((base, _)) => self.read_tuples(program, base, dec),
            None => self.read_plain(program, id, dec),
        }
    }

    /// Map of tuples `base`: the keys of its first element's map, each with the tuple of
    /// every element's value under that key.
    fn read_tuples(&self, program: &Program, base: &str, dec: &Decoder) -> io::Result<ValueMap> {
        let mut members: Vec<(Vec<Step>, usize)> = program.arrays.iter().enumerate().filter_map(|(i, a)| split_element_name(&a.name).filter(|(b, _)| *b == base).map(|(_, p)| (p, i))).collect();
        members.sort();
        let mut rows = Vec::new();
        let first = &program.arrays[members[0].1];
        if let Some(fd) = self.arrays.get(members[0].1).copied().flatten() {
            let mut key: Option<Vec<u8>> = None;
            while let Some(k) = sys::next_key(fd, key.as_deref(), first.key_size())? {
                let mut leaves = Vec::new();
                for (path, id) in &members {
                    let a = &program.arrays[*id];
                    let mut value = vec![0u8; a.value.size().next_multiple_of(8)];
                    if let Some(fd) = self.arrays.get(*id).copied().flatten() {
                        sys::lookup(fd, &k, &mut value)?;
                    }
                    leaves.push((path.as_slice(), with_layout(program, aggregate::decode_value(a.value, &value, dec), MapSlot::Value(*id))));
                }
                let keys = with_layouts(program, aggregate::decode_keys(&k, &first.keys, dec), |i| MapSlot::ArrayKey(members[0].1, i));
                rows.push((nest_keys(program, &base[1..], keys), nest(&leaves)));
                key = Some(k);
            }
        }
        Ok(ValueMap { name: base.to_string(), rows })
    }

    /// What plain map of values `id` holds now.
    fn read_plain(&self, program: &Program, id: usize, dec: &Decoder) -> io::Result<ValueMap> {
        let a = &program.arrays[id];
        let mut rows = Vec::new();
        if let Some(fd) = self.arrays.get(id).copied().flatten() {
            let key_size = a.key_size();
            let mut value = vec![0u8; a.value.size().next_multiple_of(8)];
            let mut key: Option<Vec<u8>> = None;
            while let Some(k) = sys::next_key(fd, key.as_deref(), key_size)? {
                if sys::lookup(fd, &k, &mut value)? {
                    let keys = with_layouts(program, aggregate::decode_keys(&k, &a.keys, dec), |i| MapSlot::ArrayKey(id, i));
                    rows.push((nest_keys(program, &a.name[1..], keys), with_layout(program, aggregate::decode_value(a.value, &value, dec), MapSlot::Value(id))));
                }
                key = Some(k);
            }
        }
        Ok(ValueMap { name: a.name.clone(), rows })
    }
}

/// A struct, union or array a bpftrace map keeps at `slot`, with the C type's layout it
/// prints by ([`Program::map_objects`]); any other value as it is.
pub fn with_layout(program: &Program, value: Value, slot: MapSlot) -> Value {
    match (value, program.map_objects.get(&slot)) {
        (Value::Bytes(b), Some(layout)) => Value::Object(b, layout.clone()),
        (v, _) => v,
    }
}

/// A map's keys, each struct, union or array among them with its layout (key `i` is at
/// `slot(i)`).
pub fn with_layouts(program: &Program, keys: Vec<Value>, slot: impl Fn(usize) -> MapSlot) -> Vec<Value> {
    keys.into_iter().enumerate().map(|(i, k)| with_layout(program, k, slot(i))).collect()
}

/// Map `@name`'s keys as bpftrace prints them: a tuple or record among them (current
/// bpftrace's `@m[1, (2, 3)]`) nested again from the scalar keys it was stored as.
pub fn nest_keys(program: &Program, name: &str, keys: Vec<Value>) -> Vec<Value> {
    let Some(paths) = program.key_paths.get(name) else { return keys };
    let steps: Option<Vec<Vec<Step>>> = paths.iter().map(|p| split_element_name(&format!("k{p}")).map(|(_, s)| s)).collect();
    let Some(steps) = steps.filter(|s| s.len() == keys.len()) else { return keys };
    let leaves: Vec<(&[Step], Value)> = steps.iter().map(Vec::as_slice).zip(keys).collect();
    match nest(&leaves) {
        Value::Tuple(elems) => elems,
        one => vec![one],
    }
}

/// A tuple or record from its scalar elements and their paths, in order (`[0]`, `[1, 0]`,
/// `[1, 1]`): `(a, (b, c))`; a level whose steps are fields' names is a record.
fn nest(leaves: &[(&[Step], Value)]) -> Value {
    match leaves {
        [([], v)] => v.clone(),
        _ => {
            let mut elems = Vec::new();
            let mut rest = leaves;
            while let Some(((path, _), _)) = rest.split_first() {
                let n = rest.iter().take_while(|(p, _)| p.first() == path.first()).count();
                let inner: Vec<(&[Step], Value)> = rest[..n].iter().map(|(p, v)| (&p[1..], v.clone())).collect();
                elems.push((path.first().cloned(), nest(&inner)));
                rest = &rest[n..];
            }
            match elems.first() {
                Some((Some(Step::Field(_)), _)) => Value::Record(elems.into_iter().map(|(s, v)| (if let Some(Step::Field(n)) = s { n } else { String::new() }, v)).collect()),
                _ => Value::Tuple(elems.into_iter().map(|(_, v)| v).collect()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_nest_by_their_paths() {
        let (a, b, c) = (Value::long(1), Value::Str("b".into()), Value::long(3));
        let (i, f) = (Step::Index, |n: &str| Step::Field(n.into()));
        let (p0, p10, p11) = ([i(0)], [i(1), f("color")], [i(1), f("size")]);
        let leaves: Vec<(&[Step], Value)> = vec![(&p0, a.clone()), (&p10, b.clone()), (&p11, c.clone())];
        assert_eq!(nest(&leaves), Value::Tuple(vec![a, Value::Record(vec![("color".into(), b), ("size".into(), c)])]));
    }
}
