//! Numbers printed as the names user space finds for them ([`NameOf`]): bpftrace's
//! `username` (a uid's entry in /etc/passwd), `strerror(errno)` (strerror(3)) and
//! `cgroup_path(id)` (the cgroup's directories under /sys/fs/cgroup).

use crumbs_lang::ir::{NameOf, Strings};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// The name of `n`; `strings` holds the program's interned strings (cgroup_path()'s filter).
pub fn name_of(kind: NameOf, n: i64, strings: &Strings) -> String {
    match kind {
        NameOf::User => user_name(n as u32),
        NameOf::Errno => error_message(n),
        NameOf::Signal => signal_description(n),
        NameOf::CgroupPath(filter) => super::cgroup_paths::cgroup_paths(n as u64, &strings.resolve(filter as u64)),
        NameOf::Pointer => format!("{:#x}", n as u64),
    }
}

/// The user name of `uid` in /etc/passwd (read once), or the number where it has none.
fn user_name(uid: u32) -> String {
    static USERS: OnceLock<Mutex<Option<HashMap<u32, String>>>> = OnceLock::new();
    let mut users = USERS.get_or_init(|| Mutex::new(None)).lock().unwrap_or_else(|e| e.into_inner());
    let table = users.get_or_insert_with(|| std::fs::read_to_string("/etc/passwd").map(|t| passwd_users(&t)).unwrap_or_default());
    table.get(&uid).cloned().unwrap_or_else(|| uid.to_string())
}

/// uid → name from /etc/passwd's lines (`name:x:uid:...`), the first name of a uid.
fn passwd_users(text: &str) -> HashMap<u32, String> {
    let mut out = HashMap::new();
    for line in text.lines() {
        let mut f = line.split(':');
        if let (Some(name), Some(_), Some(uid)) = (f.next(), f.next(), f.next()) {
            if let Ok(uid) = uid.parse() {
                out.entry(uid).or_insert_with(|| name.to_string());
            }
        }
    }
    out
}

/// strerror(3) of `errno`.
fn error_message(errno: i64) -> String {
    let Ok(n) = i32::try_from(errno) else { return format!("Unknown error {errno}") };
    // SAFETY: strerror returns a NUL-terminated string valid until the next call; it is
    // copied at once (crumbs formats output on one thread).
    unsafe { std::ffi::CStr::from_ptr(libc::strerror(n)) }.to_string_lossy().into_owned()
}

/// The description of signal `sig` as current bpftrace's signal_name() gives it: glibc's
/// strsignal(3) words for 0 to 64 (glibc keeps 32 and 33 for itself, so its real-time
/// signals are numbered from 34), "N/A" for any other number.
fn signal_description(sig: i64) -> String {
    const CLASSIC: [&str; 32] = [
        "Unknown signal 0", "Hangup", "Interrupt", "Quit", "Illegal instruction", "Trace/breakpoint trap", "Aborted", "Bus error",
        "Floating point exception", "Killed", "User defined signal 1", "Segmentation fault", "User defined signal 2", "Broken pipe",
        "Alarm clock", "Terminated", "Stack fault", "Child exited", "Continued", "Stopped (signal)", "Stopped", "Stopped (tty input)",
        "Stopped (tty output)", "Urgent I/O condition", "CPU time limit exceeded", "File size limit exceeded", "Virtual timer expired",
        "Profiling timer expired", "Window changed", "I/O possible", "Power failure", "Bad system call",
    ];
    match sig {
        0..=31 => CLASSIC[sig as usize].to_string(),
        32 | 33 => format!("Unknown signal {sig}"),
        34..=64 => format!("Real-time signal {}", sig - 34),
        _ => "N/A".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_come_from_passwd_lines_and_errors_from_strerror() {
        let t = passwd_users("root:x:0:0:root:/root:/bin/bash\nbad line\ndaemon:x:1:1::/:/bin/sh\ntoor:x:0:0::/:/bin/sh\n");
        assert_eq!((t[&0].as_str(), t[&1].as_str(), t.len()), ("root", "daemon", 2));
        let strings = Strings::default();
        assert_eq!(name_of(NameOf::Errno, 2, &strings), "No such file or directory");
        assert_eq!(name_of(NameOf::User, 4_000_000, &strings), "4000000");
    }

    #[test]
    fn signals_are_named_as_strsignal_names_them() {
        let strings = Strings::default();
        let name = |n| name_of(NameOf::Signal, n, &strings);
        assert_eq!([name(2), name(9), name(31), name(33), name(34), name(64)], ["Interrupt", "Killed", "Bad system call", "Unknown signal 33", "Real-time signal 0", "Real-time signal 30"]);
        assert_eq!([name(-1), name(65)], ["N/A", "N/A"]);
        // The table is glibc's: its strsignal(3) agrees.
        for n in 0..=64 {
            // SAFETY: strsignal returns a NUL-terminated string, copied at once.
            let libc_name = unsafe { std::ffi::CStr::from_ptr(libc::strsignal(n as i32)) }.to_string_lossy().into_owned();
            assert_eq!(name(n), libc_name, "signal {n}");
        }
    }
}
