//! USDT probes from an ELF file's `.note.stapsdt` notes (systemtap's SDT format, which
//! `<sys/sdt.h>` and DTrace's `dtrace -G` on Linux write): each note gives the probe's
//! address, the `.stapsdt.base` address it was linked against (a prelinked file has moved
//! since), its semaphore's address and its provider, name and argument specs, such as
//! `-4@%edi 8@-16(%rbp) 4@$5` (size, negative for signed, @ where: gas's operand syntax).

use crumbs_lang::facts::user::{UsdtArg, UsdtLoc};

/// One note, its addresses still virtual addresses.
pub struct Note {
    pub provider: String,
    pub name: String,
    pub pc: u64,
    pub base: u64,
    pub semaphore: u64,
    pub args: Vec<UsdtArg>,
}

const NT_STAPSDT: u32 = 3;

/// A note's description (owner `stapsdt`, type 3), or None if it is not one.
pub fn parse_note(n_type: u32, owner: &[u8], desc: &[u8]) -> Option<Note> {
    if n_type != NT_STAPSDT || owner != b"stapsdt" {
        return None;
    }
    let word = |i: usize| desc.get(8 * i..8 * i + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()));
    let (pc, base, semaphore) = (word(0)?, word(1)?, word(2)?);
    let mut strings = desc.get(24..)?.split(|b| *b == 0).map(|s| String::from_utf8_lossy(s).into_owned());
    let provider = strings.next()?;
    let name = strings.next()?;
    let args = strings.next().unwrap_or_default();
    Some(Note { provider, name, pc, base, semaphore, args: args.split_whitespace().map(parse_arg).collect() })
}

/// One argument spec: `N@OPERAND`.
pub fn parse_arg(spec: &str) -> UsdtArg {
    let unsupported = || UsdtArg { size: 8, signed: false, at: UsdtLoc::Unsupported(spec.to_string()) };
    let Some((size, operand)) = spec.split_once('@') else { return unsupported() };
    let Ok(size) = size.parse::<i8>() else { return unsupported() };
    if ![1, 2, 4, 8].contains(&size.unsigned_abs()) {
        return unsupported();
    }
    let at = if let Some(imm) = operand.strip_prefix('$') {
        match parse_int(imm) {
            Some(v) => UsdtLoc::Const(v),
            None => UsdtLoc::Unsupported(spec.to_string()),
        }
    } else if let Some(reg) = operand.strip_prefix('%') {
        match register(reg) {
            Some(r) => UsdtLoc::Reg(r.to_string()),
            None => UsdtLoc::Unsupported(spec.to_string()),
        }
    } else if let Some((disp, rest)) = operand.split_once("(%") {
        let base = rest.strip_suffix(')').and_then(register).filter(|r| *r != "rip");
        let disp = if disp.is_empty() { Some(0) } else { parse_int(disp) };
        match (base, disp) {
            (Some(base), Some(disp)) => UsdtLoc::Mem { base: base.to_string(), disp },
            _ => UsdtLoc::Unsupported(spec.to_string()),
        }
    } else {
        UsdtLoc::Unsupported(spec.to_string())
    };
    UsdtArg { size: size.unsigned_abs(), signed: size < 0, at }
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let v = match s.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => s.parse::<i64>().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// The 64-bit register a register name is part of (`eax`, `ax`, `al` are rax's low bytes;
/// `ah` is not at the bottom of one, and is not read).
fn register(name: &str) -> Option<&'static str> {
    const LEGACY: [(&str, [&str; 4]); 8] = [
        ("rax", ["rax", "eax", "ax", "al"]),
        ("rbx", ["rbx", "ebx", "bx", "bl"]),
        ("rcx", ["rcx", "ecx", "cx", "cl"]),
        ("rdx", ["rdx", "edx", "dx", "dl"]),
        ("rsi", ["rsi", "esi", "si", "sil"]),
        ("rdi", ["rdi", "edi", "di", "dil"]),
        ("rbp", ["rbp", "ebp", "bp", "bpl"]),
        ("rsp", ["rsp", "esp", "sp", "spl"]),
    ];
    const NUMBERED: [&str; 8] = ["r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"];
    if name == "rip" {
        return Some("rip");
    }
    if let Some((r, _)) = LEGACY.iter().find(|(_, names)| names.contains(&name)) {
        return Some(r);
    }
    let stem = name.trim_end_matches(['d', 'w', 'b']);
    NUMBERED.iter().find(|r| **r == stem).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_specs() {
        let a = |spec: &str| parse_arg(spec);
        assert_eq!(a("-4@%edi"), UsdtArg { size: 4, signed: true, at: UsdtLoc::Reg("rdi".into()) });
        assert_eq!(a("8@%r8"), UsdtArg { size: 8, signed: false, at: UsdtLoc::Reg("r8".into()) });
        assert_eq!(a("-4@%r8d").at, UsdtLoc::Reg("r8".into()));
        assert_eq!(a("2@%ax").at, UsdtLoc::Reg("rax".into()));
        assert_eq!(a("8@-16(%rbp)").at, UsdtLoc::Mem { base: "rbp".into(), disp: -16 });
        assert_eq!(a("4@(%rsp)").at, UsdtLoc::Mem { base: "rsp".into(), disp: 0 });
        assert_eq!(a("-4@$5").at, UsdtLoc::Const(5));
        assert_eq!(a("4@$-0x10").at, UsdtLoc::Const(-16));
        assert!(matches!(a("8@foo(%rip)").at, UsdtLoc::Unsupported(_)));
        assert!(matches!(a("1@%ah").at, UsdtLoc::Unsupported(_)));
        assert!(matches!(a("8@8(%rax,%rbx,4)").at, UsdtLoc::Unsupported(_)));
    }
}
