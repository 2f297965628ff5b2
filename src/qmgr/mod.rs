//! The qmgr command language: tokenize (`lexer`), parse (`parser`), execute against a home
//! (`exec`), and render attributes (`attrs`) in qmgr's `print`/`list` layouts (`print`).

pub mod attrs;
pub mod exec;
pub mod lexer;
pub mod parser;
pub mod print;

pub use exec::{execute, select, Block, Reply};
pub use parser::{parse, Command, ParseError};

use crate::home::error::ServerError;
use crate::home::Home;

/// Why one request failed, ready to print on stderr.
#[derive(Debug)]
pub enum RequestError {
    /// Refused before reaching the server (qmgr client-side messages).
    Parse(String),
    /// Refused by the server (PBS's two lines plus detail) or a home error.
    Server(ServerError),
}

impl RequestError {
    /// The text to print (no trailing newline).
    pub fn render(&self) -> String {
        match self {
            RequestError::Parse(s) => s.clone(),
            RequestError::Server(ServerError::Rejected(r)) => r.render("default"),
            RequestError::Server(e) => format!("qmgr: {e}"),
        }
    }

    /// True when later requests cannot succeed either (broken state file, I/O error).
    pub fn is_fatal(&self) -> bool {
        matches!(self, RequestError::Server(e) if !matches!(e, ServerError::Rejected(_)))
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
    let cmd = parse(line).map_err(|e| RequestError::Parse(e.render(line)))?;
    match cmd {
        None => Ok(None),
        Some(c) => execute(home, user, host, &c, line, json)
            .map(Some)
            .map_err(RequestError::Server),
    }
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
