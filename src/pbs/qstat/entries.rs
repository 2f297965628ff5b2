//! The fast path's reading of `Jobs` entries: from a job boundary, each job record read with
//! the strict scanner of `scan` (the attributes fairsort binds, a repeated one refused, the rest
//! skipped but checked to be JSON), along the last job's layout (`shapes`), until the end of
//! `Jobs` or the first boundary at or after a given place. `split` runs it over each part of a
//! large text on rayon's pool.

use crate::jobs::job_set::JobSet;
use crate::jobs::names;
use crate::jobs::raw::{add_job_later, Pending, RawJob, RawResources, QSTAT_FIELDS};
use crate::mem::ascii::ascii_str;
use crate::mem::read_file::{Pages, PAGE_WINDOW};
use crate::pbs::qstat::keys;
use crate::pbs::qstat::keys::Field;
use crate::pbs::qstat::scan::Scan;
use crate::pbs::qstat::shapes::{closes_here, open_member, skip_flat_object, Shapes};
use jiff::tz::TimeZone;
use std::borrow::Cow;

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
    const STIME: (u64, u64) = w(keys::STIME);
    const EGROUP: (u64, u64) = w(keys::EGROUP);
    const PRIORITY: (u64, u64) = w(keys::PRIORITY);
    const JOB_OWNER: (u64, u64) = w(keys::JOB_OWNER);
    const JOB_STATE: (u64, u64) = w(keys::JOB_STATE);
    const ACCRUE_TYPE: (u64, u64) = w(keys::ACCRUE_TYPE);
    const ACCOUNT_NAME: (u64, u64) = w(keys::ACCOUNT_NAME);
    const ELIGIBLE_TIME: (u64, u64) = w(keys::ELIGIBLE_TIME);
    const RESOURCE_LIST: (u64, u64) = w(keys::RESOURCE_LIST);
    if !matches!(key.len(), 5 | 6 | 8 | 9 | 11 | 12 | 13 | 23) {
        return Field::Other;
    }
    if key.len() == 23 {
        // longer than two words: compared whole
        return if key == keys::ARRAY_REMAINING {
            Field::ArrayRemaining
        } else {
            Field::Other
        };
    }
    let k = names::words(key);
    match key.len() {
        5 if k == EUSER => Field::Euser,
        5 if k == QUEUE => Field::Queue,
        5 if k == QTIME => Field::Qtime,
        5 if k == STIME => Field::Stime,
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
            Field::Stime => Some(&mut job.stime),
            Field::ArrayRemaining => Some(&mut job.array_remaining),
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
            Some(key) => Cow::Borrowed(ascii_str(key).or_else(|| std::str::from_utf8(key).ok())?),
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// At the entry starting here (the first boundary at or after the requested cut).
    Boundary(usize),
    /// At the end of `Jobs`; the position just after its `}`.
    End(usize),
}

/// Parses `Jobs` entries from `pos` (a boundary: the `"` of a key, or `}`), adding each job to
/// `set`, until the end of the object or the first boundary at or after `stop_at`.
pub(super) fn entries(
    bytes: &[u8],
    pos: usize,
    stop_at: usize,
    set: &mut JobSet,
    pages: Pages,
    zone: &TimeZone,
) -> Option<Stop> {
    // Users are interned in batches, one per window, before the window's text is dropped
    // (see `add_job_later`).
    let mut first = set.jobs.len();
    let mut pending = Pending::new(zone);
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_resource_name_is_checked_to_be_utf8() {
        let text = b"{\"ncpus\":4,\"m\xc3\xa9m\":\"4gb\"}";
        let got = resources(&mut Scan::new(text, 0)).unwrap();
        assert_eq!(got.0[1].0, "m\u{e9}m");
        assert!(resources(&mut Scan::new(b"{\"m\xffm\":1}", 0)).is_none());
    }
}
