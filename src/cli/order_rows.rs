//! `fairsort order`'s rows as table lines or CSV records, for a million jobs: the column widths
//! from one pass over the jobs and the values (in two halves on two threads), then the rows
//! formatted in chunks — two at a time, one per thread — and written in rank order. The bytes
//! are those of formatting row after row on one thread (issue #16).

use super::table::{text_width, StreamTable};
use fairsort::parallel::{join, PARALLEL_MIN_JOBS};
use fairsort::queue::explain::fmt_into;
use fairsort::queue::fixed::push_integer;
use fairsort::queue::report::{
    prefetch, push_status, status as status_for, status_cell, JobRow, Rows,
};
use fairsort::queue::{Job, JobSet, JobState, Ranked};
use std::io::{self, Write};
use std::ops::Range;

/// Rows per chunk: ~1 MB of table text, formatted by one thread before it is written.
const CHUNK: usize = 1 << 14;

/// The widest cell of each of the six columns (rank, job id, owner, queue, value, status), the
/// headers not included.
pub fn widths(jobs: &JobSet, rows: &Rows) -> [usize; 6] {
    let mut w = [0; 6];
    w[0] = decimal_digits(rows.len());
    let names = |a: [usize; 3], b: [usize; 3]| [a[0].max(b[0]), a[1].max(b[1]), a[2].max(b[2])];
    // Names: in memory order when the rows are every job (the same jobs, read faster).
    let name_widths = if rows.is_every_job() {
        let (front, back) = jobs.jobs.split_at(jobs.jobs.len() / 2);
        let part = |part: &[Job]| {
            part.iter().fold([0; 3], |m, job| {
                let w = [
                    text_width(&job.id),
                    text_width(jobs.user(job)),
                    text_width(jobs.queue(job)),
                ];
                names(m, w)
            })
        };
        let (a, b) = two(jobs.jobs.len(), || part(front), || part(back));
        names(a, b)
    } else {
        rows.iter().fold([0; 3], |m, r| {
            names(
                m,
                [text_width(r.id), text_width(r.owner), text_width(r.queue)],
            )
        })
    };
    w[1..4].copy_from_slice(&name_widths);
    // Values and statuses, from the ranked entries alone (a value is formatted to measure it).
    let ranked = rows.ranked();
    let part = |part: &[Ranked]| {
        let mut text = String::new();
        part.iter().fold((0, 0), |(v, s), r| {
            text.clear();
            fmt_into(r.value, &mut text);
            (v.max(text.len()), s.max(rows.status_width(r)))
        })
    };
    let (front, back) = ranked.split_at(ranked.len() / 2);
    let ((v1, s1), (v2, s2)) = two(ranked.len(), || part(front), || part(back));
    w[4] = v1.max(v2);
    w[5] = s1.max(s2);
    w
}

/// Writes the table lines of every row (the header is the caller's).
pub fn write_table(
    out: &mut impl Write,
    table: &StreamTable,
    jobs: &JobSet,
    rows: &Rows,
) -> io::Result<()> {
    if rows.is_every_job() {
        if let Some(names) = NameCells::new(jobs, [table.width(1), table.width(2), table.width(3)])
        {
            return write_table_with(out, table, rows, &names);
        }
    }
    write_chunks(out, rows.len(), &|range| {
        let mut text = String::with_capacity(range.len() * 64);
        let (mut rank, mut value, mut status) = (String::new(), String::new(), String::new());
        for r in rows.iter_range(range) {
            cells(&r, &mut rank, &mut value, &mut status);
            table.push_row(&mut text, &[&rank, r.id, r.owner, r.queue, &value, &status]);
        }
        Ok(text.into_bytes())
    })
}

/// The job id, owner and queue cells of every job as the table prints them (each padded to its
/// column, two spaces between), job after job at one stride, in the jobs' memory order: built
/// in one sequential pass (two halves on two threads), so the rows, written in rank order,
/// read one place per job instead of its record, its id and its user's name (issue #16).
struct NameCells {
    text: String,
    stride: usize,
    /// Each job's state, in the same order (a row's status needs it; the job's record is a
    /// cache miss in rank order).
    states: Vec<JobState>,
}

impl NameCells {
    /// The cells for columns of these widths; `None` when a name is not ASCII (its width in
    /// characters is not its length, so the stride would not be fixed).
    fn new(jobs: &JobSet, widths: [usize; 3]) -> Option<NameCells> {
        let [w1, w2, w3] = widths;
        let stride = w1 + 2 + w2 + 2 + w3;
        let mut text = vec![b' '; jobs.len().checked_mul(stride)?];
        let half = jobs.len() / 2;
        let (front, back) = text.split_at_mut(half * stride);
        let (first, second) = jobs.jobs.split_at(half);
        let mut states = vec![JobState::Queued; jobs.len()];
        let (states_front, states_back) = states.split_at_mut(half);
        let fill = |out: &mut [u8], part: &[Job], states: &mut [JobState]| {
            let mut ascii = true;
            for ((slot, job), state) in out.chunks_exact_mut(stride).zip(part).zip(states) {
                *state = job.state;
                let (id, user, queue) = (job.id.as_str(), jobs.user(job), jobs.queue(job));
                ascii &= id.is_ascii() && user.is_ascii() && queue.is_ascii();
                put(slot, 0, id);
                put(slot, w1 + 2, user);
                put(slot, w1 + 2 + w2 + 2, queue);
            }
            ascii
        };
        let (a, b) = two(
            jobs.len(),
            || fill(front, first, states_front),
            || fill(back, second, states_back),
        );
        if !(a && b) {
            return None;
        }
        let text = String::from_utf8(text).ok()?;
        Some(NameCells {
            text,
            stride,
            states,
        })
    }

    /// Job `job`'s cells (`None` for a job not in the set).
    fn get(&self, job: usize) -> Option<&[u8]> {
        let start = job.checked_mul(self.stride)?;
        self.text.as_bytes().get(start..start + self.stride)
    }

    /// Prefetches job `job`'s cells.
    fn prefetch(&self, job: usize) {
        prefetch(self.text.as_bytes().get(job * self.stride));
    }
}

/// Copies `text` into `slot` at `at` (cut to the slot).
fn put(slot: &mut [u8], at: usize, text: &str) {
    if let Some(dst) = slot.get_mut(at..) {
        let n = dst.len().min(text.len());
        if let (Some(d), Some(s)) = (dst.get_mut(..n), text.as_bytes().get(..n)) {
            d.copy_from_slice(s);
        }
    }
}

/// [`write_table`] with the name cells prepared: rank, names, value and status columns, each
/// row written as bytes straight into its chunk (the bytes of `StreamTable::push_row`: cells
/// padded to the widths, two spaces between, trailing whitespace trimmed).
fn write_table_with(
    out: &mut impl Write,
    table: &StreamTable,
    rows: &Rows,
    names: &NameCells,
) -> io::Result<()> {
    let (rank_width, value_width) = (table.width(0), table.width(4));
    let line = rank_width + 2 + names.stride + 2 + value_width + 2 + table.width(5) + 1;
    let ranked = rows.ranked();
    write_chunks(out, ranked.len(), &|range| {
        let mut text: Vec<u8> = Vec::with_capacity(range.len() * line);
        let (mut rank, mut value, mut status) = (String::new(), String::new(), String::new());
        let start = range.start;
        let part = ranked.get(range).unwrap_or(&[]);
        for (i, r) in part.iter().enumerate() {
            if let Some(ahead) = part.get(i + 16) {
                names.prefetch(ahead.job as usize);
            }
            let Some(cells) = names.get(r.job as usize) else {
                continue;
            };
            // The state only matters for a job that is neither eligible nor below the
            // threshold (`status` looks at it last).
            let state = match (
                r.eligible || r.below_threshold,
                names.states.get(r.job as usize),
            ) {
                (true, _) => JobState::Queued,
                (false, Some(&state)) => state,
                (false, None) => continue,
            };
            let begin = text.len();
            rank.clear();
            push_integer(&mut rank, (start + i + 1) as u64);
            push_spaces(&mut text, rank_width.saturating_sub(rank.len()));
            text.extend_from_slice(rank.as_bytes());
            text.extend_from_slice(b"  ");
            text.extend_from_slice(cells);
            text.extend_from_slice(b"  ");
            value.clear();
            fmt_into(r.value, &mut value);
            push_spaces(&mut text, value_width.saturating_sub(text_width(&value)));
            text.extend_from_slice(value.as_bytes());
            text.extend_from_slice(b"  ");
            status.clear();
            push_status(status_for(r, state), rows.error_of(r), &mut status);
            text.extend_from_slice(status.as_bytes());
            trim_line_end(&mut text, begin);
            text.push(b'\n');
        }
        Ok(text)
    })
}

/// Appends `n` spaces.
fn push_spaces(text: &mut Vec<u8>, n: usize) {
    text.resize(text.len() + n, b' ');
}

/// Trims trailing whitespace (as `str::trim_end`) from the line that starts at `begin`.
fn trim_line_end(text: &mut Vec<u8>, begin: usize) {
    match text.last() {
        // The usual end: a status, ASCII and not whitespace.
        Some(&b) if b.is_ascii() && !b.is_ascii_whitespace() && b != 0x0b => {}
        _ => {
            let kept = std::str::from_utf8(text.get(begin..).unwrap_or(&[]))
                .map_or(0, |line| line.trim_end().len());
            text.truncate(begin + kept);
        }
    }
}

/// Writes the CSV records of every row (the header record is the caller's), as one
/// `csv::Writer` writes them.
pub fn write_csv(out: &mut impl Write, rows: &Rows) -> io::Result<()> {
    write_chunks(out, rows.len(), &|range| {
        let mut w = csv::Writer::from_writer(Vec::with_capacity(range.len() * 48));
        let (mut rank, mut value, mut status) = (String::new(), String::new(), String::new());
        for r in rows.iter_range(range) {
            cells(&r, &mut rank, &mut value, &mut status);
            // The CSV's status is the status alone: the error has its own column.
            status.clear();
            match r.status.as_static() {
                Some(text) => status.push_str(text),
                None => {
                    use std::fmt::Write as _;
                    let _ = write!(status, "{}", r.status);
                }
            }
            w.write_record([
                rank.as_str(),
                r.id,
                r.owner,
                r.queue,
                value.as_str(),
                status.as_str(),
                r.error.unwrap_or_default(),
            ])
            .map_err(io::Error::other)?;
        }
        w.into_inner().map_err(|e| e.into_error())
    })
}

/// A row's rank, value and status cells, into the given buffers.
fn cells(r: &JobRow, rank: &mut String, value: &mut String, status: &mut String) {
    rank.clear();
    push_integer(rank, r.rank as u64);
    value.clear();
    fmt_into(r.value, value);
    status.clear();
    status_cell(r, status);
}

/// Formats rows `0..len` in chunks with `fill` (two chunks at a time on two threads for a
/// large output) and writes them in order.
fn write_chunks(
    out: &mut impl Write,
    len: usize,
    fill: &(dyn Fn(Range<usize>) -> io::Result<Vec<u8>> + Sync),
) -> io::Result<()> {
    let mut start = 0;
    while start < len {
        let mid = (start + CHUNK).min(len);
        let end = (mid + CHUNK).min(len);
        let (a, b) = two(len, || fill(start..mid), || fill(mid..end));
        out.write_all(&a?)?;
        out.write_all(&b?)?;
        start = end;
    }
    Ok(())
}

/// `a` and `b`, on two threads when the pass covers `n` jobs or more than the parallel
/// threshold (a small order never starts the pool).
fn two<A: Send, B: Send>(
    n: usize,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if n >= PARALLEL_MIN_JOBS {
        join(a, b)
    } else {
        (a(), b())
    }
}

fn decimal_digits(n: usize) -> usize {
    fairsort::digits::count(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::table::Align;
    use fairsort::queue::order::Evaluations;
    use fairsort::queue::report::rows;
    use fairsort::queue::{order, read_job_list_json, OrderOptions};

    /// More rows than one thread formats (several chunk pairs and a partial one), with ties,
    /// errors, every status and names of different widths (one not ASCII).
    fn queue(n: usize, ascii: bool) -> (JobSet, fairsort::queue::QueueOrder) {
        let list: Vec<String> = (0..n)
            .map(|i| {
                let state = ["Q", "Q", "R", "H", "E"][i % 5];
                let user = if !ascii && i % 1000 == 3 { "zoë" } else { "u" };
                format!(
                    r#"{{"id":"{i}.s","user":"{user}{}","queue":"q{}","qtime":{i},"state":"{state}"}}"#,
                    i % 97,
                    i % 3
                )
            })
            .collect();
        let jobs = read_job_list_json(format!("[{}]", list.join(",")).as_bytes()).unwrap();
        let values: Vec<f64> = (0..n)
            .map(|i| ((i * 7919) % 1013) as f64 / 7.0 - 20.0)
            .collect();
        let errors = (0..n as u32)
            .filter(|i| i % 4999 == 0)
            .map(|i| (i, "division by zero".to_string()))
            .collect();
        let opts = OrderOptions {
            threshold: Some(3.0),
            ..Default::default()
        };
        let o = order(&jobs, Evaluations { values, errors }, &opts);
        (jobs, o)
    }

    #[test]
    fn a_line_is_trimmed_as_str_trim_end_trims() {
        for line in [
            "  1  a  eligible",
            "  1  a  state Q (error, 0 used: x) ",
            "  1  a  \u{b}",
            "  1  a  zoë\u{a0}",
            "  1  a  \t\r\u{c}",
            "",
            "   ",
        ] {
            let mut text = b"kept\n".to_vec();
            text.extend_from_slice(line.as_bytes());
            trim_line_end(&mut text, 5);
            assert_eq!(&text[5..], line.trim_end().as_bytes(), "{line:?}");
            assert_eq!(&text[..5], b"kept\n");
        }
    }

    #[test]
    fn chunked_rows_are_the_rows_written_one_by_one() {
        let n = PARALLEL_MIN_JOBS + 2 * CHUNK + 123;
        // ASCII names take the prepared name cells, others the rows; --top the rows.
        let cases = [(true, None), (false, None), (true, Some(CHUNK + 5))];
        for (ascii, top) in cases {
            let (jobs, o) = queue(n, ascii);
            assert_eq!(NameCells::new(&jobs, [9, 9, 9]).is_some(), ascii);
            let rows = rows(&jobs, &o, top);
            // The table: widths from every cell, then each row on its own.
            let columns = [
                ("rank", Align::Right),
                ("job id", Align::Left),
                ("owner", Align::Left),
                ("queue", Align::Left),
                ("value", Align::Right),
                ("status", Align::Left),
            ];
            let mut one = StreamTable::new(&columns);
            let all: Vec<[String; 6]> = rows
                .iter()
                .map(|r| {
                    let mut status = String::new();
                    status_cell(&r, &mut status);
                    [
                        r.rank.to_string(),
                        r.id.to_string(),
                        r.owner.to_string(),
                        r.queue.to_string(),
                        fairsort::queue::explain::fmt(r.value),
                        status,
                    ]
                })
                .collect();
            for cells in &all {
                for (i, c) in cells.iter().enumerate() {
                    one.widen(i, text_width(c));
                }
            }
            let mut want = Vec::new();
            for cells in &all {
                let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
                one.write_row(&mut want, &cells).unwrap();
            }
            let mut t = StreamTable::new(&columns);
            for (i, w) in widths(&jobs, &rows).into_iter().enumerate() {
                t.widen(i, w);
            }
            let mut got = Vec::new();
            write_table(&mut got, &t, &jobs, &rows).unwrap();
            assert_eq!(got.len(), want.len(), "ascii {ascii}, top {top:?}");
            assert!(
                got == want,
                "ascii {ascii}, top {top:?}: the chunked table differs"
            );
            // The CSV: one writer, record after record.
            let mut w = csv::Writer::from_writer(Vec::new());
            for (r, cells) in rows.iter().zip(&all) {
                let status = r.status.to_string();
                let record = [
                    &cells[0],
                    &cells[1],
                    &cells[2],
                    &cells[3],
                    &cells[4],
                    &status,
                    r.error.unwrap_or_default(),
                ];
                w.write_record(record).unwrap();
            }
            let want = w.into_inner().unwrap();
            let mut got = Vec::new();
            write_csv(&mut got, &rows).unwrap();
            assert!(
                got == want,
                "ascii {ascii}, top {top:?}: the chunked CSV differs"
            );
        }
    }
}
