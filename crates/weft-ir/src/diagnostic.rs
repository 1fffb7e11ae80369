//! Located diagnostics, rendered like rustc's:
//!
//! ```text
//! error: expected ',' or ')' in operand list
//!  --> model.hlo:4:31
//!   |
//! 4 |   %add = f32[2] add(f32[2] %x f32[2] %y)
//!   |                               ^^^^^^ expected ',' or ')'
//!   = hint: operands are separated by commas
//! ```

use std::fmt;

/// A byte range in a source text.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The span `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end.max(start) as u32,
        }
    }
}

/// A 1-based line and column (in characters).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LineCol {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub col: usize,
}

/// The line and column of byte `offset` in `source`.
pub fn line_col(source: &str, offset: usize) -> LineCol {
    let offset = offset.min(source.len());
    let before = &source.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let col = source
        .get(line_start..offset)
        .map_or(offset - line_start, |s| s.chars().count())
        + 1;
    LineCol { line, col }
}

/// How serious a diagnostic is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The input is rejected.
    Error,
    /// Worth knowing; the input is accepted.
    Warning,
}

/// A message tied to a place in a source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Where.
    pub span: Span,
    /// What is wrong.
    pub message: String,
    /// A short label printed under the caret.
    pub label: Option<String>,
    /// How to fix it.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            span,
            message: message.into(),
            label: None,
            hint: None,
        }
    }

    /// A warning at `span`: worth knowing, but the input is accepted.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }

    /// Adds a label under the caret.
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// The line and column of the start of the span in `source`.
    pub fn line_col(&self, source: &str) -> LineCol {
        line_col(source, self.span.start as usize)
    }

    /// Renders the diagnostic with the source line and a caret, rustc style.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        let LineCol { line, col } = self.line_col(source);
        let start = (self.span.start as usize).min(source.len());
        let line_start = source[..start].rfind('\n').map_or(0, |p| p + 1);
        let line_end = source[start..]
            .find('\n')
            .map_or(source.len(), |p| start + p);
        let text = &source[line_start..line_end];
        let end = (self.span.end as usize).clamp(start, line_end);
        let width = source[start..end].chars().count().max(1);
        let gutter = line.to_string().len();
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut out = format!(
            "{severity}: {}\n{:gutter$}--> {file_name}:{line}:{col}\n{:gutter$} |\n{line} | {}\n{:gutter$} | {}{}",
            self.message,
            "",
            "",
            text.trim_end_matches('\r'),
            "",
            " ".repeat(col - 1),
            "^".repeat(width),
        );
        if let Some(label) = &self.label {
            out.push(' ');
            out.push_str(label);
        }
        out.push('\n');
        if let Some(hint) = &self.hint {
            for (i, hint_line) in hint.lines().enumerate() {
                if i == 0 {
                    out.push_str(&format!("{:gutter$} = hint: {hint_line}\n", ""));
                } else {
                    out.push_str(&format!("{:gutter$}         {hint_line}\n", ""));
                }
            }
        }
        out
    }

    /// `file:line:col: message`, one line.
    pub fn short(&self, file_name: &str, source: &str) -> String {
        let LineCol { line, col } = self.line_col(source);
        format!("{file_name}:{line}:{col}: {}", self.message)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        let src = "ab\ncd\u{e9}f\n";
        assert_eq!(line_col(src, 0), LineCol { line: 1, col: 1 });
        assert_eq!(line_col(src, 4), LineCol { line: 2, col: 2 });
        assert_eq!(line_col(src, 7), LineCol { line: 2, col: 4 });
    }

    #[test]
    fn renders_caret_under_span() {
        let src = "x = f32[] add(a b)\n";
        let d = Diagnostic::error(Span::new(16, 17), "expected ','")
            .with_label("here")
            .with_hint("separate operands with commas");
        let text = d.render("m.hlo", src);
        assert_eq!(
            text,
            "error: expected ','\n --> m.hlo:1:17\n  |\n1 | x = f32[] add(a b)\n  |                 ^ here\n  = hint: separate operands with commas\n"
        );
    }
}
