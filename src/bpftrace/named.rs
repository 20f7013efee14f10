//! bpftrace's named program parameters (current bpftrace's): after the program, the words
//! that start with `--` (`--aa=20`, `--bb`) are named parameters, read by getopt(); the
//! others are the positional ones, `$1`, `$2`, ..., in their order, so the two may mix
//! (`-- p1 --aa=20 --bb p2`). A name the program does not read with getopt() is an error, and
//! `--help` lists the ones it does, with their descriptions, as bpftrace prints them.

/// The words after the program: positional parameters, then named ones (with their `--`).
pub fn split(params: Vec<String>) -> (Vec<String>, Vec<String>) {
    params.into_iter().partition(|p| !p.starts_with("--"))
}

/// What bpftrace says when `named` holds a name the program's getopt()s (`getopts`: name,
/// description) do not read, or `--help`: its `ERROR:` line (none for `--help` alone) and
/// its `HINT:` line; None when every name is read.
pub fn unexpected(named: &[String], getopts: &[(String, String)]) -> Option<String> {
    let names: Vec<&str> = named.iter().map(|n| n.trim_start_matches('-').split('=').next().unwrap_or("")).collect();
    let unexpected: Vec<&str> = names.iter().copied().filter(|n| !getopts.iter().any(|(g, _)| g == n)).collect();
    if unexpected.is_empty() {
        return None;
    }
    let help = unexpected.contains(&"help");
    let mut said = String::new();
    let errors: Vec<String> = unexpected.iter().filter(|n| **n != "help").map(|n| format!("--{n}")).collect();
    if !errors.is_empty() {
        said.push_str(&format!("ERROR: unexpected program command line options: {}\n", errors.join(", ")));
    }
    let hint = if getopts.is_empty() {
        "no custom program options defined.".to_string()
    } else if help {
        let lines: Vec<String> = getopts.iter().map(|(n, d)| if d.is_empty() { format!("--{n}") } else { format!("--{n}: {d}") }).collect();
        format!("expected program options:\n{}", lines.join("\n"))
    } else {
        // bpftrace joins them with ": " when not asked for help.
        let names: Vec<String> = getopts.iter().map(|(n, _)| format!("--{n}")).collect();
        format!("expected program options: {}", names.join(": "))
    };
    said.push_str(&format!("HINT: {hint}\n"));
    Some(said)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn named_and_positional_parameters_mix() {
        let (positional, named) = split(words(&["p1", "--aa=20", "--bb", "p2"]));
        assert_eq!(positional, ["p1", "p2"]);
        assert_eq!(named, ["--aa=20", "--bb"]);
    }

    #[test]
    fn names_the_program_does_not_read_are_bpftraces_error() {
        let getopts = [("aa".to_string(), "a number".to_string()), ("bb".to_string(), String::new())];
        assert_eq!(unexpected(&words(&["--aa=1", "--bb"]), &getopts), None);
        assert_eq!(unexpected(&words(&["--cc=1", "--dd"]), &getopts).unwrap(), "ERROR: unexpected program command line options: --cc, --dd\nHINT: expected program options: --aa: --bb\n");
        assert_eq!(unexpected(&words(&["--help"]), &getopts).unwrap(), "HINT: expected program options:\n--aa: a number\n--bb\n");
        assert_eq!(unexpected(&words(&["--x"]), &[]).unwrap(), "ERROR: unexpected program command line options: --x\nHINT: no custom program options defined.\n");
    }
}
