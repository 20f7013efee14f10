//! Diagnostics: a span, a message, a label and a hint, rendered like rustc's.

use crate::ast::Span;
use ariadne::{Config, IndexType, Label, Report, ReportKind, Source};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Span,
    pub message: String,
    pub label: Option<String>,
    pub hint: Option<String>,
    /// Another place the message is about (e.g. a first definition), with its label (boxed:
    /// rare, and every Result of the checker carries a Diagnostic on the stack).
    pub related: Option<Box<(Span, String)>>,
    /// Every name that would be right at the span (a struct's members where a member is
    /// unknown): not printed, for tools (the REPL completes with them).
    pub alternatives: Vec<String>,
}

impl Diagnostic {
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        Diagnostic { span, message: message.into(), label: None, hint: None, related: None, alternatives: Vec::new() }
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn related(mut self, span: Span, label: impl Into<String>) -> Self {
        self.related = Some(Box::new((span, label.into())));
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Renders `error: message` followed by `--> file:line:col`, the source line with a caret
    /// under the span, and the hint. `color` is for terminals only.
    ///
    /// Whatever the spans and the source hold, this neither panics nor echoes control or
    /// bidirectional-override characters to the terminal: spans are widened to character
    /// boundaries, such characters are shown as `\u{..}` escapes, and very long lines are
    /// cut to the parts around the spans.
    pub fn render(&self, file: &str, source: &str, color: bool) -> String {
        let (line, col) = line_col(source, self.span.start);
        let mut points = vec![self.span.start, self.span.end];
        if let Some((r, _)) = self.related.as_deref() {
            points.extend([r.start, r.end]);
        }
        let shown = Shown::new(source, &points);
        let span = shown.span(&self.span);
        let file_shown = escape_controls(file);
        let file = file_shown.as_str();
        let mut out = Vec::new();
        let mut report = Report::build(ReportKind::Error, (file, span.clone()))
            .with_config(
                Config::default()
                    .with_color(color)
                    .with_index_type(IndexType::Byte),
            )
            .with_message(format!("{}\n  --> {}:{}:{}", escape_controls(&self.message), file, line, col))
            .with_label(
                Label::new((file, span)).with_message(escape_controls(self.label.as_deref().unwrap_or_default())),
            );
        if let Some((span, label)) = self.related.as_deref() {
            report = report.with_label(Label::new((file, shown.span(span))).with_message(escape_controls(label)));
        }
        if let Some(hint) = &self.hint {
            report = report.with_help(escape_controls(hint));
        }
        let _ = report.finish().write((file, Source::from(shown.text.as_str())), &mut out);
        let text = String::from_utf8_lossy(&out).into_owned();
        // ariadne's header counts columns in the shown text (escapes, elisions): give it the
        // source's, as on the `-->` line.
        let (sl, sc) = line_col(&shown.text, shown.span(&self.span).start);
        text.replacen(&format!("{file}:{sl}:{sc} "), &format!("{file}:{line}:{col} "), 1)
    }
}

/// Characters a diagnostic must not send to a terminal as they are: C0 and C1 controls
/// (except tab and newline), DEL, and the Unicode marks that reorder text on screen.
fn is_unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every unsafe character written as a `\u{..}` escape.
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(is_unsafe_char) {
        return text.to_string();
    }
    text.chars().map(|c| if is_unsafe_char(c) { c.escape_unicode().to_string() } else { c.to_string() }).collect()
}

/// The source as a diagnostic shows it (unsafe characters escaped, see [`escape_controls`]),
/// with a map from byte offsets in the real source to offsets in the shown text.
struct Shown {
    text: String,
    /// `map[i]`: where byte `i` of the source starts in `text` (one entry past the end too).
    map: Vec<usize>,
}

impl Shown {
    /// Longest source line shown whole, in characters; longer lines show only the parts
    /// around `points` (span ends), so a 100 KB generated line prints as a few lines.
    const MAX_LINE: usize = 160;
    /// Characters kept on each side of a point in a long line.
    const CONTEXT: usize = 40;

    fn new(source: &str, points: &[usize]) -> Shown {
        let mut text = String::with_capacity(source.len().min(64 * 1024));
        let mut map = Vec::with_capacity(source.len() + 1);
        let mut line_start = 0;
        for line in source.split_inclusive('\n') {
            let keep = Self::windows(line, line_start, points);
            let mut gap = false;
            let mut chars = line.char_indices().enumerate().peekable();
            while let Some((n, (_, c))) = chars.next() {
                if !keep.iter().any(|w| w.contains(&n)) {
                    // An elided run of characters: all of it maps to one `…`.
                    if !gap {
                        text.push('…');
                        gap = true;
                    }
                    map.extend(std::iter::repeat_n(text.len() - '…'.len_utf8(), c.len_utf8()));
                    continue;
                }
                gap = false;
                map.extend(std::iter::repeat_n(text.len(), c.len_utf8()));
                // A CR that ends a line is a line ending, not something to show.
                let line_end = c == '\r' && chars.peek().is_some_and(|(_, (_, n))| *n == '\n');
                if is_unsafe_char(c) && !line_end {
                    text.push_str(&c.escape_unicode().to_string());
                } else {
                    text.push(c);
                }
            }
            line_start += line.len();
        }
        map.push(text.len());
        Shown { text, map }
    }

    /// The character ranges of `line` to show: all of a short line, else windows around the
    /// points in it (and its start, so the line never shows as nothing but `…`).
    fn windows(line: &str, line_start: usize, points: &[usize]) -> Vec<std::ops::Range<usize>> {
        let len = line.chars().count();
        if len <= Self::MAX_LINE {
            return std::iter::once(0..len).collect();
        }
        let line_end = line_start + line.len();
        let mut centers: Vec<usize> = points
            .iter()
            .filter(|p| (line_start..=line_end).contains(*p))
            .map(|p| line.char_indices().take_while(|(i, _)| line_start + i < *p).count())
            .collect();
        centers.push(0);
        // The newline itself is always kept, so the next line starts on its own line.
        let mut w: Vec<std::ops::Range<usize>> = centers.iter().map(|c| c.saturating_sub(Self::CONTEXT)..(c + Self::CONTEXT).min(len)).collect();
        w.push(len - 1..len);
        w
    }

    /// A source span in shown-text offsets, clamped to the text and widened to whole
    /// characters (a span may point into a character when it comes from a byte-level scan).
    fn span(&self, span: &Span) -> Span {
        let last = self.map.len() - 1;
        let start = span.start.min(last);
        let end = span.end.clamp(start, last);
        let start = self.map[start];
        // The end of a span inside a character is that character's end.
        let end = if end > 0 && self.map[end] == self.map[end - 1] {
            self.map[end..].iter().copied().find(|&o| o > self.map[end]).unwrap_or(self.text.len())
        } else {
            self.map[end]
        };
        start..end
    }
}

/// 1-based line and column (in characters) of a byte offset; an offset inside a character
/// counts as that character.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
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

    #[test]
    fn spans_inside_characters_do_not_panic() {
        let src = "BEGIN { printf(\"%£ é\"); }";
        let pound = src.find('£').unwrap();
        for (start, end) in [(pound + 1, pound + 2), (pound, pound + 1), (pound + 1, 999), (999, 5), (3, 1)] {
            let s = Diagnostic::new(start..end, "m").label("l").related(pound + 1..pound + 1, "r").render("x.d", src, false);
            assert!(s.contains("x.d:1:"), "{s}");
        }
        assert_eq!(line_col(src, pound + 1), (1, pound + 1));
    }

    #[test]
    fn control_and_bidi_characters_are_escaped() {
        let src = "BEGIN { x = \"a\u{1b}[2J\u{202e}b\0\"; }\r\n";
        let at = src.find('\u{202e}').unwrap();
        let s = Diagnostic::new(at..at + 3, "unexpected `\u{1b}`").label("bad \u{7}").hint("\u{202e}").render("x\u{1b}.d", src, false);
        assert!(!s.chars().any(|c| c.is_control() && c != '\n'), "{s:?}");
        assert!(!s.contains('\u{202e}'), "{s:?}");
        assert!(s.contains("\\u{1b}[2J\\u{202e}b\\u{0}"), "{s}");
        assert!(s.contains("x.d:1:") || s.contains("x\\u{1b}.d:1:"), "{s}");
    }

    #[test]
    fn long_lines_show_the_parts_around_the_span() {
        let src = format!("BEGIN {{ trace(1{} + @); }}\nBEGIN {{ }}\n", " + 1".repeat(10_000));
        let at = src.find('@').unwrap();
        let s = Diagnostic::new(at..at + 1, "bad").label("here").render("x.d", &src, false);
        assert!(s.len() < 1_000, "{} bytes: {s}", s.len());
        assert!(s.contains("1 + 1 + @); }"), "{s}");
        assert!(s.contains("BEGIN { trace(1 + 1"), "{s}");
        assert!(s.contains('…'), "{s}");
        assert_eq!(s.matches(&format!("x.d:1:{}", at + 1)).count(), 2, "{s}");
    }
}
