//! A text cut into parts of whole lines for the workers: each part is UTF-8 on its own exactly
//! when the whole text is, and a line is never split between two workers.

/// `text` cut into at most `parts` consecutive pieces that cover it once, each ending just
/// after a newline (the last at the text's end): piece `j` ends at the first newline at or
/// after byte `(j + 1) · len / parts`. Fewer pieces when the lines are long (a cut that finds
/// no newline after it leaves the rest to the last piece); one, `text` itself, for `parts` ≤ 1.
pub fn line_parts(text: &[u8], parts: usize) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(parts.max(1));
    let mut start = 0;
    for j in 1..parts.max(1) {
        let at = (j.saturating_mul(text.len()) / parts).max(start);
        let Some(nl) = text.get(at..).and_then(|rest| memchr::memchr(b'\n', rest)) else {
            break;
        };
        let cut = at + nl + 1;
        if cut >= text.len() {
            break;
        }
        if let Some(piece) = text.get(start..cut) {
            out.push(piece);
        }
        start = cut;
    }
    out.push(text.get(start..).unwrap_or_default());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_whole_lines_covering_the_text() {
        let texts: [&[u8]; 6] = [
            b"",
            b"no newline",
            b"a\nb\nc\nd\ne\n",
            b"one very long line and then\nx\ny\n",
            b"\n\n\n\n\n\n\n\n",
            "é\nüü\n中文\nend".as_bytes(),
        ];
        for text in texts {
            for parts in [0, 1, 2, 3, 5, 64] {
                let got = line_parts(text, parts);
                assert!(got.len() <= parts.max(1), "{text:?} {parts}");
                assert_eq!(got.concat(), text, "{text:?} {parts}");
                for p in &got[..got.len() - 1] {
                    assert!(p.ends_with(b"\n") && !p.is_empty(), "{text:?} {parts}");
                }
                for p in &got {
                    assert!(std::str::from_utf8(p).is_ok());
                }
            }
        }
        let lines: Vec<u8> = b"0123456789\n".repeat(1000);
        assert_eq!(line_parts(&lines, 4).len(), 4);
    }
}
