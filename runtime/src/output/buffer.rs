//! bpftrace's buffers (`buf()`'s values) as text: printf's `%r` and everywhere else a buffer
//! prints (map keys and values, `print()`) keep printable ASCII (32 to 126) and write every
//! other byte as `\xNN`; `%rx` writes every byte as `\xNN`, `%rh` as `NN` pairs joined by
//! spaces (bpftrace's hex_format_buffer()).

/// `bytes` as conversion `%r` (`form` None), `%rx` (`Some('x')`) or `%rh` (`Some('h')`)
/// prints them.
pub fn text(bytes: &[u8], form: Option<char>) -> String {
    let mut out = String::with_capacity(bytes.len() * 4);
    for (i, b) in bytes.iter().enumerate() {
        match form {
            None if (32..=126).contains(b) => out.push(*b as char),
            Some('h') if i + 1 < bytes.len() => out.push_str(&format!("{b:02x} ")),
            Some('h') => out.push_str(&format!("{b:02x}")),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// bpftrace 0.17's %r of the bytes `Hi\"%`, NUL, 1, tab, newline, 0x7f, 0x80, 0xff, `~ z`.
    #[test]
    fn as_bpftrace_prints_them() {
        let bytes = b"Hi\\\"%\0\x01\t\n\x7f\x80\xff~ z";
        assert_eq!(text(bytes, None), "Hi\\\"%\\x00\\x01\\x09\\x0a\\x7f\\x80\\xff~ z");
        assert_eq!(text(b"a\0", Some('x')), "\\x61\\x00");
        assert_eq!(text(b"a\0\xfe", Some('h')), "61 00 fe");
        assert_eq!(text(b"", Some('h')), "");
    }
}
