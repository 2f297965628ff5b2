//! The fast path of the `qstat -f -F json` reader: the text is read with the strict scanner of
//! `json_scan` (not serde_json), and the `Jobs` object is cut in two at a job boundary and the
//! halves parsed in parallel (`crate::parallel::join`), then merged in order.
//!
//! The cut is found without scanning the file: from the middle, the first `}` `,` `"` whose key
//! is followed by two entries that look like jobs (`"id": {…}`). That guess is then *proved*: the
//! first half is parsed sequentially from the start of `Jobs` and must reach a job boundary at
//! exactly the cut; otherwise (the guess fell inside a string, say) the first half simply parses
//! on to the end and the second half's work is dropped. Any error at all returns `None`, and the
//! caller re-reads the file with the plain serde reader, whose messages name the job, the field or
//! the line and column — so both paths accept exactly the same files and report the same errors.

use super::job::JobSet;
use super::json_scan::Scan;
use super::qstat_keys::{self as keys, Field};
use super::raw::{add_job_later, Pending, RawJob, RawResources, QSTAT_FIELDS};
use super::read_file::{Pages, PAGE_WINDOW};
use crate::parallel::{join, PARALLEL_MIN_BYTES};
use std::borrow::Cow;

/// How many `},"` spots after the middle are tried as the cut.
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
/// words mean equal keys.
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

/// [`words`] at run time: the same words with word loads where the key is 8 bytes or more.
#[inline]
fn key_words(key: &[u8]) -> (u64, u64) {
    match (key.first_chunk::<8>(), key.last_chunk::<8>()) {
        (Some(head), Some(tail)) => (u64::from_le_bytes(*head), u64::from_le_bytes(*tail)),
        _ => words(key),
    }
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
    let k = key_words(key);
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
fn job<'a>(s: &mut Scan<'a>) -> Option<RawJob<'a>> {
    s.eat(b'{')?;
    s.ws();
    let mut job = RawJob::default();
    if s.eat(b'}').is_some() {
        return Some(job);
    }
    let mut have_resources = false;
    loop {
        let field = match s.plain_key() {
            Some(key) => field(key),
            None => {
                let key = s.key_bytes()?;
                s.ws_eat(b':')?;
                s.ws();
                field(&key)
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
                s.skip_value()?;
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
        if !s.next_or_close(b'}')? {
            return Some(job);
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
    let mut window = Window::new(pages, pos);
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
/// at a time and drops what lies behind it (see `read_file::Pages`).
struct Window<'m> {
    pages: Pages<'m>,
    /// Start of what has not been dropped yet.
    kept: usize,
    /// End of what has been faulted in.
    ahead: usize,
    /// Where the next step happens.
    mark: usize,
}

impl<'m> Window<'m> {
    fn new(pages: Pages<'m>, pos: usize) -> Self {
        pages.advance(pos..pos, pos..pos + PAGE_WINDOW);
        Window {
            pages,
            kept: pos,
            ahead: pos + PAGE_WINDOW,
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
        let ahead = pos + PAGE_WINDOW;
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
        let job = job(&mut s)?;
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
            super::report::prefetch(bytes.get(self.next));
            self.next += 64;
        }
    }
}

/// Whether the entry at `pos` and the one after it look like jobs: `"id": {…}` twice (or once,
/// then the end of `Jobs`). Used only to choose a likely cut; the cut is proved by the first half.
fn looks_like_jobs(bytes: &[u8], pos: usize) -> bool {
    let mut s = Scan::new(bytes, pos);
    for _ in 0..2 {
        let entry = (|| {
            s.string_raw()?;
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

/// Parses the `Jobs` object whose `{` is just before `start`: in two halves in parallel when
/// the text is large. Returns the jobs, the position after the object's `}`, and whether the
/// jobs are in submission order (each half sorted on its thread, then merged).
fn jobs_object(bytes: &[u8], start: usize, pages: Pages) -> Option<(JobSet, usize, bool)> {
    let cut = if bytes.len() - start >= PARALLEL_MIN_BYTES {
        find_cut(bytes, start + (bytes.len() - start) / 2)
    } else {
        None
    };
    let Some(cut) = cut else {
        let mut set = JobSet::default();
        return match entries(bytes, start, usize::MAX, &mut set, pages)? {
            Stop::End(end) => Some((set, end, false)),
            Stop::Boundary(_) => None,
        };
    };
    // Each half is sorted into submission order on its own thread: `finish` then only merges
    // the two sorted runs.
    let mut first = JobSet::default();
    let (stop, second) = join(
        || {
            let stop = entries(bytes, start, cut, &mut first, pages);
            first.sort_submission();
            stop
        },
        || {
            let mut set = JobSet::default();
            match entries(bytes, cut, usize::MAX, &mut set, pages) {
                Some(Stop::End(end)) => {
                    set.sort_submission();
                    Some((set, end))
                }
                _ => None,
            }
        },
    );
    match stop? {
        Stop::End(end) => Some((first, end, false)), // the cut was past the end of `Jobs`
        Stop::Boundary(at) if at == cut => {
            let (second, end) = second?;
            first.merge_sorted(second).ok()?;
            Some((first, end, true))
        }
        Stop::Boundary(at) => match entries(bytes, at, usize::MAX, &mut first, pages)? {
            // The guess was not a boundary: finish on this thread.
            Stop::End(end) => Some((first, end, false)),
            Stop::Boundary(_) => None,
        },
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
        let mut resorted =
            super::super::qstat::read_qstat_json_slice_serde(text.as_bytes()).unwrap();
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
        let want = super::super::qstat::read_qstat_json_slice_serde(dup.as_bytes()).unwrap_err();
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
    fn keys_are_told_apart_as_byte_compares_tell_them() {
        let bound = keys::KEYS;
        for (key, want) in bound {
            assert_eq!(field(key), want);
            assert_eq!(key_words(key), words(key));
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
