//! The traced process: `-c CMD` (started stopped at its first instruction, released once
//! probes are attached, as DTrace does) and `-p PID` (watched through a pidfd).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// A child that has exec'd the command and is held, under ptrace, before its first
/// instruction: probes attached before [`Child::release`] see everything it does.
pub struct Child {
    pub pid: i32,
    held: bool,
    guardian: Option<Guardian>,
}

/// Why a command could not be started.
#[derive(Debug)]
pub enum SpawnError {
    /// exec failed (no such file, not executable, ...): the command's first word and why.
    Exec { command: String, error: io::Error },
    /// Anything else, said in one line.
    Other(String),
}

impl std::fmt::Display for SpawnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpawnError::Exec { command, error } => write!(f, "cannot execute `{command}`: {error}"),
            SpawnError::Other(msg) => f.write_str(msg),
        }
    }
}

impl Child {
    /// Starts `command` (split like a shell would, without shell features) and holds it
    /// right after exec. Fails, naming the command, if it cannot be executed.
    pub fn spawn(command: &str) -> Result<Child, SpawnError> {
        let words = shlex::split(command).filter(|w| !w.is_empty()).ok_or_else(|| SpawnError::Other(format!("cannot parse command `{command}`")))?;
        Child::spawn_words(&words)
    }

    /// [`Child::spawn`] of a command already split into words (`words[0]` is looked up in
    /// `PATH`).
    pub fn spawn_words(words: &[String]) -> Result<Child, SpawnError> {
        let other = |e: String| SpawnError::Other(e);
        if words.is_empty() {
            return Err(other("empty command".into()));
        }
        let argv: Vec<CString> = words.iter().map(|w| CString::new(w.as_bytes())).collect::<Result<_, _>>().map_err(|_| other("command contains a NUL byte".into()))?;
        let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        ptrs.push(std::ptr::null());
        let mut fds = [0 as RawFd; 2];
        // SAFETY: plain syscalls; between fork and exec the child calls only
        // async-signal-safe functions and touches no memory the parent may change.
        unsafe {
            if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                return Err(other(io::Error::last_os_error().to_string()));
            }
            let parent = libc::getpid();
            let pid = libc::fork();
            if pid < 0 {
                return Err(other(io::Error::last_os_error().to_string()));
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
                return Err(SpawnError::Exec { command: words[0].clone(), error: io::Error::from_raw_os_error(errno) });
            }
            if !libc::WIFSTOPPED(status) {
                return Err(other(format!("`{}` exited before it could be traced", words[0])));
            }
            let mut child = Child { pid, held: true, guardian: None };
            // On failure `child` is dropped: killed and reaped.
            child.guardian = Some(Guardian::start(pid).map_err(|e| other(format!("cannot start a process to watch `{}`: {e}", words[0])))?);
            Ok(child)
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

impl Child {
    /// [`Child::release`] for [`Child::wait_seeing_exit`]: the child is let go with a
    /// SIGSTOP, so that it is still there, stopped, when the waiting thread starts tracing it
    /// (a command that runs for microseconds would otherwise be gone by then).
    pub fn release_stopped(&mut self) {
        if std::mem::take(&mut self.held) {
            // SAFETY: detaching from our own stopped tracee, which stops on the signal.
            unsafe {
                libc::ptrace(libc::PTRACE_DETACH, self.pid, 0, libc::SIGSTOP as libc::c_long);
            }
        }
    }

    /// [`Child::wait`] of a child released by [`Child::release_stopped`], but `at_exit(pid)`
    /// runs while the child is stopped at its exit (PTRACE_EVENT_EXIT), its memory still
    /// mapped. The waiting thread traces the child for that (PTRACE_SEIZE) and lets it go on
    /// (SIGCONT): signals it receives are passed on and group stops left as they are, so
    /// nothing else changes for it but one SIGCONT. If it cannot be traced, this is
    /// [`Child::wait`].
    pub fn wait_seeing_exit(pid: i32, mut at_exit: impl FnMut(i32)) -> i32 {
        // SAFETY: tracing, signalling and waiting for our own child, from this one thread.
        unsafe {
            let traced = libc::ptrace(libc::PTRACE_SEIZE, pid, 0, libc::PTRACE_O_TRACEEXIT as libc::c_long) == 0;
            libc::kill(pid, libc::SIGCONT);
            if !traced {
                return Child::wait(pid);
            }
            let mut status = 0;
            loop {
                if libc::waitpid(pid, &mut status, libc::__WALL) < 0 {
                    if io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                        continue;
                    }
                    return status;
                }
                if !libc::WIFSTOPPED(status) {
                    return status;
                }
                let sig = libc::WSTOPSIG(status);
                match status >> 16 {
                    libc::PTRACE_EVENT_EXIT => {
                        at_exit(pid);
                        libc::ptrace(libc::PTRACE_DETACH, pid, 0, 0);
                    }
                    // A group stop stays one (until a SIGCONT); the end of one goes on.
                    libc::PTRACE_EVENT_STOP if matches!(sig, libc::SIGSTOP | libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU) => {
                        libc::ptrace(libc::PTRACE_LISTEN, pid, 0, 0);
                    }
                    libc::PTRACE_EVENT_STOP => {
                        libc::ptrace(libc::PTRACE_CONT, pid, 0, 0);
                    }
                    _ => {
                        libc::ptrace(libc::PTRACE_CONT, pid, 0, sig as libc::c_long);
                    }
                }
            }
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.abandon();
        // A child still running when crumbs is done with it is killed, as when crumbs dies.
        drop(self.guardian.take());
    }
}

/// A small process that kills the `-c` child once crumbs is gone, however it went (even
/// SIGKILL). The child's own PR_SET_PDEATHSIG is not enough: the kernel clears it when the
/// command execs a set-uid or set-gid file (ssh-agent, sudo, ping...).
///
/// The guardian is a fork of crumbs that waits on a pipe whose only write end crumbs holds
/// (close-on-exec, so the child never has it) and then kills the child through a pidfd,
/// which cannot hit another process that reused the pid.
struct Guardian {
    pid: i32,
    pipe: Option<OwnedFd>,
}

impl Guardian {
    fn start(child: i32) -> io::Result<Guardian> {
        let pidfd = pidfd_open(child)?;
        let mut fds = [0 as RawFd; 2];
        // SAFETY: plain syscalls; after fork the guardian only makes async-signal-safe
        // system calls on its own file descriptors and never returns.
        unsafe {
            if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                return Err(io::Error::last_os_error());
            }
            let (read, write) = (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]));
            let pid = libc::fork();
            if pid < 0 {
                return Err(io::Error::last_os_error());
            }
            if pid == 0 {
                guard(read.as_raw_fd(), pidfd.as_raw_fd());
            }
            Ok(Guardian { pid, pipe: Some(write) })
        }
    }
}

/// The guardian's whole life: keep only the pipe and the pidfd, wait for end of file, kill.
///
/// # Safety
/// Only in the child of a fork: it closes every other descriptor and exits.
unsafe fn guard(pipe: RawFd, pidfd: RawFd) -> ! {
    // Ctrl-C, a hang-up or a SIGTERM sent to crumbs' process group are crumbs' to handle;
    // the guardian outlives them and goes when crumbs does.
    for signal in [libc::SIGINT, libc::SIGQUIT, libc::SIGTERM, libc::SIGHUP, libc::SIGTSTP, libc::SIGPIPE] {
        let mut ignore: libc::sigaction = std::mem::zeroed();
        ignore.sa_sigaction = libc::SIG_IGN;
        libc::sigaction(signal, &ignore, std::ptr::null_mut());
    }
    // Nothing else crumbs had open (its output, the write end of the pipe) stays open here.
    let mut first = 0u32;
    for keep in [pipe.min(pidfd) as u32, pipe.max(pidfd) as u32] {
        if keep > first {
            libc::syscall(libc::SYS_close_range, first, keep - 1, 0);
        }
        first = keep + 1;
    }
    libc::syscall(libc::SYS_close_range, first, u32::MAX, 0);
    libc::prctl(libc::PR_SET_NAME, c"crumbs-guard".as_ptr());
    let mut byte = 0u8;
    while libc::read(pipe, &mut byte as *mut u8 as *mut libc::c_void, 1) < 0 && *libc::__errno_location() == libc::EINTR {}
    libc::syscall(libc::SYS_pidfd_send_signal, pidfd, libc::SIGKILL, std::ptr::null::<libc::siginfo_t>(), 0);
    libc::_exit(0)
}

impl Drop for Guardian {
    fn drop(&mut self) {
        // Closing the pipe ends the guardian, and the child with it if it still runs; reap
        // the guardian so that no zombie is left for the rest of crumbs' life.
        drop(self.pipe.take());
        // SAFETY: waiting for our own child.
        unsafe {
            while libc::waitpid(self.pid, std::ptr::null_mut(), 0) < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {}
        }
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

/// This process's ids, D's macro variables `$pid`, `$uid`, ... (as dtrace sets them).
pub fn own_ids() -> crumbs_lang::check::ProcessIds {
    // SAFETY: these calls only read the calling process's ids.
    unsafe {
        crumbs_lang::check::ProcessIds {
            pid: libc::getpid() as i64,
            ppid: libc::getppid() as i64,
            pgid: libc::getpgid(0) as i64,
            sid: libc::getsid(0) as i64,
            uid: libc::getuid() as i64,
            euid: libc::geteuid() as i64,
            gid: libc::getgid() as i64,
            egid: libc::getegid() as i64,
        }
    }
}
