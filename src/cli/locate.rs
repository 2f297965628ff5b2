//! Error positions worded one way. fairsort's readers say `FILE:LINE: message`; errors that
//! carry a parser's own position (serde_json: `... at line L column C`; csv: `CSV error:
//! record R (line: L, byte: B): ...`) are reworded to `FILE:L:C: message` and `FILE:L: message`,
//! dropping the repeated line where a reader already named it.

/// `message` with a JSON or CSV parser's position moved to the front, after the file name.
pub fn locate(message: &str) -> String {
    let (first, rest) = match message.split_once('\n') {
        Some((f, r)) => (f, Some(r)),
        None => (message, None),
    };
    let first = json_position(first)
        .or_else(|| csv_position(first))
        .unwrap_or_else(|| first.to_string());
    match rest {
        Some(r) => format!("{first}\n{r}"),
        None => first,
    }
}

/// Splits `FILE: the rest` or `FILE:LINE: the rest` when the first segment looks like a file
/// name (no spaces); the line is dropped (the parser's own position is about to be said).
fn file_prefix(s: &str) -> (Option<&str>, &str) {
    match s.split_once(": ") {
        Some((f, r)) if !f.is_empty() && !f.contains(' ') => match f.rsplit_once(':') {
            Some((name, n)) if !name.is_empty() && n.parse::<u64>().is_ok() => (Some(name), r),
            _ => (Some(f), r),
        },
        _ => (None, s),
    }
}

fn join(file: Option<&str>, line: u64, col: Option<u64>, message: &str) -> String {
    match (file, col) {
        (Some(f), Some(c)) => format!("{f}:{line}:{c}: {message}"),
        (Some(f), None) => format!("{f}:{line}: {message}"),
        (None, Some(c)) => format!("line {line}, column {c}: {message}"),
        (None, None) => format!("line {line}: {message}"),
    }
}

/// `FILE: ... message at line L column C` → `FILE:L:C: ... message`.
fn json_position(s: &str) -> Option<String> {
    let (head, pos) = s.rsplit_once(" at line ")?;
    let (line, col) = pos.split_once(" column ")?;
    let (line, col): (u64, u64) = (line.parse().ok()?, col.parse().ok()?);
    if line == 0 {
        return None;
    }
    let (file, message) = file_prefix(head);
    Some(join(file, line, Some(col), message))
}

/// `FILE[:N]: CSV error: record R (line: L, byte: B): message` → `FILE:L: message`.
fn csv_position(s: &str) -> Option<String> {
    let at = s.find("CSV error: record ")?;
    let (before, after) = s.split_at(at);
    let pos = after.split_once("(line: ")?.1;
    let (line, rest) = pos.split_once(", byte: ")?;
    let line: u64 = line.parse().ok()?;
    let message = rest.split_once("): ")?.1;
    let (file, prefix) = file_prefix(before);
    let prefix = prefix.trim_end().trim_end_matches(':');
    let message = if prefix.is_empty() {
        message.to_string()
    } else {
        format!("{prefix}: {message}")
    };
    Some(join(file, line, None, &message))
}

#[cfg(test)]
mod tests {
    use super::locate;

    #[test]
    fn json_positions_come_first() {
        assert_eq!(
            locate("bad.json:4: key must be a string at line 4 column 16"),
            "bad.json:4:16: key must be a string"
        );
        assert_eq!(
            locate("q.json: qstat JSON: job `1.pbs`: key must be a string at line 1 column 36"),
            "q.json:1:36: qstat JSON: job `1.pbs`: key must be a string"
        );
        assert_eq!(
            locate("j.json: job list: expected `,` or `}` at line 2 column 10"),
            "j.json:2:10: job list: expected `,` or `}`"
        );
        assert_eq!(
            locate("EOF while parsing a value at line 3 column 0"),
            "line 3, column 0: EOF while parsing a value"
        );
    }

    #[test]
    fn csv_positions_come_first() {
        assert_eq!(
            locate("jobs.csv:3: CSV error: record 2 (line: 3, byte: 27): found record with 2 fields, but the previous record has 3 fields"),
            "jobs.csv:3: found record with 2 fields, but the previous record has 3 fields"
        );
        assert_eq!(
            locate("x.csv: CSV error: record 1 (line: 2, byte: 9): invalid UTF-8"),
            "x.csv:2: invalid UTF-8"
        );
    }

    #[test]
    fn other_messages_are_kept() {
        for m in [
            "tree.toml:2: invalid table header\nexpected `.`, `]]`",
            "no job `x` in the queue",
            "a message that says at line nine column ten",
            "Invalid Formula Format: this `(` is never closed\nat line 1, column 1",
        ] {
            assert_eq!(locate(m), m);
        }
    }
}
