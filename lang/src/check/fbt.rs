//! fbt probes: numbering the kernel functions a program probes.

use super::*;

/// The most kernel functions one program probes: each is a program of its own to load and
/// attach (until multi-attach links carry many), and two file descriptors.
pub(super) const MAX_FUNCTIONS: usize = 4096;

impl Checker<'_> {
    /// The attach point of an fbt probe (`attach` says entry or return) on `function`,
    /// numbering the function on its first use. A stable probe on it (`stable`: its
    /// provider and name) is numbered apart.
    pub(super) fn function(&mut self, attach: AttachPoint, module: &str, function: &str, stable: Option<(&str, &str)>, desc: &ast::ProbeDesc) -> Result<AttachPoint, Diagnostic> {
        let stable = stable.map(|(p, n)| (p.to_string(), n.to_string()));
        let i = match self.functions.iter().position(|f| f.name == function && f.module == module && f.stable == stable) {
            Some(i) => i,
            None if self.functions.len() >= MAX_FUNCTIONS => {
                return Err(Diagnostic::new(desc.span.clone(), "too many kernel functions in one program")
                    .label(format!("over {MAX_FUNCTIONS}"))
                    .hint("narrow the pattern (each function is a probe of its own to attach)"));
            }
            None => {
                self.functions.push(KernelFunction { module: module.into(), name: function.into(), stable });
                self.functions.len() - 1
            }
        };
        Ok(match attach {
            AttachPoint::FbtReturn(_) => AttachPoint::FbtReturn(i as u16),
            _ => AttachPoint::FbtEntry(i as u16),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::sample::SampleKernel;
    use std::rc::Rc;

    fn compile(src: &str) -> Result<Program, Diagnostic> {
        crate::compile(src, &CheckOptions { facts: Some(Rc::new(SampleKernel)), ..Default::default() })
    }

    #[test]
    fn functions_are_numbered_once_for_entry_and_return() {
        let p = compile("fbt::vfs_read:entry, fbt::vfs_write:return { @ = count(); } kretprobe:vfs_read, fbt::vfs_w*:entry { @ = count(); }").unwrap();
        assert_eq!(p.functions.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["vfs_read", "vfs_write"]);
        let attach: Vec<_> = p.groups.iter().map(|g| g.attach).collect();
        assert_eq!(attach, [AttachPoint::FbtEntry(0), AttachPoint::FbtEntry(1), AttachPoint::FbtReturn(0), AttachPoint::FbtReturn(1)]);
        assert_eq!(p.probe_description(crate::providers::FBT_ID_BASE + 3), "fbt:vmlinux:vfs_write:return");
        assert_eq!(p.probe_name(crate::providers::FBT_ID_BASE), ("vfs_read".to_string(), "entry".to_string()));
    }

    #[test]
    fn args_are_typed_from_the_prototype() {
        // A struct chain from `struct file *`, and the return value's type.
        compile("fbt::vfs_read:entry { trace(stringof(args[0]->f_path.dentry->d_name.name)); trace(args[2] + 1); }").unwrap();
        compile("fbt::vfs_read:return { @ = sum(args[1]); trace(args[0]); }").unwrap();
        // Two prototypes meet where their types do: vfs_read's and vfs_write's `struct file *`.
        compile("fbt::vfs_read:entry, fbt::vfs_write:entry { trace(args[0]->f_pos); }").unwrap();
    }

    #[test]
    fn wrong_args_are_errors() {
        let d = compile("fbt::vfs_read:return { trace(args[2]); }").unwrap_err();
        assert!(d.message.contains("has 2 arguments"), "{}", d.message);
        let d = compile("fbt::fput:return { trace(args[1]); }").unwrap_err();
        assert!(d.message.contains("one argument"), "{}", d.message);
        let d = compile("fbt::vfs_read:entry, fbt::vfs_fsync:entry { trace(args[1]); }").unwrap_err();
        assert!(d.message.contains("args[1] is"), "{}", d.message);
        let d = compile("fbt::vfs_read:entry { trace(args[0]->no_such); }").unwrap_err();
        assert!(d.message.contains("no_such"), "{}", d.message);
    }
}
