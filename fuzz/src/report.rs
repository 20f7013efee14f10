//! Showing inputs to a person: escaped (control, invisible and bidi characters written as
//! Rust escapes), cut when huge, and saved whole to a file.

use std::path::{Path, PathBuf};

/// The input as a Rust string literal, at most `max` characters of it.
pub fn escaped(input: &str, max: usize) -> String {
    let shown: String = input.chars().take(max).collect();
    let mut out = format!("{shown:?}");
    let total = input.chars().count();
    if total > max {
        out.push_str(&format!(" ... ({} more characters; the whole input is in the saved file)", total - max));
    }
    out
}

/// A file name from a finding's key: `panic-at-lang-src-printf-rs-123-45`.
pub fn slug(key: &str) -> String {
    let mut s: String = key.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    while s.contains("--") {
        s = s.replace("--", "-");
    }
    let s = s.trim_matches('-');
    s.chars().take(80).collect()
}

/// Writes the input (exactly) to DIR/NAME.d and returns the path.
pub fn save(dir: &Path, name: &str, input: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{name}.d"));
    std::fs::write(&path, input)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_cuts() {
        assert_eq!(escaped("a\0\u{202e}£\n", 10), "\"a\\0\\u{202e}£\\n\"");
        assert!(escaped(&"x".repeat(50), 10).starts_with("\"xxxxxxxxxx\" ... (40 more characters"));
        assert_eq!(slug("panic at lang/src/printf.rs:12:3"), "panic-at-lang-src-printf-rs-12-3");
    }
}
