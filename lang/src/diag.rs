//! Diagnostics: a span, a message, a label and a hint, rendered like rustc's.

use crate::ast::Span;
use ariadne::{Config, IndexType, Label, Report, ReportKind, Source};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Span,
    pub message: String,
    pub label: Option<String>,
    pub hint: Option<String>,
    /// Another place the message is about (e.g. a first definition), with its label.
    pub related: Option<(Span, String)>,
}

impl Diagnostic {
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        Diagnostic { span, message: message.into(), label: None, hint: None, related: None }
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn related(mut self, span: Span, label: impl Into<String>) -> Self {
        self.related = Some((span, label.into()));
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Renders `error: message` followed by `--> file:line:col`, the source line with a caret
    /// under the span, and the hint. `color` is for terminals only.
    pub fn render(&self, file: &str, source: &str, color: bool) -> String {
        let (line, col) = line_col(source, self.span.start);
        let end = self.span.end.clamp(self.span.start, source.len());
        let span = self.span.start.min(source.len())..end;
        let mut out = Vec::new();
        let mut report = Report::build(ReportKind::Error, (file, span.clone()))
            .with_config(
                Config::default()
                    .with_color(color)
                    .with_index_type(IndexType::Byte),
            )
            .with_message(format!("{}\n  --> {}:{}:{}", self.message, file, line, col))
            .with_label(
                Label::new((file, span)).with_message(self.label.clone().unwrap_or_default()),
            );
        if let Some((span, label)) = &self.related {
            let end = span.end.clamp(span.start, source.len());
            report = report.with_label(Label::new((file, span.start.min(source.len())..end)).with_message(label));
        }
        if let Some(hint) = &self.hint {
            report = report.with_help(hint);
        }
        let _ = report.finish().write((file, Source::from(source)), &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, source[line_start..offset].chars().count() + 1)
}

/// The closest name to `name` among `candidates`, for "did you mean" hints.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, c)| *d <= 2.max(name.len().min(c.len()) / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.to_string())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + (ca != *cb) as usize).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
    }

    #[test]
    fn closest_finds_typos() {
        assert_eq!(closest("execnme", ["pid", "execname"]), Some("execname".to_string()));
        assert_eq!(closest("zzzzzz", ["pid", "execname"]), None);
    }

    #[test]
    fn render_has_location_and_caret_and_hint() {
        let d = Diagnostic::new(4..7, "unknown thing").label("here").hint("try this");
        let s = d.render("x.d", "abc defg\n", false);
        assert!(s.contains("x.d:1:5"), "{s}");
        assert!(s.contains("abc defg"), "{s}");
        assert!(s.contains("try this"), "{s}");
    }
}
