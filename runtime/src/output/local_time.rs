//! bpftrace's `time(format)`: the local time now, as strftime(3) formats it.

/// The local time now by `format` (strftime(3)'s conversions); "" if it does not format.
pub fn now(format: &str) -> String {
    // SAFETY: time(NULL) only returns the time.
    at(format, unsafe { libc::time(std::ptr::null_mut()) })
}

/// The local time it was `ns` nanoseconds after boot (CLOCK_MONOTONIC, as the kernel's
/// timestamps), by `format`; bpftrace's `%f` is the microseconds.
pub fn at_boot_ns(format: &str, ns: u64) -> String {
    // CLOCK_REALTIME - CLOCK_MONOTONIC, taken once, as walltimestamp's is.
    static OFFSET: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
    let wall = ns as i128 + *OFFSET.get_or_init(crate::kernel::codegen::wall_offset) as i128;
    let micros = format!("{:06}", (wall.rem_euclid(1_000_000_000) / 1000) as u64);
    at(&format.replace("%f", &micros), wall.div_euclid(1_000_000_000) as libc::time_t)
}

/// The local time `t` seconds after 1970 by `format`.
pub fn at(format: &str, t: libc::time_t) -> String {
    format_tm(format, t, false)
}

/// The UTC time `t` seconds after 1970 by `format`.
pub fn utc(format: &str, t: libc::time_t) -> String {
    format_tm(format, t, true)
}

fn format_tm(format: &str, t: libc::time_t, utc: bool) -> String {
    let Ok(fmt) = std::ffi::CString::new(format) else { return String::new() };
    // SAFETY: localtime_r() and gmtime_r() write only the tm given; strftime() writes at
    // most buf.len() bytes and returns how many it wrote.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        let done = if utc { libc::gmtime_r(&t, &mut tm) } else { libc::localtime_r(&t, &mut tm) };
        if done.is_null() {
            return String::new();
        }
        let mut buf = vec![0u8; 256 + format.len() * 8];
        let n = libc::strftime(buf.as_mut_ptr().cast(), buf.len(), fmt.as_ptr(), &tm);
        buf.truncate(n);
        String::from_utf8_lossy(&buf).into_owned()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_the_local_time() {
        let s = super::now("%H:%M:%S  ");
        assert_eq!(s.len(), 10, "{s:?}");
        assert_eq!(s.as_bytes()[2], b':');
        assert!(s.ends_with("  "));
        assert_eq!(super::now("year %Y").len(), 9);
        assert_eq!(super::utc("%Y-%m-%d %H:%M:%S", 86400 + 3661), "1970-01-02 01:01:01");
    }
}
