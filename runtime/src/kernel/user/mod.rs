//! User-space programs for the checker's pid and uprobe probes: the ELF files a process runs
//! (its memory map, and the libraries its executable needs that it has not mapped yet) and
//! their functions.

mod elf;
mod libraries;
mod usdt;

use crumbs_lang::facts::user::{Modules, UserModule};
use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;

/// The files process `pid` runs, its executable first.
pub fn process_modules(pid: u32) -> Modules {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("no process {pid}"),
        _ => format!("cannot read /proc/{pid}/exe: {e}"),
    })?;
    let exe_inode = std::fs::metadata(format!("/proc/{pid}/exe")).map(|m| m.ino()).ok();
    let exe = reachable(pid, &exe.to_string_lossy(), exe_inode).unwrap_or_else(|| format!("/proc/{pid}/exe"));
    let exe_info = elf::read(&exe)?;
    let (needed, runpath) = (exe_info.needed.clone(), exe_info.runpath.clone());
    let mut modules = vec![module(&exe, true, exe_info)];
    let mut seen: HashSet<String> = HashSet::from([exe.clone()]);
    // Mapped executable files: the loader, and libraries already loaded (a -p process).
    for path in mapped_files(pid).into_iter().filter_map(|(p, inode)| reachable(pid, &p, Some(inode))) {
        if seen.insert(path.clone()) {
            if let Ok(info) = elf::read(&path) {
                modules.push(module(&path, false, info));
            }
        }
    }
    // The executable's libraries, and theirs, that are not mapped yet (a held -c command).
    let library_path = environ(pid, "LD_LIBRARY_PATH").map(|v| v.split(':').filter(|p| !p.is_empty()).map(str::to_string).collect::<Vec<_>>()).unwrap_or_default();
    let mapped_names: HashSet<String> = modules.iter().map(|m| m.name.clone()).collect();
    let mut queue: Vec<(String, Vec<String>, String)> = needed.iter().map(|n| (n.clone(), runpath.clone(), dir_of(&exe))).collect();
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
        modules.push(module(&path, false, info));
    }
    Ok(modules.into())
}

/// The file at `path`, or the library a bare name (`libc`, `libc.so.6`) names.
pub fn user_module(path: &str) -> Result<UserModule, String> {
    let resolved = if path.contains('/') { path.to_string() } else { libraries::by_short_name(path).ok_or_else(|| format!("no file or library named {path}"))? };
    let info = elf::read(&resolved)?;
    Ok(module(&resolved, info.executable, info))
}

fn module(path: &str, executable: bool, info: elf::ElfInfo) -> UserModule {
    UserModule { path: path.to_string(), name: path.rsplit('/').next().unwrap_or(path).to_string(), executable, functions: info.functions.into(), usdt: info.usdt.into() }
}

/// How this process reaches the file process `pid` maps at `path` (inode `inode`): the
/// path itself, or through `/proc/PID/root` when the process sees another root (a
/// container, a chroot); None if neither is that file. uprobes attach to the inode.
fn reachable(pid: u32, path: &str, inode: Option<u64>) -> Option<String> {
    [path.to_string(), format!("/proc/{pid}/root{path}")]
        .into_iter()
        .find(|p| std::fs::metadata(p).is_ok_and(|m| inode.is_none_or(|i| m.ino() == i)))
}

fn dir_of(path: &str) -> String {
    path.rsplit_once('/').map_or(".", |(d, _)| if d.is_empty() { "/" } else { d }).to_string()
}

/// The executable files process `pid` has mapped, with their inodes, in the map's order
/// (not [vdso] and the like, nor files deleted since).
fn mapped_files(pid: u32) -> Vec<(String, u64)> {
    std::fs::read_to_string(format!("/proc/{pid}/maps")).map(|text| executable_files(&text)).unwrap_or_default()
}

/// The executable file mappings of a `/proc/PID/maps` text, each file once.
fn executable_files(maps: &str) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = Vec::new();
    for l in maps.lines().filter_map(crate::ustacks::maps_line) {
        if l.perms.contains('x') && l.path.starts_with('/') && !l.path.ends_with(" (deleted)") && !out.iter().any(|(p, _)| p == l.path) {
            out.push((l.path.to_string(), l.inode));
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

    /// Paths are the rest of the line, spaces included; deleted files and mappings of no
    /// file are left out.
    #[test]
    fn executable_files_of_a_map() {
        let maps = "5600-5601 r--p 00000000 08:01 11 /opt/my app/bin/prog\n\
                    5601-5602 r-xp 00001000 08:01 11 /opt/my app/bin/prog\n\
                    7f00-7f01 r-xp 00000000 08:01 12                          /opt/my app/lib/libx.so\n\
                    7f01-7f02 r-xp 00001000 08:01 12                          /opt/my app/lib/libx.so\n\
                    7f02-7f03 r-xp 00000000 08:01 13 /usr/lib/libold.so (deleted)\n\
                    7f03-7f04 rw-p 00000000 00:00 0 \n\
                    7ffd-7ffe r-xp 00000000 00:00 0                          [vdso]\n";
        assert_eq!(executable_files(maps), [("/opt/my app/bin/prog".to_string(), 11), ("/opt/my app/lib/libx.so".to_string(), 12)]);
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
