//! fbt probes: numbering the kernel functions a program probes.

use super::*;

/// The most kernel functions one program probes: each is a program of its own to load and
/// attach (until multi-attach links carry many), and two file descriptors.
pub(super) const MAX_FUNCTIONS: usize = 4096;

impl Checker<'_> {
    /// The attach point of an fbt probe (`attach` says entry or return) on `function`,
    /// numbering the function on its first use. A stable probe on it (`stable`: its
    /// provider and name) is numbered apart.
    /// `offset`: bytes into the function for an entry probe inside it (else 0), a place of its
    /// own; `address`: the kernel address the program named it by (`kprobe:0x...`), if any.
    pub(super) fn function(&mut self, attach: AttachPoint, module: &str, function: &str, stable: Option<(&str, &str)>, (offset, address): (u64, Option<u64>), desc: &ast::ProbeDesc) -> Result<AttachPoint, Diagnostic> {
        let stable = stable.map(|(p, n)| (p.to_string(), n.to_string()));
        let i = match self.functions.iter().position(|f| f.name == function && f.module == module && f.stable == stable && f.offset == offset && f.address == address) {
            Some(i) => i,
            None if self.functions.len() >= MAX_FUNCTIONS => {
                return Err(Diagnostic::new(desc.span.clone(), "too many kernel functions in one program")
                    .label(format!("over {MAX_FUNCTIONS}"))
                    .hint("narrow the pattern (each function is a probe of its own to attach)"));
            }
            None => {
                self.functions.push(KernelFunction { module: module.into(), name: function.into(), stable, offset, address });
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

    /// bpftrace's `kprobe:FUNCTION+N`: a place of its own inside the function, named by the
    /// offset (hex for DTrace's name, decimal for bpftrace's), `+0` the entry itself.
    #[test]
    fn kprobes_at_an_offset_are_places_of_their_own() {
        let p = compile("kprobe:vfs_read+0x10, kprobe:vfs_read, kprobe:vfs_read+0 { @ = count(); }").unwrap();
        assert_eq!(p.functions.iter().map(|f| (f.name.as_str(), f.offset)).collect::<Vec<_>>(), [("vfs_read", 16), ("vfs_read", 0)]);
        assert_eq!(p.probe_description(crate::providers::FBT_ID_BASE), "fbt:vmlinux:vfs_read:10");
        assert_eq!(p.bpftrace_probe_name(crate::providers::FBT_ID_BASE), "kprobe:vfs_read+16");
        assert!(p.fbt_needs().offsets);
        for (src, message) in [
            ("kretprobe:vfs_read+4 { }", "kretprobe probes take no offset"),
            ("kfunc:vfs_read+4 { }", "kfunc probes take no offset"),
            ("kprobe:vfs_*+4 { }", "an offset needs one function, not a pattern"),
            ("kprobe:vfs_read+x { }", "`x` is not an offset"),
        ] {
            assert_eq!(compile(src).unwrap_err().message, message, "{src}");
        }
    }

    /// Current bpftrace's `kprobe:ADDRESS` (unsafe): the function holding the address, from
    /// kallsyms (the sample kernel's vfs_read is at 0xffffffff81000600), and the offset in it;
    /// its probe named by the address, as current bpftrace names it.
    #[test]
    fn kprobes_at_an_address_are_a_function_and_an_offset() {
        let unsafe_on = |src: &str| crate::compile(src, &CheckOptions { facts: Some(Rc::new(SampleKernel)), destructive: true, ..Default::default() });
        let p = unsafe_on("kprobe:0xffffffff81000604, kprobe:0xffffffff81000600, kretprobe:0xffffffff81000600, kprobe:vmlinux:0xffffffff81000700 { @ = count(); }").unwrap();
        let places: Vec<_> = p.functions.iter().map(|f| (f.name.as_str(), f.offset, f.address)).collect();
        assert_eq!(places, [("vfs_read", 4, Some(0xffffffff81000604)), ("vfs_read", 0, Some(0xffffffff81000600)), ("vfs_write", 0, Some(0xffffffff81000700))]);
        let attach: Vec<_> = p.groups.iter().map(|g| g.attach).collect();
        assert_eq!(attach, [AttachPoint::FbtEntry(0), AttachPoint::FbtEntry(1), AttachPoint::FbtEntry(2), AttachPoint::FbtReturn(1)]);
        assert_eq!(p.probe_description(crate::providers::FBT_ID_BASE), "fbt:vmlinux:vfs_read:4");
        assert_eq!(p.bpftrace_probe_name(crate::providers::FBT_ID_BASE), "kprobe:18446744071578846724");
        assert_eq!(p.bpftrace_probe_name(crate::providers::FBT_ID_BASE + 3), "kretprobe:18446744071578846720");
        assert!(p.fbt_needs().offsets);
        for (src, message) in [
            ("kretprobe:0xffffffff81000604 { }", "address 0xffffffff81000604 is 4 bytes into vfs_read: a return probe is on a function's start"),
            ("kprobe:0x1000 { }", "no kernel function holds address 0x1000"),
            ("kprobe:ext4:0xffffffff81000600 { }", "address 0xffffffff81000600 is in vmlinux's vfs_read, not in ext4"),
            ("kfunc:0xffffffff81000600 { }", "kfunc probes name a function, not an address"),
        ] {
            assert_eq!(unsafe_on(src).unwrap_err().message, message, "{src}");
        }
        let d = compile("kprobe:0xffffffff81000600 { }").unwrap_err();
        assert_eq!((d.message.as_str(), d.hint.as_deref().is_some_and(|h| h.contains("--unsafe"))), ("Probing by address requires --unsafe", true));
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
