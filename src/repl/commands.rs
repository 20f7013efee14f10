//! The REPL's `:` commands: what each takes, and doing those that do not run a program.

use super::State;
use crumbs_runtime::kernel::c_decl;
use std::io::Write;

pub const BANNER: &str = "type a D or bpftrace program (it runs until exit() or Ctrl-C), or :help.";

pub const HELP: &str = "\
Type a program; a clause ends when its braces close. It runs until it calls exit(), Ctrl-C
stops it, or the traced command or process exits; then its aggregations print.
  syscall:::entry /execname == \"cat\"/ { @[probefunc] = count(); }
Commands:
  :run CMD          trace CMD with the programs typed next: started once the probes are
                    attached, $target (cpid) its pid, tracing ends when it exits
  :run              programs trace no command again
  :attach PID       trace process PID with the programs typed next, as -p (:attach alone: stop)
  :again            run the last program again
  :list GLOB        list the probes a description matches (:list syscall::*read*:entry)
  :type struct NAME the kernel's struct (union, enum) NAME as C, from BTF
  :help             this help
  :quit             leave (or Ctrl-D)
Tab completes probe descriptions field by field, members after -> and ., builtins and
functions (listed with their signatures); → accepts the grey hint. History is kept in
~/.crumbs_history.";

/// A command typed at the prompt.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Run(Option<String>),
    Attach(Option<i32>),
    Again,
    List(String),
    Type(String),
    Help,
    Quit,
}

/// The command `input` is (None: it is a program), or what is wrong with it.
pub fn parse(input: &str) -> Result<Option<Command>, String> {
    let Some(rest) = input.strip_prefix(':') else { return Ok(None) };
    let (name, arg) = rest.split_once(char::is_whitespace).map_or((rest, ""), |(n, a)| (n, a.trim()));
    let arg = (!arg.is_empty()).then(|| arg.to_string());
    Ok(Some(match (name, arg) {
        ("run" | "r", a) => Command::Run(a),
        ("attach" | "a", None) => Command::Attach(None),
        ("attach" | "a", Some(a)) => match a.parse::<i32>() {
            Ok(pid) if pid > 0 => Command::Attach(Some(pid)),
            _ => return Err(format!(":attach {a}: not a process id (process ids are positive numbers)")),
        },
        ("again" | "g", None) => Command::Again,
        ("list" | "l", Some(a)) => Command::List(a),
        ("list" | "l", None) => return Err(":list needs a probe description, e.g. :list syscall::*read*:entry".into()),
        ("type" | "t", Some(a)) => Command::Type(a),
        ("type" | "t", None) => return Err(":type needs a type, e.g. :type struct file".into()),
        ("help" | "h" | "?", _) => Command::Help,
        ("quit" | "q" | "exit", None) => Command::Quit,
        (n, Some(_)) if ["again", "g", "quit", "q", "exit"].contains(&n) => return Err(format!(":{n} takes nothing")),
        (n, _) => return Err(format!("unknown command `:{n}` (:help lists them)")),
    }))
}

/// Does a command that runs no program.
pub fn obey(command: Command, state: &mut State) {
    match command {
        Command::Run(cmd) => {
            match &cmd {
                Some(c) => eprintln!("crumbs: the programs typed next trace `{c}` ($target is its pid)"),
                None => eprintln!("crumbs: the programs typed next trace no command"),
            }
            state.command = cmd;
            state.pid = None;
        }
        Command::Attach(pid) => {
            // SAFETY: signal 0 only checks that the process exists.
            if let Some(p) = pid.filter(|p| unsafe { libc::kill(*p, 0) } != 0) {
                eprintln!("crumbs: :attach {p}: cannot watch that process: {}", std::io::Error::last_os_error());
                return;
            }
            match pid {
                Some(p) => eprintln!("crumbs: the programs typed next trace process {p} ($target)"),
                None => eprintln!("crumbs: the programs typed next trace no process"),
            }
            state.pid = pid;
            state.command = None;
        }
        Command::List(glob) => {
            crate::list::matching("<repl>", &glob, false, state.pid.map(i64::from));
        }
        Command::Type(name) => match definition(&name) {
            Ok(def) => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(def.as_bytes());
                let _ = out.flush();
            }
            Err(e) => eprintln!("crumbs: :type {name}: {e}"),
        },
        Command::Help => eprintln!("{HELP}"),
        Command::Again | Command::Quit => {}
    }
}

/// The C definition of the kernel's `struct NAME` (`union NAME`, `enum NAME`; NAME alone:
/// whichever of them exists), from BTF.
fn definition(name: &str) -> Result<String, String> {
    let wanted: Vec<String> = match name.split_once(' ') {
        Some((kind @ ("struct" | "union" | "enum"), n)) => vec![format!("{kind} {}", n.trim())],
        Some(_) => return Err("name a struct, union or enum: :type struct NAME".into()),
        None => ["struct", "union", "enum"].iter().map(|k| format!("{k} {name}")).collect(),
    };
    let types = c_decl::named_types()?;
    let mut out = String::new();
    for w in &wanted {
        if let Some((_, id)) = types.iter().find(|(n, _)| n == w) {
            out.push_str(&c_decl::definition(*id)?.unwrap_or_else(|| format!("{w};\n")));
        }
    }
    if out.is_empty() {
        let kind = wanted[0].split(' ').next().unwrap_or("struct");
        let bare = wanted[0].split_once(' ').map_or(name, |(_, n)| n);
        let same_kind = types.iter().filter_map(|(n, _)| n.strip_prefix(kind)?.strip_prefix(' '));
        return Err(match crumbs_lang::diag::closest(bare, same_kind) {
            Some(c) => format!("the kernel has no {} (did you mean `{kind} {c}`?)", wanted.join(", ")),
            None => format!("the kernel has no {}", wanted.join(", ")),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_their_arguments() {
        assert_eq!(parse("syscall:::entry {}"), Ok(None));
        assert_eq!(parse(":run io-benchmark -n 3"), Ok(Some(Command::Run(Some("io-benchmark -n 3".into())))));
        assert_eq!(parse(":run"), Ok(Some(Command::Run(None))));
        assert_eq!(parse(":attach 42"), Ok(Some(Command::Attach(Some(42)))));
        assert!(parse(":attach -1").unwrap_err().contains("not a process id"));
        assert_eq!(parse(":type struct file"), Ok(Some(Command::Type("struct file".into()))));
        assert!(parse(":again now").unwrap_err().contains("takes nothing"));
        assert!(parse(":frob").unwrap_err().contains("unknown command `:frob`"));
    }
}
