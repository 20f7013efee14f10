//! Whether a program of a type may call a kernel function (kfunc): bpftrace's
//! kfunc_allowed(), answered as bpftrace answers it, by loading a program that calls it and
//! reading the verifier's log.

use super::btf;

const BPF_PROG_LOAD: i32 = 5;
/// A call of a kernel function by its BTF id (BPF_PSEUDO_KFUNC_CALL in the call's src).
const PSEUDO_KFUNC_CALL: u64 = 2;

/// `Ok(false)` if vmlinux's BTF has no function `name` or the verifier says a program of
/// type `prog_type` may not call it; `Ok(true)` otherwise (the load may fail for another
/// reason: only the type's permission is asked).
pub fn allowed(name: &str, prog_type: u32) -> Result<bool, String> {
    btf::vmlinux()?;
    let Some(id) = btf::func_id(name) else { return Ok(false) };
    // call kfunc#id; exit
    let insns: [u64; 2] = [0x85 | (PSEUDO_KFUNC_CALL << 12) | (u64::from(id) << 32), 0x95];
    let license = b"GPL\0";
    let mut log = vec![0u8; 4096];
    let mut attr = [0u64; 16];
    attr[0] = u64::from(prog_type) | (insns.len() as u64) << 32;
    attr[1] = insns.as_ptr() as u64;
    attr[2] = license.as_ptr() as u64;
    attr[3] = 1 | (log.len() as u64) << 32;
    attr[4] = log.as_mut_ptr() as u64;
    if let Ok(fd) = crate::sys::bpf(BPF_PROG_LOAD, &mut attr) {
        // SAFETY: the program's fd is ours and used nowhere else.
        unsafe { libc::close(fd as i32) };
        return Ok(true);
    }
    let text = String::from_utf8_lossy(&log);
    Ok(!text.contains(&format!("calling kernel function {name} is not allowed")))
}
