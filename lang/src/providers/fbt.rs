//! `fbt:MODULE:FUNCTION:entry|return`, DTrace's function boundary tracing: the entry to and
//! return from kernel functions, listed through the kernel facts (BTF). bpftrace's
//! `kprobe:FUNC`, `kretprobe:FUNC` (and `kprobe:MODULE:FUNC`, `kprobe::FUNC:`), and its
//! `kfunc:FUNC`/`fentry:FUNC` for entries and `kretfunc:FUNC`/`fexit:FUNC` for returns, name
//! the same probes. How a probe is attached (kprobe, kprobe.multi or fentry) is the back
//! end's choice: the attach points say only entry or return.

use super::{glob, interned, ArgType, AttachPoint, Probe, Provider};
use crate::ast::ProbeDesc;
use crate::diag::{closest, Diagnostic};
use crate::facts::{KernelFacts, KernelType, KernelTypeId};
use crate::types::AddrSpace;
use std::rc::Rc;

/// Probe ids of fbt probes: this base plus twice the function's index in the program (plus
/// one for its return).
pub const FBT_ID_BASE: u32 = 1 << 17;
/// The module of the kernel's own functions; a loaded module's functions are in the module
/// of its name (`ext4`), where it has BTF.
pub const FBT_MODULE: &str = "vmlinux";

pub struct Fbt;

impl Provider for Fbt {
    fn name(&self) -> &'static str {
        "fbt"
    }

    fn doc(&self) -> &'static str {
        "entry to and return from kernel functions, fbt:MODULE:FUNCTION:entry|return (vmlinux or a loaded module; bpftrace's kprobe:FUNCTION and kretprobe:FUNCTION too), with args[N] typed from BTF"
    }

    fn examples(&self) -> &'static [&'static str] {
        &["fbt::vfs_read:entry", "kretprobe:vfs_read"]
    }

    /// None listed statically: they are the running kernel's.
    fn probes(&self) -> Vec<Probe> {
        Vec::new()
    }

    fn describe(&self, desc: &ProbeDesc, facts: Option<&dyn KernelFacts>) -> Option<Result<Vec<Probe>, Diagnostic>> {
        let f: Vec<&str> = desc.fields.iter().map(String::as_str).collect();
        let (module, func, names): (&str, &str, &str) = match f.as_slice() {
            ["fbt", module, func, name] => (module, func, name),
            ["kprobe" | "kfunc" | "fentry", func] => ("", func, "entry"),
            ["kretprobe" | "kretfunc" | "fexit", func] => ("", func, "return"),
            ["kprobe" | "kfunc" | "fentry", module, func] | ["kprobe", module, func, ""] => (module, func, "entry"),
            ["kretprobe" | "kretfunc" | "fexit", module, func] | ["kretprobe", module, func, ""] => (module, func, "return"),
            _ => return None,
        };
        // bpftrace's `kprobe:FUNCTION+N`: a kprobe N bytes into the function.
        if let Some((function, offset)) = func.split_once('+') {
            return Some(at_offset(desc, f[0], module, function, offset, names, facts));
        }
        if let Some(addr) = super::spelling::number(func) {
            return Some(at_address(desc, f[0], module, addr, names, facts));
        }
        Some(match_functions(desc, module, func, names, facts))
    }

    /// Entry: the function's parameters, from its BTF prototype. Return: DTrace's: `args[0]`
    /// is the offset of the returning instruction (an `int`), `args[1]` the return value of
    /// the function's return type (none for a void function).
    fn arg_types(&self, probe: &Probe, facts: Option<&dyn KernelFacts>) -> Option<Result<Vec<ArgType>, String>> {
        let facts = facts?;
        let found = if probe.module == FBT_MODULE { facts.kernel_function(probe.function) } else { facts.module_function(probe.module, probe.function) };
        let proto = match found {
            Ok(Some(id)) => id,
            Ok(None) => return None,
            Err(e) => return Some(Err(e)),
        };
        Some(prototype(facts, proto, probe.name == "return"))
    }

    /// Entry: the names of the function's parameters (`args.file`), where its prototype
    /// names them all. Return: none (its args[] are DTrace's).
    fn arg_names(&self, probe: &Probe, facts: Option<&dyn KernelFacts>) -> Option<Vec<String>> {
        let facts = facts?;
        if probe.name == "return" {
            return None;
        }
        let found = if probe.module == FBT_MODULE { facts.kernel_function(probe.function) } else { facts.module_function(probe.module, probe.function) };
        let KernelType::Function { params, .. } = facts.kernel_type(found.ok()??).ok()? else { return None };
        let names: Vec<String> = params.into_iter().filter(|(name, id)| !(name.is_empty() && *id == 0)).map(|(name, _)| name).collect();
        (!names.iter().any(String::is_empty)).then_some(names)
    }

    fn no_match_hint(&self, _: [&str; 4]) -> Option<String> {
        Some("fbt probes name kernel functions: fbt::FUNCTION:entry or fbt::FUNCTION:return (globs too, fbt::vfs_*:entry); list them with `crumbs -l -e 'fbt::PATTERN:'`".into())
    }
}

/// `kprobe:FUNCTION+N` (`kprobe:MODULE:FUNCTION+N`): a kprobe N bytes into one named
/// function, its probe named by the offset in hex (`fbt:vmlinux:vfs_read:4`); `+0` is its
/// entry. The kernel refuses a place that does not start an instruction, when it attaches.
fn at_offset(desc: &ProbeDesc, kind: &str, module: &str, function: &str, offset: &str, names: &str, facts: Option<&dyn KernelFacts>) -> Result<Vec<Probe>, Diagnostic> {
    let span = || desc.span.clone();
    if kind != "kprobe" {
        let hint = if names == "return" { format!("a return probe fires where the function returns: name the function alone, {kind}:{function}") } else { format!("a kprobe takes an offset: kprobe:{function}+{offset}") };
        return Err(Diagnostic::new(span(), format!("{kind} probes take no offset")).label("offset").hint(hint));
    }
    let Some(n) = super::spelling::number(offset) else {
        return Err(Diagnostic::new(span(), format!("`{offset}` is not an offset")).label("not a number").hint(format!("write kprobe:{function}+N, N a number of bytes (4, 0x10)")));
    };
    if function.is_empty() || function.contains(['*', '?', '[']) {
        return Err(Diagnostic::new(span(), "an offset needs one function, not a pattern").label("not one function").hint("name the function: kprobe:vfs_read+4"));
    }
    let found = match_functions(desc, module, function, "entry", facts)?;
    if n == 0 {
        return Ok(found);
    }
    let at = interned(&format!("{n:x}"));
    Ok(found.into_iter().map(|p| Probe { name: at, ..p }).collect())
}

/// `kprobe:ADDRESS` (`kprobe:MODULE:ADDRESS`, `kretprobe:ADDRESS`): the kernel function
/// whose text holds the address, from /proc/kallsyms when compiling, and the offset in it:
/// `kprobe:vfs_read+4` where vfs_read starts 4 bytes before. A return probe's address is
/// a function's start. (Unsafe: the checker asks for --unsafe, as bpftrace does.)
fn at_address(desc: &ProbeDesc, kind: &str, module: &str, addr: u64, names: &str, facts: Option<&dyn KernelFacts>) -> Result<Vec<Probe>, Diagnostic> {
    let span = || desc.span.clone();
    if !matches!(kind, "kprobe" | "kretprobe") {
        return Err(Diagnostic::new(span(), format!("{kind} probes name a function, not an address")).label("address").hint(format!("probe an address with kprobe:0x{addr:x}, or name the function: {kind}:FUNCTION")));
    }
    let Some(facts) = facts else {
        return Err(Diagnostic::new(span(), "kernel probes are not available here").label("needs the kernel's symbols").hint("an address is found in the running kernel's /proc/kallsyms"));
    };
    let found = facts.kernel_text_at(addr).map_err(|e| Diagnostic::new(span(), format!("cannot find the function at 0x{addr:x}: {e}")).label("address").hint("an address is found in /proc/kallsyms, which shows addresses to root"))?;
    let Some((in_module, function, offset)) = found else {
        return Err(Diagnostic::new(span(), format!("no kernel function holds address 0x{addr:x}")).label("not in the kernel's text").hint("give an address in a function's code, as /proc/kallsyms lists them (a `t` or `T` symbol)"));
    };
    if !module.is_empty() && module != in_module {
        return Err(Diagnostic::new(span(), format!("address 0x{addr:x} is in {in_module}'s {function}, not in {module}")).label("another module").hint(format!("write {kind}:{in_module}:0x{addr:x}, or {kind}:0x{addr:x}")));
    }
    if names == "return" && offset != 0 {
        return Err(Diagnostic::new(span(), format!("address 0x{addr:x} is {offset} bytes into {function}: a return probe is on a function's start"))
            .label("not a function's start")
            .hint(format!("write kretprobe:0x{:x} (or kretprobe:{function}), or kprobe:0x{addr:x} for that instruction", addr - offset)));
    }
    let probes = match_functions(desc, &in_module, &function, names, Some(facts)).map_err(|d| {
        Diagnostic::new(span(), format!("address 0x{addr:x} is in {function}+{offset}, which is no function crumbs can probe"))
            .label("no BTF function")
            .hint(format!("kernel probes are on the functions the kernel's BTF lists ({})", d.message))
    })?;
    if offset == 0 {
        return Ok(probes);
    }
    let at = interned(&format!("{offset:x}"));
    Ok(probes.into_iter().map(|p| Probe { name: at, ..p }).collect())
}

/// The address of a kernel probe at an address (`kprobe:0xffffffff81234567`), which
/// bpftrace allows only with --unsafe and names by it; None for any other description.
pub fn address_of(desc: &ProbeDesc) -> Option<u64> {
    match desc.fields.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["kprobe" | "kretprobe", f] | ["kprobe" | "kretprobe", _, f] => super::spelling::number(f),
        _ => None,
    }
}

/// The fbt probes of functions matching `func` in module `module`, named `names` (a glob
/// over entry and return).
fn match_functions(desc: &ProbeDesc, module: &str, func: &str, names: &str, facts: Option<&dyn KernelFacts>) -> Result<Vec<Probe>, Diagnostic> {
    let Some(facts) = facts else {
        return Err(Diagnostic::new(desc.span.clone(), "fbt probes are not available here").label("needs the kernel's functions").hint("fbt probes are listed from the running kernel's BTF (/sys/kernel/btf/vmlinux)"));
    };
    let ok = |pattern: &str, s: &str| glob(pattern, desc).map(|m| m.is_none_or(|m| m.is_match(s)));
    let kinds: Vec<(&'static str, AttachPoint)> = [("entry", AttachPoint::FbtEntry(u16::MAX)), ("return", AttachPoint::FbtReturn(u16::MAX))]
        .into_iter()
        .filter_map(|k| ok(names, k.0).map(|yes| yes.then_some(k)).transpose())
        .collect::<Result<_, _>>()?;
    if kinds.is_empty() {
        return Err(Diagnostic::new(desc.span.clone(), format!("fbt has no probe named `{names}`")).label("not entry or return").hint("fbt's probes are FUNCTION:entry and FUNCTION:return"));
    }
    // vmlinux's functions, then each loaded module's, where the module field matches.
    let mut lists: Vec<(&'static str, Rc<[String]>)> = Vec::new();
    if ok(module, FBT_MODULE)? {
        let list = facts.kernel_functions().map_err(|e| Diagnostic::new(desc.span.clone(), format!("cannot list the kernel's functions: {e}")).label("here").hint("fbt probes are listed from the kernel's BTF, /sys/kernel/btf/vmlinux"))?;
        lists.push((FBT_MODULE, list));
    }
    let modules = facts.kernel_modules().unwrap_or_else(|_| Rc::from([]));
    for m in modules.iter() {
        if ok(module, m)? {
            // A module whose BTF cannot be read has no functions to offer.
            if let Ok(list) = facts.module_functions(m) {
                lists.push((interned(m), list));
            }
        }
    }
    if lists.is_empty() {
        let loaded = if modules.is_empty() { "no module with BTF is loaded".to_string() } else { format!("loaded modules with BTF: {}", modules.join(", ")) };
        let hint = match closest(module, modules.iter().map(String::as_str).chain([FBT_MODULE])) {
            Some(c) => format!("did you mean `{c}`? ({loaded})"),
            None => format!("fbt's modules are vmlinux and the loaded modules that have BTF ({loaded}); leave the module empty to search them all"),
        };
        return Err(Diagnostic::new(desc.span.clone(), format!("probe description `{}` does not match any probes: no kernel module `{module}` with functions", desc.text)).label("matches nothing").hint(hint));
    }
    let pattern = if func.is_empty() || func.contains(['*', '?', '[']) { Some(glob(func, desc)?) } else { None };
    let mut out = Vec::new();
    for (m, list) in &lists {
        let matching: Vec<&String> = match &pattern {
            Some(g) => list.iter().filter(|f| g.as_ref().is_none_or(|g| g.is_match(f.as_str()))).collect(),
            // One named function: the list is sorted.
            None => list.binary_search_by(|f| f.as_str().cmp(func)).map(|i| vec![&list[i]]).unwrap_or_default(),
        };
        for f in matching {
            let function = interned(f);
            for (name, attach) in &kinds {
                out.push(Probe { id: 0, provider: "fbt", module: m, function, name, attach: *attach, nr: None, user: None, spelled: "" });
            }
        }
    }
    if out.is_empty() {
        let hint = match closest(func, lists.iter().flat_map(|(_, l)| l.iter().map(String::as_str))) {
            Some(c) => format!("did you mean `{c}`? (crumbs lists the functions the kernel's BTF describes and ftrace can trace)"),
            None => "list the kernel's functions with `crumbs -l -e 'fbt::PATTERN:'`".to_string(),
        };
        return Err(Diagnostic::new(desc.span.clone(), format!("probe description `{}` does not match any kernel function", desc.text)).label("matches nothing").hint(hint));
    }
    Ok(out)
}

/// The argument types a prototype gives an entry (`ret` false) or a return probe.
fn prototype(facts: &dyn KernelFacts, proto: KernelTypeId, ret: bool) -> Result<Vec<ArgType>, String> {
    let KernelType::Function { ret: rtype, params } = facts.kernel_type(proto)? else {
        return Err(format!("kernel type {proto} is not a function"));
    };
    if ret {
        let offset = ArgType { c_type: "int".into(), size: 4, signed: true, space: AddrSpace::Kernel, kernel: None };
        if rtype == 0 || matches!(facts.kernel_type(rtype)?, KernelType::Void) {
            return Ok(vec![offset]);
        }
        return Ok(vec![offset, arg_type(facts, rtype)?]);
    }
    // A variadic prototype ends in ("", void): its variable arguments have no types.
    params.into_iter().filter(|(name, id)| !(name.is_empty() && *id == 0)).map(|(_, id)| arg_type(facts, id)).collect()
}

pub(super) fn arg_type(facts: &dyn KernelFacts, id: KernelTypeId) -> Result<ArgType, String> {
    let (size, signed) = scalar(facts, id)?;
    Ok(ArgType { c_type: c_name(facts, id, 0)?, size, signed, space: AddrSpace::Kernel, kernel: Some(id) })
}

/// The size a value of type `id` is passed at (a register's 8 for what is bigger) and its
/// sign, typedefs and qualifiers looked through.
fn scalar(facts: &dyn KernelFacts, mut id: KernelTypeId) -> Result<(u8, bool), String> {
    for _ in 0..32 {
        return Ok(match facts.kernel_type(id)? {
            KernelType::Typedef { to, .. } | KernelType::Qualified(to) => {
                id = to;
                continue;
            }
            KernelType::Int { size, signed, .. } | KernelType::Enum { size, signed, .. } => (size.min(8) as u8, signed),
            _ => (8, false),
        });
    }
    Err(format!("kernel type {id}: a typedef chain too long to follow"))
}

/// How C writes type `id` (`struct file *`, `const char *` is `char *`: BTF's qualifiers
/// are not told apart here), for `-lv` and messages.
fn c_name(facts: &dyn KernelFacts, id: KernelTypeId, depth: u32) -> Result<String, String> {
    if depth > 32 {
        return Err(format!("kernel type {id}: a type too deep to name"));
    }
    let named = |kind: &str, name: String| if name.is_empty() { format!("{kind} <anonymous>") } else { format!("{kind} {name}") };
    if id == 0 {
        return Ok("void".into());
    }
    Ok(match facts.kernel_type(id)? {
        KernelType::Void => "void".into(),
        KernelType::Int { name, .. } | KernelType::Float { name, .. } | KernelType::Typedef { name, .. } => name,
        KernelType::Ptr(to) => match facts.kernel_type(to)? {
            KernelType::Function { .. } => "void (*)()".into(),
            _ => {
                let inner = c_name(facts, to, depth + 1)?;
                if inner.ends_with('*') { format!("{inner}*") } else { format!("{inner} *") }
            }
        },
        KernelType::Array { elem, len } => format!("{}[{len}]", c_name(facts, elem, depth + 1)?),
        KernelType::Struct { name, .. } => named("struct", name),
        KernelType::Union { name, .. } => named("union", name),
        KernelType::Enum { name, .. } => named("enum", name),
        KernelType::Fwd { name, space } => named(
            match space {
                crate::facts::TypeSpace::Union => "union",
                crate::facts::TypeSpace::Enum => "enum",
                _ => "struct",
            },
            name,
        ),
        KernelType::Qualified(to) => c_name(facts, to, depth + 1)?,
        KernelType::Function { .. } => "void ()".into(),
    })
}

#[cfg(test)]
mod tests;
