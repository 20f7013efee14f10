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
}

/// A function in a user module's symbol tables (.symtab and .dynsym).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserFunction {
    /// The name probes match and print: demangled for C++ and Rust (`Shape::area() const`),
    /// the symbol's own for C.
    pub name: String,
    /// Where the function starts in the file (uprobes are attached at file offsets).
    pub offset: u64,
    /// Its size in bytes (0 where the symbol does not say).
    pub size: u64,
}

/// A process's modules (its executable first), or why they cannot be read.
pub type Modules = Result<Rc<[UserModule]>, String>;
