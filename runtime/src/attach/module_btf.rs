//! A kernel module's BTF object, by the module's name: what a trampoline on one of its
//! functions is loaded against (BPF_PROG_LOAD's attach_btf_obj_fd with the function's id in
//! the module's split BTF). The kernel numbers its BTF objects; each is opened and asked
//! its name (BPF_BTF_GET_NEXT_ID, BPF_BTF_GET_FD_BY_ID, BPF_OBJ_GET_INFO_BY_FD), once per
//! module, and the descriptor kept for the run.

use crate::sys::bpf;
use std::collections::HashMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::{Arc, Mutex};

const BPF_OBJ_GET_INFO_BY_FD: i32 = 15;
const BPF_BTF_GET_FD_BY_ID: i32 = 19;
const BPF_BTF_GET_NEXT_ID: i32 = 23;

/// bpf_btf_info, as the kernel fills it.
#[repr(C)]
#[derive(Default)]
struct BtfInfo {
    btf: u64,
    btf_size: u32,
    id: u32,
    name: u64,
    name_len: u32,
    kernel_btf: u32,
}

/// The BTF object of module `module`, opened once.
pub(super) fn fd(module: &str) -> Result<Arc<OwnedFd>, String> {
    static FOUND: Mutex<Option<HashMap<String, Arc<OwnedFd>>>> = Mutex::new(None);
    let mut found = FOUND.lock().unwrap_or_else(|e| e.into_inner());
    let found = found.get_or_insert_default();
    if let Some(fd) = found.get(module) {
        return Ok(fd.clone());
    }
    let fd = Arc::new(open(module)?);
    found.insert(module.to_string(), fd.clone());
    Ok(fd)
}

fn open(module: &str) -> Result<OwnedFd, String> {
    let mut id = 0u32;
    loop {
        let mut attr = [0u64; 16];
        attr[0] = id as u64;
        if bpf(BPF_BTF_GET_NEXT_ID, &mut attr).is_err() {
            return Err(format!("the kernel has no BTF object for module {module}"));
        }
        id = (attr[0] >> 32) as u32;
        let mut attr = [0u64; 16];
        attr[0] = id as u64;
        // An object that went away between the two calls is passed over.
        let Ok(raw) = bpf(BPF_BTF_GET_FD_BY_ID, &mut attr) else { continue };
        // SAFETY: on success the kernel returns a new descriptor this process owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw as RawFd) };
        let mut name = [0u8; 64];
        let mut info = BtfInfo { name: name.as_mut_ptr() as u64, name_len: name.len() as u32, ..Default::default() };
        let mut attr = [0u64; 16];
        attr[0] = fd.as_raw_fd() as u64 | (std::mem::size_of::<BtfInfo>() as u64) << 32;
        attr[1] = &mut info as *mut BtfInfo as u64;
        if bpf(BPF_OBJ_GET_INFO_BY_FD, &mut attr).is_err() {
            continue;
        }
        let len = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        if info.kernel_btf != 0 && &name[..len] == module.as_bytes() {
            return Ok(fd);
        }
    }
}
