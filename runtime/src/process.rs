//! The traced process: `-c CMD` (started stopped at its first instruction, released once
//! probes are attached, as DTrace does) and `-p PID` (watched through a pidfd).

use std::ffi::CString;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

/// A child that has exec'd the command and is held, under ptrace, before its first
/// instruction: probes attached before [`Child::release`] see everything it does.
pub struct Child {
    pub pid: i32,
    held: bool,
}

impl Child {
    /// Starts `command` (split like a shell would, without shell features) and holds it
    /// right after exec. Fails, naming the command, if it cannot be executed.
    pub fn spawn(command: &str) -> Result<Child, String> {
        let words = shlex::split(command).filter(|w| !w.is_empty()).ok_or_else(|| format!("cannot parse command `{command}`"))?;
        let argv: Vec<CString> = words.iter().map(|w| CString::new(w.as_bytes())).collect::<Result<_, _>>().map_err(|_| "command contains a NUL byte".to_string())?;
        let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        ptrs.push(std::ptr::null());
        let mut fds = [0 as RawFd; 2];
        // SAFETY: plain syscalls; between fork and exec the child calls only
        // async-signal-safe functions and touches no memory the parent may change.
        unsafe {
            if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                return Err(io::Error::last_os_error().to_string());
            }
            let parent = libc::getpid();
            let pid = libc::fork();
            if pid < 0 {
                return Err(io::Error::last_os_error().to_string());
            }
            if pid == 0 {
                libc::close(fds[0]);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::getppid() != parent {
                    libc::_exit(127);
                }
                // Stop with SIGTRAP right after a successful exec.
                libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0);
                libc::execvp(ptrs[0], ptrs.as_ptr());
                // exec failed: report errno through the pipe (closed by a successful exec).
                let errno = *libc::__errno_location();
                libc::write(fds[1], &errno as *const i32 as *const libc::c_void, 4);
                libc::_exit(127);
            }
            libc::close(fds[1]);
            let mut errno = 0i32;
            let n = libc::read(fds[0], &mut errno as *mut i32 as *mut libc::c_void, 4);
            libc::close(fds[0]);
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            if n == 4 {
                return Err(format!("cannot execute `{}`: {}", words[0], io::Error::from_raw_os_error(errno)));
            }
            if !libc::WIFSTOPPED(status) {
                return Err(format!("`{}` exited before it could be traced", words[0]));
            }
            Ok(Child { pid, held: true })
        }
    }

    /// Lets the child run.
    pub fn release(&mut self) {
        if std::mem::take(&mut self.held) {
            // SAFETY: detaching from our own stopped tracee; it continues without a signal.
            unsafe {
                libc::ptrace(libc::PTRACE_DETACH, self.pid, 0, 0);
            }
        }
    }

    /// Ends a child that never ran (crumbs failed before attaching); also done on drop.
    fn abandon(&mut self) {
        if std::mem::take(&mut self.held) {
            // SAFETY: killing and reaping our own child.
            unsafe {
                libc::kill(self.pid, libc::SIGKILL);
                libc::waitpid(self.pid, std::ptr::null_mut(), 0);
            }
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

impl Drop for Child {
    fn drop(&mut self) {
        self.abandon();
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
