//! What a JSON jobs file is, from its structure: the top-level object's keys, and the keys of
//! the first job of a `jobs` array, each JSON-tokenised (escapes decoded) and every other value
//! skipped unread. The detector reads only as far as it needs to decide, one byte at a time and
//! without recursion, so it stays linear in the bytes it looks at and never builds a value.

/// What the top level of a JSON text says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonKind {
    /// `qstat -f -F json`: a top-level `Jobs`, `timestamp`, `pbs_version` or `pbs_server`.
    Qstat,
    /// fairsort's list: an array, or `jobs` whose first job has only fairsort's fields.
    List,
    /// `squeue --json`: Slurm's `meta`, `errors` or `warnings`, or a first job with Slurm's
    /// fields (`job_id`, `user_name`, `partition`, ...).
    Squeue,
    /// `flux jobs --json`: a first job with `userid` or `urgency`.
    Flux,
}

/// The top-level keys that make a text `qstat -f -F json` (qstat prints them first).
const QSTAT_KEYS: &[&str] = &["Jobs", "timestamp", "pbs_version", "pbs_server"];

/// Slurm's envelope of `squeue --json` (and `sacct --json`).
const SLURM_TOP_KEYS: &[&str] = &["meta", "errors", "warnings"];

/// Fields only a Slurm job has (none of them is fairsort's or flux's).
const SLURM_JOB_KEYS: &[&str] = &[
    "job_id",
    "user_name",
    "partition",
    "job_state",
    "submit_time",
    "array_job_id",
    "array_task_id",
    "node_count",
    "time_limit",
    "accrue_time",
    "qos",
    "cpus",
    "tres_req_str",
    "association_id",
];

/// Fields only a flux job has.
const FLUX_JOB_KEYS: &[&str] = &["userid", "urgency", "t_submit"];

/// How deep a skipped value may nest before the detector stops looking (and decides on what
/// it has seen): a bound on the work, not on what the readers accept.
const MAX_DEPTH: usize = 512;

/// The kind of the JSON text `b` (a BOM and leading whitespace already skipped), or `None`
/// when it is not JSON (it does not start with `{` or `[`). A text that ends or breaks
/// before the detector can decide is a fairsort list, whose reader then says what is wrong.
pub(crate) fn json_kind(b: &[u8]) -> Option<JsonKind> {
    let mut t = Tok { b, pos: 0 };
    t.ws();
    match t.peek()? {
        b'[' => Some(JsonKind::List),
        b'{' => Some(top_object(&mut t).unwrap_or(JsonKind::List)),
        _ => None,
    }
}

/// Walks the top-level object's members until one decides (`None`: it ended or broke first).
fn top_object(t: &mut Tok) -> Option<JsonKind> {
    let mut members = t.object()?;
    while let Some(key) = members.next_key(t)? {
        if QSTAT_KEYS.contains(&key.as_str()) {
            return Some(JsonKind::Qstat);
        }
        if SLURM_TOP_KEYS.contains(&key.as_str()) {
            return Some(JsonKind::Squeue);
        }
        if key == "jobs" {
            t.ws();
            if t.peek()? == b'[' {
                if let Some(kind) = first_job(t)? {
                    return Some(kind);
                }
                continue; // an empty array: the other keys may still tell
            }
        }
        t.skip_value()?;
    }
    Some(JsonKind::List)
}

/// The kind the first job of the array at the cursor shows, `Some(None)` for an empty array
/// (skipped), `None` when the text breaks.
fn first_job(t: &mut Tok) -> Option<Option<JsonKind>> {
    t.eat(b'[')?;
    t.ws();
    if t.peek()? == b']' {
        t.pos += 1;
        return Some(None);
    }
    if t.peek()? != b'{' {
        return Some(Some(JsonKind::List)); // not a job object: the list's reader says so
    }
    let mut members = t.object()?;
    let mut kind = JsonKind::List;
    while let Some(key) = members.next_key(t)? {
        if FLUX_JOB_KEYS.contains(&key.as_str()) {
            return Some(Some(JsonKind::Flux));
        }
        if SLURM_JOB_KEYS.contains(&key.as_str()) {
            kind = JsonKind::Squeue; // unless a flux field follows
        }
        t.skip_value()?;
    }
    Some(Some(kind))
}

/// A cursor over JSON bytes.
struct Tok<'a> {
    b: &'a [u8],
    pos: usize,
}

/// The members of an object being walked: whether the next key is the first.
struct Members {
    first: bool,
}

impl Members {
    /// The next key (the cursor then after its `:`), `Some(None)` at the object's end, `None`
    /// when the text breaks.
    fn next_key(&mut self, t: &mut Tok) -> Option<Option<String>> {
        t.ws();
        if t.peek()? == b'}' {
            t.pos += 1;
            return Some(None);
        }
        if !std::mem::take(&mut self.first) {
            t.eat(b',')?;
            t.ws();
        }
        let key = t.string()?;
        t.ws();
        t.eat(b':')?;
        Some(Some(key))
    }
}

impl Tok<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.pos += 1)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Opens the object at the cursor.
    fn object(&mut self) -> Option<Members> {
        self.eat(b'{')?;
        Some(Members { first: true })
    }

    /// The string at the cursor, escapes decoded (a lone surrogate as U+FFFD); `None` when it
    /// is not a well-formed JSON string (a raw control byte, a bad escape, no closing quote).
    fn string(&mut self) -> Option<String> {
        self.eat(b'"')?;
        let mut out = Vec::new();
        loop {
            let c = self.peek()?;
            self.pos += 1;
            match c {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let e = self.peek()?;
                    self.pos += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    };
                    let mut buf = [0; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                0..=0x1f => return None,
                _ => out.push(c),
            }
        }
    }

    /// The character of a `\uXXXX` escape (the `\u` consumed), with its low surrogate when it
    /// is a high one.
    fn unicode_escape(&mut self) -> Option<char> {
        let hi = self.hex4()?;
        if (0xd800..0xdc00).contains(&hi) && self.b.get(self.pos..self.pos + 2) == Some(b"\\u") {
            let save = self.pos;
            self.pos += 2;
            let lo = self.hex4()?;
            if (0xdc00..0xe000).contains(&lo) {
                let c = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
                return char::from_u32(c);
            }
            self.pos = save;
        }
        Some(char::from_u32(hi).unwrap_or('\u{fffd}'))
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.b.get(self.pos..self.pos + 4)?;
        let text = std::str::from_utf8(digits).ok()?;
        let v = u32::from_str_radix(text, 16).ok()?;
        self.pos += 4;
        Some(v)
    }

    /// Skips the value at the cursor: a string, or a scalar up to the next delimiter, or an
    /// object or array to its matching close (strings inside skipped whole, so a bracket in
    /// one does not count). `None` when the text ends first or nests past [`MAX_DEPTH`].
    fn skip_value(&mut self) -> Option<()> {
        self.ws();
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    self.skip_string()?;
                }
                b'{' | b'[' => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return None;
                    }
                    self.pos += 1;
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    self.pos += 1;
                }
                b',' | b':' | b' ' | b'\t' | b'\n' | b'\r' if depth > 0 => self.pos += 1,
                _ if depth > 0 => self.pos += 1,
                _ => {
                    // A scalar at the top: up to the next delimiter.
                    while self.peek().is_some_and(|c| {
                        !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                    }) {
                        self.pos += 1;
                    }
                    return Some(());
                }
            }
            if depth == 0 {
                return Some(());
            }
        }
    }

    /// Skips the string at the cursor, not decoding it.
    fn skip_string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        loop {
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    return Some(());
                }
                b'\\' => self.pos += 2,
                _ => self.pos += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_structure_decides_not_a_word() {
        use JsonKind::*;
        for (text, want) in [
            (
                r#"{"timestamp":1,"pbs_version":"x","Jobs":{}}"#,
                Some(Qstat),
            ),
            (r#"{"J\u006fbs":{"1.s":{}}}"#, Some(Qstat)),
            (
                r#"{"jobs":[{"id":"1","account":"Jobs","queue":"Jobs"}]}"#,
                Some(List),
            ),
            (r#"[{"id":"1","user":"pbs_version"}]"#, Some(List)),
            (r#"{"jobs":[{"id":1,"userid":5,"urgency":16}]}"#, Some(Flux)),
            (r#"{"jobs":[{"job_id":7}]}"#, Some(Squeue)),
            (
                r#"{"jobs":[{"user_name":"bob","partition":"b"}]}"#,
                Some(Squeue),
            ),
            (r#"{"jobs":[],"meta":{"plugin":{}}}"#, Some(Squeue)),
            (r#"{"meta":{"Jobs":1},"jobs":[]}"#, Some(Squeue)),
            (r#"{"x":{"Jobs":[1,"]}"]},"Jobs":{}}"#, Some(Qstat)),
            (r#"{"jobs":[{"id":"1","walltim":5}]}"#, Some(List)),
            (r#"{"jobs":[{"id":"1","us"#, Some(List)),
            ("{\"Jo\u{1}bs\":{}}", Some(List)),
            ("id,user\n", None),
            ("", None),
        ] {
            assert_eq!(json_kind(text.as_bytes()), want, "{text}");
        }
    }

    /// Deep nesting is skipped without recursion, up to the bound, and past it the detector
    /// stops (no stack overflow on a million brackets).
    #[test]
    fn deep_values_are_skipped_iteratively() {
        let deep = format!(
            "{{\"x\":{}{},\"Jobs\":{{}}}}",
            "[".repeat(500),
            "]".repeat(500)
        );
        assert_eq!(json_kind(deep.as_bytes()), Some(JsonKind::Qstat));
        let deeper = format!("{{\"x\":{}", "[".repeat(1_000_000));
        assert_eq!(json_kind(deeper.as_bytes()), Some(JsonKind::List));
    }
}
