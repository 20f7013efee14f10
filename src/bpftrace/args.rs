//! bpftrace's command line as GNU getopt_long(3) reads it: short options cluster (`-qe
//! PROGRAM`, `-kk`), a short option's argument is the rest of its word or else the next word,
//! a long option's is after `=` or the next word, options may follow operands (GNU
//! permutation: `bpftrace -e PROG -q` is quiet), and `--` ends the options. The operands are
//! the script (unless `-e` gave the program) and then the positional parameters.

/// The short options bpftrace 0.17 takes; a letter followed by `:` takes an argument.
const SHORTS: &str = "B:f:e:hlp:vqc:Vo:I:kd";
/// Its long options, and whether each takes an argument.
const LONGS: &[(&str, bool)] = &[
    ("help", false),
    ("version", false),
    ("unsafe", false),
    ("info", false),
    ("no-warnings", false),
    ("usdt-file-activation", false),
    ("include", true),
    ("emit-llvm", true),
    ("emit-elf", true),
    ("btf", true),
    // Current bpftrace's (spec §10.6).
    ("dry-run", false),
    ("probe-filter", true),
    ("no-feature", true),
    ("debug", true),
    ("debuginfo", true),
    ("traceable-functions", true),
    ("fmt", false),
    ("test", false),
    ("bench", false),
    ("mode", true),
];

/// One option as given: a short letter (`"q"`) or a long name (`"unsafe"`), and its
/// argument (empty for an option that takes none).
#[derive(Debug, PartialEq, Eq)]
pub struct Opt {
    pub name: String,
    pub arg: String,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub options: Vec<Opt>,
    pub operands: Vec<String>,
}

fn short_takes_argument(c: char) -> bool {
    SHORTS.find(c).is_some_and(|at| SHORTS[at + c.len_utf8()..].starts_with(':'))
}

/// `args` without `argv[0]`; an error is getopt's line without the program's name
/// (`invalid option -- 'Z'`).
pub fn getopt(args: &[String]) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut words = args.iter();
    let opt = |name: &str, arg: &str| Opt { name: name.to_string(), arg: arg.to_string() };
    while let Some(word) = words.next() {
        if word == "--" {
            parsed.operands.extend(words.cloned());
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, a)) => (n, Some(a)),
                None => (long, None),
            };
            // getopt_long takes any unambiguous prefix of a long option's name.
            let exact = LONGS.iter().find(|(l, _)| *l == name);
            let prefixed: Vec<_> = LONGS.iter().filter(|(l, _)| l.starts_with(name)).collect();
            let &(full, takes) = match (exact, prefixed.as_slice()) {
                (Some(l), _) => l,
                (None, [l]) => *l,
                (None, []) => return Err(format!("unrecognized option '--{name}'")),
                (None, many) => {
                    let names: Vec<String> = many.iter().map(|(l, _)| format!("'--{l}'")).collect();
                    return Err(format!("option '--{name}' is ambiguous; possibilities: {}", names.join(" ")));
                }
            };
            let arg = match (takes, attached) {
                (false, Some(_)) => return Err(format!("option '--{full}' doesn't allow an argument")),
                (false, None) => String::new(),
                (true, Some(a)) => a.to_string(),
                (true, None) => words.next().cloned().ok_or_else(|| format!("option '--{full}' requires an argument"))?,
            };
            parsed.options.push(opt(full, &arg));
            continue;
        }
        let Some(letters) = word.strip_prefix('-').filter(|l| !l.is_empty()) else {
            // `-` alone is the script read from standard input.
            parsed.operands.push(word.clone());
            continue;
        };
        for (i, c) in letters.char_indices() {
            if c == ':' || !SHORTS.contains(c) {
                return Err(format!("invalid option -- '{c}'"));
            }
            if !short_takes_argument(c) {
                parsed.options.push(opt(&c.to_string(), ""));
                continue;
            }
            let rest = &letters[i + c.len_utf8()..];
            let arg = if !rest.is_empty() { rest.to_string() } else { words.next().cloned().ok_or_else(|| format!("option requires an argument -- '{c}'"))? };
            parsed.options.push(opt(&c.to_string(), &arg));
            break;
        }
    }
    Ok(parsed)
}

/// bpftrace's usage text (on standard error), adapted: crumbs has no LLVM IR to write.
pub const USAGE: &str = "\
USAGE:
    bpftrace [options] filename
    bpftrace [options] - <stdin input>
    bpftrace [options] -e 'program'

OPTIONS:
    -B MODE        output buffering mode ('full', 'none')
    -f FORMAT      output format ('text', 'json')
    -o file        redirect bpftrace output to file
    -e 'program'   execute this program
    -h, --help     show this help message
    -I DIR         add the directory to the include search path
    --include FILE add an #include file before preprocessing
    -l [search]    list probes
    -p PID         enable USDT probes on PID
    -c 'CMD'       run CMD and enable USDT probes on resulting process
    --usdt-file-activation
                   activate usdt semaphores based on file path
    --unsafe       allow unsafe builtin functions
    -q             keep messages quiet
    --info         Print information about kernel BPF support
    -k             emit a warning when a bpf helper returns an error (except read functions)
    -kk            check all bpf helper functions
    -V, --version  bpftrace version
    --no-warnings  disable all warning messages
    --dry-run      load and attach the probes, then exit without running them
    --probe-filter REGEX
                   attach only the probes whose names match REGEX
    --no-feature kprobe_multi,uprobe_multi
                   do not use those kernel features

TROUBLESHOOTING OPTIONS:
    -v                      verbose messages
    -d                      (dry run) debug info
    -dd                     (dry run) verbose debug info
    --emit-elf FILE         (dry run) generate ELF file with bpf programs and write to FILE
    --debug dis             print the BPF instructions of each program, then trace

ENVIRONMENT:
    BPFTRACE_STRLEN             [default: 64] bytes on BPF stack per str()
    BPFTRACE_MAP_KEYS_MAX       [default: 4096] max keys in a map
    BPFTRACE_STACK_MODE         [default: bpftrace] output format for ustack and kstack

EXAMPLES:
bpftrace -l '*sleep*'
    list probes containing \"sleep\"
bpftrace -e 'kprobe:do_nanosleep { printf(\"PID %d sleeping...\\n\", pid); }'
    trace processes calling sleep
bpftrace -e 'tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }'
    count syscalls by process name
";

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &[&str]) -> Vec<String> {
        s.iter().map(|w| w.to_string()).collect()
    }

    fn opts(p: &Parsed) -> Vec<(&str, &str)> {
        p.options.iter().map(|o| (o.name.as_str(), o.arg.as_str())).collect()
    }

    #[test]
    fn options_cluster_and_follow_operands() {
        let p = getopt(&words(&["-qe", "BEGIN{}", "a", "-kk", "--unsafe", "b"])).unwrap();
        assert_eq!(opts(&p), [("q", ""), ("e", "BEGIN{}"), ("k", ""), ("k", ""), ("unsafe", "")]);
        assert_eq!(p.operands, ["a", "b"]);
    }

    #[test]
    fn long_options_take_their_argument_either_way_and_double_dash_ends_options() {
        let p = getopt(&words(&["--emit-elf=x.o", "--include", "h.h", "-", "--", "-q"])).unwrap();
        assert_eq!(opts(&p), [("emit-elf", "x.o"), ("include", "h.h")]);
        assert_eq!(p.operands, ["-", "-q"]);
        assert_eq!(opts(&getopt(&words(&["--vers"])).unwrap()), [("version", "")]);
    }

    #[test]
    fn errors_are_getopt_longs() {
        assert_eq!(getopt(&words(&["-Z"])).unwrap_err(), "invalid option -- 'Z'");
        assert_eq!(getopt(&words(&["-e"])).unwrap_err(), "option requires an argument -- 'e'");
        assert_eq!(getopt(&words(&["--bogus"])).unwrap_err(), "unrecognized option '--bogus'");
        assert_eq!(getopt(&words(&["--emit-elf"])).unwrap_err(), "option '--emit-elf' requires an argument");
        assert_eq!(getopt(&words(&["--unsafe=1"])).unwrap_err(), "option '--unsafe' doesn't allow an argument");
        assert_eq!(getopt(&words(&["--e"])).unwrap_err(), "option '--e' is ambiguous; possibilities: '--emit-llvm' '--emit-elf'");
    }
}
