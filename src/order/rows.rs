//! The order's rows as table lines or CSV records (`fairsort order`'s table and `--csv`), for
//! a million jobs: the column widths from one pass over the jobs and the ranked values (in
//! parts on every worker, no job's record read for a status unless it can widen the column),
//! then the rows rendered in chunks by every worker into reused buffers and written in rank
//! order, the write of one chunk overlapping the rendering of the others
//! ([`parallel::write_ordered`]). The bytes are those of formatting row after row on one
//! thread. The library prints nothing: the rows go into the writer the caller gives.

use crate::jobs::{Job, JobSet, JobState, Names, Sym};
use crate::mem::{prefetch, prefetch_all};
use crate::order::explain::{fmt_bytes, fmt_into, fmt_width, fmt_width_bound, FMT_BYTES};
use crate::order::report::{push_status, status_held, Rows, Status};
use crate::order::Ranked;
use crate::parallel::{self, write_ordered, PARALLEL_MIN_JOBS};
use std::io::{self, Write};
use std::ops::Range;

/// A cell's width in characters, as a table pads it (ASCII text, the common case, without
/// decoding).
#[inline]
pub fn text_width(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// Rows per chunk: ~0.5 MB of table text, which stays in the CPU's L2 cache between its
/// rendering and its write.
const CHUNK: usize = 1 << 13;

/// How far ahead of the row being written its job's record is prefetched (its id and user
/// name half as far, once the record is in).
const AHEAD: usize = 64;

/// The widest cell of each of the six columns (rank, job id, owner, queue, value, status), the
/// headers not included.
pub fn widths(jobs: &JobSet, rows: &Rows) -> [usize; 6] {
    let mut w = [0; 6];
    w[0] = decimal_digits(rows.len());
    let names = |a: [usize; 3], b: [usize; 3]| [a[0].max(b[0]), a[1].max(b[1]), a[2].max(b[2])];
    let ranked = rows.ranked();
    if rows.is_every_job() {
        // Names in the jobs' memory order (the same jobs as the rows', read in sequence), a
        // user's or queue's width looked up by its symbol; each part also takes its share of
        // the ranked values.
        let sym_widths: Vec<u32> = jobs
            .names
            .iter()
            .map(|name| text_width(name) as u32)
            .collect();
        let sym = |s| sym_widths.get(s as usize).map_or(0, |&w| w as usize);
        let parts = parallel::part_count(jobs.jobs.len(), PARALLEL_MIN_JOBS);
        // Part `i` of `len` items.
        let nth = |len: usize, i: usize| i * len / parts..(i + 1) * len / parts;
        let found = parallel::run_parts((0..parts).collect(), |i| {
            let part = jobs.jobs.get(nth(jobs.jobs.len(), i)).unwrap_or_default();
            let ranked = ranked.get(nth(ranked.len(), i)).unwrap_or_default();
            let names = part.iter().fold([0; 3], |m, job| {
                names(m, [text_width(&job.id), sym(job.euser), sym(job.queue)])
            });
            (names, value_status_widths(rows, ranked))
        });
        for (n, (value, status)) in found {
            let wide = names([w[1], w[2], w[3]], n);
            w[1..4].copy_from_slice(&wide);
            w[4] = w[4].max(value);
            w[5] = w[5].max(status);
        }
    } else {
        let name_widths = rows.iter().fold([0; 3], |m, r| {
            names(
                m,
                [text_width(r.id), text_width(r.owner), text_width(r.queue)],
            )
        });
        w[1..4].copy_from_slice(&name_widths);
        let (v, s) = value_status_widths(rows, ranked);
        w[4] = v;
        w[5] = s;
    }
    w
}

/// The widest value and status cells of `part`. A status is known from the ranked entry
/// unless the job is neither eligible nor below the threshold; then its job's state decides
/// between `held` (4) and the 7 characters of `running` or `state X`, so the job's record is
/// read only until one such job is not held (or when an error's message follows the status).
fn value_status_widths(rows: &Rows, part: &[Ranked]) -> (usize, usize) {
    const OTHER: usize = 7;
    let (mut value, mut status) = (0, 0);
    let mut other = 0;
    for r in part {
        // Only a value that may be wider than the widest so far is formatted to measure it.
        if fmt_width_bound(r.value) > value {
            value = value.max(fmt_width(r.value));
        }
        let w = if rows.error_of(r).is_some() {
            rows.status_width(r)
        } else if r.below_threshold {
            Status::BelowThreshold.width()
        } else if r.eligible {
            Status::Eligible.width()
        } else if other >= OTHER {
            OTHER
        } else {
            let w = rows.status_width(r);
            other = other.max(w);
            w
        };
        status = status.max(w);
    }
    (value, status)
}

/// Ranks per window: the name cells of this many rows are prepared at a time (about 30 MB of
/// cells and sort keys, reused from window to window, whatever the number of jobs).
const WINDOW: usize = 1 << 20;

/// Writes the table lines of every row (the header is the caller's): rank, job id, owner,
/// queue, value and status columns `widths` characters wide (the numbers right-aligned, the
/// rest left), each row written as bytes straight into its chunk: cells padded to the widths,
/// two spaces between, trailing whitespace trimmed.
pub fn write_table<W: Write + Send>(
    out: &mut W,
    widths: &[usize; 6],
    jobs: &JobSet,
    rows: &Rows,
) -> io::Result<()> {
    write_table_in(out, widths, jobs, rows, WINDOW)
}

/// [`write_table`] with windows of `window` ranks. A large table is written window by window:
/// the window's name cells are prepared first — the jobs visited in their memory order, not
/// in rank order (a visit in rank order waits on two or three cache and TLB misses a row: the
/// job's record, its id and its user's name) — then its rows are rendered in chunks from the
/// cells, in rank order, and written.
fn write_table_in<W: Write + Send>(
    out: &mut W,
    widths: &[usize; 6],
    jobs: &JobSet,
    rows: &Rows,
    window: usize,
) -> io::Result<()> {
    let w = *widths;
    let ranked = rows.ranked();
    let parallel = ranked.len() >= PARALLEL_MIN_JOBS;
    if !parallel {
        return write_ordered(out, ranked.len(), CHUNK, false, |range, text| {
            render_direct(
                text,
                &w,
                jobs,
                rows,
                range.start,
                ranked.get(range).unwrap_or(&[]),
            );
            Ok(())
        });
    }
    let mut cells = WindowCells::default();
    let (users, queues) = parallel::join(
        || SymCells::new(&jobs.names, w[2]),
        || SymCells::new(&jobs.names, w[3]),
    );
    for (k, part) in ranked.chunks(window.max(1)).enumerate() {
        let first = k * window.max(1);
        if cells.fill(jobs, part, w[1], [&users, &queues]) {
            write_ordered(out, part.len(), CHUNK, true, |range, text| {
                cells.render(text, &w, rows, first, part, range);
                Ok(())
            })?;
        } else {
            // A name that is not ASCII: its width in characters is not its length.
            write_ordered(out, part.len(), CHUNK, true, |range, text| {
                let start = first + range.start;
                render_direct(text, &w, jobs, rows, start, part.get(range).unwrap_or(&[]));
                Ok(())
            })?;
        }
    }
    Ok(())
}

/// The job id, owner and queue cells of a window's rows as the table prints them (each padded
/// to its column, two spaces between), row after row at one stride, and each row's job state.
#[derive(Default)]
struct WindowCells {
    text: Vec<u8>,
    stride: usize,
    states: Vec<JobState>,
    /// (job index << 32 | row in the window), grouped by the job's place in memory
    /// ([`group_by_job`]).
    keys: Vec<u64>,
}

impl WindowCells {
    /// Prepares the cells of `part`'s rows for columns of these widths, in parts on every
    /// worker, each visiting its jobs in memory order; false when a name is not ASCII.
    fn fill(&mut self, jobs: &JobSet, part: &[Ranked], w1: usize, syms: [&SymCells; 2]) -> bool {
        let [users, queues] = syms;
        let (w2, w3) = (users.width, queues.width);
        let stride = w1 + 2 + w2 + 2 + w3;
        let Some(bytes) = part.len().checked_mul(stride) else {
            return false;
        };
        self.stride = stride;
        self.text.resize(bytes, b' ');
        self.states.resize(part.len(), JobState::Queued);
        self.keys.resize(part.len(), 0);
        let ranges = parallel::ranges(part.len(), PARALLEL_MIN_JOBS, 1);
        let text_ranges: Vec<Range<usize>> = (ranges.iter())
            .map(|r| r.start * stride..r.end * stride)
            .collect();
        let texts = parallel::split_mut(&mut self.text, &text_ranges);
        let states = parallel::split_mut(&mut self.states, &ranges);
        let keys = parallel::split_mut(&mut self.keys, &ranges);
        let parts = (ranges.iter().zip(texts).zip(states).zip(keys))
            .map(|(((r, text), states), keys)| (r.clone(), text, states, keys))
            .collect();
        let n = jobs.jobs.len();
        let fill = |part: &[Ranked],
                    keys: &mut [u64],
                    text: &mut [u8],
                    states: &mut [JobState],
                    base: usize| {
            group_by_job(part, base, keys, n);
            let keys = &*keys;
            let mut ascii = true;
            for (i, &key) in keys.iter().enumerate() {
                if let Some(&ahead) = keys.get(i + AHEAD) {
                    prefetch_name_fields(jobs.jobs.get((ahead >> 32) as usize));
                }
                if let Some(&a) = keys.get(i + AHEAD / 2) {
                    // The id (the user names are few and stay in the cache) and the slot,
                    // written at random.
                    if let Some(job) = jobs.jobs.get((a >> 32) as usize) {
                        prefetch(job.id.as_bytes().first());
                        users.prefetch(job.euser);
                    }
                    let row = (a as u32 as usize).wrapping_sub(base);
                    prefetch(text.get(row.wrapping_mul(stride)));
                    prefetch(text.get(row.wrapping_mul(stride) + stride - 1));
                }
                let Some(job) = jobs.jobs.get((key >> 32) as usize) else {
                    continue;
                };
                let row = (key as u32 as usize).wrapping_sub(base);
                if let Some(state) = states.get_mut(row) {
                    *state = job.state;
                }
                let Some(slot) = text.get_mut(row * stride..(row + 1) * stride) else {
                    continue;
                };
                let (id, user, queue) =
                    (job.id.as_str(), users.get(job.euser), queues.get(job.queue));
                ascii &= id.is_ascii() && user.is_some() && queue.is_some();
                slot.fill(b' ');
                put(slot, 0, id.as_bytes());
                put(slot, w1 + 2, user.unwrap_or_default());
                put(slot, w1 + 2 + w2 + 2, queue.unwrap_or_default());
            }
            ascii
        };
        let ascii = parallel::run_parts(parts, |(r, text, states, keys)| {
            let rows = part.get(r.clone()).unwrap_or_default();
            fill(rows, keys, text, states, r.start)
        });
        ascii.into_iter().all(|a| a)
    }

    /// Appends the table lines of rows `range` of the window `part`, whose first row has
    /// rank `first + 1`.
    fn render(
        &self,
        text: &mut Vec<u8>,
        w: &[usize; 6],
        rows: &Rows,
        first: usize,
        part: &[Ranked],
        range: Range<usize>,
    ) {
        let (mut digits, mut number) = ([0u8; 20], [0u8; FMT_BYTES]);
        let (mut value, mut status) = (String::new(), String::new());
        let start = range.start;
        let Some(part) = part.get(range) else {
            return;
        };
        for (i, r) in part.iter().enumerate() {
            let row = start + i;
            let (Some(cells), Some(&state)) = (
                self.text.get(row * self.stride..(row + 1) * self.stride),
                self.states.get(row),
            ) else {
                continue;
            };
            let begin = text.len();
            let rank = crate::digits::decimal((first + row + 1) as u64, &mut digits);
            push_right(text, rank, rank.len(), w[0]);
            text.extend_from_slice(b"  ");
            text.extend_from_slice(cells);
            text.extend_from_slice(b"  ");
            push_value_status(
                text,
                w,
                rows,
                r,
                state,
                &mut number,
                &mut value,
                &mut status,
            );
            trim_line_end(text, begin);
            text.push(b'\n');
        }
    }
}

/// Bits of a job's index that choose its group in [`group_by_job`].
const GROUP_BITS: u32 = 12;

/// The keys (job index << 32 | row in the window) of the rows `part`, the first of which is
/// row `base`, written into `out` (as long) grouped by the top [`GROUP_BITS`] bits of the job
/// index among `jobs` jobs, the groups in memory order: two passes over the rows (count, then
/// place), no sort and no second buffer. The visits then sweep the job records once, each
/// group's records lying within 1/4096 of them (a few hundred KB at ten million jobs, in the
/// cache's and the TLB's reach); the order inside a group does not matter to the cells.
fn group_by_job(part: &[Ranked], base: usize, out: &mut [u64], jobs: usize) {
    let bits = usize::BITS - jobs.leading_zeros();
    let shift = bits.saturating_sub(GROUP_BITS);
    let group = |job: u32| ((job >> shift) as usize).min((1 << GROUP_BITS) - 1);
    let mut next = vec![0u32; 1 << GROUP_BITS];
    for r in part {
        if let Some(c) = next.get_mut(group(r.job)) {
            *c += 1;
        }
    }
    let mut at = 0;
    for c in &mut next {
        let count = *c;
        *c = at;
        at += count;
    }
    for (row, r) in part.iter().enumerate() {
        if let Some(c) = next.get_mut(group(r.job)) {
            if let Some(slot) = out.get_mut(*c as usize) {
                *slot = u64::from(r.job) << 32 | (base + row) as u64;
            }
            *c += 1;
        }
    }
}

/// Prefetches the cache lines of `job` that hold its id, owner, queue and state: one or two
/// of the 96-byte record's two lines (the fields lie together), not always both.
#[inline(always)]
fn prefetch_name_fields(job: Option<&Job>) {
    if let Some(job) = job {
        prefetch(Some(&job.id));
        prefetch(Some(&job.euser));
        prefetch(Some(&job.queue));
        prefetch(Some(&job.state));
    }
}

/// Every name of a pool padded to one column's width, at one stride: a job's user or queue
/// cell is one read from a small table, not a look-up of the name's span and then its text.
struct SymCells {
    text: Vec<u8>,
    width: usize,
    /// Whether each name is ASCII (its length is its width).
    ascii: Vec<bool>,
}

impl SymCells {
    /// The cells of `names` for a column `width` characters wide (longer names, which are not
    /// this column's, are cut).
    fn new(names: &Names, width: usize) -> SymCells {
        let mut text = vec![b' '; names.len() * width];
        let mut ascii = Vec::with_capacity(names.len());
        for (name, slot) in names.iter().zip(text.chunks_exact_mut(width.max(1))) {
            ascii.push(name.is_ascii());
            put(slot, 0, name.as_bytes());
        }
        SymCells { text, width, ascii }
    }

    /// Symbol `sym`'s cell; `None` for a name that is not ASCII or a symbol not in the pool.
    #[inline]
    fn get(&self, sym: Sym) -> Option<&[u8]> {
        let s = sym as usize;
        match self.ascii.get(s) {
            Some(true) => self.text.get(s * self.width..(s + 1) * self.width),
            _ => None,
        }
    }

    /// Prefetches symbol `sym`'s cell.
    #[inline]
    fn prefetch(&self, sym: Sym) {
        prefetch(self.text.get(sym as usize * self.width));
    }
}

/// Copies `text` into `slot` at `at` (cut to the slot).
fn put(slot: &mut [u8], at: usize, text: &[u8]) {
    if let Some(dst) = slot.get_mut(at..) {
        let n = dst.len().min(text.len());
        if let (Some(d), Some(s)) = (dst.get_mut(..n), text.get(..n)) {
            d.copy_from_slice(s);
        }
    }
}

/// Appends a row's value cell (right-aligned), two spaces and its status cell.
#[allow(clippy::too_many_arguments)]
#[inline]
fn push_value_status(
    text: &mut Vec<u8>,
    w: &[usize; 6],
    rows: &Rows,
    r: &Ranked,
    state: JobState,
    number: &mut [u8; FMT_BYTES],
    value: &mut String,
    status: &mut String,
) {
    let v = match fmt_bytes(r.value, number) {
        Some(v) => v,
        None => {
            value.clear();
            fmt_into(r.value, value);
            value.as_bytes()
        }
    };
    push_right(text, v, v.len(), w[4]);
    text.extend_from_slice(b"  ");
    let st = status_held(r, state, rows.held_of(r));
    match (rows.error_of(r), st.as_static()) {
        (None, Some(fixed)) => text.extend_from_slice(fixed.as_bytes()),
        (error, _) => {
            status.clear();
            push_status(st, error, status);
            text.extend_from_slice(status.as_bytes());
        }
    }
}

/// Appends the table lines of the ranked entries `part`, the first of rank `start + 1`, each
/// read from its job (a small table, or names that are not ASCII).
fn render_direct(
    text: &mut Vec<u8>,
    w: &[usize; 6],
    jobs: &JobSet,
    rows: &Rows,
    start: usize,
    part: &[Ranked],
) {
    let (mut value, mut status) = (String::new(), String::new());
    let (mut digits, mut number) = ([0u8; 20], [0u8; FMT_BYTES]);
    for (i, r) in part.iter().enumerate() {
        if let Some(ahead) = part.get(i + AHEAD) {
            prefetch_all(jobs.jobs.get(ahead.job as usize));
        }
        if let Some(job) = part
            .get(i + AHEAD / 2)
            .and_then(|a| jobs.jobs.get(a.job as usize))
        {
            prefetch(job.id.as_bytes().first());
            prefetch(jobs.user(job).as_bytes().first());
        }
        let Some(job) = jobs.jobs.get(r.job as usize) else {
            continue;
        };
        let begin = text.len();
        let rank = crate::digits::decimal((start + i + 1) as u64, &mut digits);
        push_right(text, rank, rank.len(), w[0]);
        text.extend_from_slice(b"  ");
        push_left(text, job.id.as_bytes(), text_width(&job.id), w[1]);
        text.extend_from_slice(b"  ");
        let user = jobs.user(job);
        push_left(text, user.as_bytes(), text_width(user), w[2]);
        text.extend_from_slice(b"  ");
        let queue = jobs.queue(job);
        push_left(text, queue.as_bytes(), text_width(queue), w[3]);
        text.extend_from_slice(b"  ");
        push_value_status(
            text,
            w,
            rows,
            r,
            job.state,
            &mut number,
            &mut value,
            &mut status,
        );
        trim_line_end(text, begin);
        text.push(b'\n');
    }
}

/// Appends `cell` (`width` characters wide) padded on the right to `column` characters.
#[inline]
fn push_left(text: &mut Vec<u8>, cell: &[u8], width: usize, column: usize) {
    text.extend_from_slice(cell);
    push_spaces(text, column.saturating_sub(width));
}

/// Appends `cell` (`width` characters wide) padded on the left to `column` characters.
#[inline]
fn push_right(text: &mut Vec<u8>, cell: &[u8], width: usize, column: usize) {
    push_spaces(text, column.saturating_sub(width));
    text.extend_from_slice(cell);
}

/// Appends `n` spaces.
#[inline]
fn push_spaces(text: &mut Vec<u8>, n: usize) {
    const SPACES: [u8; 32] = [b' '; 32];
    match SPACES.get(..n) {
        Some(spaces) => text.extend_from_slice(spaces),
        None => text.resize(text.len() + n, b' '),
    }
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
pub fn write_csv<W: Write + Send>(out: &mut W, rows: &Rows) -> io::Result<()> {
    write_ordered(
        out,
        rows.len(),
        CHUNK,
        rows.len() >= PARALLEL_MIN_JOBS,
        |range, buf| {
            let mut w = csv::Writer::from_writer(buf);
            let mut rank = [0u8; 20];
            let mut number = [0u8; FMT_BYTES];
            let (mut value, mut status) = (String::new(), String::new());
            for r in rows.iter_range(range) {
                let v = match fmt_bytes(r.value, &mut number) {
                    Some(v) => v,
                    None => {
                        value.clear();
                        fmt_into(r.value, &mut value);
                        value.as_bytes()
                    }
                };
                // The CSV's status is the status alone: the error has its own column.
                let st: &[u8] = match r.status.as_static() {
                    Some(text) => text.as_bytes(),
                    None => {
                        use std::fmt::Write as _;
                        status.clear();
                        let _ = write!(status, "{}", r.status);
                        status.as_bytes()
                    }
                };
                w.write_record([
                    crate::digits::decimal(r.rank as u64, &mut rank),
                    r.id.as_bytes(),
                    r.owner.as_bytes(),
                    r.queue.as_bytes(),
                    v,
                    st,
                    r.error.unwrap_or_default().as_bytes(),
                ])
                .map_err(io::Error::other)?;
            }
            w.flush()
        },
    )
}

/// The number of decimal digits of `n`.
fn decimal_digits(n: usize) -> usize {
    crate::digits::count(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::read_job_list_json;
    use crate::order::report::{rows, status_cell};
    use crate::order::sort::Evaluations;
    use crate::order::{order, OrderOptions};

    /// One table line as a table writer pads it, cell after cell: right-aligned (`right`) or
    /// left, two spaces between, trailing whitespace trimmed.
    fn padded_line(out: &mut Vec<u8>, cells: &[&str], widths: &[usize; 6], right: [bool; 6]) {
        let mut line = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = " ".repeat(widths[i].saturating_sub(text_width(c)));
            if right[i] {
                line.push_str(&pad);
                line.push_str(c);
            } else {
                line.push_str(c);
                line.push_str(&pad);
            }
        }
        out.extend_from_slice(line.trim_end().as_bytes());
        out.push(b'\n');
    }

    /// More rows than one thread formats (several chunk pairs and a partial one), with ties,
    /// errors, every status and names of different widths (one not ASCII).
    fn queue(n: usize, ascii: bool) -> (JobSet, crate::order::QueueOrder) {
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

    /// The status column's width read from the ranked entries, the job's state looked at only
    /// while it can matter: held jobs (4) before a running one (7), only held ones, none.
    #[test]
    fn status_widths_look_at_states_only_while_they_matter() {
        for states in [
            &["Q", "H", "H", "R", "H"][..],
            &["H", "H", "H", "H", "R"],
            &["H", "H", "H", "H"],
            &["Q", "Q"],
            &["R"],
            &["H"],
        ] {
            let list: Vec<String> = (states.iter().enumerate())
                .map(|(i, s)| {
                    format!(r#"{{"id":"{i}","user":"u","queue":"q","qtime":{i},"state":"{s}"}}"#)
                })
                .collect();
            let jobs = read_job_list_json(format!("[{}]", list.join(",")).as_bytes()).unwrap();
            let values = (0..states.len()).map(|i| -(i as f64)).collect();
            let evals = Evaluations {
                values,
                errors: Default::default(),
            };
            let o = order(&jobs, evals, &OrderOptions::default());
            let rows = rows(&jobs, &o, None);
            let want = rows
                .iter()
                .map(|r| {
                    let mut cell = String::new();
                    status_cell(&r, &mut cell);
                    cell.len()
                })
                .max()
                .unwrap_or(0);
            assert_eq!(widths(&jobs, &rows)[5], want, "{states:?}");
        }
    }

    /// The grouped keys are the keys, each once, the groups (the job index's top bits) in
    /// ascending order: for queues below and above 2^12 jobs, keys in rank order and reversed.
    #[test]
    fn keys_are_grouped_by_the_jobs_place_in_memory() {
        for jobs in [1usize, 5, 4096, 4097, 100_003] {
            for reversed in [false, true] {
                let mut part: Vec<Ranked> = (0..jobs as u32)
                    .map(|row| Ranked {
                        job: ((row as u64 * 7919) % jobs as u64) as u32,
                        value: 0.0,
                        eligible: true,
                        below_threshold: false,
                    })
                    .collect();
                if reversed {
                    part.reverse();
                }
                let base = 10;
                let keys: Vec<u64> = (part.iter().enumerate())
                    .map(|(row, r)| u64::from(r.job) << 32 | (base + row) as u64)
                    .collect();
                let mut out = vec![0; keys.len()];
                group_by_job(&part, base, &mut out, jobs);
                // 2^12 groups of 2^s jobs, 2^(s + 12) the first power of two above `jobs`.
                let s = (usize::BITS - jobs.leading_zeros()).saturating_sub(12);
                let group = |k: u64| (k >> 32) >> s;
                assert!(group((jobs as u64 - 1) << 32) < 4096);
                assert!(out.windows(2).all(|w| group(w[0]) <= group(w[1])), "{jobs}");
                let (mut a, mut b) = (keys.clone(), out.clone());
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b, "{jobs} jobs: not the same keys");
            }
        }
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
        // Every worker (names ASCII or not), --top, and small queues on one thread.
        let cases = [
            (n, true, None),
            (n, false, None),
            (n, true, Some(CHUNK + 5)),
            (0, true, None),
            (1, true, None),
            (3, false, None),
            (CHUNK + 1, true, None),
        ];
        for (n, ascii, top) in cases {
            let (jobs, o) = queue(n, ascii);
            let rows = rows(&jobs, &o, top);
            // The table: widths from every cell and the headers, then each row on its own.
            let headers = ["rank", "job id", "owner", "queue", "value", "status"];
            let right = [true, false, false, false, true, false];
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
                        crate::order::explain::fmt(r.value),
                        status,
                    ]
                })
                .collect();
            let mut one: [usize; 6] = std::array::from_fn(|i| headers[i].len());
            for cells in &all {
                for (i, c) in cells.iter().enumerate() {
                    one[i] = one[i].max(text_width(c));
                }
            }
            let mut want = Vec::new();
            for cells in &all {
                let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
                padded_line(&mut want, &cells, &one, right);
            }
            let found = widths(&jobs, &rows);
            let t: [usize; 6] = std::array::from_fn(|i| found[i].max(headers[i].len()));
            assert_eq!(t, one, "the widths of every cell");
            let mut got = Vec::new();
            write_table(&mut got, &t, &jobs, &rows).unwrap();
            assert_eq!(got.len(), want.len(), "ascii {ascii}, top {top:?}");
            assert!(
                got == want,
                "ascii {ascii}, top {top:?}: the chunked table differs"
            );
            // Windows of cells smaller than the table: boundaries inside a chunk and at one.
            for window in [1000, CHUNK, 3 * CHUNK + 7] {
                let mut got = Vec::new();
                write_table_in(&mut got, &t, &jobs, &rows, window).unwrap();
                assert!(
                    got == want,
                    "{n} rows, ascii {ascii}, top {top:?}, windows of {window}"
                );
            }
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
