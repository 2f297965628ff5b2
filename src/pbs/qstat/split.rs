//! The fast path of the `qstat -f -F json` reader: the text is read with the strict scanner of
//! `scan` (not serde_json), and a large `Jobs` object is cut into up to [`MAX_PARTS`] parts at
//! job boundaries that every thread of rayon's pool reads: each thread takes the next unread
//! part from a shared counter until none is left (a thread slowed by another program, or by a
//! stretch of the file whose pages are slower to reach, simply takes fewer), sorts its jobs
//! into submission order, and the threads' sets are then merged in pairs.
//!
//! The cuts are found without scanning the file: from each of a few equal steps, the first `}`
//! `,` `"` whose key is followed by two entries that look like jobs (`"id": {…}`), looked for in
//! a bounded window with a bounded number of tries (so the search is linear in the text's
//! length whatever the text). Those guesses are then *proved*: the first part starts at the
//! start of `Jobs`, and every part must end at a job boundary at exactly the next cut (the last
//! at the end of `Jobs`), so by induction each part began at a boundary. Otherwise (a guess fell
//! inside a string, say) — and on any error at all: a syntax error, a bad value, a job id seen
//! twice — this returns `None`, and the caller reads the text in one pass with the plain serde
//! reader, whose messages name the job, the field or the line and column; so both paths accept
//! exactly the same files and report the same errors. A `Jobs` object too small to cut is read
//! in one pass by the scanner.
//!
//! Each thread's pools (names, resource names, texts) are in the order it read its parts, not
//! the file's; nothing depends on a pool's order (symbols are looked up by name, and the order
//! of output follows the jobs).

use crate::jobs::job_set::JobSet;
use crate::mem::read_file::Pages;
use crate::pbs::qstat::entries::{entries, Stop};
use crate::pbs::qstat::scan::Scan;
use jiff::tz::TimeZone;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Most parts a large `Jobs` object is read in.
const MAX_PARTS: usize = 256;

/// Fewest bytes per part in the product (a smaller text is read in fewer parts; below twice
/// this, in one pass).
pub(super) const MIN_PART_BYTES: usize = 512 << 10;

/// How many spots after each step that start like a job (`}` `,` `"` and a digit) are parsed as
/// two jobs, at most: with the window of [`part_bounds`], the bound that keeps the search for
/// cuts linear in the text's length whatever the text (spots that do not start like a job cost
/// a few byte compares each).
const CUT_TRIES: usize = 8;

/// Fewest bytes the search for one cut looks through (the product's steps are 512 KiB or more;
/// this is for the tests' tiny parts).
const MIN_CUT_WINDOW: usize = 64 << 10;

/// Reads the jobs of a `qstat -f -F json` text (`finish`ed), its `Jobs` object in parts of at
/// least `min_part` bytes, or `None` when the text is not plainly well formed or the cuts are
/// not proved (the caller then uses the serde reader).
pub(super) fn read(bytes: &[u8], pages: Pages, min_part: usize, zone: &TimeZone) -> Option<JobSet> {
    let mut s = Scan::new(bytes, 0);
    s.ws_eat(b'{')?;
    s.ws();
    let mut set: Option<(JobSet, bool)> = None;
    if s.eat(b'}').is_some() {
        return trailing(&mut s).then(JobSet::default);
    }
    loop {
        let key = s.string()?;
        s.ws_eat(b':')?;
        s.ws();
        if key == "Jobs" {
            if set.is_some() || s.peek() != Some(b'{') {
                return None; // a second `Jobs`, or not an object: the serde reader decides
            }
            let (jobs, end, sorted) = jobs_object(bytes, s.pos() + 1, pages, min_part, zone)?;
            set = Some((jobs, sorted));
            s = Scan::new(bytes, end);
        } else {
            s.skip()?;
        }
        if !s.next_or_close(b'}')? {
            break;
        }
    }
    if !trailing(&mut s) {
        return None;
    }
    let (mut set, sorted) = set.unwrap_or_default();
    let finished = if sorted {
        set.finish_sorted()
    } else {
        set.finish()
    };
    finished.ok().map(|()| set)
}

/// Only whitespace after the top-level object.
fn trailing(s: &mut Scan) -> bool {
    s.ws();
    s.peek().is_none()
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

/// The first byte at or after `pos` that is not JSON whitespace (or the end).
fn skip_ws(bytes: &[u8], pos: usize) -> usize {
    let rest = bytes.get(pos..).unwrap_or_default();
    pos + rest
        .iter()
        .position(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
        .unwrap_or(rest.len())
}

/// A likely job boundary in `from..limit`: the `"` of a key that follows `}` `,`, with two
/// entries that look like jobs before `limit`. Each call reads at most `limit - from` bytes
/// looking for `}`, and at most [`CUT_TRIES`] times that parsing candidates.
fn find_cut(bytes: &[u8], from: usize, limit: usize) -> Option<usize> {
    let window = bytes.get(..limit.min(bytes.len()))?;
    let mut pos = from;
    let mut tries = 0;
    while tries < CUT_TRIES {
        pos += 1 + window.get(pos..)?.iter().position(|&b| b == b'}')?;
        let comma = skip_ws(window, pos);
        if window.get(comma) != Some(&b',') {
            continue;
        }
        let key = skip_ws(window, comma + 1);
        if window.get(key) != Some(&b'"') || !window.get(key + 1).is_some_and(u8::is_ascii_digit) {
            continue;
        }
        tries += 1;
        if looks_like_jobs(window, key) {
            return Some(key);
        }
    }
    None
}

/// Where each part of the `Jobs` object starting at `start` begins: `start`, then likely job
/// boundaries (see [`find_cut`]) at about equal steps, increasing. Each cut is looked for in the
/// step after its place (at least [`MIN_CUT_WINDOW`]), so the search reads each byte of the
/// text a bounded number of times.
fn part_bounds(bytes: &[u8], start: usize, min_part: usize) -> Vec<usize> {
    let len = bytes.len().saturating_sub(start);
    let parts = (len / min_part.max(1)).min(MAX_PARTS);
    let step = len / parts.max(1);
    let window = step.max(MIN_CUT_WINDOW);
    let mut bounds = vec![start];
    for k in 1..parts {
        let from = (start + step * k).max(bounds[bounds.len() - 1] + 1);
        match find_cut(bytes, from, from.saturating_add(window)) {
            Some(cut) if cut > bounds[bounds.len() - 1] => bounds.push(cut),
            _ => {}
        }
    }
    bounds
}

/// What one thread read: its jobs (sorted into submission order) and how each part it took
/// ended, by part number.
struct Share {
    set: JobSet,
    stops: Vec<(usize, Option<Stop>)>,
}

/// Parses the `Jobs` object whose `{` is just before `start`: in parts on the pool's threads
/// when it is large, else in one pass. Returns the jobs (not yet checked for a repeated id),
/// the position after the object's `}`, and whether the jobs are in submission order already
/// (read in parts, each thread's sorted, then merged); `None` when a part fails or the cuts
/// are not proved.
fn jobs_object(
    bytes: &[u8],
    start: usize,
    pages: Pages,
    min_part: usize,
    zone: &TimeZone,
) -> Option<(JobSet, usize, bool)> {
    let bounds = part_bounds(bytes, start, min_part);
    if bounds.len() < 2 {
        return one_pass(bytes, start, pages, zone);
    }
    let next = AtomicUsize::new(0);
    // Each thread takes the next unread part until none is left: parts are handed out in the
    // file's order, so the last parts (the end of the file) are the last to start, and no
    // thread waits for more than about one part at the end.
    let take = || {
        let mut share = Share {
            set: JobSet::default(),
            stops: Vec::new(),
        };
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(&from) = bounds.get(k) else { break };
            let stop_at = bounds.get(k + 1).copied().unwrap_or(usize::MAX);
            share.stops.push((
                k,
                entries(bytes, from, stop_at, &mut share.set, pages, zone),
            ));
        }
        share.set.sort_submission();
        share
    };
    let shares = on_workers(rayon::current_num_threads().clamp(1, bounds.len()), &take);
    let mut stops: Vec<(usize, Option<Stop>)> = shares
        .iter()
        .flat_map(|s| s.stops.iter().copied())
        .collect();
    stops.sort_by_key(|&(k, _)| k);
    let end = proved_end(&bounds, &stops)?;
    let sets: Vec<JobSet> = shares.into_iter().map(|s| s.set).collect();
    Some((merge_all(sets)?, end, true))
}

/// `f` run by `k` workers at once, this thread one of them (`parallel::join` hands the others
/// to pool threads, a share at each level), and their `k` results.
fn on_workers<R: Send>(k: usize, f: &(impl Fn() -> R + Sync)) -> Vec<R> {
    if k <= 1 {
        return vec![f()];
    }
    let (mut here, there) =
        crate::parallel::join(|| on_workers(k - k / 2, f), || on_workers(k / 2, f));
    here.extend(there);
    here
}

/// The whole `Jobs` object on this thread.
fn one_pass(
    bytes: &[u8],
    start: usize,
    pages: Pages,
    zone: &TimeZone,
) -> Option<(JobSet, usize, bool)> {
    let mut set = JobSet::default();
    match entries(bytes, start, usize::MAX, &mut set, pages, zone)? {
        Stop::End(end) => Some((set, end, false)),
        Stop::Boundary(_) => None,
    }
}

/// The end of `Jobs` when every part (`stops`, by part number: each exactly once) ended exactly
/// where the next begins and the last at the end of `Jobs`: then each began at a job boundary
/// (the first does) and the parts hold the file's jobs. `None` otherwise.
fn proved_end(bounds: &[usize], stops: &[(usize, Option<Stop>)]) -> Option<usize> {
    if stops.len() != bounds.len() || stops.iter().enumerate().any(|(i, &(k, _))| i != k) {
        return None;
    }
    let mut end = None;
    for &(k, stop) in stops {
        match (stop?, bounds.get(k + 1)) {
            (Stop::Boundary(at), Some(&next)) if at == next => {}
            (Stop::End(at), None) => end = Some(at),
            _ => return None,
        }
    }
    end
}

/// The sets merged into one in submission order, in pairs on the pool's threads (each set is
/// sorted already; the merged order does not depend on the order of the sets: equal keys are
/// the same job id, which `finish_sorted` then refuses).
fn merge_all(mut sets: Vec<JobSet>) -> Option<JobSet> {
    if sets.len() <= 1 {
        return Some(sets.pop().unwrap_or_default());
    }
    let right = sets.split_off(sets.len() / 2);
    let (left, right) = crate::parallel::join(|| merge_all(sets), || merge_all(right));
    let mut left = left?;
    left.merge_sorted(right?).ok()?;
    Some(left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::read_file::PAGE_WINDOW;
    use crate::pbs::qstat::keys;

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

    fn serde(text: &str) -> JobSet {
        crate::pbs::qstat::read_serde("", text.as_bytes(), &TimeZone::UTC).unwrap()
    }

    /// A large text whose jobs are far out of submission order (qtimes scattered, with ties
    /// that the sequence numbers then decide), with no `},"` inside a value.
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

    /// `f` on a pool of `threads` threads.
    fn on<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(f)
    }

    #[test]
    fn parts_on_any_number_of_threads_give_the_plain_readers_jobs() {
        let text = scattered(20_000);
        let start = text.find("Jobs\":{").unwrap() + 7;
        let bounds = part_bounds(text.as_bytes(), start, 16 << 10);
        assert!(bounds.len() > 16, "{}", bounds.len());
        assert!(bounds.windows(2).all(|w| w[0] < w[1]));
        for &b in &bounds[1..] {
            assert!(text[b..].starts_with('"') && text[..b].trim_end().ends_with("},"));
        }
        let want = serde(&text);
        for threads in [1, 2, 3, 8] {
            let got = on(threads, || {
                read(text.as_bytes(), Pages::none(), 16 << 10, &TimeZone::UTC)
            })
            .unwrap();
            assert_eq!(got.len(), 20_000);
            assert_eq!(got.describe(), want.describe(), "{threads} threads");
        }
        let qtimes: Vec<i64> = want.jobs.iter().map(|j| j.qtime).collect();
        assert!(qtimes.is_sorted() && qtimes != (0..20_000).collect::<Vec<i64>>());
    }

    #[test]
    fn a_repeated_id_or_a_bad_value_is_left_to_the_plain_reader() {
        let text = scattered(20_000);
        assert!(read(text.as_bytes(), Pages::none(), 16 << 10, &TimeZone::UTC).is_some());
        // A job id seen twice, in two parts.
        let dup = text.replacen("\"19990.pbs\":", "\"10.pbs\":", 1);
        assert!(read(dup.as_bytes(), Pages::none(), 16 << 10, &TimeZone::UTC).is_none());
        let bad = text.replacen("\"qtime\":", "\"qtime\":\"soon\",\"x\":", 1);
        assert!(read(bad.as_bytes(), Pages::none(), 16 << 10, &TimeZone::UTC).is_none());
        let trailing = format!("{text} x");
        assert!(read(trailing.as_bytes(), Pages::none(), 16 << 10, &TimeZone::UTC).is_none());
    }

    #[test]
    fn a_mapped_text_read_window_by_window_gives_the_same_jobs() {
        // Several windows long, so pages are dropped behind every part while user names
        // borrowed from them are still to be interned.
        let text = qstat(20_000).replace("\"A\":\"", &format!("\"A\":\"{}", "y".repeat(2000)));
        assert!(text.len() > 2 * PAGE_WINDOW);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jobs.json");
        std::fs::write(&path, &text).unwrap();
        let file = crate::mem::read_file(&path).unwrap();
        let paged = on(2, || {
            read(&file, file.pages(), MIN_PART_BYTES, &TimeZone::UTC)
        })
        .unwrap();
        assert_eq!(paged.len(), 20_000);
        assert_eq!(paged.describe(), serde(&text).describe());
    }

    #[test]
    fn a_cut_inside_a_string_is_not_a_boundary() {
        // A cut inside a string value: the part before it parses on past it.
        let text = qstat(50);
        let bytes = text.as_bytes();
        let start = text.find("Jobs\":{").unwrap() + 7;
        let inside = text.find("\\\"x\\\"").unwrap();
        let mut set = JobSet::default();
        let Some(Stop::Boundary(at)) = entries(
            bytes,
            start,
            inside,
            &mut set,
            Pages::none(),
            &TimeZone::UTC,
        ) else {
            panic!("boundary")
        };
        assert!(at > inside);
        assert!(!looks_like_jobs(bytes, inside));
    }

    /// `k` workers run, at once: each waits (a long while, not for ever) until all have
    /// started, which in a serial run the first would never see.
    #[test]
    fn every_worker_runs_at_once() {
        for k in [1, 2, 3, 5] {
            let started = AtomicUsize::new(0);
            let saw_all = on(k, || {
                on_workers(k, &|| {
                    started.fetch_add(1, Ordering::SeqCst);
                    (0..100_000_000).any(|_| {
                        std::thread::yield_now();
                        started.load(Ordering::SeqCst) == k
                    })
                })
            });
            assert_eq!(saw_all, vec![true; k], "{k} workers");
        }
    }

    #[test]
    fn only_parts_that_end_at_the_next_cut_are_proved() {
        let bounds = [10, 20, 30];
        let b = |at| Some(Stop::Boundary(at));
        let e = |at| Some(Stop::End(at));
        assert_eq!(
            proved_end(&bounds, &[(0, b(20)), (1, b(30)), (2, e(41))]),
            Some(41)
        );
        for stops in [
            vec![(0, b(21)), (1, b(30)), (2, e(41))],
            vec![(0, b(20)), (1, e(30)), (2, e(41))],
            vec![(0, b(20)), (1, b(30)), (2, b(41))],
            vec![(0, b(20)), (1, None), (2, e(41))],
            vec![(0, b(20)), (2, e(41))],
            vec![(0, b(20)), (1, b(30)), (1, b(30)), (2, e(41))],
        ] {
            assert_eq!(proved_end(&bounds, &stops), None, "{stops:?}");
        }
    }

    #[test]
    fn a_guessed_cut_inside_a_job_is_disproved() {
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
        let bounds = part_bounds(text.as_bytes(), start, 16 << 10);
        assert!(bounds.len() > 2);
        assert!(bounds[1..].iter().any(|&b| text[b..].starts_with("\"2\"")));
        assert!(on(2, || read(
            text.as_bytes(),
            Pages::none(),
            16 << 10,
            &TimeZone::UTC
        ))
        .is_none());
        // The public reader still reads it (with the plain reader), to the same jobs.
        let set = crate::pbs::qstat::read_qstat_json(text.as_bytes()).unwrap();
        assert_eq!(set.len(), 20_000);
        assert_eq!(set.describe(), serde(&text).describe());
    }

    /// The search for cuts reads a bounded number of bytes per part whatever the text: in a job
    /// of many `},"1…":` spots that are not jobs only [`CUT_TRIES`] are parsed, a window with no
    /// `}` is searched to its end only, and the text is still read as the plain reader reads it.
    #[test]
    fn cuts_are_looked_for_in_a_bounded_window() {
        let inner: Vec<String> = (0..40_000)
            .map(|i| format!("\"a{i}\":{{\"b\":1}},\"{i}\":5"))
            .collect();
        let text = format!(
            "{{\"Jobs\":{{\"1.s\":{{\"Job_Owner\":\"u@h\",\"X\":{{{}}}}},\"2.s\":{{\"Job_Owner\":\"v@h\",\"Y\":\"{}\"}}}}}}",
            inner.join(","),
            "y".repeat(1 << 20)
        );
        let start = text.find("Jobs\":{").unwrap() + 7;
        let bytes = text.as_bytes();
        // Hundreds of spots in the window start like a job; the first CUT_TRIES are parsed and
        // are not, and the search stops there although the job's end is in the window.
        let from = text.find("\"a20000\"").unwrap();
        let end = text.find(",\"2.s\"").unwrap();
        assert!(text[from..end].matches("},\"").count() > 100 * CUT_TRIES);
        assert_eq!(find_cut(bytes, from, end + 100), None);
        assert_eq!(find_cut(bytes, end - 10, text.len()), Some(end + 1));
        // No `}` in the window at all.
        let late = text.find("yyyy").unwrap();
        assert_eq!(find_cut(bytes, late, late + MIN_CUT_WINDOW), None);
        assert_eq!(part_bounds(bytes, start, 16 << 10), [start]);
        // Too few cuts: the scanner reads it in one pass, as the plain reader does.
        let set = read(bytes, Pages::none(), 16 << 10, &TimeZone::UTC).unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(set.describe(), serde(&text).describe());
    }

    #[test]
    fn anything_unusual_is_left_to_the_plain_reader() {
        for bad in [
            "",
            "[]",
            "{\"Jobs\":[]}",
            "{\"Jobs\":{\"1.s\":{\"Job_Owner\":\"a@h\"}},\"Jobs\":{}}",
            "{\"Jobs\":{\"1.s\":{\"Priority\":\"high\",\"Job_Owner\":\"a@h\"}}}",
            "{\"Jobs\":{}} x",
            "{\"Jobs\":{\"1.s\":{\"Job_Name\":inf}}}",
        ] {
            assert!(
                read(bad.as_bytes(), Pages::none(), 1, &TimeZone::UTC).is_none(),
                "{bad}"
            );
        }
        for (empty, jobs) in [
            (" {} ", 0),
            ("{\"Jobs\":{}}", 0),
            ("{\"Jobs\":{\"1.s\":{\"euser\":\"a\"}}}", 1),
        ] {
            assert_eq!(
                read(empty.as_bytes(), Pages::none(), 1, &TimeZone::UTC).map(|s| s.len()),
                Some(jobs)
            );
        }
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
            "qtime" | "stime" => format!("{}", 1_600_000_000 + j),
            "array_indices_remaining" => format!("\"1-{}\"", j + 1),
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
            let fast = read(
                text.as_bytes(),
                Pages::none(),
                MIN_PART_BYTES,
                &TimeZone::UTC,
            )
            .expect("the fast path reads it");
            assert_eq!(fast.describe(), serde(&text).describe(), "indent {indent}");
        }
    }
}
