//! Reading SWF text into its header values and job lines.

use crate::swf::fields::{value, FIELDS};

/// One job line: the fields fairsort uses, as numbers (−1: unknown, as SWF writes it), each
/// within its field's range (`fields.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwfJob {
    /// 1-based line in the text.
    pub line: usize,
    /// Field 1: the job number, as written.
    pub id: String,
    /// Field 2: submit time (seconds from the log's start).
    pub submit: i64,
    /// Field 4: run time in seconds.
    pub run: i64,
    /// Field 5: allocated processors.
    pub alloc_procs: i64,
    /// Field 8: requested processors.
    pub req_procs: i64,
    /// Field 9: requested time in seconds.
    pub req_time: i64,
    /// Field 10: requested memory, KB per processor.
    pub req_mem: i64,
    /// Field 12: user id.
    pub uid: i64,
    /// Field 13: group id.
    pub gid: i64,
    /// Field 15: queue number.
    pub queue: i64,
}

/// An SWF log: its header values and its job lines in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SwfLog {
    /// `; MaxNodes:` header.
    pub max_nodes: Option<u64>,
    /// `; MaxProcs:` header.
    pub max_procs: Option<u64>,
    /// Job lines, in order.
    pub jobs: Vec<SwfJob>,
}

/// A job line that cannot be read: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{}{message}", if *col > 0 { format!("{col}: ") } else { " ".into() })]
pub struct SwfError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column of the field; 0 for the line as a whole.
    pub col: usize,
    /// What is wrong (`field NAME: …` for one field).
    pub message: String,
}

/// Reads SWF text into `log` (a trace in several files reads each into the same log; a later
/// header value replaces an earlier one). Every field must be a finite number; the fields
/// fairsort uses must be in their range (`fields.rs`): counts and ids whole, a time or memory
/// written as a decimal is rounded.
pub fn read_swf(text: &str, log: &mut SwfLog) -> Result<(), SwfError> {
    let mut f: Vec<(usize, &str)> = Vec::with_capacity(18);
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        if let Some(c) = l.strip_prefix(';') {
            if let Some((k, v)) = c.split_once(':') {
                let v = v.trim().parse::<u64>().ok();
                match k.trim() {
                    "MaxNodes" => log.max_nodes = v,
                    "MaxProcs" => log.max_procs = v,
                    _ => {}
                }
            }
            continue;
        }
        fields(raw, &mut f);
        if f.len() != 18 {
            return Err(SwfError {
                line,
                col: 0,
                message: format!("an SWF job line has 18 fields, this one has {}", f.len()),
            });
        }
        let mut nums = [0i64; 18];
        for (k, (&(at, s), n)) in f.iter().zip(nums.iter_mut()).enumerate() {
            *n = value(k, s).map_err(|m| SwfError {
                line,
                col: raw.get(..at).map_or(0, |p| p.chars().count()) + 1,
                message: format!("field {}: {m}", FIELDS.get(k).map_or("", |x| x.0)),
            })?;
        }
        let [_, submit, _, run, alloc_procs, _, _, req_procs, req_time, req_mem, _, uid, gid, _, queue, _, _, _] =
            nums;
        log.jobs.push(SwfJob {
            line,
            id: f.first().map_or("", |x| x.1).to_string(),
            submit,
            run,
            alloc_procs,
            req_procs,
            req_time,
            req_mem,
            uid,
            gid,
            queue,
        });
    }
    Ok(())
}

/// The whitespace-separated fields of `raw` with their byte offsets, into `out`.
fn fields<'a>(raw: &'a str, out: &mut Vec<(usize, &'a str)>) {
    out.clear();
    let mut start = None;
    for (i, c) in raw.char_indices() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((s, raw.get(s..i).unwrap_or("")));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, raw.get(s..).unwrap_or("")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swf::{MAX_SWF_PROCS, MAX_SWF_SECONDS};

    #[test]
    fn headers_jobs_and_errors() {
        let mut log = SwfLog::default();
        read_swf(
            "; MaxNodes: 2\n; MaxProcs: 4\n\n1 0 -1 100 2 -1 -1 2 100.4 -1 1 7 3 -1 1 -1 -1 -1\n",
            &mut log,
        )
        .unwrap();
        assert_eq!((log.max_nodes, log.max_procs), (Some(2), Some(4)));
        let j = &log.jobs[0];
        assert_eq!(
            (j.line, j.id.as_str(), j.run, j.req_time),
            (4, "1", 100, 100)
        );
        assert_eq!((j.uid, j.gid, j.queue), (7, 3, 1));
        let e = read_swf("1 2 3\n", &mut log).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1: an SWF job line has 18 fields, this one has 3"
        );
        let e = read_swf("1 0 -1 x -1 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1", &mut log);
        assert_eq!(
            e.unwrap_err().to_string(),
            "1:8: field Run Time: `x` is not a number"
        );
    }

    /// Every value no real log holds is refused at its column, under the field's SWF name.
    #[test]
    fn numbers_out_of_their_field_s_range_are_refused_where_they_are_written() {
        let line = |k: usize, v: &str| {
            let mut f = vec![
                "1", "0", "-1", "100", "2", "-1", "-1", "2", "100", "-1", "1", "7", "3", "-1", "1",
                "-1", "-1", "-1",
            ];
            f[k] = v;
            f.join(" ")
        };
        let big = (MAX_SWF_SECONDS + 1).to_string();
        let procs = (MAX_SWF_PROCS + 1).to_string();
        for (k, v, name, what) in [
            (3, "nan", "Run Time", "is not a finite number"),
            (3, "inf", "Run Time", "is not a finite number"),
            (3, "-inf", "Run Time", "is not a finite number"),
            (3, "1e300", "Run Time", "is out of range"),
            (3, "9223372036854775807", "Run Time", "is out of range"),
            (3, big.as_str(), "Run Time", "is out of range"),
            (3, "-2", "Run Time", "is out of range"),
            (1, "9.2e18", "Submit Time", "is out of range"),
            (8, "1e19", "Requested Time", "is out of range"),
            (
                4,
                "2.5",
                "Number of Allocated Processors",
                "is not a whole number",
            ),
            (
                7,
                procs.as_str(),
                "Requested Number of Processors",
                "is out of range",
            ),
            (9, "1e30", "Requested Memory", "is out of range"),
            (11, "-7", "User ID", "is out of range"),
            (5, "NaN", "Average CPU Time Used", "is not a finite number"),
        ] {
            let text = line(k, v);
            let e = read_swf(&text, &mut SwfLog::default()).unwrap_err();
            let col = text.split(' ').take(k).map(|s| s.len() + 1).sum::<usize>() + 1;
            assert_eq!(e.col, col, "{text}");
            assert!(
                e.message
                    .starts_with(&format!("field {name}: `{v}` {what}")),
                "{text}: {e}"
            );
        }
        // the largest accepted values pass
        let ok = line(3, &MAX_SWF_SECONDS.to_string());
        assert!(read_swf(&ok, &mut SwfLog::default()).is_ok());
    }
}
