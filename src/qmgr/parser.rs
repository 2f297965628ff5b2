//! The qmgr grammar: `VERB OBJECT [NAME[,NAME...]] [ATTR OP VALUE[, ATTR OP VALUE...]]`, with
//! qmgr's case-insensitive verbs and object types and their abbreviations (`s`, `p`, `l`, ...).

use crate::pbs::defs::qmgr_attributes::is_qmgr_attribute;
use crate::qmgr::attrs;
use crate::qmgr::lexer::{tokenize, Op, TokKind, Token};
use crate::snippet;
use crate::snippet::{Layout, Spot};
use std::ops::Range;

/// A qmgr verb.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// `create` / `c`
    Create,
    /// `delete` / `d`
    Delete,
    /// `set` / `s`
    Set,
    /// `unset` / `u`
    Unset,
    /// `list` / `l`
    List,
    /// `print` / `p`
    Print,
    /// `quit` / `q` / `exit`
    Quit,
    /// `help` / `h` / `?`
    Help,
}

impl Verb {
    /// True for verbs that change the server.
    pub(crate) fn is_change(self) -> bool {
        matches!(self, Verb::Create | Verb::Delete | Verb::Set | Verb::Unset)
    }
}

/// The object types fairsort manages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Object {
    /// `server` / `s`
    Server,
    /// `sched`
    Sched,
    /// `queue` / `q`
    Queue,
    /// `resource` / `r`
    Resource,
}

/// One attribute of a request: `name`, and for set/create its operator and value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttrOp {
    /// Attribute name as typed.
    pub name: String,
    /// Operator and value (`None` for unset/list/print).
    pub value: Option<(Op, String)>,
    /// Span of the attribute name (for carets).
    pub span: Range<usize>,
}

/// A parsed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// What to do.
    pub verb: Verb,
    /// On what (absent only for quit/help).
    pub object: Option<Object>,
    /// Object names (queues, resources; `default` for server/sched if given).
    pub names: Vec<String>,
    /// Attributes.
    pub attrs: Vec<AttrOp>,
}

/// A request qmgr refuses before sending it: PBS's client-side messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// `qmgr: Syntax error`, with the byte offset for the caret.
    Syntax(usize),
    /// `qmgr: Illegal operation: X`.
    IllegalOperation(String),
    /// `qmgr: Illegal object type: X`.
    IllegalObject(String),
    /// An object type qmgr knows but fairsort does not manage (node, hook, ...).
    Unsupported(String),
    /// An attribute name qmgr does not know where it expects one: `qmgr: Syntax error` with
    /// the caret at byte `at`, then fairsort's hint line.
    UnknownAttribute {
        /// Byte offset for the caret.
        at: usize,
        /// "did you mean" (or the attribute list).
        hint: String,
    },
}

impl ParseError {
    /// real qmgr's exit status for it (`qmgr.c`, `parse`): 4 for a syntax error, 1 for an
    /// illegal operation, 2 for an illegal object type (and an object fairsort does not manage).
    pub fn exit_status(&self) -> u8 {
        match self {
            ParseError::Syntax(_) | ParseError::UnknownAttribute { .. } => 4,
            ParseError::IllegalOperation(_) => 1,
            ParseError::IllegalObject(_) | ParseError::Unsupported(_) => 2,
        }
    }

    /// The message lines (with a caret under `src` for syntax errors), no trailing newline.
    pub fn render(&self, src: &str) -> String {
        match self {
            ParseError::Syntax(at) => format!(
                "qmgr: Syntax error\n{}",
                snippet::render(&Spot::in_line(src, *at), Layout::Bare, false)
            ),
            ParseError::UnknownAttribute { at, hint } => format!(
                "qmgr: Syntax error\n{}\n{hint}",
                snippet::render(&Spot::in_line(src, *at), Layout::Bare, false)
            ),
            ParseError::IllegalOperation(w) => {
                let at = src.find(w.as_str()).unwrap_or(0);
                format!(
                    "qmgr: Illegal operation: {w}\nTry 'help' if you are having trouble.\n{}{}",
                    caret(src, at, w),
                    suggestion(w, &VERBS)
                )
            }
            ParseError::IllegalObject(w) => {
                // The object is the second word: look for it after the first.
                let first_end = src
                    .trim_start()
                    .find(char::is_whitespace)
                    .map_or(0, |i| i + (src.len() - src.trim_start().len()));
                let at = src[first_end..]
                    .find(w.as_str())
                    .map_or(0, |i| i + first_end);
                format!(
                    "qmgr: Illegal object type: {w}.\n{}{}\nTry 'help' if you are having trouble.",
                    caret(src, at, w),
                    suggestion(w, &OBJECTS)
                )
            }
            ParseError::Unsupported(w) => {
                format!("qmgr: fairsort does not manage {w} objects (server, sched, queue and resource only)")
            }
        }
    }
}

/// qmgr's commands, for "did you mean".
const VERBS: [&str; 9] = [
    "create", "delete", "set", "unset", "list", "print", "help", "quit", "exit",
];
/// The objects fairsort manages, for "did you mean".
const OBJECTS: [&str; 4] = ["server", "sched", "queue", "resource"];

/// The request with `^~~` under the word `w` at byte `at`.
fn caret(src: &str, at: usize, w: &str) -> String {
    let spot = Spot::locate(src, at..at + w.len());
    snippet::render(&spot, Layout::Bare, true)
}

/// `\ndid you mean `X`?` for the nearest of `known`, or nothing.
fn suggestion(w: &str, known: &[&str]) -> String {
    crate::qmgr::nearest(w, known)
        .map(|k| format!("\ndid you mean `{k}`?"))
        .unwrap_or_default()
}

/// Parses one request; `Ok(None)` for a blank line or a `#` comment.
pub fn parse(src: &str) -> Result<Option<Command>, ParseError> {
    if src.trim_start().starts_with('#') {
        return Ok(None);
    }
    let toks = tokenize(src).map_err(|u| ParseError::Syntax(u.0))?;
    let mut p = Parser {
        toks: &toks,
        pos: 0,
        end: src.len(),
    };
    let Some(first) = p.toks.first() else {
        return Ok(None);
    };
    let verb_word = p.word(0).ok_or(ParseError::Syntax(first.span.start))?;
    let verb = match verb_word.to_ascii_lowercase().as_str() {
        "create" | "c" => Verb::Create,
        "delete" | "d" => Verb::Delete,
        "set" | "s" => Verb::Set,
        "unset" | "u" => Verb::Unset,
        "list" | "l" => Verb::List,
        "print" | "p" => Verb::Print,
        "quit" | "q" | "exit" => Verb::Quit,
        "help" | "h" | "?" => Verb::Help,
        _ => return Err(ParseError::IllegalOperation(verb_word.to_string())),
    };
    p.pos = 1;
    if matches!(verb, Verb::Quit | Verb::Help) {
        return Ok(Some(Command {
            verb,
            object: None,
            names: vec![],
            attrs: vec![],
        }));
    }
    let obj_word = p.word(1).ok_or(ParseError::Syntax(p.at(1)))?;
    let object = match obj_word.to_ascii_lowercase().as_str() {
        "server" | "s" => Object::Server,
        "sched" => Object::Sched,
        "queue" | "q" => Object::Queue,
        "resource" | "r" => Object::Resource,
        "node" | "n" | "hook" | "h" | "pbshook" | "pbs_hook" => {
            return Err(ParseError::Unsupported(obj_word.to_ascii_lowercase()))
        }
        _ => return Err(ParseError::IllegalObject(obj_word.to_string())),
    };
    p.pos = 2;
    let names = p.names(verb, object)?;
    let attrs = match verb {
        Verb::Set | Verb::Create => p.assignments(verb == Verb::Set)?,
        Verb::Unset | Verb::List | Verb::Print => p.attr_names(verb == Verb::Unset)?,
        _ => vec![],
    };
    if p.pos < p.toks.len() {
        return Err(ParseError::Syntax(p.at(p.pos)));
    }
    if names.is_empty() && matches!(object, Object::Queue | Object::Resource) && verb.is_change() {
        return Err(ParseError::Syntax(p.at(2)));
    }
    unknown_first_attribute(src, verb, object, &names, &attrs)?;
    Ok(Some(Command {
        verb,
        object: Some(object),
        names,
        attrs,
    }))
}

/// Real qmgr takes the word after `server`/`sched` for the object's name unless it is an
/// attribute name it knows (any object's, [`is_qmgr_attribute`]); so `set server nosuch = 1`
/// fails there as a syntax error at the `=` (at the end for `unset`). fairsort's own
/// attributes count as known. The error carries fairsort's "did you mean" line.
fn unknown_first_attribute(
    src: &str,
    verb: Verb,
    object: Object,
    names: &[String],
    attrs: &[AttrOp],
) -> Result<(), ParseError> {
    let known: &[&str] = match object {
        Object::Server => &attrs::SERVER_ATTRS,
        Object::Sched => &attrs::SCHED_ATTRS,
        _ => return Ok(()),
    };
    let Some(a) = attrs.first() else {
        return Ok(());
    };
    if !matches!(verb, Verb::Set | Verb::Unset)
        || !names.is_empty()
        || is_qmgr_attribute(&a.name)
        || attrs::canonical(&a.name, known).is_some()
    {
        return Ok(());
    }
    let rest = src.get(a.span.end..).unwrap_or("");
    let at = a.span.end + (rest.len() - rest.trim_start().len());
    let hint = match crate::qmgr::nearest(&a.name, known) {
        Some(k) => format!("did you mean `{k}`?"),
        None => format!("attributes: {}", known.join(", ")),
    };
    Err(ParseError::UnknownAttribute { at, hint })
}

struct Parser<'a> {
    toks: &'a [Token],
    pos: usize,
    end: usize,
}

impl Parser<'_> {
    /// The unquoted word at index `i`.
    fn word(&self, i: usize) -> Option<&str> {
        match self.toks.get(i).map(|t| &t.kind) {
            Some(TokKind::Text {
                value,
                quoted: false,
            }) => Some(value),
            _ => None,
        }
    }

    fn text(&self, i: usize) -> Option<&str> {
        match self.toks.get(i).map(|t| &t.kind) {
            Some(TokKind::Text { value, .. }) => Some(value),
            _ => None,
        }
    }

    fn is_op(&self, i: usize) -> bool {
        matches!(self.toks.get(i).map(|t| &t.kind), Some(TokKind::Op(_)))
    }

    fn is_comma(&self, i: usize) -> bool {
        matches!(self.toks.get(i).map(|t| &t.kind), Some(TokKind::Comma))
    }

    /// Byte offset of token `i`, or the end of the line.
    fn at(&self, i: usize) -> usize {
        self.toks.get(i).map(|t| t.span.start).unwrap_or(self.end)
    }

    /// Object names. Queues/resources: a comma list before the attributes. Server/sched: a name
    /// only where it cannot be an attribute (followed by another word, or alone after list/print).
    fn names(&mut self, verb: Verb, object: Object) -> Result<Vec<String>, ParseError> {
        let i = self.pos;
        let Some(first) = self.word(i) else {
            return Ok(vec![]);
        };
        let is_name = match object {
            Object::Queue | Object::Resource => !self.is_op(i + 1),
            Object::Server | Object::Sched => {
                // `list server managers` filters by attribute; `list server default` names it.
                let known: &[&str] = if object == Object::Server {
                    &attrs::SERVER_ATTRS
                } else {
                    &attrs::SCHED_ATTRS
                };
                self.word(i + 1).is_some()
                    || matches!(verb, Verb::Create | Verb::Delete)
                    || (matches!(verb, Verb::List | Verb::Print)
                        && attrs::canonical(first, known).is_none()
                        && !is_qmgr_attribute(first))
            }
        };
        if !is_name {
            return Ok(vec![]);
        }
        let mut names = vec![first.to_string()];
        self.pos += 1;
        if matches!(object, Object::Queue | Object::Resource) {
            while self.is_comma(self.pos)
                && self.word(self.pos + 1).is_some()
                && !self.is_op(self.pos + 2)
            {
                if let Some(w) = self.word(self.pos + 1) {
                    names.push(w.to_string());
                }
                self.pos += 2;
            }
        }
        Ok(names)
    }

    /// `ATTR OP VALUE[, ATTR OP VALUE...]`; required for `set`, optional for `create`.
    fn assignments(&mut self, required: bool) -> Result<Vec<AttrOp>, ParseError> {
        let mut out = Vec::new();
        if self.pos >= self.toks.len() {
            return if required {
                Err(ParseError::Syntax(self.end))
            } else {
                Ok(out)
            };
        }
        loop {
            let i = self.pos;
            let name = self
                .word(i)
                .ok_or(ParseError::Syntax(self.at(i)))?
                .to_string();
            let op = match self.toks.get(i + 1).map(|t| &t.kind) {
                Some(TokKind::Op(op)) => *op,
                _ => return Err(ParseError::Syntax(self.at(i + 1))),
            };
            let value = self
                .text(i + 2)
                .ok_or(ParseError::Syntax(self.at(i + 2)))?
                .to_string();
            let span = self.toks.get(i).map(|t| t.span.clone()).unwrap_or(0..0);
            out.push(AttrOp {
                name,
                value: Some((op, value)),
                span,
            });
            self.pos = i + 3;
            if self.is_comma(self.pos) {
                self.pos += 1;
                continue;
            }
            return Ok(out);
        }
    }

    /// `ATTR[, ATTR...]`; required for `unset`, optional for list/print.
    fn attr_names(&mut self, required: bool) -> Result<Vec<AttrOp>, ParseError> {
        let mut out = Vec::new();
        if self.pos >= self.toks.len() {
            return if required {
                Err(ParseError::Syntax(self.end))
            } else {
                Ok(out)
            };
        }
        loop {
            let i = self.pos;
            let name = self
                .word(i)
                .ok_or(ParseError::Syntax(self.at(i)))?
                .to_string();
            let span = self.toks.get(i).map(|t| t.span.clone()).unwrap_or(0..0);
            out.push(AttrOp {
                name,
                value: None,
                span,
            });
            self.pos = i + 1;
            if self.is_comma(self.pos) {
                self.pos += 1;
                continue;
            }
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Command {
        parse(s).unwrap().unwrap()
    }

    fn set(name: &str, v: &str) -> Option<(Op, String)> {
        let _ = name;
        Some((Op::Set, v.to_string()))
    }

    #[test]
    fn set_server_formula_quoted() {
        let c =
            ok(r#"set server job_sort_formula="pow(2, -(fairshare_tree_usage/fairshare_perc))""#);
        assert_eq!(c.verb, Verb::Set);
        assert_eq!(c.object, Some(Object::Server));
        assert!(c.names.is_empty());
        assert_eq!(c.attrs[0].name, "job_sort_formula");
        assert_eq!(
            c.attrs[0].value,
            set("", "pow(2, -(fairshare_tree_usage/fairshare_perc))")
        );
    }

    #[test]
    fn abbreviations_and_case() {
        let c = ok("S S job_sort_formula = ncpus");
        assert_eq!((c.verb, c.object), (Verb::Set, Some(Object::Server)));
        assert_eq!(ok("p s").verb, Verb::Print);
        assert_eq!(ok("l q").object, Some(Object::Queue));
        assert_eq!(ok("c q workq").names, ["workq"]);
        assert_eq!(ok("d r foo").object, Some(Object::Resource));
        assert_eq!(ok("u sched fair_share").verb, Verb::Unset);
        assert_eq!(ok("LIST SERVER").verb, Verb::List);
        assert_eq!(ok("quit").verb, Verb::Quit);
    }

    #[test]
    fn names_and_attribute_lists() {
        let c = ok("set queue q1,q2 Priority = 5, enabled = true");
        assert_eq!(c.names, ["q1", "q2"]);
        assert_eq!(c.attrs.len(), 2);
        assert_eq!(c.attrs[1].value, set("", "true"));
        let c = ok("create resource foo type=float,flag=h");
        assert_eq!(c.names, ["foo"]);
        assert_eq!(c.attrs.len(), 2);
        let c = ok("unset server job_sort_formula");
        assert!(c.names.is_empty());
        assert_eq!(c.attrs[0].name, "job_sort_formula");
        let c = ok("unset server default job_sort_formula, managers");
        assert_eq!(c.names, ["default"]);
        assert_eq!(c.attrs.len(), 2);
        let c = ok("list server default");
        assert_eq!(c.names, ["default"]);
        let c = ok("list server managers");
        assert!(c.names.is_empty());
        assert_eq!(c.attrs[0].name, "managers");
        let c = ok("p sched default fair_share,unknown_shares");
        assert_eq!((c.names.len(), c.attrs.len()), (1, 2));
        let c = ok("set server managers += alice@*");
        assert_eq!(c.attrs[0].value, Some((Op::Add, "alice@*".into())));
    }

    #[test]
    fn comments_blank_and_errors() {
        assert_eq!(parse("  # a comment").unwrap(), None);
        assert_eq!(parse("   ").unwrap(), None);
        assert_eq!(
            parse("frob server"),
            Err(ParseError::IllegalOperation("frob".into()))
        );
        assert_eq!(
            parse("set nodez a=1"),
            Err(ParseError::IllegalObject("nodez".into()))
        );
        assert_eq!(
            parse("set node n1 a=1"),
            Err(ParseError::Unsupported("node".into()))
        );
        // unquoted whitespace in a value
        let src = "set server job_sort_formula = a + b";
        assert_eq!(parse(src), Err(ParseError::Syntax(32)));
        assert_eq!(
            ParseError::Syntax(32).render(src),
            "qmgr: Syntax error\nset server job_sort_formula = a + b\n                                ^"
        );
        assert_eq!(parse("set server"), Err(ParseError::Syntax(10)));
        assert_eq!(parse("set server a ="), Err(ParseError::Syntax(14)));
        assert_eq!(parse("set server a = 'x"), Err(ParseError::Syntax(15)));
        assert_eq!(parse("create queue"), Err(ParseError::Syntax(12)));
        assert_eq!(parse("set queue q Priority"), Err(ParseError::Syntax(20)));
        assert_eq!(parse("delete queue q extra"), Err(ParseError::Syntax(15)));
        assert!(matches!(parse("= ="), Err(ParseError::Syntax(0))));
    }

    proptest::proptest! {
        /// Any input parses or fails with a message; never a panic (carets included).
        #[test]
        fn never_panics(src in "[ -~\\t\u{e9}\u{4e2d}]{0,60}") {
            if let Err(e) = parse(&src) {
                let text = e.render(&src);
                proptest::prop_assert!(text.starts_with("qmgr: "));
            }
        }

        /// Requests built from qmgr's own pieces either parse or point inside the line.
        #[test]
        fn caret_within_line(parts in proptest::collection::vec(
            proptest::sample::select(vec!["set", "s", "server", "queue", "q1", "a", "=", "+=", ",", "'x y'", "\"z", "1"]), 0..8)) {
            let src = parts.join(" ");
            if let Err(ParseError::Syntax(at)) = parse(&src) {
                proptest::prop_assert!(at <= src.len());
            }
        }
    }
}
