//! User-space programs for the checker's pid and uprobe probes: the ELF files a process runs
//! (its memory map, and the libraries its executable needs that it has not mapped yet) and
//! their functions.

mod elf;
mod libraries;
mod usdt;

use crumbs_lang::facts::user::{Modules, UserModule};
use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;

/// The files process `pid` runs, its executable first. A `-c` child held before its exec
/// (bpftrace's order) still runs crumbs: its executable is the file it will exec, and it has
/// mapped none of its files yet.
pub fn process_modules(pid: u32) -> Modules {
    let before_exec = crate::process::executable_before_exec(pid);
    let (exe, exe_path) = match &before_exec {
        Some(path) => (path.to_string_lossy().into_owned(), path.to_string_lossy().into_owned()),
        None => {
            let exe = std::fs::read_link(format!("/proc/{pid}/exe")).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => format!("no process {pid}"),
                _ => format!("cannot read /proc/{pid}/exe: {e}"),
            })?;
            let exe = exe.to_string_lossy();
            let exe = exe.strip_suffix(DELETED).unwrap_or(&exe).to_string();
            let exe_inode = std::fs::metadata(format!("/proc/{pid}/exe")).map(|m| m.ino()).ok();
            let exe_path = reachable(pid, &exe, exe_inode).unwrap_or_else(|| format!("/proc/{pid}/exe"));
            (exe, exe_path)
        }
    };
    let exe_info = elf::read(&exe_path)?;
    let (needed, runpath) = (exe_info.needed.clone(), exe_info.runpath.clone());
    let mut modules = vec![module(&exe_path, base_name(&exe), true, exe_info)];
    let mut seen: HashSet<String> = HashSet::from([exe_path.clone()]);
    // Mapped executable files: the loader, and libraries already loaded (a -p process). A
    // file deleted or replaced since it was mapped is read and probed through the mapping
    // itself (/proc/PID/map_files), not at its path, which names another file or none.
    for m in if before_exec.is_some() { Vec::new() } else { mapped_files(pid) } {
        let map_file = format!("/proc/{pid}/map_files/{:x}-{:x}", m.start, m.end);
        let Some(path) = reachable(pid, &m.path, Some(m.inode)).or_else(|| is_inode(&map_file, Some(m.inode)).then_some(map_file)) else { continue };
        if seen.insert(path.clone()) {
            if let Ok(info) = elf::read(&path) {
                modules.push(module(&path, base_name(&m.path), false, info));
            }
        }
    }
    // The executable's libraries, and theirs, that are not mapped yet (a held -c command).
    let library_path = environ(pid, "LD_LIBRARY_PATH").map(|v| v.split(':').filter(|p| !p.is_empty()).map(str::to_string).collect::<Vec<_>>()).unwrap_or_default();
    let mapped_names: HashSet<String> = modules.iter().map(|m| m.name.clone()).collect();
    let mut queue: Vec<(String, Vec<String>, String)> = needed.iter().map(|n| (n.clone(), runpath.clone(), dir_of(&exe_path))).collect();
    let mut asked: HashSet<String> = HashSet::new();
    while let Some((name, runpath, origin)) = queue.pop() {
        if mapped_names.contains(&name) || !asked.insert(name.clone()) {
            continue;
        }
        let Some(path) = libraries::find(&name, &origin, &runpath, &library_path) else { continue };
        if !seen.insert(path.clone()) {
            continue;
        }
        let Ok(info) = elf::read(&path) else { continue };
        queue.extend(info.needed.iter().map(|n| (n.clone(), info.runpath.clone(), dir_of(&path))));
        modules.push(module(&path, base_name(&path), false, info));
    }
    Ok(modules.into())
}

/// What /proc/PID/maps and /proc/PID/exe add to the path of a file deleted (or replaced)
/// since it was mapped.
const DELETED: &str = " (deleted)";

/// The file at `path`, or the library a bare name (`libc`, `libc.so.6`) names.
pub fn user_module(path: &str) -> Result<UserModule, String> {
    let resolved = if path.contains('/') { path.to_string() } else { libraries::by_short_name(path).ok_or_else(|| format!("no file or library named {path}"))? };
    let info = elf::read(&resolved)?;
    Ok(module(&resolved, base_name(&resolved), info.executable, info))
}

/// The module read from `path`, named `name` (DTrace's module name: the file's name).
fn module(path: &str, name: &str, executable: bool, info: elf::ElfInfo) -> UserModule {
    UserModule { path: path.to_string(), name: name.to_string(), executable, functions: info.functions.into(), usdt: info.usdt.into() }
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// How this process reaches the file process `pid` maps at `path` (inode `inode`): the
/// path itself, or through `/proc/PID/root` when the process sees another root (a
/// container, a chroot); None if neither is that file. uprobes attach to the inode.
fn reachable(pid: u32, path: &str, inode: Option<u64>) -> Option<String> {
    [path.to_string(), format!("/proc/{pid}/root{path}")].into_iter().find(|p| is_inode(p, inode))
}

/// Whether `path` is a file, of inode `inode` if given.
fn is_inode(path: &str, inode: Option<u64>) -> bool {
    std::fs::metadata(path).is_ok_and(|m| inode.is_none_or(|i| m.ino() == i))
}

fn dir_of(path: &str) -> String {
    path.rsplit_once('/').map_or(".", |(d, _)| if d.is_empty() { "/" } else { d }).to_string()
}

/// One executable file mapping of a process: the first of its file's.
#[derive(Debug, PartialEq, Eq)]
struct Mapped {
    /// As the map names it (without " (deleted)").
    path: String,
    inode: u64,
    start: u64,
    end: u64,
}

/// The executable files process `pid` has mapped, in the map's order (not [vdso] and the
/// like).
fn mapped_files(pid: u32) -> Vec<Mapped> {
    std::fs::read_to_string(format!("/proc/{pid}/maps")).map(|text| executable_files(&text)).unwrap_or_default()
}

/// The executable file mappings of a `/proc/PID/maps` text, each file once.
fn executable_files(maps: &str) -> Vec<Mapped> {
    let mut out: Vec<Mapped> = Vec::new();
    for l in maps.lines().filter_map(crate::ustacks::maps_line) {
        let path = l.path.strip_suffix(DELETED).unwrap_or(l.path);
        if l.perms.contains('x') && path.starts_with('/') && !out.iter().any(|m| m.path == path && m.inode == l.inode) {
            out.push(Mapped { path: path.to_string(), inode: l.inode, start: l.start, end: l.end });
        }
    }
    out
}

/// A variable of process `pid`'s environment.
fn environ(pid: u32, name: &str) -> Option<String> {
    let data = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{name}=");
    data.split(|b| *b == 0).find_map(|v| v.strip_prefix(prefix.as_bytes()).map(|v| String::from_utf8_lossy(v).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This test process: its executable first (static, so it has no libraries).
    #[test]
    fn reads_this_process() {
        let modules = process_modules(std::process::id()).unwrap();
        assert!(modules[0].executable);
        assert!(modules[0].functions.iter().any(|f| f.name.ends_with("reads_this_process")), "{:?}", modules[0].functions.len());
        assert_eq!(process_modules(u32::MAX).unwrap_err(), format!("no process {}", u32::MAX));
    }

    /// Paths are the rest of the line, spaces included; a deleted file's without the mark;
    /// mappings of no file are left out.
    #[test]
    fn executable_files_of_a_map() {
        let maps = "5600-5601 r--p 00000000 08:01 11 /opt/my app/bin/prog\n\
                    5601-5602 r-xp 00001000 08:01 11 /opt/my app/bin/prog\n\
                    7f00-7f01 r-xp 00000000 08:01 12                          /opt/my app/lib/libx.so\n\
                    7f01-7f02 r-xp 00001000 08:01 12                          /opt/my app/lib/libx.so\n\
                    7f02-7f03 r-xp 00000000 08:01 13 /usr/lib/libold.so (deleted)\n\
                    7f03-7f04 rw-p 00000000 00:00 0 \n\
                    7ffd-7ffe r-xp 00000000 00:00 0                          [vdso]\n";
        let files = executable_files(maps);
        assert_eq!(files.iter().map(|m| (m.path.as_str(), m.inode, m.start)).collect::<Vec<_>>(), [("/opt/my app/bin/prog", 11, 0x5601), ("/opt/my app/lib/libx.so", 12, 0x7f00), ("/usr/lib/libold.so", 13, 0x7f02)]);
    }

    #[test]
    fn reads_libc_by_name() {
        let libc = user_module("libc").unwrap();
        assert_eq!(libc.name, "libc.so.6");
        let getpid = libc.functions.iter().find(|f| f.name == "getpid").expect("getpid");
        assert!(getpid.offset > 0 && getpid.size > 0);
        assert!(user_module("/no/such/file").unwrap_err().contains("cannot read /no/such/file"));
    }
}
