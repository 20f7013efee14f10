//! `dtrace -l`: the probes each description matches (every probe without one), in dtrace's
//! layout, each description's in turn (a probe two descriptions match is listed twice, as
//! dtrace does). A description that matches nothing is said on standard error and listing
//! goes on; with `-v` each probe is followed by its stability and argument types. The
//! program is only parsed, not checked.

use super::errors;
use super::probes::four_fields;
use super::source::Program;
use crumbs_lang::providers::{expand_macros, match_probes_with, Probe};
use crumbs_runtime::driver::CompileError;
use crumbs_runtime::kernel::LiveKernel;
use std::io::Write;

/// Lists into `out`; the error is the report of a program that does not parse.
pub fn list(program: Option<&Program>, out: &mut dyn Write, verbose: bool, errtags: bool, target: Option<i64>) -> Result<(), String> {
    let probes = match program {
        None => {
            let (probes, missing) = crate::list::every_probe();
            if let Some(why) = missing {
                eprintln!("dtrace: {why}");
            }
            probes
        }
        Some(program) => matched(program, errtags, target)?,
    };
    crate::list::write_listing(out, &probes, &|out, p| {
        if verbose {
            super::stability::probe_info(out, p);
        }
    });
    let _ = out.flush();
    Ok(())
}

fn matched(program: &Program, errtags: bool, target: Option<i64>) -> Result<Vec<Probe>, String> {
    let report = |d| errors::report(&CompileError::Source(d), program, errtags);
    let ast = crumbs_lang::parse::parse_program(&program.text()).map_err(report)?;
    let mut probes = Vec::new();
    for desc in ast.clauses.iter().flat_map(|c| &c.probes) {
        let found = match expand_macros(desc, &crumbs_lang::providers::ProbeMacros { target, ..Default::default() }) {
            Ok(d) => match_probes_with(&d, Some(&LiveKernel)),
            Err(e) => Err(e),
        };
        match found {
            Ok(found) => probes.extend(found),
            Err(d) if errors::tag(&d.message) == Some("D_PDESC_ZERO") => eprintln!("dtrace: failed to match {}: No probe matches description", four_fields(desc).join(":")),
            Err(d) => return Err(report(d)),
        }
    }
    Ok(probes)
}
