//! DTrace's subroutines on the kernel's own objects, with the meaning dtrace-utils gives
//! them on Linux: `getmajor()`/`getminor()` of the kernel's `dev_t`; `mutex_owned()`,
//! `mutex_owner()`, `mutex_type_adaptive()`, `mutex_type_spin()` of a `struct mutex *`;
//! `rw_read_held()`, `rw_write_held()`, `rw_iswriter()` of an `rwlock_t *`; `d_path()` of a
//! `struct path *`. All but d_path() are arithmetic on a word of the object, lowered here
//! to loads and operators; where the word is comes from the kernel's BTF.

use super::ctypes::add_offset;
use super::*;
use crate::builtins::KernelFn;
use crate::facts::TypeSpace;
use crate::types::{AddrSpace, IntType, Type, TypeId};

/// The flag bits in the low bits of `struct mutex`'s `owner` (MUTEX_FLAGS: waiters,
/// handoff, pickup); the rest is the owning task.
const MUTEX_FLAGS: i64 = 0x07;
/// In a queued rwlock's `cnts`: the writer's byte (_QW_LOCKED), and with the "writer
/// waiting" bit (_QW_WMASK); the readers are counted above them.
const QW_LOCKED: i64 = 0xff;
const QW_WMASK: i64 = 0x1ff;

/// The kernel object a subroutine takes a pointer to.
struct Object {
    space: TypeSpace,
    name: &'static str,
    /// How a message writes its pointer type.
    c: &'static str,
}

const MUTEX: Object = Object { space: TypeSpace::Struct, name: "mutex", c: "struct mutex *" };
const RWLOCK: Object = Object { space: TypeSpace::Ordinary, name: "rwlock_t", c: "rwlock_t *" };
const PATH: Object = Object { space: TypeSpace::Struct, name: "path", c: "struct path *" };

impl Checker<'_> {
    /// A call of one of these subroutines (its arity is checked here).
    pub(super) fn kernel_call(&mut self, f: &builtins::BuiltinFn, k: KernelFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let a = &args[0];
        Ok(match k {
            KernelFn::Getmajor | KernelFn::Getminor => {
                let dev = self.int_expr(a, &format!("the device number given to {}()", f.name))?;
                // MAJOR() and MINOR() of the kernel's 32-bit dev_t (include/linux/kdev_t.h):
                // 12 bits of major above 20 of minor.
                let (shift, width) = if k == KernelFn::Getmajor { (20, 12) } else { (0, 20) };
                let e = match dev {
                    Expr::Int(v) => Expr::Int((v >> shift) & ((1 << width) - 1)),
                    dev => Expr::Bits { inner: Box::new(dev), shift, width, signed: false },
                };
                let dev_t = self.types.int_of(IntType::named("dev_t", 4, false));
                TExpr::new(e, dev_t)
            }
            KernelFn::MutexOwner | KernelFn::MutexOwned => {
                let m = self.object_arg(a, f, &MUTEX)?;
                let owner_at = self.object_offset(&MUTEX, &["owner"], span, "the owner of a mutex is its `owner` word")?;
                let word = Expr::Load { addr: Box::new(add_offset(m, owner_at as i64)), size: 8, signed: false };
                let owner = Expr::Binary(BinOp::BitAnd, Box::new(word), Box::new(Expr::Int(!MUTEX_FLAGS)));
                if k == KernelFn::MutexOwned {
                    let current = Expr::Var(VarHook::Kernel(builtins::KernelValue::CurrentTask, builtins::Part::Whole));
                    TExpr::new(Expr::Binary(BinOp::Eq, Box::new(owner), Box::new(current)), self.int())
                } else {
                    let task = self.kernel_struct_pointer("task_struct", span)?;
                    TExpr::new(owner, task)
                }
            }
            KernelFn::MutexTypeAdaptive | KernelFn::MutexTypeSpin => {
                let m = self.object_arg(a, f, &MUTEX)?;
                // Every Linux mutex is adaptive; the argument is still evaluated.
                let v = Expr::Int((k == KernelFn::MutexTypeAdaptive) as i64);
                let e = if m.has_effects() { Expr::Ternary(Box::new(m), Box::new(v.clone()), Box::new(v)) } else { v };
                TExpr::new(e, self.int())
            }
            KernelFn::RwReadHeld | KernelFn::RwWriteHeld | KernelFn::RwIswriter => {
                let l = self.object_arg(a, f, &RWLOCK)?;
                let cnts_at = self.object_offset(&RWLOCK, &["raw_lock", "cnts"], span, "a queued rwlock's state is its `cnts` word")?;
                let cnts = Expr::Load { addr: Box::new(add_offset(l, cnts_at as i64)), size: 4, signed: false };
                let mask = match k {
                    KernelFn::RwReadHeld => !QW_WMASK & 0xffff_ffff,
                    KernelFn::RwWriteHeld => QW_LOCKED,
                    _ => QW_WMASK,
                };
                let bits = Expr::Binary(BinOp::BitAnd, Box::new(cnts), Box::new(Expr::Int(mask)));
                TExpr::new(Expr::Binary(BinOp::Ne, Box::new(bits), Box::new(Expr::Int(0))), self.int())
            }
            KernelFn::DPath => {
                let path = self.object_arg(a, f, &PATH)?;
                let offsets = self.cwd_offsets(span)?;
                let dentry = Object { space: TypeSpace::Struct, name: "dentry", c: "" };
                let ops = Object { space: TypeSpace::Struct, name: "dentry_operations", c: "" };
                let sb = Object { space: TypeSpace::Struct, name: "super_block", c: "" };
                let inode = Object { space: TypeSpace::Struct, name: "inode", c: "" };
                let why = "d_path() names pipes, sockets and anonymous inodes by their filesystem and inode";
                let more = DPathOffsets {
                    dentry_hash_pprev: self.object_offset(&dentry, &["d_hash", "pprev"], span, "d_path() tells a deleted file by its dentry's `d_hash`")?,
                    dentry_op: self.object_offset(&dentry, &["d_op"], span, "d_path() tells the files the kernel names itself by their dentry operations")?,
                    ops_dname: self.object_offset(&ops, &["d_dname"], span, "d_path() tells the files the kernel names itself by their dentry operations")?,
                    dentry_sb: self.object_offset(&dentry, &["d_sb"], span, why)?,
                    dentry_inode: self.object_offset(&dentry, &["d_inode"], span, why)?,
                    sb_magic: self.object_offset(&sb, &["s_magic"], span, why)?,
                    inode_ino: self.object_offset(&inode, &["i_ino"], span, why)?,
                };
                let string = self.c_string();
                TExpr::new(Expr::Str(StrExpr::DPath { path: Box::new(path), offsets: Box::new(offsets), more, size: self.strsize }), string)
            }
        })
    }

    /// An argument that must point to `o` in the kernel (a `void *` or NULL does too).
    fn object_arg(&mut self, a: &ast::Expr, f: &builtins::BuiltinFn, o: &Object) -> Result<Expr, Diagnostic> {
        let v = self.value(a)?;
        let want = self.types.lookup(o.space, o.name).map_err(|e| ctypes::no_types(&a.span, e))?;
        let want = match want {
            Some(t) => Some(self.types.resolve(t).map_err(|e| ctypes::no_types(&a.span, e))?),
            None => None,
        };
        let fits = match self.types.real(v.ty) {
            Ok(Type::Ptr { to, space: AddrSpace::Kernel }) => {
                let to = self.types.resolve(to).map_err(|e| ctypes::no_types(&a.span, e))?;
                matches!(self.types.get(to), Type::Void) || Some(to) == want
            }
            _ => matches!(v.expr, Expr::Int(0)),
        };
        if !fits {
            let name = match &v.expr {
                Expr::Str(_) => "string".to_string(),
                _ => self.types.name(v.ty),
            };
            return Err(Diagnostic::new(a.span.clone(), format!("{}() needs a `{}`, but this is `{name}`", f.name, o.c))
                .label(format!("not a `{}`", o.c))
                .hint(format!("usage: {}; cast an address to it, e.g. {}(({})arg0)", f.signature, f.name, o.c)));
        }
        Ok(v.expr)
    }

    /// The byte offset of member `path` (through nested members) in the kernel's `o`.
    fn object_offset(&mut self, o: &Object, path: &[&str], span: &Span, why: &str) -> Result<i32, Diagnostic> {
        let err = |e: String| ctypes::no_types(span, e);
        let kind = if o.space == TypeSpace::Struct { "struct " } else { "" };
        let mut t = self.types.lookup(o.space, o.name).map_err(err)?;
        let mut off = 0;
        for m in path {
            let found = match t {
                Some(t) => self.types.member(t, m).map_err(err)?,
                None => None,
            };
            let Some(found) = found else {
                return Err(Diagnostic::new(span.clone(), format!("the kernel's `{kind}{}` has no `{}`", o.name, path.join("."))).label("needs it").hint(why.to_string()));
            };
            off += (found.bit_offset / 8) as i32;
            t = Some(found.ty);
        }
        Ok(off)
    }

    /// The type `struct NAME *` of the kernel's struct.
    fn kernel_struct_pointer(&mut self, name: &str, span: &Span) -> Result<TypeId, Diagnostic> {
        match self.types.lookup(TypeSpace::Struct, name).map_err(|e| ctypes::no_types(span, e))? {
            Some(t) => Ok(self.types.pointer(t, AddrSpace::Kernel)),
            None => Err(Diagnostic::new(span.clone(), format!("the kernel has no `struct {name}`")).label("needs it").hint("this kernel's BTF lacks the type")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile;
    use crate::facts::{sample, KernelType, KernelTypeId, Listing};

    /// The sample kernel's types.
    #[derive(Debug)]
    struct Sample;

    impl crate::facts::KernelFacts for Sample {
        fn tracepoints(&self) -> Listing {
            Ok(Vec::new().into())
        }
        fn tracepoint_format(&self, _: &str, _: &str) -> Result<String, String> {
            Err("none".into())
        }
        fn kernel_type_id(&self, space: TypeSpace, name: &str) -> Result<Option<KernelTypeId>, String> {
            Ok(sample::type_id(space, name))
        }
        fn kernel_type(&self, id: KernelTypeId) -> Result<KernelType, String> {
            sample::kernel_type(id)
        }
    }

    fn compiled(src: &str) -> Result<Program, Diagnostic> {
        compile(src, &CheckOptions { facts: Some(std::rc::Rc::new(Sample)), ..Default::default() })
    }

    /// The value `BEGIN { x = EXPR; }` stores.
    fn stored(expr: &str) -> Expr {
        let p = compiled(&format!("BEGIN {{ x = {expr}; }}")).unwrap_or_else(|d| panic!("{expr}: {} ({:?})", d.message, d.hint));
        match &p.groups[0].clauses[0].body[0] {
            Stmt::SetGlobal(_, e) => e.clone(),
            s => panic!("{s:?}"),
        }
    }

    /// The error for `BEGIN { x = EXPR; }`, and the text its span covers.
    fn error(expr: &str) -> (Diagnostic, String) {
        let src = format!("BEGIN {{ x = {expr}; }}");
        let d = compiled(&src).expect_err(expr);
        let text = src[d.span.clone()].to_string();
        (d, text)
    }

    #[test]
    fn getmajor_and_getminor_split_the_kernels_dev_t() {
        // dtrace-utils' test values: the low 32 bits are the dev_t.
        assert_eq!(stored("getmajor(0xabcdef0123456789ll)"), Expr::Int(0x234));
        assert_eq!(stored("getminor(0xabcdef0123456789ll)"), Expr::Int(0x56789));
        assert!(matches!(stored("getmajor(arg0)"), Expr::Bits { shift: 20, width: 12, signed: false, .. }));
        assert!(matches!(stored("getminor(arg0)"), Expr::Bits { shift: 0, width: 20, signed: false, .. }));
        let (d, text) = error("getmajor(\"sda\")");
        assert_eq!(text, "\"sda\"");
        assert!(d.message.contains("must be an integer"), "{}", d.message);
        let (d, _) = error("getminor()");
        assert_eq!(d.message, "getminor() takes 1 argument, but 0 given");
        assert_eq!(d.hint.as_deref(), Some("usage: getminor(dev)"));
    }

    #[test]
    fn mutex_owner_is_the_owner_word_without_its_flags() {
        let Expr::Binary(BinOp::BitAnd, word, mask) = stored("mutex_owner((struct mutex *)arg0)") else { panic!() };
        assert!(matches!(*word, Expr::Load { size: 8, signed: false, .. }), "{word:?}");
        assert_eq!(*mask, Expr::Int(!7));
        assert!(matches!(stored("mutex_owned((struct mutex *)arg0)"), Expr::Binary(BinOp::Eq, ..)));
        // The owner is a task: its members can be read.
        assert!(compiled("BEGIN { x = mutex_owner((struct mutex *)arg0)->pid; }").is_ok());
        assert_eq!(stored("mutex_type_adaptive((struct mutex *)arg0)"), Expr::Int(1));
        assert_eq!(stored("mutex_type_spin((void *)arg0)"), Expr::Int(0));
        // An argument with an effect is still evaluated.
        assert!(matches!(stored("mutex_type_spin((struct mutex *)(y = arg0))"), Expr::Ternary(..)));
    }

    #[test]
    fn rw_subroutines_test_bits_of_the_lock_word() {
        let mask = |expr: &str| match stored(expr) {
            Expr::Binary(BinOp::Ne, bits, zero) if *zero == Expr::Int(0) => match *bits {
                Expr::Binary(BinOp::BitAnd, word, mask) if matches!(*word, Expr::Load { size: 4, signed: false, .. }) => *mask,
                b => panic!("{b:?}"),
            },
            e => panic!("{e:?}"),
        };
        assert_eq!(mask("rw_read_held((rwlock_t *)arg0)"), Expr::Int(0xffff_fe00));
        assert_eq!(mask("rw_write_held((rwlock_t *)arg0)"), Expr::Int(0xff));
        assert_eq!(mask("rw_iswriter((rwlock_t *)arg0)"), Expr::Int(0x1ff));
    }

    #[test]
    fn lock_and_path_arguments_must_be_their_pointers() {
        let (d, text) = error("mutex_owned(arg0)");
        assert_eq!(text, "arg0");
        assert_eq!(d.message, "mutex_owned() needs a `struct mutex *`, but this is `int64_t`");
        assert!(d.hint.unwrap().contains("mutex_owned((struct mutex *)arg0)"));
        let (d, text) = error("rw_read_held((struct mutex *)arg0)");
        assert_eq!(text, "(struct mutex *)arg0");
        assert_eq!(d.message, "rw_read_held() needs a `rwlock_t *`, but this is `struct mutex *`");
        let (d, _) = error("d_path(curthread->fs)");
        assert_eq!(d.message, "d_path() needs a `struct path *`, but this is `struct fs_struct *`");
        let (d, _) = error("d_path(\"/tmp\")");
        assert_eq!(d.message, "d_path() needs a `struct path *`, but this is `string`");
        let (d, _) = error("mutex_owner((struct mutex *)arg0, 1)");
        assert_eq!(d.message, "mutex_owner() takes 1 argument, but 2 given");
        // NULL is a pointer to anything (and faults when the probe fires).
        assert!(compiled("BEGIN { x = mutex_owned(NULL); }").is_ok());
    }

    #[test]
    fn d_path_walks_from_the_path_given() {
        let p = compiled("BEGIN { s = d_path(&curthread->fs->pwd); }").unwrap();
        let Stmt::SetStr(_, StrExpr::DPath { more, offsets, .. }) = &p.groups[0].clauses[0].body[0] else { panic!() };
        assert_eq!((more.dentry_hash_pprev, more.dentry_op, more.ops_dname), (16, 96, 72));
        assert_eq!((more.dentry_sb, more.dentry_inode, more.sb_magic, more.inode_ino), (104, 48, 96, 64));
        assert_eq!(offsets.fs_pwd, 40);
    }

    #[test]
    fn link_ntop_takes_a_type_and_an_address() {
        let p = compiled("BEGIN { s = link_ntop(ARPHRD_ETHER, arg0); }").unwrap();
        assert!(matches!(&p.groups[0].clauses[0].body[0], Stmt::SetStr(_, StrExpr::Call { f: StrFn::LinkNtop, .. })));
        assert_eq!(stored("ARPHRD_ETHER"), Expr::Int(1));
        assert_eq!(stored("ARPHRD_INFINIBAND"), Expr::Int(32));
        let (d, text) = error("link_ntop(\"eth\", arg0)");
        assert_eq!(text, "\"eth\"");
        assert_eq!(d.message, "link_ntop() needs an integer here, but this is a string");
        let (d, _) = error("link_ntop(arg0)");
        assert_eq!(d.message, "link_ntop() takes 2 arguments, but 1 given");
        assert_eq!(d.hint.as_deref(), Some("usage: link_ntop(type, addr)"));
    }

    #[test]
    fn cleanpath_takes_a_string() {
        let p = compiled("BEGIN { s = cleanpath(execname); }").unwrap();
        assert!(matches!(&p.groups[0].clauses[0].body[0], Stmt::SetStr(_, StrExpr::Call { f: StrFn::Cleanpath, .. })));
        let (d, text) = error("cleanpath(arg0)");
        assert_eq!(text, "arg0");
        assert_eq!(d.message, "cleanpath() needs a string here, but this is an integer");
        let (d, _) = error("cleanpath(\"/a\", \"/b\")");
        assert_eq!(d.message, "cleanpath() takes 1 argument, but 2 given");
    }
}
