//! dtrace's options, from `-x NAME[=VALUE]`, the option letters that stand for them (`-b`,
//! `-C`, `-D`, `-F`, `-w`, `-Z`, ...: the request's table) and `#pragma D option`: every name
//! illumos' or Oracle's libdtrace knows is accepted, and [`Settings`] keeps what crumbs does
//! with it. (`-q` the request keeps apart, so it holds whatever `-x quiet=0` says.)

use crumbs_lang::check::apply_option;
use crumbs_lang::ir::Options;

/// What crumbs does with an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    /// The compiler's own (spec §3.2): passed on as `-x`.
    Compiler,
    /// A flag the front end keeps; dtrace takes no value for it (`errtags`, `zdefs`).
    Flag,
    /// A run-time switch the front end keeps; dtrace takes a value for it and ignores it.
    Switch,
    /// A preprocessor option with a value (`define`: `-D`).
    Cpp(&'static str),
    /// Which cpp to run.
    CppPath,
    /// The preprocessor's C standard (`-X`).
    Stdc,
    /// Accepted and otherwise ignored.
    Ignored,
}

/// Every option of libdtrace (illumos and Oracle Linux), with its use here.
const OPTIONS: &[(&str, Use)] = &[
    ("agghist", Use::Ignored),
    ("aggpack", Use::Compiler),
    ("aggpercpu", Use::Ignored),
    ("aggrate", Use::Compiler),
    ("aggsize", Use::Compiler),
    ("aggsortkey", Use::Compiler),
    ("aggsortkeypos", Use::Compiler),
    ("aggsortpos", Use::Compiler),
    ("aggsortrev", Use::Compiler),
    ("aggzoom", Use::Ignored),
    ("amin", Use::Ignored),
    ("argref", Use::Ignored),
    ("bpflog", Use::Ignored),
    ("bpflogsize", Use::Ignored),
    ("bufpolicy", Use::Ignored),
    ("bufresize", Use::Ignored),
    ("bufsize", Use::Compiler),
    ("cleanrate", Use::Ignored),
    ("core", Use::Ignored),
    ("cpp", Use::Flag),
    ("cppargs", Use::Ignored),
    ("cpphdrs", Use::Flag),
    ("cpppath", Use::CppPath),
    ("cpu", Use::Ignored),
    ("ctfpath", Use::Ignored),
    ("ctypes", Use::Ignored),
    ("debug", Use::Ignored),
    ("debugassert", Use::Ignored),
    ("defaultargs", Use::Ignored),
    ("define", Use::Cpp("-D")),
    ("destructive", Use::Switch),
    ("disasm", Use::Ignored),
    ("dofstashpath", Use::Ignored),
    ("droptags", Use::Ignored),
    ("dtypes", Use::Ignored),
    ("dynvarsize", Use::Compiler),
    ("empty", Use::Ignored),
    ("encoding", Use::Ignored),
    ("errtags", Use::Flag),
    ("evaltime", Use::Ignored),
    ("flowindent", Use::Switch),
    ("grabanon", Use::Ignored),
    ("incdir", Use::Cpp("-I")),
    ("iregs", Use::Ignored),
    ("jstackframes", Use::Compiler),
    ("jstackstrsize", Use::Compiler),
    ("kdefs", Use::Ignored),
    ("knodefs", Use::Ignored),
    ("late", Use::Ignored),
    ("lazyload", Use::Ignored),
    ("ldpath", Use::Ignored),
    ("libdir", Use::Ignored),
    ("linkmode", Use::Ignored),
    ("linknommap", Use::Ignored),
    ("linktype", Use::Ignored),
    ("lockmem", Use::Ignored),
    ("maxframes", Use::Ignored),
    ("modpath", Use::Ignored),
    ("nolibs", Use::Ignored),
    ("noresolve", Use::Ignored),
    ("nspec", Use::Compiler),
    ("pcapsize", Use::Compiler),
    ("pgmax", Use::Ignored),
    ("preallocate", Use::Ignored),
    ("printsize", Use::Ignored),
    ("procfspath", Use::Ignored),
    ("pspec", Use::Ignored),
    ("quiet", Use::Compiler),
    ("quietresize", Use::Ignored),
    ("rawbytes", Use::Compiler),
    ("scratchsize", Use::Ignored),
    ("setenv", Use::Ignored),
    ("specsize", Use::Compiler),
    ("stackframes", Use::Compiler),
    ("stackindent", Use::Ignored),
    ("statusrate", Use::Ignored),
    ("stdc", Use::Stdc),
    ("strip", Use::Ignored),
    ("strsize", Use::Compiler),
    ("switchrate", Use::Compiler),
    ("syslibdir", Use::Ignored),
    ("sysslice", Use::Ignored),
    ("temporal", Use::Ignored),
    ("tree", Use::Ignored),
    ("tregs", Use::Ignored),
    ("udefs", Use::Ignored),
    ("undef", Use::Cpp("-U")),
    ("unodefs", Use::Ignored),
    ("unsetenv", Use::Ignored),
    ("useruid", Use::Ignored),
    ("ustackframes", Use::Compiler),
    ("verbose", Use::Flag),
    ("version", Use::Ignored),
    ("zdefs", Use::Flag),
];

/// libdtrace's words for a refused option (EDT_BADOPTNAME, EDT_BADOPTVAL).
pub const BAD_NAME: &str = "Invalid option name";
pub const BAD_VALUE: &str = "Invalid value for specified option";

/// What the command line and the pragmas asked for.
#[derive(Debug, Default)]
pub struct Settings {
    /// `-x` options for the compiler, `NAME[=VALUE]`.
    pub compiler: Vec<String>,
    pub flowindent: bool,
    pub destructive: bool,
    pub zdefs: bool,
    pub errtags: bool,
    pub cpp: bool,
    /// `-H`: the preprocessor lists the files it includes.
    pub cpphdrs: bool,
    /// `-S` (the option `verbose`): show the compiled program.
    pub show_code: bool,
    /// `-D`, `-U` and `-I` for the preprocessor, in order.
    pub cpp_args: Vec<String>,
    pub cpp_path: Option<String>,
    /// `-X a|c|s|t`.
    pub stdc: Option<char>,
}

impl Settings {
    /// Sets option `name`; the error is libdtrace's reason.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<(), &'static str> {
        let Some(&(_, how)) = OPTIONS.iter().find(|(n, _)| *n == name) else { return Err(BAD_NAME) };
        match (how, value) {
            (Use::Compiler, _) => {
                apply_option(&mut Options::default(), name, value).map_err(|_| BAD_VALUE)?;
                self.compiler.push(value.map_or_else(|| name.to_string(), |v| format!("{name}={v}")));
            }
            (Use::Flag, Some(_)) => return Err(BAD_VALUE),
            (Use::Flag | Use::Switch, _) => {
                let on = match name {
                    "flowindent" => &mut self.flowindent,
                    "destructive" => &mut self.destructive,
                    "zdefs" => &mut self.zdefs,
                    "errtags" => &mut self.errtags,
                    "cpp" => &mut self.cpp,
                    "cpphdrs" => &mut self.cpphdrs,
                    "verbose" => &mut self.show_code,
                    _ => unreachable!("option {name} is a flag with no field in Settings"),
                };
                *on = true;
            }
            (Use::Cpp(flag), Some(v)) => self.cpp_args.push(format!("{flag}{v}")),
            (Use::CppPath, Some(v)) => self.cpp_path = Some(v.to_string()),
            (Use::Stdc, Some(v)) if ["a", "c", "s", "t"].contains(&v) => self.stdc = v.chars().next(),
            (Use::Cpp(_) | Use::CppPath | Use::Stdc, _) => return Err(BAD_VALUE),
            (Use::Ignored, _) => {}
        }
        Ok(())
    }

    /// `-x OPT[=VAL]`.
    pub fn set_x(&mut self, arg: &str) -> Result<(), &'static str> {
        match arg.split_once('=') {
            Some((n, v)) => self.set(n, Some(v)),
            None => self.set(arg, None),
        }
    }

    /// A `#pragma D option` the compiler does not know but dtrace does: the front end takes
    /// it (true) and the pragma can go.
    pub fn take_pragma(&mut self, name: &str, value: Option<&str>) -> bool {
        !compiler_knows(name, value) && self.set(name, value).is_ok()
    }
}

/// Whether the compiler knows the option (it may still refuse the value, and say so).
fn compiler_knows(name: &str, value: Option<&str>) -> bool {
    !matches!(apply_option(&mut Options::default(), name, value), Err((msg, _)) if msg.starts_with("unknown option"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_has_no_duplicates() {
        for pair in OPTIONS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} before {}", pair[0].0, pair[1].0);
        }
        // Every option the compiler knows is passed to it (destructive, -w's, through
        // CompileOptions).
        for (name, how) in OPTIONS {
            assert_eq!(compiler_knows(name, Some("1")), *how == Use::Compiler || *name == "destructive", "{name}");
        }
    }

    #[test]
    fn every_flag_has_its_field() {
        for (name, how) in OPTIONS.iter().filter(|(_, how)| matches!(how, Use::Flag | Use::Switch)) {
            let mut s = Settings::default();
            assert_eq!(s.set(name, None), Ok(()), "{name} {how:?}");
        }
    }

    #[test]
    fn names_and_values_are_checked_as_dtrace_does() {
        let mut s = Settings::default();
        assert_eq!(s.set_x("nosuch"), Err(BAD_NAME));
        assert_eq!(s.set_x("bufsize=lots"), Err(BAD_VALUE));
        assert_eq!(s.set_x("errtags=1"), Err(BAD_VALUE));
        assert_eq!(s.set_x("define"), Err(BAD_VALUE));
        assert_eq!(s.set_x("stdc=q"), Err(BAD_VALUE));
        for ok in ["bufsize=8m", "quiet", "errtags", "flowindent", "destructive=1", "define=X=2", "incdir=/tmp", "stdc=s", "amin=Evolving/Evolving/Common", "temporal"] {
            assert_eq!(s.set_x(ok), Ok(()), "{ok}");
        }
        assert_eq!(s.compiler, ["bufsize=8m", "quiet"]);
        assert!(s.errtags && s.flowindent && s.destructive);
        assert_eq!(s.cpp_args, ["-DX=2", "-I/tmp"]);
        assert_eq!(s.stdc, Some('s'));
    }

    #[test]
    fn pragmas_the_compiler_knows_stay() {
        let mut s = Settings::default();
        assert!(!s.take_pragma("quiet", None));
        assert!(!s.take_pragma("bufsize", Some("lots")));
        assert!(!s.take_pragma("nosuch", None));
        assert!(s.take_pragma("flowindent", None));
        assert!(s.take_pragma("temporal", None));
        assert!(s.flowindent);
    }
}
