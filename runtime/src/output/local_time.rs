//! bpftrace's `time(format)`: the local time now, as strftime(3) formats it.

/// The local time now by `format` (strftime(3)'s conversions); "" if it does not format.
pub fn now(format: &str) -> String {
    let Ok(fmt) = std::ffi::CString::new(format) else { return String::new() };
    // SAFETY: time(NULL) and localtime_r() write only the tm given; strftime() writes at most
    // buf.len() bytes and returns how many it wrote.
    unsafe {
        let t = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
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
    }
}
