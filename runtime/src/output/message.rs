//! current bpftrace's errorf() and warnf(): printf's text as a message about the call, on
//! standard error (`stdin:1:9-62: ERROR: text`), or as a JSON record of its own.

use crumbs_lang::ir::SourceAt;

/// What a sink needs to print errorf()'s and warnf()'s messages: the program's name as
/// bpftrace names its source (`stdin` for `-e`, else the script's path), and whether
/// warnings are printed (not with `--no-warnings`).
#[derive(Clone, Debug)]
pub struct Messages {
    pub file: String,
    pub warnings: bool,
}

impl Default for Messages {
    fn default() -> Self {
        Messages { file: "stdin".to_string(), warnings: true }
    }
}

impl Messages {
    /// The line for standard error, or None for a warning `--no-warnings` silences.
    pub fn line(&self, error: bool, text: &str, at: &SourceAt) -> Option<String> {
        if !error && !self.warnings {
            return None;
        }
        // As bpftrace's logger: a newline the text ends with is not doubled.
        let text = text.strip_suffix('\n').unwrap_or(text);
        Some(format!("{}: {}: {text}", at.describe(&self.file), if error { "ERROR" } else { "WARNING" }))
    }

    /// bpftrace's JSON record of the message: its type, the text, and where the call begins.
    pub fn json(&self, error: bool, text: &str, at: &SourceAt) -> Option<String> {
        if !error && !self.warnings {
            return None;
        }
        let string = super::bpftrace::records::string;
        Some(format!(
            "{{\"type\": \"{}\", \"msg\": {}, \"filename\": {}, \"line\": {}, \"col\": {}}}\n",
            if error { "errorf" } else { "warnf" },
            string(text),
            string(&self.file),
            at.line,
            at.column
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_call_and_warnings_can_be_silenced() {
        let at = SourceAt { span: 8..61, line: 1, column: 9, end_line: 1, end_column: 62 };
        let m = Messages::default();
        assert_eq!(m.line(true, "bad 10\n", &at).unwrap(), "stdin:1:9-62: ERROR: bad 10");
        assert_eq!(m.line(false, "meh", &at).unwrap(), "stdin:1:9-62: WARNING: meh");
        assert_eq!(m.json(true, "bad", &at).unwrap(), "{\"type\": \"errorf\", \"msg\": \"bad\", \"filename\": \"stdin\", \"line\": 1, \"col\": 9}\n");
        let quiet = Messages { file: "x.bt".into(), warnings: false };
        assert_eq!(quiet.line(false, "meh", &at), None);
        assert_eq!(quiet.line(true, "bad", &SourceAt { line: 2, end_line: 3, ..at }).unwrap(), "x.bt:2-3: ERROR: bad");
    }
}
