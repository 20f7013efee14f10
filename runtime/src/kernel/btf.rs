//! Just enough of the BTF format to find a struct member's byte offset (for ppid), without
//! loading all of vmlinux's types into memory.

fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?))
}

fn name(strs: &[u8], off: u32) -> &[u8] {
    let s = strs.get(off as usize..).unwrap_or(&[]);
    &s[..s.iter().position(|c| *c == 0).unwrap_or(s.len())]
}

/// Byte offset of `member` in `struct name`, if the BTF has it.
pub fn member_offset(btf: &[u8], strukt: &str, member: &str) -> Option<u32> {
    if u32_at(btf, 0)? & 0xffff != 0xeb9f {
        return None;
    }
    let hdr_len = u32_at(btf, 4)? as usize;
    let (type_off, type_len) = (u32_at(btf, 8)? as usize, u32_at(btf, 12)? as usize);
    let (str_off, str_len) = (u32_at(btf, 16)? as usize, u32_at(btf, 20)? as usize);
    let types = btf.get(hdr_len + type_off..hdr_len + type_off + type_len)?;
    let strs = btf.get(hdr_len + str_off..hdr_len + str_off + str_len)?;
    let mut o = 0;
    while o + 12 <= types.len() {
        let name_off = u32_at(types, o)?;
        let info = u32_at(types, o + 4)?;
        let kind = (info >> 24) & 0x1f;
        let vlen = (info & 0xffff) as usize;
        let kflag = info >> 31;
        o += 12;
        let extra = match kind {
            1 => 4,                 // INT
            3 => 12,                // ARRAY
            4 | 5 => 12 * vlen,     // STRUCT, UNION
            6 => 8 * vlen,          // ENUM
            13 => 8 * vlen,         // FUNC_PROTO
            14 => 4,                // VAR
            15 => 12 * vlen,        // DATASEC
            17 => 4,                // DECL_TAG
            19 => 12 * vlen,        // ENUM64
            _ => 0,
        };
        if kind == 4 && name(strs, name_off) == strukt.as_bytes() {
            for m in 0..vlen {
                let mo = o + 12 * m;
                if name(strs, u32_at(types, mo)?) == member.as_bytes() {
                    let bits = u32_at(types, mo + 8)?;
                    let bits = if kflag == 1 { bits & 0xff_ffff } else { bits };
                    return Some(bits / 8);
                }
            }
        }
        o += extra;
    }
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn finds_task_struct_fields_when_btf_exists() {
        let Ok(btf) = std::fs::read("/sys/kernel/btf/vmlinux") else { return };
        let tgid = super::member_offset(&btf, "task_struct", "tgid").expect("tgid");
        let parent = super::member_offset(&btf, "task_struct", "real_parent").expect("real_parent");
        assert!(tgid > 0 && parent > tgid, "{tgid} {parent}");
        assert_eq!(super::member_offset(&btf, "task_struct", "no_such_member"), None);
    }
}
