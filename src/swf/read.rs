//! Reading SWF text into its header values and job lines.

/// One job line: the fields fairsort uses, as numbers (−1: unknown, as SWF writes it).
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

/// A job line that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}: {message}")]
pub struct SwfError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Reads SWF text into `log` (a trace in several files reads each into the same log; a later
/// header value replaces an earlier one). A number may be written as a decimal (rounded).
pub fn read_swf(text: &str, log: &mut SwfLog) -> Result<(), SwfError> {
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
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() != 18 {
            return Err(SwfError {
                line,
                message: format!("an SWF job line has 18 fields, this one has {}", f.len()),
            });
        }
        let num = |k: usize, name: &str| -> Result<i64, SwfError> {
            let s = f.get(k).copied().unwrap_or("");
            s.parse::<i64>()
                .or_else(|_| s.parse::<f64>().map(|x| x.round() as i64))
                .map_err(|_| SwfError {
                    line,
                    message: format!("field {} ({name}): `{s}` is not a number", k + 1),
                })
        };
        log.jobs.push(SwfJob {
            line,
            id: f.first().copied().unwrap_or("").to_string(),
            submit: num(1, "submit time")?,
            run: num(3, "run time")?,
            alloc_procs: num(4, "allocated processors")?,
            req_procs: num(7, "requested processors")?,
            req_time: num(8, "requested time")?,
            req_mem: num(9, "requested memory")?,
            uid: num(11, "user id")?,
            gid: num(12, "group id")?,
            queue: num(14, "queue number")?,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            e.unwrap_err().message,
            "field 4 (run time): `x` is not a number"
        );
    }
}
