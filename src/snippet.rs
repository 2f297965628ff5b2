//! The one caret renderer of the project: a spot in some text as `line:col`, the source line
//! (cut to a window around the spot when long, multi-byte safe) and a `^` under the spot (with
//! `~` under the rest of a span). Formula errors, test-file errors and qmgr's syntax errors all
//! render through [`render`]; each keeps its own frame ([`Layout`]).

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
    let offset = clamp_to_char_boundary(text, offset);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    LineCol { line, col }
}

/// The full text of the 1-based line `line` (without its line ending), if it exists.
pub(crate) fn line_text(text: &str, line: usize) -> Option<&str> {
    text.lines().nth(line.checked_sub(1)?)
}

/// A located spot: its line and column, the text of its line and where in that line it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spot<'a> {
    /// 1-based line and column of the spot.
    pub at: LineCol,
    /// The text of the spot's line (no line ending).
    pub line: &'a str,
    /// Byte offset of the spot within `line`.
    pub offset: usize,
    /// How many characters to mark (`^` then `~`s); at least 1.
    pub width: usize,
}

impl<'a> Spot<'a> {
    /// The spot at the start of byte range `span` of `src`, marking the span's first line
    /// (1 character for an empty or invalid span).
    pub(crate) fn locate(src: &'a str, span: Range<usize>) -> Spot<'a> {
        let at = clamp_to_char_boundary(src, span.start);
        let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[at..].find('\n').map_or(src.len(), |i| at + i);
        let width = src
            .get(span)
            .map(|s| s.split('\n').next().unwrap_or("").chars().count())
            .unwrap_or(1)
            .max(1);
        Spot {
            at: line_col(src, at),
            line: src[line_start..line_end].trim_end_matches('\r'),
            offset: at - line_start,
            width,
        }
    }

    /// A spot given by its line and column, with the text of that line (the column's character
    /// is marked; past the end of the line, the end).
    pub(crate) fn at_column(at: LineCol, line: &'a str) -> Spot<'a> {
        let offset = line
            .char_indices()
            .nth(at.col.saturating_sub(1))
            .map_or(line.len(), |(i, _)| i);
        Spot {
            at,
            line,
            offset,
            width: 1,
        }
    }

    /// A spot at byte `offset` of a single line (1-based line 1).
    pub(crate) fn in_line(line: &'a str, offset: usize) -> Spot<'a> {
        Spot {
            at: line_col(line, offset),
            line,
            offset,
            width: 1,
        }
    }
}

/// How the caret lines are framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `at line L, column C`, then the line and the caret indented by two spaces (formula
    /// errors; starts with a newline so it follows a message).
    Indented,
    /// A compiler-like gutter with the line number: ` |`, `L | line`, ` | ^` (test files;
    /// starts with a newline so it follows a `file:line:col: message` line).
    Gutter,
    /// The line, then the caret, nothing else (qmgr).
    Bare,
}

/// The caret lines for `spot` in `layout`; with `window`, a line longer than 90 characters is
/// cut to 40 characters either side of the spot, marked with `...`. No trailing newline.
pub fn render(spot: &Spot, layout: Layout, window: bool) -> String {
    let (line, offset) = if window {
        cut(spot.line, spot.offset)
    } else {
        (spot.line.to_string(), spot.offset)
    };
    // Tabs stay tabs so the caret lines up in any terminal.
    let pad: String = line
        .get(..offset.min(line.len()))
        .unwrap_or(&line)
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let width = spot.width.min(line.len().saturating_sub(offset).max(1));
    let mut marker = pad;
    marker.push('^');
    for _ in 1..width {
        marker.push('~');
    }
    let LineCol { line: n, col } = spot.at;
    match layout {
        Layout::Indented => format!("\nat line {n}, column {col}\n  {line}\n  {marker}"),
        Layout::Gutter => {
            let gutter = n.to_string();
            let blank = " ".repeat(gutter.len());
            format!("\n{blank} |\n{gutter} | {line}\n{blank} | {marker}")
        }
        Layout::Bare => format!("{line}\n{marker}"),
    }
}

/// At most 40 characters either side of `at` (byte offset in `line`), marked with `...`.
fn cut(line: &str, at: usize) -> (String, usize) {
    const SIDE: usize = 40;
    if line.chars().count() <= 2 * SIDE + 10 {
        return (line.to_string(), at);
    }
    let mut start = clamp_to_char_boundary(line, at.saturating_sub(SIDE));
    let end = clamp_to_char_boundary(line, at + SIDE);
    let mut out = String::new();
    if start > 0 {
        out.push_str("...");
    }
    if start >= at {
        start = at;
    }
    out.push_str(&line[start..end]);
    let caret = out.len() - (end - start) + (at - start);
    if end < line.len() {
        out.push_str("...");
    }
    (out, caret)
}

fn clamp_to_char_boundary(src: &str, at: usize) -> usize {
    let mut at = at.min(src.len());
    while at > 0 && !src.is_char_boundary(at) {
        at -= 1;
    }
    at
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
        assert_eq!(line_col("é", 1), LineCol { line: 1, col: 1 });
        let s = Spot::locate("é", 1..2);
        assert_eq!((s.offset, s.at.col), (0, 1));
    }

    #[test]
    fn three_layouts() {
        let src = "x = 1\nab\té + )\n";
        let spot = Spot::locate(src, 14..15);
        assert_eq!(spot.at, LineCol { line: 2, col: 8 });
        assert_eq!(
            render(&spot, Layout::Indented, true),
            "\nat line 2, column 8\n  ab\té + )\n    \t    ^"
        );
        assert_eq!(
            render(&spot, Layout::Gutter, false),
            "\n  |\n2 | ab\té + )\n  |   \t    ^"
        );
        assert_eq!(
            render(&Spot::in_line("set x", 4), Layout::Bare, false),
            "set x\n    ^"
        );
        let same = Spot::at_column(spot.at, "ab\té + )");
        assert_eq!(same.offset, spot.offset);
    }

    #[test]
    fn spans_are_underlined_and_long_lines_windowed() {
        let spot = Spot::locate("foo + barbaz", 6..12);
        assert_eq!(
            render(&spot, Layout::Bare, false),
            "foo + barbaz\n      ^~~~~~"
        );
        let src = format!("{}+{}", "é".repeat(300), "2".repeat(300));
        let spot = Spot::locate(&src, 600..601);
        let r = render(&spot, Layout::Indented, true);
        let lines: Vec<&str> = r.lines().collect();
        assert!(lines[2].chars().count() < 100, "{r}");
        assert_eq!(
            lines[2].chars().position(|c| c == '+'),
            lines[3].chars().position(|c| c == '^')
        );
    }
}
