//! The traced process: `-c CMD` and `-p PID` (watched through a pidfd). A `-c` command is
//! forked and held before it execs; DTrace's order execs it at once and holds it, under
//! ptrace, before its first instruction until the probes are attached ([`Child::spawn`]);
//! bpftrace's lets it exec only once they are, so that they see its execve too
//! ([`Child::spawn_before_exec`]). Either way it is released stopped right after its exec.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A `-c` child, held until [`Child::release`]: probes attached before it see everything it
/// does.
pub struct Child {
    pub pid: i32,
    held: bool,
    /// It traces itself (DTrace's order): stopped after its exec until released.
    traced: bool,
    guardian: Option<Guardian>,
    /// Set while the child has not exec'd yet.
    before_exec: Option<BeforeExec>,
}

/// What lets a forked child exec, and says whether it did.
struct BeforeExec {
    /// 8 bytes written here let the child go on to exec (its closing ends it).
    go: OwnedFd,
    /// exec's errno if it failed; closed by a successful exec (close-on-exec).
    failed: OwnedFd,
    /// The command's first word, for messages.
    command: String,
}

/// Why a command could not be started.
#[derive(Debug)]
pub enum SpawnError {
    /// exec failed (no such file, not executable, ...): the command's first word and why.
    Exec { command: String, error: io::Error },
    /// The command's first word names no executable file (looked up in `PATH` as execvp(3)
    /// does when it has no `/`).
    NotFound { command: String },
    /// Anything else, said in one line.
    Other(String),
}

impl std::fmt::Display for SpawnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpawnError::Exec { command, error } => write!(f, "cannot execute `{command}`: {error}"),
            SpawnError::NotFound { command } => write!(f, "cannot execute `{command}`: no such executable file (a name without `/` is looked up in PATH)"),
            SpawnError::Other(msg) => f.write_str(msg),
        }
    }
}

/// How a `-c` child reaches its exec.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ExecOrder {
    /// DTrace's: `PATH` searched by execvp(3) in the child, which is traced and stops
    /// after its exec, before any probe is attached.
    DTrace,
    /// bpftrace's: the executable already found by crumbs, exec'd untraced once every
    /// probe is attached.
    Bpftrace,
}

/// The children forked and not yet exec'd, and the executable each will run: their
/// /proc/PID/exe and maps are still crumbs' own, so what the checker reads of a process's
/// files (`pid$target` probes, a target's USDT probes) comes from here for them.
static BEFORE_EXEC: Mutex<Vec<(i32, PathBuf)>> = Mutex::new(Vec::new());

/// The executable process `pid` will run, if it is a `-c` child crumbs holds before its exec.
pub fn executable_before_exec(pid: u32) -> Option<PathBuf> {
    let held = BEFORE_EXEC.lock().unwrap_or_else(|e| e.into_inner());
    held.iter().find(|(p, _)| *p as u32 == pid).map(|(_, exe)| exe.clone())
}

fn forget_before_exec(pid: i32) {
    BEFORE_EXEC.lock().unwrap_or_else(|e| e.into_inner()).retain(|(p, _)| *p != pid);
}

/// The file execvp(3) would run for `word`: `word` itself when it has a `/`, else the first
/// `PATH` directory's (`/bin:/usr/bin` without one; an empty entry is the current
/// directory) that is an executable file.
pub fn find_executable(word: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let executable = |p: &Path| {
        let c = CString::new(p.as_os_str().as_bytes()).ok();
        // SAFETY: access(2) on a NUL-terminated path.
        p.is_file() && c.is_some_and(|c| unsafe { libc::access(c.as_ptr(), libc::X_OK) } == 0)
    };
    if word.is_empty() {
        return None;
    }
    if word.contains('/') {
        return executable(Path::new(word)).then(|| PathBuf::from(word));
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/bin:/usr/bin".into());
    path.as_bytes().split(|b| *b == b':').map(|dir| Path::new(if dir.is_empty() { ".".as_ref() } else { std::ffi::OsStr::from_bytes(dir) }).join(word)).find(|p| executable(p))
}

/// The command's words (split like a shell would, without shell features).
fn words(command: &str) -> Result<Vec<String>, SpawnError> {
    shlex::split(command).filter(|w| !w.is_empty()).ok_or_else(|| SpawnError::Other(format!("cannot parse command `{command}`")))
}

impl Child {
    /// Starts `command` and holds it right after exec (DTrace's order). Fails, naming the
    /// command, if it cannot be executed.
    pub fn spawn(command: &str) -> Result<Child, SpawnError> {
        Child::spawn_words(&words(command)?)
    }

    /// [`Child::spawn`] of a command already split into words (`words[0]` is looked up in
    /// `PATH`).
    pub fn spawn_words(words: &[String]) -> Result<Child, SpawnError> {
        let first = words.first().ok_or_else(|| SpawnError::Other("empty command".into()))?;
        let mut child = Child::fork(words, first, ExecOrder::DTrace)?;
        child.exec()?;
        Ok(child)
    }

    /// bpftrace's order: `command`'s executable is found first (as execvp(3) finds it), then
    /// a child is forked and held before its exec, which [`Child::release`] lets happen; until
    /// then the checker reads the executable's file for it ([`executable_before_exec`]).
    pub fn spawn_before_exec(command: &str) -> Result<Child, SpawnError> {
        let words = words(command)?;
        let path = find_executable(&words[0]).ok_or_else(|| SpawnError::NotFound { command: words[0].clone() })?;
        let child = Child::fork(&words, &path.to_string_lossy(), ExecOrder::Bpftrace)?;
        let exe = std::fs::canonicalize(&path).unwrap_or(path);
        BEFORE_EXEC.lock().unwrap_or_else(|e| e.into_inner()).push((child.pid, exe));
        Ok(child)
    }

    /// Forks a child that waits to exec `program` with `words` as its arguments, in `order`.
    fn fork(words: &[String], program: &str, order: ExecOrder) -> Result<Child, SpawnError> {
        let traced = order == ExecOrder::DTrace;
        let other = |e: String| SpawnError::Other(e);
        if words.is_empty() {
            return Err(other("empty command".into()));
        }
        let nul = |_| other("command contains a NUL byte".into());
        let argv: Vec<CString> = words.iter().map(|w| CString::new(w.as_bytes())).collect::<Result<_, _>>().map_err(nul)?;
        let program = CString::new(program.as_bytes()).map_err(nul)?;
        let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        ptrs.push(std::ptr::null());
        let (go_read, go) = pipe().map_err(|e| other(e.to_string()))?;
        let (failed, failed_write) = pipe().map_err(|e| other(e.to_string()))?;
        // SAFETY: plain syscalls; between fork and exec the child calls only
        // async-signal-safe functions and touches no memory the parent may change.
        let pid = unsafe {
            let parent = libc::getpid();
            let pid = libc::fork();
            if pid < 0 {
                return Err(other(io::Error::last_os_error().to_string()));
            }
            if pid == 0 {
                // crumbs' ends: only crumbs may let the child go.
                libc::close(go.as_raw_fd());
                libc::close(failed.as_raw_fd());
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::getppid() != parent {
                    libc::_exit(127);
                }
                // DTrace's order: stop with SIGTRAP right after a successful exec (before any
                // probe is attached). bpftrace's runs untraced: that SIGTRAP would be a
                // signal its probes see sent; the exit is watched by seizing it instead
                // (Child::wait_seeing_exit).
                if traced {
                    libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0);
                }
                // Go on when crumbs says (8 bytes, as bpftrace's child reads: probes on read(2)
                // see the same return) and not if it closed the pipe first.
                let mut word = 0u64;
                let n = loop {
                    let n = libc::read(go_read.as_raw_fd(), &mut word as *mut u64 as *mut libc::c_void, 8);
                    if n >= 0 || *libc::__errno_location() != libc::EINTR {
                        break n;
                    }
                };
                if n != 8 {
                    libc::_exit(127);
                }
                if traced {
                    libc::execvp(program.as_ptr(), ptrs.as_ptr());
                } else {
                    libc::execv(program.as_ptr(), ptrs.as_ptr());
                }
                // exec failed: report errno through the pipe (closed by a successful exec).
                let errno = *libc::__errno_location();
                libc::write(failed_write.as_raw_fd(), &errno as *const i32 as *const libc::c_void, 4);
                libc::_exit(127);
            }
            pid
        };
        drop((go_read, failed_write));
        let mut child = Child { pid, held: true, traced, guardian: None, before_exec: Some(BeforeExec { go, failed, command: words[0].clone() }) };
        // On failure `child` is dropped: killed and reaped.
        child.guardian = Some(Guardian::start(pid).map_err(|e| other(format!("cannot start a process to watch `{}`: {e}", words[0])))?);
        Ok(child)
    }

    /// Lets a child held before its exec exec, and waits until it has, stopped after it;
    /// nothing for a child that has exec'd. A child that could not exec has been reaped.
    fn exec(&mut self) -> Result<(), SpawnError> {
        let Some(before) = self.before_exec.take() else { return Ok(()) };
        forget_before_exec(self.pid);
        let command = before.command;
        if !self.traced {
            return self.exec_untraced(before.go, before.failed, command);
        }
        // SAFETY: writing to and reading from our own pipes; tracing and waiting for our own
        // child.
        unsafe {
            libc::write(before.go.as_raw_fd(), &1u64 as *const u64 as *const libc::c_void, 8);
            drop(before.go);
            let mut status = 0;
            loop {
                if libc::waitpid(self.pid, &mut status, 0) < 0 {
                    if io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                        continue;
                    }
                    self.held = false;
                    return Err(SpawnError::Other(format!("cannot wait for `{command}`: {}", io::Error::last_os_error())));
                }
                // A signal that came before the exec is the child's (its default may end it).
                if libc::WIFSTOPPED(status) && libc::WSTOPSIG(status) != libc::SIGTRAP {
                    libc::ptrace(libc::PTRACE_CONT, self.pid, 0, libc::WSTOPSIG(status) as libc::c_long);
                    continue;
                }
                break;
            }
            if libc::WIFSTOPPED(status) {
                return Ok(());
            }
            // Gone (and reaped): its exec failed, or a signal ended it.
            self.held = false;
            let mut errno = 0i32;
            let n = libc::read(before.failed.as_raw_fd(), &mut errno as *mut i32 as *mut libc::c_void, 4);
            if n == 4 {
                return Err(SpawnError::Exec { command, error: io::Error::from_raw_os_error(errno) });
            }
            Err(SpawnError::Other(format!("`{command}` exited before it could be traced")))
        }
    }

    /// bpftrace's order: lets the untraced child exec, and waits until it has (its end of
    /// `failed` closes) or could not (it writes errno there and exits; it is reaped here or
    /// by the thread waiting for it).
    fn exec_untraced(&mut self, go: OwnedFd, failed: OwnedFd, command: String) -> Result<(), SpawnError> {
        self.held = false;
        // SAFETY: writing to and reading from our own pipes; reaping our own child.
        unsafe {
            libc::write(go.as_raw_fd(), &1u64 as *const u64 as *const libc::c_void, 8);
            drop(go);
            let mut errno = 0i32;
            let n = loop {
                let n = libc::read(failed.as_raw_fd(), &mut errno as *mut i32 as *mut libc::c_void, 4);
                if n >= 0 || io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                    break n;
                }
            };
            if n == 4 {
                libc::waitpid(self.pid, std::ptr::null_mut(), 0);
                return Err(SpawnError::Exec { command, error: io::Error::from_raw_os_error(errno) });
            }
        }
        Ok(())
    }

    /// Whether the child is held before its exec, untraced (bpftrace's order): its exit is
    /// watched by seizing it before [`Child::release`] ([`Child::wait_seeing_exit`] with
    /// `running`).
    pub fn runs_untraced(&self) -> bool {
        self.before_exec.is_some() && !self.traced
    }

    /// Lets the child run (a child held before its exec execs first).
    pub fn release(&mut self) -> Result<(), SpawnError> {
        self.exec()?;
        if std::mem::take(&mut self.held) {
            // SAFETY: detaching from our own stopped tracee; it continues without a signal.
            unsafe {
                libc::ptrace(libc::PTRACE_DETACH, self.pid, 0, 0);
            }
        }
        Ok(())
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

/// A pipe, both ends close-on-exec: (read, write).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 fills both descriptors, which are then owned here.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

impl Child {
    /// [`Child::release`] for [`Child::wait_seeing_exit`]: the child is let go with a
    /// SIGSTOP, so that it is still there, stopped, when the waiting thread starts tracing it
    /// (a command that runs for microseconds would otherwise be gone by then). Only for a
    /// child that traces itself: one that runs untraced ([`Child::runs_untraced`]) is
    /// seized before it is released instead ([`Child::wait_seeing_exit_of`]).
    pub fn release_stopped(&mut self) -> Result<(), SpawnError> {
        self.exec()?;
        if std::mem::take(&mut self.held) {
            // SAFETY: detaching from our own stopped tracee, which stops on the signal.
            unsafe {
                libc::ptrace(libc::PTRACE_DETACH, self.pid, 0, libc::SIGSTOP as libc::c_long);
            }
        }
        Ok(())
    }

    /// [`Child::wait`] of a child released by [`Child::release_stopped`], but `at_exit(pid)`
    /// runs while the child is stopped at its exit (PTRACE_EVENT_EXIT), its memory still
    /// mapped. The waiting thread traces the child for that (PTRACE_SEIZE) and lets it go on
    /// (SIGCONT): signals it receives are passed on and group stops left as they are, so
    /// nothing else changes for it but one SIGCONT. If it cannot be traced, this is
    /// [`Child::wait`].
    pub fn wait_seeing_exit(pid: i32, at_exit: impl FnMut(i32)) -> i32 {
        Child::wait_seeing_exit_of(pid, false, || {}, at_exit)
    }

    /// [`Child::wait_seeing_exit`] of a child that is `running` (held before its exec,
    /// untraced: seized as it is, with no SIGCONT, a signal probes would see), calling
    /// `seized` once it is traced, so that it may then be released.
    pub fn wait_seeing_exit_of(pid: i32, running: bool, seized: impl FnOnce(), mut at_exit: impl FnMut(i32)) -> i32 {
        // SAFETY: tracing, signalling and waiting for our own child, from this one thread.
        unsafe {
            let traced = libc::ptrace(libc::PTRACE_SEIZE, pid, 0, libc::PTRACE_O_TRACEEXIT as libc::c_long) == 0;
            seized();
            if !running {
                libc::kill(pid, libc::SIGCONT);
            }
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
        forget_before_exec(self.pid);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn executables_are_found_as_execvp_finds_them() {
        assert!(find_executable("sh").is_some_and(|p| p.is_absolute() && p.ends_with("sh")));
        assert_eq!(find_executable("/bin/sh"), Some(PathBuf::from("/bin/sh")));
        for missing in ["", "/etc/passwd", "/tmp", "./no-such-file", "no-such-command-xyz"] {
            assert_eq!(find_executable(missing), None, "{missing}");
        }
    }

    /// Until it execs, a child's executable is the file it will run; then /proc's again.
    #[test]
    fn a_child_held_before_exec_names_its_executable() {
        let mut child = Child::spawn_before_exec("/bin/sleep 5").unwrap();
        let exe = std::fs::canonicalize("/bin/sleep").unwrap();
        assert_eq!(executable_before_exec(child.pid as u32), Some(exe.clone()));
        // Released once it has exec'd (it sleeps, so that it is still there to look at).
        child.release().unwrap();
        assert_eq!(executable_before_exec(child.pid as u32), None);
        assert_eq!(std::fs::read_link(format!("/proc/{}/exe", child.pid)).ok(), Some(exe));
        // SAFETY: killing our own child, then reaped.
        unsafe { libc::kill(child.pid, libc::SIGKILL) };
        assert!(libc::WIFSIGNALED(Child::wait(child.pid)));
        let dropped = Child::spawn_before_exec("/bin/true").unwrap();
        let pid = dropped.pid as u32;
        drop(dropped);
        assert_eq!(executable_before_exec(pid), None);
    }
}
