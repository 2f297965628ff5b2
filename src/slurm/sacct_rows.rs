//! The one reader of `sacct -P` output, shared by `usage record` (charging) and `replay` (jobs
//! of a trace): lines read with a bound on their length, the header naming the `--format`
//! columns (case-insensitive), and each later line split on `|` into a [`SacctRow`] whose
//! cells are found by column name.

use jiff::tz::TimeZone;
use std::io::BufRead;

/// The columns of `sacct --format` that fairsort reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Col {
    /// `JobIDRaw`: the job's own number (an array task's too).
    JobIdRaw,
    /// `JobID` (`123`, `123.batch`, `50_3`).
    JobId,
    /// `User`.
    User,
    /// `Account`.
    Account,
    /// `Group`.
    Group,
    /// `Partition`.
    Partition,
    /// `QOS`.
    Qos,
    /// `State`.
    State,
    /// `Submit`.
    Submit,
    /// `Start`.
    Start,
    /// `End`.
    End,
    /// `Elapsed` (`[D-]HH:MM:SS`).
    Elapsed,
    /// `ElapsedRaw` (seconds).
    ElapsedRaw,
    /// `AllocTRES`.
    AllocTres,
    /// `AllocCPUS`.
    AllocCpus,
    /// `NCPUS`.
    NCpus,
    /// `ReqCPUS`.
    ReqCpus,
    /// `Timelimit`.
    Timelimit,
    /// `ReqTRES`.
    ReqTres,
    /// `ReqMem`.
    ReqMem,
    /// `NNodes`.
    NNodes,
    /// `ReqNodes`.
    ReqNodes,
    /// `AllocNodes`.
    AllocNodes,
}

impl Col {
    /// Every column, in [`Col`] order.
    const ALL: [Col; 23] = [
        Col::JobIdRaw,
        Col::JobId,
        Col::User,
        Col::Account,
        Col::Group,
        Col::Partition,
        Col::Qos,
        Col::State,
        Col::Submit,
        Col::Start,
        Col::End,
        Col::Elapsed,
        Col::ElapsedRaw,
        Col::AllocTres,
        Col::AllocCpus,
        Col::NCpus,
        Col::ReqCpus,
        Col::Timelimit,
        Col::ReqTres,
        Col::ReqMem,
        Col::NNodes,
        Col::ReqNodes,
        Col::AllocNodes,
    ];

    /// The column's name in a header, lower-case.
    pub fn name(self) -> &'static str {
        match self {
            Col::JobIdRaw => "jobidraw",
            Col::JobId => "jobid",
            Col::User => "user",
            Col::Account => "account",
            Col::Group => "group",
            Col::Partition => "partition",
            Col::Qos => "qos",
            Col::State => "state",
            Col::Submit => "submit",
            Col::Start => "start",
            Col::End => "end",
            Col::Elapsed => "elapsed",
            Col::ElapsedRaw => "elapsedraw",
            Col::AllocTres => "alloctres",
            Col::AllocCpus => "alloccpus",
            Col::NCpus => "ncpus",
            Col::ReqCpus => "reqcpus",
            Col::Timelimit => "timelimit",
            Col::ReqTres => "reqtres",
            Col::ReqMem => "reqmem",
            Col::NNodes => "nnodes",
            Col::ReqNodes => "reqnodes",
            Col::AllocNodes => "allocnodes",
        }
    }
}

/// The header line: where each known column is, and how many columns it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SacctHeader {
    at: [Option<usize>; Col::ALL.len()],
    count: usize,
}

impl SacctHeader {
    /// Reads a header line (`JobID|User|...`).
    pub fn parse(line: &str) -> SacctHeader {
        let names: Vec<String> = line
            .split('|')
            .map(|c| c.trim().to_ascii_lowercase())
            .collect();
        let mut at = [None; Col::ALL.len()];
        for (slot, col) in at.iter_mut().zip(Col::ALL) {
            *slot = names.iter().position(|n| n == col.name());
        }
        SacctHeader {
            at,
            count: names.len(),
        }
    }

    /// Where `col` is (`None`: the header does not name it).
    pub fn index(&self, col: Col) -> Option<usize> {
        self.at.get(col as usize).copied().flatten()
    }

    /// Whether the header names `col`.
    pub fn has(&self, col: Col) -> bool {
        self.index(col).is_some()
    }

    /// The job id column: `JobIDRaw` when the header has it, else `JobID`.
    pub fn id_col(&self) -> Option<Col> {
        [Col::JobIdRaw, Col::JobId]
            .into_iter()
            .find(|c| self.has(*c))
    }

    /// How many columns the header names.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the header names no column (never: a header line has at least one).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// One line after the header, split on `|`.
#[derive(Debug, Clone)]
pub struct SacctRow<'a> {
    /// 1-based line in the input.
    pub line: u64,
    fields: Vec<&'a str>,
    header: &'a SacctHeader,
}

impl<'a> SacctRow<'a> {
    /// How many fields the row has.
    pub fn fields(&self) -> usize {
        self.fields.len()
    }

    /// The header the row is read with.
    pub fn header(&self) -> &'a SacctHeader {
        self.header
    }

    /// The cell of `col` as written (untrimmed): `Ok(None)` when the header has no such
    /// column; an error when the row is too short to hold it.
    pub fn cell(&self, col: Col) -> Result<Option<&'a str>, String> {
        match self.header.index(col) {
            None => Ok(None),
            Some(i) => self.fields.get(i).copied().map(Some).ok_or_else(|| {
                format!(
                    "row has {} fields, fewer than the header",
                    self.fields.len()
                )
            }),
        }
    }

    /// The cell of `col`, trimmed, `""` when the header has no such column or the row is too
    /// short.
    pub fn text(&self, col: Col) -> &'a str {
        self.cell(col).ok().flatten().unwrap_or("").trim()
    }

    /// The job id ([`SacctHeader::id_col`]), trimmed.
    pub fn id(&self) -> Result<&'a str, String> {
        match self.header.id_col() {
            Some(c) => Ok(self.cell(c)?.unwrap_or("").trim()),
            None => Ok(""),
        }
    }

    /// Whether the row is a job step (`123.batch`, `123.0`): its job's row carries the job.
    pub fn is_step(&self) -> bool {
        self.id().is_ok_and(|id| id.contains('.'))
    }
}

/// What the reader hands on, line by line.
#[derive(Debug)]
pub enum SacctLine<'a> {
    /// The header (the first line that is not blank).
    Header {
        /// 1-based line.
        line: u64,
        /// Its columns.
        header: &'a SacctHeader,
    },
    /// A row after the header.
    Row(SacctRow<'a>),
    /// A line that cannot be read (too long, not UTF-8), before or after the header.
    Bad {
        /// 1-based line.
        line: u64,
        /// Whether the header was read before it.
        after_header: bool,
        /// What is wrong.
        message: String,
    },
}

/// A read that stopped: the input failed, or the consumer said stop.
#[derive(Debug)]
pub enum SacctReadError<E> {
    /// Reading the input failed.
    Io(std::io::Error),
    /// The consumer's error.
    Stop(E),
}

/// Bytes and lines read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Bytes read.
    pub bytes: u64,
    /// Lines read (blank ones too).
    pub lines: u64,
}

/// Reads `sacct -P` output line by line (each at most
/// [`crate::files::lines::MAX_LINE_BYTES`]), handing each line to `on` in order. Blank lines
/// are skipped; `counts` tells how far the read went (also when it stopped).
pub fn read_sacct_rows<E>(
    r: &mut dyn BufRead,
    counts: &mut Counts,
    mut on: impl FnMut(SacctLine<'_>) -> Result<(), E>,
) -> Result<(), SacctReadError<E>> {
    let mut header: Option<SacctHeader> = None;
    let mut buf = Vec::with_capacity(4096);
    loop {
        let (n, too_long) =
            crate::files::lines::read_line(r, &mut buf, crate::files::lines::MAX_LINE_BYTES)
                .map_err(SacctReadError::Io)?;
        if n == 0 {
            return Ok(());
        }
        counts.bytes += n as u64;
        counts.lines += 1;
        let line = counts.lines;
        let decoded = if too_long {
            Err(crate::files::lines::too_long_message())
        } else {
            std::str::from_utf8(&buf).map_err(|_| "not valid UTF-8 text".to_string())
        };
        let text = match decoded {
            Ok(t) => t.trim_end_matches(['\n', '\r']),
            Err(message) => {
                on(SacctLine::Bad {
                    line,
                    after_header: header.is_some(),
                    message,
                })
                .map_err(SacctReadError::Stop)?;
                continue;
            }
        };
        if text.trim().is_empty() {
            continue;
        }
        match &header {
            None => {
                let h = header.insert(SacctHeader::parse(text));
                on(SacctLine::Header { line, header: h }).map_err(SacctReadError::Stop)?;
            }
            Some(h) => on(SacctLine::Row(SacctRow {
                line,
                fields: text.split('|').collect(),
                header: h,
            }))
            .map_err(SacctReadError::Stop)?,
        }
    }
}

/// A cell that should hold a date and holds something else (each reader words the complaint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotADate;

/// A date cell (`2024-04-13T10:00:00`, read as UTC): `Ok(None)` for `Unknown`, `None` or
/// empty, [`NotADate`] for anything else that is not a date.
pub fn date_cell(s: &str) -> Result<Option<i64>, NotADate> {
    date_cell_in(s, &TimeZone::UTC)
}

/// [`date_cell`] with the date read in `tz`: sacct prints `Start` and `End` in the local time
/// of the machine it runs on (the site's zone), without a zone; a time repeated when clocks go
/// back is its first occurrence, one skipped when they go forward is taken after the gap.
pub fn date_cell_in(s: &str, tz: &TimeZone) -> Result<Option<i64>, NotADate> {
    match s.trim() {
        "" | "Unknown" | "None" => Ok(None),
        t => local_date(t, tz).map(Some).ok_or(NotADate),
    }
}

/// A zone-less ISO date-time as wall-clock time in `tz`, in epoch seconds.
pub fn local_date(s: &str, tz: &TimeZone) -> Option<i64> {
    crate::jobs::dates::in_zone(crate::usage::decay::calendar::parse_iso(s)?, tz)
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_are_read_in_the_zone_given() {
        // Paris in summer is UTC+2, in winter UTC+1 (a POSIX rule: no zone database needed).
        let paris = TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap();
        assert_eq!(
            date_cell_in("2024-04-13T12:00:00", &paris),
            Ok(Some(1_713_002_400))
        );
        assert_eq!(
            date_cell_in("2024-01-13T12:00:00", &paris),
            Ok(Some(1_705_143_600))
        );
        assert_eq!(date_cell("2024-04-13T12:00:00"), Ok(Some(1_713_009_600)));
        // The hour repeated at the end of summer time: its first occurrence.
        assert_eq!(
            local_date("2024-10-27T02:30:00", &paris),
            Some(1_729_989_000)
        );
        assert_eq!(date_cell_in("Unknown", &paris), Ok(None));
        assert_eq!(date_cell_in("soon", &paris), Err(NotADate));
    }

    use super::*;

    #[test]
    fn header_rows_cells_and_bad_lines() {
        let text = b"\nJobIDRaw|jobid|User|Start|End\n7|5_2|ann|2024-04-13T10:00:00|Unknown\n\n8.batch|8.batch\n\xff|x\n";
        let mut seen = Vec::new();
        let mut counts = Counts::default();
        read_sacct_rows::<()>(&mut &text[..], &mut counts, |l| {
            seen.push(match l {
                SacctLine::Header { line, header } => {
                    assert_eq!(header.id_col(), Some(Col::JobIdRaw));
                    assert!(header.has(Col::Start) && !header.has(Col::Account));
                    assert_eq!(header.len(), 5);
                    format!("{line}: header")
                }
                SacctLine::Row(r) => {
                    let end = r.cell(Col::End).map(|c| c.map(date_cell));
                    format!(
                        "{}: {:?} step {} user `{}` account {:?} end {end:?}",
                        r.line,
                        r.id(),
                        r.is_step(),
                        r.text(Col::User),
                        r.cell(Col::Account),
                    )
                }
                SacctLine::Bad {
                    line,
                    after_header,
                    message,
                } => format!("{line}: bad {after_header} {message}"),
            });
            Ok(())
        })
        .unwrap();
        assert_eq!(
            seen,
            [
                "2: header",
                "3: Ok(\"7\") step false user `ann` account Ok(None) end Ok(Some(Ok(None)))",
                "5: Ok(\"8.batch\") step true user `` account Ok(None) end Err(\"row has 2 fields, fewer than the header\")",
                "6: bad true not valid UTF-8 text",
            ]
        );
        assert_eq!(counts.lines, 6);
        assert_eq!(counts.bytes, text.len() as u64);
        assert_eq!(date_cell(" 2024-04-13T10:00:00 "), Ok(Some(1_713_002_400)));
        assert_eq!(date_cell("soon"), Err(NotADate));
    }
}
