//! `-C`: a script through the C preprocessor, as libdtrace runs it (dt_preproc): `cpp` with
//! dtrace's predefined macros, then the `-D`/`-U`/`-I` options in order, the script on
//! standard input (its `#!` line blanked, so line numbers hold). The output's line markers
//! (`# N "file"`) are taken out: they say where each line came from, for "line N" in
//! messages, and blank lines put the script's own lines back at their numbers where cpp
//! squeezed runs of empty lines.

use super::options::Settings;
use std::io::Write;
use std::process::{Command, Stdio};

/// The D version `__SUNW_D_VERSION` names: 1.13 (illumos' latest), as `DT_VERSION_NUMBER`.
pub const D_VERSION: u32 = (1 << 24) | (13 << 12);

/// A preprocessed script and where each of its lines came from.
#[derive(Debug, PartialEq, Eq)]
pub struct Preprocessed {
    pub text: String,
    /// For line i + 1 of `text`: the file (None: the script itself) and its line there.
    pub origin: Vec<(Option<String>, usize)>,
}

/// Runs the preprocessor on `source`; the error is libdtrace's reason.
pub fn preprocess(source: &str, settings: &Settings) -> Result<Preprocessed, &'static str> {
    let mut args: Vec<String> = ["-D__linux", "-D__unix", "-D__SVR4", "-D__SUNW_D=1", "-U__GNUC__", "-D__SUNW_D_64", "-D__Linux", "-D__amd64"].map(String::from).to_vec();
    args.extend(settings.cpp_args.iter().cloned());
    args.push(format!("-D__SUNW_D_VERSION=0x{D_VERSION:08x}"));
    match settings.stdc {
        Some('a') => args.push("-std=c99".into()),
        Some('s') => args.push("-traditional-cpp".into()),
        _ => {}
    }
    if settings.cpphdrs {
        args.push("-H".into());
    }
    args.push("-".into());
    let cpp = settings.cpp_path.as_deref().unwrap_or("cpp");
    let mut child = match Command::new(cpp).args(&args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn() {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err("Preprocessor not found"),
        Err(_) => return Err("Failed to exec preprocessor"),
    };
    let input = blank_interpreter_line(source);
    let mut stdin = child.stdin.take().expect("piped stdin");
    // Written from a thread: cpp may fill its output pipe before it has read all its input.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().map_err(|_| "Failed to exec preprocessor")?;
    let _ = writer.join();
    if !out.status.success() {
        return Err("Preprocessor failed to process input program");
    }
    Ok(unmark(&String::from_utf8_lossy(&out.stdout)))
}

/// `source` with its `#!` line, if any, turned into spaces (the newline stays).
pub fn blank_interpreter_line(source: &str) -> String {
    if !source.starts_with("#!") {
        return source.to_string();
    }
    let end = source.find('\n').unwrap_or(source.len());
    " ".repeat(end) + &source[end..]
}

/// A line marker: `# N "file" flags...` (or `#line N "file"`).
fn marker(line: &str) -> Option<(usize, String)> {
    let rest = line.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let n = rest[..digits].parse().ok()?;
    let file = rest[digits..].trim_start().strip_prefix('"')?;
    Some((n, file[..file.find('"')?].to_string()))
}

/// cpp's output without its line markers, and each line's origin.
fn unmark(output: &str) -> Preprocessed {
    let (mut text, mut origin) = (String::new(), Vec::new());
    let (mut file, mut next): (Option<String>, usize) = (None, 1);
    for line in output.lines() {
        if let Some((n, f)) = marker(line) {
            file = (f != "<stdin>").then_some(f);
            next = n;
            // Back to the script's own numbering where only blank lines were left out.
            while file.is_none() && origin.len() + 1 < n {
                origin.push((None, origin.len() + 1));
                text.push('\n');
            }
            continue;
        }
        text.push_str(line);
        text.push('\n');
        origin.push((file.clone(), next));
        next += 1;
    }
    Preprocessed { text, origin }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_go_and_lines_keep_their_numbers() {
        let out = "# 0 \"<stdin>\"\n# 0 \"<built-in>\"\n# 1 \"/usr/include/stdc-predef.h\" 1 3 4\n# 1 \"<stdin>\"\n\nBEGIN\n# 12 \"<stdin>\"\n{ exit(0); }\n";
        let p = unmark(out);
        assert_eq!(p.text, format!("\nBEGIN\n{}{{ exit(0); }}\n", "\n".repeat(9)));
        assert_eq!(p.origin.len(), 12);
        assert!(p.origin.iter().enumerate().all(|(i, o)| *o == (None, i + 1)));
    }

    #[test]
    fn included_lines_say_where_they_came_from() {
        let out = "# 1 \"<stdin>\"\n# 1 \"inc.h\" 1\nint x;\n# 2 \"<stdin>\" 2\nBEGIN\n";
        let p = unmark(out);
        assert_eq!(p.text, "int x;\nBEGIN\n");
        assert_eq!(p.origin, [(Some("inc.h".to_string()), 1), (None, 2)]);
    }

    #[test]
    fn the_interpreter_line_is_blanked() {
        assert_eq!(blank_interpreter_line("#!/usr/sbin/dtrace -Cs\nBEGIN"), format!("{}\nBEGIN", " ".repeat(22)));
        assert_eq!(blank_interpreter_line("BEGIN"), "BEGIN");
    }

    #[test]
    fn defines_reach_the_script() {
        let mut s = Settings { cpp_args: vec!["-DN=7".into()], ..Default::default() };
        let p = preprocess("#!/usr/sbin/dtrace -Cs\n#define M (N * 2)\nBEGIN { trace(M); }\n", &s).unwrap();
        assert_eq!(p.text.lines().nth(2), Some("BEGIN { trace((7 * 2)); }"));
        assert_eq!(p.origin[2], (None, 3));
        s.cpp_path = Some("/nonexistent/cpp".into());
        assert_eq!(preprocess("BEGIN", &s), Err("Preprocessor not found"));
        s.cpp_path = None;
        assert_eq!(preprocess("#error no\n", &s), Err("Preprocessor failed to process input program"));
    }
}
