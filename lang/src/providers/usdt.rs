//! USDT: the statically defined probes programs carry in `.note.stapsdt` notes
//! (`<sys/sdt.h>`'s DTRACE_PROBE*). DTrace's `PROVIDER$target:MODULE:FUNCTION:NAME` (a
//! provider named after the probes' provider and the process id, `myapp1234` once
//! `$target` is expanded) probes one process's executable and libraries; bpftrace's
//! `usdt:PATH:PROVIDER:NAME` (or `usdt:PATH:NAME`) one file, in every process. They attach
//! as uprobes, at the probe's instruction, with its semaphore counted by the kernel; their
//! arguments are where the note's argument specs say.

use super::{aligned, glob, interned, AttachPoint, Probe, Provider};
use crate::ast::ProbeDesc;
use crate::diag::{closest, Diagnostic};
use crate::facts::user::{UsdtProbe, UserModule};
use crate::facts::KernelFacts;
use crate::ir::UserProbe;
use std::rc::Rc;

pub struct Usdt;

impl Provider for Usdt {
    fn name(&self) -> &'static str {
        "usdt"
    }

    fn doc(&self) -> &'static str {
        "a program's statically defined probes (USDT, .note.stapsdt): PROVIDER$target:MODULE:FUNCTION:NAME in one process, usdt:PATH:PROVIDER:NAME in every process running a file; arguments as the notes locate them"
    }

    fn summary(&self) -> &'static str {
        "usdt (PROVIDER$target)"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["myapp$target:::start", "usdt:/usr/bin/myapp:myapp:start"]
    }

    fn probes(&self) -> Vec<Probe> {
        Vec::new()
    }

    fn describe(&self, desc: &ProbeDesc, facts: Option<&dyn KernelFacts>) -> Option<Result<Vec<Probe>, Diagnostic>> {
        let f: Vec<&str> = desc.fields.iter().map(String::as_str).collect();
        match f.as_slice() {
            ["usdt", path, provider, name] => return Some(file_probes(desc, path, provider, name, facts)),
            ["usdt", path, name] => return Some(file_probes(desc, path, "", name, facts)),
            ["usdt", ..] => {
                return Some(Err(Diagnostic::new(desc.span.clone(), format!("`{}` is not a usdt description", desc.text))
                    .label("expected usdt:PATH:PROVIDER:NAME")
                    .hint("write usdt:/path/to/file:PROVIDER:NAME (or usdt:/path/to/file:NAME)")))
            }
            _ => {}
        }
        // PROVIDERpid: a process that exists claims it; anything else is left to the
        // others (and is an unknown provider there).
        let prov = f.first()?;
        let digits = prov.len() - prov.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (provider, pid) = prov.split_at(prov.len() - digits);
        if digits == 0 || provider.is_empty() || !provider.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || super::provider(provider).is_some() {
            return None;
        }
        let pid: u32 = pid.parse().ok()?;
        let modules = facts?.process_modules(pid).ok()?;
        Some(process_probes(desc, provider, pid, &modules))
    }
}

/// `PROVIDERpid:MODULE:FUNCTION:NAME`.
fn process_probes(desc: &ProbeDesc, provider: &str, pid: u32, modules: &[UserModule]) -> Result<Vec<Probe>, Diagnostic> {
    let Some([_, module, func, name]) = aligned(desc) else {
        return Err(Diagnostic::new(desc.span.clone(), "too many fields in probe description").label("here").hint("a USDT probe is PROVIDER$target:MODULE:FUNCTION:NAME"));
    };
    let (m, f, n) = (glob(module, desc)?, glob(func, desc)?, glob(name, desc)?);
    let ok = |g: &Option<globset::GlobMatcher>, s: &str| g.as_ref().is_none_or(|g| g.is_match(s));
    let has_provider = modules.iter().any(|md| md.usdt.iter().any(|p| p.provider == provider));
    if !has_provider {
        let providers: Vec<&str> = modules.iter().flat_map(|md| md.usdt.iter().map(|p| p.provider.as_str())).collect();
        let hint = match closest(provider, providers.iter().copied()) {
            Some(c) => format!("did you mean `{c}`?"),
            None if providers.is_empty() => format!("process {pid}'s executable and libraries have no USDT probes (.note.stapsdt)"),
            None => format!("its USDT providers: {}", dedup(providers).join(", ")),
        };
        return Err(Diagnostic::new(desc.span.clone(), format!("process {pid} has no USDT provider `{provider}`")).label("no such USDT provider").hint(hint));
    }
    let prov = interned(&format!("{provider}{pid}"));
    let mut out = Vec::new();
    for md in modules.iter().filter(|md| ok(&m, &md.name) || (md.executable && ok(&m, "a.out"))) {
        for p in md.usdt.iter().filter(|p| p.provider == provider && ok(&f, &p.function) && ok(&n, &p.name)) {
            out.push(probe(prov, interned(&md.name), md, p, Some(pid)));
        }
    }
    if out.is_empty() {
        return Err(no_match(desc, modules.iter().flat_map(|md| md.usdt.iter().filter(|p| p.provider == provider)), name));
    }
    Ok(out)
}

/// `usdt:PATH:PROVIDER:NAME`.
fn file_probes(desc: &ProbeDesc, path: &str, provider: &str, name: &str, facts: Option<&dyn KernelFacts>) -> Result<Vec<Probe>, Diagnostic> {
    let Some(facts) = facts else {
        return Err(Diagnostic::new(desc.span.clone(), "usdt probes are not available here").label("needs the file").hint("usdt probes are read from the file's .note.stapsdt notes"));
    };
    let md = facts.user_module(path).map_err(|e| Diagnostic::new(desc.span.clone(), format!("cannot read the USDT probes of {path}: {e}")).label("this file").hint("usdt:PATH names an ELF executable or shared library by its path, or a library by its name (libc)"))?;
    let (pg, ng) = (glob(provider, desc)?, glob(name, desc)?);
    let ok = |g: &Option<globset::GlobMatcher>, s: &str| g.as_ref().is_none_or(|g| g.is_match(s));
    let module = interned(&md.path);
    let out: Vec<Probe> = md.usdt.iter().filter(|p| ok(&pg, &p.provider) && ok(&ng, &p.name)).map(|p| probe(interned(&p.provider), module, &md, p, None)).collect();
    if out.is_empty() {
        if md.usdt.is_empty() {
            return Err(Diagnostic::new(desc.span.clone(), format!("{path} has no USDT probes")).label("no .note.stapsdt notes").hint("USDT probes are compiled into a program with <sys/sdt.h>'s DTRACE_PROBE* macros"));
        }
        return Err(no_match(desc, md.usdt.iter(), name));
    }
    Ok(out)
}

fn dedup(mut v: Vec<&str>) -> Vec<&str> {
    v.sort_unstable();
    v.dedup();
    v
}

fn no_match<'a>(desc: &ProbeDesc, probes: impl Iterator<Item = &'a UsdtProbe>, name: &str) -> Diagnostic {
    let names = dedup(probes.map(|p| p.name.as_str()).collect());
    let hint = match closest(name, names.iter().copied()) {
        Some(c) => format!("did you mean `{c}`?"),
        None => format!("its probes: {}", names.join(", ")),
    };
    Diagnostic::new(desc.span.clone(), format!("probe description `{}` does not match any USDT probe", desc.text)).label("matches nothing").hint(hint)
}

fn probe(provider: &'static str, module: &'static str, md: &UserModule, p: &UsdtProbe, pid: Option<u32>) -> Probe {
    let (function, name) = (interned(&p.function), interned(&p.name));
    let user = UserProbe { provider: provider.into(), module: module.into(), function: p.function.clone(), name: p.name.clone(), path: md.path.clone(), offset: p.offset, ret: false, pid, semaphore: p.semaphore, usdt_args: p.args.clone() };
    Probe { id: 0, provider, module, function, name, attach: AttachPoint::UserEntry(u16::MAX), nr: None, user: Some(Rc::new(user)), spelled: "" }
}

#[cfg(test)]
mod tests {
    use super::super::match_probes_with;
    use super::*;
    use crate::facts::sample::SampleKernel;

    fn desc(s: &str) -> ProbeDesc {
        ProbeDesc { text: s.into(), fields: s.split(':').map(String::from).collect(), span: 0..s.len() }
    }

    fn names(s: &str) -> Vec<String> {
        match_probes_with(&desc(s), Some(&SampleKernel)).unwrap_or_else(|d| panic!("{s}: {} {:?}", d.message, d.hint)).iter().map(|p| format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name)).collect()
    }

    fn error(s: &str) -> (String, String) {
        let d = match_probes_with(&desc(s), Some(&SampleKernel)).unwrap_err();
        (d.message, d.hint.unwrap_or_default())
    }

    #[test]
    fn both_spellings() {
        assert_eq!(names("sample42:::"), ["sample42:sample:main:start", "sample42:sample:work:tick"]);
        assert_eq!(names("sample42:a.out:main:start"), ["sample42:sample:main:start"]);
        assert_eq!(names("usdt:/usr/bin/sample:sample:tick"), ["sample:/usr/bin/sample:work:tick"]);
        assert_eq!(names("usdt:/usr/bin/sample:st*"), ["sample:/usr/bin/sample:main:start"]);
        let p = &match_probes_with(&desc("sample42:::tick"), Some(&SampleKernel)).unwrap()[0];
        let u = p.user.as_ref().unwrap();
        assert_eq!((u.offset, u.semaphore, u.pid, u.usdt_args.len()), (0x1190, 0x3020, Some(42), 1));
    }

    #[test]
    fn errors() {
        let (m, h) = error("sampel42:::start");
        assert!(m.contains("no USDT provider `sampel`") && h.contains("did you mean `sample`"), "{m} / {h}");
        let (m, h) = error("sample42:::strat");
        assert!(m.contains("does not match any USDT probe") && h.contains("did you mean `start`"), "{m} / {h}");
        let (m, _) = error("usdt:/lib/x86_64-linux-gnu/libc.so.6:x:y");
        assert!(m.contains("has no USDT probes"), "{m}");
        // Not a process: an unknown provider, as before.
        let (m, _) = error("sample43:::start");
        assert!(m.contains("unknown provider"), "{m}");
    }
}
