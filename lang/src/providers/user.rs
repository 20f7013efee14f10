//! User-space functions: DTrace's `pidNNN:MODULE:FUNCTION:entry|return|OFFSET` (`pid$target`
//! once the macro is expanded) and bpftrace's `uprobe:PATH:FUNCTION` / `uretprobe:PATH:FUNCTION`.
//! A pid probe's modules are the process's executable (`a.out` names it too) and shared
//! libraries, matched by file name; a uprobe's is the one file its path names, and it fires
//! in every process that runs it. Functions are the files' ELF symbols, demangled; reading
//! them is the runtime's (the facts' `process_modules` and `user_module`).

use super::{aligned, glob, interned, AttachPoint, Probe, Provider};
use crate::ast::ProbeDesc;
use crate::diag::{closest, Diagnostic};
use crate::facts::user::{UserFunction, UserModule};
use crate::facts::KernelFacts;
use crate::ir::UserProbe;
use std::rc::Rc;

/// Probe ids of pid and uprobe probes: this base plus the probe's index in the program.
pub const USER_ID_BASE: u32 = 1 << 20;

/// DTrace's name for a process's executable, whatever its file is called.
const EXECUTABLE: &str = "a.out";

pub struct Pid;
pub struct Uprobe;

impl Provider for Pid {
    fn name(&self) -> &'static str {
        "pid"
    }

    fn doc(&self) -> &'static str {
        "user-space functions of one process, pidPID:MODULE:FUNCTION:entry|return|OFFSET (pid$target for the -c or -p process); MODULE is a file name (libc.so.6, a.out for the executable)"
    }

    fn summary(&self) -> &'static str {
        "pidPID (pid$target)"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["pid$target:a.out:main:entry", "pid$target:libc.so.6:read:return"]
    }

    /// None listed statically: they are a process's.
    fn probes(&self) -> Vec<Probe> {
        Vec::new()
    }

    fn describe(&self, desc: &ProbeDesc, facts: Option<&dyn KernelFacts>) -> Option<Result<Vec<Probe>, Diagnostic>> {
        let prov = desc.fields.first()?;
        let digits = prov.strip_prefix("pid")?;
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(pid_probes(desc, digits, facts))
    }
}

impl Provider for Uprobe {
    fn name(&self) -> &'static str {
        "uprobe"
    }

    fn doc(&self) -> &'static str {
        "entry to and return from user-space functions in every process running a file, uprobe:PATH:FUNCTION and uretprobe:PATH:FUNCTION (bpftrace's spelling; PATH may be a library's name, libc)"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["uprobe:/bin/bash:readline", "uretprobe:libc:getpid"]
    }

    fn probes(&self) -> Vec<Probe> {
        Vec::new()
    }

    fn describe(&self, desc: &ProbeDesc, facts: Option<&dyn KernelFacts>) -> Option<Result<Vec<Probe>, Diagnostic>> {
        let f: Vec<&str> = desc.fields.iter().map(String::as_str).collect();
        let (ret, path, func) = match f.as_slice() {
            ["uprobe", path, func] | ["uprobe", path, func, ""] => (false, *path, *func),
            ["uretprobe", path, func] | ["uretprobe", path, func, ""] => (true, *path, *func),
            ["uprobe" | "uretprobe", ..] => {
                return Some(Err(Diagnostic::new(desc.span.clone(), format!("`{}` is not a uprobe description", desc.text))
                    .label("expected uprobe:PATH:FUNCTION")
                    .hint("write uprobe:/path/to/file:FUNCTION or uretprobe:/path/to/file:FUNCTION (a library's name such as libc for PATH too)")))
            }
            _ => return None,
        };
        Some(uprobes(desc, ret, path, func, facts))
    }
}

/// What a uprobe's function part names, as bpftrace reads it: functions (a glob), an
/// instruction `+N` bytes into them, or an address in the file's layout (a number).
enum Place<'a> {
    Functions(&'a str),
    Offset(&'a str, u64),
    Address(u64),
}

fn place<'a>(desc: &ProbeDesc, ret: bool, func: &'a str) -> Result<Place<'a>, Diagnostic> {
    let err = |msg: String, label: &str, hint: &str| Err(Diagnostic::new(desc.span.clone(), msg).label(label).hint(hint));
    if let Some(address) = super::spelling::number(func) {
        return Ok(Place::Address(address));
    }
    let Some((name, offset)) = func.split_once('+') else { return Ok(Place::Functions(func)) };
    if ret {
        return err(format!("`{func}`: a uretprobe has no offset"), "offset not allowed", "a uretprobe fires where the function returns; an offset names an instruction for a uprobe: uprobe:PATH:FUNCTION+N");
    }
    if offset.contains('+') {
        return err(format!("`{func}` has more than one offset"), "one offset at most", "write uprobe:PATH:FUNCTION+N, N bytes into the function (decimal or 0x hex)");
    }
    match super::spelling::number(offset) {
        Some(n) if !name.is_empty() => Ok(Place::Offset(name, n)),
        _ => err(format!("`{func}` is not a function and an offset"), "bad offset", "write uprobe:PATH:FUNCTION+N, N bytes into the function (decimal or 0x hex), e.g. uprobe:/bin/bash:readline+4"),
    }
}

/// The probes of `pidNNN:MODULE:FUNCTION:NAME`.
fn pid_probes(desc: &ProbeDesc, digits: &str, facts: Option<&dyn KernelFacts>) -> Result<Vec<Probe>, Diagnostic> {
    let err = |msg: String, label: &str, hint: &str| Err(Diagnostic::new(desc.span.clone(), msg).label(label).hint(hint));
    let Some(pid) = digits.parse::<u32>().ok().filter(|p| *p > 0) else {
        return err(format!("`{}` names no process", desc.fields[0]), "needs a process id", "pid probes name a process: pid$target (the -c or -p process) or pidPID, e.g. pid1234:libc.so.6:read:entry");
    };
    let Some([_, module, func, name]) = aligned(desc) else {
        return err("too many fields in probe description".into(), "here", "a pid probe is pidPID:MODULE:FUNCTION:NAME");
    };
    let Some(facts) = facts else {
        return err("pid probes are not available here".into(), "needs the process's files", "pid probes are read from the process's executable and libraries");
    };
    let modules = facts.process_modules(pid).map_err(|e| Diagnostic::new(desc.span.clone(), format!("cannot read the functions of process {pid}: {e}")).label("in this process").hint("pid probes name a running process: check the pid, or use pid$target with -c CMD or -p PID"))?;
    let provider = interned(&format!("pid{pid}"));
    let is_match = glob(module, desc)?;
    let chosen: Vec<&UserModule> = modules.iter().filter(|m| is_match.as_ref().is_none_or(|g| g.is_match(&m.name) || (m.executable && g.is_match(EXECUTABLE)))).collect();
    if chosen.is_empty() {
        let names: Vec<&str> = std::iter::once(EXECUTABLE).chain(modules.iter().map(|m| m.name.as_str())).collect();
        let hint = match closest(module, names.iter().copied()) {
            Some(c) => format!("did you mean `{c}`? process {pid}'s modules: {}", names.join(", ")),
            None => format!("process {pid}'s modules: {}", names.join(", ")),
        };
        return Err(Diagnostic::new(desc.span.clone(), format!("process {pid} has no module `{module}`")).label("no such module").hint(hint));
    }
    places(desc, provider, &chosen, func, name, Some(pid), |m| interned(&m.name))
}

/// The probes of `uprobe:PATH:FUNCTION` (`ret`: uretprobe).
fn uprobes(desc: &ProbeDesc, ret: bool, path: &str, func: &str, facts: Option<&dyn KernelFacts>) -> Result<Vec<Probe>, Diagnostic> {
    let Some(facts) = facts else {
        return Err(Diagnostic::new(desc.span.clone(), "uprobe probes are not available here").label("needs the file").hint("uprobe probes are read from the file's symbols"));
    };
    if path.is_empty() {
        return Err(Diagnostic::new(desc.span.clone(), "a uprobe needs a file").label("no path").hint("write uprobe:/path/to/file:FUNCTION (or a library's name: uprobe:libc:getpid)"));
    }
    let module = facts.user_module(path).map_err(|e| Diagnostic::new(desc.span.clone(), format!("cannot read the functions of {path}: {e}")).label("this file").hint("a uprobe names an ELF executable or shared library by its path, or a library by its name (libc)"))?;
    let (func, name) = match place(desc, ret, func)? {
        Place::Functions(func) => (func, if ret { "return".to_string() } else { "entry".to_string() }),
        Place::Offset(func, 0) => (func, "entry".to_string()),
        Place::Offset(func, n) => (func, format!("{n:x}")),
        Place::Address(address) => {
            let Some(f) = module.functions.iter().find(|f| f.address <= address && address < f.address + f.size.max(1)) else {
                return Err(Diagnostic::new(desc.span.clone(), format!("could not resolve address {path}:{address:#x}"))
                    .label("in no function")
                    .hint("an address names a place in one of the file's functions, as `nm` shows their addresses"));
            };
            let kind = match (address - f.address, ret) {
                (0, true) => Kind::Return,
                (0, false) => Kind::Entry,
                (at, false) => Kind::Offset(at),
                (at, true) => {
                    return Err(Diagnostic::new(desc.span.clone(), format!("a uretprobe cannot be at an offset: {address:#x} is {}+{at}", f.name))
                        .label("not a function's start")
                        .hint("a uretprobe names a function, or the address where it starts"))
                }
            };
            return Ok(vec![probe(desc, "uprobe", interned(&module.path), &module, f, &kind, None)?]);
        }
    };
    places(desc, "uprobe", &[&module], func, &name, None, |m| interned(&m.path))
}

/// The probes named `name` (entry, return, a hex offset, or a glob over entry and return) of
/// the functions matching `func` in `modules`.
fn places(desc: &ProbeDesc, provider: &'static str, modules: &[&UserModule], func: &str, name: &str, pid: Option<u32>, module_name: impl Fn(&UserModule) -> &'static str) -> Result<Vec<Probe>, Diagnostic> {
    let names = probe_names(desc, name)?;
    let is_match = glob(func, desc)?;
    let mut out = Vec::new();
    let mut matched_any = false;
    for m in modules {
        for f in m.functions.iter().filter(|f| is_match.as_ref().is_none_or(|g| g.is_match(&f.name))) {
            matched_any = true;
            for kind in &names {
                out.push(probe(desc, provider, module_name(m), m, f, kind, pid)?);
            }
        }
    }
    if !matched_any {
        let all = modules.iter().flat_map(|m| m.functions.iter().map(|f| f.name.as_str()));
        let wheres: Vec<&str> = modules.iter().map(|m| m.name.as_str()).collect();
        let hint = match closest(func, all) {
            Some(c) => format!("did you mean `{c}`?"),
            None => format!("list the functions with `crumbs -l -e '{}'` (globs too)", list_pattern(desc)),
        };
        return Err(Diagnostic::new(desc.span.clone(), format!("no function `{func}` in {}", wheres.join(", "))).label("matches no function").hint(hint));
    }
    Ok(out)
}

/// The description with its function and name left open, for a hint.
fn list_pattern(desc: &ProbeDesc) -> String {
    let f = &desc.fields;
    match f.first().map(String::as_str) {
        Some("uprobe" | "uretprobe") => format!("{}:{}:*", f[0], f.get(1).map_or("", String::as_str)),
        _ => aligned(desc).map_or_else(|| desc.text.clone(), |[p, m, _, _]| format!("{p}:{m}::")),
    }
}

/// What a probe's name field asks for.
enum Kind {
    Entry,
    Return,
    /// An instruction this many bytes into the function.
    Offset(u64),
}

fn probe_names(desc: &ProbeDesc, name: &str) -> Result<Vec<Kind>, Diagnostic> {
    match name {
        "entry" => return Ok(vec![Kind::Entry]),
        "return" => return Ok(vec![Kind::Return]),
        _ => {}
    }
    let hex = name.strip_prefix("0x").unwrap_or(name);
    if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return u64::from_str_radix(hex, 16).map(|o| vec![Kind::Offset(o)]).map_err(|_| Diagnostic::new(desc.span.clone(), format!("offset `{name}` is too large")).label("here").hint("an offset probe names an instruction's offset in the function, in hex"));
    }
    let g = glob(name, desc)?;
    let kinds: Vec<Kind> = [Kind::Entry, Kind::Return].into_iter().filter(|k| g.as_ref().is_none_or(|g| g.is_match(if matches!(k, Kind::Entry) { "entry" } else { "return" }))).collect();
    if kinds.is_empty() {
        return Err(Diagnostic::new(desc.span.clone(), format!("no user-space probe is named `{name}`"))
            .label("not entry, return or an offset")
            .hint("a pid probe's name is entry, return or an instruction's offset in the function in hex (pid$target:a.out:main:1a)"));
    }
    Ok(kinds)
}

fn probe(desc: &ProbeDesc, provider: &'static str, module: &'static str, m: &UserModule, f: &UserFunction, kind: &Kind, pid: Option<u32>) -> Result<Probe, Diagnostic> {
    let (name, at, ret) = match kind {
        Kind::Entry => ("entry".to_string(), 0, false),
        Kind::Return => ("return".to_string(), 0, true),
        Kind::Offset(o) => {
            if f.size > 0 && *o >= f.size {
                return Err(Diagnostic::new(desc.span.clone(), format!("offset {o:#x} is past the end of {} ({} bytes)", f.name, f.size))
                    .label("not in the function")
                    .hint("an offset probe names an instruction in the function, in hex, as `objdump -d` shows it"));
            }
            (format!("{o:x}"), *o, false)
        }
    };
    let function = interned(&f.name);
    let name = interned(&name);
    let user = UserProbe { provider: provider.to_string(), module: module.to_string(), function: f.name.clone(), name: name.to_string(), path: m.path.clone(), offset: f.offset + at, ret, pid, semaphore: 0, usdt_args: Vec::new() };
    let attach = if ret { AttachPoint::UserReturn(u16::MAX) } else { AttachPoint::UserEntry(u16::MAX) };
    Ok(Probe { id: 0, provider, module, function, name, attach, nr: None, user: Some(Rc::new(user)), spelled: "" })
}

/// The values of the macro variables a probe description may name.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProbeMacros<'a> {
    /// `$target`: the -c or -p process.
    pub target: Option<i64>,
    /// `$0` (the script's name) and `$1`, `$2`, ...: the words after the program.
    pub args: &'a [String],
    /// bpftrace reads a `$N` that is not given as empty; D refuses it.
    pub bpftrace: bool,
}

/// `desc` with its macro variables expanded where they are written outside quotes:
/// `$target` (the -c or -p process) in `pid$target:...` and USDT providers, and the
/// positional parameters `$1`, `$2`, ... anywhere (`interval:ms:$1`, `uprobe:$1:readline`),
/// each by its text inside its field, as bpftrace substitutes them.
pub fn expand_macros<'d>(desc: &'d ProbeDesc, macros: &ProbeMacros) -> Result<std::borrow::Cow<'d, ProbeDesc>, Diagnostic> {
    if !desc.text.contains('$') {
        return Ok(std::borrow::Cow::Borrowed(desc));
    }
    let fields = super::spelling::fields(&desc.text, &desc.span, &mut |name, at| macro_value(name, at, macros).map(Some))?;
    Ok(std::borrow::Cow::Owned(ProbeDesc { text: fields.join(":"), fields, span: desc.span.clone() }))
}

/// The text of macro variable `$name` (written at `at`) in a probe description.
fn macro_value(name: &str, at: crate::ast::Span, macros: &ProbeMacros) -> Result<String, Diagnostic> {
    if name == "target" {
        return match macros.target {
            Some(pid) => Ok(pid.to_string()),
            None => Err(Diagnostic::new(at, "$target is not set")
                .label("needs a target process")
                .hint("run the program with -c CMD (crumbs starts it) or -p PID (a running process); $target is its pid")),
        };
    }
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()) {
        let n: usize = name.parse().unwrap_or(usize::MAX);
        return match macros.args.get(n) {
            Some(v) => Ok(v.clone()),
            None if macros.bpftrace => Ok(String::new()),
            None => Err(Diagnostic::new(at, format!("macro argument `${name}` is not given"))
                .label("no such argument")
                .hint(format!("pass {} argument(s) after the script: crumbs -s script.d ARG...", n.max(1)))),
        };
    }
    Err(Diagnostic::new(at, format!("`${name}` cannot be used in a probe description"))
        .label("not expanded here")
        .hint("probe descriptions expand $target (pid$target:...), the -c or -p process, and the positional parameters $1, $2, ..."))
}

#[cfg(test)]
mod tests;
