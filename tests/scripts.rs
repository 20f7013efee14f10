//! Every ready-to-run script in scripts/ compiles (to BPF) with the current crumbs.

mod common;

use common::run;

#[test]
fn every_script_compiles() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let mut scripts: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "d")).collect();
    scripts.sort();
    assert!(scripts.len() >= 5, "{scripts:?}");
    for s in scripts {
        let out = run(&["--dump-bpf", "-c", "true", "-s", s.to_str().unwrap()]);
        assert_eq!(out.code(), 0, "{}: {}", s.display(), out.dump());
        assert!(out.stdout.contains("instructions:"), "{}", out.dump());
    }
}
