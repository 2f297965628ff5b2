//! `TestFileError`: why a test file could not be loaded, always with the file and, for content
//! errors, the line and column (and the offending line with a caret under the spot).

use crate::snippet;
use crate::snippet::{line_col, line_text, Layout, LineCol, Spot};
use std::ops::Range;

/// A test file that cannot be read or understood. Its `Display` is one line
/// (`file:line:col: message`); `render` adds the source line and a caret.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TestFileError {
    /// The file could not be read (missing, unreadable, not UTF-8).
    #[error("{path}: {message}")]
    Io {
        /// The path as given.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The content is not a valid test file.
    #[error("{path}:{line}:{col}: {message}")]
    Content {
        /// The path as given.
        path: String,
        /// 1-based line of the spot.
        line: usize,
        /// 1-based column of the spot.
        col: usize,
        /// What is wrong there.
        message: String,
        /// The text of that line, for the caret display.
        source_line: String,
    },
}

impl TestFileError {
    /// A content error at byte span `span` of `text`.
    pub fn at(
        path: &str,
        text: &str,
        span: Option<Range<usize>>,
        message: impl Into<String>,
    ) -> Self {
        let offset = span.map_or(0, |s| s.start);
        let lc = line_col(text, offset);
        TestFileError::Content {
            path: path.to_string(),
            line: lc.line,
            col: lc.col,
            message: message.into(),
            source_line: line_text(text, lc.line).unwrap_or("").to_string(),
        }
    }

    /// The one-line message followed, for content errors, by the source line and a caret.
    pub fn render(&self) -> String {
        match self {
            TestFileError::Io { .. } => self.to_string(),
            TestFileError::Content {
                line,
                col,
                source_line,
                ..
            } => {
                let spot = Spot::at_column(
                    LineCol {
                        line: *line,
                        col: *col,
                    },
                    source_line,
                );
                format!("{self}{}", snippet::render(&spot, Layout::Gutter, false))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_file_line_col_and_caret() {
        let text = "[[eval]]\nexpct = 1\n";
        let e = TestFileError::at("t.toml", text, Some(9..14), "unknown field `expct`");
        assert_eq!(e.to_string(), "t.toml:2:1: unknown field `expct`");
        assert_eq!(
            e.render(),
            "t.toml:2:1: unknown field `expct`\n  |\n2 | expct = 1\n  | ^"
        );
    }
}
