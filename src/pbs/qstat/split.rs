//! The fast path of the `qstat -f -F json` reader: the text is read with the strict scanner of
//! `json_scan` (not serde_json), and the `Jobs` object is cut into parts at job boundaries that
//! two threads read, one from the front and one from the back, until they meet; each thread's
//! jobs are sorted on it and the two sets merged in order.
//!
//! The cuts are found without scanning the file: from each of a few equal steps, the first `}`
//! `,` `"` whose key is followed by two entries that look like jobs (`"id": {…}`). Those guesses
//! are then *proved*: the first part is parsed from the start of `Jobs`, and every part must
//! end at a job boundary at exactly the next cut (the last at the end of `Jobs`), so by
//! induction each part began at a boundary. Otherwise (a guess fell inside a string, say) the
//! whole object is parsed again on one thread. Any error at all returns `None`, and the caller
//! re-reads the file with the plain serde reader, whose messages name the job, the field or the
//! line and column — so both paths accept exactly the same files and report the same errors.
//!
//! The back thread reads its parts from the last one down, so its pools (names, resource
//! names, texts) are not in the file's order of first appearance; nothing depends on a pool's
//! order (symbols are looked up by name, and the order of output follows the jobs).

use crate::jobs::job_set::JobSet;
use crate::jobs::names;
use crate::jobs::raw::{add_job_later, Pending, RawJob, RawResources, QSTAT_FIELDS};
use crate::mem::read_file::{Pages, PAGE_WINDOW};
use crate::parallel::{join, PARALLEL_MIN_BYTES};
use crate::pbs::qstat::keys;
use crate::pbs::qstat::keys::Field;
use crate::pbs::qstat::scan::Scan;
use crate::pbs::qstat::shapes::{closes_here, open_member, skip_flat_object, Shapes};
use std::borrow::Cow;

/// How many `},"` spots after each step are tried as a cut.
const CUT_TRIES: usize = 256;

/// Reads the jobs of a `qstat -f -F json` text (not yet `finish`ed), or `None` when the text is
/// not plainly well formed (the caller then uses the serde reader for its error). The flag is
/// true when the jobs are in submission order already (read in two halves, each sorted, then
/// merged): the caller may then skip `finish`'s sort.
pub(super) fn read(bytes: &[u8], pages: Pages) -> Option<(JobSet, bool)> {
    let mut s = Scan::new(bytes, 0);
    s.ws_eat(b'{')?;
    s.ws();
    let mut set: Option<(JobSet, bool)> = None;
    if s.eat(b'}').is_some() {
        return trailing(&mut s).then(|| (JobSet::default(), false));
    }
    loop {
        let key = s.string()?;
        s.ws_eat(b':')?;
        s.ws();
        if key == "Jobs" {
            if set.is_some() || s.peek() != Some(b'{') {
                return None; // a second `Jobs`, or not an object: the serde reader decides
            }
            let (jobs, end, sorted) = jobs_object(bytes, s.pos() + 1, pages)?;
            set = Some((jobs, sorted));
            s = Scan::new(bytes, end);
        } else {
            s.skip()?;
        }
        if !s.next_or_close(b'}')? {
            return trailing(&mut s).then(|| set.unwrap_or_default());
        }
    }
}

/// Only whitespace after the top-level object.
fn trailing(s: &mut Scan) -> bool {
    s.ws();
    s.peek().is_none()
}

/// A key of at most 16 bytes as two little-endian words: its first 8 bytes and its last 8
/// (overlapping when shorter than 16; zero-padded when shorter than 8). With the length, equal
/// words mean equal keys. The compile-time twin of `names::words`, which the reader calls (the
/// tests check that both agree on every bound key and its neighbours).
const fn words(key: &[u8]) -> (u64, u64) {
    let n = key.len();
    let mut head = 0u64;
    let mut tail = 0u64;
    let mut i = 0;
    while i < 8 {
        if i < n {
            head |= (key[i] as u64) << (8 * i);
        }
        if n >= 8 {
            tail |= (key[n - 8 + i] as u64) << (8 * i);
        }
        i += 1;
    }
    if n < 8 {
        tail = head;
    }
    (head, tail)
}

/// Which attribute `key` names: dispatched on its length and two words, not byte compares.
#[inline]
fn field(key: &[u8]) -> Field {
    const fn w(key: &[u8]) -> (u64, u64) {
        words(key)
    }
    const EUSER: (u64, u64) = w(keys::EUSER);
    const QUEUE: (u64, u64) = w(keys::QUEUE);
    const QTIME: (u64, u64) = w(keys::QTIME);
    const EGROUP: (u64, u64) = w(keys::EGROUP);
    const PRIORITY: (u64, u64) = w(keys::PRIORITY);
    const JOB_OWNER: (u64, u64) = w(keys::JOB_OWNER);
    const JOB_STATE: (u64, u64) = w(keys::JOB_STATE);
    const ACCRUE_TYPE: (u64, u64) = w(keys::ACCRUE_TYPE);
    const ACCOUNT_NAME: (u64, u64) = w(keys::ACCOUNT_NAME);
    const ELIGIBLE_TIME: (u64, u64) = w(keys::ELIGIBLE_TIME);
    const RESOURCE_LIST: (u64, u64) = w(keys::RESOURCE_LIST);
    if !matches!(key.len(), 5 | 6 | 8 | 9 | 11 | 12 | 13) {
        return Field::Other;
    }
    let k = names::words(key);
    match key.len() {
        5 if k == EUSER => Field::Euser,
        5 if k == QUEUE => Field::Queue,
        5 if k == QTIME => Field::Qtime,
        6 if k == EGROUP => Field::Egroup,
        8 if k == PRIORITY => Field::Priority,
        9 if k == JOB_OWNER => Field::Owner,
        9 if k == JOB_STATE => Field::State,
        11 if k == ACCRUE_TYPE => Field::AccrueType,
        12 if k == ACCOUNT_NAME => Field::Account,
        13 if k == ELIGIBLE_TIME => Field::EligibleTime,
        13 if k == RESOURCE_LIST => Field::Resources,
        _ => Field::Other,
    }
}

/// One job record (the cursor on its `{`), read as the serde reader's `QstatJob` reads it: the
/// attributes fairsort binds, a repeated one refused, `null` taken as absent, the rest skipped.
/// While the record's bytes between values are those of the last job's (`shapes`), each key is
/// known from them; from the first difference on it is read the general way and its layout
/// remembered for the next job.
fn job<'a>(s: &mut Scan<'a>, shapes: &mut Shapes) -> Option<RawJob<'a>> {
    s.eat(b'{')?;
    let text = s.text();
    let mut job = RawJob::default();
    let mut have_resources = false;
    let mut follow = !shapes.is_empty();
    let mut k = 0;
    loop {
        let from = s.pos();
        let field = match shapes.step(k, s, &mut follow) {
            Some(field) => field,
            None => {
                if !open_member(s, k)? {
                    return Some(job);
                }
                let field = match s.plain_key() {
                    Some(key) => field(key),
                    None => {
                        let key = s.key_bytes()?;
                        s.ws_eat(b':')?;
                        s.ws();
                        field(&key)
                    }
                };
                if shapes.len() == k {
                    shapes.push(text.get(from..s.pos())?, field);
                }
                field
            }
        };
        let slot = match field {
            Field::Owner => Some(&mut job.owner),
            Field::Euser => Some(&mut job.euser),
            Field::Egroup => Some(&mut job.egroup),
            Field::Account => Some(&mut job.account),
            Field::Queue => Some(&mut job.queue),
            Field::State => Some(&mut job.state),
            Field::Priority => Some(&mut job.priority),
            Field::Qtime => Some(&mut job.qtime),
            Field::EligibleTime => Some(&mut job.eligible_time),
            Field::AccrueType => Some(&mut job.accrue_type),
            Field::Resources => {
                if have_resources {
                    return None;
                }
                have_resources = true;
                job.resources = resources(s)?;
                None
            }
            Field::Other => {
                match shapes.plain(k) {
                    Some(len) if s.skip_plain_of(len) => {}
                    _ if s.peek() == Some(b'{') => {
                        // An object of plain strings along the last one's members; any other
                        // object the general way (not tried as flat a second time).
                        if !skip_flat_object(s, shapes.object(k)) {
                            s.skip()?;
                        }
                        shapes.set_plain(k, None);
                    }
                    _ => {
                        let plain = s.skip_value_len()?;
                        shapes.set_plain(k, plain);
                    }
                }
                None
            }
        };
        if let Some(slot) = slot {
            if slot.is_some() {
                return None; // a repeated attribute: the serde reader names it
            }
            *slot = match s.peek() {
                Some(b'n') => {
                    s.skip()?; // `null` (or not JSON, which `skip` refuses)
                    None
                }
                _ => Some(s.raw()?),
            };
        }
        k += 1;
        if follow && k == shapes.len() {
            // The last job ended here: this one should too; if not, the rest the general way.
            if closes_here(s)? {
                return Some(job);
            }
            follow = false;
        }
    }
}

/// A `Resource_List` object (the cursor on its `{`): (name, value) pairs in order.
fn resources<'a>(s: &mut Scan<'a>) -> Option<RawResources<'a>> {
    s.eat(b'{')?;
    s.ws();
    let mut out = Vec::with_capacity(8);
    if s.eat(b'}').is_some() {
        return Some(RawResources(out));
    }
    loop {
        let name = match s.plain_key() {
            // What `string` gives for a key without escapes: its bytes, if they are UTF-8.
            Some(key) if key.is_ascii() => {
                // SAFETY: ASCII bytes are UTF-8.
                Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(key) })
            }
            Some(key) => Cow::Borrowed(std::str::from_utf8(key).ok()?),
            None => {
                let name = s.string()?;
                s.ws_eat(b':')?;
                s.ws();
                name
            }
        };
        out.push((name, s.raw()?));
        if !s.next_or_close(b'}')? {
            return Some(RawResources(out));
        }
    }
}

/// How one run over `Jobs` entries ended.
enum Stop {
    /// At the entry starting here (the first boundary at or after the requested cut).
    Boundary(usize),
    /// At the end of `Jobs`; the position just after its `}`.
    End(usize),
}

/// Parses `Jobs` entries from `pos` (a boundary: the `"` of a key, or `}`), adding each job to
/// `set`, until the end of the object or the first boundary at or after `stop_at`.
fn entries(
    bytes: &[u8],
    pos: usize,
    stop_at: usize,
    set: &mut JobSet,
    pages: Pages,
) -> Option<Stop> {
    // Users are interned in batches, one per window, before the window's text is dropped
    // (see `add_job_later`).
    let mut first = set.jobs.len();
    let mut pending = Pending::default();
    let mut window = Window::new(pages, pos, stop_at);
    let stop = entries_of(
        bytes,
        pos,
        stop_at,
        set,
        &mut pending,
        &mut first,
        &mut window,
    );
    set.intern_users(first, &pending.users);
    window.finish();
    stop
}

/// The part of a mapped text one run holds: the run faults in half a window ahead of itself
/// at a time, never past where it is to stop, and drops what lies behind it (see
/// `read_file::Pages`).
struct Window<'m> {
    pages: Pages<'m>,
    /// Where the run is to stop: text past it is another run's.
    limit: usize,
    /// Start of what has not been dropped yet.
    kept: usize,
    /// End of what has been faulted in.
    ahead: usize,
    /// Where the next step happens.
    mark: usize,
}

impl<'m> Window<'m> {
    fn new(pages: Pages<'m>, pos: usize, limit: usize) -> Self {
        let ahead = (pos + PAGE_WINDOW).min(limit.max(pos));
        pages.advance(pos..pos, pos..ahead);
        Window {
            pages,
            limit,
            kept: pos,
            ahead,
            mark: pos + PAGE_WINDOW / 2,
        }
    }

    /// Whether the run, at `pos`, is due to [`step`](Self::step).
    #[inline]
    fn due(&self, pos: usize) -> bool {
        pos >= self.mark
    }

    /// Drops the text before `pos` (nothing borrowed from it may be used after) and faults in
    /// the next half window.
    fn step(&mut self, pos: usize) {
        let ahead = (pos + PAGE_WINDOW).min(self.limit.max(pos));
        self.pages
            .advance(self.kept..pos, self.ahead.max(pos)..ahead);
        (self.kept, self.ahead, self.mark) = (pos, ahead, pos + PAGE_WINDOW / 2);
    }

    /// The run is over: drop what it still holds of the text.
    fn finish(self) {
        self.pages.advance(self.kept..self.ahead, 0..0);
    }
}

/// [`entries`] with the user names left in `pending`.
fn entries_of<'a>(
    bytes: &'a [u8],
    pos: usize,
    stop_at: usize,
    set: &mut JobSet,
    pending: &mut Pending<'a>,
    first: &mut usize,
    window: &mut Window,
) -> Option<Stop> {
    let mut s = Scan::new(bytes, pos);
    s.ws();
    if s.eat(b'}').is_some() {
        return Some(Stop::End(s.pos()));
    }
    let mut ahead = ReadAhead::new(pos);
    let mut shapes = Shapes::default();
    loop {
        ahead.fetch(bytes, s.pos());
        if window.due(s.pos()) {
            set.intern_users(*first, &pending.users);
            pending.users.clear();
            *first = set.jobs.len();
            window.step(s.pos());
        }
        if s.pos() >= stop_at {
            return Some(Stop::Boundary(s.pos()));
        }
        let id = s.string()?;
        s.ws_eat(b':')?;
        s.ws();
        let job = job(&mut s, &mut shapes)?;
        add_job_later(set, &id, job, &QSTAT_FIELDS, pending).ok()?;
        if !s.next_or_close(b'}')? {
            return Some(Stop::End(s.pos()));
        }
    }
}

/// How far ahead of the scanner its text is prefetched into the CPU cache.
const READ_AHEAD: usize = 4096;

/// Prefetches the text a few kilobytes ahead of the scanner. The file's pages are in memory
/// (the page cache), not in the CPU cache, and the hardware prefetcher stops at every 4 KiB
/// page: without this, about half the scanner's time was the first load of each cache line
/// (the `movdqu` of `string_stop`, the word loads of `ws`).
struct ReadAhead {
    /// The first byte not prefetched yet.
    next: usize,
}

impl ReadAhead {
    fn new(pos: usize) -> Self {
        ReadAhead { next: pos }
    }

    /// The scanner is at `pos`: prefetch every cache line up to `pos + READ_AHEAD`.
    #[inline]
    fn fetch(&mut self, bytes: &[u8], pos: usize) {
        let to = (pos + READ_AHEAD).min(bytes.len());
        self.next = self.next.max(pos);
        while self.next < to {
            crate::mem::prefetch(bytes.get(self.next));
            self.next += 64;
        }
    }
}

/// Whether the entry at `pos` and the one after it look like jobs: `"id": {…}` twice (or once,
/// then the end of `Jobs`), each id starting with a digit as PBS's do (`123.server`,
/// `123[4].server`) and no attribute name does — so two object-valued attributes in a row
/// (`Resource_List`, `Variable_List`) are not taken for jobs. Used only to choose a likely cut;
/// the cuts are proved by the parse.
fn looks_like_jobs(bytes: &[u8], pos: usize) -> bool {
    let mut s = Scan::new(bytes, pos);
    for _ in 0..2 {
        let entry = (|| {
            let (id, _) = s.string_raw()?;
            if !id.first()?.is_ascii_digit() {
                return None;
            }
            s.ws_eat(b':')?;
            s.ws();
            if s.peek() != Some(b'{') {
                return None;
            }
            s.skip()?;
            s.next_or_close(b'}')
        })();
        match entry {
            Some(true) => {}
            Some(false) => return true,
            None => return false,
        }
    }
    true
}

/// A likely job boundary at or after `from`: the `"` of a key that follows `}` `,`.
fn find_cut(bytes: &[u8], from: usize) -> Option<usize> {
    let mut pos = from;
    for _ in 0..CUT_TRIES {
        let close = pos + bytes.get(pos..)?.iter().position(|&b| b == b'}')?;
        pos = close + 1;
        let mut s = Scan::new(bytes, pos);
        if s.ws_eat(b',').is_none() {
            continue;
        }
        s.ws();
        let key = s.pos();
        if s.peek() == Some(b'"') && looks_like_jobs(bytes, key) {
            return Some(key);
        }
    }
    None
}

/// Parses the `Jobs` object whose `{` is just before `start`: in parts on two threads when the
/// text is large. Returns the jobs, the position after the object's `}`, and whether the jobs
/// are in submission order (each thread's jobs sorted on it, then merged).
fn jobs_object(bytes: &[u8], start: usize, pages: Pages) -> Option<(JobSet, usize, bool)> {
    let bounds = if bytes.len() - start >= PARALLEL_MIN_BYTES {
        part_bounds(bytes, start)
    } else {
        vec![start]
    };
    if bounds.len() < 2 {
        return one_pass(bytes, start, pages);
    }
    let claims = Claims::new(bounds.len());
    let part = |set: &mut JobSet, k: usize| {
        let stop_at = bounds.get(k + 1).copied().unwrap_or(usize::MAX);
        entries(bytes, bounds[k], stop_at, set, pages)
    };
    // The front thread reads parts 0, 1, 2, ... and the back thread the last, the one before
    // it, ... until they meet: however unevenly the two go (a part of the file whose pages are
    // slower to reach, another program on one core), they finish within a part of each other,
    // and the front thread's jobs are a prefix of the file, the back thread's the rest.
    let (front, back) = join(
        || {
            let mut set = JobSet::default();
            let mut stops = Vec::new();
            while let Some(k) = claims.front() {
                stops.push((k, part(&mut set, k)));
            }
            set.sort_submission();
            (set, stops)
        },
        || {
            let mut set = JobSet::default();
            let mut stops = Vec::new();
            while let Some(k) = claims.back() {
                stops.push((k, part(&mut set, k)));
            }
            set.sort_submission();
            (set, stops)
        },
    );
    let (mut first, front_stops) = front;
    let (second, back_stops) = back;
    let mut stops: Vec<(usize, Option<Stop>)> = front_stops.into_iter().chain(back_stops).collect();
    stops.sort_by_key(|&(k, _)| k);
    // Every part must end exactly where the next begins, the last at the end of `Jobs`: then
    // each began at a job boundary (the first does), and the parts are the file's jobs.
    let mut end = None;
    for (k, stop) in &stops {
        let proved = match (stop, bounds.get(k + 1)) {
            (Some(Stop::Boundary(at)), Some(next)) => at == next,
            (Some(Stop::End(at)), None) => {
                end = Some(*at);
                true
            }
            // A part that began at a proved boundary and failed: the text is not plainly well
            // formed, and the serde reader reports it.
            (None, _) => return None,
            _ => false,
        };
        if !proved {
            // A guessed boundary was not one (it fell inside a string, say): one pass.
            return one_pass(bytes, start, pages);
        }
    }
    let end = end?;
    first.merge_sorted(second).ok()?;
    Some((first, end, true))
}

/// The whole `Jobs` object on this thread.
fn one_pass(bytes: &[u8], start: usize, pages: Pages) -> Option<(JobSet, usize, bool)> {
    let mut set = JobSet::default();
    match entries(bytes, start, usize::MAX, &mut set, pages)? {
        Stop::End(end) => Some((set, end, false)),
        Stop::Boundary(_) => None,
    }
}

/// Most parts a large `Jobs` object is read in.
const MAX_PARTS: usize = 64;

/// Fewest bytes per part (a smaller text is read in fewer parts).
const MIN_PART_BYTES: usize = 256 << 10;

/// Where each part of the `Jobs` object starting at `start` begins: `start`, then likely job
/// boundaries (see [`find_cut`]) at about equal steps, increasing.
fn part_bounds(bytes: &[u8], start: usize) -> Vec<usize> {
    let len = bytes.len() - start;
    let parts = (len / MIN_PART_BYTES).clamp(2, MAX_PARTS);
    let mut bounds = vec![start];
    for k in 1..parts {
        let from = (start + len / parts * k).max(bounds[bounds.len() - 1] + 1);
        match find_cut(bytes, from) {
            Some(cut) if cut > bounds[bounds.len() - 1] => bounds.push(cut),
            _ => {}
        }
    }
    bounds
}

/// The parts still to read, handed out from both ends: the front thread takes the first
/// unread part, the back thread the last.
struct Claims(std::sync::Mutex<std::ops::Range<usize>>);

impl Claims {
    /// Parts `0..parts`, none read.
    fn new(parts: usize) -> Self {
        Claims(std::sync::Mutex::new(0..parts))
    }

    /// The first unread part, if any.
    fn front(&self) -> Option<usize> {
        self.0.lock().ok()?.next()
    }

    /// The last unread part, if any.
    fn back(&self) -> Option<usize> {
        self.0.lock().ok()?.next_back()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: usize, user: &str) -> String {
        format!(
            r#""{id}.pbs":{{"Job_Owner":"{user}@h","queue":"workq","qtime":{id},
            "Resource_List":{{"ncpus":{id},"place":"free"}},"Variable_List":{{"A":"}},\"x\":{{"}}}}"#
        )
    }

    fn qstat(n: usize) -> String {
        let jobs: Vec<String> = (0..n).map(|i| job(i, &format!("u{}", i % 7))).collect();
        format!(
            "{{\"timestamp\":1,\"pbs_version\":\"x\",\"Jobs\":{{\n{}\n}},\"pbs_server\":\"s\"}}\n",
            jobs.join(",\n")
        )
    }

    fn summary(set: &JobSet) -> Vec<(String, String, i64)> {
        set.jobs
            .iter()
            .map(|j| (j.id.to_string(), set.user(j).to_string(), j.qtime))
            .collect()
    }

    #[test]
    fn halves_merge_into_the_same_jobs_as_one_pass() {
        let text = qstat(20_000);
        assert!(text.len() > PARALLEL_MIN_BYTES);
        let start = text.find("Jobs\":{").unwrap() + 7;
        assert!(find_cut(text.as_bytes(), start + (text.len() - start) / 2).is_some());
        let (mut fast, _) = read(text.as_bytes(), Pages::none()).unwrap();
        fast.finish().unwrap();
        let mut one = JobSet::default();
        let Some(Stop::End(_)) =
            entries(text.as_bytes(), start, usize::MAX, &mut one, Pages::none())
        else {
            panic!("one pass")
        };
        one.finish().unwrap();
        assert_eq!(fast.len(), 20_000);
        assert_eq!(summary(&fast), summary(&one));
        let ncpus = fast.resources.get("ncpus").unwrap();
        assert_eq!(
            fast.build_columns().resources[ncpus as usize].values[19_999],
            19_999.0
        );
    }

    /// A large text whose jobs are far out of submission order (qtimes scattered, with ties
    /// that the sequence numbers then decide), with no `},"` inside a value: its cut is a
    /// boundary, so it is read in two halves.
    fn scattered(n: usize) -> String {
        let jobs: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    r#""{i}.pbs":{{"Job_Owner":"u{}@h","queue":"workq","qtime":{},
                    "Resource_List":{{"ncpus":{i},"place":"free"}}}}"#,
                    i % 7,
                    (i * 7919) % n / 3
                )
            })
            .collect();
        format!(
            "{{\"timestamp\":1,\"pbs_version\":\"x\",\"Jobs\":{{\n{}\n}},\"pbs_server\":\"s\"}}\n",
            jobs.join(",\n")
        )
    }

    #[test]
    fn sorted_halves_finish_as_a_full_sort_does() {
        let text = scattered(20_000);
        assert!(text.len() > PARALLEL_MIN_BYTES);
        let (mut fast, sorted) = read(text.as_bytes(), Pages::none()).unwrap();
        assert!(sorted);
        let mut resorted = crate::pbs::qstat::read_qstat_json_slice_serde(text.as_bytes()).unwrap();
        fast.finish_sorted().unwrap();
        resorted.finish().unwrap();
        assert_eq!(fast.len(), 20_000);
        assert_eq!(summary(&fast), summary(&resorted));
        assert_eq!(fast.describe(), resorted.describe());
        let qtimes: Vec<i64> = fast.jobs.iter().map(|j| j.qtime).collect();
        assert!(qtimes.is_sorted() && qtimes != (0..20_000).collect::<Vec<i64>>());
        // A job id seen twice, one in each half, is still reported as the serde reader does.
        let dup = text.replacen("\"19990.pbs\":", "\"10.pbs\":", 1);
        let (mut fast, sorted) = read(dup.as_bytes(), Pages::none()).unwrap();
        assert!(sorted);
        let want = crate::pbs::qstat::read_qstat_json_slice_serde(dup.as_bytes()).unwrap_err();
        assert_eq!(
            fast.finish_sorted().unwrap_err().to_string(),
            want.to_string()
        );
        assert!(want.to_string().contains("10.pbs"), "{want}");
    }

    #[test]
    fn a_mapped_text_read_window_by_window_gives_the_same_jobs() {
        // Several windows long, so pages are dropped behind both halves while user names
        // borrowed from them are still to be interned.
        let text = qstat(20_000).replace("\"A\":\"", &format!("\"A\":\"{}", "y".repeat(2000)));
        assert!(text.len() > 2 * PAGE_WINDOW && text.len() > PARALLEL_MIN_BYTES);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jobs.json");
        std::fs::write(&path, &text).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
        let (mut paged, _) = read(&map, Pages::of(&map)).unwrap();
        paged.finish().unwrap();
        let (mut whole, _) = read(text.as_bytes(), Pages::none()).unwrap();
        whole.finish().unwrap();
        assert_eq!(paged.len(), 20_000);
        assert_eq!(paged.describe(), whole.describe());
    }

    #[test]
    fn read_ahead_covers_the_text_ahead_and_stops_at_its_end() {
        let bytes = vec![b' '; 10_000];
        let mut ahead = ReadAhead::new(100);
        ahead.fetch(&bytes, 100);
        assert_eq!(ahead.next, 100 + READ_AHEAD.next_multiple_of(64));
        ahead.fetch(&bytes, 9_000);
        assert!(ahead.next >= bytes.len() && ahead.next < bytes.len() + 64);
        let before = ahead.next;
        ahead.fetch(&bytes, 50);
        assert_eq!(ahead.next, before, "never moves back");
    }

    #[test]
    fn a_wrong_cut_falls_back_to_one_thread() {
        // A cut inside a string value is not a boundary: the first half parses on.
        let text = qstat(50);
        let bytes = text.as_bytes();
        let start = text.find("Jobs\":{").unwrap() + 7;
        let inside = text.find("\\\"x\\\"").unwrap();
        let mut set = JobSet::default();
        let Some(Stop::Boundary(at)) = entries(bytes, start, inside, &mut set, Pages::none())
        else {
            panic!("boundary")
        };
        assert!(at > inside);
        assert!(!looks_like_jobs(bytes, inside));
    }

    #[test]
    fn parts_are_handed_out_once_each_from_both_ends() {
        let claims = Claims::new(4);
        let got = [
            claims.front(),
            claims.back(),
            claims.back(),
            claims.front(),
            claims.front(),
            claims.back(),
        ];
        assert_eq!(got, [Some(0), Some(3), Some(2), Some(1), None, None]);
    }

    #[test]
    fn many_parts_read_from_both_ends_give_the_serde_readers_jobs() {
        let text = scattered(40_000);
        let start = text.find("Jobs\":{").unwrap() + 7;
        let bounds = part_bounds(text.as_bytes(), start);
        assert!(bounds.len() > 8, "{}", bounds.len());
        assert!(bounds.windows(2).all(|w| w[0] < w[1]));
        for &b in &bounds[1..] {
            assert!(text[b..].starts_with('"') && text[..b].trim_end().ends_with("},"));
        }
        let (mut fast, sorted) = read(text.as_bytes(), Pages::none()).unwrap();
        assert!(sorted);
        fast.finish_sorted().unwrap();
        let mut serde = crate::pbs::qstat::read_qstat_json_slice_serde(text.as_bytes()).unwrap();
        serde.finish().unwrap();
        assert_eq!(fast.describe(), serde.describe());
    }

    #[test]
    fn a_guessed_cut_inside_a_job_falls_back_to_one_pass() {
        // Each job holds an object of two objects under digit keys: the spot after its first
        // member's `},` looks like two jobs, so the cuts fall inside jobs and are disproved.
        let jobs: Vec<String> = (0..20_000)
            .map(|i| {
                format!(
                    r#""{i}.pbs":{{"Job_Owner":"u{}@h","qtime":{},"X":{{"1":{{"a":1}},"2":{{"b":2}}}},
                    "Resource_List":{{"ncpus":{i}}}}}"#,
                    i % 7,
                    (i * 7919) % 20_000
                )
            })
            .collect();
        let text = format!("{{\"Jobs\":{{\n{}\n}}}}\n", jobs.join(",\n"));
        let start = text.find("Jobs\":{").unwrap() + 7;
        let bounds = part_bounds(text.as_bytes(), start);
        assert!(bounds.len() > 2);
        assert!(bounds[1..].iter().any(|&b| text[b..].starts_with("\"2\"")));
        let (mut fast, sorted) = read(text.as_bytes(), Pages::none()).unwrap();
        assert!(!sorted, "read again in one pass");
        fast.finish().unwrap();
        let mut serde = crate::pbs::qstat::read_qstat_json_slice_serde(text.as_bytes()).unwrap();
        serde.finish().unwrap();
        assert_eq!(fast.len(), 20_000);
        assert_eq!(fast.describe(), serde.describe());
    }

    /// Jobs laid out alike but for one key each, changed at its last byte or made longer (a
    /// bound attribute becoming an unknown one): the last job's layout must not be taken for
    /// this one's, at any indentation (the key in any word of a separator).
    #[test]
    fn a_job_laid_out_as_the_last_but_for_one_key_is_read_as_serde_reads_it() {
        let keys = keys::KEYS.map(|(key, _)| std::str::from_utf8(key).unwrap());
        let value = |key: &str, j: usize| match key {
            "Job_Owner" => format!("\"u{j}@h\""),
            "job_state" => "\"Q\"".to_string(),
            "qtime" => format!("{}", 1_600_000_000 + j),
            "Priority" | "accrue_type" => format!("{}", j % 5),
            "eligible_time" => format!("\"00:{:02}:00\"", j % 60),
            "Resource_List" => format!("{{\"ncpus\":{j}}}"),
            _ => format!("\"{key}{j}\""),
        };
        for indent in [0, 1, 12, 29, 40, 47] {
            let pad = format!("\n{}", " ".repeat(indent));
            let mut jobs = Vec::new();
            for j in 0..3 * keys.len() * 2 {
                let changed = (j % 3 == 2).then_some((j / 3) % keys.len());
                let attrs: Vec<String> = (keys.iter().enumerate())
                    .map(|(i, key)| {
                        let key = match changed {
                            Some(c) if c == i && j % 2 == 0 => {
                                format!("{}X", &key[..key.len() - 1])
                            }
                            Some(c) if c == i => format!("{key}X"),
                            _ => key.to_string(),
                        };
                        format!("{pad}\"{key}\":{}", value(&key, j))
                    })
                    .collect();
                jobs.push(format!("\"{j}.pbs\":{{{}}}", attrs.join(",")));
            }
            let text = format!(
                "{{\"Jobs\":{{{}}},\"z\":\"{}\"}}",
                jobs.join(","),
                "z".repeat(80)
            );
            let (mut fast, _) =
                read(text.as_bytes(), Pages::none()).expect("the fast path reads it");
            fast.finish().unwrap();
            let mut serde =
                crate::pbs::qstat::read_qstat_json_slice_serde(text.as_bytes()).unwrap();
            serde.finish().unwrap();
            assert_eq!(fast.describe(), serde.describe(), "indent {indent}");
        }
    }

    #[test]
    fn keys_are_told_apart_as_byte_compares_tell_them() {
        let bound = keys::KEYS;
        for (key, want) in bound {
            assert_eq!(field(key), want);
            assert_eq!(names::words(key), words(key));
            // Every one-byte change, and every prefix and extension, is another key.
            for i in 0..key.len() {
                for b in [0u8, b' ', key[i] ^ 0x20, key[i] ^ 1, 0xff] {
                    let mut other = key.to_vec();
                    other[i] = b;
                    if other != key {
                        assert_eq!(field(&other), Field::Other, "{other:?}");
                    }
                }
                assert_eq!(field(&key[..i]), Field::Other);
            }
            assert_eq!(field(&[key, b"x"].concat()), Field::Other);
            assert_eq!(field(&[b"x", key].concat()), Field::Other);
        }
        for other in [
            &b""[..],
            b"Job_Name",
            b"Variable_List",
            b"\0\0\0\0\0",
            b"euse\0",
        ] {
            assert_eq!(field(other), Field::Other);
        }
    }

    #[test]
    fn anything_unusual_is_left_to_the_serde_reader() {
        for bad in [
            "",
            "[]",
            "{\"Jobs\":[]}",
            "{\"Jobs\":{\"1.s\":{\"Job_Owner\":\"a@h\"}},\"Jobs\":{}}",
            "{\"Jobs\":{\"1.s\":{\"Priority\":\"high\",\"Job_Owner\":\"a@h\"}}}",
            "{\"Jobs\":{}} x",
            "{\"Jobs\":{\"1.s\":{\"Job_Name\":inf}}}",
        ] {
            assert!(read(bad.as_bytes(), Pages::none()).is_none(), "{bad}");
        }
        assert_eq!(
            read(b" {} ", Pages::none()).map(|s| (s.0.len(), s.1)),
            Some((0, false))
        );
        assert_eq!(
            read(b"{\"Jobs\":{}}", Pages::none()).map(|s| (s.0.len(), s.1)),
            Some((0, false))
        );
    }
}
