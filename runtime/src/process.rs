//! The traced process: `-c CMD` (started blocked, released once probes are attached) and
//! `-p PID` (watched through a pidfd).

use std::ffi::CString;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

/// A child forked from crumbs and waiting, before exec, for [`Child::release`].
pub struct Child {
    pub pid: i32,
    go: Option<OwnedFd>,
}

fn cvt(r: i32) -> io::Result<i32> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

impl Child {
    /// Forks `command` (split like a shell would, no shell features) and holds it before exec.
    pub fn spawn(command: &str) -> Result<Child, String> {
        let words = shlex::split(command).filter(|w| !w.is_empty()).ok_or_else(|| format!("cannot parse command `{command}`"))?;
        let argv: Vec<CString> = words.iter().map(|w| CString::new(w.as_bytes())).collect::<Result<_, _>>().map_err(|_| "command contains a NUL byte".to_string())?;
        let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        ptrs.push(std::ptr::null());
        let mut fds = [0 as RawFd; 2];
        // SAFETY: plain syscalls; the child only calls async-signal-safe functions before exec.
        unsafe {
            cvt(libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC)).map_err(|e| e.to_string())?;
            let parent = libc::getpid();
            let pid = libc::fork();
            if pid < 0 {
                return Err(io::Error::last_os_error().to_string());
            }
            if pid == 0 {
                libc::close(fds[1]);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::getppid() != parent {
                    libc::_exit(127);
                }
                let mut b = 0u8;
                if libc::read(fds[0], &mut b as *mut u8 as *mut libc::c_void, 1) != 1 {
                    libc::_exit(127);
                }
                libc::execvp(ptrs[0], ptrs.as_ptr());
                let msg = b"crumbs: cannot run the -c command (exec failed)\n";
                libc::write(2, msg.as_ptr() as *const libc::c_void, msg.len());
                libc::_exit(127);
            }
            libc::close(fds[0]);
            Ok(Child { pid, go: Some(OwnedFd::from_raw_fd(fds[1])) })
        }
    }

    /// Lets the child exec.
    pub fn release(&mut self) {
        if let Some(fd) = self.go.take() {
            use std::io::Write;
            let mut f = std::fs::File::from(fd);
            let _ = f.write_all(&[1]);
        }
    }

    /// Stops a child that never ran (crumbs failed before attaching).
    pub fn abandon(&mut self) {
        self.go.take();
        // SAFETY: reaping our own child.
        unsafe {
            libc::waitpid(self.pid, std::ptr::null_mut(), 0);
        }
    }

    /// Blocks until the child exits; returns its wait status.
    pub fn wait(pid: i32) -> i32 {
        let mut status = 0;
        // SAFETY: waiting for our own child.
        unsafe {
            while libc::waitpid(pid, &mut status, 0) < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {}
        }
        status
    }
}

/// A pidfd for `-p PID`: readable when the process exits.
pub fn pidfd_open(pid: i32) -> io::Result<OwnedFd> {
    // SAFETY: plain syscall; the returned fd is owned by the caller.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}
