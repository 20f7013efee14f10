//! The one table of builtin variables, functions and actions. The checker, the code
//! generator (through the `hook` enums), `-l`/help output and spec.md all read from here.

use crate::dialect::Dialect;

/// The dialect(s) a builtin's name is read in (spec §13): bpftrace spells some of D's
/// builtins its own way (`kstack`, `ksym()`, `signal()`) and has a few D does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialects {
    D,
    Bpftrace,
    Both,
}

use Dialects::Both;

impl Dialects {
    pub fn includes(self, d: Dialect) -> bool {
        match self {
            Dialects::Both => true,
            Dialects::D => d == Dialect::D,
            Dialects::Bpftrace => d == Dialect::Bpftrace,
        }
    }

    /// As spec.md's tables write it.
    pub fn describe(self) -> &'static str {
        match self {
            Dialects::D => "D",
            Dialects::Bpftrace => "bpftrace",
            Dialects::Both => "both",
        }
    }
}

/// A value the kernel gives any probe about the current task or CPU, read with one helper
/// call. A builtin variable that is (part of) one of these is one row of [`VARIABLES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelValue {
    /// Thread group id (high 32 bits) and thread id (low 32).
    PidTgid,
    /// Group id (high 32 bits) and user id (low 32).
    UidGid,
    /// The CPU the probe fired on.
    Cpu,
    /// CLOCK_MONOTONIC in nanoseconds.
    MonotonicNs,
    /// The current task's `struct task_struct *`.
    CurrentTask,
    /// The NUMA node of the CPU the probe fired on.
    NumaNode,
    /// The kernel's jiffies counter, 64 bits.
    Jiffies,
    /// CLOCK_BOOTTIME in nanoseconds (bpf_ktime_get_boot_ns).
    BootNs,
    /// CLOCK_TAI in nanoseconds (bpf_ktime_get_tai_ns, Linux 6.1).
    TaiNs,
    /// CLOCK_BOOTTIME plus CLOCK_TAI - CLOCK_BOOTTIME as user space read them when the
    /// program was compiled: CLOCK_TAI without the kernel's helper (bpftrace's `sw_tai`).
    SwTaiNs,
}

/// Which part of a [`KernelValue`] a variable is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    Whole,
    High32,
    Low32,
}

/// What a builtin variable evaluates to. The backend implements each hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarHook {
    Kernel(KernelValue, Part),
    Comm,
    Ppid,
    WallTimestamp,
    ProbeProv,
    ProbeMod,
    ProbeFunc,
    ProbeName,
    Arg(u8),
    Errno,
    /// `retval`: what the checker makes of it at the clause's return probes.
    Retval,
    /// The id of the probe that fired (as `-l` lists it).
    ProbeId,
    /// The enabled probe id of the clause (its position in the program, from 1).
    Epid,
    /// The current process's working directory.
    Cwd,
    /// `caller` (`ucaller` if `user`): the address the probed (current user) function
    /// returns to, the second frame of the stack taken in the kernel when the probe fires.
    Caller { user: bool },
    /// `stackdepth` (`ustackdepth` if `user`): the frames of that stack.
    StackDepth { user: bool },
    /// bpftrace's `len(kstack)` (`len(ustack)` if `user`): the frames the stack value
    /// holds, the stack's depth up to its `frames` (0: the stackframes or ustackframes
    /// option's number).
    StackLen { user: bool, frames: u8 },
    /// bpftrace's `probe`: the probe that fired, as bpftrace names it (its id, named when
    /// printed).
    BpftraceProbe,
    /// bpftrace's `cpid`: D's `$target`.
    Target,
    /// bpftrace's `username`: the real uid, printed as its user name.
    Username,
    /// bpftrace's `elapsed`: `timestamp` less when tracing began.
    Elapsed,
    /// bpftrace's `sargN`: the Nth argument passed on the stack (lowered by the checker to
    /// [`crate::ir::IntFn::StackArg`]).
    StackArg(u8),
    /// A bpftrace name that is a call of the function named without arguments (`kstack`
    /// is `kstack()`).
    Call(&'static str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarType {
    /// An integer of the C type named (D's typedefs: `pid_t`, `uint64_t`, ...).
    Int(&'static str),
    Str,
    /// A pointer to the kernel's `struct NAME` (its layout from the kernel's BTF).
    Kernel(&'static str),
    /// A stack (bpftrace's `kstack`, `ustack`).
    Stack,
}

pub struct BuiltinVar {
    pub name: &'static str,
    pub dialects: Dialects,
    /// Other spellings (bpftrace's and DTrace's).
    pub aliases: &'static [&'static str],
    pub ty: VarType,
    pub hook: VarHook,
    pub doc: &'static str,
}

pub const VARIABLES: &[BuiltinVar] = &[
    BuiltinVar { name: "execname", dialects: Both, aliases: &["comm"], ty: VarType::Str, hook: VarHook::Comm, doc: "name of the current process (16 bytes, as the kernel's comm)" },
    BuiltinVar { name: "pid", dialects: Both, aliases: &[], ty: VarType::Int("pid_t"), hook: VarHook::Kernel(KernelValue::PidTgid, Part::High32), doc: "process id (thread group id) of the current thread" },
    BuiltinVar { name: "tid", dialects: Both, aliases: &[], ty: VarType::Int("id_t"), hook: VarHook::Kernel(KernelValue::PidTgid, Part::Low32), doc: "thread id of the current thread" },
    BuiltinVar { name: "curthread", dialects: Both, aliases: &["curtask"], ty: VarType::Kernel("task_struct"), hook: VarHook::Kernel(KernelValue::CurrentTask, Part::Whole), doc: "the current thread's task_struct, typed from the kernel's BTF: curthread->real_parent->tgid" },
    BuiltinVar { name: "ppid", dialects: Both, aliases: &[], ty: VarType::Int("pid_t"), hook: VarHook::Ppid, doc: "process id of the parent process" },
    BuiltinVar { name: "uid", dialects: Both, aliases: &[], ty: VarType::Int("uid_t"), hook: VarHook::Kernel(KernelValue::UidGid, Part::Low32), doc: "real user id" },
    BuiltinVar { name: "gid", dialects: Both, aliases: &[], ty: VarType::Int("gid_t"), hook: VarHook::Kernel(KernelValue::UidGid, Part::High32), doc: "real group id" },
    BuiltinVar { name: "cpu", dialects: Both, aliases: &[], ty: VarType::Int("processorid_t"), hook: VarHook::Kernel(KernelValue::Cpu, Part::Whole), doc: "CPU the probe fired on" },
    BuiltinVar { name: "timestamp", dialects: Both, aliases: &["nsecs"], ty: VarType::Int("uint64_t"), hook: VarHook::Kernel(KernelValue::MonotonicNs, Part::Whole), doc: "nanoseconds since boot (CLOCK_MONOTONIC)" },
    BuiltinVar { name: "walltimestamp", dialects: Both, aliases: &[], ty: VarType::Int("int64_t"), hook: VarHook::WallTimestamp, doc: "nanoseconds since the Unix epoch" },
    BuiltinVar { name: "probeprov", dialects: Both, aliases: &[], ty: VarType::Str, hook: VarHook::ProbeProv, doc: "provider of the probe that fired" },
    BuiltinVar { name: "probemod", dialects: Both, aliases: &[], ty: VarType::Str, hook: VarHook::ProbeMod, doc: "module of the probe that fired" },
    BuiltinVar { name: "probefunc", dialects: Both, aliases: &["func"], ty: VarType::Str, hook: VarHook::ProbeFunc, doc: "function of the probe that fired (the system call's name for syscall probes)" },
    BuiltinVar { name: "probename", dialects: Both, aliases: &[], ty: VarType::Str, hook: VarHook::ProbeName, doc: "name of the probe that fired (entry, return, BEGIN, ...)" },
    BuiltinVar { name: "arg0", dialects: Both, aliases: &[], ty: VarType::Int("int64_t"), hook: VarHook::Arg(0), doc: "first probe argument (syscall entry: first argument; return: return value)" },
    BuiltinVar { name: "arg1", dialects: Both, aliases: &[], ty: VarType::Int("int64_t"), hook: VarHook::Arg(1), doc: "second probe argument (syscall return: return value)" },
    BuiltinVar { name: "arg2", dialects: Both, aliases: &[], ty: VarType::Int("int64_t"), hook: VarHook::Arg(2), doc: "third probe argument" },
    BuiltinVar { name: "arg3", dialects: Both, aliases: &[], ty: VarType::Int("int64_t"), hook: VarHook::Arg(3), doc: "fourth probe argument" },
    BuiltinVar { name: "arg4", dialects: Both, aliases: &[], ty: VarType::Int("int64_t"), hook: VarHook::Arg(4), doc: "fifth probe argument" },
    BuiltinVar { name: "arg5", dialects: Both, aliases: &[], ty: VarType::Int("int64_t"), hook: VarHook::Arg(5), doc: "sixth probe argument" },
    BuiltinVar { name: "arg6", dialects: Both, aliases: &[], ty: VarType::Int("int64_t"), hook: VarHook::Arg(6), doc: "seventh probe argument (0 where the probe has fewer)" },
    BuiltinVar { name: "arg7", dialects: Both, aliases: &[], ty: VarType::Int("int64_t"), hook: VarHook::Arg(7), doc: "eighth probe argument (0 where the probe has fewer)" },
    BuiltinVar { name: "arg8", dialects: Both, aliases: &[], ty: VarType::Int("int64_t"), hook: VarHook::Arg(8), doc: "ninth probe argument (0 where the probe has fewer)" },
    BuiltinVar { name: "arg9", dialects: Both, aliases: &[], ty: VarType::Int("int64_t"), hook: VarHook::Arg(9), doc: "tenth probe argument (0 where the probe has fewer)" },
    BuiltinVar { name: "id", dialects: Both, aliases: &[], ty: VarType::Int("uint_t"), hook: VarHook::ProbeId, doc: "id of the probe that fired, as `-l` lists it" },
    BuiltinVar { name: "cwd", dialects: Both, aliases: &[], ty: VarType::Str, hook: VarHook::Cwd, doc: "the current process's working directory, as a path from its root (read from the kernel's dentries, at most 24 components)" },
    BuiltinVar { name: "epid", dialects: Both, aliases: &[], ty: VarType::Int("uint_t"), hook: VarHook::Epid, doc: "enabled probe id of the clause: its position in the program, from 1 (the ERROR probe's arg1 names a clause by it)" },
    BuiltinVar { name: "caller", dialects: Both, aliases: &[], ty: VarType::Int("uintptr_t"), hook: VarHook::Caller { user: false }, doc: "kernel address the probed function returns to (the second frame of stack()): printf(\"%a\", caller), @[func(caller)]" },
    BuiltinVar { name: "stackdepth", dialects: Both, aliases: &[], ty: VarType::Int("uint32_t"), hook: VarHook::StackDepth { user: false }, doc: "number of kernel stack frames where the probe fired (as stack() shows them, up to 64)" },
    BuiltinVar { name: "ucaller", dialects: Both, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::Caller { user: true }, doc: "user address the current user function returns to (the second frame of ustack()): printf(\"%A\", ucaller), @[usym(ucaller)]" },
    BuiltinVar { name: "ustackdepth", dialects: Both, aliases: &[], ty: VarType::Int("uint32_t"), hook: VarHook::StackDepth { user: true }, doc: "number of user stack frames where the probe fired (as ustack() shows them, up to 100)" },
    BuiltinVar { name: "retval", dialects: Both, aliases: &[], ty: VarType::Int("int64_t"), hook: VarHook::Retval, doc: "the value the function returns, at return probes: args[1] with the function's type at fbt return probes (kretprobe:), arg0 at syscall return probes, arg1 at pid and uretprobe return probes (bpftrace's spelling)" },
    BuiltinVar { name: "errno", dialects: Both, aliases: &[], ty: VarType::Int("int"), hook: VarHook::Errno, doc: "error number of a failed system call (syscall return probes; 0 otherwise)" },
    BuiltinVar { name: "probe", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Str, hook: VarHook::BpftraceProbe, doc: "the probe that fired as bpftrace names it (tracepoint:syscalls:sys_enter_read, kprobe:vfs_read, BEGIN, ...): kept as its id and named when printed, so a key or printed with %s, not compared" },
    BuiltinVar { name: "username", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Str, hook: VarHook::Username, doc: "the user name of the real user id (kept as the uid and named from /etc/passwd when printed, so a key or printed with %s, not compared)" },
    BuiltinVar { name: "cpid", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("pid_t"), hook: VarHook::Target, doc: "process id of the -c command (D's $target)" },
    BuiltinVar { name: "elapsed", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::Elapsed, doc: "nanoseconds since crumbs compiled the program (moments before tracing starts)" },
    BuiltinVar { name: "kstack", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Stack, hook: VarHook::Call("kstack"), doc: "the kernel stack where the probe fired, as kstack()" },
    BuiltinVar { name: "ustack", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Stack, hook: VarHook::Call("ustack"), doc: "the user stack where the probe fired, as ustack()" },
    BuiltinVar { name: "rand", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint32_t"), hook: VarHook::Call("rand"), doc: "a pseudo-random unsigned 32-bit integer (rand() in the bpftrace dialect is the same)" },
    BuiltinVar { name: "numaid", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint32_t"), hook: VarHook::Kernel(KernelValue::NumaNode, Part::Whole), doc: "NUMA node of the CPU the probe fired on" },
    BuiltinVar { name: "jiffies", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::Kernel(KernelValue::Jiffies, Part::Whole), doc: "the kernel's jiffies counter, 64 bits (bpf_jiffies64; bpftrace 0.18 has it, 0.17 does not)" },
    BuiltinVar { name: "sarg0", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::StackArg(0), doc: "the first argument passed on the stack (kprobes and uprobes at a function's entry): the word at sp + 8, read from user memory at a uprobe" },
    BuiltinVar { name: "sarg1", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::StackArg(1), doc: "the second argument passed on the stack (kprobes and uprobes at a function's entry): the word at sp + 16, read from user memory at a uprobe" },
    BuiltinVar { name: "sarg2", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::StackArg(2), doc: "the third argument passed on the stack (kprobes and uprobes at a function's entry): the word at sp + 24, read from user memory at a uprobe" },
    BuiltinVar { name: "sarg3", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::StackArg(3), doc: "the fourth argument passed on the stack (kprobes and uprobes at a function's entry): the word at sp + 32, read from user memory at a uprobe" },
    BuiltinVar { name: "sarg4", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::StackArg(4), doc: "the fifth argument passed on the stack (kprobes and uprobes at a function's entry): the word at sp + 40, read from user memory at a uprobe" },
    BuiltinVar { name: "sarg5", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::StackArg(5), doc: "the sixth argument passed on the stack (kprobes and uprobes at a function's entry): the word at sp + 48, read from user memory at a uprobe" },
    BuiltinVar { name: "sarg6", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::StackArg(6), doc: "the seventh argument passed on the stack (kprobes and uprobes at a function's entry): the word at sp + 56, read from user memory at a uprobe" },
    BuiltinVar { name: "sarg7", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::StackArg(7), doc: "the eighth argument passed on the stack (kprobes and uprobes at a function's entry): the word at sp + 64, read from user memory at a uprobe" },
    BuiltinVar { name: "sarg8", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::StackArg(8), doc: "the ninth argument passed on the stack (kprobes and uprobes at a function's entry): the word at sp + 72, read from user memory at a uprobe" },
    BuiltinVar { name: "sarg9", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::StackArg(9), doc: "the tenth argument passed on the stack (kprobes and uprobes at a function's entry): the word at sp + 80, read from user memory at a uprobe" },
    BuiltinVar { name: "cgroup", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::Call("__cgroup"), doc: "the id of the current thread's cgroup (version 2), as cgroupid() gives it (__cgroup())" },
    BuiltinVar { name: "has_cpid", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("int"), hook: VarHook::Call("has_cpid"), doc: "1 if the program has a -c command or -p process (cpid can be read), else 0, as has_cpid()" },
    BuiltinVar { name: "ncpus", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint64_t"), hook: VarHook::Call("ncpus"), doc: "the number of possible CPUs, as ncpus()" },
    BuiltinVar { name: "probetype", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Str, hook: VarHook::Call("probetype"), doc: "the type of the probe that fired, as probetype()" },
    BuiltinVar { name: "usermode", dialects: Dialects::Bpftrace, aliases: &[], ty: VarType::Int("uint8_t"), hook: VarHook::Call("usermode"), doc: "1 if the probe interrupted user mode, as usermode()" },
];

/// A constant of DTrace's D library: a name for an integer of a C type.
#[derive(Clone, Copy, Debug)]
pub struct BuiltinConst {
    pub name: &'static str,
    pub value: i64,
    pub c_type: &'static str,
    pub doc: &'static str,
}

pub const CONSTANTS: &[BuiltinConst] = &[
    BuiltinConst { name: "NULL", value: 0, c_type: "uintptr_t", doc: "the null pointer" },
    BuiltinConst { name: "DTRACEFLT_UNKNOWN", value: 0, c_type: "int", doc: "ERROR's arg4 for an unknown fault" },
    BuiltinConst { name: "DTRACEFLT_BADADDR", value: 1, c_type: "int", doc: "ERROR's arg4 for an address that cannot be read (arg5 is the address)" },
    BuiltinConst { name: "DTRACEFLT_BADALIGN", value: 2, c_type: "int", doc: "ERROR's arg4 for a misaligned address (crumbs raises none)" },
    BuiltinConst { name: "DTRACEFLT_ILLOP", value: 3, c_type: "int", doc: "ERROR's arg4 for an illegal operation" },
    BuiltinConst { name: "DTRACEFLT_DIVZERO", value: 4, c_type: "int", doc: "ERROR's arg4 for a division or remainder by zero" },
    BuiltinConst { name: "DTRACEFLT_NOSCRATCH", value: 5, c_type: "int", doc: "ERROR's arg4 for scratch space exhausted" },
    BuiltinConst { name: "DTRACEFLT_KPRIV", value: 6, c_type: "int", doc: "ERROR's arg4 for a privileged kernel access (crumbs raises none)" },
    BuiltinConst { name: "DTRACEFLT_UPRIV", value: 7, c_type: "int", doc: "ERROR's arg4 for a privileged user access (crumbs raises none)" },
    BuiltinConst { name: "DTRACEFLT_TUPOFLOW", value: 8, c_type: "int", doc: "ERROR's arg4 for a tuple stack overflow (crumbs raises none)" },
    BuiltinConst { name: "DTRACEFLT_BADSTACK", value: 9, c_type: "int", doc: "ERROR's arg4 for a bad stack (crumbs raises none)" },
    BuiltinConst { name: "DTRACEFLT_BADSIZE", value: 10, c_type: "int", doc: "ERROR's arg4 for a bad size (crumbs raises none)" },
    BuiltinConst { name: "DTRACEFLT_BADINDEX", value: 11, c_type: "int", doc: "ERROR's arg4 for an array index out of bounds (arg5 is the index)" },
    BuiltinConst { name: "ARPHRD_ETHER", value: 1, c_type: "int", doc: "link_ntop()'s type of an Ethernet address (6 bytes)" },
    BuiltinConst { name: "ARPHRD_INFINIBAND", value: 32, c_type: "int", doc: "link_ntop()'s type of an InfiniBand address (20 bytes)" },
    BuiltinConst { name: "PCAP_NULL", value: 0, c_type: "int", doc: "pcap()'s link type for BSD loopback" },
    BuiltinConst { name: "PCAP_ETHER", value: 1, c_type: "int", doc: "pcap()'s link type for Ethernet" },
    BuiltinConst { name: "PCAP_PPP", value: 9, c_type: "int", doc: "pcap()'s link type for PPP" },
    BuiltinConst { name: "PCAP_IP", value: 12, c_type: "int", doc: "pcap()'s link type for raw IPv4 or IPv6" },
    BuiltinConst { name: "PCAP_WIFI", value: 105, c_type: "int", doc: "pcap()'s link type for IEEE 802.11" },
    BuiltinConst { name: "PCAP_IPOIB", value: 242, c_type: "int", doc: "pcap()'s link type for IP over InfiniBand" },
    BuiltinConst { name: "TASK_RUNNING", value: 0, c_type: "int", doc: "a task's __state when it is runnable (<linux/sched.h>, as bpftrace's tools read it)" },
    BuiltinConst { name: "TASK_INTERRUPTIBLE", value: 1, c_type: "int", doc: "a task's __state in an interruptible sleep (<linux/sched.h>)" },
    BuiltinConst { name: "TASK_UNINTERRUPTIBLE", value: 2, c_type: "int", doc: "a task's __state in an uninterruptible sleep (<linux/sched.h>)" },
    BuiltinConst { name: "AF_UNIX", value: 1, c_type: "int", doc: "the local socket family (<linux/socket.h>)" },
    BuiltinConst { name: "AF_INET", value: 2, c_type: "int", doc: "the IPv4 socket family (<linux/socket.h>)" },
    BuiltinConst { name: "AF_INET6", value: 10, c_type: "int", doc: "the IPv6 socket family (<linux/socket.h>)" },
];

pub fn constant(name: &str) -> Option<&'static BuiltinConst> {
    CONSTANTS.iter().find(|c| c.name == name)
}

/// The builtin variable a name is in the dialect.
pub fn variable(name: &str, dialect: Dialect) -> Option<&'static BuiltinVar> {
    VARIABLES.iter().find(|v| v.dialects.includes(dialect) && (v.name == name || v.aliases.contains(&name)))
}

/// The spelling of every builtin variable of the dialect, for "did you mean" and completion.
pub fn variable_names(dialect: Dialect) -> impl Iterator<Item = &'static str> {
    VARIABLES.iter().filter(move |v| v.dialects.includes(dialect)).flat_map(|v| std::iter::once(v.name).chain(v.aliases.iter().copied()))
}

use crate::ir::agg::{self, Aggregator};
use crate::ir::{SymKind, USymKind};

impl FnHook {
    /// Whether it changes the system: allowed only with -w (spec §7.15).
    pub fn is_destructive(self) -> bool {
        matches!(self, FnHook::Raise | FnHook::SignalThread | FnHook::WriteUser | FnHook::Stop | FnHook::System | FnHook::Chill | FnHook::CopyOut | FnHook::CopyOutStr | FnHook::Freopen | FnHook::Override)
    }
}

/// What a function does; the checker validates arguments, the backend implements the hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FnHook {
    Printf,
    Trace,
    Print,
    Exit,
    /// `speculation()`: a new speculation's id.
    Speculation,
    /// `speculate(id)`: the clause's record goes to a speculation.
    Speculate,
    /// `commit(id)`, `discard(id)`.
    Commit,
    Discard,
    Printa,
    Clear,
    Trunc,
    Normalize,
    Denormalize,
    /// An aggregating function: `ir::agg` says what it keeps and how it updates.
    Aggregate(&'static dyn Aggregator),
    Stack,
    /// `func()`/`sym()` and `mod()`: an address printed as a symbol or module.
    Sym(SymKind),
    /// `ustack()`, and `jstack()` (`java`), whose frame count defaults to the
    /// `jstackframes` option instead of `ustackframes`.
    UStack { java: bool },
    /// `usym()`/`ufunc()`, `uaddr()` and `umod()`: a user address printed as a symbol or
    /// module of the process where the probe fired.
    USym(USymKind),
    CopyInStr,
    /// `setopt(name [, value])`: an option changed while tracing.
    SetOpt,
    /// Destructive actions: `raise(signal)`, `stop()`, `system(format, ...)`,
    /// `chill(nanoseconds)`, `copyout(buf, addr, nbytes)`, `copyoutstr(str, addr, maxlen)`.
    Raise,
    Stop,
    System,
    Chill,
    CopyOut,
    CopyOutStr,
    /// `freopen(format, ...)`: trace output to the file named (destructive); `ftruncate()`:
    /// empty the output file.
    Freopen,
    Ftruncate,
    /// `pcap(skb, protocol)`: a packet for a capture file.
    Pcap,
    /// bpftrace's `skboutput(path, skb, length, offset)`: a packet for capture file `path`.
    SkbOutput,
    /// `__psargs(task)`: stdlib's `pr_psargs`.
    Psargs,
    /// `alloca(size)`, `copyin(addr, size)`: scratch memory for the clause.
    Alloca,
    CopyIn,
    /// `copyinto(addr, size, dest)`, `bcopy(src, dest, size)`: copies into scratch memory.
    CopyInto,
    Bcopy,
    StringOf,
    /// A subroutine that makes a string (strjoin(), substr(), ...).
    Str(crate::ir::StrFn),
    /// strlen(s).
    Strlen,
    /// A subroutine that gives an integer (index(), htons(), rand(), ...).
    Int(crate::ir::IntFn),
    /// tracemem(addr, size[, dsize]).
    Tracemem,
    /// bpftrace's `delete(@m[k])`: a map's element removed.
    Delete,
    /// bpftrace's `has_key(@m, k)`.
    HasKey,
    /// bpftrace's `len(@m)`: how many elements a map has.
    Len,
    /// bpftrace's `getopt(name[, default[, help]])`: a named parameter's value.
    Getopt,
    /// bpftrace's `strerror(errno)`: an error number printed as its message.
    Strerror,
    /// bpftrace's `syscall_name(nr)`: a system call's name.
    SyscallName,
    /// bpftrace's `cgroup_path(id [, filter])`: a cgroup id printed as its paths.
    CgroupPath,
    /// bpftrace's `path(p [, size])`: the kernel's bpf_d_path() of a `struct path`.
    KernelPath,
    /// bpftrace's `strftime(format, ns)`: a time printed in user space.
    Strftime,
    /// bpftrace's `kaddr("name")` and `cgroupid("path")`: constants found when compiling.
    KernelAddr,
    CgroupId,
    /// bpftrace's `time([format])`: the local time when crumbs reads the record, formatted
    /// as strftime(3) does.
    Time,
    /// bpftrace's `str(p[, n])`: the string at a kernel or user address, as the pointer's
    /// type (or, for an integer, the address) says.
    AnyStr,
    /// bpftrace's `bswap(n)`: n's bytes reversed, at the width of n's type.
    Bswap,
    /// bpftrace's `strcontains(haystack, needle)`: 1 if needle occurs in haystack.
    Strcontains,
    /// bpftrace's `strncmp(a, b, n)`: 0 if the first n bytes of two strings are equal.
    Strncmp,
    /// bpftrace's `kptr(p)` and `uptr(p)`: a pointer said to point into kernel or user
    /// memory (true: user).
    PtrSpace(bool),
    /// bpftrace's `ntop([af,] addr)`: an address (an integer, 4 or 16 bytes) as text.
    Ntop,
    /// bpftrace's `pton("addr")`: a constant address's bytes.
    Pton,
    /// bpftrace's `macaddr(addr)`: a 6-byte hardware address as text.
    Macaddr,
    /// bpftrace's `buf(addr, n)`: bytes in memory, printed with `\x` escapes.
    Buf,
    /// bpftrace's `join(arr [, sep])`: an array's strings printed joined.
    Join,
    /// bpftrace's `cat(format, ...)`: a file's contents printed.
    Cat,
    /// A subroutine on one of the kernel's own objects: a `dev_t`, a lock, a `struct path`.
    Kernel(KernelFn),
    /// bpftrace's `reg(name)`: a register of the probe's context.
    Register,
    /// bpftrace's `override(rc)`: bpf_override_return() at a kprobe.
    Override,
    /// current bpftrace's `has_cpid()`: whether cpid is known, a constant.
    HasCpid,
    /// current bpftrace's `is_err(ptr)`: ptr is an error code the kernel encoded as a pointer.
    IsErr,
    /// current bpftrace's `probetype()`: the kind of the probe that fired, a string.
    ProbeType,
    /// current bpftrace's `usermode()`: whether the probe interrupted user mode.
    Usermode,
    /// current bpftrace's `signal_name(sig)`: a signal number printed as its description.
    SignalName,
    /// current bpftrace's `errorf()` (`error`) and `warnf()`: printf's text as a message on
    /// standard error, with the call's place.
    Message { error: bool },
    /// current bpftrace's `assert(cond, msg)`: errorf() and exit(1) where cond is 0.
    Assert,
    /// current bpftrace's `fail(format, ...)` and `static_assert(cond, msg)`: compile errors.
    Fail,
    StaticAssert,
    /// current bpftrace's `is_integer()`, `is_str()`, ...: what an expression's type is, a
    /// constant.
    TypeTest(TypeTest),
    /// current bpftrace's `find(@map, key, $var)`: an element looked up into a variable.
    Find,
    /// current bpftrace's `nsecs(clock)`: a timestamp of the clock named.
    Nsecs,
    /// current bpftrace's `memcmp(a, b, n)`: two strings' first n bytes compared.
    Memcmp,
    /// current bpftrace's `strcap(s)`: a string's capacity.
    Strcap,
    /// current bpftrace's `kfunc_exist(name)` and `kfunc_allowed(name)` (`allowed`): what
    /// the kernel says of a kfunc, when compiling.
    Kfunc { allowed: bool },
    /// current bpftrace's `signal_thread(sig)`: a signal to the thread that fired the probe.
    SignalThread,
    /// current bpftrace's `write_user(dst, src, len)`: bytes written into the process.
    WriteUser,
    /// current bpftrace's `socket_cookie(sk)`: a socket's cookie.
    SocketCookie,
    /// current bpftrace's `comm(pid)`: another task's name.
    CommOfPid,
    /// current bpftrace's `percpu_kaddr(name [, cpu])`: a per-CPU variable's address.
    PercpuKaddr,
}

/// What current bpftrace's type predicates ask of an expression (lang/src/check/bpftrace_std.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeTest {
    Integer,
    Unsigned,
    Str,
    Pointer,
    Array,
    Literal,
}

/// DTrace's subroutines on the kernel's objects (lang/src/check/kernel_subrs.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelFn {
    Getmajor,
    Getminor,
    MutexOwned,
    MutexOwner,
    MutexTypeAdaptive,
    MutexTypeSpin,
    RwReadHeld,
    RwWriteHeld,
    RwIswriter,
    DPath,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FnKind {
    /// A statement that produces output or changes tracing state.
    Action,
    /// Used as `@agg[keys] = f(args)`.
    Aggregating,
    /// Returns a value: an aggregation key, or traced (`stack()`).
    Subroutine,
}

/// One argument position of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgSpec {
    Int,
    /// An integer known when the script is compiled.
    ConstInt,
    /// An optional integer known when the script is compiled (the last arguments).
    OptConstInt,
    /// A string literal (printf's format).
    Format,
    /// Any integer or string.
    Any,
    /// A string.
    Str,
    /// A string, or `NULL` (0): strtok()'s "go on with the last string".
    StrOrNull,
    /// An integer that may be left out (only last).
    OptInt,
    /// A string literal that may be left out (only last).
    OptFormat,
    /// Any number of further integer-or-string arguments.
    Rest,
    /// An aggregation name, `@a`.
    Aggregation,
}

pub struct BuiltinFn {
    pub name: &'static str,
    pub dialects: Dialects,
    pub kind: FnKind,
    pub args: &'static [ArgSpec],
    pub hook: FnHook,
    pub signature: &'static str,
    pub doc: &'static str,
}

pub const FUNCTIONS: &[BuiltinFn] = &[
    BuiltinFn { name: "printf", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Format, ArgSpec::Rest], hook: FnHook::Printf, signature: "printf(format, ...)", doc: "formatted output; conversions %d %i %u %x %X %o %c %p %s %S %Y %% with flags, width, precision, %a (a kernel address as symbol+offset), %A (a user address as symbol+offset), %k (a stack), bpftrace's %r, %rx, %rh (a buffer, buf()) and current bpftrace's %gr (GFP flags by name)" },
    BuiltinFn { name: "trace", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Any], hook: FnHook::Trace, signature: "trace(expr)", doc: "print the value of an expression" },
    BuiltinFn { name: "print", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Any, ArgSpec::OptConstInt, ArgSpec::OptConstInt], hook: FnHook::Print, signature: "print(expr)", doc: "print a value by its C type, a struct or array member by member, as DTrace's print(); bpftrace's print(@map [, top [, div]]) prints a map now, its top largest rows (all if 0 or not given), values divided by div" },
    BuiltinFn { name: "zero", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Aggregation], hook: FnHook::Clear, signature: "zero(@map)", doc: "bpftrace's: set every value of an aggregation to zero, keeping its keys (D's clear(); bpftrace's clear() removes the keys)" },
    BuiltinFn { name: "len", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Aggregation], hook: FnHook::Len, signature: "len(@map)", doc: "bpftrace's: how many elements a map of values has now; len(kstack) and len(ustack) (current bpftrace's): how many frames the stack has" },
    BuiltinFn { name: "has_key", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Aggregation, ArgSpec::Rest], hook: FnHook::HasKey, signature: "has_key(@map, key...)", doc: "bpftrace's: 1 if the map has an element at the keys, else 0" },
    BuiltinFn { name: "exit", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Int], hook: FnHook::Exit, signature: "exit(status)", doc: "stop tracing: run END, print aggregations, exit with status" },
    BuiltinFn { name: "setopt", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Format, ArgSpec::OptInt], hook: FnHook::SetOpt, signature: "setopt(name [, value])", doc: "change an option while tracing (quiet, aggsortkey, aggsortrev, aggsortpos, aggsortkeypos, aggpack), from the next record on; both are string literals" },
    BuiltinFn { name: "raise", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Int], hook: FnHook::Raise, signature: "raise(signal)", doc: "destructive (-w): send signal to the process that fired the probe" },
    BuiltinFn { name: "stop", dialects: Both, kind: FnKind::Action, args: &[], hook: FnHook::Stop, signature: "stop()", doc: "destructive (-w): stop the process that fired the probe (SIGSTOP; SIGCONT resumes it)" },
    BuiltinFn { name: "chill", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Int], hook: FnHook::Chill, signature: "chill(nanoseconds)", doc: "destructive (-w): spin on the CPU for nanoseconds (at most 500 ms of each second per CPU)" },
    BuiltinFn { name: "copyout", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Int, ArgSpec::Int, ArgSpec::Int], hook: FnHook::CopyOut, signature: "copyout(buf, addr, nbytes)", doc: "destructive (-w): write nbytes from kernel memory at buf to the user-space address addr of the process that fired the probe" },
    BuiltinFn { name: "copyoutstr", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Str, ArgSpec::Int, ArgSpec::Int], hook: FnHook::CopyOutStr, signature: "copyoutstr(str, addr, maxlen)", doc: "destructive (-w): write the string and its NUL, at most maxlen bytes, to the user-space address addr of the process that fired the probe" },
    BuiltinFn { name: "freopen", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Format, ArgSpec::Rest], hook: FnHook::Freopen, signature: "freopen(format, ...)", doc: "destructive (-w): send trace output from here on to the file printf would name (appended to); \"\" sends it back where it went first" },
    BuiltinFn { name: "ftruncate", dialects: Both, kind: FnKind::Action, args: &[], hook: FnHook::Ftruncate, signature: "ftruncate()", doc: "empty the file trace output goes to (nothing for a terminal or pipe)" },
    BuiltinFn { name: "skboutput", dialects: Dialects::Bpftrace, kind: FnKind::Action, args: &[ArgSpec::Format, ArgSpec::Int, ArgSpec::Int, ArgSpec::ConstInt], hook: FnHook::SkbOutput, signature: "skboutput(path, skb, length, offset)", doc: "append the packet in struct sk_buff *skb to the capture file path (raw IP, created at its first packet): its first length bytes of linear data (at most option pcapsize's, 1514 unless set), less the first offset; returns 0" },
    BuiltinFn { name: "pcap", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Int, ArgSpec::Int], hook: FnHook::Pcap, signature: "pcap(skb, protocol)", doc: "record the packet in struct sk_buff *skb (its linear data, at most option pcapsize's bytes, 1514 unless set) with link type protocol (PCAP_ETHER, PCAP_IP, ...): written to the capture file freopen() named, else shown as a hex dump" },
    BuiltinFn { name: "system", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Format, ArgSpec::Rest], hook: FnHook::System, signature: "system(format, ...)", doc: "destructive (-w): run the command printf would print with /bin/sh when crumbs reads the record" },
    BuiltinFn { name: "speculation", dialects: Both, kind: FnKind::Subroutine, args: &[], hook: FnHook::Speculation, signature: "speculation()", doc: "a new speculation's id (1 to nspec), or 0 if every speculation is in use" },
    BuiltinFn { name: "speculate", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Int], hook: FnHook::Speculate, signature: "speculate(id)", doc: "what the rest of the clause records goes to speculation id, printed only if it is committed" },
    BuiltinFn { name: "commit", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Int], hook: FnHook::Commit, signature: "commit(id)", doc: "print what speculation id holds and free it" },
    BuiltinFn { name: "discard", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Int], hook: FnHook::Discard, signature: "discard(id)", doc: "throw away what speculation id holds and free it" },
    BuiltinFn { name: "printa", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Aggregation], hook: FnHook::Printa, signature: "printa([format,] @agg, ...)", doc: "print aggregations now, several joined by key: in the default layout, or each row as printf(format, keys...) with %@ conversions for the values" },
    BuiltinFn { name: "clear", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Aggregation], hook: FnHook::Clear, signature: "clear(@agg)", doc: "set every value of an aggregation to zero, keeping its keys" },
    BuiltinFn { name: "trunc", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Aggregation], hook: FnHook::Trunc, signature: "trunc(@agg [, n])", doc: "remove every key of an aggregation, or all but the n largest (n < 0: the -n smallest)" },
    BuiltinFn { name: "tracemem", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Int, ArgSpec::ConstInt, ArgSpec::OptInt], hook: FnHook::Tracemem, signature: "tracemem(addr, size [, dsize])", doc: "print size bytes (a constant) of kernel memory at addr as DTrace's hex dump; only the first dsize of them if dsize is given and less" },
    BuiltinFn { name: "copyinstr", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::CopyInStr, signature: "copyinstr(addr)", doc: "the NUL-terminated string at a user-space address, up to strsize - 1 bytes (bpftrace: str)" },
    BuiltinFn { name: "stringof", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Any], hook: FnHook::StringOf, signature: "stringof(x)", doc: "x as a string: the NUL-terminated string at a kernel pointer or in a kernel char array, up to strsize - 1 bytes; a string stays itself" },
    BuiltinFn { name: "__psargs", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Psargs, signature: "__psargs(task)", doc: "stdlib's pr_psargs: the current process's arguments joined by spaces, up to 79 bytes (\"\" if task is not the current thread or is a kernel thread)" },
    BuiltinFn { name: "__syscall", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Int(crate::ir::IntFn::Syscall), signature: "__syscall(task)", doc: "stdlib's pr_syscall: the number of the system call the current thread is in, from its saved user registers (-1 if it is in none, is a kernel thread, or task is not the current thread)" },
    BuiltinFn { name: "copyin", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int, ArgSpec::Int], hook: FnHook::CopyIn, signature: "copyin(addr, size)", doc: "a `void *` to size bytes copied from a user-space address into scratch memory that lasts until the clause ends" },
    BuiltinFn { name: "alloca", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Alloca, signature: "alloca(size)", doc: "a `void *` to size bytes of zeroed scratch memory that lasts until the clause ends" },
    BuiltinFn { name: "copyinto", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Int, ArgSpec::Int, ArgSpec::Int], hook: FnHook::CopyInto, signature: "copyinto(addr, size, dest)", doc: "copy size bytes from a user-space address into scratch memory at dest (from alloca() or copyin())" },
    BuiltinFn { name: "bcopy", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Int, ArgSpec::Int, ArgSpec::Int], hook: FnHook::Bcopy, signature: "bcopy(src, dest, size)", doc: "copy size bytes from kernel memory at src into scratch memory at dest (from alloca() or copyin())" },
    BuiltinFn { name: "str", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Any, ArgSpec::OptInt], hook: FnHook::AnyStr, signature: "str(addr [, length])", doc: "bpftrace's: the NUL-terminated string at an address, up to length - 1 bytes (strsize - 1 if not given): a user-space pointer's as copyinstr() reads it, a kernel pointer's or char array's as stringof(), an integer's from the kernel if it is a kernel address (the upper half), else from the process; a string stays itself" },
    BuiltinFn { name: "strftime", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Format, ArgSpec::Int], hook: FnHook::Strftime, signature: "strftime(format, ns)", doc: "bpftrace's: the local time ns (nanoseconds since boot, as nsecs) was, formatted by strftime(3) when crumbs prints it; %f is its microseconds" },
    BuiltinFn { name: "syscall_name", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::SyscallName, signature: "syscall_name(nr)", doc: "bpftrace's: the name of system call number nr (\"Unknown syscall\" beyond the table), a string" },
    BuiltinFn { name: "cgroup_path", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Int, ArgSpec::OptFormat], hook: FnHook::CgroupPath, signature: "cgroup_path(id [, filter])", doc: "bpftrace's: the paths of the cgroup with that id, found under /sys/fs/cgroup when printed, as HIERARCHY:PATH joined by commas (unified: cgroup v2's) in the hierarchies whose names match filter (a string literal, * a wildcard; all if not given); a key or printed with %s, not compared" },
    BuiltinFn { name: "path", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Any, ArgSpec::OptConstInt], hook: FnHook::KernelPath, signature: "path(p [, size])", doc: "bpftrace's: the name of a struct path as the kernel's bpf_d_path() writes it (at most size bytes with the NUL, strsize if not given); p is a `struct path *` argument of the probed function or a struct path in what one points to (args.file->f_path), in kfunc/kretfunc (fentry/fexit) clauses on the functions the kernel allows it in (security_file_open, vfs_getattr, filp_close, ...), which then attach as fentry/fexit" },
    BuiltinFn { name: "strerror", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Strerror, signature: "strerror(errno)", doc: "bpftrace's: the error number's message, as strerror(3) gives it when printed (a key or printed with %s, not compared)" },
    BuiltinFn { name: "getopt", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Format, ArgSpec::Rest], hook: FnHook::Getopt, signature: "getopt(name [, default [, description]])", doc: "bpftrace's: the named parameter --name=value given after the program (an integer or a string as default is; without a default, 1 if --name is given, else 0), default when not given" },
    BuiltinFn { name: "kaddr", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Format], hook: FnHook::KernelAddr, signature: "kaddr(name)", doc: "bpftrace's: the address of the kernel symbol name (a string literal), from /proc/kallsyms when the program is compiled" },
    BuiltinFn { name: "cgroupid", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Format], hook: FnHook::CgroupId, signature: "cgroupid(path)", doc: "bpftrace's: the id of the cgroup at path (a string literal) in the cgroup file system, its inode number, found when the program is compiled" },
    BuiltinFn { name: "__cgroup", dialects: Both, kind: FnKind::Subroutine, args: &[], hook: FnHook::Int(crate::ir::IntFn::Cgroup), signature: "__cgroup()", doc: "bpftrace's cgroup: the id of the current thread's cgroup (version 2), as cgroupid() gives it" },
    BuiltinFn { name: "delete", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Any, ArgSpec::Rest], hook: FnHook::Delete, signature: "delete(@map[key])", doc: "bpftrace's: remove a map's element (also delete(@map, key)); a map without keys is 0 or \"\" again" },
    BuiltinFn { name: "time", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Rest], hook: FnHook::Time, signature: "time([format])", doc: "bpftrace's: print the local time when crumbs reads the record, formatted by strftime(3) (\"%H:%M:%S\\n\" if not given)" },
    BuiltinFn { name: "join", dialects: Dialects::Bpftrace, kind: FnKind::Action, args: &[ArgSpec::Int, ArgSpec::Rest], hook: FnHook::Join, signature: "join(arr [, sep])", doc: "print the strings the first 16 pointers of array arr point at (execve's argv; a user-space array is read from the process), each up to 1023 bytes, up to the first that is empty or cannot be read, joined by the string literal sep (\" \" if not given), as a line" },
    BuiltinFn { name: "cat", dialects: Dialects::Bpftrace, kind: FnKind::Action, args: &[ArgSpec::Format, ArgSpec::Rest], hook: FnHook::Cat, signature: "cat(format, ...)", doc: "print the contents of the file printf would name, when crumbs reads the record: its first max_cat_bytes bytes (config variable, 10240 if not set); a file that cannot be read is an error message on standard error" },
    BuiltinFn { name: "strlen", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Str], hook: FnHook::Strlen, signature: "strlen(s)", doc: "the length of a string in bytes, its NUL not counted" },
    BuiltinFn { name: "strjoin", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Str, ArgSpec::Str], hook: FnHook::Str(crate::ir::StrFn::Join), signature: "strjoin(a, b)", doc: "a followed by b, cut to strsize - 1 bytes" },
    BuiltinFn { name: "substr", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Str, ArgSpec::Int, ArgSpec::OptInt], hook: FnHook::Str(crate::ir::StrFn::Substr), signature: "substr(s, index [, length])", doc: "the part of s from index (from the end if negative) of at most length bytes (to the end if left out; a negative length leaves that many off the end)" },
    BuiltinFn { name: "toupper", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Str], hook: FnHook::Str(crate::ir::StrFn::Upper), signature: "toupper(s)", doc: "s with its ASCII lower-case letters in upper case" },
    BuiltinFn { name: "tolower", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Str], hook: FnHook::Str(crate::ir::StrFn::Lower), signature: "tolower(s)", doc: "s with its ASCII upper-case letters in lower case" },
    BuiltinFn { name: "basename", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Str], hook: FnHook::Str(crate::ir::StrFn::Basename), signature: "basename(path)", doc: "the last component of a path, trailing slashes ignored (\".\" for \"\", \"/\" for \"/\")" },
    BuiltinFn { name: "dirname", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Str], hook: FnHook::Str(crate::ir::StrFn::Dirname), signature: "dirname(path)", doc: "a path without its last component (\".\" where there is no slash, \"/\" at the root)" },
    BuiltinFn { name: "index", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Str, ArgSpec::Str, ArgSpec::OptInt], hook: FnHook::Int(crate::ir::IntFn::Index), signature: "index(s, t [, start])", doc: "where t first occurs in s, looking from start (0 if left out or negative); -1 if it does not" },
    BuiltinFn { name: "rindex", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Str, ArgSpec::Str, ArgSpec::OptInt], hook: FnHook::Int(crate::ir::IntFn::Rindex), signature: "rindex(s, t [, start])", doc: "where t last occurs in s, at start or before (anywhere if left out); -1 if it does not or start is negative" },
    BuiltinFn { name: "strstr", dialects: Dialects::D, kind: FnKind::Subroutine, args: &[ArgSpec::Str, ArgSpec::Str], hook: FnHook::Str(crate::ir::StrFn::Strstr), signature: "strstr(s, t)", doc: "s from the first occurrence of t in it; \"\" if there is none" },
    BuiltinFn { name: "strstr", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Str, ArgSpec::Str], hook: FnHook::Int(crate::ir::IntFn::Index), signature: "strstr(haystack, needle)", doc: "current bpftrace's: where needle first occurs in haystack, -1 if it does not (D's index(); D's strstr() gives the rest of the string)" },
    BuiltinFn { name: "strchr", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Str, ArgSpec::Int], hook: FnHook::Str(crate::ir::StrFn::Strchr), signature: "strchr(s, c)", doc: "s from its first character c; \"\" if there is none" },
    BuiltinFn { name: "strrchr", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Str, ArgSpec::Int], hook: FnHook::Str(crate::ir::StrFn::Strrchr), signature: "strrchr(s, c)", doc: "s from its last character c; \"\" if there is none" },
    BuiltinFn { name: "strtok", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::StrOrNull, ArgSpec::Str], hook: FnHook::Str(crate::ir::StrFn::Strtok), signature: "strtok(s, delims)", doc: "the first token of s (bytes not in delims); strtok(NULL, delims) the next token of the last string given, in the same firing; \"\" when there are no more" },
    BuiltinFn { name: "lltostr", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int, ArgSpec::OptInt], hook: FnHook::Str(crate::ir::StrFn::Lltostr), signature: "lltostr(n [, base])", doc: "a 64-bit integer as a string: signed decimal, or in base 2 to 36 (digits 0-9a-z) unsigned, base 16 after 0x and base 8 after 0; a base outside 2..36 is a run-time error (illegal operation)" },
    BuiltinFn { name: "htons", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Int(crate::ir::IntFn::Swap(2)), signature: "htons(n)", doc: "a 16-bit integer from host to network (big-endian) byte order" },
    BuiltinFn { name: "htonl", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Int(crate::ir::IntFn::Swap(4)), signature: "htonl(n)", doc: "a 32-bit integer from host to network (big-endian) byte order" },
    BuiltinFn { name: "htonll", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Int(crate::ir::IntFn::Swap(8)), signature: "htonll(n)", doc: "a 64-bit integer from host to network (big-endian) byte order" },
    BuiltinFn { name: "ntohs", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Int(crate::ir::IntFn::Swap(2)), signature: "ntohs(n)", doc: "a 16-bit integer from network (big-endian) to host byte order" },
    BuiltinFn { name: "ntohl", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Int(crate::ir::IntFn::Swap(4)), signature: "ntohl(n)", doc: "a 32-bit integer from network (big-endian) to host byte order" },
    BuiltinFn { name: "ntohll", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Int(crate::ir::IntFn::Swap(8)), signature: "ntohll(n)", doc: "a 64-bit integer from network (big-endian) to host byte order" },
    BuiltinFn { name: "bswap", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Bswap, signature: "bswap(n)", doc: "n with its bytes in the reverse order, as an unsigned integer as wide as n's type (1, 2, 4 or 8 bytes; 1 byte stays itself)" },
    BuiltinFn { name: "strncmp", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Str, ArgSpec::Str, ArgSpec::Int], hook: FnHook::Strncmp, signature: "strncmp(a, b, n)", doc: "0 if the first n bytes of strings a and b are equal (n an integer constant), else 1" },
    BuiltinFn { name: "kptr", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::PtrSpace(false), signature: "kptr(p)", doc: "p, a pointer into kernel memory: what str() and members read through it come from the kernel" },
    BuiltinFn { name: "uptr", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::PtrSpace(true), signature: "uptr(p)", doc: "p, a pointer into the process's memory: what str() and members read through it come from user space" },
    BuiltinFn { name: "strcontains", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Str, ArgSpec::Str], hook: FnHook::Strcontains, signature: "strcontains(haystack, needle)", doc: "1 if the string needle occurs in the string haystack (\"\" occurs in every string), else 0" },
    BuiltinFn { name: "ntop", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Any, ArgSpec::OptInt], hook: FnHook::Ntop, signature: "ntop([af,] addr)", doc: "the address addr as text, as inet_ntop(3) writes it: an integer's low four bytes in memory order (ntop(0x0100007f) is 127.0.0.1), a 4- or 16-byte array or struct (args.saddr, $sk->__sk_common.skc_v6_daddr.in6_u.u6_addr8, an array kept in a variable or a map), pton(\"...\"), or a string literal of 3 or 15 characters (its bytes and NUL, as bpftrace 0.17); af, AF_INET (2) or AF_INET6 (10), is by default AF_INET6 for 16 bytes and AF_INET else; another af gives \"\"" },
    BuiltinFn { name: "pton", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Format], hook: FnHook::Pton, signature: "pton(addr)", doc: "the bytes of the address in the string literal addr: IPv4 (4 bytes) if it has a `.`, else IPv6 (16) if it has a `:`; an array of `uint8_t` (§13.2): stored, a key, printed as [1,2,3,4], given to ntop(), or compared (== or !=) with an array of its size" },
    BuiltinFn { name: "macaddr", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Any], hook: FnHook::Macaddr, signature: "macaddr(addr)", doc: "the 6-byte hardware address addr as upper-case hex bytes joined by colons (00:1A:2B:3C:4D:5E): a 6-byte array or struct in memory (or kept in a variable or a map), or the kernel address of one; bytes that cannot be read are 0; a string is an error, as in bpftrace 0.17" },
    BuiltinFn { name: "buf", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Any, ArgSpec::OptInt], hook: FnHook::Buf, signature: "buf(addr, length)", doc: "length bytes at addr (at most max_strlen, the string size: a computed length beyond it, or negative, reads max_strlen), a user-space pointer's from the process, a kernel pointer's from the kernel, an integer's from the kernel if it is a kernel address, else from the process; or buf(array), an array in memory whole; printed with %r (printable ASCII as it is, other bytes as \\xNN), %rx (every byte as \\xNN) or %rh (hex pairs joined by spaces), and as %r prints it as a key, a value or by print()" },
    BuiltinFn { name: "has_cpid", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[], hook: FnHook::HasCpid, signature: "has_cpid()", doc: "current bpftrace's: 1 if the program has a -c command or -p process (cpid can be read), else 0, known when compiling" },
    BuiltinFn { name: "ncpus", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[], hook: FnHook::Int(crate::ir::IntFn::Ncpus), signature: "ncpus()", doc: "current bpftrace's: the number of possible CPUs (/sys/devices/system/cpu/possible), known when compiling, a uint64" },
    BuiltinFn { name: "is_err", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::IsErr, signature: "is_err(ptr)", doc: "current bpftrace's: 1 if the pointer or integer ptr is an error the kernel encoded as a pointer (ERR_PTR: -4095 to -1, the kernel's IS_ERR()), else 0" },
    BuiltinFn { name: "probetype", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[], hook: FnHook::ProbeType, signature: "probetype()", doc: "current bpftrace's: the type of the probe that fired as bpftrace names it (kprobe, kretprobe, tracepoint, rawtracepoint, uprobe, uretprobe, usdt, profile, interval, software, hardware; special for BEGIN, END and ERROR; a kernel function's entry and return fentry and fexit where the probe is spelled fentry, kfunc or f and fexit, kretfunc or fr, else kprobe and kretprobe), a string" },
    BuiltinFn { name: "usermode", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[], hook: FnHook::Usermode, signature: "usermode()", doc: "current bpftrace's: 1 if the probe interrupted the CPU in user mode (the saved cs register's privilege level is 3), else 0, a uint8: read at kprobes, uprobes, usdt probes and perf events (profile, interval, software, hardware); 1 at BEGIN and END, 0 at other probes, known when compiling" },
    BuiltinFn { name: "signal_name", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::SignalName, signature: "signal_name(sig)", doc: "current bpftrace's: the description of signal number sig, as strsignal(3) gives it (Interrupt, Real-time signal 0, ...; N/A beyond 0 to 64) when printed (a key or printed with %s, not compared)" },
    BuiltinFn { name: "str_concat", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Str, ArgSpec::Str], hook: FnHook::Str(crate::ir::StrFn::Join), signature: "str_concat(a, b)", doc: "current bpftrace's: a followed by b, cut to strsize - 1 bytes, as strjoin()" },
    BuiltinFn { name: "errorf", dialects: Dialects::Bpftrace, kind: FnKind::Action, args: &[ArgSpec::Format, ArgSpec::Rest], hook: FnHook::Message { error: true }, signature: "errorf(format, ...)", doc: "current bpftrace's: print what printf would, as an error message with the call's place on standard error when crumbs reads the record: FILE:LINE:COLUMN-COLUMN: ERROR: text" },
    BuiltinFn { name: "warnf", dialects: Dialects::Bpftrace, kind: FnKind::Action, args: &[ArgSpec::Format, ArgSpec::Rest], hook: FnHook::Message { error: false }, signature: "warnf(format, ...)", doc: "current bpftrace's: print what printf would, as a warning with the call's place on standard error when crumbs reads the record: FILE:LINE:COLUMN-COLUMN: WARNING: text (nothing with --no-warnings)" },
    BuiltinFn { name: "assert", dialects: Dialects::Bpftrace, kind: FnKind::Action, args: &[ArgSpec::Int, ArgSpec::Str], hook: FnHook::Assert, signature: "assert(cond, msg)", doc: "current bpftrace's: if cond is 0 when the probe fires, errorf(\"assert failed: %s\", msg) and exit(1)" },
    BuiltinFn { name: "fail", dialects: Dialects::Bpftrace, kind: FnKind::Action, args: &[ArgSpec::Format, ArgSpec::Rest], hook: FnHook::Fail, signature: "fail(format, ...)", doc: "current bpftrace's: a compile error whose message is what printf would print of the literal arguments, where it is reached (not in a branch a condition known when compiling leaves out)" },
    BuiltinFn { name: "static_assert", dialects: Dialects::Bpftrace, kind: FnKind::Action, args: &[ArgSpec::Int, ArgSpec::Format], hook: FnHook::StaticAssert, signature: "static_assert(cond, msg)", doc: "current bpftrace's: a compile error with message msg (a string literal) if cond, known when compiling, is 0" },
    BuiltinFn { name: "is_integer", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Any], hook: FnHook::TypeTest(TypeTest::Integer), signature: "is_integer(expr)", doc: "current bpftrace's: 1 if expr is an integer (not a pointer), else 0, known when compiling (expr is not evaluated)" },
    BuiltinFn { name: "is_unsigned_integer", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Any], hook: FnHook::TypeTest(TypeTest::Unsigned), signature: "is_unsigned_integer(expr)", doc: "current bpftrace's: 1 if expr is an integer of an unsigned type, else 0, known when compiling (expr is not evaluated)" },
    BuiltinFn { name: "is_str", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Any], hook: FnHook::TypeTest(TypeTest::Str), signature: "is_str(expr)", doc: "current bpftrace's: 1 if expr is a string, else 0, known when compiling (expr is not evaluated)" },
    BuiltinFn { name: "is_ptr", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Any], hook: FnHook::TypeTest(TypeTest::Pointer), signature: "is_ptr(expr)", doc: "current bpftrace's: 1 if expr is a pointer, else 0, known when compiling (expr is not evaluated)" },
    BuiltinFn { name: "is_array", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Any], hook: FnHook::TypeTest(TypeTest::Array), signature: "is_array(expr)", doc: "current bpftrace's: 1 if expr is an array (a C array in memory), else 0, known when compiling (expr is not evaluated)" },
    BuiltinFn { name: "is_literal", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Any], hook: FnHook::TypeTest(TypeTest::Literal), signature: "is_literal(expr)", doc: "current bpftrace's: 1 if expr is written as a literal (1, -1, \"hello\", true), else 0" },
    BuiltinFn { name: "nsecs", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Any], hook: FnHook::Nsecs, signature: "nsecs(clock)", doc: "current bpftrace's: nanoseconds of the clock named, a uint64: monotonic (CLOCK_MONOTONIC, as nsecs), boot (CLOCK_BOOTTIME, counting time suspended), tai (CLOCK_TAI; Linux 6.1) or sw_tai (CLOCK_BOOTTIME plus CLOCK_TAI - CLOCK_BOOTTIME as read when compiling)" },
    BuiltinFn { name: "memcmp", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Str, ArgSpec::Str, ArgSpec::Int], hook: FnHook::Memcmp, signature: "memcmp(a, b, n)", doc: "current bpftrace's: the first n bytes (a non-negative constant, or computed when the probe fires and read unsigned) of strings a and b compared, an int: the difference of the first bytes that differ, as signed chars (bytes past a string's buffer are 0), else 0" },
    BuiltinFn { name: "strcap", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Any], hook: FnHook::Strcap, signature: "strcap(s)", doc: "current bpftrace's: the capacity of a string, an int64 known when compiling: a literal's bytes and NUL, comm's 16, another string's the string size (max_strlen); a char array's length; for a pointer to chars, the length of the string it points to" },
    BuiltinFn { name: "kfunc_exist", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Format], hook: FnHook::Kfunc { allowed: false }, signature: "kfunc_exist(name)", doc: "current bpftrace's: 1 if the kernel's BTF has a function name (a string literal), else 0, known when compiling" },
    BuiltinFn { name: "kfunc_allowed", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Format], hook: FnHook::Kfunc { allowed: true }, signature: "kfunc_allowed(name)", doc: "current bpftrace's: 1 if the program of the clause's first probe may call kernel function name (a string literal), as the verifier says of a program that calls it, else 0, known when compiling" },
    BuiltinFn { name: "socket_cookie", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::SocketCookie, signature: "socket_cookie(sk)", doc: "current bpftrace's: the kernel's cookie of socket sk, a uint64 (bpf_get_socket_cookie: made when first asked, then the same for the socket's life; 0 for NULL): sk a struct sock * argument of the probed function (fentry/fexit: kfunc:, kretfunc:, kprobe: clauses then attach as those) or raw tracepoint" },
    BuiltinFn { name: "comm", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::CommOfPid, signature: "comm(pid)", doc: "current bpftrace's: the name of the thread with id pid (the kfuncs bpf_task_from_pid and bpf_task_release), \"N/A\" if there is none (and the warning \"No such process (pid=N)\"); where the probe's program may call them (tracepoints, profile and perf events, raw tracepoints on Linux 6.18)" },
    BuiltinFn { name: "percpu_kaddr", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Format, ArgSpec::OptInt], hook: FnHook::PercpuKaddr, signature: "percpu_kaddr(name [, cpu])", doc: "current bpftrace's: the address of the kernel's per-CPU variable name (a string literal; its BTF describes it) on the CPU the probe fires on, or on CPU cpu (0 if there is no such CPU): bpf_this_cpu_ptr / bpf_per_cpu_ptr, a uint64_t *" },
    BuiltinFn { name: "find", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Aggregation, ArgSpec::Any, ArgSpec::Any], hook: FnHook::Find, signature: "find(@map, key, $var)", doc: "current bpftrace's: 1 if map of values @map has an element at key, which is then stored in scratch variable $var; else 0, $var left as it was" },
    BuiltinFn { name: "reg", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Format], hook: FnHook::Register, signature: "reg(name)", doc: "the register name (a string literal, as bpftrace names x86-64's: ip, sp, bp, ax, bx, cx, dx, si, di, r8 to r15, orig_ax, flags, cs, ss) where the probe fired: at kprobes, uprobes, USDT probes and perf events (profile, interval, software, hardware), a uint64" },
    BuiltinFn { name: "override", dialects: Dialects::Bpftrace, kind: FnKind::Action, args: &[ArgSpec::Int], hook: FnHook::Override, signature: "override(rc)", doc: "destructive (--unsafe): the probed kernel function does not run and returns rc instead (bpf_override_return): at kprobes of functions the kernel allows error injection into (ALLOW_ERROR_INJECTION), on a kernel built with CONFIG_BPF_KPROBE_OVERRIDE; they then attach as kprobes" },
    BuiltinFn { name: "rand", dialects: Both, kind: FnKind::Subroutine, args: &[], hook: FnHook::Int(crate::ir::IntFn::Rand), signature: "rand()", doc: "a pseudo-random int (bpf_get_prandom_u32), not for cryptography" },
    BuiltinFn { name: "progenyof", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Int(crate::ir::IntFn::Progenyof), signature: "progenyof(pid)", doc: "1 if the current process is pid or one of its descendants, else 0" },
    BuiltinFn { name: "inet_ntoa", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Str(crate::ir::StrFn::InetNtoa), signature: "inet_ntoa(addr)", doc: "the IPv4 address (4 bytes, network order) at kernel address addr, dotted: 192.168.1.23" },
    BuiltinFn { name: "inet_ntoa6", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int, ArgSpec::OptConstInt], hook: FnHook::Str(crate::ir::StrFn::InetNtoa6), signature: "inet_ntoa6(addr [, strict])", doc: "the IPv6 address (16 bytes) at kernel address addr, zeros shortened with ::; an IPv4-mapped or -compatible one as dotted IPv4 (with its ::ffff: or :: prefix if strict is not 0)" },
    BuiltinFn { name: "inet_ntop", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int, ArgSpec::Int], hook: FnHook::Str(crate::ir::StrFn::InetNtop), signature: "inet_ntop(af, addr)", doc: "the address at kernel address addr of family af: AF_INET (2) as inet_ntoa(), AF_INET6 (10) as inet_ntoa6(addr, 1); another family is a run-time error (illegal operation)" },
    BuiltinFn { name: "cleanpath", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Str], hook: FnHook::Str(crate::ir::StrFn::Cleanpath), signature: "cleanpath(path)", doc: "path without its empty and `.` components, a component followed by `..` taken out with it, and no trailing slash, by text alone (\"\" stays \"\")" },
    BuiltinFn { name: "link_ntop", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int, ArgSpec::Int], hook: FnHook::Str(crate::ir::StrFn::LinkNtop), signature: "link_ntop(type, addr)", doc: "the link-layer address at kernel address addr of hardware type type as hex bytes joined by colons: ARPHRD_ETHER (1) 6 bytes, ARPHRD_INFINIBAND (32) 20; another type is a run-time error (illegal operation)" },
    BuiltinFn { name: "d_path", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Kernel(KernelFn::DPath), signature: "d_path(path)", doc: "the name of a `struct path *` as the kernel's d_path() writes it, from the current process's root; an address that cannot be read is a run-time error (invalid address)" },
    BuiltinFn { name: "getmajor", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Kernel(KernelFn::Getmajor), signature: "getmajor(dev)", doc: "the major number of a kernel dev_t: dev >> 20 of its low 32 bits" },
    BuiltinFn { name: "getminor", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Kernel(KernelFn::Getminor), signature: "getminor(dev)", doc: "the minor number of a kernel dev_t: dev & 0xfffff" },
    BuiltinFn { name: "mutex_owned", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Kernel(KernelFn::MutexOwned), signature: "mutex_owned(mutex)", doc: "1 if the current thread owns the `struct mutex *`, else 0" },
    BuiltinFn { name: "mutex_owner", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Kernel(KernelFn::MutexOwner), signature: "mutex_owner(mutex)", doc: "the `struct task_struct *` that owns the `struct mutex *`, NULL if it is free" },
    BuiltinFn { name: "mutex_type_adaptive", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Kernel(KernelFn::MutexTypeAdaptive), signature: "mutex_type_adaptive(mutex)", doc: "1: every Linux `struct mutex` is adaptive (spins while its owner runs, else sleeps)" },
    BuiltinFn { name: "mutex_type_spin", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Kernel(KernelFn::MutexTypeSpin), signature: "mutex_type_spin(mutex)", doc: "0: no Linux `struct mutex` is a spin mutex" },
    BuiltinFn { name: "rw_read_held", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Kernel(KernelFn::RwReadHeld), signature: "rw_read_held(rwlock)", doc: "1 if the `rwlock_t *` is held by readers, else 0" },
    BuiltinFn { name: "rw_write_held", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Kernel(KernelFn::RwWriteHeld), signature: "rw_write_held(rwlock)", doc: "1 if the `rwlock_t *` is held by a writer, else 0" },
    BuiltinFn { name: "rw_iswriter", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Kernel(KernelFn::RwIswriter), signature: "rw_iswriter(rwlock)", doc: "1 if the `rwlock_t *` is held or wanted by a writer, else 0" },
    BuiltinFn { name: "stack", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::OptConstInt], hook: FnHook::Stack, signature: "stack([nframes])", doc: "the kernel stack where the probe fired, its innermost nframes frames (1 to 64; default: option stackframes, 20): an aggregation key, traced, or printf's %k" },
    BuiltinFn { name: "func", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Sym(SymKind::Func), signature: "func(pc)", doc: "the kernel function holding address pc, printed as module`function (keys at different offsets in one function aggregate together)" },
    BuiltinFn { name: "sym", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Sym(SymKind::Func), signature: "sym(pc)", doc: "the kernel symbol holding address pc, printed as module`symbol; the same as func(pc)" },
    BuiltinFn { name: "mod", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Sym(SymKind::Mod), signature: "mod(pc)", doc: "the kernel module holding address pc (vmlinux for the kernel itself), printed as its name" },
    BuiltinFn { name: "ustack", dialects: Dialects::D, kind: FnKind::Subroutine, args: &[ArgSpec::OptConstInt, ArgSpec::OptConstInt], hook: FnHook::UStack { java: false }, signature: "ustack([nframes [, strsize]])", doc: "the user stack of the process where the probe fired, its innermost nframes frames (1 to 100; default: option ustackframes, 100), symbolized in that process (strsize, DTrace's room for JIT frame names, is accepted and ignored): an aggregation key, traced, or printf's %k" },
    BuiltinFn { name: "ustack", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::OptConstInt], hook: FnHook::UStack { java: false }, signature: "ustack([mode,] [n])", doc: "the user stack of the process where the probe fired, its innermost n frames (1 to 100; default: option ustackframes, 100), symbolized in that process, printed in the mode: bpftrace (function+offset), perf, raw (addresses) or build_id (each frame's file build id and the offset in it)" },
    BuiltinFn { name: "kstack", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::OptConstInt], hook: FnHook::Stack, signature: "kstack([mode,] [n])", doc: "the kernel stack where the probe fired, its innermost n frames (1 to 64; default: option stackframes, 20); the mode (bpftrace, perf, raw) is accepted and the stack printed in bpftrace's layout" },
    BuiltinFn { name: "ksym", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::Sym(SymKind::Func), signature: "ksym(addr)", doc: "the kernel symbol holding address addr, as sym()" },
    BuiltinFn { name: "signal_thread", dialects: Dialects::Bpftrace, kind: FnKind::Action, args: &[ArgSpec::Int], hook: FnHook::SignalThread, signature: "signal_thread(sig)", doc: "current bpftrace's, destructive (--unsafe): send signal sig, a name (\"SIGSTOP\" or \"STOP\") or a number from 1 to 64, to the thread that fired the probe (bpf_send_signal_thread), at kprobes, kretprobes, uprobes, uretprobes, USDT probes, tracepoints, raw tracepoints and profile probes" },
    BuiltinFn { name: "write_user", dialects: Dialects::Bpftrace, kind: FnKind::Subroutine, args: &[ArgSpec::Int, ArgSpec::Str, ArgSpec::Int], hook: FnHook::WriteUser, signature: "write_user(dst, src, len)", doc: "current bpftrace's, destructive (--unsafe): write the first len bytes (a constant from 1 to its buffer's size, or computed when the probe fires: at most the buffer's size, none for 0) of string src to the process's memory at dst (bpf_probe_write_user), an int: 1 if written, else 0" },
    BuiltinFn { name: "signal", dialects: Dialects::Bpftrace, kind: FnKind::Action, args: &[ArgSpec::Int], hook: FnHook::Raise, signature: "signal(sig)", doc: "destructive (--unsafe): send signal sig, a name (\"SIGKILL\" or \"KILL\") or a number, to the process that fired the probe, as raise()" },
    BuiltinFn { name: "jstack", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::OptConstInt, ArgSpec::OptConstInt], hook: FnHook::UStack { java: true }, signature: "jstack([nframes [, strsize]])", doc: "DTrace's Java stack; Linux has no Java helper, so the user stack as ustack() records it, its innermost nframes frames (1 to 100; default: option jstackframes, 50)" },
    BuiltinFn { name: "usym", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::USym(USymKind::Func), signature: "usym(pc)", doc: "the symbol holding user address pc in the process where the probe fired, printed as module`symbol (keys at different offsets in one symbol aggregate together)" },
    BuiltinFn { name: "ufunc", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::USym(USymKind::Func), signature: "ufunc(pc)", doc: "the user function holding address pc, printed as module`function; the same as usym(pc)" },
    BuiltinFn { name: "uaddr", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::USym(USymKind::Addr), signature: "uaddr(pc)", doc: "user address pc in the process where the probe fired, printed as module`symbol+0xoffset" },
    BuiltinFn { name: "umod", dialects: Both, kind: FnKind::Subroutine, args: &[ArgSpec::Int], hook: FnHook::USym(USymKind::Mod), signature: "umod(pc)", doc: "the module (executable or shared library) holding user address pc in the process where the probe fired, printed as its file name" },
    BuiltinFn { name: "normalize", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Aggregation, ArgSpec::Int], hook: FnHook::Normalize, signature: "normalize(@agg, n)", doc: "print an aggregation's values divided by n from now on" },
    BuiltinFn { name: "denormalize", dialects: Both, kind: FnKind::Action, args: &[ArgSpec::Aggregation], hook: FnHook::Denormalize, signature: "denormalize(@agg)", doc: "print an aggregation's values undivided again" },
    BuiltinFn { name: "count", dialects: Both, kind: FnKind::Aggregating, args: &[], hook: FnHook::Aggregate(&agg::count::Count), signature: "count()", doc: "number of times called" },
    BuiltinFn { name: "sum", dialects: Both, kind: FnKind::Aggregating, args: &[ArgSpec::Int], hook: FnHook::Aggregate(&agg::sum::Sum), signature: "sum(x)", doc: "total of the values" },
    BuiltinFn { name: "min", dialects: Both, kind: FnKind::Aggregating, args: &[ArgSpec::Int], hook: FnHook::Aggregate(&agg::extreme::MIN), signature: "min(x)", doc: "smallest value" },
    BuiltinFn { name: "max", dialects: Both, kind: FnKind::Aggregating, args: &[ArgSpec::Int], hook: FnHook::Aggregate(&agg::extreme::MAX), signature: "max(x)", doc: "largest value" },
    BuiltinFn { name: "avg", dialects: Both, kind: FnKind::Aggregating, args: &[ArgSpec::Int], hook: FnHook::Aggregate(&agg::avg::Avg), signature: "avg(x)", doc: "integer mean of the values" },
    BuiltinFn { name: "stddev", dialects: Both, kind: FnKind::Aggregating, args: &[ArgSpec::Int], hook: FnHook::Aggregate(&agg::stddev::Stddev), signature: "stddev(x)", doc: "integer standard deviation of the values" },
    BuiltinFn { name: "quantize", dialects: Both, kind: FnKind::Aggregating, args: &[ArgSpec::Int], hook: FnHook::Aggregate(&agg::quantize::Quantize), signature: "quantize(x)", doc: "power-of-two frequency distribution" },
    BuiltinFn { name: "lquantize", dialects: Both, kind: FnKind::Aggregating, args: &[ArgSpec::Int, ArgSpec::ConstInt, ArgSpec::ConstInt, ArgSpec::ConstInt], hook: FnHook::Aggregate(&agg::lquantize::Lquantize), signature: "lquantize(x, low, high, step)", doc: "linear frequency distribution from low to high in steps of step" },
    BuiltinFn { name: "hist", dialects: Both, kind: FnKind::Aggregating, args: &[ArgSpec::Int, ArgSpec::OptConstInt], hook: FnHook::Aggregate(&agg::hist::HIST), signature: "hist(x [, k])", doc: "bpftrace's power-of-two histogram (quantize()'s buckets); current bpftrace's k (0 to 5) splits each power of two into 2^k buckets" },
    BuiltinFn { name: "lhist", dialects: Both, kind: FnKind::Aggregating, args: &[ArgSpec::Int, ArgSpec::ConstInt, ArgSpec::ConstInt, ArgSpec::ConstInt], hook: FnHook::Aggregate(&agg::bpftrace::LHIST), signature: "lhist(x, min, max, step)", doc: "bpftrace's linear histogram from min to max in steps of step (lquantize()'s buckets)" },
    BuiltinFn { name: "stats", dialects: Both, kind: FnKind::Aggregating, args: &[ArgSpec::Int], hook: FnHook::Aggregate(&agg::bpftrace::STATS), signature: "stats(x)", doc: "bpftrace's count, average and total of the values" },
    BuiltinFn { name: "tseries", dialects: Dialects::Bpftrace, kind: FnKind::Aggregating, args: &[ArgSpec::Int, ArgSpec::ConstInt, ArgSpec::ConstInt, ArgSpec::OptFormat], hook: FnHook::Aggregate(&agg::tseries::TSERIES), signature: "tseries(n, interval_ns, num_intervals [, agg])", doc: "current bpftrace's time series: the last value (or the \"avg\", \"max\", \"min\" or \"sum\" of the values) of each of the latest num_intervals intervals of interval_ns nanoseconds" },
    BuiltinFn { name: "llquantize", dialects: Both, kind: FnKind::Aggregating, args: &[ArgSpec::Int, ArgSpec::ConstInt, ArgSpec::ConstInt, ArgSpec::ConstInt, ArgSpec::ConstInt], hook: FnHook::Aggregate(&agg::llquantize::Llquantize), signature: "llquantize(x, factor, low, high, steps)", doc: "log-linear frequency distribution: each power of factor from factor^low to factor^high split into steps linear buckets" },
];

/// The builtin function a name is in the dialect.
pub fn function(name: &str, dialect: Dialect) -> Option<&'static BuiltinFn> {
    FUNCTIONS.iter().find(|f| f.dialects.includes(dialect) && f.name == name)
}

/// The names of the dialect's functions, for "did you mean" and completion.
pub fn function_names(dialect: Dialect) -> impl Iterator<Item = &'static str> {
    FUNCTIONS.iter().filter(move |f| f.dialects.includes(dialect)).map(|f| f.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregating_rows_name_their_aggregator() {
        for f in FUNCTIONS {
            match f.hook {
                FnHook::Aggregate(a) => assert_eq!((a.name(), f.kind), (f.name, FnKind::Aggregating)),
                _ => assert_ne!(f.kind, FnKind::Aggregating, "{}", f.name),
            }
        }
    }
}
