//! The conventions of a command-line tool: `--help`'s examples work as printed, the man page
//! and the shell completions come from the same definition as the options, and a long
//! attach shows a progress line redrawn in place when standard error is a terminal.

mod common;

use common::pty::Pty;
use common::{crumbs_cmd, path_with_bins, run, run_command, TIMEOUT};
use std::process::Command;

/// Every `crumbs ...` example line of `--help` compiles as printed (run by a shell, with
/// crumbs and io-benchmark on PATH, from the repository, so the scripts named are found),
/// with `--dump-bpf` added so that nothing runs.
#[test]
fn every_help_example_compiles_as_printed() {
    let help = run(&["--help"]);
    help.assert_ok();
    let examples: Vec<&str> = help.stdout.lines().map(str::trim_start).filter(|l| l.starts_with("crumbs -") || l.starts_with("crumbs scripts/")).filter(|l| !l.contains(" > ")).collect();
    // One or more for each kind of user, and the REPL.
    assert!(examples.len() >= 10, "{}", help.stdout);
    for heading in ["lab's DTrace", "bpftrace scripts", "HPC I/O", "kernel and ML-systems", "Explore interactively"] {
        assert!(help.stdout.contains(heading), "no {heading:?} in\n{}", help.stdout);
    }
    for example in examples {
        let line = if example.contains("--dump-bpf") { example.to_string() } else { format!("{example} --dump-bpf") };
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &line]).env("PATH", path_with_bins()).current_dir(env!("CARGO_MANIFEST_DIR"));
        let out = run_command(cmd, None, TIMEOUT);
        assert_eq!(out.code(), 0, "{line}\n{}", out.dump());
        assert!(!out.stdout.is_empty(), "{line}\n{}", out.dump());
    }
    // -h stays short, and says where the examples are.
    let short = run(&["-h"]);
    assert!(short.stdout.contains("--help shows examples") && !short.stdout.contains("HPC I/O"), "{}", short.stdout);
}

#[test]
fn the_man_page_has_every_option_and_the_examples() {
    let out = run(&["--man"]);
    out.assert_ok();
    let man = &out.stdout;
    assert!(man.starts_with(".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n.TH crumbs 1 "), "{man}");
    for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXAMPLES", "\"EXIT STATUS\"", "FILES", "\"SEE ALSO\"", "VERSION"] {
        assert!(man.contains(&format!("\n.SH {section}\n")), "no section {section}\n{man}");
    }
    // Every long option --help lists is described.
    let help = run(&["--help"]).stdout;
    let longs: Vec<&str> = help.split_whitespace().filter(|w| w.starts_with("--") && w.len() > 2).map(|w| w.trim_end_matches([',', '.', ')'])).filter(|w| w.chars().skip(2).all(|c| c.is_ascii_lowercase() || c == '-')).collect();
    assert!(longs.contains(&"--repl") && longs.contains(&"--completions"), "{help}");
    for long in longs {
        let roff = long.replace('-', "\\-");
        assert!(man.contains(&long.to_string()) || man.contains(&roff), "{long} not in the man page\n{man}");
    }
    // Example text is literal: printf's \n is roff's \en.
    assert!(man.contains(r#"printf("%d %s\en", pid"#), "{man}");
    // Not with anything else.
    let out = run(&["--man", "-q"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("'--man' cannot be used with"), "{}", out.dump());
}

/// bash loads the completion script, and completing `crumbs --dump` offers `--dump-bpf`,
/// `crumbs --dialect ` its values.
#[test]
fn bash_completes_the_options() {
    let out = run(&["--completions", "bash"]);
    out.assert_ok();
    let script = common::TempPath::with_contents("crumbs.bash", &out.stdout);
    let complete = |words: &str, cword: usize| -> String {
        let line = format!(". {}; COMP_WORDS=({words}); COMP_CWORD={cword}; _crumbs crumbs \"${{COMP_WORDS[$COMP_CWORD]}}\" \"${{COMP_WORDS[$COMP_CWORD-1]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\"", script.str());
        let out = run_command({
            let mut c = Command::new("bash");
            c.args(["-c", &line]);
            c
        }, None, TIMEOUT);
        out.assert_ok();
        out.stdout
    };
    assert_eq!(complete("crumbs --dump", 1), "--dump-bpf\n");
    assert_eq!(complete("crumbs --compl", 1), "--completions\n");
    let values = complete("crumbs --completions ''", 2);
    assert!(values.lines().any(|v| v == "zsh") && values.lines().any(|v| v == "fish"), "{values}");
    let out = run(&["--completions", "nosh"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("invalid value 'nosh' for '--completions <SHELL>'"), "{}", out.dump());
}

/// spec §9.6: on a terminal, attaching many probes (here the system calls' read
/// tracepoints, one program each) is one line redrawn in place and erased when done;
/// the threshold is lowered so the test does not depend on how slow the kernel is.
#[test]
fn a_long_attach_shows_progress_redrawn_on_a_terminal() {
    let mut cmd = crumbs_cmd(&["-e", "tracepoint:syscalls:sys_enter_*read*, tracepoint:syscalls:sys_exit_*read* { @[probename] = count(); } tick-100ms { exit(0); }"]);
    cmd.env("CRUMBS_PROGRESS_AFTER_MS", "0").env("TERM", "xterm");
    let mut pty = Pty::spawn(cmd);
    let status = pty.wait(TIMEOUT);
    assert_eq!(status.code(), Some(0), "{}", pty.transcript());
    // Let the reader take in the last output.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let raw = pty.raw();
    let matched: usize = raw.split("matched ").nth(1).and_then(|s| s.split(' ').next()).and_then(|n| n.parse().ok()).expect("banner");
    assert!(matched > 16, "{raw:?}");
    let attaching = format!("\rcrumbs: attaching probes 1/{matched}");
    let at = raw.find(&attaching).unwrap_or_else(|| panic!("no {attaching:?} in {raw:?}"));
    // Erased before anything else is written on that line.
    assert!(raw[at..].contains("\r\x1b[K"), "{raw:?}");
    // Not a line of its own, as it is in a log.
    assert!(!raw.contains("done after"), "{raw:?}");
}
