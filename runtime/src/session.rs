//! One tracing session: load the ELF with aya, run BEGIN, attach, stream events until
//! exit()/Ctrl-C/the traced process ends, detach, run END, print aggregations.

use crate::attach::{self, Link};
use crate::actions::Aggregations;
use crate::events::{Event, Events};
use crate::output::{Sink, Stopped};
use crate::process::{self, Child};
use crate::progress::Progress;
use crate::stop::StopHandle;
use crate::sys;
use aya::maps::{Map, MapData, RingBuf};
use aya::programs::{ProgramError, RawTracePoint};
use aya::{Ebpf, EbpfLoader};
use crumbs_lang::dialect::Dialect;
use crumbs_ebpf::abi::{agg_map_name, EVENTS_MAP, STACKS_MAP, USTACKS_BUILD_ID_MAP, USTACKS_MAP};
use crumbs_ebpf::abi::drops::DROPS_MAP;
use crumbs_ebpf::abi::Compiled;
use crumbs_lang::ir::Program;
use crumbs_lang::providers::AttachPoint;
use std::io;
use std::os::fd::{AsFd, AsRawFd, RawFd};
use std::time::{Duration, Instant};
use tokio::io::unix::AsyncFd;

#[derive(Default)]
pub struct RunOptions {
    /// No progress lines on standard error.
    pub quiet: bool,
    /// The `-c` command, forked and waiting.
    pub child: Option<Child>,
    /// The `-p` process.
    pub pid: Option<i32>,
    /// Stops tracing when asked (the command line asks on Ctrl-C and SIGTERM).
    pub stop: Option<StopHandle>,
    /// Load and attach every probe, then detach and end (bpftrace's `--dry-run`): nothing
    /// runs, BEGIN included, and nothing is printed.
    pub dry_run: bool,
    /// Turns readable at each SIGUSR1 the caller receives (it installs the handler, as for
    /// `stop`): the program's `self:signal:SIGUSR1` probe then runs once.
    pub self_signal: Option<StopHandle>,
}

#[derive(Debug)]
pub enum RunError {
    /// Not allowed to use BPF: one line saying what is missing.
    Permission(String),
    /// The kernel rejected a program: a bug in crumbs' code generation.
    Verifier { attach: AttachPoint, clauses: Vec<usize>, message: String, log_tail: String },
    Other(String),
}

impl From<io::Error> for RunError {
    fn from(e: io::Error) -> Self {
        RunError::Other(e.to_string())
    }
}

fn permission(e: &dyn std::fmt::Display) -> RunError {
    RunError::Permission(format!("not permitted to load BPF programs ({e}): run as root (it needs CAP_BPF and CAP_PERFMON)"))
}

/// bpftrace's environment variable: set, the line is printed on standard error once every
/// probe is attached.
const NOTIFY_ATTACHED: &str = "__BPFTRACE_NOTIFY_PROBES_ATTACHED";

/// The kernel maps holding bpftrace's maps of values (arrays named `@...`) and the read
/// values of aggregations (which clear() and trunc() of those change).
fn value_maps(ebpf: &Ebpf, program: &Program) -> crate::value_maps::ValueMaps {
    let read: Vec<usize> = program.aggregations.iter().flat_map(|a| a.read.iter().copied()).collect();
    let arrays = program.arrays.iter().enumerate().map(|(i, a)| if a.keeps_zero || read.contains(&i) { ebpf.map(&crumbs_ebpf::abi::array_map_name(i)).and_then(map_fd) } else { None }).collect();
    crate::value_maps::ValueMaps::new(arrays)
}

/// A map's descriptor, for the programs crumbs loads itself and for reading maps of values.
pub(crate) fn map_fd(m: &Map) -> Option<RawFd> {
    let data: &MapData = match m {
        Map::PerCpuHashMap(d) | Map::Array(d) | Map::HashMap(d) | Map::LruHashMap(d) | Map::RingBuf(d) | Map::PerCpuArray(d) | Map::StackTraceMap(d) => d,
        _ => return None,
    };
    Some(data.fd().as_fd().as_raw_fd())
}

/// Detaches every probe. The kernel waits for an RCU grace period as each tracepoint's
/// perf event goes (tens of ms here): one after another, `tracepoint:syscalls:sys_enter_*`
/// (361 of them) took 26 s to detach. Dropping the links from many threads at once lets the
/// waits overlap.
fn detach_all(mut owned: Vec<Link>, quiet: bool) {
    const PER_THREAD: usize = 8;
    if owned.len() <= PER_THREAD {
        return;
    }
    let total = owned.len();
    let mut progress = Progress::new("detaching probes", total, !quiet);
    let done = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        while !owned.is_empty() {
            let chunk: Vec<Link> = owned.drain(..PER_THREAD.min(owned.len())).collect();
            let done = &done;
            s.spawn(move || {
                for link in chunk {
                    drop(link);
                    done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
        let mut shown = 0;
        while shown < total {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let now = done.load(std::sync::atomic::Ordering::Relaxed);
            progress.advance(now - shown);
            shown = now;
        }
    });
}

/// Fails early, in one line, when this process cannot load BPF programs.
pub fn check_permission() -> Result<(), RunError> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(RunError::Permission("must run as root to load BPF programs (it needs CAP_BPF and CAP_PERFMON)".into()));
    }
    Ok(())
}

/// Loads every program; on a verifier rejection, says which clauses it held.
pub(crate) fn load(program: &Program, compiled: &Compiled, quiet: bool) -> Result<(Ebpf, attach::OwnPrograms), RunError> {
    check_permission()?;
    let mut ebpf = loader_without_vmlinux_btf().btf(None).load(&compiled.elf).map_err(|e| {
        let text = format!("{e:#}");
        if text.contains("Operation not permitted") || text.contains("permission") {
            permission(&e)
        } else {
            RunError::Other(format!("cannot create BPF maps: {text}"))
        }
    })?;
    fill_syscall_names(&mut ebpf)?;
    let mut progress = Progress::new("loading programs", compiled.programs.len(), !quiet);
    let mut own = attach::OwnPrograms::default();
    for code in &compiled.programs {
        progress.tick();
        if let Err(e) = attach::load(&mut ebpf, &mut own, program, code)? {
            return Err(match e {
                ProgramError::LoadError { io_error, verifier_log } => {
                    if io_error.kind() == io::ErrorKind::PermissionDenied && verifier_log.to_string().trim().is_empty() {
                        return Err(permission(&io_error));
                    }
                    let log = verifier_log.to_string();
                    // The verifier's own limits (a million steps, 8192 pending branches):
                    // the program is too big or branchy for it, not wrongly generated.
                    // ENOMEM: the verifier could not allocate what checking it takes.
                    let out_of_memory = io_error.raw_os_error() == Some(12);
                    if log.contains("infinite loop detected") {
                        return Err(RunError::Other(format!("the kernel's verifier refused the program for {:?}: a while loop never ends (each pass leaves everything as it was)", code.attach)));
                    }
                    if log.contains("BPF program is too large") || log.contains("jumps is too complex") || out_of_memory {
                        // Not a code generation bug: the verifier gives up after a million steps.
                        let loops = program.group(code.attach).is_some_and(|g| g.clauses.iter().any(|c| c.body.iter().any(|s| s.any(&mut |n| matches!(n, crumbs_lang::ir::Node::Stmt(crumbs_lang::ir::Stmt::While { .. }))))));
                        let advice = if loops { "; its while loops must end within that many steps (the verifier follows every pass through a loop)" } else { "; use fewer or simpler clauses on that probe" };
                        return Err(RunError::Other(format!("the kernel's verifier gave up on the program for {:?}: it is too complex to check (over its limit of 1,000,000 steps or 8192 pending branches, or more memory than it may take){advice}", code.attach)));
                    }
                    // Kernel lockdown (integrity or confidentiality) takes this helper away.
                    // (Kernels before 6.2 word it "unknown func".)
                    if log.contains("cannot use helper bpf_probe_write_user") || log.contains("unknown func bpf_probe_write_user") {
                        return Err(RunError::Other("this kernel does not let BPF programs write user memory (kernel lockdown; see /sys/kernel/security/lockdown), so copyout(), copyoutstr() and write_user() cannot run here".into()));
                    }
                    // A kernel built without CONFIG_BPF_KPROBE_OVERRIDE has no such helper.
                    if log.contains("unknown func bpf_override_return") || log.contains("cannot use helper bpf_override_return") {
                        return Err(RunError::Other("this kernel was built without CONFIG_BPF_KPROBE_OVERRIDE (bpf_override_return is not among its BPF helpers), so override() cannot run here".into()));
                    }
                    let lines: Vec<&str> = log.lines().collect();
                    let tail = lines[lines.len().saturating_sub(12)..].join("\n");
                    let clauses = program.group(code.attach).map(|g| g.clauses.iter().map(|c| c.index).collect()).unwrap_or_default();
                    RunError::Verifier { attach: code.attach, clauses, message: io_error.to_string(), log_tail: tail }
                }
                other => RunError::Other(other.to_string()),
            });
        }
    }
    Ok((ebpf, own))
}

/// The system call names table, for programs that need probefunc as a string in the kernel.
fn fill_syscall_names(ebpf: &mut Ebpf) -> Result<(), RunError> {
    use crumbs_ebpf::abi::{SYSCALL_NAMES_MAP, SYSCALL_NAME_SIZE};
    let Some(map) = ebpf.map_mut(SYSCALL_NAMES_MAP) else { return Ok(()) };
    let mut table: aya::maps::Array<_, [u8; SYSCALL_NAME_SIZE as usize]> = aya::maps::Array::try_from(map).map_err(|e| RunError::Other(format!("system call names table: {e}")))?;
    for (nr, name) in crumbs_lang::syscalls::SyscallTable::get().iter() {
        let mut value = [0u8; SYSCALL_NAME_SIZE as usize];
        let n = name.len().min(value.len() - 1);
        value[..n].copy_from_slice(&name.as_bytes()[..n]);
        table.set(nr, value, 0).map_err(|e| RunError::Other(format!("system call names table: {e}")))?;
    }
    Ok(())
}

/// aya's `EbpfLoader::new()` reads and parses all of /sys/kernel/btf/vmlinux (5 MB: about
/// 15 ms and 8 MiB here) although crumbs' programs need no BTF, and offers no way to skip it.
/// Create the loader in a private mount namespace where that file is empty, then come back
/// (and back to the working directory, which entering a mount namespace resets to its root).
/// Falls back to the plain loader wherever that is not possible.
fn loader_without_vmlinux_btf() -> EbpfLoader<'static> {
    use std::ffi::CString;
    let Ok(orig) = std::fs::File::open("/proc/self/ns/mnt") else { return EbpfLoader::new() };
    let Ok(cwd) = std::fs::File::open(".") else { return EbpfLoader::new() };
    let c = |s: &str| CString::new(s).unwrap();
    // SAFETY: plain syscalls on a single-threaded process (no threads exist yet).
    unsafe {
        if libc::unshare(libc::CLONE_NEWNS) != 0 {
            return EbpfLoader::new();
        }
        // If either mount fails the loader simply parses the file as usual.
        if libc::mount(std::ptr::null(), c("/").as_ptr(), std::ptr::null(), libc::MS_REC | libc::MS_PRIVATE, std::ptr::null()) == 0 {
            libc::mount(c("/dev/null").as_ptr(), c("/sys/kernel/btf/vmlinux").as_ptr(), std::ptr::null(), libc::MS_BIND, std::ptr::null());
        }
        let loader = EbpfLoader::new();
        libc::setns(orig.as_raw_fd(), libc::CLONE_NEWNS);
        libc::fchdir(cwd.as_raw_fd());
        loader
    }
}

/// Runs the BEGIN or END program, if there is one.
fn run_once(ebpf: &mut Ebpf, compiled: &Compiled, attach: AttachPoint) -> Result<(), RunError> {
    let Some(code) = compiled.programs.iter().find(|c| c.attach == attach) else { return Ok(()) };
    let name = &code.name;
    let Some(prog) = ebpf.program_mut(name) else { return Ok(()) };
    let prog: &mut RawTracePoint = prog.try_into().map_err(|e: ProgramError| RunError::Other(e.to_string()))?;
    let fd = prog.fd().map_err(|e| RunError::Other(e.to_string()))?.as_fd().as_raw_fd();
    sys::run_once(fd).map_err(|e| RunError::Other(format!("cannot run {name}: {e}")))
}

/// How long one turn of the event loop may print records. A buffer that never empties (a
/// program that traces crumbs' own output work feeds itself) must not keep the loop from
/// noticing a signal or the end of the traced process; a record can take long to print
/// (a stack to resolve, an aggregation to read), so the bound is time, not a count.
const TURN: Duration = Duration::from_millis(20);

enum Drained {
    /// A record held `exit()`.
    Exit(i32),
    /// The buffer is empty.
    Empty,
    /// The turn's time is up and more records may be waiting.
    More,
}

/// Decodes records into the sink for up to `TURN`.
fn drain_some(rb: &mut RingBuf<MapData>, events: &mut Events, sink: &mut dyn Sink) -> io::Result<Drained> {
    let end = Instant::now() + TURN;
    let mut drained = Drained::Empty;
    let mut n = 0u32;
    while let Some(item) = rb.next() {
        if let Some(e) = events.event(&item)? {
            if let Some(status) = deliver_event(e, sink)? {
                return Ok(Drained::Exit(status));
            }
        }
        // The clock is read every 64 records (a read per record cost 3% of a JSON writer's
        // time): a turn runs over by 63 records at most.
        n = n.wrapping_add(1);
        if n.is_multiple_of(64) && Instant::now() >= end {
            drained = Drained::More;
            break;
        }
    }
    sink.flush()?;
    Ok(drained)
}

/// BEGIN's records, decoded but not yet printed, and its exit() status if it called it: in
/// DTrace every probe is enabled when BEGIN fires and its records are consumed after, so what
/// they do (a `system()` command) is traced; and nothing is attached after an exit().
fn take_begin<'p>(rb: &mut RingBuf<MapData>, events: &mut Events<'p>) -> io::Result<(Vec<Event<'p>>, Option<i32>)> {
    let mut out = Vec::new();
    while let Some(item) = rb.next() {
        let Some(e) = events.event(&item)? else { continue };
        let exit = match &e {
            Event::Firing(d) => d.exit,
            _ => None,
        };
        out.push(e);
        if exit.is_some() {
            return Ok((out, exit));
        }
    }
    Ok((out, None))
}

/// Gives decoded records to the sink, in order.
fn deliver(events: Vec<Event>, sink: &mut dyn Sink) -> io::Result<()> {
    for e in events {
        deliver_event(e, sink)?;
    }
    sink.flush()
}

/// Gives one decoded record to the sink (a firing, then what it committed; or a fault);
/// the status if it called exit().
fn deliver_event(e: Event, sink: &mut dyn Sink) -> io::Result<Option<i32>> {
    match e {
        Event::Firing(d) => {
            sink.firing(&d.firing)?;
            for f in &d.committed {
                sink.firing(f)?;
            }
            Ok(d.exit)
        }
        Event::Fault(f) => sink.fault(&f).map(|_| None),
        Event::Held => Ok(None),
    }
}

/// Prints every record in the buffer; only for when nothing adds to it any more (after
/// detaching), so that it ends.
fn drain(rb: &mut RingBuf<MapData>, events: &mut Events, sink: &mut dyn Sink) -> io::Result<Option<i32>> {
    loop {
        match drain_some(rb, events, sink)? {
            Drained::Exit(status) => return Ok(Some(status)),
            Drained::Empty => return Ok(None),
            Drained::More => {}
        }
    }
}

/// Consumes what is left in the buffer without printing it (after exit(), as DTrace does).
fn discard(rb: &mut RingBuf<MapData>) {
    while rb.next().is_some() {}
}

/// The drop counters; none if they cannot be read (nothing to report then).
fn dropped(ebpf: &Ebpf) -> crate::drops::Drops {
    let Some(fd) = ebpf.map(DROPS_MAP).and_then(map_fd) else { return Default::default() };
    crate::drops::Drops::read(fd, crate::kernel::cpus::possible()).unwrap_or_default()
}

/// Runs the session to the end on a runtime of its own, everything it outputs going to
/// `sink`; returns the exit status crumbs should exit with. A `-c` child that was never
/// released is killed when `opts` is dropped.
pub fn run(program: &Program, compiled: &Compiled, opts: RunOptions, sink: &mut dyn Sink) -> Result<i32, RunError> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(trace(program, compiled, opts, sink))
}

/// [`run`] on the caller's tokio runtime (a current-thread one: the session does not move
/// between threads).
pub async fn trace(program: &Program, compiled: &Compiled, mut opts: RunOptions, sink: &mut dyn Sink) -> Result<i32, RunError> {
    trace_inner(program, compiled, &mut opts, sink).await
}

async fn trace_inner(program: &Program, compiled: &Compiled, opts: &mut RunOptions, sink: &mut dyn Sink) -> Result<i32, RunError> {
    // Before loading, so that nothing runs (BEGIN included) where the probes cannot attach.
    // Loading alone needs no kprobes: the fuzzer's live lane verifies fbt programs anywhere.
    attach::prepare(program, &compiled.programs)?;
    let (mut ebpf, own) = load(program, compiled, opts.quiet)?;
    let agg_fds: Vec<RawFd> = (0..program.aggregations.len())
        .map(|i| ebpf.map(&agg_map_name(i)).and_then(map_fd).ok_or_else(|| RunError::Other(format!("map {} missing", agg_map_name(i)))))
        .collect::<Result<_, _>>()?;
    let events = ebpf.take_map(EVENTS_MAP).ok_or_else(|| RunError::Other("event map missing".into()))?;
    let ring = RingBuf::try_from(events).map_err(|e| RunError::Other(e.to_string()))?;
    let exited = crate::ustacks::ExitMaps::default();
    let user = crate::ustacks::UserStacks::new(ebpf.map(USTACKS_MAP).and_then(map_fd), program.options.ustackframes, exited.clone())
        .with_build_ids(ebpf.map(USTACKS_BUILD_ID_MAP).and_then(map_fd));
    let stacks = crate::stacks::Stacks::new(ebpf.map(STACKS_MAP).and_then(map_fd)).with_default_frames(program.options.stackframes).with_user(user);
    let mut events = Events::new(program, Aggregations::new(program, agg_fds, stacks)).with_meta(compiled.record_meta);
    events.values = value_maps(&ebpf, program);

    let asked = match &opts.stop {
        // SAFETY: the descriptor is owned by the AsyncFd.
        Some(h) => Some(unsafe { AsyncFd::register(h.watch()?) }.map_err(|e| RunError::Other(format!("cannot poll for a stop request: {e}")))?),
        None => None,
    };

    let usr1 = match &opts.self_signal {
        // SAFETY: the descriptor is owned by the AsyncFd.
        Some(h) => Some(unsafe { AsyncFd::register(h.watch()?) }.map_err(|e| RunError::Other(format!("cannot poll for SIGUSR1: {e}")))?),
        None => None,
    };

    let watched = match opts.pid {
        Some(pid) => {
            let fd = process::pidfd_open(pid).map_err(|e| RunError::Other(format!("-p {pid}: cannot watch that process: {e}")))?;
            // SAFETY: the pidfd is owned by the AsyncFd.
            Some(unsafe { AsyncFd::register(fd) }.map_err(|e| RunError::Other(format!("-p {pid}: cannot watch that process: {e}")))?)
        }
        None => None,
    };
    // SAFETY: the ring buffer's fd stays open while the AsyncFd owns it.
    let mut ring = unsafe { AsyncFd::register(ring) }.map_err(|e| RunError::Other(format!("cannot poll the event buffer: {e}")))?;
    // DTrace runs BEGIN before it attaches the other probes, bpftrace after.
    let begin_first = program.dialect != Dialect::Bpftrace;
    let (mut begun, mut stop) = (Vec::new(), None);
    if begin_first {
        run_once(&mut ebpf, compiled, AttachPoint::Begin)?;
        let (b, begin_exit) = take_begin(ring.get_mut(), &mut events)?;
        (begun, stop) = (b, begin_exit.map(Stopped::Exit));
    }

    let mut links = Vec::new();
    let mut iters = Vec::new();
    if stop.is_none() {
        let mut progress = Progress::new("attaching probes", compiled.programs.len(), !opts.quiet);
        let mut tally = attach::Tally::default();
        // Attaching hundreds of probes takes seconds, and those attached fire meanwhile: the
        // buffer is read as it goes, so that it is not full when tracing has begun. Only where
        // that keeps the order (a D program whose BEGIN sent nothing: its records are
        // printed once every probe is attached, and bpftrace's BEGIN runs after).
        let read_while_attaching = begin_first && begun.is_empty();
        let mut last_read = Instant::now();
        for code in &compiled.programs {
            progress.tick();
            links.extend(attach::attach(&mut ebpf, &own, program, code, &mut tally)?);
            if read_while_attaching && last_read.elapsed() >= TURN {
                if let Drained::Exit(s) = drain_some(ring.get_mut(), &mut events, sink)? {
                    stop = Some(Stopped::Exit(s));
                    break;
                }
                last_read = Instant::now();
            }
        }
        iters = std::mem::take(&mut tally.iters);
        if let Some(line) = tally.outcome()? {
            sink.notice(&line)?;
        }
    }
    if opts.dry_run {
        detach_all(links, opts.quiet);
        return Ok(0);
    }
    if stop.is_none() {
        sink.attached()?;
        // Test harnesses wait for this line before they start the workload (a D program's
        // BEGIN has run already, a bpftrace program's runs next).
        if std::env::var_os(NOTIFY_ATTACHED).is_some() {
            eprintln!("{NOTIFY_ATTACHED}");
        }
    }
    if !begin_first {
        run_once(&mut ebpf, compiled, AttachPoint::Begin)?;
        let (b, begin_exit) = take_begin(ring.get_mut(), &mut events)?;
        (begun, stop) = (b, begin_exit.map(Stopped::Exit));
    }
    // What BEGIN printed, once every probe is attached (a system() command's work traced).
    deliver(begun, sink)?;
    // An iterator (bpftrace's iter:task) is read now, its program run once per object, and
    // tracing then ends as after exit().
    if stop.is_none() && !iters.is_empty() {
        for iter in iters {
            let iter = match iter {
                attach::iter::Made::Read(iter) => iter,
                // bpftrace's: pinned, not run; its line on standard output.
                attach::iter::Made::Pin(link, path) => {
                    attach::iter::pin(&link, path).map_err(|e| RunError::Other(format!("Failed to pin iter probe link at {path}: {e}")))?;
                    sink.flush()?;
                    println!("Program pinned to {path}");
                    continue;
                }
            };
            attach::iter::run(iter).map_err(|e| RunError::Other(format!("cannot read the iterator: {e}")))?;
            if let Some(s) = drain(ring.get_mut(), &mut events, sink)? {
                stop = Some(Stopped::Exit(s));
                break;
            }
        }
        stop.get_or_insert(Stopped::Exit(0));
    }

    let (child_tx, mut child_rx) = tokio::sync::oneshot::channel::<i32>();
    if let (Some(child), None) = (opts.child.as_mut(), &stop) {
        // User symbols printed after the command has gone need its memory map: it is read
        // as the command exits.
        let user_symbols = program.user_symbols;
        // A child held before its exec execs now; if it cannot, tracing ends here (the
        // probes are detached as the session's links and programs go).
        let pid = child.pid;
        if user_symbols && child.runs_untraced() {
            // bpftrace's order: the waiting thread traces it before it execs.
            let (seized_tx, seized_rx) = std::sync::mpsc::channel::<()>();
            std::thread::spawn(move || {
                let status = Child::wait_seeing_exit_of(pid, true, move || { let _ = seized_tx.send(()); }, |p| exited.capture(p));
                let _ = child_tx.send(status);
            });
            let _ = seized_rx.recv();
            child.release().map_err(|e| RunError::Other(e.to_string()))?;
        } else {
            let released = if user_symbols { child.release_stopped() } else { child.release() };
            released.map_err(|e| RunError::Other(e.to_string()))?;
            std::thread::spawn(move || {
                let status = if user_symbols { Child::wait_seeing_exit(pid, |p| exited.capture(p)) } else { Child::wait(pid) };
                let _ = child_tx.send(status);
            });
        }
    } else {
        drop(child_tx);
    }
    let has_child = opts.child.is_some() && stop.is_none();
    let exited_pid = opts.child.as_ref().map(|c| c.pid).or(opts.pid).unwrap_or(0);

    let stop = match stop.take() {
        Some(s) => s,
        None => {
            let afd = &mut ring;
            // With switchrate, the buffer is read once per interval, as DTrace's consumer
            // reads its buffers; without it, as soon as records arrive.
            let switch = program.options.switchrate.map(Duration::from_nanos);
            let mut next_read = tokio::time::Instant::now();
            loop {
                let waiting = switch.is_some() && tokio::time::Instant::now() < next_read;
                // Stop conditions first: while records stream in the buffer stays readable,
                // and an unbiased choice could pick it again and again.
                tokio::select! {
                    biased;
                    _ = async { asked.as_ref().unwrap().readable().await }, if asked.is_some() => break Stopped::Interrupted,
                    _ = &mut child_rx, if has_child => break Stopped::ProcessExited(exited_pid),
                    _ = async { watched.as_ref().unwrap().readable().await }, if watched.is_some() => break Stopped::ProcessExited(exited_pid),
                    guard = async { usr1.as_ref().unwrap().readable().await }, if usr1.is_some() => {
                        let mut guard = guard?;
                        // Signals that came together run the probe once, as in bpftrace.
                        let mut count = 0u64;
                        // SAFETY: reads the eventfd's 8-byte counter into a u64.
                        unsafe { libc::read(guard.get_ref().as_raw_fd(), (&mut count as *mut u64).cast(), 8) };
                        guard.clear_ready();
                        run_once(&mut ebpf, compiled, AttachPoint::SelfSignal)?;
                    }
                    _ = tokio::time::sleep_until(next_read), if waiting => {}
                    guard = afd.readable_mut(), if !waiting => {
                        let mut guard = guard?;
                        match drain_some(guard.get_inner_mut(), &mut events, sink)? {
                            Drained::Exit(s) => break Stopped::Exit(s),
                            Drained::Empty => {
                                guard.clear_ready();
                                if let Some(every) = switch {
                                    next_read = tokio::time::Instant::now() + every;
                                }
                            }
                            // Still readable: come back after the runtime has polled its
                            // drivers, which is how signals and the pidfd reach the branches
                            // above.
                            Drained::More => {
                                drop(guard);
                                tokio::task::yield_now().await;
                            }
                        }
                    }
                }
            }
        }
    };

    // Detach, then print what the probes sent before they stopped.
    detach_all(links, opts.quiet);
    if matches!(stop, Stopped::Exit(_)) {
        discard(ring.get_mut());
    } else {
        drain(ring.get_mut(), &mut events, sink)?;
    }
    sink.stopped(&stop)?;
    run_once(&mut ebpf, compiled, AttachPoint::End)?;
    let end_exit = drain(ring.get_mut(), &mut events, sink)?;
    let mut drops = dropped(&ebpf);
    drops.speculative = events.speculative_drops;
    if program.dialect == Dialect::Bpftrace {
        sink.value_maps(events.values.read(program, &events.aggregations.decoder())?)?;
    }
    sink.finish(&events.rows_at_exit()?, &drops)?;
    Ok(match (stop, end_exit) {
        (_, Some(s)) => s,
        (Stopped::Exit(s), None) => s,
        _ => 0,
    })
}
