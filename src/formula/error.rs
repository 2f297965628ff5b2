//! `FormulaError`: every way a formula (or a resource definition) can be refused, with PBS's
//! error codes and messages where PBS has them, the byte span of the culprit, and a renderer that
//! puts a caret under it.

use crate::pbs::defs::codes;
use crate::pbs::defs::codes::Code;
use crate::pbs::defs::ResourceType;
use crate::snippet;
use crate::snippet::{Layout, Spot};
use std::ops::Range;

/// Why a formula was refused (or a resource could not be defined). `Display` is one line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FormulaError {
    /// Not valid syntax (PBS 15123).
    #[error("Invalid Formula Format: {detail}")]
    Syntax {
        /// What was expected or found, for people.
        detail: String,
        /// Where.
        span: Range<usize>,
        /// A hint such as "did you mean `**`?".
        hint: Option<String>,
    },
    /// A name that is not a keyword, numeric resource, math name or allowed builtin (PBS 15124).
    #[error("Formula contains invalid keyword: `{name}`")]
    InvalidKeyword {
        /// The name.
        name: String,
        /// Where.
        span: Range<usize>,
        /// The closest known name, if one is close.
        suggestion: Option<String>,
    },
    /// A string or boolean resource (PBS 15125).
    #[error("Formula contains a resource of an invalid type: `{name}` is a {ty} resource")]
    InvalidType {
        /// The resource.
        name: String,
        /// Its type.
        ty: ResourceType,
        /// Where.
        span: Range<usize>,
    },
    /// Longer than fairsort's limit (fairsort only).
    #[error("formula is too long: {len} bytes (the limit is {limit})")]
    TooLong {
        /// Length in bytes.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// Nested deeper than fairsort's limit (fairsort only).
    #[error("formula is nested too deeply (the limit is {limit} levels)")]
    TooDeep {
        /// Where the limit was crossed.
        span: Range<usize>,
        /// The limit.
        limit: usize,
    },
    /// Valid for PBS but outside what fairsort evaluates (fairsort only).
    #[error("{what} is not supported by fairsort")]
    Unsupported {
        /// What, e.g. "function `fsum`".
        what: String,
        /// Where.
        span: Range<usize>,
    },
    /// Python that could run code — attribute access, subscripts, lambdas, string literals,
    /// Python's internal (`__x__`) names, builtins other than the math ones — refused on
    /// purpose although PBS's server would evaluate it (fairsort only).
    #[error("{what} is refused: {reason}")]
    Refused {
        /// What, e.g. "attribute access (`.real`)".
        what: String,
        /// Why, for people.
        reason: &'static str,
        /// Where.
        span: Range<usize>,
    },
    /// A custom resource name PBS would not accept.
    #[error("invalid resource name `{name}`: {reason}")]
    BadResourceName {
        /// The name.
        name: String,
        /// Why.
        reason: &'static str,
    },
    /// An attempt to redefine one of PBS's built-in resources.
    #[error("resource `{name}` is built in and cannot be redefined")]
    BuiltinResource {
        /// The name.
        name: String,
    },
}

/// The hint under every [`FormulaError::Refused`].
pub const REFUSED_HINT: &str = "fairsort never runs Python code: a formula is numbers, names, \
operators and calls of math functions (see \"Where fairsort differs from PBS\" in docs/formula.md)";

/// The reason given for Python that could run code.
pub(crate) const COULD_RUN_CODE: &str =
    "it could run code, which a formula may not do (PBS's server would evaluate it with Python)";

impl FormulaError {
    /// PBS's error (15123, 15124 or 15125) for the three errors PBS's server reports; `None`
    /// for fairsort-only ones.
    pub(crate) fn pbs_code(&self) -> Option<Code> {
        match self {
            FormulaError::Syntax { .. } => Some(codes::BAD_FORMULA),
            FormulaError::InvalidKeyword { .. } => Some(codes::BAD_FORMULA_KW),
            FormulaError::InvalidType { .. } => Some(codes::BAD_FORMULA_TYPE),
            _ => None,
        }
    }

    /// PBS's error number for the error, when PBS has one (see [`FormulaError::pbs_code`]).
    pub fn code(&self) -> Option<u32> {
        self.pbs_code().map(|c| c.number)
    }

    /// PBS's exact message for the error (what `qmgr` prints), when PBS has one.
    pub fn pbs_message(&self) -> Option<&'static str> {
        self.pbs_code().map(|c| c.message)
    }

    /// The byte range of the culprit in the formula, when there is one.
    pub fn span(&self) -> Option<Range<usize>> {
        match self {
            FormulaError::Syntax { span, .. }
            | FormulaError::InvalidKeyword { span, .. }
            | FormulaError::InvalidType { span, .. }
            | FormulaError::TooDeep { span, .. }
            | FormulaError::Unsupported { span, .. }
            | FormulaError::Refused { span, .. } => Some(span.clone()),
            _ => None,
        }
    }

    /// The hint line, if any ("did you mean `fairshare_factor`?").
    pub fn hint(&self) -> Option<String> {
        match self {
            FormulaError::Syntax { hint, .. } => hint.clone(),
            FormulaError::InvalidKeyword {
                suggestion: Some(s),
                ..
            } => Some(format!("did you mean `{s}`?")),
            FormulaError::Refused { .. } => Some(REFUSED_HINT.to_string()),
            _ => None,
        }
    }

    /// Multi-line rendering for people: the message, `at line L, column C`, the source line, a
    /// caret under the culprit, and the hint. `src` must be the formula the error came from.
    pub fn render(&self, src: &str) -> String {
        let mut out = self.to_string();
        if let Some(span) = self.span() {
            // Long lines are cut to a window around the caret.
            out.push_str(&snippet::render(
                &Spot::locate(src, span),
                Layout::Indented,
                true,
            ));
        }
        if let Some(hint) = self.hint() {
            out.push('\n');
            out.push_str(&hint);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_messages() {
        let e = FormulaError::InvalidKeyword {
            name: "fair_share_factor".into(),
            span: 0..17,
            suggestion: Some("fairshare_factor".into()),
        };
        assert_eq!(e.code(), Some(15124));
        assert_eq!(e.pbs_message(), Some("Formula contains invalid keyword"));
        let r = e.render("fair_share_factor");
        assert_eq!(
            r,
            "Formula contains invalid keyword: `fair_share_factor`\nat line 1, column 1\n  fair_share_factor\n  ^" .to_string() + &"~".repeat(16) + "\ndid you mean `fairshare_factor`?"
        );
    }

    #[test]
    fn caret_on_second_line_and_multibyte() {
        let e = FormulaError::Syntax {
            detail: "x".into(),
            span: 11..12,
            hint: None,
        };
        let r = e.render("é + 1\n1 + )");
        assert!(r.contains("at line 2, column 5"), "{r}");
        assert!(r.ends_with("  1 + )\n      ^"), "{r}");
    }

    #[test]
    fn long_lines_are_windowed() {
        let src = format!("{}+{}", "1".repeat(500), "2".repeat(500));
        let e = FormulaError::Syntax {
            detail: "x".into(),
            span: 500..501,
            hint: None,
        };
        let r = e.render(&src);
        let lines: Vec<&str> = r.lines().collect();
        assert!(lines[2].len() < 100, "{r}");
        assert_eq!(lines[2].find('+'), lines[3].find('^'), "{r}");
    }

    #[test]
    fn render_survives_bad_spans() {
        let e = FormulaError::TooDeep {
            span: 1000..2000,
            limit: 3,
        };
        let r = e.render("é");
        assert!(r.contains("line 1"));
    }
}
