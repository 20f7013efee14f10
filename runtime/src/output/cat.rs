//! bpftrace's cat(): a file's first bytes, read when the sink prints them, as bpftrace's
//! cat_file() reads them. A file that cannot be read prints nothing, and a message on
//! standard error (in bpftrace's words, `ERROR: failed to open file ...`, invoked as
//! bpftrace).

use std::io::Read;

/// The first `max` bytes of the file at `path` as text (bytes that are not UTF-8 as U+FFFD),
/// or "" after saying on standard error why it cannot be read.
pub fn contents(path: &str, max: u64, voice: &str) -> String {
    let mut bytes = Vec::new();
    match std::fs::File::open(path).and_then(|f| f.take(max).read_to_end(&mut bytes)) {
        Ok(_) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            let prefix = if voice == "bpftrace" { "ERROR".to_string() } else { voice.to_string() };
            eprintln!("{prefix}: failed to open file '{path}': {}", super::strerror(&e));
            String::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::contents;

    #[test]
    fn the_first_bytes_or_nothing() {
        let path = std::env::temp_dir().join(format!("crumbs-cat-{}", std::process::id()));
        std::fs::write(&path, "line1\nline2").unwrap();
        let p = path.to_str().unwrap();
        assert_eq!(contents(p, 10240, "crumbs"), "line1\nline2");
        assert_eq!(contents(p, 3, "crumbs"), "lin");
        std::fs::remove_file(&path).unwrap();
        assert_eq!(contents(p, 10, "crumbs"), "");
    }
}
