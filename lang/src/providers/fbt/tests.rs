use super::super::{match_probes_with, provider};
use super::*;
use crate::facts::sample::SampleKernel;

fn desc(s: &str) -> ProbeDesc {
    ProbeDesc { text: s.into(), fields: s.split(':').map(String::from).collect(), span: 0..s.len() }
}

fn names(s: &str) -> Vec<String> {
    match_probes_with(&desc(s), Some(&SampleKernel)).unwrap().iter().map(|p| format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name)).collect()
}

#[test]
fn descriptions_and_spellings() {
    assert_eq!(names("fbt::vfs_read:entry"), ["fbt:vmlinux:vfs_read:entry"]);
    assert_eq!(names("fbt:vmlinux:vfs_read:"), ["fbt:vmlinux:vfs_read:entry", "fbt:vmlinux:vfs_read:return"]);
    assert_eq!(names("fbt:*:vfs_re*:ret*"), ["fbt:vmlinux:vfs_read:return"]);
    assert_eq!(names("fbt::vfs_*:entry").len(), 5);
    let modules: usize = crate::facts::sample::MODULES.iter().map(|m| m.1.len()).sum();
    assert_eq!(names("fbt:::").len(), 2 * (crate::facts::sample::FUNCTIONS.len() + modules));
    for same in ["kprobe:vfs_read", "kprobe::vfs_read:", "kprobe:vmlinux:vfs_read", "kfunc:vfs_read", "fentry:vfs_read", "kfunc:vmlinux:vfs_read"] {
        assert_eq!(names(same), ["fbt:vmlinux:vfs_read:entry"], "{same}");
    }
    for same in ["kretprobe:vfs_read", "kretprobe::vfs_read:"] {
        assert_eq!(names(same), ["fbt:vmlinux:vfs_read:return"], "{same}");
    }
    let p = &match_probes_with(&desc("fbt::vfs_write:return"), Some(&SampleKernel)).unwrap()[0];
    assert_eq!(p.attach, AttachPoint::FbtReturn(u16::MAX));
}

#[test]
fn no_match_is_a_clear_error() {
    let e = match_probes_with(&desc("fbt::vfs_raed:entry"), Some(&SampleKernel)).unwrap_err();
    assert!(e.message.contains("does not match any kernel function"), "{}", e.message);
    assert!(e.hint.unwrap().contains("`vfs_read`"));
    let e = match_probes_with(&desc("fbt::vfs_read:exit"), Some(&SampleKernel)).unwrap_err();
    assert!(e.message.contains("no probe named `exit`"), "{}", e.message);
    let e = match_probes_with(&desc("fbt:ext5:vfs_read:entry"), Some(&SampleKernel)).unwrap_err();
    assert!(e.message.contains("no kernel module `ext5`"), "{}", e.message);
    assert!(e.hint.unwrap().contains("did you mean `ext4`? (loaded modules with BTF: ext4, tcp_bbr)"));
    let e = match_probes_with(&desc("fbt:ext4:vfs_read:entry"), Some(&SampleKernel)).unwrap_err();
    assert!(e.message.contains("does not match any kernel function"), "{}", e.message);
    let e = match_probes_with(&desc("fbt::vfs_read:entry"), None).unwrap_err();
    assert!(e.message.contains("not available"), "{}", e.message);
}

fn types(s: &str) -> Vec<String> {
    let p = &match_probes_with(&desc(s), Some(&SampleKernel)).unwrap()[0];
    provider("fbt").unwrap().arg_types(p, Some(&SampleKernel)).unwrap().unwrap().into_iter().map(|a| format!("{}/{}{}", a.c_type, a.size, if a.signed { "s" } else { "u" })).collect()
}

#[test]
fn prototypes_type_the_arguments() {
    assert_eq!(types("fbt::vfs_read:entry"), ["struct file */8u", "char */8u", "size_t/8u", "loff_t */8u"]);
    assert_eq!(types("fbt::vfs_read:return"), ["int/4s", "ssize_t/8s"]);
    assert_eq!(types("fbt::vfs_fsync:entry"), ["struct file */8u", "int/4s"]);
    // A void function's return has only the offset.
    assert_eq!(types("fbt::fput:return"), ["int/4s"]);
}

/// A loaded module's functions are fbt probes of the module's name; an empty module field
/// searches vmlinux and every module.
#[test]
fn module_functions() {
    assert_eq!(names("fbt:ext4::entry"), ["fbt:ext4:ext4_file_read_iter:entry", "fbt:ext4:ext4_file_write_iter:entry", "fbt:ext4:ext4_sync_file:entry"]);
    assert_eq!(names("fbt::bbr_init:"), ["fbt:tcp_bbr:bbr_init:entry", "fbt:tcp_bbr:bbr_init:return"]);
    assert_eq!(names("fbt:tcp_*:*:return"), ["fbt:tcp_bbr:bbr_init:return", "fbt:tcp_bbr:bbr_main:return"]);
    assert_eq!(names("fbt::*_read*:entry"), ["fbt:vmlinux:ksys_read:entry", "fbt:vmlinux:vfs_read:entry", "fbt:ext4:ext4_file_read_iter:entry"]);
    assert_eq!(names("kprobe:ext4:ext4_sync_file"), ["fbt:ext4:ext4_sync_file:entry"]);
    // A module function's prototype comes from the module's BTF.
    assert_eq!(types("fbt:ext4:ext4_sync_file:entry"), ["struct file */8u", "int/4s"]);
}
