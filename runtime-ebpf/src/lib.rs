//! The eBPF backend: typed IR -> BPF instructions -> an in-memory ELF for aya.

pub mod abi;
pub mod btf;
pub mod elf;
pub mod emit;
pub mod insn;

use crumbs_lang::ir::{self, Program};
use crumbs_lang::providers::AttachPoint;
use abi::*;
use elf::*;
use emit::*;

/// Bytes of dynvarsize a dynamic variable stands for besides its key and value: the kernel
/// hash map's own bookkeeping, rounded.
pub const DYNVAR_OVERHEAD: u64 = 40;
/// Distinct kernel stacks kept at once.
pub const STACK_ENTRIES: u32 = 16384;
/// Distinct user stacks kept at once (each holds 100 frames: 6.5 MB in all).
pub const USTACK_ENTRIES: u32 = 8192;

/// Dynamic variables (thread-locals, array elements) of `key` and `value` bytes a map holds
/// at once: dynvarsize / (key + value + the overhead); 16384 integer thread-locals (a 16-byte
/// key, an 8-byte value) by default.
pub fn dynvar_entries(p: &Program, key: usize, value: usize) -> u32 {
    (p.options.dynvarsize.unwrap_or(DEFAULT_DYNVARSIZE) / (key as u64 + value as u64 + DYNVAR_OVERHEAD)).clamp(1, u32::MAX as u64) as u32
}

/// Bytes of the event ring buffer: `bufsize`, at least a page, rounded up to a power of two.
pub fn event_buffer_size(p: &Program) -> u64 {
    p.options.bufsize.unwrap_or(DEFAULT_BUFSIZE).max(4096).next_power_of_two()
}

/// The maps a program needs: the event ring, the drop counters, one array per aggregation
/// holding a table per CPU (see [`table`]), the stack map, the thread-local maps (integers
/// `tls`, strings `tls_str`), one hash map per associative array (`arr{i}`), and a zeroed
/// array for clearing large values. [`compile`] adds the ones only the code knows it needs:
/// the string scratch space and the system call names table.
pub fn map_defs(p: &Program, target: &Target) -> Vec<MapDef> {
    let bufsize = event_buffer_size(p);
    let mut maps = vec![
        MapDef { name: EVENTS_MAP.into(), map_type: MAP_TYPE_RINGBUF, key_size: 0, value_size: 0, max_entries: bufsize as u32, flags: 0 },
        MapDef { name: drops::DROPS_MAP.into(), map_type: MAP_TYPE_PERCPU_ARRAY, key_size: 4, value_size: drops::DROPS_SIZE as u32, max_entries: 1, flags: 0 },
    ];
    let mut zero = 0;
    for (i, a) in p.aggregations.iter().enumerate() {
        let t = table::layout(p, i, target.cpus);
        maps.push(MapDef {
            name: agg_map_name(i),
            map_type: MAP_TYPE_ARRAY,
            key_size: 4,
            value_size: t.table_size() as u32,
            max_entries: t.cpus,
            flags: F_MMAPABLE,
        });
        if a.kind.value_size() > emit::INLINE_ZEROING {
            zero = zero.max(a.kind.value_size());
        }
    }
    if p.uses_stack {
        maps.push(MapDef { name: STACKS_MAP.into(), map_type: MAP_TYPE_STACK_TRACE, key_size: 4, value_size: 8 * STACK_DEPTH as u32, max_entries: STACK_ENTRIES, flags: 0 });
    }
    if p.uses_ustack {
        maps.push(MapDef { name: USTACKS_MAP.into(), map_type: MAP_TYPE_STACK_TRACE, key_size: 4, value_size: 8 * USTACK_DEPTH as u32, max_entries: USTACK_ENTRIES, flags: 0 });
    }
    if p.uses_build_id_ustack {
        let value_size = (STACK_BUILD_ID_SIZE * USTACK_DEPTH) as u32;
        maps.push(MapDef { name: USTACKS_BUILD_ID_MAP.into(), map_type: MAP_TYPE_STACK_TRACE, key_size: 4, value_size, max_entries: USTACK_ENTRIES, flags: F_STACK_BUILD_ID });
    }
    if p.thread_locals.iter().any(|v| !v.is_str() && !v.is_object()) {
        maps.push(MapDef { name: TLS_MAP.into(), map_type: MAP_TYPE_HASH, key_size: 16, value_size: 8, max_entries: dynvar_entries(p, 16, 8), flags: 0 });
    }
    if let Some(v) = p.thread_locals.iter().find(|v| v.is_str()) {
        let size = v.repr.size();
        maps.push(MapDef { name: TLS_STR_MAP.into(), map_type: MAP_TYPE_HASH, key_size: 16, value_size: size as u32, max_entries: dynvar_entries(p, 16, size), flags: 0 });
    }
    if let Some(size) = p.thread_locals.iter().filter(|v| v.is_object()).map(|v| v.repr.size()).max() {
        maps.push(MapDef { name: TLS_OBJ_MAP.into(), map_type: MAP_TYPE_HASH, key_size: 16, value_size: size as u32, max_entries: dynvar_entries(p, 16, size), flags: 0 });
    }
    for (i, a) in p.arrays.iter().enumerate() {
        let def = match a.len {
            // A scalar array: every element there from the start, its index the key.
            Some(len) => MapDef { name: array_map_name(i), map_type: MAP_TYPE_ARRAY, key_size: 4, value_size: a.value.size() as u32, max_entries: len, flags: 0 },
            None => {
                let (map_type, max_entries) = match a.declared {
                    Some(d) => (if d.lru { MAP_TYPE_LRU_HASH } else { MAP_TYPE_HASH }, d.max_entries),
                    None => (MAP_TYPE_HASH, dynvar_entries(p, a.key_size(), a.value.size())),
                };
                MapDef { name: array_map_name(i), map_type, key_size: a.key_size() as u32, value_size: a.value.size() as u32, max_entries, flags: 0 }
            }
        };
        maps.push(def);
    }
    if zero > 0 {
        maps.push(MapDef { name: ZERO_MAP.into(), map_type: MAP_TYPE_ARRAY, key_size: 4, value_size: zero as u32, max_entries: 1, flags: 0 });
    }
    maps
}

/// Compiles every attach point's clauses to BPF and wraps them in an ELF.
pub fn compile(p: &Program, target: &Target) -> Result<Compiled, EmitError> {
    // ERROR's clauses have no program: they run inside the others' (emit/faults.rs).
    let programs = programs(p, target)?;
    let mut maps = map_defs(p, target);
    if programs.iter().any(|c| c.map_refs.iter().any(|r| r.map == SCRATCH_MAP)) {
        let scratch = programs.iter().map(|c| c.scratch).max().unwrap_or(0).max(8);
        maps.push(MapDef { name: SCRATCH_MAP.into(), map_type: MAP_TYPE_PERCPU_ARRAY, key_size: 4, value_size: scratch, max_entries: SCRATCH_LEVELS, flags: 0 });
        maps.push(MapDef { name: SCRATCH_DEPTH_MAP.into(), map_type: MAP_TYPE_PERCPU_ARRAY, key_size: 4, value_size: 8, max_entries: 1, flags: 0 });
    }
    if programs.iter().any(|c| c.map_refs.iter().any(|r| r.map == SYSCALL_NAMES_MAP)) {
        let entries = crumbs_lang::syscalls::SyscallTable::get().highest() + 1;
        maps.push(MapDef { name: SYSCALL_NAMES_MAP.into(), map_type: MAP_TYPE_ARRAY, key_size: 4, value_size: SYSCALL_NAME_SIZE, max_entries: entries, flags: 0 });
    }
    if programs.iter().any(|c| c.map_refs.iter().any(|r| r.map == CHILL_MAP)) {
        maps.push(MapDef { name: CHILL_MAP.into(), map_type: MAP_TYPE_PERCPU_ARRAY, key_size: 4, value_size: CHILL_STATE_SIZE, max_entries: 1, flags: 0 });
    }
    let flag = emit::exit_flag_offset(p).map_or(0, |_| 8);
    let elf = write_elf(&programs, &maps, p.globals_size() + flag + emit::speculations_size(p), &emit::seq_formats(p).0);
    Ok(Compiled { elf, record_meta: target.record_meta, programs, maps })
}

/// One program per attach point (ERROR's clauses have none: they run inside the others',
/// emit/faults.rs). With kprobe.multi (`target.fbt_multi`), one per set of fbt functions
/// with the same direction and clauses, attached to them all with one link: loading one
/// program instead of hundreds is most of the time a wide glob took. A set whose program
/// cannot be one for many gets a program per function after all: one that passes
/// callbacks to helpers (the runtime loads kprobe.multi programs itself, and only aya's
/// loader links callbacks), or needs probefunc's text in the kernel (the cookie holds
/// only its id).
fn programs(p: &Program, target: &Target) -> Result<Vec<ProgramCode>, EmitError> {
    let mut out = Vec::new();
    let mut sets: Vec<(&ir::Group, Vec<u16>)> = Vec::new();
    for g in p.groups.iter().filter(|g| g.attach != AttachPoint::Error) {
        match g.attach {
            AttachPoint::FbtEntry(i) | AttachPoint::FbtReturn(i) if target.fbt_multi => {
                let same = |h: &&ir::Group| std::mem::discriminant(&h.attach) == std::mem::discriminant(&g.attach) && h.clauses == g.clauses;
                match sets.iter_mut().find(|(h, _)| same(h)) {
                    Some((_, functions)) => functions.push(i),
                    None => sets.push((g, vec![i])),
                }
            }
            _ => out.push(emit_program(p, g, target)?),
        }
    }
    for (g, functions) in sets {
        if let Ok(code) = emit_multi_program(p, g, &functions, target) {
            if code.func_refs.is_empty() {
                out.push(code);
                continue;
            }
        }
        let one = |i: u16| p.groups.iter().find(|h| matches!(h.attach, AttachPoint::FbtEntry(j) | AttachPoint::FbtReturn(j) if j == i) && std::mem::discriminant(&h.attach) == std::mem::discriminant(&g.attach));
        for i in functions {
            out.push(emit_program(p, one(i).expect("the group of a set's function"), target)?);
        }
    }
    Ok(out)
}

/// A readable listing of every program, for `--dump-bpf`.
pub fn dump(c: &Compiled) -> String {
    let mut out = String::new();
    // One function's code and what its instructions refer to (`program`'s functions).
    let mut listing = |title: String, insns: &[insn::Insn], maps: &[abi::MapRef], funcs: &[abi::FuncRef], program: &str| {
        out.push_str(&format!("{title}, {} instructions:\n", insns.len()));
        out.push_str(&insn::disassemble(insns));
        for r in maps {
            out.push_str(&format!("      reloc insn {} -> {}\n", r.insn, r.map));
        }
        for r in funcs {
            out.push_str(&format!("      reloc insn {} -> {}\n", r.insn, abi::func_name(program, r.func)));
        }
        out.push('\n');
    };
    for p in &c.programs {
        let attach = emit::attach::context_of(p).describe(p.attach);
        listing(format!("{} ({attach})", p.name), &p.insns, &p.map_refs, &p.func_refs, &p.name);
        for (i, sub) in p.subprograms.iter().enumerate() {
            listing(format!("{} (loop body)", abi::subprogram_name(&p.name, i)), &sub.insns, &sub.map_refs, &sub.func_refs, &p.name);
        }
    }
    for f in elf::callbacks(&c.programs) {
        listing(format!("{} (callback)", f.name()), &f.code(), &[], &[], "");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::check::CheckOptions;
    use crumbs_lang::facts::sample::SampleKernel;

    fn program(src: &str) -> Program {
        crumbs_lang::compile(src, &CheckOptions { facts: Some(std::rc::Rc::new(SampleKernel)), ..Default::default() }).unwrap()
    }

    fn multi() -> Target {
        Target { fbt_multi: true, ..Default::default() }
    }

    #[test]
    fn fbt_functions_with_the_same_clauses_share_a_kprobe_multi_program() {
        let p = program("fbt::vfs_read:entry, fbt::vfs_write:entry { @[probefunc] = count(); } fbt::vfs_read:return { @r = count(); } fbt::vfs_write:return { @w = count(); }");
        let code = programs(&p, &multi()).unwrap();
        let sets: Vec<_> = code.iter().map(|c| (c.attach, c.functions.clone())).collect();
        assert_eq!(sets, [(AttachPoint::FbtEntry(0), vec![0, 1]), (AttachPoint::FbtReturn(0), vec![0]), (AttachPoint::FbtReturn(1), vec![1])]);
        let text = dump(&compile(&p, &multi()).unwrap());
        assert!(text.contains("crumbs_kprobemulti0 (kprobe.multi)") && text.contains("call bpf_get_attach_cookie"), "{text}");
        // Without kprobe.multi: a program per function and direction, no cookie.
        let code = programs(&p, &Target::default()).unwrap();
        assert!(code.len() == 4 && code.iter().all(|c| c.functions.is_empty()));
    }

    #[test]
    fn a_set_that_needs_probefuncs_text_gets_a_program_per_function() {
        let p = program("fbt::vfs_read:entry, fbt::vfs_write:entry { @[strjoin(probefunc, \"!\")] = count(); }");
        let code = programs(&p, &multi()).unwrap();
        assert!(code.len() == 2 && code.iter().all(|c| c.functions.is_empty()), "{code:?}");
    }

    #[test]
    fn cookies_carry_the_probe_id_and_the_functions_name() {
        let p = program("fbt::vfs_read:entry, fbt::vfs_write:return { @[probefunc] = count(); }");
        let write = p.strings.lookup("vfs_write").unwrap();
        assert_eq!(abi::fbt_cookie(&p, 1, true), (crumbs_lang::providers::FBT_ID_BASE as u64 + 3) | write << 32);
    }

    #[test]
    fn fentry_programs_read_arguments_and_return_values_with_helpers() {
        let p = program("fbt::vfs_read:entry { @ = sum(arg2); } fbt::vfs_read:return { @r = sum(arg1); }");
        let c = compile(&p, &Target { fbt_fentry: true, ..Default::default() }).unwrap();
        assert!(c.programs.iter().all(|c| c.fentry));
        let text = dump(&c);
        for want in ["crumbs_fentry0 (fentry)", "crumbs_fexit0 (fexit)", "call bpf_get_func_arg", "call bpf_get_func_ret"] {
            assert!(text.contains(want), "no {want} in {text}");
        }
    }
}
