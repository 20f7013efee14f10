//! The crumbs D language: grammar, AST, checker and the typed IR it lowers to.
//!
//! text --[`parse`]--> [`ast`] --[`check`]--> [`ir`]. Nothing here touches the kernel.

// A Diagnostic is returned once per compilation, on the cold path: its size does not matter.
#![allow(clippy::result_large_err)]

pub mod ast;
pub mod dialect;
pub mod diag;
pub mod facts;
pub mod parse;
pub mod preprocess;
pub mod printf;
pub mod seq_printf;
pub mod builtins;
pub mod check;
pub mod config;
pub mod macros;
pub mod ir;
pub mod providers;
pub mod stdlib;
pub mod syscalls;
pub mod tracepoints;
pub mod tuples;
pub mod types;

/// Parses and checks a program: the front half of the pipeline.
pub fn compile(source: &str, opts: &check::CheckOptions) -> Result<ir::Program, diag::Diagnostic> {
    let (mut ast, dialect) = parse::parse_program_detecting(source, opts.facts.clone(), opts.dialect)?;
    stdlib::add_used(&mut ast, source, dialect, opts.facts.clone())?;
    let mut program = check::check(&ast, &check::CheckOptions { dialect: Some(dialect), ..opts.clone() })?;
    // errorf() and warnf() name the lines and columns of their calls.
    for item in program.records.iter_mut().flat_map(|r| &mut r.items) {
        if let ir::Item::Message { at, .. } = item {
            at.locate(source);
        }
    }
    // Recorded values are named after their source text (parquet's columns).
    for arg in program.records.iter_mut().flat_map(|r| &mut r.sources).flatten() {
        arg.text = source.get(arg.span.clone()).unwrap_or_default().to_string();
    }
    Ok(program)
}
