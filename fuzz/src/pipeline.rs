//! The compile-only pipeline, as `crumbs --dump-bpf -c CMD` runs it (src/main.rs `trace()`):
//! parse, check (`crumbs_lang::compile` is these two), emit, and render the diagnostic of
//! any error the way crumbs prints it, or the BPF listing of a success. Run with fixed facts
//! (the in-memory tracepoint catalog, fixed `$target`, arguments and task offsets), so a
//! program always compiles the same way.

use crate::catalog::FixedCatalog;
use crate::protocol::Stage;
use crumbs_ebpf::abi::Target;
use crumbs_ebpf::abi::Compiled;
use crumbs_lang::check::CheckOptions;
use crumbs_lang::diag::Diagnostic;
use crumbs_lang::{ast, ir};

/// The script name diagnostics show.
const NAME: &str = "fuzz.d";

// One Outcome exists at a time; boxing the big variant would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Outcome {
    Rejected { stage: Stage, message: String },
    Compiled { ast: ast::Program, program: ir::Program, compiled: Compiled },
}

pub fn options() -> CheckOptions {
    // $1..$4: an integer, a word, a hex integer and a negative one (spec §5.5).
    let args = ["fuzz.d", "42", "word", "0x10", "-7"].map(String::from).to_vec();
    CheckOptions { facts: Some(std::rc::Rc::new(FixedCatalog)), target: Some(1234), args, ..Default::default() }
}

/// Offsets of task_struct.real_parent and .tgid on the 6.18 kernel the catalog comes from,
/// so that clauses using `ppid` compile (crumbs reads them from BTF); the numeric
/// iterator's kfuncs are this kernel's (the live lane loads what index() compiles to),
/// or stand-ins where it has no BTF.
pub fn target() -> Target {
    let iter_num = crumbs_runtime::kernel::iter_num().or(Some([1, 2, 3]));
    Target { wall_offset: 1_700_000_000_000_000_000, task_offsets: Some((2552, 2536)), cpus: 2, iter_num, tracing_frames: vec![(0xffffffff81200000, 0xffffffff81200400)], ..Default::default() }
}

/// Runs the pipeline; `stage` is told before each step begins.
pub fn compile(text: &str, stage: &mut dyn FnMut(Stage)) -> Outcome {
    let opts = options();
    let reject = |at: Stage, d: Diagnostic, stage: &mut dyn FnMut(Stage)| {
        stage(Stage::Render);
        let rendered = d.render(NAME, text, false);
        // The first line is `Error: MESSAGE`; keep the message only (it is what varies).
        let message = rendered.lines().next().unwrap_or_default().trim_start_matches("Error: ").to_string();
        Outcome::Rejected { stage: at, message }
    };
    stage(Stage::Parse);
    // In the dialect the program's syntax says, as the command line finds it (spec §13.1).
    let (ast, dialect) = match crumbs_lang::parse::parse_program_detecting(text, opts.facts.clone(), None) {
        Ok(a) => a,
        Err(d) => return reject(Stage::Parse, d, stage),
    };
    stage(Stage::Check);
    let opts = CheckOptions { dialect: Some(dialect), ..opts };
    let program = match crumbs_lang::check::check(&ast, &opts) {
        Ok(p) => p,
        Err(d) => return reject(Stage::Check, d, stage),
    };
    stage(Stage::Emit);
    let compiled = match crumbs_ebpf::compile(&program, &target()) {
        Ok(c) => c,
        // crumbs renders an emit error against its clause, or prints one line without one.
        Err(e) => match e.clause {
            Some(i) => {
                let span = ast.clauses.get(i).map_or(0..0, |c| c.span.clone());
                return reject(Stage::Emit, Diagnostic::new(span, e.message).label("in this clause"), stage);
            }
            None => return Outcome::Rejected { stage: Stage::Emit, message: e.message },
        },
    };
    stage(Stage::Dump);
    std::hint::black_box(crumbs_ebpf::dump(&compiled));
    Outcome::Compiled { ast, program, compiled }
}
