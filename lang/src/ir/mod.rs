//! The typed IR: what a checked program does, with every name resolved and every value's
//! representation fixed. It knows nothing of BPF or the kernel; the eBPF backend (and, later,
//! a user-space backend) execute it, and the runtime decodes what it produces with it.

use crate::ast::{BinOp, Span, UnOp};
use crate::builtins::VarHook;
use crate::printf::Piece;
use crate::providers::AttachPoint;
use crate::syscalls::SyscallTable;

pub mod agg;
mod bpftrace_names;
mod fault;
pub mod fold;
mod fbt_needs;
pub mod layout;
pub use agg::AggKind;
pub use fault::Fault;
pub use fbt_needs::FbtNeeds;
pub use layout::Layout;

/// Interned string ids at or above this are system call names: `SYSCALL_STR_BASE + nr`.
pub const SYSCALL_STR_BASE: u64 = 1 << 32;

/// An integer's C type as storage and output need it: its width and sign. Every integer is
/// stored as 64 bits, already converted to its type (sign- or zero-extended from `size`
/// bytes), so only output reads these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IntRepr {
    /// Bytes of the C type: 1, 2, 4 or 8.
    pub size: u8,
    pub signed: bool,
}

impl IntRepr {
    pub const I64: IntRepr = IntRepr { size: 8, signed: true };
    pub const U64: IntRepr = IntRepr { size: 8, signed: false };
    pub const I32: IntRepr = IntRepr { size: 4, signed: true };

    /// `n` (stored sign- or zero-extended from `size` bytes) in decimal: an unsigned type's
    /// value as unsigned.
    pub fn decimal(self, n: i64) -> String {
        if self.signed {
            n.to_string()
        } else {
            self.unsigned(n).to_string()
        }
    }

    /// The `size` low bytes of `n` as an unsigned number.
    pub fn unsigned(self, n: i64) -> u64 {
        if self.size >= 8 {
            n as u64
        } else {
            n as u64 & ((1u64 << (8 * self.size as u32)) - 1)
        }
    }
}

/// How a value is stored in maps and records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Repr {
    /// An integer of a C type (pointers are unsigned 64-bit integers).
    Int(IntRepr),
    /// An interned string id (see [`Strings`]): a constant or a probe's name.
    StrId,
    /// A kernel stack: an id in the stack map (negative if the kernel could not record it),
    /// read in user space as the [`StackUse`] says.
    Stack(StackUse),
    /// A kernel address that prints as its symbol (`func()`, `sym()`, `mod()`): 8 bytes.
    Sym(SymKind),
    /// A user stack: 8 bytes, the stack id in the user stack map in the low 32 bits (negative
    /// if the kernel could not record it) and the process's id (tgid) in the high 32, which
    /// user space symbolizes the frames with; read as the [`UStackUse`] says.
    UStack(UStackUse),
    /// A user-space address that prints as its symbol (`usym()`, `ufunc()`, `uaddr()`,
    /// `umod()`): 16 bytes, the address and then the process's id (tgid), as DTrace records
    /// them (the other way round).
    USym(USymKind),
    /// A string in a buffer of this many bytes (a multiple of 8), NUL-terminated and
    /// NUL-padded: 16 for a process name, the `strsize` option's bytes for the others.
    Str(u32),
    /// A struct, union or array copied from kernel memory: its bytes (a variable's or an
    /// element's buffer: rounded up to whole words).
    Object(u32),
    /// bpftrace's `probe`: the id of the probe that fired (8 bytes), printed as bpftrace
    /// names it ([`Program::bpftrace_probe_name`]).
    Probe,
    /// bpftrace's `strftime(format, ns)`: nanoseconds since boot (8 bytes), printed in user
    /// space as the local time by strftime(3) with the interned format `.0`.
    Strftime(u32),
    /// A number (8 bytes) printed as the name user space finds for it ([`NameOf`]).
    Named(NameOf),
    /// bpftrace's `buf(addr, n)`: a word holding how many bytes were read (at most this
    /// many), then this many bytes' place rounded up to whole words, zero past the length;
    /// printed in user space with `\x..` escapes ([`Expr::Buf`]).
    Buf(u32),
    /// bpftrace's array of integers as a value (`pton("1.2.3.4")`, `$a = args->saddr`,
    /// `@m[k] = $sk->...u6_addr8`): this many elements of this integer type, their bytes as
    /// in memory in a place rounded up to whole words, printed `[1,2,3,4]`.
    Array(IntRepr, u32),
}

/// What name user space prints for a number: bpftrace's `username` (a uid's user name),
/// `strerror(errno)` (an error number's message) and `cgroup_path(id [, filter])` (a cgroup
/// id's paths in the hierarchies whose names match the interned filter `.0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameOf {
    User,
    Errno,
    /// current bpftrace's `signal_name(sig)`: a signal's description.
    Signal,
    CgroupPath(u32),
    /// A pointer kept as a bpftrace map's key, which bpftrace 0.17 prints in hex (`0x10`).
    Pointer,
}

/// What user space reads from a recorded kernel stack. The kernel records the whole stack
/// (up to [`STACK_FRAMES_MAX`] frames) in every case, and user space leaves out the tracing
/// machinery's own frames at its top when it prints them (how many there are varies with how
/// many programs share a tracepoint).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StackUse {
    /// `stack(n)`: the innermost n frames (0 is the `stackframes` option's number), printed
    /// as the mode says.
    Frames(u8, StackMode),
}

/// How a stack prints in bpftrace's output (its `stack_mode`; D's output has one layout):
/// part of the stack's value, as one program may print stacks in several modes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StackMode {
    /// `function+offset`, a frame a line, indented.
    #[default]
    Bpftrace,
    /// As perf prints them: a tab, the address in hex, the symbol (a user frame's file after
    /// it in parentheses).
    Perf,
    /// The addresses in hex, not symbolized.
    Raw,
    /// A user stack's frames as the kernel records them with BPF_F_USER_BUILD_ID: each
    /// frame's file by its GNU build id and the offset in it (or the address where the kernel
    /// found no build id). bpftrace's `build_id`, for user stacks alone.
    BuildId,
}

impl StackMode {
    /// The mode as bpftrace's programs name it.
    pub fn name(self) -> &'static str {
        match self {
            StackMode::Bpftrace => "bpftrace",
            StackMode::Perf => "perf",
            StackMode::Raw => "raw",
            StackMode::BuildId => "build_id",
        }
    }
}

/// What user space reads from a recorded user stack (`ustack()`, `ucaller`, `ustackdepth`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UStackUse {
    /// `ustack(n)`: the innermost n frames (0 is the `ustackframes` option's number),
    /// printed as the mode says.
    Frames(u8, StackMode),
}

impl UStackUse {
    pub fn describe(self) -> &'static str {
        match self {
            UStackUse::Frames(..) => "a user stack",
        }
    }
}

/// How a user-space address prints, as DTrace's: `usym()`/`ufunc()` (`module`symbol`),
/// `uaddr()` (`module`symbol+0xoffset`, also printf's `%A`) or `umod()` (`module`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum USymKind {
    Func,
    Addr,
    Mod,
}

/// Most frames a user stack keeps (the user stack map's depth), and what `ustack()` keeps
/// when the `ustackframes` option is not set: DTrace's default, 100.
pub const USTACK_FRAMES_MAX: u8 = 100;

/// Frames `jstack()` records when the `jstackframes` option is not set (DTrace's default).
pub const JSTACK_FRAMES_DEFAULT: u8 = 50;

/// Most frames a kernel stack keeps (the stack map's depth).
pub const STACK_FRAMES_MAX: u8 = 64;

/// The most a CPU spins in `chill()` in each [`CHILL_INTERVAL`], in ns: DTrace's
/// `dtrace_chill_max`, so a script cannot stall a CPU.
pub const CHILL_MAX: u64 = 500_000_000;
/// The most copyout() and copyoutstr() write per call (the data is staged in the scratch
/// space); a larger size when the probe fires is a run-time error, out of scratch space.
pub const COPYOUT_LIMIT: u32 = 4096;
/// The interval [`CHILL_MAX`] is counted over, in ns (DTrace's `dtrace_chill_interval`).
pub const CHILL_INTERVAL: u64 = 1_000_000_000;

/// Frames `stack()` records when the `stackframes` option is not set (DTrace's default).
pub const STACK_FRAMES_DEFAULT: u8 = 20;

impl StackUse {
    pub fn describe(self) -> &'static str {
        match self {
            StackUse::Frames(..) => "a stack",
        }
    }
}

/// How a kernel address prints: DTrace's `sym()`/`func()` (`module`symbol`) or `mod()`
/// (`module`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SymKind {
    Func,
    Mod,
}

/// DTrace's default `strsize`: the bytes a string holds, its NUL included.
pub const DEFAULT_STRSIZE: u32 = 256;

/// The bytes of a process name (the kernel's TASK_COMM_LEN), its NUL included.
pub const COMM_SIZE: u32 = 16;
/// Byte offsets of the kernel's fields `cwd` walks (from its BTF): the task's `fs`, the
/// working directory and root (`struct path`: `mnt`, `dentry`), a dentry's parent and name
/// (`d_name.name`, `d_name.len`), a vfsmount's root, and in `struct mount` the embedded
/// vfsmount, the parent mount and the mount point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CwdOffsets {
    pub task_fs: i32,
    pub fs_pwd: i32,
    pub fs_root: i32,
    pub path_mnt: i32,
    pub path_dentry: i32,
    pub dentry_parent: i32,
    pub dentry_name: i32,
    pub dentry_len: i32,
    pub vfsmount_root: i32,
    pub mount_mnt: i32,
    pub mount_parent: i32,
    pub mount_mountpoint: i32,
}

/// What d_path() reads besides what `cwd` does: a dentry's `d_hash.pprev` (0 once its file
/// is deleted) and `d_op`, and dentry_operations' `d_dname` (set for the files the kernel
/// names itself: pipes, sockets, anonymous inodes); for those, the dentry's `d_sb` and
/// `d_inode`, the super_block's `s_magic` (which filesystem) and the inode's `i_ino`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DPathOffsets {
    pub dentry_hash_pprev: i32,
    pub dentry_op: i32,
    pub ops_dname: i32,
    pub dentry_sb: i32,
    pub dentry_inode: i32,
    pub sb_magic: i32,
    pub inode_ino: i32,
}

/// Bytes of `pr_psargs` (Solaris' PRARGSZ), its NUL included.
pub const PSARGS_SIZE: u32 = 80;

/// The buffer a string of up to `strsize` bytes is stored in: rounded up to whole words.
pub fn str_buffer(strsize: u32) -> u32 {
    strsize.next_multiple_of(8)
}

impl Repr {
    /// Whether it is a string, in a buffer or as an id.
    pub fn is_str(self) -> bool {
        matches!(self, Repr::Str(_) | Repr::StrId)
    }

    /// How the type is named in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Repr::Int(_) => "an integer",
            Repr::StrId | Repr::Str(_) => "a string",
            Repr::Stack(u) => u.describe(),
            Repr::Sym(_) => "a kernel symbol",
            Repr::UStack(u) => u.describe(),
            Repr::USym(_) => "a user symbol",
            Repr::Object(_) => "a struct or array",
            Repr::Probe => "a probe's name",
            Repr::Strftime(_) => "a formatted time",
            Repr::Named(NameOf::User) => "a user name",
            Repr::Named(NameOf::Errno) => "an error message",
            Repr::Named(NameOf::Signal) => "a signal's name",
            Repr::Named(NameOf::CgroupPath(_)) => "a cgroup's path",
            Repr::Named(NameOf::Pointer) => "a pointer",
            Repr::Buf(_) => "a buffer",
            Repr::Array(..) => "an array",
        }
    }

    pub fn size(self) -> usize {
        match self {
            Repr::Int(_) | Repr::StrId | Repr::Stack(_) | Repr::Sym(_) | Repr::UStack(_) | Repr::Probe | Repr::Strftime(_) | Repr::Named(_) => 8,
            Repr::USym(_) => 16,
            Repr::Str(n) | Repr::Object(n) => n as usize,
            Repr::Buf(n) => 8 + n.next_multiple_of(8) as usize,
            Repr::Array(..) => self.array_bytes().next_multiple_of(8) as usize,
        }
    }

    /// An array's bytes as in memory (its place is rounded up to whole words); 0 for
    /// anything else.
    pub fn array_bytes(self) -> u32 {
        match self {
            Repr::Array(e, n) => e.size as u32 * n,
            _ => 0,
        }
    }

    /// Whether user space turns it into text when printing (a stack, a symbol, or what is
    /// read from a recorded stack): it cannot be computed with or stored in a variable.
    pub fn printed_only(self) -> bool {
        matches!(self, Repr::Stack(_) | Repr::Sym(_) | Repr::UStack(_) | Repr::USym(_) | Repr::Probe | Repr::Strftime(_) | Repr::Named(_) | Repr::Buf(_))
    }

    /// How a variable holding it is typed in messages (a printed-only representation; the
    /// stack's frames are part of its type): bpftrace's type names.
    pub fn type_name(self) -> String {
        let stack = |what: &str, n: u8, mode: StackMode| match (n, mode) {
            (0, StackMode::Bpftrace) => what.to_string(),
            (n, StackMode::Bpftrace) => format!("{what}({n})"),
            (0, m) => format!("{what}({})", m.name()),
            (n, m) => format!("{what}({}, {n})", m.name()),
        };
        match self {
            Repr::Stack(StackUse::Frames(n, m)) => stack("kstack", n, m),
            Repr::UStack(UStackUse::Frames(n, m)) => stack("ustack", n, m),
            Repr::Sym(SymKind::Func) => "ksym".into(),
            Repr::Sym(SymKind::Mod) => "kmod".into(),
            Repr::USym(USymKind::Func) => "usym".into(),
            Repr::USym(USymKind::Addr) => "uaddr".into(),
            Repr::USym(USymKind::Mod) => "umod".into(),
            Repr::Probe => "probe".into(),
            Repr::Strftime(_) => "timestamp".into(),
            Repr::Named(NameOf::User) => "username".into(),
            Repr::Named(NameOf::Errno) => "strerror".into(),
            Repr::Named(NameOf::Signal) => "signal_name".into(),
            Repr::Named(NameOf::CgroupPath(_)) => "cgroup_path".into(),
            Repr::Named(NameOf::Pointer) => "pointer".into(),
            Repr::Buf(n) => format!("buffer[{n}]"),
            r => r.describe().into(),
        }
    }

    /// Whether it is a stack's frames (kernel or user), printed by `%k`.
    pub fn is_frames(self) -> bool {
        matches!(self, Repr::Stack(StackUse::Frames(..)) | Repr::UStack(UStackUse::Frames(..)))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Int(i64),
    Str(StrExpr),
    Var(VarHook),
    Global(usize),
    /// `self->name`: per-thread, 0 until assigned.
    ThreadLocal(usize),
    /// `this->name`: per clause firing.
    ClauseLocal(usize),
    Unary(UnOp, Box<Expr>),
    /// Integer arithmetic, comparison and logic (`&&`, `||` short-circuit); `/`, `%`, `>>`
    /// and the orderings are signed.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `/`, `%`, `>>`, `<`, `<=`, `>`, `>=` of operands whose C type is unsigned.
    Unsigned(BinOp, Box<Expr>, Box<Expr>),
    /// A comparison of two strings by content.
    StrCmp(BinOp, StrExpr, StrExpr),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// The kernel stack, recorded in the stack map: `stack()`, and `caller` and
    /// `stackdepth`, which user space reads from it.
    Stack(StackUse),
    /// `func(pc)`, `sym(pc)`, `mod(pc)`: the address, printed as its symbol or module.
    Sym(SymKind, Box<Expr>),
    /// The user stack, recorded in the user stack map with the process's id: `ustack()`,
    /// and `ucaller` and `ustackdepth`, which user space reads from it.
    UStack(UStackUse),
    /// `usym(pc)`, `ufunc(pc)`, `uaddr(pc)`, `umod(pc)` (and printf's `%A`): the address
    /// and the process's id, printed as the symbol or module in that process.
    USym(USymKind, Box<Expr>),
    /// `args->name`, an integer field of the firing tracepoint's record.
    TpField(String),
    /// The address of the firing tracepoint's record.
    TpRecord,
    /// The `size`-byte integer at a kernel address, read with the probe-read helper (0 if
    /// the address cannot be read), sign- or zero-extended.
    Load { addr: Box<Expr>, size: u8, signed: bool },
    /// The `size` bytes of an object in kernel memory at `addr` (a struct, union or array
    /// recorded whole for printing, or stored in a variable; an address that cannot be read
    /// faults).
    Object { addr: Box<Expr>, size: u32 },
    /// The first `len` bytes (at most `size`) of kernel memory at `addr`, in a `size`-byte
    /// place (the rest left as it is): pcap()'s packet. An address that cannot be read is a
    /// fault; a `len` of 0 reads nothing.
    ObjectPrefix { addr: Box<Expr>, size: u32, len: Box<Expr> },
    /// The strings the first `count` pointers of the array at `addr` point at (bpftrace's
    /// join() of execve's argv), each in `size` bytes read from where `from` says; a pointer
    /// or a string that cannot be read is "" (never a fault: the array's end is read past).
    PointedStrings { addr: Box<Expr>, from: ReadFrom, count: u32, size: u32 },
    /// bpftrace's `buf(addr, len)`: `len` bytes (at most `cap`; a negative `len` is taken as
    /// `cap`, an unsigned comparison, as bpftrace's) read from `addr` where `from` says, kept
    /// with their count as [`Repr::Buf`] says. Bytes that cannot be read are 0, as the read
    /// helpers leave them (never a fault, as in bpftrace).
    Buf { addr: Box<Expr>, from: ReadFrom, len: Box<Expr>, cap: u32 },
    /// bpftrace's `buf(s, len)` of a string: its first `len` bytes (at most `cap`, a negative
    /// `len` taken as `cap`) as its buffer holds them, the NUL and the zeros after it
    /// included (0 past the buffer), kept as [`Expr::Buf`] keeps its bytes.
    StrBuf { s: StrExpr, len: Box<Expr>, cap: u32 },
    /// The address of a struct or union variable's buffer, as a number (0 where a
    /// thread-local one or an element does not exist): its members are read from there as
    /// from kernel memory.
    VarAddr(StrVar),
    /// bpftrace's `&@map`: the kernel's address of associative array `.0`'s BPF map (its
    /// `struct bpf_map`), as a number.
    MapAddr(usize),
    /// Bits `shift .. shift + width` of a value, sign- or zero-extended to 64 bits: a cast to
    /// a narrower integer type (shift 0), or a bitfield.
    Bits { inner: Box<Expr>, shift: u8, width: u8, signed: bool },
    /// The element `keys` of associative array `array` (see [`Array`]); 0 if there is none.
    Element { array: usize, keys: Vec<Expr> },
    /// bpftrace's `has_key(@m, k)`: 1 if array `array` has element `keys`, else 0.
    HasElement { array: usize, keys: Vec<Expr> },
    /// bpftrace's `len(@m)`: how many elements associative array `.0` has.
    MapLen(usize),
    /// bpftrace's `probe`: the id of the probe that fired, printed as its name.
    Probe,
    /// bpftrace's `strftime(format, ns)`: `ns`, printed as the local time it was by the
    /// interned format `format`.
    Strftime { format: u32, ns: Box<Expr> },
    /// A number printed as its name ([`NameOf`]): `username`'s uid, strerror()'s errno.
    Named(NameOf, Box<Expr>),
    /// A printed-only value kept in a variable or a map's element (`@s[tid] = kstack`,
    /// `$p = probe`), read back: the word stored (a stack id, an address, a probe id, ...),
    /// or for a user symbol its 16 bytes (an [`Expr::Object`] where the variable keeps
    /// them: [`Repr::USym`]), printed as the representation says, like the value it was
    /// computed from. bpftrace's array is an [`Expr::Object`] kept as [`Repr::Array`]
    /// (its bytes zeros where they cannot be read).
    Stored(Repr, Box<Expr>),
    /// Runs the statements, then is the value: an assignment or `++`/`--` used as a value.
    Seq(Vec<Stmt>, Box<Expr>),
    /// strlen(s).
    Strlen(StrExpr),
    /// `speculation()`: claims a free speculation, its id (0 if none is free).
    Speculation,
    /// `alloca(size)`, `copyin(from, size)`: `size` bytes of scratch memory that last until
    /// the clause ends (room for `max`: a larger size faults, out of scratch space), zeroed
    /// or filled from the user address `from`; the value is their address. `site` numbers
    /// the clause's allocations from 0.
    Alloc { site: u32, size: Box<Expr>, max: u32, from: Option<Box<Expr>> },
    /// An array index checked when the probe fires: `index` if it is below `len` (as an
    /// unsigned number), else the clause faults ([`Fault::BadIndex`]).
    Bounded { index: Box<Expr>, len: u64 },
    /// A subroutine that gives an integer (index(), htons(), rand(), ...).
    IntCall { f: IntFn, args: Vec<StrArg> },
}

/// Which memory an address is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadFrom {
    User,
    Kernel,
    /// The kernel's if the address is in the upper half of the 64-bit space, else the
    /// process's (bpftrace's reading of an integer address).
    ByAddress,
}

/// The subroutines that give an integer (strlen() aside).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntFn {
    /// bpftrace's `s[i]`: the byte of string s at i, sign-extended (0 past its buffer).
    ByteAt,
    /// index(s, t[, start]): where t first occurs in s, from start; -1 if nowhere.
    Index,
    /// rindex(s, t[, start]): where t last occurs in s, at start or before; -1 if nowhere.
    Rindex,
    /// htons()/ntohs(), htonl()/ntohl(), htonll()/ntohll(): the low 2, 4 or 8 bytes in the
    /// other byte order.
    Swap(u8),
    /// rand(): a pseudo-random int.
    Rand,
    /// progenyof(pid): 1 if the current process is pid or descends from it.
    Progenyof,
    /// __syscall(task): the system call the current thread is in (-1 if none).
    Syscall,
    /// uregs[N]: the current thread's user register N (pt_regs' N-th word; 0 past them, or
    /// where the thread has no user registers saved).
    UserReg(u8),
    /// bpftrace's cgroup: the current thread's cgroup v2 id (bpf_get_current_cgroup_id).
    Cgroup,
    /// bpftrace's `reg("name")`: word N of the registers the probe's context holds (a
    /// `struct pt_regs`: kprobes, uprobes, perf events).
    ProbeReg(u8),
    /// bpftrace's `sargN`: the Nth argument passed on the stack, the word at sp + 8 * (N + 1)
    /// of the probe's registers (in user memory at a uprobe, kernel memory at a kprobe).
    StackArg(u8),
    /// A kernel function's Nth argument, read from the context of the trampoline (fentry or
    /// fexit) the probe runs in: bpftrace's arguments by name at kretfunc/fexit probes.
    FunctionArg(u8),
    /// The address of the kernel function the probe fired in (bpf_get_func_ip): bpftrace's
    /// `func` at kprobe/kfunc probes, a kernel symbol.
    FuncIp,
    /// current bpftrace's `ncpus`: the number of possible CPUs, which the code generator
    /// knows of the machine it compiles for.
    Ncpus,
    /// current bpftrace's `memcmp(a, b, n)` of two strings, n a constant: the difference of
    /// the first bytes that differ among the first n of their buffers (as signed chars; 0
    /// past a buffer), 0 if none. With a third argument, a count computed when the probe
    /// fires (unsigned), the comparison also stops there.
    Memcmp(u32),
    /// current bpftrace's `write_user(dst, src, len)`: the first len bytes of string src's
    /// buffer written to the process's memory at dst (bpf_probe_write_user): 1 if written,
    /// else 0. An effect: it runs where its value is not used. With a third argument, a
    /// length computed when the probe fires, that many bytes (at most len; 0 writes none).
    WriteUser(u32),
    /// current bpftrace's `socket_cookie(sk)` of the probe's argument N, a `struct sock *`
    /// the verifier trusts (read from a tracing program's context): bpf_get_socket_cookie.
    SocketCookie(u8),
    /// current bpftrace's `percpu_kaddr("name"[, cpu])`: the address of the kernel's per-CPU
    /// variable (its name interned) on this CPU, or on CPU `cpu` (0 if there is none):
    /// bpf_this_cpu_ptr / bpf_per_cpu_ptr of the variable's BTF id.
    PercpuKaddr(u64),
}

#[derive(Clone, Debug, PartialEq)]
pub enum StrExpr {
    /// An interned constant.
    Const(u64),
    /// The current process name.
    Comm,
    /// probeprov/probemod/probefunc/probename of the probe that fired.
    Probe(VarHook),
    /// bpftrace's `syscall_name(nr)`: the system call's name as its interned id
    /// ([`SYSCALL_STR_BASE`] + nr), or `unknown`'s (the interned "Unknown syscall") for a
    /// number beyond the table.
    SyscallName { nr: Box<Expr>, unknown: u64 },
    /// `args->name`, a `char[N]` (N <= 16) field of the tracepoint's record, as a name.
    TpField(String),
    /// `cwd`: the current process's working directory, in a buffer of `size` bytes.
    Cwd { offsets: CwdOffsets, size: u32 },
    /// `d_path(path)`: the name of the `struct path` at `path` from the current process's
    /// root, as the kernel's d_path() writes it, in a buffer of `size` bytes.
    DPath { path: Box<Expr>, offsets: Box<CwdOffsets>, more: DPathOffsets, size: u32 },
    /// bpftrace's `path(p [, size])`: the kernel's bpf_d_path() of the `struct path` at
    /// `offset` past the pointer that is argument `arg` of the probed function, read from an
    /// fentry program's context (the one place the verifier takes it from, as a pointer it
    /// trusts), at most `limit` bytes with the NUL, in a buffer of `size` bytes.
    KernelPath { arg: u8, offset: i32, limit: u32, size: u32 },
    /// `__psargs(task)`: the arguments of the current process, spaces between them, the
    /// first [`PSARGS_SIZE`] - 1 bytes ("" for another task or a kernel thread). `offsets`:
    /// of task_struct's `mm`, and of mm_struct's `arg_start` and `arg_end`.
    Psargs { task: Box<Expr>, offsets: [i32; 3] },
    /// `copyinstr(addr)`: the string at a user-space address, in a buffer of `size` bytes.
    UserStr(Box<Expr>, u32),
    /// A kernel `char *` or `char [N]` used as a string: the string at a kernel address, in
    /// a buffer of `size` bytes.
    KernelStr(Box<Expr>, u32),
    /// bpftrace's `str()` of an integer: the string at a kernel address if it is one (the
    /// upper half of the address space), else at a user-space one; one read either way.
    AnyStr(Box<Expr>, u32),
    /// An interned constant laid out as `size` bytes, NUL-padded (only the first `size - 1`
    /// bytes of a longer one): a literal where the other strings are in buffers.
    Padded { id: u64, size: u32 },
    /// The value of a string variable, a buffer of `size` bytes.
    Var(StrVar, u32),
    /// `cond ? a : b` of two strings: ids if both are, else a buffer of the larger size.
    Ternary(Box<Expr>, Box<StrExpr>, Box<StrExpr>),
    /// A subroutine's result (strjoin(), substr(), ...), a buffer of `size` bytes.
    Call { f: StrFn, args: Vec<StrArg>, size: u32 },
    /// Runs the statements, then is the string: an assignment used as a value.
    Seq(Vec<Stmt>, Box<StrExpr>),
}

/// Where a variable kept in a buffer (a string, a struct or a union) is stored.
#[derive(Clone, Debug, PartialEq)]
pub enum StrVar {
    Global(usize),
    Thread(usize),
    Clause(usize),
    /// The element `keys` of associative array `array`; "" if there is none.
    Element { array: usize, keys: Vec<Expr> },
}

/// The subroutines that make a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StrFn {
    /// The string itself, in a buffer of another size (cut at size - 1 bytes).
    Copy,
    /// strjoin(a, b)
    Join,
    /// substr(s, index[, length])
    Substr,
    /// basename(s)
    Basename,
    /// dirname(s)
    Dirname,
    /// toupper(s)
    Upper,
    /// tolower(s)
    Lower,
    /// strstr(s, t): s from the first t in it, "" if none.
    Strstr,
    /// strchr(s, c): s from its first byte c, "" if none.
    Strchr,
    /// strrchr(s, c): s from its last byte c, "" if none.
    Strrchr,
    /// strtok(s, delims): the first token of s; the rest of s is kept for StrtokNext.
    Strtok,
    /// strtok(NULL, delims): the next token of the string the last strtok() was given.
    StrtokNext,
    /// lltostr(n[, base]): n in decimal, or unsigned in base 2..36.
    Lltostr,
    /// inet_ntoa(addr): the IPv4 address at a kernel address, dotted.
    InetNtoa,
    /// inet_ntoa6(addr[, strict]): the IPv6 address at a kernel address; IPv4-mapped and
    /// -compatible ones as dotted IPv4 unless strict.
    InetNtoa6,
    /// inet_ntop(af, addr): inet_ntoa() for AF_INET, strict inet_ntoa6() for AF_INET6.
    InetNtop,
    /// cleanpath(s): s without its empty and `.` components and the components `..` takes
    /// out, by text alone.
    Cleanpath,
    /// link_ntop(type, addr): the link-layer address at a kernel address, hex bytes joined
    /// by colons.
    LinkNtop,
    /// bpftrace's `ntop(af, addr)`: the address as glibc's inet_ntop(3) writes it (IPv6
    /// compressed as RFC 5952 says, mapped and compatible IPv4 dotted), of family af:
    /// AF_INET the first 4 bytes, AF_INET6 16 (those the source lacks are 0), another ""
    /// (as bpftrace prints it).
    Ntop(NtopFrom),
    /// bpftrace's `macaddr(addr)`: the 6 bytes at a kernel address as upper-case hex bytes
    /// joined by colons (bytes that cannot be read are 0).
    Macaddr,
    /// current bpftrace's `comm(pid)`: the name of the task with that id (the kfuncs
    /// bpf_task_from_pid and bpf_task_release), "N/A" where there is none, and then
    /// clause-local `missing` is set to 1 (the statement after sends current bpftrace's
    /// warning, "No such process (pid=N)").
    CommOfPid { missing: usize },
}

/// Where bpftrace's `ntop()` takes an address's bytes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NtopFrom {
    /// The integer argument's low four bytes, in memory order.
    Int,
    /// This many bytes (4 or 16) of kernel memory at the address argument (an array in a
    /// record, a struct, or a variable's buffer); bytes that cannot be read are 0.
    Memory(u8),
    /// The first this many bytes (4 or 16) of the string argument's buffer (`comm`), as
    /// bpftrace 0.17 reads a string of that size.
    Str(u8),
}

/// An argument of a string subroutine.
#[derive(Clone, Debug, PartialEq)]
pub enum StrArg {
    Str(StrExpr),
    Int(Expr),
}

impl StrArg {
    /// Whether `f` holds for this argument or anything inside it.
    pub fn any(&self, f: &mut dyn FnMut(Node) -> bool) -> bool {
        match self {
            StrArg::Str(s) => s.any(f),
            StrArg::Int(e) => e.any(f),
        }
    }
}

impl StrExpr {
    pub fn repr(&self) -> Repr {
        match self {
            StrExpr::Comm | StrExpr::TpField(_) => Repr::Str(COMM_SIZE),
            StrExpr::Psargs { .. } => Repr::Str(PSARGS_SIZE),
            StrExpr::Cwd { size, .. } | StrExpr::DPath { size, .. } | StrExpr::KernelPath { size, .. } => Repr::Str(*size),
            StrExpr::UserStr(_, size) | StrExpr::KernelStr(_, size) | StrExpr::AnyStr(_, size) | StrExpr::Padded { size, .. } | StrExpr::Var(_, size) | StrExpr::Call { size, .. } => Repr::Str(*size),
            StrExpr::Ternary(_, a, b) => match (a.repr(), b.repr()) {
                (Repr::StrId, Repr::StrId) => Repr::StrId,
                (x, y) => Repr::Str(x.size().max(y.size()).max(8) as u32),
            },
            StrExpr::Seq(_, s) => s.repr(),
            StrExpr::Const(_) | StrExpr::Probe(_) | StrExpr::SyscallName { .. } => Repr::StrId,
        }
    }

}

/// A place in an expression tree, for [`Expr::any`].
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    Expr(&'a Expr),
    Str(&'a StrExpr),
    Stmt(&'a Stmt),
}

impl StrExpr {
    /// Whether `f` holds for this string or anything inside it.
    pub fn any(&self, f: &mut dyn FnMut(Node) -> bool) -> bool {
        f(Node::Str(self))
            || match self {
                StrExpr::UserStr(addr, _) | StrExpr::KernelStr(addr, _) | StrExpr::AnyStr(addr, _) | StrExpr::Psargs { task: addr, .. } | StrExpr::DPath { path: addr, .. } | StrExpr::SyscallName { nr: addr, .. } => addr.any(f),
                StrExpr::Var(StrVar::Element { keys, .. }, _) => keys.iter().any(|k| k.any(f)),
                StrExpr::Ternary(c, a, b) => c.any(f) || a.any(f) || b.any(f),
                StrExpr::Call { args, .. } => args.iter().any(|a| a.any(f)),
                StrExpr::Seq(stmts, s) => stmts.iter().any(|x| x.any(f)) || s.any(f),
                _ => false,
            }
    }
}

impl Expr {
    /// Whether `f` holds for this expression or anything inside it.
    pub fn any(&self, f: &mut dyn FnMut(Node) -> bool) -> bool {
        f(Node::Expr(self))
            || match self {
                Expr::Str(s) => s.any(f),
                Expr::Unary(_, a) => a.any(f),
                Expr::Binary(_, a, b) | Expr::Unsigned(_, a, b) => a.any(f) || b.any(f),
                Expr::StrCmp(_, a, b) => a.any(f) || b.any(f),
                Expr::Ternary(a, b, c) => a.any(f) || b.any(f) || c.any(f),
                Expr::Load { addr: a, .. } | Expr::Bits { inner: a, .. } | Expr::Object { addr: a, .. } | Expr::Sym(_, a) | Expr::USym(_, a) | Expr::Strftime { ns: a, .. } | Expr::Named(_, a) | Expr::Stored(_, a) => a.any(f),
                Expr::ObjectPrefix { addr, len, .. } | Expr::Buf { addr, len, .. } => addr.any(f) || len.any(f),
                Expr::StrBuf { s, len, .. } => s.any(f) || len.any(f),
                Expr::PointedStrings { addr, .. } => addr.any(f),
                Expr::Element { keys, .. } | Expr::HasElement { keys, .. } | Expr::VarAddr(StrVar::Element { keys, .. }) => keys.iter().any(|k| k.any(f)),
                Expr::Seq(stmts, v) => stmts.iter().any(|s| s.any(f)) || v.any(f),
                Expr::Strlen(s) => s.any(f),
                Expr::IntCall { args, .. } => args.iter().any(|a| a.any(f)),
                Expr::Bounded { index, .. } => index.any(f),
                Expr::Alloc { size, from, .. } => size.any(f) || from.as_ref().is_some_and(|e| e.any(f)),
                _ => false,
            }
    }

    /// Whether evaluating it changes a variable (it holds an assignment or `++`/`--`).
    pub fn has_effects(&self) -> bool {
        self.any(&mut |n| matches!(n, Node::Expr(Expr::Seq(..) | Expr::IntCall { f: IntFn::WriteUser(_), .. }) | Node::Str(StrExpr::Seq(..))))
    }

    /// How the value is stored; an integer's C type is the checker's to say (see
    /// [`Repr::Int`]), so this gives a signed 64-bit one.
    pub fn repr(&self) -> Repr {
        match self {
            Expr::Str(s) => s.repr(),
            Expr::Stack(u) => Repr::Stack(*u),
            Expr::Sym(k, _) => Repr::Sym(*k),
            Expr::UStack(u) => Repr::UStack(*u),
            Expr::USym(k, _) => Repr::USym(*k),
            Expr::Object { size, .. } | Expr::ObjectPrefix { size, .. } => Repr::Object(*size),
            Expr::PointedStrings { count, size, .. } => Repr::Object(count * size),
            Expr::Buf { cap, .. } | Expr::StrBuf { cap, .. } => Repr::Buf(*cap),
            Expr::Probe => Repr::Probe,
            Expr::Strftime { format, .. } => Repr::Strftime(*format),
            Expr::Named(k, _) => Repr::Named(*k),
            Expr::Stored(r, _) => *r,
            _ => Repr::Int(IntRepr::I64),
        }
    }

    /// Whether the value is an integer (not a string or a stack).
    pub fn is_int(&self) -> bool {
        matches!(self.repr(), Repr::Int(_))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    SetGlobal(usize, Expr),
    /// Assigning 0 frees the variable, as in DTrace.
    SetThreadLocal(usize, Expr),
    SetClauseLocal(usize, Expr),
    /// Stores a string in a string variable; an empty string frees a thread-local one or an
    /// array's element, as DTrace frees a dynamic variable assigned its zero value.
    SetStr(StrVar, StrExpr),
    /// Stores a struct or union (an [`Expr::Object`]: `size` bytes at an address) in a
    /// struct variable: copied whole, an address that cannot be read faulting. An object of
    /// no bytes is D's literal 0, which deletes a thread-local variable or an element.
    SetObject(StrVar, Expr),
    /// Stores `value` into a member of struct variable `var`, `offset` bytes into its
    /// buffer (`r.position = 1`, `self->s.inner = *p`). A thread-local or element that does
    /// not exist is created zeroed first (a store the full map refuses is a dynamic
    /// variable drop).
    SetMember { var: StrVar, offset: u32, field: Field, value: Expr },
    /// Update aggregation `agg` at `keys` with `value` (ignored by count()).
    Aggregate { agg: usize, keys: Vec<Expr>, value: Expr },
    /// Store the arguments of item `item` of the clause's output record.
    Emit { item: usize, args: Vec<Expr> },
    /// Send record `record` (one item) with these arguments now: an output action of a
    /// clause that prints inside a loop, where each action sends its own record when it
    /// runs (in order with the others).
    Send { record: usize, args: Vec<Expr> },
    /// Stores `value` as the element `keys` of associative array `array`; storing 0
    /// deletes the element, as in DTrace (unless the array keeps zero: bpftrace's maps).
    SetElement { array: usize, keys: Vec<Expr>, value: Expr },
    /// bpftrace's `delete(@m[k])`: element `keys` of array `array` removed.
    DeleteElement { array: usize, keys: Vec<Expr> },
    /// bpftrace's `while (cond) { body }`: the verifier must see that it ends.
    While { cond: Expr, body: Vec<Stmt> },
    /// bpftrace's `for ($kv : @m) { body }`: the body runs once per element of associative
    /// array `array`, with its keys in clause-locals `keys` and its value in clause-local
    /// `value` (each as the array stores it).
    ForMap { array: usize, keys: Vec<usize>, value: usize, body: Vec<Stmt> },
    /// bpftrace's `break` and `continue` (of the innermost loop) and `return` (the rest
    /// of the clause is skipped; what it recorded so far is sent).
    Break,
    Continue,
    Return,
    If { cond: Expr, then: Vec<Stmt>, els: Vec<Stmt> },
    /// `copyinto(src, size, dest)` (`user`: from user memory) and `bcopy(src, dest, size)`
    /// (from kernel memory): copies `size` bytes into the clause's scratch memory at `dest`.
    Copy { user: bool, src: Expr, dest: Expr, size: Expr },
    /// `raise(signal)` (`stop()`: SIGSTOP) to the process that fired the probe; to its
    /// thread alone if `thread` (bpftrace's `signal_thread()`).
    Signal { sig: Expr, thread: bool },
    /// bpftrace's `override(rc)`: the probed kernel function returns rc without running
    /// (bpf_override_return, at a kprobe of its entry).
    Override(Expr),
    /// `chill(ns)`: spin on the CPU for `ns` nanoseconds, within [`CHILL_MAX`] of each
    /// [`CHILL_INTERVAL`] per CPU (else an illegal-operation fault).
    Chill(Expr),
    /// `copyout(buf, addr, nbytes)`: `size` bytes of kernel memory at `src` written to user
    /// address `addr`; `copyoutstr(str, addr, maxlen)`: the string and its NUL, at most
    /// `size` bytes.
    CopyOut { src: CopyOutSrc, addr: Expr, size: Expr },
    /// `speculate(id)`: the clause's record goes to speculation `id` (if it is in use; else
    /// the record is dropped).
    Speculate(Expr),
}

/// How a member of a struct variable is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// An integer or pointer of this many bytes (1, 2, 4 or 8).
    Int(u8),
    /// Bits `shift .. shift + width` of the `size`-byte word at the member's offset.
    Bits { size: u8, shift: u8, width: u8 },
    /// A struct or union of this many bytes, copied from an [`Expr::Object`]'s address.
    Object(u32),
}

/// What copyout() or copyoutstr() writes.
#[derive(Clone, Debug, PartialEq)]
pub enum CopyOutSrc {
    /// Kernel memory at this address.
    Memory(Expr),
    Str(StrExpr),
}

impl Stmt {
    /// Whether `f` holds anywhere in the statement.
    pub fn any(&self, f: &mut dyn FnMut(Node) -> bool) -> bool {
        f(Node::Stmt(self))
            || match self {
            Stmt::SetGlobal(_, e) | Stmt::SetThreadLocal(_, e) | Stmt::SetClauseLocal(_, e) => e.any(f),
            Stmt::Aggregate { keys, value, .. } | Stmt::SetElement { keys, value, .. } => value.any(f) || keys.iter().any(|k| k.any(f)),
            Stmt::Emit { args, .. } | Stmt::Send { args, .. } | Stmt::DeleteElement { keys: args, .. } => args.iter().any(|a| a.any(f)),
            Stmt::If { cond, then, els } => cond.any(f) || then.iter().chain(els).any(|s| s.any(f)),
            Stmt::While { cond, body } => cond.any(f) || body.iter().any(|s| s.any(f)),
            Stmt::ForMap { body, .. } => body.iter().any(|s| s.any(f)),
            Stmt::Break | Stmt::Continue | Stmt::Return => false,
            Stmt::SetStr(v, s) => s.any(f) || matches!(v, StrVar::Element { keys, .. } if keys.iter().any(|k| k.any(f))),
            Stmt::SetObject(v, o) | Stmt::SetMember { var: v, value: o, .. } => o.any(f) || matches!(v, StrVar::Element { keys, .. } if keys.iter().any(|k| k.any(f))),
            Stmt::Speculate(e) | Stmt::Signal { sig: e, .. } | Stmt::Chill(e) | Stmt::Override(e) => e.any(f),
            Stmt::CopyOut { src, addr, size } => {
                (match src {
                    CopyOutSrc::Memory(e) => e.any(f),
                    CopyOutSrc::Str(s) => s.any(f),
                }) || addr.any(f)
                    || size.any(f)
            }
            Stmt::Copy { src, dest, size, .. } => src.any(f) || dest.any(f) || size.any(f),
        }
    }
}

/// An associative array: `name[keys]`, or `self->name[keys]` (`thread`: one per thread),
/// holding integers and pointers, or strings. Only the elements that are not 0 (or "")
/// exist.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub name: String,
    pub thread: bool,
    /// How each key is stored (8-byte aligned), in order.
    pub keys: Vec<Repr>,
    /// How the values are stored: an integer (8 bytes) or a string buffer.
    pub value: Repr,
    /// A scalar array (`int a[4];`): its number of elements, each there from the start (0
    /// until assigned; assigning 0 keeps it), indexed by its one integer key.
    pub len: Option<u32>,
    /// A bpftrace map: storing 0 or "" keeps the element (only delete() removes one), and
    /// it may have no keys (`@x = 1`: one element).
    pub keeps_zero: bool,
    /// What bpftrace's `let @m = hash(N)` or `lruhash(N)` declared (`None`: sized by
    /// dynvarsize).
    pub declared: Option<Declared>,
}

/// A bpftrace map's declaration (`let @m = lruhash(1024);`): its most elements, and whether
/// the kernel evicts the least recently used when it is full (else a new key is dropped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Declared {
    pub max_entries: u32,
    pub lru: bool,
}

/// A global or thread-local variable: its name and how its value is stored (an integer, 8
/// bytes, a string buffer, or a struct's or union's).
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    pub name: String,
    pub repr: Repr,
}

impl Variable {
    pub fn is_str(&self) -> bool {
        matches!(self.repr, Repr::Str(_))
    }

    /// Whether it is kept in a buffer of its bytes: a struct or union, or a user symbol's
    /// two words.
    pub fn is_object(&self) -> bool {
        matches!(self.repr, Repr::Object(_) | Repr::USym(_) | Repr::Buf(_) | Repr::Array(..))
    }
}

impl Array {
    /// Bytes of a key: the thread id (a thread-local array's), then each key 8-byte aligned.
    /// Bytes of an element's key (8 at least: a map without keys has one zero word).
    pub fn key_size(&self) -> usize {
        (8 * self.thread as usize + self.keys.iter().map(|r| r.size().next_multiple_of(8)).sum::<usize>()).max(8)
    }
}

/// One item of a clause's output record, decoded and printed in user space.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Printf { pieces: Vec<Piece>, args: Vec<Repr> },
    /// `system(format, ...)`: the command is the formatted text.
    System { pieces: Vec<Piece>, args: Vec<Repr> },
    /// `freopen(format, ...)`: trace output goes to the file the formatted text names from
    /// here on ("": where it went first).
    Freopen { pieces: Vec<Piece>, args: Vec<Repr> },
    /// `ftruncate()`: the output file is emptied.
    Ftruncate,
    /// `pcap()`: the time, the bytes captured, the link type, and `size` bytes of which
    /// those are the packet's.
    Pcap { size: u32 },
    /// bpftrace's `skboutput(path, skb, length, offset)`: the time, the bytes captured and
    /// `size` bytes of which those are the packet's, for the capture file `path` (raw IP),
    /// less its first `offset` bytes.
    SkbOutput { path: String, offset: u64, size: u32 },
    Trace(Repr),
    /// `print(x)` (or `trace()` of a struct or array): the value, stored as `Repr`, printed
    /// by its C type as DTrace's `print()` does.
    Print(Repr, Box<Layout>),
    /// Print aggregations `aggs` (one, or several joined by key): the default layout, or
    /// each row through a printa format.
    Printa { aggs: Vec<usize>, format: Option<Vec<Piece>> },
    /// Zero every value of aggregation `agg`, keeping its keys.
    Clear(usize),
    /// Remove the keys of aggregation `agg`: all, or all but the `keep` first in print order
    /// from the largest (`keep` > 0) or smallest (`keep` < 0) end.
    Trunc { agg: usize, keep: Option<i64> },
    /// Divide aggregation `agg`'s printed values by the item's argument from now on
    /// (`None`: by 1 again, denormalize()).
    Normalize { agg: usize, by_arg: bool },
    Exit,
    /// tracemem(): `size` bytes of kernel memory, printed as a hex dump; `dynamic`: only as
    /// many as the second argument says (if it is less and not negative).
    Tracemem { size: u32, dynamic: bool },
    /// `setopt(name, value)`: an option changed for what is printed from then on.
    SetOpt { name: String, value: Option<String> },
    /// `commit(id)` (the argument) of a speculation: print what it holds.
    Commit,
    /// `discard(id)`: drop what it holds.
    Discard,
    /// bpftrace's `clear(@m)` of a map of values: every element of associative array `.0`
    /// deleted.
    ClearArray(usize),
    /// bpftrace's `zero(@m)` of a map of values: every element of associative array `.0`
    /// set to zero, its keys kept.
    ZeroArray(usize),
    /// bpftrace's `time(format)`: the local time when the record is read, by strftime(3).
    Time(String),
    /// bpftrace's `print(@m, top, div)`: a map now, its `top` largest rows (0: all), values
    /// divided by `div` (0 or 1: as they are).
    PrintMap { map: MapRef, top: u32, div: u32 },
    /// bpftrace's `join(arr, sep)`: the argument's `count` strings of `size` bytes each
    /// (Expr::PointedStrings), printed up to the first empty one, joined by `sep`, as a
    /// line.
    Join { sep: String, count: u32, size: u32 },
    /// bpftrace's `cat(format, ...)`: the file the formatted text names, its first `max`
    /// bytes printed as they are.
    Cat { pieces: Vec<Piece>, args: Vec<Repr>, max: u64 },
    /// current bpftrace's `errorf()` (`error`) and `warnf()`: the formatted text printed on
    /// standard error as a message about the call at `at`.
    Message { error: bool, pieces: Vec<Piece>, args: Vec<Repr>, at: SourceAt },
}

/// Where a call is in the program's source, as bpftrace's messages name it: its first line
/// and column and, past its end, its last line and column (lines and columns from 1, columns
/// in bytes). The checker keeps the span; [`crate::compile`] finds the lines and columns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceAt {
    pub span: std::ops::Range<usize>,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

impl SourceAt {
    /// `LINE:COLUMN-COLUMN` (`LINE-LINE` for a call over several lines), after `FILE:`.
    pub fn describe(&self, file: &str) -> String {
        if self.line != self.end_line {
            return format!("{file}:{}-{}", self.line, self.end_line);
        }
        format!("{file}:{}:{}-{}", self.line, self.column, self.end_column)
    }

    /// Lines and columns of the span in `source`.
    pub fn locate(&mut self, source: &str) {
        let at = |offset: usize| {
            let before = &source.as_bytes()[..offset.min(source.len())];
            let line = before.iter().filter(|b| **b == b'\n').count() as u32 + 1;
            let column = (before.len() - before.iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1)) as u32 + 1;
            (line, column)
        };
        (self.line, self.column) = at(self.span.start);
        (self.end_line, self.end_column) = at(self.span.end);
    }
}

/// A bpftrace map: an aggregation or an associative array of values, by id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapRef {
    Aggregation(usize),
    Array(usize),
}

impl Item {
    pub fn arg_reprs(&self) -> Vec<Repr> {
        match self {
            Item::Printf { args, .. } | Item::System { args, .. } | Item::Freopen { args, .. } | Item::Cat { args, .. } | Item::Message { args, .. } => args.clone(),
            Item::Trace(r) | Item::Print(r, _) => vec![*r],
            Item::Exit | Item::Commit | Item::Discard => vec![Repr::Int(IntRepr::I64)],
            Item::Normalize { by_arg: true, .. } => vec![Repr::Int(IntRepr::I64)],
            Item::Tracemem { size, dynamic } => [Repr::Object(*size)].into_iter().chain(dynamic.then_some(Repr::Int(IntRepr::I64))).collect(),
            Item::Pcap { size } => vec![Repr::Int(IntRepr::U64), Repr::Int(IntRepr::U64), Repr::Int(IntRepr::I64), Repr::Object(*size)],
            Item::SkbOutput { size, .. } => vec![Repr::Int(IntRepr::U64), Repr::Int(IntRepr::U64), Repr::Object(*size)],
            Item::Join { count, size, .. } => vec![Repr::Object(count * size)],
            Item::Printa { .. } | Item::SetOpt { .. } | Item::Clear(_) | Item::Trunc { .. } | Item::Normalize { .. } | Item::Ftruncate | Item::ClearArray(_) | Item::ZeroArray(_) | Item::Time(_) | Item::PrintMap { .. } => vec![],
        }
    }
}

/// What one firing of a clause sends to user space, item by item (the back end fixes the
/// bytes).
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub items: Vec<Item>,
    /// Whether some items are sent only in some firings (inside an `if`): the record then
    /// says which items it holds.
    pub guarded: bool,
    /// By item, the source of each value it records (trace()'s argument, printf()'s
    /// arguments after the format): what a table's columns are named after. Empty for an
    /// item whose values have no source of their own.
    pub sources: Vec<Vec<ArgSource>>,
}

/// Where a recorded value was written, and its text (filled in by [`crate::compile`], which
/// has the source; empty if the span lies outside it, as in a stdlib function).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArgSource {
    pub span: Span,
    pub text: String,
}

impl ArgSource {
    /// The column a value is named by: `this->bytes` -> `bytes`, `self->ts` -> `ts`, `arg2`,
    /// `args[0]`; empty if there is no text.
    pub fn column(&self) -> String {
        let t = self.text.split_whitespace().collect::<Vec<_>>().join(" ");
        for prefix in ["this->", "self->"] {
            if let Some(rest) = t.strip_prefix(prefix) {
                if rest.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    return rest.to_string();
                }
            }
        }
        t
    }
}

/// Which system calls a clause fires for, within its attach point.
#[derive(Clone, Debug, PartialEq)]
pub enum Filter {
    All,
    Syscalls(Vec<u32>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Clause {
    /// Index of the clause in the source, and its span (for diagnostics from later stages).
    pub index: usize,
    pub span: Span,
    pub filter: Filter,
    pub predicate: Option<Expr>,
    pub body: Vec<Stmt>,
    /// DTrace's action number of each statement of `body` (1 for the first statement of the
    /// source's action block): where a run-time fault is reported to be.
    pub actions: Vec<u32>,
    /// Each `this->` variable the clause uses: its name (the clauses of one probe firing
    /// share a name's value, as in DTrace) and how it is stored.
    pub locals: Vec<Variable>,
    /// The output record, if the clause prints anything (or has no action block).
    pub record: Option<usize>,
}

impl Clause {
    /// Whether `f` holds anywhere in the clause's predicate or statements.
    pub fn any(&self, f: &mut dyn FnMut(Node) -> bool) -> bool {
        self.predicate.as_ref().is_some_and(|e| e.any(f)) || self.body.iter().any(|s| s.any(f))
    }
}

/// All clauses on one attach point, in program order.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub attach: AttachPoint,
    pub clauses: Vec<Clause>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Aggregation {
    /// The name without `@` ("" for `@`).
    pub name: String,
    pub kind: AggKind,
    pub keys: Vec<Repr>,
    /// What bpftrace's `let @m = percpuhash(N)` declared (`None`: a share of aggsize).
    pub declared: Option<Declared>,
    /// Where the program reads its value (bpftrace's `@c > 10`, `for ($kv : @c)`): the
    /// associative arrays, one per [`agg::ReadPart`], that every update also keeps the
    /// merged value in. Empty if it is never read.
    pub read: Vec<usize>,
}

impl Aggregation {
    /// Key size in bytes (at least 8: a keyless aggregation uses one zero key); each key
    /// starts at a multiple of 8 (a struct key may have any size).
    pub fn key_size(&self) -> usize {
        self.keys.iter().map(|r| r.size().next_multiple_of(8)).sum::<usize>().max(8)
    }
}

/// Interned strings. Ids below [`SYSCALL_STR_BASE`] index `table`; system call names are
/// `SYSCALL_STR_BASE + nr`, so every string has exactly one id and equal strings compare
/// equal as integers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Strings {
    pub table: Vec<String>,
}

impl Strings {
    pub fn intern(&mut self, s: &str) -> u64 {
        if let Some(nr) = SyscallTable::get().number(s) {
            return SYSCALL_STR_BASE + nr as u64;
        }
        if let Some(i) = self.table.iter().position(|t| t == s) {
            return i as u64;
        }
        self.table.push(s.to_string());
        (self.table.len() - 1) as u64
    }

    pub fn resolve(&self, id: u64) -> String {
        if id >= SYSCALL_STR_BASE {
            let nr = (id - SYSCALL_STR_BASE) as u32;
            return SyscallTable::get().name(nr).map_or_else(|| format!("syscall_{nr}"), String::from);
        }
        self.table.get(id as usize).cloned().unwrap_or_default()
    }

    /// The id of `s` if it was interned (or is a system call name).
    pub fn lookup(&self, s: &str) -> Option<u64> {
        if let Some(nr) = SyscallTable::get().number(s) {
            return Some(SYSCALL_STR_BASE + nr as u64);
        }
        self.table.iter().position(|t| t == s).map(|i| i as u64)
    }
}

/// Options set by `#pragma D option` (the command line may override them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    pub quiet: bool,
    /// Event buffer size in bytes, if set.
    pub bufsize: Option<u64>,
    /// Print aggregations sorted by key (then value) instead of by value.
    pub aggsortkey: bool,
    /// Print aggregations in reverse order.
    pub aggsortrev: bool,
    /// Which aggregation's values sort the rows of a printa() of several (0: the first).
    pub aggsortpos: u64,
    /// Which key rows are sorted by first (0: the first; the others follow, wrapping).
    pub aggsortkeypos: u64,
    /// Print quantize and lquantize values packed on one line (DTrace's `aggpack`).
    pub aggpack: bool,
    /// Per-CPU bytes for the keyed aggregations' tables, if set.
    pub aggsize: Option<u64>,
    /// Bytes for thread-local variables, if set.
    pub dynvarsize: Option<u64>,
    /// Frames `stack()` keeps, if set (DTrace's default is [`STACK_FRAMES_DEFAULT`]).
    pub stackframes: Option<u8>,
    /// Frames `ustack()` keeps, if set (DTrace's default is [`USTACK_FRAMES_MAX`]).
    pub ustackframes: Option<u8>,
    /// Bytes a string holds, its NUL included, if set (else [`DEFAULT_STRSIZE`]).
    pub strsize: Option<u64>,
    /// How often crumbs reads the event buffer, in ns between reads, if set (else as soon
    /// as records arrive).
    pub switchrate: Option<u64>,
    /// DTrace's aggregation snapshot interval in ns, if set (crumbs reads the tables
    /// whenever it prints them).
    pub aggrate: Option<u64>,
    /// trace() prints strings and objects as hex dumps of their bytes (`rawbytes`).
    pub rawbytes: bool,
    /// Destructive actions allowed (`#pragma D option destructive`, `-x destructive`).
    pub destructive: bool,
    /// Speculations that can be in use at once, if set (else 1).
    pub nspec: Option<u32>,
    /// Bytes one speculation holds before it drops records, if set (else [`DEFAULT_SPECSIZE`]).
    pub specsize: Option<u64>,
    /// How fbt probes attach, if forced (`-x fbtmode=`); else the back end chooses per kernel.
    pub fbtmode: Option<FbtMode>,
    /// bpftrace's `print_maps_on_exit = false`: its maps are not printed when tracing ends.
    pub no_maps_at_exit: bool,
}

/// How fbt probes attach to kernel functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FbtMode {
    /// One kprobe or kretprobe program per function, attached through perf.
    Kprobe,
    /// One program for many functions, attached with one kprobe.multi link (Linux 5.18).
    Multi,
    /// One fentry or fexit program per function: a BPF trampoline, with the function's
    /// arguments and return value in the program's context (Linux 5.5, with BTF).
    Fentry,
}

/// Speculations in use at once unless the `nspec` option says (DTrace's default).
pub const DEFAULT_NSPEC: u32 = 1;
/// The most speculations the `nspec` option allows (as DTrace on Linux).
pub const MAX_NSPEC: u32 = 16;
/// Bytes a speculation holds unless the `specsize` option says (DTrace on Linux's default).
pub const DEFAULT_SPECSIZE: u64 = 4 << 20;

impl Options {
    pub fn strsize(&self) -> u32 {
        self.strsize.map_or(DEFAULT_STRSIZE, |s| s as u32)
    }

    pub fn nspec(&self) -> u32 {
        self.nspec.unwrap_or(DEFAULT_NSPEC)
    }

    pub fn specsize(&self) -> u64 {
        self.specsize.unwrap_or(DEFAULT_SPECSIZE)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub options: Options,
    pub groups: Vec<Group>,
    pub aggregations: Vec<Aggregation>,
    pub globals: Vec<Variable>,
    pub thread_locals: Vec<Variable>,
    pub arrays: Vec<Array>,
    pub records: Vec<Record>,
    pub strings: Strings,
    /// How many probes the program's descriptions matched, per clause, for the banner.
    pub matched_probes: usize,
    /// The profile provider's probes this program uses: their attach points, ids and names.
    pub profile_probes: Vec<ProfileProbe>,
    /// Whether any clause records a stack (the stack map is needed).
    pub uses_stack: bool,
    /// Whether any clause records a user stack (the user stack map is needed).
    pub uses_ustack: bool,
    /// Whether any clause records a user stack in bpftrace's `build_id` mode (the user stack
    /// map of build ids and offsets is needed).
    pub uses_build_id_ustack: bool,
    /// Whether any clause records a user stack or symbol (printing it needs the process's
    /// memory map).
    pub user_symbols: bool,
    /// The tracepoints this program attaches to; `AttachPoint::Tracepoint(i)` is the i-th.
    pub tracepoints: Vec<crate::tracepoints::Tracepoint>,
    /// The kernel functions this program's fbt probes are on; `AttachPoint::FbtEntry(i)` and
    /// `FbtReturn(i)` are the i-th's.
    pub functions: Vec<KernelFunction>,
    /// The user-space places this program's pid and uprobe probes are on;
    /// `AttachPoint::UserEntry(i)` and `UserReturn(i)` are the i-th's.
    pub user_probes: Vec<UserProbe>,
    /// The raw tracepoints this program attaches to; `AttachPoint::RawTracepoint(i)` is the
    /// i-th.
    pub raw_tracepoints: Vec<RawTracepoint>,
    /// bpftrace's named parameters the program reads with getopt(), in order of first use:
    /// their names and descriptions (what `--help` after the program lists).
    pub getopts: Vec<(String, String)>,
    /// The language the program was written in: how its output looks.
    pub dialect: crate::dialect::Dialect,
    /// bpftrace's maps whose keys nest tuples or records, by name without `@`: the paths of
    /// their scalar keys (see [`crate::ast::Program::key_paths`]).
    pub key_paths: std::collections::BTreeMap<String, Vec<String>>,
    /// The C types of the structs, unions and arrays bpftrace's maps keep as values or
    /// keys (`@m[k] = *curtask->fs`), which output prints them by.
    pub map_objects: std::collections::BTreeMap<MapSlot, std::sync::Arc<Layout>>,
}

/// Where a bpftrace map keeps a struct, union or array: an associative array's value
/// (by array id), or a key (by position) of an associative array or an aggregation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MapSlot {
    Value(usize),
    ArrayKey(usize, usize),
    AggKey(usize, usize),
}

/// A place in a user-space ELF file a probe is on (pid, uprobe): its DTrace name, and where
/// it attaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserProbe {
    /// `pid1234` or `uprobe`.
    pub provider: String,
    /// The file's name (`libc.so.6`) for pid probes, its path for uprobes.
    pub module: String,
    /// The function, demangled.
    pub function: String,
    /// `entry`, `return`, or an instruction's offset in the function, in hex.
    pub name: String,
    /// The file uprobes are attached to.
    pub path: String,
    /// The file offset to attach at.
    pub offset: u64,
    /// Whether it fires on the function's return (a uretprobe).
    pub ret: bool,
    /// The process it fires in (pid probes); None for every process (uprobe).
    pub pid: Option<u32>,
    /// A USDT probe's semaphore's place in the file (0: none, and for pid and uprobe probes).
    pub semaphore: u64,
    /// A USDT probe's arguments (empty for pid and uprobe probes: theirs are registers).
    pub usdt_args: Vec<crate::facts::user::UsdtArg>,
}

/// A raw tracepoint a program probes, with what its context holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawTracepoint {
    pub module: String,
    pub name: String,
    /// Whether each of its arguments (the context's u64s, in order) is a pointer: a
    /// BTF-typed program reads those through bpf_probe_read_kernel, which leaves a plain
    /// number the verifier lets D do arithmetic on.
    pub pointers: Vec<bool>,
    /// The stable probe (provider, name: `proc`, `exit`) it carries, which its programs
    /// name; None for `rawtracepoint:` probes.
    pub stable: Option<(String, String)>,
}

impl RawTracepoint {
    /// (provider, module, name) of the probe its programs are.
    pub fn shown(&self) -> (&str, &str, &str) {
        match &self.stable {
            Some((provider, name)) => (provider, crate::providers::STABLE_MODULE, name),
            None => ("rawtracepoint", &self.module, &self.name),
        }
    }
}

/// A kernel function a program probes (fbt).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelFunction {
    pub module: String,
    pub name: String,
    /// The stable probe (provider, name: `sched`, `on-cpu`) it carries, which its programs
    /// name; None for fbt's own probes.
    pub stable: Option<(String, String)>,
    /// Where in the function its entry probe is: 0 at its start, else that many bytes in
    /// (bpftrace's `kprobe:vfs_read+4`, a kprobe of its own).
    pub offset: u64,
    /// The kernel address the program named it by (bpftrace's `kprobe:0xffffffff81234567`,
    /// found in /proc/kallsyms to be this function and offset), which names its probe.
    pub address: Option<u64>,
}

impl KernelFunction {
    /// (provider, module, function, name) of its entry (or, for `ret`, return) probe; a
    /// probe inside the function is named by its offset in hex, as pid's are.
    pub fn shown(&self, ret: bool) -> (&str, &str, &str, &str) {
        match &self.stable {
            Some((provider, name)) => (provider, crate::providers::STABLE_MODULE, "", name),
            None if ret => ("fbt", &self.module, &self.name, "return"),
            None if self.offset != 0 => ("fbt", &self.module, &self.name, crate::providers::interned(&format!("{:x}", self.offset))),
            None => ("fbt", &self.module, &self.name, "entry"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ProfileProbe {
    pub attach: AttachPoint,
    pub id: u32,
    pub name: String,
}

impl Program {
    /// Where global `g` is in the globals area: each one 8-byte aligned, in order.
    pub fn global_offset(&self, g: usize) -> usize {
        self.globals[..g].iter().map(|v| v.repr.size()).sum()
    }

    /// Bytes of the globals area.
    pub fn globals_size(&self) -> usize {
        self.global_offset(self.globals.len())
    }

    pub fn group(&self, attach: AttachPoint) -> Option<&Group> {
        self.groups.iter().find(|g| g.attach == attach)
    }

    pub fn profile_probe(&self, attach: AttachPoint) -> Option<&ProfileProbe> {
        self.profile_probes.iter().find(|p| p.attach == attach)
    }

    /// The function and name (entry or return) of an fbt probe id.
    pub fn fbt_probe(&self, id: u32) -> Option<(&KernelFunction, &'static str)> {
        let n = id.checked_sub(crate::providers::FBT_ID_BASE)?;
        Some((self.functions.get(n as usize / 2)?, if n % 2 == 0 { "entry" } else { "return" }))
    }

    /// The pid or uprobe probe of a probe id.
    pub fn user_probe(&self, id: u32) -> Option<&UserProbe> {
        self.user_probes.get(id.checked_sub(crate::providers::USER_ID_BASE)? as usize)
    }

    /// The raw tracepoint of a probe id.
    pub fn raw_tracepoint(&self, id: u32) -> Option<&RawTracepoint> {
        self.raw_tracepoints.get(id.checked_sub(crate::providers::RAWTP_ID_BASE)? as usize)
    }

    /// `provider:module:function:name` of a probe id, for messages.
    pub fn probe_description(&self, id: u32) -> String {
        if let Some(p) = self.profile_probes.iter().find(|p| p.id == id) {
            return format!("profile:::{}", p.name);
        }
        if let Some(t) = id.checked_sub(crate::providers::TRACEPOINT_ID_BASE).and_then(|i| self.tracepoints.get(i as usize)) {
            return format!("tracepoint:{}::{}", t.category, t.event);
        }
        if let Some((f, name)) = self.fbt_probe(id) {
            let (provider, module, function, name) = f.shown(name == "return");
            return format!("{provider}:{module}:{function}:{name}");
        }
        if let Some(u) = self.user_probe(id) {
            return format!("{}:{}:{}:{}", u.provider, u.module, u.function, u.name);
        }
        if let Some(t) = self.raw_tracepoint(id) {
            let (provider, module, name) = t.shown();
            return format!("{provider}:{module}::{name}");
        }
        crate::providers::probe_by_id(id).map_or_else(|| format!("probe {id}"), |p| format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name))
    }

    /// (function, name) of a probe id, for the per-firing prefix.
    pub fn probe_name(&self, id: u32) -> (String, String) {
        if let Some(p) = self.profile_probes.iter().find(|p| p.id == id) {
            return (String::new(), p.name.clone());
        }
        if let Some(t) = id.checked_sub(crate::providers::TRACEPOINT_ID_BASE).and_then(|i| self.tracepoints.get(i as usize)) {
            return (String::new(), t.event.clone());
        }
        if let Some((f, name)) = self.fbt_probe(id) {
            let (_, _, function, name) = f.shown(name == "return");
            return (function.to_string(), name.to_string());
        }
        if let Some(u) = self.user_probe(id) {
            return (u.function.clone(), u.name.clone());
        }
        if let Some(t) = self.raw_tracepoint(id) {
            return (String::new(), t.shown().2.to_string());
        }
        crate::providers::probe_by_id(id).map_or((String::new(), String::new()), |p| (p.function.to_string(), p.name.to_string()))
    }
}
