//! bpftrace's maps of values (`@m[k] = v`, `@v = 3`): the associative arrays the checker
//! names with their `@` (a map without keys is an array of one element), read back from the
//! kernel when tracing ends (bpftrace prints every map then) and emptied by `clear(@m)`.

use crate::aggregate::{self, Decoder};
use crate::output::Value;
use crate::sys;
use crumbs_lang::ir::Program;
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

    /// Every map of values with what it holds now, in the order the program names them.
    pub fn read(&self, program: &Program, dec: &Decoder) -> io::Result<Vec<ValueMap>> {
        (0..program.arrays.len()).filter(|id| self.arrays.get(*id).copied().flatten().is_some()).map(|id| self.read_array(program, id, dec)).collect()
    }

    /// What map of values `id` (an associative array's id) holds now.
    pub fn read_array(&self, program: &Program, id: usize, dec: &Decoder) -> io::Result<ValueMap> {
        let a = &program.arrays[id];
        let mut rows = Vec::new();
        if let Some(fd) = self.arrays.get(id).copied().flatten() {
            let key_size = a.key_size();
            let mut value = vec![0u8; a.value.size().next_multiple_of(8)];
            let mut key: Option<Vec<u8>> = None;
            while let Some(k) = sys::next_key(fd, key.as_deref(), key_size)? {
                if sys::lookup(fd, &k, &mut value)? {
                    rows.push((aggregate::decode_keys(&k, &a.keys, dec), aggregate::decode_value(a.value, &value, dec)));
                }
                key = Some(k);
            }
        }
        Ok(ValueMap { name: a.name.clone(), rows })
    }
}
