//! Where the kernel keeps what some builtins walk (from its BTF): `__psargs()`'s task and
//! mm fields, `cwd`'s fs, dentry and mount fields.

use super::*;

impl Checker<'_> {
    /// The byte offsets `__psargs()` reads: task_struct's `mm`, mm_struct's `arg_start` and
    /// `arg_end`, from the kernel's types.
    pub(super) fn psargs_offsets(&mut self, span: &Span) -> Result<[i32; 3], Diagnostic> {
        let offset = |cx: &mut Self, strukt: &str, member: &str| -> Result<i32, Diagnostic> {
            let err = |e: String| ctypes::no_types(span, e);
            let t = cx.types.lookup(crate::facts::TypeSpace::Struct, strukt).map_err(err)?;
            let found = t.and_then(|t| cx.types.member(t, member).ok().flatten());
            found.map(|f| (f.bit_offset / 8) as i32).ok_or_else(|| {
                Diagnostic::new(span.clone(), format!("the kernel's `struct {strukt}` has no `{member}`")).label("needs it").hint("pr_psargs reads the process's arguments through task_struct's mm")
            })
        };
        Ok([offset(self, "task_struct", "mm")?, offset(self, "mm_struct", "arg_start")?, offset(self, "mm_struct", "arg_end")?])
    }
}

impl Checker<'_> {
    /// The fields `cwd` walks, from the kernel's types.
    pub(super) fn cwd_offsets(&mut self, span: &Span) -> Result<crate::ir::CwdOffsets, Diagnostic> {
        let at = |cx: &mut Self, strukt: &str, path: &[&str]| -> Result<i32, Diagnostic> {
            let err = |e: String| ctypes::no_types(span, e);
            let mut t = cx.types.lookup(crate::facts::TypeSpace::Struct, strukt).map_err(err)?;
            let mut off = 0;
            for m in path {
                let found = t.and_then(|t| cx.types.member(t, m).ok().flatten());
                let Some(f) = found else {
                    return Err(Diagnostic::new(span.clone(), format!("the kernel's `struct {strukt}` has no `{}`", path.join("."))).label("needs it").hint("cwd walks the task's fs_struct, dentries and mounts"));
                };
                off += (f.bit_offset / 8) as i32;
                t = Some(f.ty);
            }
            Ok(off)
        };
        Ok(crate::ir::CwdOffsets {
            task_fs: at(self, "task_struct", &["fs"])?,
            fs_pwd: at(self, "fs_struct", &["pwd"])?,
            fs_root: at(self, "fs_struct", &["root"])?,
            path_mnt: at(self, "path", &["mnt"])?,
            path_dentry: at(self, "path", &["dentry"])?,
            dentry_parent: at(self, "dentry", &["d_parent"])?,
            dentry_name: at(self, "dentry", &["d_name", "name"])?,
            dentry_len: at(self, "dentry", &["d_name", "len"])?,
            vfsmount_root: at(self, "vfsmount", &["mnt_root"])?,
            mount_mnt: at(self, "mount", &["mnt"])?,
            mount_parent: at(self, "mount", &["mnt_parent"])?,
            mount_mountpoint: at(self, "mount", &["mnt_mountpoint"])?,
        })
    }
}
