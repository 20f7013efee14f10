//! Snapshots of the pipeline's middle: for every program in `tests/snapshots/*.d` and every
//! script in `scripts/` (subdirectories included), the typed IR (`NAME.ir`) and the generated BPF (`NAME.bpf`, as
//! `--dump-bpf` prints it) are kept in `tests/snapshots/` and compared on every run, so a
//! change shows exactly what it did to generated code. Unprivileged: nothing is loaded.
//!
//! After a deliberate change, review the diff this test prints, then rewrite the files with
//! `CRUMBS_BLESS=1 cargo test --test snapshots` and commit them with the change.

use crumbs_ebpf::abi::Target;
use crumbs_lang::facts::{sample, Functions, KernelFacts, KernelType, Listing, TypeSpace};
use crumbs_lang::ir::Program;
use crumbs_runtime::driver::{self, CompileError, CompileOptions};
use crumbs_runtime::kernel::Kernel;
use std::path::{Path, PathBuf};
use std::rc::Rc;

// Only the list of scripts: this test runs no crumbs binary.
#[path = "common/scripts.rs"]
mod scripts;

/// The kernel as the snapshots see it: fixed tracepoint formats and task_struct offsets,
/// so the files do not depend on the machine.
#[derive(Debug, Clone, Copy)]
struct FixedKernel;

const FORMATS: &[(&str, &str, &str)] = &[
    ("sched", "sched_switch", "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"),
    ("syscalls", "sys_enter_read", "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n\tfield:char * buf;\toffset:24;\tsize:8;\tsigned:0;\n\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n"),
    ("raw_syscalls", "sys_enter", "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n"),
    ("sched", "sched_process_exec", "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"),
    ("dma", "dma_map_sg", "\tfield:__data_loc unsigned int[] lengths;\toffset:8;\tsize:4;\tsigned:0;\n"),
    ("syscalls", "sys_exit_read", "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n"),
    ("syscalls", "sys_enter_openat", "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n"),
];

impl KernelFacts for FixedKernel {
    fn tracepoints(&self) -> Listing {
        Ok(FORMATS.iter().map(|(c, e, _)| (c.to_string(), e.to_string())).collect::<Vec<_>>().into())
    }

    fn tracepoint_format(&self, category: &str, event: &str) -> Result<String, String> {
        FORMATS.iter().find(|(c, e, _)| *c == category && *e == event).map(|(_, _, f)| format!("format:\n{f}")).ok_or_else(|| format!("no tracepoint {category}:{event}"))
    }

    fn kernel_type_id(&self, space: TypeSpace, name: &str) -> Result<Option<u32>, String> {
        Ok(sample::type_id(space, name))
    }

    fn kernel_type(&self, id: u32) -> Result<KernelType, String> {
        sample::kernel_type(id)
    }

    fn kernel_functions(&self) -> Functions {
        sample::SampleKernel.kernel_functions()
    }

    fn kernel_function(&self, name: &str) -> Result<Option<u32>, String> {
        Ok(sample::function(name))
    }

    fn process_modules(&self, pid: u32) -> crumbs_lang::facts::user::Modules {
        sample::SampleKernel.process_modules(pid)
    }

    fn user_module(&self, path: &str) -> Result<crumbs_lang::facts::user::UserModule, String> {
        sample::SampleKernel.user_module(path)
    }

    fn raw_tracepoints(&self) -> Functions {
        sample::SampleKernel.raw_tracepoints()
    }

    fn raw_tracepoint(&self, name: &str) -> Result<Option<u32>, String> {
        Ok(sample::raw_tracepoint(name))
    }
}

impl Kernel for FixedKernel {
    fn facts(&self) -> Rc<dyn KernelFacts> {
        Rc::new(*self)
    }

    fn codegen_target(&self, program: &Program) -> Target {
        // kprobes, except for a program whose fbt clauses need a trampoline (path(),
        // arguments at a return), as the live kernel's choice is (§6.6).
        let fbt_fentry = program.fbt_needs().trampoline;
        Target { wall_offset: 1_700_000_000_000_000_000, task_offsets: Some((2456, 2384)), cpus: 4, iter_num: Some([1001, 1002, 1003]), tracing_frames: vec![(0xffffffff81200000, 0xffffffff81200400), (0xffffffff81345600, 0xffffffff81345640)], fbt_fentry, ..Default::default() }
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every snapshotted program: (snapshot name, source path).
fn programs() -> Vec<(String, PathBuf)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join("tests/snapshots")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "d" || e == "bt")).collect();
    paths.sort();
    let mut out: Vec<(String, PathBuf)> = paths.into_iter().map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p)).collect();
    out.extend(scripts::all().into_iter().map(|p| (format!("script-{}", scripts::stem(&p)), p)));
    out
}

/// The IR and BPF text of one program.
fn render(path: &Path) -> (String, String) {
    let text = std::fs::read_to_string(path).unwrap();
    // $0 is the script's path, then the words the tests give it (tests/common/scripts.rs).
    let mut args = vec![path.display().to_string()];
    args.extend(scripts::args(path).into_iter().map(str::to_string));
    let opts = CompileOptions { target: Some(4242), args, dialect: crumbs_lang::dialect::Dialect::of_path(&path.display().to_string()), ..Default::default() };
    let compiled = driver::compile(&text, &opts, &FixedKernel).unwrap_or_else(|e| match e {
        CompileError::Source(d) => panic!("{}: {}", path.display(), d.render(&path.display().to_string(), &text, false)),
        CompileError::Message(m) => panic!("{}: {m}", path.display()),
    });
    (format!("{:#?}\n", compiled.program), crumbs_ebpf::dump(&compiled.code))
}

/// The first lines where `want` and `got` differ, with a little context.
fn diff(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let first = w.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(w.len().min(g.len()));
    let mut out = format!("first difference at line {}:\n", first + 1);
    for i in first.saturating_sub(3)..(first + 12).min(w.len().max(g.len())) {
        match (w.get(i), g.get(i)) {
            (Some(a), Some(b)) if a == b => out.push_str(&format!("  {a}\n")),
            (a, b) => {
                if let Some(a) = a {
                    out.push_str(&format!("- {a}\n"));
                }
                if let Some(b) = b {
                    out.push_str(&format!("+ {b}\n"));
                }
            }
        }
    }
    out
}

#[test]
fn ir_and_bpf_match_the_snapshots() {
    let bless = std::env::var_os("CRUMBS_BLESS").is_some();
    let dir = root().join("tests/snapshots");
    let mut failures = Vec::new();
    let mut expected = Vec::new();
    for (name, path) in programs() {
        let (ir, bpf) = render(&path);
        for (ext, got) in [("ir", ir), ("bpf", bpf)] {
            let file = dir.join(format!("{name}.{ext}"));
            expected.push(file.clone());
            if bless {
                std::fs::write(&file, &got).unwrap();
                continue;
            }
            match std::fs::read_to_string(&file) {
                Ok(want) if want == got => {}
                Ok(want) => failures.push(format!("{}: differs from the generated text\n{}", file.display(), diff(&want, &got))),
                Err(e) => failures.push(format!("{}: {e}", file.display())),
            }
        }
    }
    // A snapshot whose program is gone is stale.
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if matches!(p.extension().and_then(|e| e.to_str()), Some("ir" | "bpf")) && !expected.contains(&p) {
            if bless {
                std::fs::remove_file(&p).unwrap();
            } else {
                failures.push(format!("{}: no program makes this snapshot any more", p.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}\n\nReview the changes, then rewrite the snapshots with `CRUMBS_BLESS=1 cargo test --test snapshots`.", failures.join("\n\n"));
}
