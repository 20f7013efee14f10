//! The few bpf(2) commands aya does not expose in the form crumbs needs: running a program
//! once (BEGIN/END), and walking maps whose key and value sizes are known only at run time.

use std::io;
use std::os::fd::RawFd;

const BPF_MAP_LOOKUP_ELEM: i32 = 1;
const BPF_MAP_UPDATE_ELEM: i32 = 2;
const BPF_MAP_DELETE_ELEM: i32 = 3;
const BPF_MAP_GET_NEXT_KEY: i32 = 4;
const BPF_PROG_TEST_RUN: i32 = 10;

pub(crate) fn bpf(cmd: i32, attr: &mut [u64; 16]) -> io::Result<i64> {
    // SAFETY: attr is a zeroed bpf_attr-sized buffer whose pointers outlive the call.
    let r = unsafe { libc::syscall(libc::SYS_bpf, cmd, attr.as_mut_ptr(), std::mem::size_of_val(attr)) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// Runs a raw tracepoint program once, now, on this CPU (BPF_PROG_TEST_RUN).
pub fn run_once(prog_fd: RawFd) -> io::Result<()> {
    let mut attr = [0u64; 16];
    attr[0] = prog_fd as u32 as u64;
    bpf(BPF_PROG_TEST_RUN, &mut attr).map(|_| ())
}

/// The key after `key` (or the first key for `None`); `None` at the end.
pub fn next_key(map_fd: RawFd, key: Option<&[u8]>, key_size: usize) -> io::Result<Option<Vec<u8>>> {
    let mut next = vec![0u8; key_size];
    let mut attr = [0u64; 16];
    attr[0] = map_fd as u32 as u64;
    attr[1] = key.map_or(0, |k| k.as_ptr() as u64);
    attr[2] = next.as_mut_ptr() as u64;
    match bpf(BPF_MAP_GET_NEXT_KEY, &mut attr) {
        Ok(_) => Ok(Some(next)),
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Looks up `key`; `out` must be the value size (times the CPU count for per-CPU maps).
pub fn lookup(map_fd: RawFd, key: &[u8], out: &mut [u8]) -> io::Result<bool> {
    let mut attr = [0u64; 16];
    attr[0] = map_fd as u32 as u64;
    attr[1] = key.as_ptr() as u64;
    attr[2] = out.as_mut_ptr() as u64;
    match bpf(BPF_MAP_LOOKUP_ELEM, &mut attr) {
        Ok(_) => Ok(true),
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Replaces the value of an existing `key` (BPF_EXIST); `value` as for [`lookup`].
pub fn update_existing(map_fd: RawFd, key: &[u8], value: &[u8]) -> io::Result<()> {
    let mut attr = [0u64; 16];
    attr[0] = map_fd as u32 as u64;
    attr[1] = key.as_ptr() as u64;
    attr[2] = value.as_ptr() as u64;
    attr[3] = 2; // BPF_EXIST
    match bpf(BPF_MAP_UPDATE_ELEM, &mut attr) {
        Err(e) if e.raw_os_error() != Some(libc::ENOENT) => Err(e),
        _ => Ok(()),
    }
}

/// Deletes `key` (gone already is fine).
pub fn delete(map_fd: RawFd, key: &[u8]) -> io::Result<()> {
    let mut attr = [0u64; 16];
    attr[0] = map_fd as u32 as u64;
    attr[1] = key.as_ptr() as u64;
    match bpf(BPF_MAP_DELETE_ELEM, &mut attr) {
        Err(e) if e.raw_os_error() != Some(libc::ENOENT) => Err(e),
        _ => Ok(()),
    }
}
