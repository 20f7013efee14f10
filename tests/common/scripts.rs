//! The ready-to-run scripts of `scripts/` (subdirectories included) and the macro arguments
//! the tests compile each one with. Shared by `tests/scripts.rs` (through `common`) and
//! `tests/snapshots.rs` (which includes this file alone: it does not run crumbs).

use std::path::{Path, PathBuf};

/// Every `.d` file under `scripts/`, its subdirectories included, in path order.
pub fn all() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "d") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The words after the script that the tests give it (its `$1`, `$2`, ...): the ML-storage
/// scripts take the name of the processes to trace (the tests trace io-benchmark); the
/// others take none.
pub fn args(script: &Path) -> Vec<&'static str> {
    if script.parent().is_some_and(|d| d.ends_with("scripts/ml-storage")) {
        vec!["io-benchmark"]
    } else {
        Vec::new()
    }
}

/// The script's path under `scripts/` with `/` as `-` and no extension: `ml-storage-open`.
pub fn stem(script: &Path) -> String {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let rel = script.strip_prefix(&base).unwrap_or(script).with_extension("");
    rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("-")
}
