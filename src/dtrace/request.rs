//! The first two passes over dtrace's options, as dtrace.c makes them: the mode (`-l`, `-V`,
//! `-h`, `-G`, `-e`), which may end the run at once (`-V`, a usage error, not root), then the
//! settings and the programs, in command-line order.

use super::args;
use super::options::Settings;
use super::source::Spec;
use crate::run::DTRACE;
use std::process::ExitCode;

/// What `dtrace -V` reports: the D version crumbs implements (illumos' latest).
const VERSION: &str = concat!("crumbs D 1.13 (crumbs ", env!("CARGO_PKG_VERSION"), ")");
/// The option letters that stand for a dtrace option (`-D X` is `-x define=X`), as dtrace.c
/// sets them; a letter's argument is the option's value.
const LETTERS: &[(char, &str)] = &[
    ('b', "bufsize"),
    ('C', "cpp"),
    ('D', "define"),
    ('F', "flowindent"),
    ('H', "cpphdrs"),
    ('I', "incdir"),
    ('S', "verbose"),
    ('U', "undef"),
    ('w', "destructive"),
    ('X', "stdc"),
    ('Z', "zdefs"),
];
/// dtrace's status for a usage error.
const E_USAGE: u8 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Exec,
    List,
    Version,
    Header,
    Link,
}

/// A `-n`-like specifier or a `-s` script.
pub enum Cmd {
    Spec(Spec, String),
    Script(String),
}

impl Cmd {
    pub fn arg(&self) -> &str {
        match self {
            Cmd::Spec(_, a) | Cmd::Script(a) => a,
        }
    }
}

/// The command line, read.
pub struct Request {
    /// `argv[0]` as invoked (`$0` without a script).
    pub argv0: String,
    pub mode: Mode,
    /// False with `-e` (and `-h`): compile only.
    pub exec: bool,
    pub verbose: bool,
    pub quiet: bool,
    pub settings: Settings,
    pub output: Option<String>,
    pub commands: Vec<String>,
    pub pids: Vec<String>,
    pub cmds: Vec<Cmd>,
    /// `$1`, `$2`, ...
    pub operands: Vec<String>,
}

/// A usage error: the line, if any, then dtrace's usage; status 2.
pub fn usage_error(line: Option<String>) -> ExitCode {
    if let Some(line) = line {
        eprintln!("{}: {line}", DTRACE.name);
    }
    eprint!("{}", args::usage(DTRACE.name));
    ExitCode::from(E_USAGE)
}

/// A usage error said in one line; status 2.
pub fn say_usage(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("{}: {msg}", DTRACE.name);
    ExitCode::from(E_USAGE)
}

/// Reads the command line; `Err` is the status to exit with, its message said.
pub fn read(argv: &[String]) -> Result<Request, ExitCode> {
    let argv0 = argv.first().cloned().unwrap_or_else(|| "dtrace".into());
    if argv.len() <= 1 {
        return Err(usage_error(None));
    }
    let parsed = args::getopt(&argv[1..]).map_err(|line| usage_error(Some(line)))?;

    // The mode.
    let (mut mode, mut modes, mut exec, mut verbose) = (Mode::Exec, 0, true, false);
    for (c, arg) in &parsed.options {
        match (c, arg.as_str()) {
            ('3', a) if a != "2" => return Err(usage_error(Some(format!("illegal option -- 3{a}")))),
            ('6', a) if a != "4" => return Err(usage_error(Some(format!("illegal option -- 6{a}")))),
            ('3', _) => return Err(say_usage("-32 is not supported: crumbs compiles for the 64-bit data model")),
            ('e', _) => exec = false,
            ('v', _) => verbose = true,
            ('l' | 'V' | 'h' | 'G', _) => {
                modes += 1;
                mode = match c {
                    'l' => Mode::List,
                    'V' => Mode::Version,
                    'h' => Mode::Header,
                    _ => Mode::Link,
                };
                // dtrace's -h and -G compile without enabling anything.
                if matches!(mode, Mode::Header | Mode::Link) {
                    exec = false;
                }
            }
            _ => {}
        }
    }
    if modes > 1 {
        return Err(say_usage("only one of the [-GhlV] options can be specified at a time"));
    }
    match mode {
        Mode::Version => {
            println!("{}: {VERSION}", DTRACE.name);
            return Err(ExitCode::SUCCESS);
        }
        Mode::Link => return Err(say_usage("-G is not supported: crumbs has no statically defined user-space probes to link")),
        // SAFETY: getuid has no preconditions.
        Mode::List | Mode::Exec if unsafe { libc::getuid() } != 0 => return Err(say_usage("run as root for tracing and listing probes")),
        _ => {}
    }

    // The settings and the programs.
    let mut r = Request {
        argv0,
        mode,
        exec,
        verbose,
        quiet: false,
        settings: Settings { zdefs: matches!(mode, Mode::List | Mode::Header), ..Default::default() },
        output: None,
        commands: Vec::new(),
        pids: Vec::new(),
        cmds: Vec::new(),
        operands: parsed.operands,
    };
    for (c, arg) in &parsed.options {
        let a = arg.as_str();
        if let Some(&(_, name)) = LETTERS.iter().find(|(l, _)| l == c) {
            let value = args::takes_argument(*c).then_some(a);
            let said = value.map(|v| format!(" {v}")).unwrap_or_default();
            r.settings.set(name, value).map_err(|why| DTRACE.fail(format!("failed to set -{c}{said}: {why}")))?;
            continue;
        }
        match c {
            'x' => r.settings.set_x(a).map_err(|why| DTRACE.fail(format!("failed to set -x {}: {why}", a.split('=').next().unwrap_or(a))))?,
            'B' => return Err(say_usage("-B is not supported by crumbs")),
            'q' => r.quiet = true,
            'o' => r.output = Some(a.to_string()),
            'c' => r.commands.push(a.to_string()),
            'p' => r.pids.push(a.to_string()),
            's' => r.cmds.push(Cmd::Script(a.to_string())),
            'n' => r.cmds.push(Cmd::Spec(Spec::Name, a.to_string())),
            'P' => r.cmds.push(Cmd::Spec(Spec::Provider, a.to_string())),
            'm' => r.cmds.push(Cmd::Spec(Spec::Module, a.to_string())),
            'f' => r.cmds.push(Cmd::Spec(Spec::Function, a.to_string())),
            'i' => r.cmds.push(Cmd::Spec(Spec::Id, a.to_string())),
            // -a, -A, -L, -6 4 and the mode letters: nothing more to do.
            _ => {}
        }
    }
    Ok(r)
}
