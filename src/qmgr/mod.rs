//! The qmgr command language: tokenize (`lexer`), parse (`parser`), execute against a home
//! (`exec`), and render attributes (`attrs`) in qmgr's `print`/`list` layouts (`print`).

pub mod attrs;
pub mod exec;
mod kept;
pub mod lexer;
pub mod note;
pub mod parser;
pub mod print;
pub use exec::{execute, select, Block, Reply};
pub use note::KeptNote;
pub use parser::{parse, Command, ParseError};

use crate::home::error::HomeError;
use crate::home::Home;

/// Why one request failed, ready to print on stderr.
#[derive(Debug)]
pub enum RequestError {
    /// Refused before reaching the server (qmgr client-side messages) and real qmgr's exit
    /// status for it.
    Parse(String, u8),
    /// Refused by the server (PBS's two lines plus detail) or a home error; `change`: the
    /// request was a create/delete/set/unset (not a list or print).
    Server(HomeError, bool),
}

impl RequestError {
    /// real qmgr's exit status for this failure (`qmgr.c`: `execute` returns the server's
    /// error number for a change, which the exit status keeps modulo 256 — 15123 is 19, 15226
    /// is 122 — and 1 for a failed list or print; a home error is 1).
    pub fn exit_status(&self) -> u8 {
        match self {
            RequestError::Parse(_, status) => *status,
            RequestError::Server(HomeError::Rejected(r), true) => match (r.code % 256) as u8 {
                0 => 1,
                n => n,
            },
            RequestError::Server(..) => 1,
        }
    }

    /// The text to print (no trailing newline).
    pub fn render(&self) -> String {
        match self {
            RequestError::Parse(s, _) => s.clone(),
            RequestError::Server(HomeError::Rejected(r), _) => r.render("default"),
            RequestError::Server(e, _) => format!("qmgr: {e}"),
        }
    }

    /// True when later requests cannot succeed either (broken state file, I/O error).
    pub fn is_fatal(&self) -> bool {
        matches!(self, RequestError::Server(e, _) if !matches!(e, HomeError::Rejected(_)))
    }
}

/// Parses and runs one request line as `user` on `host` (`json`: JSON answers to list/print).
pub fn run_request(
    home: &Home,
    user: &str,
    host: &str,
    line: &str,
    json: bool,
) -> Result<Option<Reply>, RequestError> {
    let cmd = parse(line).map_err(|e| RequestError::Parse(e.render(line), e.exit_status()))?;
    match cmd {
        None => Ok(None),
        Some(c) => execute(home, user, host, &c, line, json)
            .map(Some)
            .map_err(|e| {
                RequestError::Server(point_at_unknown_attribute(e, &c, line), c.verb.is_change())
            }),
    }
}

/// The warnings of a `set server|sched job_sort_formula = F` request: one line per way the
/// real pbs_sched would crash or misbehave on `F` ([`crate::formula::pbs_hazards`]); none
/// for any other request.
pub fn formula_hazards(line: &str) -> Vec<String> {
    let Ok(Some(cmd)) = parse(line) else {
        return Vec::new();
    };
    if cmd.verb != parser::Verb::Set
        || !matches!(
            cmd.object,
            Some(parser::Object::Server | parser::Object::Sched)
        )
    {
        return Vec::new();
    }
    cmd.attrs
        .iter()
        .filter(|a| a.name.eq_ignore_ascii_case("job_sort_formula"))
        .filter_map(|a| a.value.as_ref().map(|(_, v)| v.as_str()))
        .flat_map(crate::formula::pbs_hazards::static_hazards)
        .map(|h| h.render())
        .collect()
}

/// The closest of `known` to `word` (case-insensitive), if it is close enough to be a typo:
/// an edit distance of at most a third of the word (at least 1).
pub(crate) fn nearest<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    let w = word.to_ascii_lowercase();
    let limit = (w.chars().count() / 3).max(1);
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&w, &k.to_ascii_lowercase()), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// PBS's `Undefined attribute ` (15002) with, below its two lines, the request with a caret under
/// the first attribute its object does not have and the nearest attribute it has.
fn point_at_unknown_attribute(e: HomeError, cmd: &Command, line: &str) -> HomeError {
    let HomeError::Rejected(mut r) = e else {
        return e;
    };
    if r.code != crate::pbs::defs::codes::NOATTR.number || !r.detail.is_empty() {
        return HomeError::Rejected(r);
    }
    let known: &[&str] = match cmd.object {
        Some(parser::Object::Server) => &attrs::SERVER_ATTRS,
        Some(parser::Object::Sched) => &attrs::SCHED_ATTRS,
        Some(parser::Object::Queue) => &attrs::QUEUE_ATTRS,
        Some(parser::Object::Resource) => &attrs::RESOURCE_ATTRS,
        None => &[],
    };
    if let Some(a) = cmd.attrs.iter().find(|a| {
        attrs::canonical(&a.name, known).is_none()
            && !cmd.object.is_some_and(|o| exec::is_kept_name(o, &a.name))
    }) {
        let spot = crate::snippet::Spot::locate(line, a.span.clone());
        let mut detail = crate::snippet::render(&spot, crate::snippet::Layout::Bare, true);
        match nearest(&a.name, known) {
            Some(k) => detail.push_str(&format!("\ndid you mean `{k}`?")),
            None => detail.push_str(&format!("\nattributes: {}", known.join(", "))),
        }
        r.detail = detail;
    }
    HomeError::Rejected(r)
}

/// Splits a script into requests: one per line, a trailing `\` continues a line, and a line
/// that ends inside a `"..."` or `'...'` string continues on the next with the newline kept in
/// the value (how `print` writes a value holding a newline). A comment line (`#` first) is one
/// request whatever quotes it holds.
pub fn script_requests(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut open: Option<char> = None;
    for line in text.lines() {
        if open.is_none() && cur.is_empty() && line.trim_start().starts_with('#') {
            out.push(line.to_string());
            continue;
        }
        for c in line.chars() {
            match open {
                Some(q) if c == q => open = None,
                None if c == '"' || c == '\'' => open = Some(c),
                _ => {}
            }
        }
        if open.is_some() {
            cur.push_str(line);
            cur.push('\n');
            continue;
        }
        if let Some(stripped) = line.strip_suffix('\\') {
            cur.push_str(stripped);
            continue;
        }
        cur.push_str(line);
        out.push(std::mem::take(&mut cur));
    }
    if !cur.is_empty() {
        // a quote still open at the end: the request as written, for the lexer to report
        if open.is_some() && cur.ends_with('\n') {
            cur.pop();
        }
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_lines_and_continuations() {
        assert_eq!(
            script_requests("a\n# c\nb \\\nc\n"),
            vec!["a", "# c", "b c"]
        );
        assert_eq!(
            script_requests("s s f = \"a\nb'\"\n# don't\nq\n"),
            vec!["s s f = \"a\nb'\"", "# don't", "q"]
        );
        assert_eq!(script_requests("s s f = 'open\n"), vec!["s s f = 'open"]);
    }
}
