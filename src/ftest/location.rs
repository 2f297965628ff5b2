//! Byte offsets → 1-based line and column, so every complaint about a test file can say
//! `file:line:col` the way compilers do.

use std::ops::Range;

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LineCol {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
}

/// The line and column of byte `offset` in `text` (clamped to the text; never panics).
pub fn line_col(text: &str, offset: usize) -> LineCol {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    LineCol { line, col }
}

/// The full text of the 1-based line `line` (without its newline), if it exists.
pub fn line_text(text: &str, line: usize) -> Option<&str> {
    text.lines().nth(line.checked_sub(1)?)
}

/// The start of a span as a line and column.
pub fn span_start(text: &str, span: &Range<usize>) -> LineCol {
    line_col(text, span.start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_and_characters() {
        let t = "ab\ncé d\n";
        assert_eq!(line_col(t, 0), LineCol { line: 1, col: 1 });
        assert_eq!(line_col(t, 3), LineCol { line: 2, col: 1 });
        // 'é' is two bytes (4..6); the space after it is column 3.
        assert_eq!(line_col(t, 6), LineCol { line: 2, col: 3 });
        assert_eq!(line_col(t, 7), LineCol { line: 2, col: 4 });
        assert_eq!(line_col(t, 999), LineCol { line: 3, col: 1 });
        assert_eq!(line_text(t, 2), Some("cé d"));
        assert_eq!(line_text(t, 0), None);
    }

    #[test]
    fn offset_inside_a_character_is_clamped_back() {
        let t = "é";
        assert_eq!(line_col(t, 1), LineCol { line: 1, col: 1 });
    }
}
