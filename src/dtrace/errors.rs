//! How the drop-in reports a program that does not compile: dtrace's first line
//! (`dtrace: failed to compile script x.d: line 3: MESSAGE`, or `dtrace: invalid probe
//! specifier SPEC: MESSAGE` for a description), then crumbs' own rendering of the
//! diagnostic (the source line, the span, the hint). With `-x errtags` the message starts
//! with dtrace's tag for the error, where one of crumbs' diagnostics corresponds to one.

use super::source::Program;
use crumbs_lang::diag::Diagnostic;
use crumbs_runtime::driver::CompileError;
use std::io::IsTerminal;

/// How a crumbs message starts (or, with a leading `*`, what it contains), and dtrace's
/// tag for it (libdtrace's dt_errtags.h).
const TAGS: &[(&str, &str)] = &[
    ("*does not match any", "D_PDESC_ZERO"),
    ("unknown provider", "D_PDESC_ZERO"),
    ("syntax error", "D_SYNTAX"),
    ("unexpected", "D_SYNTAX"),
    ("unknown variable", "D_IDENT_UNDEF"),
    ("unknown function", "D_FUNC_UNDEF"),
    ("macro argument", "D_MACRO_UNDEF"),
    ("unknown macro variable", "D_MACRO_UNDEF"),
    ("unsupported #pragma", "D_PRAGMA_INVAL"),
    ("unknown option", "D_PRAGMA_OPTSET"),
    ("empty program", "D_EMPTY"),
    ("*is already", "D_AGG_REDEF"),
];

/// dtrace's tag for a crumbs message, if one corresponds.
pub fn tag(message: &str) -> Option<&'static str> {
    TAGS.iter()
        .find(|(pattern, _)| match pattern.strip_prefix('*') {
            Some(part) => message.contains(part),
            None => message.starts_with(pattern),
        })
        .map(|(_, tag)| *tag)
}

/// What goes to standard error for a compile error of `program`.
pub fn report(error: &CompileError, program: &Program, errtags: bool) -> String {
    let d = match error {
        CompileError::Source(d) => d,
        CompileError::Message(m) => return format!("dtrace: {m}\n"),
    };
    let piece = &program.pieces[program.piece_at(d.span.start)];
    // The diagnostic about the piece's own text, its spans moved there.
    let local = |s: &std::ops::Range<usize>| s.start.saturating_sub(piece.start)..s.end.saturating_sub(piece.start).min(piece.text.len());
    let within = |s: &std::ops::Range<usize>| s.start >= piece.start && s.end <= piece.start + piece.text.len();
    let mut shown = Diagnostic { span: local(&d.span), ..d.clone() };
    shown.related = d.related.as_deref().filter(|(s, _)| within(s)).map(|(s, l)| Box::new((local(s), l.clone())));
    let tag = if errtags { tag(&d.message).map(|t| format!("[{t}] ")).unwrap_or_default() } else { String::new() };
    let first = match piece.kind {
        super::source::Kind::Script => format!("failed to compile script {}", piece.arg),
        super::source::Kind::Description => format!("invalid probe specifier {}", piece.arg),
    };
    let name = if piece.kind == super::source::Kind::Script { piece.arg.as_str() } else { "<command line>" };
    format!(
        "dtrace: {first}: {tag}{}{}\n{}",
        piece.place(shown.span.start),
        d.message,
        shown.render(name, &piece.text, std::io::stderr().is_terminal())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtrace::source::{Piece, Spec};

    #[test]
    fn tags_for_the_errors_dtrace_names() {
        assert_eq!(tag("probe description `syscall::x:entry` does not match any probes"), Some("D_PDESC_ZERO"));
        assert_eq!(tag("syntax error: unexpected `;`"), Some("D_SYNTAX"));
        assert_eq!(tag("unknown variable `foo`"), Some("D_IDENT_UNDEF"));
        assert_eq!(tag("aggregation `@a` is already count(), not sum()"), Some("D_AGG_REDEF"));
        assert_eq!(tag("stringof() of a `long`"), None);
    }

    #[test]
    fn the_first_line_names_the_piece() {
        let script = Piece { kind: crate::dtrace::source::Kind::Script, arg: "x.d".into(), text: "BEGIN\n{\n  trace(foo);\n}".into(), start: 0, origin: None };
        let p = Program::new(vec![Piece::description(Spec::Name, "END"), script]);
        let at = p.text().find("foo").unwrap();
        let e = CompileError::Source(Diagnostic::new(at..at + 3, "unknown variable `foo`").label("l"));
        let out = report(&e, &p, true);
        assert!(out.starts_with("dtrace: failed to compile script x.d: [D_IDENT_UNDEF] line 3: unknown variable `foo`\n"), "{out}");
        assert!(out.contains("x.d:3:9"), "{out}");
        let out = report(&e, &p, false);
        assert!(out.starts_with("dtrace: failed to compile script x.d: line 3: unknown variable `foo`\n"), "{out}");
        let e = CompileError::Source(Diagnostic::new(0..3, "unknown variable `END`"));
        assert!(report(&e, &p, false).starts_with("dtrace: invalid probe specifier END: unknown variable `END`\n"));
    }
}
