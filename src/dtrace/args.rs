//! dtrace(1)'s command line as getopt(3) reads it: option letters cluster (`-qs FILE`, as a
//! `#!/usr/sbin/dtrace -qs` line passes them), an option's argument is the rest of its word
//! or else the next word, options and operands mix in any order, and `--` ends the options.
//! The operands are the macro arguments `$1`, `$2`, ...

/// The options of dtrace(1) on Linux (Oracle's dtrace-utils): a letter followed by `:`
/// takes an argument.
const OPTSTRING: &str = "3:6:aAb:Bc:CD:ef:FGhHi:I:lL:m:n:o:p:P:qs:SU:vVwx:X:Z";

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Each option in order, with its argument (empty for an option that takes none).
    pub options: Vec<(char, String)>,
    pub operands: Vec<String>,
}

/// Whether option letter `c` takes an argument.
pub fn takes_argument(c: char) -> bool {
    OPTSTRING.find(c).is_some_and(|at| OPTSTRING[at + c.len_utf8()..].starts_with(':'))
}

/// `args` without `argv[0]`; an error is getopt's line without the program's name.
pub fn getopt(args: &[String]) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            parsed.operands.extend(words.cloned());
            break;
        }
        let Some(letters) = word.strip_prefix('-').filter(|l| !l.is_empty()) else {
            parsed.operands.push(word.clone());
            continue;
        };
        for (i, c) in letters.char_indices() {
            if c == ':' || !OPTSTRING.contains(c) {
                return Err(format!("invalid option -- '{c}'"));
            }
            if !takes_argument(c) {
                parsed.options.push((c, String::new()));
                continue;
            }
            let rest = &letters[i + c.len_utf8()..];
            let arg = if !rest.is_empty() {
                rest.to_string()
            } else {
                words.next().cloned().ok_or_else(|| format!("option requires an argument -- '{c}'"))?
            };
            parsed.options.push((c, arg));
            break;
        }
    }
    Ok(parsed)
}

/// dtrace's usage message (on standard error, status 2).
pub fn usage(pname: &str) -> String {
    let predact = "[[ predicate ] action ]";
    format!(
        "Usage: {pname} [-32|-64] [-CeFGhHlqSvVwZ] [-b bufsz] [-c cmd] [-D name[=def]]\n\
         \t[-I path] [-L path] [-o output] [-p pid] [-s script] [-U name]\n\
         \t[-x opt[=val]] [-X a|c|s|t]\n\n\
         \t[-P provider {predact}]\n\
         \t[-m [ provider: ] module {predact}]\n\
         \t[-f [[ provider: ] module: ] func {predact}]\n\
         \t[-n [[[ provider: ] module: ] func: ] name {predact}]\n\
         \t[-i probe-id {predact}] [ args ... ]\n\n\
         \tpredicate -> '/' D-expression '/'\n\
         \t   action -> '{{' D-statements '}}'\n\n\
         \t-32 generate 32-bit D programs and ELF files\n\
         \t-64 generate 64-bit D programs and ELF files\n\n\
         \t-b  set trace buffer size\n\
         \t-c  run specified command and exit upon its completion\n\
         \t-C  run cpp(1) preprocessor on script files\n\
         \t-D  define symbol when invoking preprocessor\n\
         \t-e  exit after compiling request but prior to enabling probes\n\
         \t-f  enable or list probes matching the specified function name\n\
         \t-F  coalesce trace output by function\n\
         \t-G  generate an ELF file containing embedded dtrace program\n\
         \t-h  generate a header file with definitions for static probes\n\
         \t-H  print included files when invoking preprocessor\n\
         \t-i  enable or list probes matching the specified probe id\n\
         \t-I  add include directory to preprocessor search path\n\
         \t-l  list probes matching specified criteria\n\
         \t-L  add library directory to library search path\n\
         \t-m  enable or list probes matching the specified module name\n\
         \t-n  enable or list probes matching the specified probe name\n\
         \t-o  set output file\n\
         \t-p  grab specified process-ID and cache its symbol tables\n\
         \t-P  enable or list probes matching the specified provider name\n\
         \t-q  set quiet mode (only output explicitly traced data)\n\
         \t-s  enable or list probes according to the specified D script\n\
         \t-S  print D compiler intermediate code\n\
         \t-U  undefine symbol when invoking preprocessor\n\
         \t-v  set verbose mode (report stability attributes, arguments)\n\
         \t-V  report DTrace API version\n\
         \t-w  permit destructive actions\n\
         \t-x  enable or modify compiler and tracing options\n\
         \t-X  specify ISO C conformance settings for preprocessor\n\
         \t-Z  permit probe descriptions that match zero probes\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &[&str]) -> Vec<String> {
        s.iter().map(|w| w.to_string()).collect()
    }

    fn opts(p: &Parsed) -> Vec<(char, &str)> {
        p.options.iter().map(|(c, a)| (*c, a.as_str())).collect()
    }

    #[test]
    fn clusters_take_their_argument_from_the_next_word() {
        // What a `#!/usr/sbin/dtrace -qs` line passes.
        let p = getopt(&words(&["-qs", "x.d", "a", "b"])).unwrap();
        assert_eq!(opts(&p), [('q', ""), ('s', "x.d")]);
        assert_eq!(p.operands, ["a", "b"]);
    }

    #[test]
    fn an_argument_can_be_attached_and_options_follow_operands() {
        let p = getopt(&words(&["-xbufsize=4m", "one", "-n", "BEGIN", "-", "--", "-q"])).unwrap();
        assert_eq!(opts(&p), [('x', "bufsize=4m"), ('n', "BEGIN")]);
        assert_eq!(p.operands, ["one", "-", "-q"]);
        assert_eq!(opts(&getopt(&words(&["-32"])).unwrap()), [('3', "2")]);
    }

    #[test]
    fn errors_are_getopts() {
        assert_eq!(getopt(&words(&["-k"])).unwrap_err(), "invalid option -- 'k'");
        assert_eq!(getopt(&words(&["-q:"])).unwrap_err(), "invalid option -- ':'");
        assert_eq!(getopt(&words(&["-qs"])).unwrap_err(), "option requires an argument -- 's'");
        assert_eq!(getopt(&words(&["--help"])).unwrap_err(), "invalid option -- '-'");
    }
}
