use super::super::match_probes_with;
use super::*;
use crate::facts::sample::SampleKernel;

fn desc(s: &str) -> ProbeDesc {
    ProbeDesc { text: s.into(), fields: s.split(':').map(String::from).collect(), span: 0..s.len() }
}

fn names(s: &str) -> Vec<String> {
    match_probes_with(&desc(s), Some(&SampleKernel)).unwrap_or_else(|d| panic!("{s}: {}", d.message)).iter().map(|p| format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name)).collect()
}

fn error(s: &str) -> (String, String) {
    let d = match_probes_with(&desc(s), Some(&SampleKernel)).unwrap_err();
    (d.message, d.hint.unwrap_or_default())
}

#[test]
fn pid_descriptions_match_modules_and_functions() {
    assert_eq!(names("pid42:a.out:main:entry"), ["pid42:sample:main:entry"]);
    assert_eq!(names("pid42:sample:w*:"), ["pid42:sample:work:entry", "pid42:sample:work:return"]);
    assert_eq!(names("pid42:libc*:getpid:return"), ["pid42:libc.so.6:getpid:return"]);
    assert_eq!(names("pid42::read:entry"), ["pid42:libc.so.6:read:entry"]);
    assert_eq!(names("pid42:a.out:Shape??area*:entry"), ["pid42:sample:Shape::area() const:entry"]);
    assert_eq!(names("pid42:a.out:main:1a"), ["pid42:sample:main:1a"]);
    let p = &match_probes_with(&desc("pid42:a.out:main:0x1a"), Some(&SampleKernel)).unwrap()[0];
    let u = p.user.as_ref().unwrap();
    assert_eq!((u.path.as_str(), u.offset, u.ret, u.pid), ("/usr/bin/sample", 0x111a, false, Some(42)));
    let p = &match_probes_with(&desc("pid42:libc.so.6:read:return"), Some(&SampleKernel)).unwrap()[0];
    assert_eq!(p.attach, AttachPoint::UserReturn(u16::MAX));
}

#[test]
fn uprobe_spellings() {
    assert_eq!(names("uprobe:/usr/bin/sample:work"), ["uprobe:/usr/bin/sample:work:entry"]);
    assert_eq!(names("uretprobe:libc:getpid"), ["uprobe:/lib/x86_64-linux-gnu/libc.so.6:getpid:return"]);
    let p = &match_probes_with(&desc("uprobe:/usr/bin/sample:work"), Some(&SampleKernel)).unwrap()[0];
    assert_eq!(p.user.as_ref().unwrap().pid, None);
}

#[test]
fn errors_say_what_is_missing() {
    let (m, h) = error("pid43:a.out:main:entry");
    assert!(m.contains("process 43") && h.contains("pid$target"), "{m} / {h}");
    let (m, h) = error("pid42:libc.so.7:read:entry");
    assert!(m.contains("no module `libc.so.7`") && h.contains("did you mean `libc.so.6`"), "{m} / {h}");
    let (m, h) = error("pid42:a.out:mian:entry");
    assert!(m.contains("no function `mian`") && h.contains("did you mean `main`"), "{m} / {h}");
    let (m, _) = error("pid42:a.out:main:exit");
    assert!(m.contains("no user-space probe is named `exit`"), "{m}");
    let (m, _) = error("pid42:a.out:work:40");
    assert!(m.contains("past the end of work"), "{m}");
    let (m, _) = error("uprobe:/no/such:main");
    assert!(m.contains("cannot read the functions of /no/such"), "{m}");
    let (m, _) = error("pid:a.out:main:entry");
    assert!(m.contains("names no process"), "{m}");
}

#[test]
fn target_is_expanded() {
    let d = desc("pid$target:a.out:main:entry");
    let target = |pid| ProbeMacros { target: pid, ..ProbeMacros::default() };
    assert_eq!(expand_macros(&d, &target(Some(42))).unwrap().fields[0], "pid42");
    let e = expand_macros(&d, &target(None)).unwrap_err();
    assert_eq!(e.message, "$target is not set");
    assert_eq!(e.span, 3..10);
    let e = expand_macros(&desc("pid$pid:a.out:main:entry"), &target(Some(42))).unwrap_err();
    assert_eq!((e.message.as_str(), e.span), ("`$pid` cannot be used in a probe description", 3..7));
}

#[test]
fn positional_parameters_are_expanded() {
    let args = vec!["script".to_string(), "100".to_string(), "/bin/bash".to_string()];
    let d = ProbeMacros { target: None, args: &args, bpftrace: true };
    assert_eq!(expand_macros(&desc("interval:ms:$1"), &d).unwrap().fields, ["interval", "ms", "100"]);
    let written = desc("uprobe:$2:readline");
    let e = expand_macros(&written, &d).unwrap();
    assert_eq!((e.fields[1].as_str(), e.text.as_str()), ("/bin/bash", "uprobe:/bin/bash:readline"));
    // Not given: empty in bpftrace, an error in D.
    assert_eq!(expand_macros(&desc("interval:ms:$3"), &d).unwrap().fields[2], "");
    let e = expand_macros(&desc("syscall::$3:entry"), &ProbeMacros { bpftrace: false, ..d }).unwrap_err();
    assert_eq!((e.message.as_str(), e.span), ("macro argument `$3` is not given", 9..11));
    assert_eq!(expand_macros(&desc("syscall::$2:entry"), &ProbeMacros { bpftrace: false, ..d }).unwrap().fields[2], "/bin/bash");
}
