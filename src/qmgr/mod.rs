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

/// Splits a script into requests: one per line, a trailing `\` continues a line.
pub fn script_requests(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in text.lines() {
        if let Some(stripped) = line.strip_suffix('\\') {
            cur.push_str(stripped);
            continue;
        }
        cur.push_str(line);
        out.push(std::mem::take(&mut cur));
    }
    if !cur.is_empty() {
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
    }
}
