//! Current bpftrace's printf `%gr`: GFP (get free pages) flags by name, as the kernel's
//! `%pGg` prints them: the compound masks first, in the order of the kernel's
//! `__def_gfpflag_names` (include/trace/events/mmflags.h), each taken out of the value
//! once matched, then the single flags; bits no name covers as one hex number.

/// The kernel's GFP bits (include/linux/gfp_types.h, Linux 6.12 onwards, as current bpftrace
/// numbers them).
const DMA: u64 = 1 << 0;
const HIGHMEM: u64 = 1 << 1;
const DMA32: u64 = 1 << 2;
const MOVABLE: u64 = 1 << 3;
const HIGH: u64 = 1 << 5;
const IO: u64 = 1 << 6;
const FS: u64 = 1 << 7;
const ZERO: u64 = 1 << 8;
const DIRECT_RECLAIM: u64 = 1 << 10;
const KSWAPD_RECLAIM: u64 = 1 << 11;
const WRITE: u64 = 1 << 12;
const NOWARN: u64 = 1 << 13;
const RETRY_MAYFAIL: u64 = 1 << 14;
const NOFAIL: u64 = 1 << 15;
const NORETRY: u64 = 1 << 16;
const MEMALLOC: u64 = 1 << 17;
const COMP: u64 = 1 << 18;
const NOMEMALLOC: u64 = 1 << 19;
const HARDWALL: u64 = 1 << 20;
const THISNODE: u64 = 1 << 21;
const ACCOUNT: u64 = 1 << 22;
const ZEROTAGS: u64 = 1 << 23;
const SKIP_ZERO: u64 = 1 << 24;
const SKIP_KASAN: u64 = 1 << 25;
const NO_OBJ_EXT: u64 = 1 << 26;

const RECLAIM: u64 = DIRECT_RECLAIM | KSWAPD_RECLAIM;
const KERNEL: u64 = RECLAIM | IO | FS;
const NOIO: u64 = RECLAIM;
const NOFS: u64 = NOIO | IO;
const USER: u64 = NOFS | FS | HARDWALL;
const HIGHUSER: u64 = USER | HIGHMEM;
const HIGHUSER_MOVABLE: u64 = HIGHUSER | MOVABLE | SKIP_KASAN;
const TRANSHUGE_LIGHT: u64 = (HIGHUSER_MOVABLE | COMP | NOMEMALLOC | NOWARN) & !RECLAIM;

/// The names, in the order they are matched.
const NAMES: &[(u64, &str)] = &[
    (TRANSHUGE_LIGHT | DIRECT_RECLAIM, "GFP_TRANSHUGE"),
    (TRANSHUGE_LIGHT, "GFP_TRANSHUGE_LIGHT"),
    (HIGHUSER_MOVABLE, "GFP_HIGHUSER_MOVABLE"),
    (HIGHUSER, "GFP_HIGHUSER"),
    (USER, "GFP_USER"),
    (KERNEL | ACCOUNT, "GFP_KERNEL_ACCOUNT"),
    (KERNEL, "GFP_KERNEL"),
    (NOFS, "GFP_NOFS"),
    (HIGH | KSWAPD_RECLAIM, "GFP_ATOMIC"),
    (NOIO, "GFP_NOIO"),
    (KSWAPD_RECLAIM | NOWARN, "GFP_NOWAIT"),
    (DMA, "GFP_DMA"),
    (HIGHMEM, "__GFP_HIGHMEM"),
    (DMA32, "GFP_DMA32"),
    (HIGH, "__GFP_HIGH"),
    (IO, "__GFP_IO"),
    (FS, "__GFP_FS"),
    (ZERO, "__GFP_ZERO"),
    (DIRECT_RECLAIM, "__GFP_DIRECT_RECLAIM"),
    (KSWAPD_RECLAIM, "__GFP_KSWAPD_RECLAIM"),
    (WRITE, "__GFP_WRITE"),
    (NOWARN, "__GFP_NOWARN"),
    (RETRY_MAYFAIL, "__GFP_RETRY_MAYFAIL"),
    (NOFAIL, "__GFP_NOFAIL"),
    (NORETRY, "__GFP_NORETRY"),
    (MEMALLOC, "__GFP_MEMALLOC"),
    (COMP, "__GFP_COMP"),
    (NOMEMALLOC, "__GFP_NOMEMALLOC"),
    (HARDWALL, "__GFP_HARDWALL"),
    (THISNODE, "__GFP_THISNODE"),
    (ACCOUNT, "__GFP_ACCOUNT"),
    (ZEROTAGS, "__GFP_ZEROTAGS"),
    (SKIP_ZERO, "__GFP_SKIP_ZERO"),
    (SKIP_KASAN, "__GFP_SKIP_KASAN"),
    (NO_OBJ_EXT, "__GFP_NO_OBJ_EXT"),
];

/// `flags` as `%gr` prints them: names joined by `|`, what is left as `0x...`; `0` for none.
pub fn names(flags: u64) -> String {
    if flags == 0 {
        return "0".into();
    }
    let mut left = flags;
    let mut parts: Vec<String> = Vec::new();
    for (mask, name) in NAMES {
        if left & mask == *mask {
            parts.push((*name).into());
            left &= !mask;
        }
    }
    if left != 0 {
        parts.push(format!("{left:#x}"));
    }
    parts.join("|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compound_names_first_then_single_flags_then_the_rest_in_hex() {
        assert_eq!(names(0), "0");
        assert_eq!(names(KERNEL), "GFP_KERNEL");
        assert_eq!(names(KERNEL | ACCOUNT | ZERO), "GFP_KERNEL_ACCOUNT|__GFP_ZERO");
        assert_eq!(names(HIGH | KSWAPD_RECLAIM | HIGHMEM), "GFP_ATOMIC|__GFP_HIGHMEM");
        assert_eq!(names(IO | FS | DIRECT_RECLAIM), "__GFP_IO|__GFP_FS|__GFP_DIRECT_RECLAIM");
        // GFP_KERNEL is 0xcc0; __GFP_MOVABLE (0x8) has no name of its own.
        assert_eq!(KERNEL, 0xcc0);
        assert_eq!(names(KERNEL | MOVABLE | (1 << 40)), "GFP_KERNEL|0x10000000008");
        assert_eq!(names(HIGHUSER_MOVABLE | DIRECT_RECLAIM), "GFP_HIGHUSER_MOVABLE");
        assert_eq!(names(TRANSHUGE_LIGHT | DIRECT_RECLAIM), "GFP_TRANSHUGE");
    }
}
