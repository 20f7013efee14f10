//! Finding a shared library by name as the dynamic loader does (ld.so(8)): the needing
//! file's DT_RUNPATH (`$ORIGIN` expanded), LD_LIBRARY_PATH, /etc/ld.so.cache, then the
//! default directories. A `-c` command is held right after exec, before the loader has
//! mapped anything: its libraries are found here instead of in its memory map.

use std::path::Path;

const DEFAULT_DIRS: &[&str] = &["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"];
const CACHE: &str = "/etc/ld.so.cache";

/// Where library `name` (`libc.so.6`) is for a file in `origin` asking with `runpath`.
pub fn find(name: &str, origin: &str, runpath: &[String], library_path: &[String]) -> Option<String> {
    if name.contains('/') {
        return Path::new(name).is_file().then(|| name.to_string());
    }
    let dirs = runpath.iter().map(|d| d.replace("$ORIGIN", origin).replace("${ORIGIN}", origin)).chain(library_path.iter().cloned());
    for dir in dirs {
        let p = format!("{dir}/{name}");
        if Path::new(&p).is_file() {
            return Some(p);
        }
    }
    if let Some(p) = cache().into_iter().find(|(k, _)| k == name).map(|(_, v)| v) {
        return Some(p);
    }
    DEFAULT_DIRS.iter().map(|d| format!("{d}/{name}")).find(|p| Path::new(p).is_file())
}

/// A library named as bpftrace and aya allow, `libc` for `libc.so.6`: the cache's first
/// library whose name is `name` or starts with `name.so`.
pub fn by_short_name(name: &str) -> Option<String> {
    let prefix = format!("{name}.so");
    cache().into_iter().find(|(k, _)| k == name || k.starts_with(&prefix)).map(|(_, v)| v).or_else(|| find(name, "", &[], &[]))
}

/// ld.so.cache's x86-64 libraries, (name, path). The format is glibc's "new" one
/// (glibc-ld.so.cache1.1), alone or after an old-format table.
fn cache() -> Vec<(String, String)> {
    std::fs::read(CACHE).map(|d| parse_cache(&d)).unwrap_or_default()
}

fn parse_cache(data: &[u8]) -> Vec<(String, String)> {
    const OLD: &[u8] = b"ld.so-1.7.0";
    const NEW: &[u8] = b"glibc-ld.so.cache1.1";
    const FLAG_X86_64_LIBC6: i32 = 0x0303;
    let u32_at = |at: usize| data.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().unwrap_or_default()));
    let mut start = 0;
    if data.starts_with(OLD) {
        let Some(n) = u32_at(12) else { return Vec::new() };
        start = (16 + 12 * n as usize).next_multiple_of(8);
    }
    if data.get(start..start + NEW.len()) != Some(NEW) {
        return Vec::new();
    }
    let Some(n) = u32_at(start + 20) else { return Vec::new() };
    let string = |off: u32| -> Option<String> {
        let s = data.get(start + off as usize..)?;
        let end = s.iter().position(|b| *b == 0)?;
        Some(String::from_utf8_lossy(&s[..end]).into_owned())
    };
    let mut out = Vec::new();
    for i in 0..n as usize {
        let at = start + 48 + 24 * i;
        let (Some(flags), Some(key), Some(value)) = (u32_at(at), u32_at(at + 4), u32_at(at + 8)) else { break };
        if flags as i32 != FLAG_X86_64_LIBC6 {
            continue;
        }
        if let (Some(k), Some(v)) = (string(key), string(value)) {
            out.push((k, v));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This machine's libc, found the loader's ways.
    #[test]
    fn finds_libc() {
        let p = find("libc.so.6", "/", &[], &[]).expect("libc.so.6");
        assert!(p.ends_with("/libc.so.6"), "{p}");
        assert!(by_short_name("libc").is_some_and(|p| p.ends_with("/libc.so.6")));
        assert!(find("libno-such-library.so.1", "/", &[], &[]).is_none());
    }
}
