//! The REPL on a real terminal (a pseudo-terminal): `:run` tracing io-benchmark with exact
//! counts printed when it exits and `:again`, Tab completing members after `->` and
//! tracepoint fields, a diagnostic shown inline before a program that works, and history
//! kept across sessions. As root, as the other live tests.

mod common;

use common::pty::Pty;
use common::{crumbs_cmd, path_with_bins, TempPath, TIMEOUT};
use std::time::Duration;

/// How long a program's output may take to appear.
const WAIT: Duration = Duration::from_secs(30);

/// crumbs' REPL on a pseudo-terminal, its history under `home`.
fn repl(home: &TempPath, args: &[&str]) -> Pty {
    let mut cmd = crumbs_cmd(args);
    cmd.env("TERM", "xterm").env("HOME", home.path()).env("PATH", path_with_bins());
    let mut pty = Pty::spawn(cmd);
    pty.expect_last("crumbs> ", WAIT);
    pty
}

/// Types `text` and Enter; waits for the line to be taken (the editor's redraws of what
/// is typed show the prompt again and again, without a newline).
fn enter(pty: &mut Pty, text: &str) {
    pty.send(&format!("{text}\r"));
    pty.expect("\n", WAIT);
}

/// Leaves the REPL with `:quit`; it exits with the status of the last program run.
fn quit(mut pty: Pty, status: i32) {
    enter(&mut pty, ":quit");
    assert_eq!(pty.wait(TIMEOUT).code(), Some(status), "{}", pty.transcript());
}

#[test]
fn run_traces_the_command_and_prints_its_counts_when_it_exits() {
    let home = TempPath::dir("home");
    let file = TempPath::new("iofile");
    let mut pty = repl(&home, &["-q"]);
    // 64 KiB read in 4 KiB reads, three passes: 48 reads and an lseek between passes.
    enter(&mut pty, &format!(":run io-benchmark -c -r -b 4K -s 64K -n 3 {}", file.str()));
    pty.expect("$target is its pid", WAIT);
    pty.expect_last("crumbs> ", WAIT);
    enter(&mut pty, "syscall::read:entry, syscall::lseek:entry /pid == $target/ { @[probefunc] = count(); }");
    let shown = pty.expect_last("crumbs> ", WAIT);
    assert!(rows(&shown).contains(&("lseek".to_string(), 2)), "{shown}");
    assert!(rows(&shown).contains(&("read".to_string(), 48)), "{shown}");
    // :again runs the same program again, on a new run of the command.
    enter(&mut pty, ":again");
    let shown = pty.expect_last("crumbs> ", WAIT);
    assert!(rows(&shown).contains(&("read".to_string(), 48)), "{shown}");
    // :run alone: the programs trace no command again ($target is then an error).
    enter(&mut pty, ":run");
    pty.expect("trace no command", WAIT);
    pty.expect_last("crumbs> ", WAIT);
    enter(&mut pty, "BEGIN { trace($target); exit(0); }");
    pty.expect("$target", WAIT);
    pty.expect_last("crumbs> ", WAIT);
    quit(pty, 2);
}

/// Rows `NAME COUNT` of DTrace's aggregation layout in `text`.
fn rows(text: &str) -> Vec<(String, i64)> {
    text.lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let (k, v) = (w.next()?, w.next()?);
            w.next().is_none().then_some(())?;
            Some((k.to_string(), v.parse().ok()?))
        })
        .collect()
}

/// `:attach PID` traces a running process as -p: `$target` is its pid, and the program
/// ends (the prompt returns) when the process exits.
#[test]
fn attach_traces_a_running_process_until_it_exits() {
    let home = TempPath::dir("home");
    let mut sleeper = std::process::Command::new("sleep").arg("4").spawn().expect("start sleep");
    let mut pty = repl(&home, &[]);
    enter(&mut pty, &format!(":attach {}", sleeper.id()));
    pty.expect(&format!("trace process {} ($target)", sleeper.id()), WAIT);
    pty.expect_last("crumbs> ", WAIT);
    enter(&mut pty, r#"BEGIN { printf("target %d\n", $target); }"#);
    pty.expect(&format!("target {}", sleeper.id()), WAIT);
    pty.expect(&format!("crumbs: pid {} has exited", sleeper.id()), WAIT);
    pty.expect_last("crumbs> ", WAIT);
    let _ = sleeper.wait();
    // The process is gone: the next program says so, and the REPL goes on.
    enter(&mut pty, "BEGIN { exit(0); }");
    pty.expect("cannot watch that process", WAIT);
    pty.expect_last("crumbs> ", WAIT);
    enter(&mut pty, ":attach");
    pty.expect("trace no process", WAIT);
    pty.expect_last("crumbs> ", WAIT);
    quit(pty, 2);
}

#[test]
fn tab_completes_members_after_arrows_and_tracepoint_fields() {
    let home = TempPath::dir("home");
    let mut pty = repl(&home, &["-q"]);
    // The members of the struct the expression points to, from BTF, through a cast.
    pty.send("BEGIN { printf(\"%d\\n\", ((struct task_struct *)curthread)->real_pa\t");
    pty.expect("real_parent", WAIT);
    pty.send("->tgi\t");
    pty.expect("real_parent->tgid", WAIT);
    enter(&mut pty, " > 0); exit(0); }");
    pty.expect("1\n", WAIT);
    pty.expect_last("crumbs> ", WAIT);
    // A tracepoint's fields after args->.
    pty.send("tracepoint:syscalls:sys_enter_read /pid == 1234567/ { @[args->cou\t");
    pty.expect("args->count", WAIT);
    enter(&mut pty, "] = count(); } BEGIN { exit(0); }");
    pty.expect_last("crumbs> ", WAIT);
    // Functions: the common start, then (Tab again) the list, with their signatures.
    pty.send("BEGIN { x = copyi\t\t");
    pty.expect("copyin(addr, size)", WAIT);
    pty.expect("copyinstr(addr)", WAIT);
    pty.send("\x03");
    pty.expect_last("crumbs> ", WAIT);
    // The hint after a function's `(`: its parameters and what it does.
    pty.send("BEGIN { trace(");
    pty.expect("expr)  — print the value of an expression", WAIT);
    pty.send("\x03");
    pty.expect_last("crumbs> ", WAIT);
    // A provider's probes, field by field.
    pty.send("syscall::clock_getti\t");
    pty.expect("syscall::clock_gettime:", WAIT);
    pty.send("ent\t");
    pty.expect("clock_gettime:entry", WAIT);
    pty.send("\x03");
    pty.expect_last("crumbs> ", WAIT);
    quit(pty, 0);
}

#[test]
fn an_error_is_shown_inline_and_the_next_program_runs() {
    let home = TempPath::dir("home");
    let mut pty = repl(&home, &["-q"]);
    enter(&mut pty, "BEGIN { trace(nosuchvar); }");
    let shown = pty.expect_last("crumbs> ", WAIT);
    assert!(shown.contains("<repl>:1:"), "{shown}");
    assert!(shown.contains("nosuchvar"), "{shown}");
    enter(&mut pty, "BEGIN { printf(\"six times seven is %d\\n\", 6 * 7); exit(0); }");
    pty.expect("six times seven is 42", WAIT);
    pty.expect_last("crumbs> ", WAIT);
    // A command's mistake too.
    enter(&mut pty, ":attach zero");
    pty.expect(":attach zero: not a process id", WAIT);
    pty.expect_last("crumbs> ", WAIT);
    quit(pty, 0);
}

#[test]
fn history_is_kept_across_sessions() {
    let home = TempPath::dir("home");
    let mut pty = repl(&home, &["-q"]);
    enter(&mut pty, "BEGIN { printf(\"remembered %d\\n\", 5 + 6); exit(0); }");
    pty.expect("remembered 11", WAIT);
    pty.expect_last("crumbs> ", WAIT);
    quit(pty, 0);
    // A new session: Up brings the program back, Enter runs it.
    let mut pty = repl(&home, &["-q"]);
    pty.send("\x1b[A");
    pty.expect("5 + 6", WAIT);
    enter(&mut pty, "");
    pty.expect("remembered 11", WAIT);
    pty.expect_last("crumbs> ", WAIT);
    quit(pty, 0);
}

#[test]
fn type_and_list_commands() {
    let home = TempPath::dir("home");
    let mut pty = repl(&home, &[]);
    enter(&mut pty, ":type struct list_head");
    let shown = pty.expect_last("crumbs> ", WAIT);
    assert!(shown.contains("struct list_head {\n\tstruct list_head *next;\n\tstruct list_head *prev;\n};"), "{shown}");
    enter(&mut pty, ":type struct no_such_thing_here");
    pty.expect("the kernel has no struct no_such_thing_here", WAIT);
    pty.expect_last("crumbs> ", WAIT);
    enter(&mut pty, ":list syscall::clock_gettime:");
    let shown = pty.expect_last("crumbs> ", WAIT);
    let listed: Vec<Vec<&str>> = shown.lines().map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>()).filter(|w| w.first() == Some(&"syscall")).collect();
    assert_eq!(listed, [["syscall", "vmlinux", "clock_gettime", "entry"], ["syscall", "vmlinux", "clock_gettime", "return"]], "{shown}");
    quit(pty, 0);
}
