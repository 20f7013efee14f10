//! bpftrace's `cgroup_path(id [, filter])`, named when it is printed: the cgroup's path in
//! each mounted cgroup hierarchy whose name matches the filter, as bpftrace 0.17 prints it:
//! `unified:/a/b,cpu:/,memory:/x` — cgroup v2 is `unified` wherever it is mounted, a v1
//! hierarchy is named by its mount point's last component; `unified` first, the others by
//! name; hierarchies where no directory has the id as its inode number left out.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The paths of cgroup `id` in the hierarchies whose names match `filter`.
pub fn cgroup_paths(id: u64, filter: &str) -> String {
    // The hierarchies are read once, not per printed value.
    static MOUNTED: OnceLock<Vec<(String, PathBuf)>> = OnceLock::new();
    let mounted = MOUNTED.get_or_init(|| hierarchies(&std::fs::read_to_string("/proc/mounts").unwrap_or_default()));
    let pattern = Wildcard::new(filter);
    let mut found: Vec<(String, String)> = mounted
        .iter()
        .filter(|(name, _)| pattern.matches(name))
        .filter_map(|(name, root)| path_in(id, root).map(|p| (name.clone(), p)))
        .collect();
    found.sort_by(|a, b| (a.0 != "unified", &a.0).cmp(&(b.0 != "unified", &b.0)));
    found.iter().map(|(name, path)| format!("{name}:{path}")).collect::<Vec<_>>().join(",")
}

/// The cgroup hierarchies in /proc/mounts' text: (name, mount point).
fn hierarchies(mounts: &str) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for line in mounts.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let (Some(at), Some(kind)) = (f.get(1), f.get(2)) else { continue };
        let at = PathBuf::from(unescape(at));
        let name = match *kind {
            "cgroup2" => "unified".to_string(),
            "cgroup" => at.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            _ => continue,
        };
        out.push((name, at));
    }
    out
}

/// A mount point as /proc/mounts writes it: space, tab, newline and backslash as `\ooo`.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = b.get(i + 1..i + 4).filter(|d| b[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) => {
                out.push(d.iter().fold(0u8, |n, c| n.wrapping_mul(8).wrapping_add(c - b'0')));
                i += 4;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The path below `root` of the directory whose inode number is `id` (`/` for the root
/// itself), remembered while it stays so; None where there is none, or where a directory
/// cannot be read on the way (bpftrace gives up on that hierarchy too).
fn path_in(id: u64, root: &Path) -> Option<String> {
    static FOUND: OnceLock<Mutex<HashMap<(u64, PathBuf), String>>> = OnceLock::new();
    let mut found = FOUND.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let key = (id, root.to_path_buf());
    if let Some(p) = found.get(&key) {
        let dir = if p == "/" { root.to_path_buf() } else { root.join(p.trim_start_matches('/')) };
        if std::fs::metadata(dir).is_ok_and(|m| m.ino() == id) {
            return Some(p.clone());
        }
    }
    if std::fs::metadata(root).ok()?.ino() == id {
        found.insert(key, "/".into());
        return Some("/".into());
    }
    let dir = search(id, root).ok()??;
    let p = format!("/{}", dir.strip_prefix(root).ok()?.display());
    found.insert(key, p.clone());
    Some(p)
}

/// The directory under `dir` (depth first) whose inode number is `id`.
fn search(id: u64, dir: &Path) -> std::io::Result<Option<PathBuf>> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let meta = entry.metadata()?;
        if meta.ino() == id {
            return Ok(Some(entry.path()));
        }
        if meta.is_dir() {
            if let Some(p) = search(id, &entry.path())? {
                return Ok(Some(p));
            }
        }
    }
    Ok(None)
}

/// A filter as bpftrace matches hierarchy names: its parts between `*`s found in order,
/// each at its leftmost place after the last, the first at the start unless the filter
/// begins with `*`, and the last at the end unless it ends with `*`.
struct Wildcard {
    parts: Vec<String>,
    open_start: bool,
    open_end: bool,
}

impl Wildcard {
    fn new(filter: &str) -> Self {
        Wildcard {
            parts: filter.split('*').filter(|p| !p.is_empty()).map(String::from).collect(),
            open_start: filter.starts_with('*'),
            open_end: filter.ends_with('*'),
        }
    }

    fn matches(&self, name: &str) -> bool {
        let mut next = 0;
        for (i, part) in self.parts.iter().enumerate() {
            match name[next..].find(part.as_str()) {
                Some(at) if i > 0 || self.open_start || at == 0 => next += at + part.len(),
                _ => return false,
            }
        }
        self.open_end || next == name.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hierarchies_are_named_as_bpftrace_names_them() {
        let mounts = "tmpfs /sys/fs/cgroup tmpfs rw 0 0\ncgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\nnone /mnt/my\\040cg cgroup2 rw 0 0\nproc /proc proc rw 0 0\n";
        let h = hierarchies(mounts);
        let names: Vec<_> = h.iter().map(|(n, p)| format!("{n}={}", p.display())).collect();
        assert_eq!(names, ["cpu,cpuacct=/sys/fs/cgroup/cpu,cpuacct", "unified=/sys/fs/cgroup/unified", "unified=/mnt/my cg"]);
    }

    #[test]
    fn filters_match_as_bpftrace_matches_them() {
        let m = |f: &str, name: &str| Wildcard::new(f).matches(name);
        assert!(m("*", "unified") && m("uni*", "unified") && m("*fied", "unified") && m("unified", "unified") && m("u*i*d", "unified"));
        assert!(!m("uni", "unified") && !m("nified", "unified") && !m("foo", "unified") && !m("*x*", "unified"));
        // Each part at its leftmost place: "a*b" does not match "abab" (b found at 1, not at the end).
        assert!(!m("a*b", "abab") && m("a*b*", "abab"));
    }

    #[test]
    fn a_directory_is_found_by_its_inode_number() {
        let root = std::env::temp_dir().join(format!("crumbs-cgroup-paths-{}", std::process::id()));
        let dir = root.join("a/b");
        std::fs::create_dir_all(&dir).unwrap();
        let ino = std::fs::metadata(&dir).unwrap().ino();
        let root_ino = std::fs::metadata(&root).unwrap().ino();
        assert_eq!(path_in(ino, &root).as_deref(), Some("/a/b"));
        // Remembered, and still checked: once the directory is gone it is not found.
        assert_eq!(path_in(ino, &root).as_deref(), Some("/a/b"));
        assert_eq!(path_in(root_ino, &root).as_deref(), Some("/"));
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(path_in(ino, &root), None);
    }
}
