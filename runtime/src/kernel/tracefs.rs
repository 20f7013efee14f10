//! The kernel's tracepoints, from tracefs (mounted at /sys/kernel/tracing when it is not
//! there yet): what the checker matches `tracepoint:` probes against.

use crumbs_lang::facts::Listing;
use std::path::PathBuf;

pub const TRACEFS: &str = "/sys/kernel/tracing";

/// The events directory, mounting tracefs first if needed.
fn events() -> Result<PathBuf, String> {
    let events = PathBuf::from(TRACEFS).join("events");
    match std::fs::metadata(&events) {
        Ok(m) if m.is_dir() => return Ok(events),
        // Mounted (the usual case) but closed to this user: mounting again cannot help,
        // and "not mounted" would mislead.
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            return Err(format!("{} is not readable ({e}); reading the kernel's tracepoints needs root", events.display()));
        }
        _ => {}
    }
    let c = |s: &str| std::ffi::CString::new(s).unwrap();
    // SAFETY: mount(2) with valid C strings.
    let r = unsafe { libc::mount(c("nodev").as_ptr(), c(TRACEFS).as_ptr(), c("tracefs").as_ptr(), 0, std::ptr::null()) };
    if r != 0 || !events.is_dir() {
        return Err(format!("tracefs is not mounted at {TRACEFS} and mounting it failed ({})", std::io::Error::last_os_error()));
    }
    Ok(events)
}

/// Every tracepoint that has a format file.
pub fn list() -> Listing {
    let events = events()?;
    let mut out = Vec::new();
    let cats = std::fs::read_dir(&events).map_err(|e| format!("{}: {e}", events.display()))?;
    for cat in cats.flatten().filter(|e| e.path().is_dir()) {
        let Ok(evs) = std::fs::read_dir(cat.path()) else { continue };
        for ev in evs.flatten() {
            if ev.path().join("format").is_file() {
                out.push((cat.file_name().to_string_lossy().into_owned(), ev.file_name().to_string_lossy().into_owned()));
            }
        }
    }
    out.sort();
    Ok(out.into())
}

/// The text of a tracepoint's format file.
pub fn format(category: &str, event: &str) -> Result<String, String> {
    let path = events()?.join(category).join(event).join("format");
    std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
}
