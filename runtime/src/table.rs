//! An aggregation's tables (see `crumbs_ebpf::abi::table`), mapped into this process so they read
//! without a system call per key. The CPUs' tables lie end to end, so slot `s` of CPU `c` is
//! slot `c * slots + s` here.
//!
//! The programs keep writing while we read: every access is a volatile access to one
//! aligned 64-bit word, as the programs' own loads and stores are.

use crumbs_ebpf::abi::table::{Layout, EMPTY, READY};
use std::io;
use std::os::fd::RawFd;
use std::ptr::NonNull;

pub struct Table {
    words: NonNull<u64>,
    len: usize,
    pub layout: Layout,
}

impl Table {
    /// Maps the array `fd` laid out as `layout`.
    pub fn map(fd: RawFd, layout: Layout) -> io::Result<Table> {
        let bytes = layout.cpus as usize * layout.table_size();
        // SAFETY: a fresh shared mapping of the map's memory; the kernel checks the length.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), bytes.max(1), libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0) };
        if p == libc::MAP_FAILED {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(e.kind(), format!("cannot map an aggregation table into memory: {e}")));
        }
        let words = NonNull::new(p.cast::<u64>()).ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(Table { words, len: bytes / 8, layout })
    }

    fn index(&self, slot: usize, byte_offset: usize) -> usize {
        let i = (slot * self.layout.slot_size() + byte_offset) / 8;
        assert!(i < self.len, "word {i} outside the table");
        i
    }

    fn word(&self, slot: usize, byte_offset: usize) -> u64 {
        // SAFETY: in bounds (checked), aligned (slots and fields are multiples of 8 bytes from a
        // page boundary), and mapped while `self` lives.
        unsafe { self.words.as_ptr().add(self.index(slot, byte_offset)).read_volatile() }
    }

    fn set_word(&self, slot: usize, byte_offset: usize, v: u64) {
        // SAFETY: as in `word`; the mapping is writable.
        unsafe { self.words.as_ptr().add(self.index(slot, byte_offset)).write_volatile(v) }
    }

    fn bytes(&self, slot: usize, byte_offset: usize, len: usize) -> Vec<u8> {
        (0..len / 8).flat_map(|w| self.word(slot, byte_offset + 8 * w).to_le_bytes()).collect()
    }

    /// Every slot that holds a key, on every CPU: (slot, key bytes, value bytes).
    pub fn entries(&self) -> impl Iterator<Item = (usize, Vec<u8>, Vec<u8>)> + '_ {
        let l = self.layout;
        (0..l.cpus as usize * l.slots as usize).filter(move |s| self.word(*s, 0) == READY).map(move |s| {
            let key = self.bytes(s, l.key_offset(), l.key_size);
            let value = self.bytes(s, l.value_offset(), l.value_size);
            (s, key, value)
        })
    }

    /// Frees a slot (its key is gone from that CPU's table).
    pub fn free(&self, slot: usize) {
        self.set_word(slot, 0, EMPTY);
    }

    /// Zeroes a slot's value, keeping its key.
    pub fn zero_value(&self, slot: usize) {
        let l = self.layout;
        for w in 0..l.value_size / 8 {
            self.set_word(slot, l.value_offset() + 8 * w, 0);
        }
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, unmapped once.
        unsafe { libc::munmap(self.words.as_ptr().cast(), (self.len * 8).max(1)) };
    }
}
