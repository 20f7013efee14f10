//! bpftrace's maps of values (`@m[k] = v`, `@v = 3`): the associative arrays and global
//! variables the checker names with their `@`, read back from the kernel when tracing ends
//! (bpftrace prints every map then) and emptied by `clear(@m)`.

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
    /// The globals area (one element of every global's bytes) and its size.
    globals: Option<(RawFd, usize)>,
}

impl ValueMaps {
    pub fn new(arrays: Vec<Option<RawFd>>, globals: Option<(RawFd, usize)>) -> Self {
        ValueMaps { arrays, globals }
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

    /// Every map of values with what it holds now, in the order the program names them
    /// (arrays, then globals); a global that holds 0 or "" has no row, as bpftrace prints
    /// no map that was never assigned.
    pub fn read(&self, program: &Program, dec: &Decoder) -> io::Result<Vec<ValueMap>> {
        let mut out = Vec::new();
        for (id, a) in program.arrays.iter().enumerate() {
            let Some(fd) = self.arrays.get(id).copied().flatten() else { continue };
            if !a.name.starts_with('@') || a.thread {
                continue;
            }
            let key_size = a.key_size().max(1);
            let mut value = vec![0u8; a.value.size().next_multiple_of(8)];
            let mut rows = Vec::new();
            let mut key: Option<Vec<u8>> = None;
            while let Some(k) = sys::next_key(fd, key.as_deref(), key_size)? {
                if sys::lookup(fd, &k, &mut value)? {
                    rows.push((aggregate::decode_keys(&k, &a.keys, dec), aggregate::decode_value(a.value, &value, dec)));
                }
                key = Some(k);
            }
            out.push(ValueMap { name: a.name.clone(), rows });
        }
        let Some((fd, size)) = self.globals else { return Ok(out) };
        let mut area = vec![0u8; size.max(program.globals_size())];
        if program.globals.is_empty() || !sys::lookup(fd, &0u32.to_ne_bytes(), &mut area)? {
            return Ok(out);
        }
        for (g, v) in program.globals.iter().enumerate() {
            if !v.name.starts_with('@') {
                continue;
            }
            let at = program.global_offset(g);
            let value = aggregate::decode_value(v.repr, &area[at..at + v.repr.size()], dec);
            let unset = matches!(&value, Value::Int(0, _)) || matches!(&value, Value::Str(s) if s.is_empty());
            out.push(ValueMap { name: v.name.clone(), rows: if unset { Vec::new() } else { vec![(Vec::new(), value)] } });
        }
        Ok(out)
    }
}
