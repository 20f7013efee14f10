//! What the checker knows of user-space programs: the ELF files (an executable, its shared
//! libraries) a process runs or a path names, and their functions' symbols. The runtime
//! reads them (runtime/src/kernel/user/); lang only matches and names them.

use std::rc::Rc;

/// One ELF file probes can be put in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserModule {
    /// Where the file is, as uprobes are attached to it.
    pub path: String,
    /// How DTrace names the module: the file's name (`libc.so.6`, `a.out` also matching the
    /// executable).
    pub name: String,
    /// Whether this is the process's executable (`a.out`).
    pub executable: bool,
    /// Its functions, sorted by name.
    pub functions: Rc<[UserFunction]>,
    /// Its USDT probes (`.note.stapsdt`), in the notes' order.
    pub usdt: Rc<[UsdtProbe]>,
}

/// A statically defined probe (USDT) of a user module, as its `.note.stapsdt` note
/// describes it (systemtap's `<sys/sdt.h>`, DTRACE_PROBE*).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsdtProbe {
    pub provider: String,
    pub name: String,
    /// The function the probe is in (demangled; "" where no symbol covers it).
    pub function: String,
    /// Where the probe's instruction (a nop) is in the file.
    pub offset: u64,
    /// Where its semaphore is in the file (the kernel counts the probe's users there, and
    /// the program may skip the probe while it is 0); 0 for none.
    pub semaphore: u64,
    /// Its arguments, as the note's argument specs say where to find them.
    pub args: Vec<UsdtArg>,
}

/// One USDT argument: `-4@%edi` is a signed 4-byte value in rdi.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsdtArg {
    /// 1, 2, 4 or 8.
    pub size: u8,
    pub signed: bool,
    pub at: UsdtLoc,
}

/// Where a USDT argument is when the probe fires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UsdtLoc {
    /// A constant (`$5`).
    Const(i64),
    /// A register, by its 64-bit name (`rdi` for `%edi`).
    Reg(String),
    /// Memory at a register plus a displacement (`-16(%rbp)`).
    Mem { base: String, disp: i64 },
    /// A form crumbs does not read (an index register, `%rip`-relative symbols): the spec.
    Unsupported(String),
}

/// A function in a user module's symbol tables (.symtab and .dynsym).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserFunction {
    /// The name probes match and print: demangled for C++ and Rust (`Shape::area() const`),
    /// the symbol's own for C.
    pub name: String,
    /// Where the function starts in the file (uprobes are attached at file offsets).
    pub offset: u64,
    /// Its address in the file's own layout (the symbol's value, as `nm` shows it):
    /// `uprobe:PATH:ADDRESS` names a place by it.
    pub address: u64,
    /// Its size in bytes (0 where the symbol does not say).
    pub size: u64,
}

/// A process's modules (its executable first), or why they cannot be read.
pub type Modules = Result<Rc<[UserModule]>, String>;
