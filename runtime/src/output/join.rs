//! bpftrace's join(): the strings the kernel read (a fixed number of places, each a
//! NUL-terminated string), up to the first empty one, joined by the separator, as a line.

/// The text `bytes` (`count` places of equal size) make (the text sinks end its line).
pub fn joined(bytes: &[u8], count: usize, sep: &str) -> String {
    let size = bytes.len().checked_div(count).unwrap_or(0);
    let mut out = String::new();
    for (i, place) in bytes.chunks(size.max(1)).take(count).enumerate() {
        let s = place.split(|b| *b == 0).next().unwrap_or_default();
        if s.is_empty() {
            break;
        }
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(&String::from_utf8_lossy(s));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::joined;

    fn places(strings: &[&str], size: usize, count: usize) -> Vec<u8> {
        // Bytes after each NUL are whatever the record held.
        let mut b = vec![0xaa; size * count];
        b.iter_mut().step_by(size).for_each(|x| *x = 0);
        for (i, s) in strings.iter().enumerate() {
            b[i * size..i * size + s.len()].copy_from_slice(s.as_bytes());
            b[i * size + s.len()] = 0;
        }
        b
    }

    #[test]
    fn joined_up_to_the_first_empty_string() {
        assert_eq!(joined(&places(&["/bin/echo", "hi", "there"], 16, 4), 4, " "), "/bin/echo hi there");
        assert_eq!(joined(&places(&["a", "", "c"], 8, 4), 4, ","), "a");
        assert_eq!(joined(&places(&["a", "b", "c", "d"], 8, 4), 4, ", "), "a, b, c, d");
        assert_eq!(joined(&places(&[], 8, 2), 2, " "), "");
    }
}
