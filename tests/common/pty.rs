//! A small driver for programs that need a terminal (crumbs' REPL): the program runs on a
//! pseudo-terminal as its controlling terminal; the test types into it and waits for text
//! to appear in what it draws (colours and cursor movements taken out).

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Pty {
    child: Child,
    master: std::fs::File,
    /// Everything the program has drawn so far.
    seen: Arc<Mutex<Vec<u8>>>,
    /// How much of the cleaned transcript [`Pty::expect`] has consumed.
    at: usize,
}

impl Pty {
    /// Starts `cmd` on a new pseudo-terminal of 200 columns.
    pub fn spawn(mut cmd: Command) -> Pty {
        let (mut master, mut slave) = (0, 0);
        let size = libc::winsize { ws_row: 50, ws_col: 200, ws_xpixel: 0, ws_ypixel: 0 };
        // SAFETY: openpty writes the two descriptors it opens.
        let r = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &size) };
        assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both descriptors were just opened and are owned here.
        let (master, slave) = unsafe { (std::fs::File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        cmd.stdin(Stdio::from(slave.try_clone().unwrap())).stdout(Stdio::from(slave.try_clone().unwrap())).stderr(Stdio::from(slave));
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                // A session of its own, the terminal its controlling terminal (so Ctrl-C
                // typed there signals it).
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("start the program on a pseudo-terminal");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut reader = master.try_clone().unwrap();
        let mut answer = master.try_clone().unwrap();
        let sink = seen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // EIO once the program (and everything it started) has closed the terminal.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                // A line editor asking where the cursor is (ESC [ 6 n) gets the first column.
                if buf[..n].windows(4).any(|w| w == b"\x1b[6n") {
                    let _ = answer.write_all(b"\x1b[1;1R");
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Pty { child, master, seen, at: 0 }
    }

    /// Types `text` (`\r` is Enter, `\t` Tab).
    pub fn send(&mut self, text: &str) {
        self.master.write_all(text.as_bytes()).expect("write to the terminal");
    }

    /// Everything drawn so far, as drawn.
    pub fn raw(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().unwrap()).into_owned()
    }

    /// Everything drawn so far, without escape sequences and carriage returns.
    pub fn transcript(&self) -> String {
        clean(&String::from_utf8_lossy(&self.seen.lock().unwrap()))
    }

    /// Waits until `needle` appears after what earlier calls consumed; returns the text up
    /// to and including it. Fails with the whole transcript after `timeout`.
    pub fn expect(&mut self, needle: &str, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            let text = self.transcript();
            if let Some(i) = text[self.at.min(text.len())..].find(needle) {
                let end = self.at + i + needle.len();
                let got = text[self.at..end].to_string();
                self.at = end;
                return got;
            }
            if start.elapsed() > timeout {
                panic!("waited {timeout:?} for {needle:?}; the terminal shows:\n{}\n--- (consumed up to byte {})", text, self.at);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until the terminal shows `needle` last, with nothing after it (an empty prompt
    /// waiting for keys, not the same prompt redrawn with a line on it): what was typed
    /// before then could be thrown away with an interrupted line.
    /// Returns the text up to it, as [`Pty::expect`] does.
    pub fn expect_last(&mut self, needle: &str, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            let text = self.transcript();
            if text.len() >= self.at + needle.len() && text.ends_with(needle) {
                let got = text[self.at..].to_string();
                self.at = text.len();
                return got;
            }
            if start.elapsed() > timeout {
                panic!("waited {timeout:?} for {needle:?} last; the terminal shows:\n{}\n--- (consumed up to byte {})", text, self.at);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the program to exit; its status.
    pub fn wait(&mut self, timeout: Duration) -> std::process::ExitStatus {
        super::wait_with_timeout(&mut self.child, timeout, "the program on the pseudo-terminal")
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `s` without ANSI escape sequences (CSI `ESC [ ... final`, and two-byte `ESC x`) and
/// carriage returns.
pub fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => {
                if chars.next() == Some('[') {
                    for d in chars.by_ref() {
                        if ('@'..='~').contains(&d) {
                            break;
                        }
                    }
                }
            }
            '\r' | '\x07' => {}
            _ => out.push(c),
        }
    }
    out
}
