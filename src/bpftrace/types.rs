//! `bpftrace -l 'struct NAME'` (`union`, `enum`): the kernel's types of that name, `*`
//! matching any run of characters; with `-v` their definitions, as bpftrace 0.17 prints them
//! (libbpf's C layout, [`crumbs_runtime::kernel::c_decl`]), each followed by an empty line.
//! Both are sorted as bpftrace sorts them: the names, or the definitions' text.

use super::list::wildcard;
use crumbs_runtime::kernel::c_decl;
use std::collections::BTreeSet;
use std::io::Write;

/// Whether `-l`'s pattern asks for types: it starts `struct`, `union` or `enum` and has no
/// colon, as bpftrace tells them from probes.
pub fn is_type_pattern(pattern: &str) -> bool {
    let p = pattern.trim();
    !p.contains(':') && ["struct", "union", "enum"].iter().any(|k| p.starts_with(k))
}

pub fn list(pattern: &str, verbose: bool, out: &mut dyn Write) -> Result<(), String> {
    let types = c_decl::named_types()?;
    let found: BTreeSet<String> = if verbose {
        // bpftrace matches the whole definition: the name, then ` {` and the body.
        let whole = format!("{pattern} *{{*}}*");
        let mut defs = BTreeSet::new();
        for (name, id) in &types {
            // Only a definition whose name the pattern's text before its first `*` starts
            // can match: the others are not written out.
            let head = pattern.split('*').next().unwrap_or("");
            if !name.starts_with(head) && !head.starts_with(name.as_str()) {
                continue;
            }
            if let Some(def) = c_decl::definition(*id)? {
                if wildcard(&whole, &def) {
                    defs.insert(def);
                }
            }
        }
        defs
    } else {
        types.into_iter().map(|(name, _)| name).filter(|n| wildcard(pattern, n)).collect()
    };
    for item in &found {
        let _ = writeln!(out, "{item}");
    }
    let _ = out.flush();
    Ok(())
}
