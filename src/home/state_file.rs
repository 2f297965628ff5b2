//! Reading and writing `server.toml`, the home's human-readable state file. A file that does
//! not parse or holds an invalid value is reported with its path and line and never rewritten.

use crate::files::toml_spans::{line_col, locate, one_line};
use crate::home::error::HomeError;
use crate::home::state::HomeState;
use std::path::Path;

/// The comment written at the top of every `server.toml`.
const HEADER: &str = "# fairsort home: server and scheduler attributes, queues and custom resources.\n\
# Changed by `fairsort qmgr` (atomically, under the home's lock); see docs/home.md for every key.\n\n";

/// Parses and checks a state file's text; `path` is only used in error messages, which give
/// the line and column of the problem (toml's spans): a syntax error, an unknown key, a value out
/// of its range (docs/home.md). A file that fails is never rewritten: every change reads and
/// checks it first.
pub fn parse(text: &str, path: &Path) -> Result<HomeState, HomeError> {
    let corrupt = |(line, column): (usize, usize), message: String| HomeError::Corrupt {
        path: path.to_path_buf(),
        line,
        column,
        message,
    };
    let state: HomeState = toml::from_str(text).map_err(|e| {
        let at = e.span().map_or((1, 1), |s| line_col(text, s.start));
        corrupt(at, one_line(e.message()))
    })?;
    state.check_at().map_err(|(key_path, message)| {
        let steps: Vec<&str> = key_path.iter().map(String::as_str).collect();
        corrupt(locate(text, &steps), message)
    })?;
    Ok(state)
}

/// Serialises a state for writing (header comment + TOML).
pub fn render(state: &HomeState) -> Result<String, HomeError> {
    let body = toml::to_string(state).map_err(|e| HomeError::Corrupt {
        path: "server.toml".into(),
        line: 1,
        column: 1,
        message: format!("cannot serialise state: {e}"),
    })?;
    Ok(format!("{HEADER}{body}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("/h/server.toml")
    }

    #[test]
    fn round_trip() {
        let mut s = HomeState::initial("alice");
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
        assert_eq!(e, "/h/server.toml:5:14: invalid string; expected `\"`, `'`");
    }

    #[test]
    fn unknown_key_is_an_error_with_line() {
        let text = "[server]\nmanagers = [\"root@*\"]\njob_sort_fromula = \"ncpus\"\n";
        let e = parse(text, p()).unwrap_err().to_string();
        assert!(e.starts_with("/h/server.toml:3:1: "), "{e}");
        assert!(e.contains("job_sort_fromula"), "{e}");
    }

    #[test]
    fn invalid_value_names_its_line() {
        let text = "[server]\nmanagers = [\"root@*\"]\n[sched]\nfair_share = true\nfairshare_decay_factor = 2.0\n";
        let e = parse(text, p()).unwrap_err().to_string();
        assert_eq!(
            e,
            "/h/server.toml:5:26: fairshare_decay_factor: Invalid value: 2.0000.  Valid values are between 0 and 1."
        );
        let text = "[sched]\nfairshare_entity = \"user\"\n";
        let e = parse(text, p()).unwrap_err().to_string();
        assert!(e.starts_with("/h/server.toml:2:20: "), "{e}");
        let text = "[server]\nmanagers = [\"root\"]\n";
        let e = parse(text, p()).unwrap_err().to_string();
        assert!(
            e.starts_with("/h/server.toml:2:12: manager entry 'root'"),
            "{e}"
        );
    }

    #[test]
    fn out_of_range_attributes_name_line_and_column() {
        let cases = [
            (
                "[server]\nmanagers = [\"root@*\"]\n[queues.workq]\npriority = 5000\n",
                "/h/server.toml:4:12: Priority: 5000 is not an integer from -1024 to 1023",
            ),
            (
                "[server]\nmanagers = []\n",
                "/h/server.toml:2:12: managers: the list is empty; nobody could change this home (keep at least one user@host)",
            ),
            (
                "[server]\nmanagers = [\"root@*\"]\njob_sort_formula = \"ncpus +\"\n",
                "/h/server.toml:3:20: job_sort_formula: Invalid Formula Format (15123)",
            ),
            (
                "[server]\nmanagers = [\"root@*\"]\njob_sort_formula = \"nosuch * 2\"\n",
                "/h/server.toml:3:20: job_sort_formula: Formula contains invalid keyword (15124)",
            ),
            (
                "[server]\nmanagers = [\"root@*\"]\n[sched]\nfairshare_decay_time = 0\n",
                "/h/server.toml:4:24: fairshare_decay_time must be from 1 to 3153600000 seconds, got 0",
            ),
            (
                "[server]\nmanagers = [\"root@*\"]\n[sched]\nunknown_shares = 99999999999\n",
                "/h/server.toml:4:18: unknown_shares must be from 0 to 2147483647, got 99999999999",
            ),
            (
                "[server]\nmanagers = [\"root@*\"]\n[queues.workq]\npriority = 1\nbogus = 2\n",
                "/h/server.toml:5:1: unknown field `bogus`, expected one of `priority`, `queue_type`, `enabled`, `started`, `other`",
            ),
            (
                "[server]\nmanagers = [\"root@*\"]\n[server.other]\npbs_version = \"1\"\n",
                "/h/server.toml:4:15: pbs_version: read-only in PBS",
            ),
            (
                "[server]\nmanagers = [\"root@*\"]\n[queues.q.other]\nscheduling = \"True\"\n",
                "/h/server.toml:4:14: scheduling: not an attribute PBS has for this object",
            ),
            (
                "[server]\nmanagers = [\"root@*\"]\n[server.other]\nscheduling = \"yes\"\n",
                "/h/server.toml:4:14: scheduling: yes is not True or False",
            ),
            (
                "[server]\nmanagers = [\"root@*\"]\n[sched.other]\njob_sort_formula = \"1\"\n",
                "/h/server.toml:4:20: job_sort_formula: fairsort keeps job_sort_formula in its own field",
            ),
        ];
        let cases = cases.into_iter().chain([
            (
                "[server]\nmanagers = [\"root@*\", \"a@*\", \"root@*\"]\n",
                "/h/server.toml:2:12: managers: Duplicate entry in list root@*",
            ),
            (
                "[server]\nmanagers = [\"root@*\"]\n[sched]\nfair_share = true\nfair_share = false\n",
                "/h/server.toml:5:1: duplicate key `fair_share` in table `sched`",
            ),
        ]);
        for (text, want) in cases {
            assert_eq!(parse(text, p()).unwrap_err().to_string(), want);
        }
    }
}
