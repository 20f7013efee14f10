//! pid and uprobe probes: numbering the user-space places a program probes.

use super::*;

/// The most user-space places one program probes: each is a program of its own to load and
/// attach, and two file descriptors.
const MAX_USER_PROBES: usize = 4096;

impl Checker<'_> {
    /// The attach point of a pid or uprobe probe, numbering its place on its first use.
    pub(super) fn user_probe(&mut self, user: &UserProbe, desc: &ast::ProbeDesc) -> Result<AttachPoint, Diagnostic> {
        let i = match self.user_probes.iter().position(|u| u == user) {
            Some(i) => i,
            None if self.user_probes.len() >= MAX_USER_PROBES => {
                return Err(Diagnostic::new(desc.span.clone(), "too many user-space probes in one program")
                    .label(format!("over {MAX_USER_PROBES}"))
                    .hint("narrow the module or function pattern (each function is a probe of its own to attach)"));
            }
            None => {
                self.user_probes.push(user.clone());
                self.user_probes.len() - 1
            }
        };
        Ok(if user.ret { AttachPoint::UserReturn(i as u16) } else { AttachPoint::UserEntry(i as u16) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::sample::{SampleKernel, SAMPLE_PID};
    use std::rc::Rc;

    fn compile(src: &str, target: Option<i64>) -> Result<Program, Diagnostic> {
        crate::compile(src, &CheckOptions { facts: Some(Rc::new(SampleKernel)), target, ..Default::default() })
    }

    #[test]
    fn places_are_numbered_once() {
        let p = compile("pid$target:a.out:work:entry, pid$target:a.out:work:return { @ = count(); } pid42:a.out:work:entry, uretprobe:libc:read { @ = count(); }", Some(SAMPLE_PID as i64)).unwrap();
        let names: Vec<String> = p.user_probes.iter().map(|u| format!("{}:{}:{}:{}", u.provider, u.module, u.function, u.name)).collect();
        assert_eq!(names, ["pid42:sample:work:entry", "pid42:sample:work:return", "uprobe:/lib/x86_64-linux-gnu/libc.so.6:read:return"]);
        let attach: Vec<_> = p.groups.iter().map(|g| g.attach).collect();
        assert_eq!(attach, [AttachPoint::UserEntry(0), AttachPoint::UserReturn(1), AttachPoint::UserReturn(2)]);
        assert_eq!(p.probe_description(crate::providers::USER_ID_BASE + 1), "pid42:sample:work:return");
        assert_eq!(p.probe_name(crate::providers::USER_ID_BASE), ("work".to_string(), "entry".to_string()));
    }

    #[test]
    fn target_must_be_set() {
        let d = compile("pid$target:a.out:work:entry { }", None).unwrap_err();
        assert_eq!(d.message, "$target is not set");
        assert!(d.hint.unwrap().contains("-c CMD"));
    }
}
