//! bpftrace's `build_id` stack mode: the kernel records each user frame of a stack as the
//! GNU build id of the file mapped there and the offset in that file (a stack map made with
//! BPF_F_STACK_BUILD_ID), or as the address alone where it found no build id. Printed as
//! current bpftrace prints them: the build id in hex, a space and `0x` and the offset in hex
//! (two digits at least), or the address in hex.

use crate::sys;
use crumbs_ebpf::abi::{STACK_BUILD_ID_SIZE, USTACK_DEPTH};

/// `struct bpf_stack_build_id`'s status: a build id and an offset were found.
const BUILD_ID_VALID: i32 = 1;
/// Its status where the entry is unused (past the stack's last frame).
const BUILD_ID_EMPTY: i32 = 0;

/// The frames of stack `id` in build id stack map `fd`, innermost first, as text.
pub fn frames(fd: i32, id: u32) -> Result<Vec<String>, String> {
    let mut value = vec![0u8; STACK_BUILD_ID_SIZE * USTACK_DEPTH];
    if !matches!(sys::lookup(fd, &id.to_le_bytes(), &mut value), Ok(true)) {
        return Err("<stack no longer available>".into());
    }
    Ok(value.chunks(STACK_BUILD_ID_SIZE).map_while(frame).collect())
}

/// One `struct bpf_stack_build_id` as text; None for an unused entry.
fn frame(entry: &[u8]) -> Option<String> {
    let status = i32::from_le_bytes(entry[0..4].try_into().unwrap());
    let build_id = &entry[4..24];
    let offset_or_ip = u64::from_le_bytes(entry[24..32].try_into().unwrap());
    if status == BUILD_ID_EMPTY && offset_or_ip == 0 {
        return None;
    }
    if status != BUILD_ID_VALID {
        return Some(format!("{offset_or_ip:x}"));
    }
    let hex: String = build_id.iter().map(|b| format!("{b:02x}")).collect();
    Some(format!("{hex} 0x{offset_or_ip:02x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(status: i32, id: &[u8], value: u64) -> Vec<u8> {
        let mut e = vec![0u8; STACK_BUILD_ID_SIZE];
        e[0..4].copy_from_slice(&status.to_le_bytes());
        e[4..4 + id.len()].copy_from_slice(id);
        e[24..32].copy_from_slice(&value.to_le_bytes());
        e
    }

    #[test]
    fn prints_as_current_bpftrace() {
        let id: Vec<u8> = (0..20).collect();
        assert_eq!(frame(&entry(1, &id, 0x1139)).unwrap(), "000102030405060708090a0b0c0d0e0f10111213 0x1139");
        assert_eq!(frame(&entry(1, &id, 0x5)).unwrap(), "000102030405060708090a0b0c0d0e0f10111213 0x05");
        // No build id found: the address alone, as the raw mode prints it.
        assert_eq!(frame(&entry(2, &[], 0x7f12_3456_7000)).unwrap(), "7f1234567000");
        assert_eq!(frame(&entry(0, &[], 0)), None);
    }
}
