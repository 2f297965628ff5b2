//! The qmgr tokenizer: words, `"..."`/`'...'` strings (adjacent pieces join into one value, as
//! qmgr reads `job_sort_formula="a, b"`), `,` between attributes or names, and `=`, `+=`, `-=`.

use std::ops::Range;

/// An attribute operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `=`: replace the value.
    Set,
    /// `+=`: add to a list attribute.
    Add,
    /// `-=`: remove from a list attribute.
    Remove,
}

/// What a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokKind {
    /// A word or quoted string (quotes removed). `quoted` is true if any piece was quoted.
    Text {
        /// The text with quotes removed.
        value: String,
        /// Whether any part was quoted (a quoted word is never a keyword).
        quoted: bool,
    },
    /// `,`
    Comma,
    /// `=`, `+=`, `-=`
    Op(Op),
}

/// A token and its byte span in the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokKind,
    /// Where it is.
    pub span: Range<usize>,
}

/// A tokenizing error: an unterminated quote starting at this byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unterminated(pub usize);

/// Splits a request into tokens.
pub(crate) fn tokenize(src: &str) -> Result<Vec<Token>, Unterminated> {
    let bytes = src.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c == b',' {
            toks.push(Token {
                kind: TokKind::Comma,
                span: i..i + 1,
            });
            i += 1;
            continue;
        }
        if c == b'=' {
            toks.push(Token {
                kind: TokKind::Op(Op::Set),
                span: i..i + 1,
            });
            i += 1;
            continue;
        }
        if (c == b'+' || c == b'-') && bytes.get(i + 1) == Some(&b'=') {
            let op = if c == b'+' { Op::Add } else { Op::Remove };
            toks.push(Token {
                kind: TokKind::Op(op),
                span: i..i + 2,
            });
            i += 2;
            continue;
        }
        // A value: words and quoted strings without whitespace between them.
        let mut value = String::new();
        let mut quoted = false;
        while i < bytes.len() {
            let c = bytes[i];
            if c == b'"' || c == b'\'' {
                let close = src[i + 1..].find(c as char).ok_or(Unterminated(i))?;
                value.push_str(&src[i + 1..i + 1 + close]);
                quoted = true;
                i += close + 2;
                continue;
            }
            if c.is_ascii_whitespace()
                || c == b','
                || c == b'='
                || ((c == b'+' || c == b'-') && bytes.get(i + 1) == Some(&b'='))
            {
                break;
            }
            // Copy one whole UTF-8 character.
            let ch_len = src[i..].chars().next().map(char::len_utf8).unwrap_or(1);
            value.push_str(&src[i..i + ch_len]);
            i += ch_len;
        }
        toks.push(Token {
            kind: TokKind::Text { value, quoted },
            span: start..i,
        });
    }
    Ok(toks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<TokKind> {
        tokenize(s).unwrap().into_iter().map(|t| t.kind).collect()
    }

    fn text(v: &str, quoted: bool) -> TokKind {
        TokKind::Text {
            value: v.into(),
            quoted,
        }
    }

    #[test]
    fn quotes_commas_and_operators() {
        assert_eq!(
            kinds(r#"set server job_sort_formula="pow(2, -(a/b))""#),
            vec![
                text("set", false),
                text("server", false),
                text("job_sort_formula", false),
                TokKind::Op(Op::Set),
                text("pow(2, -(a/b))", true)
            ]
        );
        assert_eq!(
            kinds("s s managers+=a@*,managers -= 'b@*'"),
            vec![
                text("s", false),
                text("s", false),
                text("managers", false),
                TokKind::Op(Op::Add),
                text("a@*", false),
                TokKind::Comma,
                text("managers", false),
                TokKind::Op(Op::Remove),
                text("b@*", true)
            ]
        );
        assert_eq!(
            kinds("a=x-1"),
            vec![text("a", false), TokKind::Op(Op::Set), text("x-1", false)]
        );
        assert_eq!(
            kinds(r#"v="it's""#),
            vec![text("v", false), TokKind::Op(Op::Set), text("it's", true)]
        );
        assert_eq!(
            kinds("v=ab'c d'e"),
            vec![text("v", false), TokKind::Op(Op::Set), text("abc de", true)]
        );
    }

    #[test]
    fn spans_and_errors() {
        let t = tokenize("set  q").unwrap();
        assert_eq!(t[1].span, 5..6);
        assert_eq!(tokenize("set server a = \"open"), Err(Unterminated(15)));
        assert_eq!(
            kinds("é=ü"),
            vec![text("é", false), TokKind::Op(Op::Set), text("ü", false)]
        );
    }
}
