//! Where text output goes: standard output or `-o`'s file to begin with, then whatever file
//! `freopen()` names (appended to, as DTrace opens it), until `freopen("")` goes back to the
//! first. `ftruncate()` empties the file output goes to, as DTrace's does (a terminal or a
//! pipe stays as it is).

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::os::fd::{AsRawFd, RawFd};

/// The buffer in front of a file or standard output: a writer of millions of lines a second
/// makes one write(2) per 256 KiB instead of per 8 KiB (the session flushes it whenever the
/// event buffer is drained, so a reader waits no longer for it).
pub const BUFFER: usize = 256 * 1024;

pub struct Destination<'w> {
    first: Box<dyn Write + 'w>,
    /// The file descriptor under `first`, for ftruncate().
    first_fd: Option<RawFd>,
    /// The file freopen() named, and its name, while output goes there.
    reopened: Option<BufWriter<File>>,
    reopened_path: Option<String>,
}

impl<'w> Destination<'w> {
    /// Standard output.
    pub fn stdout() -> Destination<'static> {
        Destination { first: Box::new(BufWriter::with_capacity(BUFFER, io::stdout())), first_fd: Some(io::stdout().as_raw_fd()), reopened: None, reopened_path: None }
    }

    /// A file (`-o`).
    pub fn file(file: File) -> Destination<'static> {
        let fd = file.as_raw_fd();
        Destination { first: Box::new(BufWriter::with_capacity(BUFFER, file)), first_fd: Some(fd), reopened: None, reopened_path: None }
    }

    /// Any writer (tests): ftruncate() leaves it as it is.
    pub fn writer(out: Box<dyn Write + 'w>) -> Destination<'w> {
        Destination { first: out, first_fd: None, reopened: None, reopened_path: None }
    }

    fn current(&mut self) -> &mut dyn Write {
        match &mut self.reopened {
            Some(f) => f,
            None => &mut self.first,
        }
    }

    /// freopen(path): output goes to `path` from here on, appended to (created if need
    /// be); `""`: back to the first destination. A file that cannot be opened changes
    /// nothing.
    pub fn reopen(&mut self, path: &str) -> io::Result<()> {
        self.current().flush()?;
        if path.is_empty() {
            (self.reopened, self.reopened_path) = (None, None);
            return Ok(());
        }
        let file = std::fs::OpenOptions::new().append(true).create(true).open(path)?;
        (self.reopened, self.reopened_path) = (Some(BufWriter::with_capacity(BUFFER, file)), Some(path.to_string()));
        Ok(())
    }

    /// The name freopen() gave, while output goes there (pcap() writes its capture file
    /// under that name).
    pub fn reopened_path(&self) -> Option<&str> {
        self.reopened_path.as_deref()
    }

    /// ftruncate(): empties the file output goes to and writes from its start.
    pub fn truncate(&mut self) -> io::Result<()> {
        self.current().flush()?;
        match &mut self.reopened {
            Some(f) => {
                f.get_ref().set_len(0)?;
                f.get_mut().seek(SeekFrom::Start(0))?;
            }
            None => {
                if let Some(fd) = self.first_fd {
                    // SAFETY: plain system calls on a descriptor this destination writes to;
                    // on a terminal or pipe they fail and change nothing, as in DTrace.
                    unsafe {
                        if libc::ftruncate(fd, 0) == 0 {
                            libc::lseek(fd, 0, libc::SEEK_SET);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

impl Write for Destination<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.current().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.current().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reopens_appends_goes_back_and_truncates() {
        let dir = std::env::temp_dir().join(format!("crumbs-destination-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (first, other) = (dir.join("first"), dir.join("other"));
        std::fs::write(&other, "old\n").unwrap();
        let mut d = Destination::file(File::create(&first).unwrap());
        d.write_all(b"a\n").unwrap();
        d.reopen(other.to_str().unwrap()).unwrap();
        d.write_all(b"b\n").unwrap();
        assert!(d.reopen(dir.to_str().unwrap()).is_err(), "a directory cannot be opened");
        d.write_all(b"c\n").unwrap();
        d.reopen("").unwrap();
        d.write_all(b"d\n").unwrap();
        d.truncate().unwrap();
        d.write_all(b"e\n").unwrap();
        d.flush().unwrap();
        assert_eq!(std::fs::read_to_string(&first).unwrap(), "e\n");
        assert_eq!(std::fs::read_to_string(&other).unwrap(), "old\nb\nc\n");
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// A writer into bytes whose handle its maker keeps, to read back what a sink wrote (the
/// Python module takes each action's text from it; tests compare it).
#[derive(Clone, Default)]
pub struct SharedBytes(pub std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl Write for SharedBytes {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
