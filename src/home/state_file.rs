//! Reading and writing `server.toml`, the home's human-readable state file. A file that does
//! not parse or holds an invalid value is reported with its path and line and never rewritten.

use super::error::ServerError;
use super::state::ServerState;
use std::path::Path;

/// The comment written at the top of every `server.toml`.
const HEADER: &str = "# fairsort server home: server and scheduler attributes, queues and custom resources.\n\
# Changed by `fairsort qmgr` (atomically, under the home's lock); see docs/server.md for every key.\n\n";

/// Parses and checks a state file's text; `path` is only used in error messages.
pub fn parse(text: &str, path: &Path) -> Result<ServerState, ServerError> {
    let state: ServerState = toml::from_str(text).map_err(|e| ServerError::Corrupt {
        path: path.to_path_buf(),
        line: e.span().map(|s| line_at(text, s.start)).unwrap_or(1),
        message: e.message().trim().to_string(),
    })?;
    state
        .check()
        .map_err(|(table, key, message)| ServerError::Corrupt {
            path: path.to_path_buf(),
            line: line_of_key(text, &table, &key),
            message,
        })?;
    Ok(state)
}

/// Serialises a state for writing (header comment + TOML).
pub fn render(state: &ServerState) -> Result<String, ServerError> {
    let body = toml::to_string(state).map_err(|e| ServerError::Corrupt {
        path: "server.toml".into(),
        line: 1,
        message: format!("cannot serialise state: {e}"),
    })?;
    Ok(format!("{HEADER}{body}"))
}

/// 1-based line of byte offset `at`.
fn line_at(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[..at]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// 1-based line of `key` inside `[table]` (the table header's line if the key is implied, 1 if
/// neither is found).
fn line_of_key(text: &str, table: &str, key: &str) -> usize {
    let mut current = String::new();
    let mut header_line = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(h) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = h.trim().replace(['"', '\''], "");
            if current == table {
                header_line = Some(i + 1);
            }
            continue;
        }
        if current == table {
            if let Some(rest) = line.strip_prefix(key) {
                if rest.trim_start().starts_with('=') {
                    return i + 1;
                }
            }
        }
    }
    header_line.unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("/h/server.toml")
    }

    #[test]
    fn round_trip() {
        let mut s = ServerState::initial("alice");
        s.server.job_sort_formula = Some("pow(2, -(fairshare_tree_usage/fairshare_perc))".into());
        s.sched.job_sort_formula_threshold = Some(7.0);
        s.queues.insert(
            "workq".into(),
            super::super::state::Queue {
                priority: Some(100),
                ..Default::default()
            },
        );
        let text = render(&s).unwrap();
        assert_eq!(parse(&text, p()).unwrap(), s);
    }

    #[test]
    fn syntax_error_names_file_and_line() {
        let text = "[server]\nmanagers = [\"root@*\"]\n\n[sched]\nfair_share = tru\n";
        let e = parse(text, p()).unwrap_err().to_string();
        assert!(e.starts_with("/h/server.toml:5: "), "{e}");
    }

    #[test]
    fn unknown_key_is_an_error_with_line() {
        let text = "[server]\nmanagers = [\"root@*\"]\njob_sort_fromula = \"ncpus\"\n";
        let e = parse(text, p()).unwrap_err().to_string();
        assert!(e.starts_with("/h/server.toml:3: "), "{e}");
        assert!(e.contains("job_sort_fromula"), "{e}");
    }

    #[test]
    fn invalid_value_names_its_line() {
        let text = "[server]\nmanagers = [\"root@*\"]\n[sched]\nfair_share = true\nfairshare_decay_factor = 2.0\n";
        let e = parse(text, p()).unwrap_err().to_string();
        assert_eq!(
            e,
            "/h/server.toml:5: fairshare_decay_factor: Invalid value: 2.0000.  Valid values are between 0 and 1."
        );
        let text = "[sched]\nfairshare_entity = \"user\"\n";
        let e = parse(text, p()).unwrap_err().to_string();
        assert!(e.starts_with("/h/server.toml:2: "), "{e}");
        let text = "[server]\nmanagers = [\"root\"]\n";
        let e = parse(text, p()).unwrap_err().to_string();
        assert!(
            e.starts_with("/h/server.toml:2: manager entry 'root'"),
            "{e}"
        );
    }
}
