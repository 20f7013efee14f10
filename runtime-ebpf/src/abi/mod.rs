//! The contract between the code generator and the runtime, and the only part of this crate
//! the runtime reads: what a compiled program is ([`Compiled`]), the names of the programs
//! and maps in its ELF, the layout of the records the programs send ([`record`]), of the
//! aggregation tables ([`table`]) and of the drop counters ([`drops`]). Everything here is
//! fixed by the code generator; the runtime only decodes it.

pub mod drops;
pub mod record;
pub mod table;

use crate::elf::MapDef;
use crate::insn::Insn;
use crumbs_lang::ir::SYSCALL_STR_BASE;
use crumbs_lang::providers::AttachPoint;

/// Everything the runtime loads: the ELF, and what it holds.
pub struct Compiled {
    pub elf: Vec<u8>,
    /// Its records carry metadata ([`Target::record_meta`]).
    pub record_meta: bool,
    pub programs: Vec<ProgramCode>,
    pub maps: Vec<MapDef>,
}

/// One BPF program of the ELF: the clauses of one attach point.
#[derive(Clone, Debug)]
pub struct ProgramCode {
    /// Its name in the ELF and the kernel: the runtime finds it by `attach`.
    pub name: String,
    pub attach: AttachPoint,
    pub insns: Vec<Insn>,
    pub map_refs: Vec<MapRef>,
    /// The callbacks it passes to helpers, linked into it by the loader.
    pub func_refs: Vec<FuncRef>,
    /// Its own functions that it passes to helpers (the bodies of `for` loops over maps),
    /// each in `.text` as [`subprogram_name`] names it.
    pub subprograms: Vec<Subprogram>,
    /// Bytes of the scratch space ([`SCRATCH_MAP`]) it uses.
    pub scratch: u32,
    /// A kprobe.multi program's kernel functions (indexes into the program's functions),
    /// all with the clauses of `attach`; empty for every other program.
    pub functions: Vec<u16>,
    /// An fentry or fexit program (an fbt probe's; the runtime loads it against the
    /// kernel's BTF prototype of its function).
    pub fentry: bool,
}

/// The attach cookie of fbt function `index` in a kprobe.multi program (entry, or return
/// for `ret`). The kernel hands each firing its function's cookie (bpf_get_attach_cookie),
/// so the program needs no table of function addresses: the low 32 bits are the probe id,
/// the high ones the interned id of the function's name (0, never read, where no clause
/// asks for probefunc and the name is not interned), a name that is a system call's
/// ([`SYSCALL_STR_BASE`] + nr) as [`COOKIE_SYSCALL_NAME`] | nr.
pub fn fbt_cookie(p: &crumbs_lang::ir::Program, index: u16, ret: bool) -> u64 {
    let id = crumbs_lang::providers::FBT_ID_BASE + 2 * index as u32 + ret as u32;
    let name = p.functions.get(index as usize).and_then(|f| p.strings.lookup(&f.name)).unwrap_or(0);
    let name = match name.checked_sub(SYSCALL_STR_BASE) {
        Some(nr) => COOKIE_SYSCALL_NAME | nr as u32,
        None => name as u32,
    };
    id as u64 | (name as u64) << 32
}

/// The bit of a cookie's name id that marks a system call's name (see [`fbt_cookie`]).
pub const COOKIE_SYSCALL_NAME: u32 = 1 << 31;

/// A reference from an instruction (the first half of an ld_imm64) to a map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapRef {
    pub insn: usize,
    pub map: String,
}

/// A BPF function a program passes to a helper (bpf_loop's callback). The ELF holds one
/// copy in `.text`; the loader links it into each program that refers to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Callback {
    /// chill()'s spin: stops bpf_loop once the time in its context has come.
    ChillSpin,
    /// len()'s: bpf_for_each_map_elem's callback that goes on to the next element, so that
    /// the helper returns how many there are.
    CountElement,
}

/// A function an instruction refers to: a callback every program shares, or one of the
/// program's own [`Subprogram`]s, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Shared(Callback),
    Own(usize),
}

/// A reference from an instruction (the first half of an ld_imm64) to a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncRef {
    pub insn: usize,
    pub func: Func,
}

/// A function of one program that it passes to bpf_for_each_map_elem: a loop's body.
#[derive(Clone, Debug, Default)]
pub struct Subprogram {
    pub insns: Vec<Insn>,
    pub map_refs: Vec<MapRef>,
    /// Functions it refers to (a loop or chill() inside it); `Own` indexes the program's.
    pub func_refs: Vec<FuncRef>,
}

/// The ELF symbol of program `program`'s subprogram `index`.
pub fn subprogram_name(program: &str, index: usize) -> String {
    format!("{program}__loop{index}")
}

/// The ELF symbol a function reference of program `program` resolves to.
pub fn func_name(program: &str, f: Func) -> String {
    match f {
        Func::Shared(c) => c.name().to_string(),
        Func::Own(i) => subprogram_name(program, i),
    }
}

/// What the code generator needs to know of the machine the program will run on: the
/// runtime gathers it (runtime/src/kernel), tests give fixed values.
#[derive(Clone, Debug, Default)]
pub struct Target {
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC, in ns, for walltimestamp.
    pub wall_offset: i64,
    /// CLOCK_TAI minus CLOCK_BOOTTIME, in ns, for bpftrace's nsecs(sw_tai).
    pub tai_offset: i64,
    /// Offsets of task_struct.real_parent and task_struct.tgid, for ppid (from BTF).
    pub task_offsets: Option<(i32, i32)>,
    /// Possible CPUs (every CPU has its own aggregation tables); 0 counts as 1.
    pub cpus: u32,
    /// The kernel's BTF ids of the kfuncs bpf_iter_num_new, _next and _destroy, for loops
    /// the verifier checks once (index(), rindex(), strstr()).
    pub iter_num: Option<[u32; 3]>,
    /// For bpftrace's comm(pid): the kernel's BTF ids of the kfuncs bpf_task_from_pid and
    /// bpf_task_release, and the offset of task_struct.comm.
    pub task_from_pid: Option<TaskFromPid>,
    /// For bpftrace's percpu_kaddr(): the BTF ids of the kernel's variables the program
    /// names, by name.
    pub percpu_vars: Vec<(String, u32)>,
    /// Address ranges [start, end) of the tracepoint hooks that run the programs
    /// (`bpf_trace_run*`, `__bpf_trace_X`, `__traceiter_X`), for `caller` and `stackdepth`
    /// (emit/stack_values.rs); empty where the program uses neither.
    pub tracing_frames: Vec<(u64, u64)>,
    /// fbt probes attach with kprobe.multi links: one program for all the functions that
    /// share their clauses (the runtime found the kernel can, or `-x fbtmode=multi` asked).
    pub fbt_multi: bool,
    /// fbt probes attach as fentry and fexit programs, one per function (`-x fbtmode=fentry`
    /// asked, or the runtime chose it for this kernel).
    pub fbt_fentry: bool,
    /// Every record carries the firing's timestamp, pid and tid after its header (see
    /// [`record::META`]): asked for by structured outputs only, so text output's records
    /// stay as small and as cheap to fill.
    pub record_meta: bool,
}

/// What comm(pid) needs of the kernel ([`Target::task_from_pid`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskFromPid {
    pub from_pid: u32,
    pub release: u32,
    pub comm_offset: i16,
}

/// The ring buffer the programs send their records through ([`record`]).
pub const EVENTS_MAP: &str = "events";
/// Kernel stacks recorded by stack(): key u32 stack id, value [u64; STACK_DEPTH].
pub const STACKS_MAP: &str = "stacks";
/// Frames kept per stack (kernel stacks deeper than this are cut).
pub const STACK_DEPTH: usize = crumbs_lang::ir::STACK_FRAMES_MAX as usize;
/// User stacks recorded by ustack(): key u32 stack id, value [u64; USTACK_DEPTH].
pub const USTACKS_MAP: &str = "ustacks";
/// Frames kept per user stack (DTrace's default `ustackframes`; deeper stacks are cut).
pub const USTACK_DEPTH: usize = crumbs_lang::ir::USTACK_FRAMES_MAX as usize;
/// User stacks recorded by ustack(build_id): key u32 stack id, value USTACK_DEPTH
/// `struct bpf_stack_build_id`s (the map made with [`F_STACK_BUILD_ID`]).
pub const USTACKS_BUILD_ID_MAP: &str = "ustacks_bid";
/// Size of the kernel's `struct bpf_stack_build_id`: status (s32), the build id (20 bytes),
/// and the offset in the file or the address (u64, 8-aligned).
pub const STACK_BUILD_ID_SIZE: usize = 32;
/// The stack map flag that records each user frame as its file's build id and the offset in
/// it (BPF_F_STACK_BUILD_ID).
pub const F_STACK_BUILD_ID: u32 = 1 << 5;
/// bpf_get_stackid()'s flag for the user stack (BPF_F_USER_STACK).
pub const F_USER_STACK: i32 = 1 << 8;

/// The array holding aggregation `id`'s per-CPU tables ([`table`]).
pub fn agg_map_name(id: usize) -> String {
    format!("agg{id}")
}

/// The hash map holding associative array `id`'s elements (key: [`Array::key_size`] bytes,
/// value: 8 bytes).
///
/// [`Array::key_size`]: crumbs_lang::ir::Array::key_size
pub fn array_map_name(id: usize) -> String {
    format!("arr{id}")
}

/// The hash map holding string thread-local variables: key (thread id, variable), value a
/// string buffer.
pub const TLS_STR_MAP: &str = "tls_str";
/// Struct and union thread-local variables: key (tid, variable id), value the largest one's
/// bytes.
pub const TLS_OBJ_MAP: &str = "tls_obj";

/// Per-CPU scratch space for strings: one element of the largest size a program uses per
/// nesting level ([`SCRATCH_LEVELS`]).
pub const SCRATCH_MAP: &str = "scratch";
/// How deep programs that use the scratch space nest on one CPU (a probe in task context,
/// softirq, hardirq, NMI), each with its own element of [`SCRATCH_MAP`]; a program deeper
/// still does not run.
pub const SCRATCH_LEVELS: u32 = 4;
/// Per CPU: how many programs that use the scratch space are running (nested) there.
pub const SCRATCH_DEPTH_MAP: &str = "scratch_depth";

/// chill()'s budget on each CPU (a per-CPU array of one element): the start of the
/// current interval and the ns spun in it.
pub const CHILL_MAP: &str = "chill";
/// Bytes of [`CHILL_MAP`]'s element.
pub const CHILL_STATE_SIZE: u32 = 16;

/// System call names by number, for a probefunc that must be a string in the kernel: an
/// array the runtime fills before attaching (value: the NUL-padded name).
pub const SYSCALL_NAMES_MAP: &str = "syscall_names";
/// Bytes of a name in [`SYSCALL_NAMES_MAP`].
pub const SYSCALL_NAME_SIZE: u32 = 32;

/// DTrace's default bufsize: bytes of the event ring buffer.
pub const DEFAULT_BUFSIZE: u64 = 1 << 20;
/// DTrace's default dynvarsize.
pub const DEFAULT_DYNVARSIZE: u64 = 1 << 20;
