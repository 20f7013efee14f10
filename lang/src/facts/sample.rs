//! A few kernel types with a 6.18 kernel's layout, for facts that must not depend on the
//! machine: the snapshot tests and the fuzzer answer kernel type questions with these.

use super::{KernelMember, KernelType, KernelTypeId, TypeSpace};

/// The id of a sample type: `struct task_struct` (a few of its members), `struct list_head`,
/// `pid_t`, what `cwd` and `d_path()` walk (fs_struct, path, dentry, qstr, vfsmount, mount,
/// hlist_bl_node, dentry_operations, super_block, inode: the members they read), the locks (`struct mutex`,
/// `rwlock_t`) of mutex_owner() and rw_read_held(), and what the sample functions' prototypes
/// name (`struct file`, `ssize_t`, `size_t`, `loff_t`).
pub fn type_id(space: TypeSpace, name: &str) -> Option<KernelTypeId> {
    match (space, name) {
        (TypeSpace::Struct, "task_struct") => Some(1),
        // stdlib/procfs.d's psinfo_t points at one; stdlib/sched.d's cpuinfo_t is made from a run queue.
        (TypeSpace::Struct, "tty_struct") => Some(95),
        (TypeSpace::Struct, "rq") => Some(89),
        (TypeSpace::Struct, "list_head") => Some(10),
        (TypeSpace::Struct, "fs_struct") => Some(20),
        (TypeSpace::Struct, "path") => Some(22),
        (TypeSpace::Struct, "dentry") => Some(23),
        (TypeSpace::Struct, "qstr") => Some(25),
        (TypeSpace::Struct, "vfsmount") => Some(27),
        (TypeSpace::Struct, "mount") => Some(29),
        (TypeSpace::Struct, "hlist_bl_node") => Some(31),
        (TypeSpace::Struct, "dentry_operations") => Some(33),
        (TypeSpace::Struct, "super_block") => Some(36),
        (TypeSpace::Struct, "inode") => Some(38),
        (TypeSpace::Struct, "mutex") => Some(40),
        (TypeSpace::Struct, "qrwlock") => Some(43),
        (TypeSpace::Ordinary, "rwlock_t") => Some(41),
        (TypeSpace::Ordinary, "pid_t") => Some(5),
        (TypeSpace::Struct, "file") => Some(50),
        (TypeSpace::Ordinary, "ssize_t") => Some(52),
        (TypeSpace::Ordinary, "size_t") => Some(53),
        (TypeSpace::Ordinary, "loff_t") => Some(54),
        _ => None,
    }
}

/// A few kernel functions fbt probes can name, sorted: the vfs calls the users' scripts
/// trace, one more that globs apart (`ksys_read`), and one returning void (`fput`).
/// And two that bpftrace's path() may be used in (`security_file_open`, `vfs_getattr`).
pub const FUNCTIONS: &[&str] = &["fput", "ksys_read", "security_file_open", "vfs_fsync", "vfs_getattr", "vfs_open", "vfs_read", "vfs_write"];
/// Where the sample kernel's text starts: FUNCTIONS are at TEXT_BASE, TEXT_BASE +
/// FUNCTION_SIZE, ... (`vfs_read` at 0xffffffff81000600).
pub const TEXT_BASE: u64 = 0xffff_ffff_8100_0000;
pub const FUNCTION_SIZE: u64 = 0x100;

/// The prototypes of FUNCTIONS, in its order (ids of [`KernelType::Function`]s).
const PROTOTYPES: [KernelTypeId; 8] = [70, 71, 76, 72, 77, 73, 74, 75];

/// A few raw tracepoints, sorted: a context switch (two tasks), an exec (a task) and the
/// system call entry (registers).
pub const RAW_TRACEPOINTS: &[&str] = &["sched_process_exec", "sched_switch", "sys_enter"];

/// The prototype of a sample raw tracepoint (`btf_trace_NAME`'s function type).
pub fn raw_tracepoint(name: &str) -> Option<KernelTypeId> {
    RAW_TRACEPOINTS.iter().position(|f| *f == name).map(|i| 90 + i as KernelTypeId)
}

/// The prototype of a sample function (an id of a [`KernelType::Function`]).
pub fn function(name: &str) -> Option<KernelTypeId> {
    FUNCTIONS.iter().position(|f| *f == name).map(|i| PROTOTYPES[i])
}

pub fn kernel_type(id: KernelTypeId) -> Result<KernelType, String> {
    let m = |name: &str, ty, bit_offset, bit_size| KernelMember { name: name.into(), ty, bit_offset, bit_size };
    let int = |name: &str, size, signed| KernelType::Int { name: name.into(), size, signed, char: name == "char", bool: false };
    Ok(match id {
        0 => KernelType::Void,
        1 => KernelType::Struct {
            name: "task_struct".into(),
            size: 9792,
            members: vec![m("flags", 7, 256, 0), m("tasks", 10, 8000, 0), m("in_execve", 7, 16000, 1), m("pid", 5, 19008, 0), m("tgid", 5, 19040, 0), m("real_parent", 2, 19136, 0), m("comm", 3, 24000, 0), m("fs", 21, 14528, 0)],
        },
        2 => KernelType::Ptr(1),
        3 => KernelType::Array { elem: 4, len: 16 },
        4 => int("char", 1, true),
        5 => KernelType::Typedef { name: "pid_t".into(), to: 6 },
        6 => int("int", 4, true),
        7 => int("unsigned int", 4, false),
        10 => KernelType::Struct { name: "list_head".into(), size: 16, members: vec![m("next", 11, 0, 0), m("prev", 11, 64, 0)] },
        11 => KernelType::Ptr(10),
        20 => KernelType::Struct { name: "fs_struct".into(), size: 56, members: vec![m("root", 22, 192, 0), m("pwd", 22, 320, 0)] },
        21 => KernelType::Ptr(20),
        22 => KernelType::Struct { name: "path".into(), size: 16, members: vec![m("mnt", 28, 0, 0), m("dentry", 24, 64, 0)] },
        23 => KernelType::Struct { name: "dentry".into(), size: 192, members: vec![m("d_hash", 31, 64, 0), m("d_parent", 24, 192, 0), m("d_name", 25, 256, 0), m("d_inode", 39, 384, 0), m("d_op", 34, 768, 0), m("d_sb", 37, 832, 0)] },
        24 => KernelType::Ptr(23),
        25 => KernelType::Struct { name: "qstr".into(), size: 16, members: vec![m("len", 7, 32, 0), m("name", 26, 64, 0)] },
        26 => KernelType::Ptr(4),
        27 => KernelType::Struct { name: "vfsmount".into(), size: 32, members: vec![m("mnt_root", 24, 0, 0)] },
        28 => KernelType::Ptr(27),
        29 => KernelType::Struct { name: "mount".into(), size: 352, members: vec![m("mnt_parent", 30, 128, 0), m("mnt_mountpoint", 24, 192, 0), m("mnt", 27, 256, 0)] },
        30 => KernelType::Ptr(29),
        31 => KernelType::Struct { name: "hlist_bl_node".into(), size: 16, members: vec![m("next", 32, 0, 0), m("pprev", 32, 64, 0)] },
        32 => KernelType::Ptr(31),
        33 => KernelType::Struct { name: "dentry_operations".into(), size: 128, members: vec![m("d_dname", 35, 576, 0)] },
        34 => KernelType::Ptr(33),
        35 => KernelType::Ptr(0),
        36 => KernelType::Struct { name: "super_block".into(), size: 1472, members: vec![m("s_magic", 47, 768, 0)] },
        37 => KernelType::Ptr(36),
        38 => KernelType::Struct { name: "inode".into(), size: 616, members: vec![m("i_ino", 47, 512, 0)] },
        39 => KernelType::Ptr(38),
        // struct mutex { atomic_long_t owner; ... }, with atomic_long_t as the long it holds.
        40 => KernelType::Struct { name: "mutex".into(), size: 32, members: vec![m("owner", 46, 0, 0)] },
        // typedef struct { arch_rwlock_t raw_lock; } rwlock_t, the lock a struct qrwlock
        // whose cnts shares an anonymous union with its bytes.
        41 => KernelType::Typedef { name: "rwlock_t".into(), to: 42 },
        42 => KernelType::Struct { name: String::new(), size: 8, members: vec![m("raw_lock", 43, 0, 0)] },
        43 => KernelType::Struct { name: "qrwlock".into(), size: 8, members: vec![m("", 44, 0, 0), m("wait_lock", 7, 32, 0)] },
        44 => KernelType::Union { name: String::new(), size: 4, members: vec![m("cnts", 45, 0, 0)] },
        45 => KernelType::Struct { name: "atomic_t".into(), size: 4, members: vec![m("counter", 6, 0, 0)] },
        46 => int("long", 8, true),
        47 => int("unsigned long", 8, false),
        50 => KernelType::Struct { name: "file".into(), size: 232, members: vec![m("f_inode", 39, 256, 0), m("f_path", 22, 512, 0), m("f_pos", 54, 1024, 0)] },
        51 => KernelType::Ptr(50),
        52 => KernelType::Typedef { name: "ssize_t".into(), to: 46 },
        53 => KernelType::Typedef { name: "size_t".into(), to: 47 },
        54 => KernelType::Typedef { name: "loff_t".into(), to: 55 },
        55 => int("long long", 8, true),
        56 => KernelType::Ptr(54),
        57 => KernelType::Qualified(4),
        58 => KernelType::Ptr(57),
        59 => KernelType::Qualified(22),
        60 => KernelType::Ptr(59),
        // The functions of FUNCTIONS (PROTOTYPES numbers them).
        70 => KernelType::Function { ret: 0, params: vec![("file".into(), 51)] },
        71 => KernelType::Function { ret: 52, params: vec![("fd".into(), 7), ("buf".into(), 26), ("count".into(), 53)] },
        72 => KernelType::Function { ret: 6, params: vec![("file".into(), 51), ("datasync".into(), 6)] },
        73 => KernelType::Function { ret: 6, params: vec![("path".into(), 60), ("file".into(), 51)] },
        74 => KernelType::Function { ret: 52, params: vec![("file".into(), 51), ("buf".into(), 26), ("count".into(), 53), ("pos".into(), 56)] },
        75 => KernelType::Function { ret: 52, params: vec![("file".into(), 51), ("buf".into(), 58), ("count".into(), 53), ("pos".into(), 56)] },
        76 => KernelType::Function { ret: 6, params: vec![("file".into(), 51)] },
        77 => KernelType::Function { ret: 6, params: vec![("path".into(), 60), ("stat".into(), 35), ("request_mask".into(), 7), ("query_flags".into(), 7)] },
        // The raw tracepoints of RAW_TRACEPOINTS, in its order: `void *` first, as BTF has it.
        90 => KernelType::Function { ret: 0, params: vec![("__data".into(), 35), ("p".into(), 2), ("old_pid".into(), 5), ("bprm".into(), 35)] },
        91 => KernelType::Function { ret: 0, params: vec![("__data".into(), 35), ("preempt".into(), 94), ("prev".into(), 2), ("next".into(), 2), ("prev_state".into(), 7)] },
        94 => KernelType::Int { name: "_Bool".into(), size: 1, signed: false, char: false, bool: true },
        95 => KernelType::Struct { name: "tty_struct".into(), size: 8, members: vec![] },
        89 => KernelType::Struct { name: "rq".into(), size: 3968, members: vec![m("cpu", 6, 26624, 0)] },
        92 => KernelType::Function { ret: 0, params: vec![("__data".into(), 35), ("regs".into(), 35), ("id".into(), 46)] },
        _ => return Err(format!("no kernel type {id}")),
    })
}

/// The sample kernel as facts, for unit tests: its types and functions, no tracepoints.
#[derive(Debug, Clone, Copy, Default)]
pub struct SampleKernel;

impl super::KernelFacts for SampleKernel {
    fn tracepoints(&self) -> super::Listing {
        Ok(Vec::new().into())
    }

    fn tracepoint_format(&self, category: &str, event: &str) -> Result<String, String> {
        Err(format!("no tracepoint {category}:{event}"))
    }

    fn kernel_type_id(&self, space: TypeSpace, name: &str) -> Result<Option<KernelTypeId>, String> {
        Ok(type_id(space, name))
    }

    fn kernel_type(&self, id: KernelTypeId) -> Result<KernelType, String> {
        kernel_type(id)
    }

    fn kernel_functions(&self) -> super::Functions {
        Ok(FUNCTIONS.iter().map(|f| f.to_string()).collect::<Vec<_>>().into())
    }

    /// FUNCTIONS laid out from TEXT_BASE, FUNCTION_SIZE bytes each, in their order.
    fn kernel_text_at(&self, addr: u64) -> Result<Option<(String, String, u64)>, String> {
        let i = addr.checked_sub(TEXT_BASE).map(|off| off / FUNCTION_SIZE);
        Ok(i.and_then(|i| FUNCTIONS.get(i as usize)).map(|f| ("vmlinux".to_string(), f.to_string(), (addr - TEXT_BASE) % FUNCTION_SIZE)))
    }

    fn kernel_function(&self, name: &str) -> Result<Option<KernelTypeId>, String> {
        Ok(function(name))
    }

    fn raw_tracepoints(&self) -> super::Functions {
        Ok(RAW_TRACEPOINTS.iter().map(|f| f.to_string()).collect::<Vec<_>>().into())
    }

    fn raw_tracepoint(&self, name: &str) -> Result<Option<KernelTypeId>, String> {
        Ok(raw_tracepoint(name))
    }

    fn kernel_modules(&self) -> Result<std::rc::Rc<[String]>, String> {
        Ok(MODULES.iter().map(|m| m.0.to_string()).collect::<Vec<_>>().into())
    }

    fn module_functions(&self, module: &str) -> super::Functions {
        let (_, functions) = MODULES.iter().find(|m| m.0 == module).ok_or_else(|| format!("no kernel module `{module}` with BTF is loaded"))?;
        Ok(functions.iter().map(|f| f.to_string()).collect::<Vec<_>>().into())
    }

    fn module_function(&self, module: &str, name: &str) -> Result<Option<KernelTypeId>, String> {
        // One function with a prototype: the module's copy of vfs_fsync's.
        Ok((module == "ext4" && name == "ext4_sync_file").then_some(72))
    }

    fn process_modules(&self, pid: u32) -> super::user::Modules {
        if pid != SAMPLE_PID {
            return Err(format!("no process {pid}"));
        }
        Ok(vec![user_module(SAMPLE_EXECUTABLE)?, user_module(SAMPLE_LIBC)?].into())
    }

    fn user_module(&self, path: &str) -> Result<super::user::UserModule, String> {
        user_module(path)
    }
}

/// The sample process (the unit tests' `$target`): an executable and libc.
pub const SAMPLE_PID: u32 = 42;
pub const SAMPLE_EXECUTABLE: &str = "/usr/bin/sample";
pub const SAMPLE_LIBC: &str = "/lib/x86_64-linux-gnu/libc.so.6";

fn user_module(path: &str) -> Result<super::user::UserModule, String> {
    use super::user::{UserFunction, UserModule};
    let f = |name: &str, offset: u64, size: u64| UserFunction { name: name.into(), offset, address: 0x40_0000 + offset, size };
    let (functions, executable) = match path {
        SAMPLE_EXECUTABLE => (vec![f("Shape::area() const", 0x1200, 0x20), f("main", 0x1100, 0x80), f("work", 0x1180, 0x40)], true),
        SAMPLE_LIBC | "libc" => (vec![f("getpid", 0xe4a50, 0x10), f("read", 0x11ba50, 0x90), f("write", 0x11baf0, 0x90)], false),
        _ => return Err(format!("no file {path}")),
    };
    let path = if path == "libc" { SAMPLE_LIBC } else { path };
    let name = path.rsplit('/').next().unwrap_or(path).to_string();
    use super::user::{UsdtArg, UsdtLoc, UsdtProbe};
    let usdt = if executable {
        let arg = |size, signed, at| UsdtArg { size, signed, at };
        vec![
            UsdtProbe { provider: "sample".into(), name: "start".into(), function: "main".into(), offset: 0x1110, semaphore: 0, args: vec![arg(4, true, UsdtLoc::Reg("rdi".into())), arg(8, false, UsdtLoc::Mem { base: "rbp".into(), disp: -16 }), arg(4, true, UsdtLoc::Const(5))] },
            UsdtProbe { provider: "sample".into(), name: "tick".into(), function: "work".into(), offset: 0x1190, semaphore: 0x3020, args: vec![arg(2, false, UsdtLoc::Reg("rax".into()))] },
        ]
    } else {
        Vec::new()
    };
    Ok(UserModule { path: path.into(), name, executable, functions: functions.into(), usdt: usdt.into() })
}

/// Loaded modules with their functions, sorted: a file system's and a congestion control's.
pub const MODULES: &[(&str, &[&str])] = &[("ext4", &["ext4_file_read_iter", "ext4_file_write_iter", "ext4_sync_file"]), ("tcp_bbr", &["bbr_init", "bbr_main"])];
