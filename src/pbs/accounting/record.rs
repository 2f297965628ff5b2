//! `usage record` of PBS accounting logs: each file is mapped, its charged prefix skipped when
//! its charged mark still matches ([`crate::usage::marks`]), and the rest cut into small chunks of whole
//! lines that every worker parses as it comes free ([`crate::pbs::accounting::chunks`]). Charging stays on the
//! calling thread and in file order (it charges each chunk once parsed, and parses the next
//! itself while it waits), so usage totals, the ledger and the malformed-record reports (file and
//! line) are exactly those of reading the file line by line.

use crate::files::text::FileText;
use crate::parallel::PARALLEL_MIN_BYTES;
use crate::pbs::accounting::chunks::{Chunks, Next, Queue};
use crate::pbs::accounting::log::{expand_inputs, PbsLogReader, ReadStats};
use crate::pbs::accounting::span::{JobAt, PbsSpan};
use crate::pbs::defs::FairshareEntity;
use crate::usage::charge::Charge;
use crate::usage::error::{Malformed, UsageError};
use crate::usage::job::PreparedCharge;
use crate::usage::marks::{check_text, prefix_check, set_mark, Mark};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Bytes per chunk: small enough that the workers finish together (the last chunk is the
/// only wait), large enough that taking one costs nothing next to parsing it (~1 ms).
const CHUNK: usize = 1 << 20;

/// Chunks parsed at most ahead of the one being charged (spans and mapped pages in flight).
const AHEAD: usize = 32;

/// The ledger is presized for the whole file once this many bytes are charged.
const PRESIZE_AFTER: usize = 16 << 20;

/// Charged pages of the mapping are dropped (and progress reported) in steps of this many bytes.
const RELEASE_BYTES: usize = 8 << 20;

/// The page size the mapping's releases are aligned to (a larger real page only drops a page
/// that is faulted in again).
const PAGE: usize = 4096;

/// Below this size a file is read into memory rather than mapped.
const MAP_MIN_BYTES: u64 = 1 << 20;

/// A log's bytes ([`FileText`]: mapped for large files, read otherwise) and the advice the
/// chunked reader gives its mapping.
mod log_bytes {
    use super::*;

    /// Opens one log: mapped with sequential advice from [`MAP_MIN_BYTES`] up when nobody but
    /// root and the caller can write it (PBS's logs are root's: `mem::map`), read otherwise.
    /// PBS appends to today's log while it is read: the bytes past the mapping (or past the
    /// read) are the next run's, and a partial last line is never charged.
    pub(super) fn open(path: &Path) -> Result<FileText, UsageError> {
        let mut f = File::open(path).map_err(|e| UsageError::io(path, e))?;
        let meta = f.metadata().map_err(|e| UsageError::io(path, e))?;
        if meta.is_file() && meta.len() >= MAP_MIN_BYTES {
            if let Some(map) = crate::mem::Mapping::of(&f, None, false) {
                map.sequential();
                return Ok(FileText::Mapped(map));
            }
        }
        let mut v = Vec::new();
        f.read_to_end(&mut v).map_err(|e| UsageError::io(path, e))?;
        Ok(FileText::Read(v))
    }

    /// Faults in `range` ahead of the parser (advice only).
    pub(super) fn populate(bytes: &FileText, range: std::ops::Range<usize>) {
        if let FileText::Mapped(m) = bytes {
            m.populate(range);
        }
    }

    /// Drops the pages of `range`, parsed and no longer borrowed (advice only).
    pub(super) fn release(bytes: &FileText, range: std::ops::Range<usize>) {
        if let FileText::Mapped(m) = bytes {
            m.release(range);
        }
    }
}

/// One file's charging state, in file order.
struct FileRun<'p> {
    file: &'p Path,
    stats: ReadStats,
    /// End of the file's last complete line: a mark never covers a partial last line.
    complete_end: u64,
    /// The first malformed record: (its line's offset, lines before it, jobs and evaluation
    /// errors before it). A mark stops there, so it is read (and reported) again next time.
    cut: Option<(u64, u64, u64, u64)>,
    jobs_before: u64,
    eval_before: u64,
}

impl FileRun<'_> {
    /// Charges a parsed span that starts at `base` in the file, in order.
    fn charge(
        &mut self,
        span: &mut PbsSpan,
        base: usize,
        sink: &mut dyn PbsSink,
        malformed: &mut Vec<Malformed>,
    ) {
        let line_base = self.stats.lines;
        for p in &mut span.recs {
            let at = base as u64 + p.start;
            let line = line_base + p.line;
            if p.eval_error {
                self.stats.eval_errors += 1;
            }
            let (jobs, bad) = (self.stats.jobs, self.stats.malformed);
            let outcome = match &mut p.kind {
                Ok(j) => sink.charge(job_of(&span.buf, j)),
                Err(m) => Err(std::mem::take(m)),
            };
            match outcome {
                Ok(()) => self.stats.jobs += 1,
                Err(m) => self.stats.skip(malformed, self.file, line, m),
            }
            if self.stats.malformed > bad && self.cut.is_none() {
                self.cut = Some((at, line - 1, self.jobs_before, self.eval_before));
            }
            if self.cut.is_none() && at < self.complete_end {
                self.jobs_before += self.stats.jobs - jobs;
                self.eval_before += u64::from(p.eval_error);
            }
        }
        self.stats.lines += span.lines;
        self.stats.bytes += span.bytes;
    }
}

/// The job `j` of a span whose buffer is `buf`.
fn job_of<'a>(buf: &'a str, j: &JobAt) -> PreparedCharge<'a> {
    PreparedCharge {
        fp: j.fp,
        charge: j.charge,
        line: buf.get(j.line.0..j.line.1).unwrap_or_default(),
        entity: buf.get(j.entity.0..j.entity.1).unwrap_or_default(),
    }
}

/// Where the jobs of a PBS log go, in file order: each checked job of a span (its ledger line
/// formatted, its fingerprint computed) is charged once or found already charged.
pub(crate) trait PbsSink {
    /// Charges one job; `Err` is a complaint that makes its record malformed (e.g. a charge
    /// that would overflow the usage).
    fn charge(&mut self, job: PreparedCharge<'_>) -> Result<(), String>;
    /// About `jobs` more jobs with `bytes` of ledger lines are coming (a hint to presize).
    fn reserve(&mut self, jobs: usize, bytes: usize) {
        let _ = (jobs, bytes);
    }
}

/// Reads a PBS log file or directory (every regular, non-hidden file in name order), charging
/// through `sink`; `marks` are used and updated; `skipped` counts the jobs of skipped prefixes
/// (all charged before).
pub(crate) fn read_pbs(
    path: &Path,
    how: &Files<'_>,
    marks: &mut Vec<Mark>,
    sink: &mut dyn PbsSink,
    malformed: &mut Vec<Malformed>,
    skipped: &mut u64,
) -> Result<ReadStats, UsageError> {
    let mut stats = ReadStats::default();
    for file in expand_inputs(path)? {
        stats += read_file(&file, how, marks, sink, malformed, skipped)?;
    }
    Ok(stats)
}

impl<'c> Files<'c> {
    /// How `usage record` reads PBS logs: chunks of [`CHUNK`] bytes, on every worker from
    /// [`PARALLEL_MIN_BYTES`] on.
    pub(crate) fn new(
        entity: FairshareEntity,
        charge: &'c dyn Charge,
        zone: &'c jiff::tz::TimeZone,
        progress: Option<&'c dyn Fn(u64, u64)>,
    ) -> Files<'c> {
        Files {
            entity,
            charge,
            zone,
            chunk: CHUNK,
            parallel_min: PARALLEL_MIN_BYTES,
            progress,
        }
    }
}

/// How a file is read: the reader's settings, the bytes per chunk, and from how many bytes to
/// read on every worker.
pub(crate) struct Files<'c> {
    entity: FairshareEntity,
    charge: &'c dyn Charge,
    /// The zone of the log's dates.
    zone: &'c jiff::tz::TimeZone,
    chunk: usize,
    parallel_min: usize,
    /// (bytes read, file size) after each round.
    progress: Option<&'c dyn Fn(u64, u64)>,
}

fn read_file(
    file: &Path,
    how: &Files<'_>,
    marks: &mut Vec<Mark>,
    sink: &mut dyn PbsSink,
    malformed: &mut Vec<Malformed>,
    skipped: &mut u64,
) -> Result<ReadStats, UsageError> {
    let (entity, charge) = (how.entity, how.charge);
    let bytes = log_bytes::open(file)?;
    let text: &[u8] = &bytes;
    let mut ra = PbsLogReader::new(entity, charge).in_zone(how.zone);
    let reader = ra.reader_id();
    let key = std::fs::canonicalize(file)
        .ok()
        .and_then(|p| p.to_str().map(str::to_string));
    let mut run = FileRun {
        file,
        stats: ReadStats::default(),
        complete_end: memchr::memrchr(b'\n', text).map_or(0, |i| i as u64 + 1),
        cut: None,
        jobs_before: 0,
        eval_before: 0,
    };
    let mut pos = 0usize;
    let mark = key.as_deref().and_then(|k| {
        marks
            .iter()
            .find(|m| m.file == k && m.reader == reader && m.offset <= run.complete_end)
            .filter(|m| m.matches(text))
    });
    if let Some(m) = mark {
        // The charged prefix: its counts as a full read would give them, its jobs all repeats.
        pos = usize::try_from(m.offset).unwrap_or(text.len());
        run.stats.bytes = m.offset;
        run.stats.lines = m.lines;
        run.stats.jobs = m.jobs;
        run.stats.eval_errors = m.eval_errors;
        run.jobs_before = m.jobs;
        run.eval_before = m.eval_errors;
        *skipped += m.jobs;
    }
    let first = pos;
    let chunks = Chunks::new(text, pos, how.chunk);
    let queue: Queue<PbsSpan> = Queue::new(chunks.len(), AHEAD);
    let parse = |reader: &mut PbsLogReader<'_>, i: usize, mut span: PbsSpan| {
        let r = chunks.range(i);
        log_bytes::populate(&bytes, r.clone());
        span.parse(reader, text.get(r).unwrap_or_default());
        span
    };
    // The calling thread: charges the chunks in file order, parsing whenever the next one is
    // not parsed yet.
    let mut consume = || {
        let _gone = queue.leaving(false);
        let (mut i, mut released) = (0usize, first);
        let (mut jobs, mut line_bytes, mut presized) = (0usize, 0usize, false);
        loop {
            match queue.next() {
                Next::Consume(mut span) => {
                    let r = chunks.range(i);
                    if !presized {
                        jobs += span.recs.len();
                        line_bytes += span.buf.len();
                    }
                    run.charge(&mut span, r.start, sink, malformed);
                    queue.consumed(span);
                    i += 1;
                    let done = r.end - first;
                    if !presized && (done >= PRESIZE_AFTER || r.end == text.len()) {
                        // The rest of the file, from what is charged so far.
                        presized = true;
                        let scale = (text.len() - r.end) as f64 / done.max(1) as f64 * 1.02;
                        sink.reserve(
                            (jobs as f64 * scale) as usize,
                            (line_bytes as f64 * scale) as usize,
                        );
                    }
                    let upto = r.end - r.end % PAGE;
                    if upto >= released + RELEASE_BYTES || r.end == text.len() {
                        log_bytes::release(&bytes, released..upto);
                        released = upto;
                        if let Some(report) = how.progress {
                            report(r.end as u64, text.len() as u64);
                        }
                    }
                }
                Next::Produce(j, span) => queue.publish(j, parse(&mut ra, j, span)),
                Next::Done => break,
            }
        }
    };
    if text.len() - first < how.parallel_min {
        consume();
    } else {
        // Every other worker parses with a reader of its own.
        let helper = || {
            let mut rb = PbsLogReader::new(entity, charge).in_zone(how.zone);
            let _gone = queue.leaving(true);
            while let Some((j, span)) = queue.claim_for_helper() {
                queue.publish(j, parse(&mut rb, j, span));
            }
        };
        crate::parallel::with_helpers(consume, helper);
    }
    if let Some(k) = key {
        let (offset, lines, jobs, eval_errors) = run.cut.unwrap_or_else(|| {
            let partial = u64::from(run.complete_end < text.len() as u64);
            (
                run.complete_end,
                run.stats.lines - partial,
                run.jobs_before,
                run.eval_before,
            )
        });
        marks.retain(|m| m.file != k);
        if let Some(h) = prefix_check(text, offset).filter(|_| offset > 0) {
            set_mark(
                marks,
                Mark {
                    file: k,
                    reader,
                    offset,
                    check: check_text(h),
                    lines,
                    jobs,
                    eval_errors,
                },
            );
        }
    }
    Ok(run.stats)
}

/// When every file of `inputs` (PBS logs, or directories of them) is charged to its very end by
/// a charged mark that still matches: the counts a full read would report, every job already
/// charged. `None` when anything is left to read (then [`crate::inputs::record`] reads it, with the
/// ledger). This needs neither the ledger nor a parse.
pub(crate) fn fully_charged(
    inputs: &[std::path::PathBuf],
    entity: FairshareEntity,
    charge: &dyn Charge,
    marks: &[Mark],
) -> Result<Option<(ReadStats, u64)>, UsageError> {
    let reader = PbsLogReader::new(entity, charge).reader_id();
    let (mut stats, mut jobs) = (ReadStats::default(), 0u64);
    for input in inputs {
        for file in expand_inputs(input)? {
            let Some(key) = std::fs::canonicalize(&file)
                .ok()
                .and_then(|p| p.to_str().map(str::to_string))
            else {
                return Ok(None);
            };
            let Some(m) = marks.iter().find(|m| m.file == key && m.reader == reader) else {
                return Ok(None);
            };
            let bytes = log_bytes::open(&file)?;
            if bytes.len() as u64 != m.offset || !m.matches(&bytes) {
                return Ok(None);
            }
            stats += ReadStats {
                bytes: m.offset,
                lines: m.lines,
                jobs: m.jobs,
                malformed: 0,
                eval_errors: m.eval_errors,
            };
            jobs += m.jobs;
        }
    }
    Ok(Some((stats, jobs)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::charge::ResourceCharge;
    use crate::usage::job::FinishedJob;
    use crate::usage::ledger::Ledger;
    use crate::usage::store::{PbsCharging, Usage, UsageStore};
    use std::io::Write;

    /// `jobs` jobs from `first` (Q, S and E lines), with malformed lines mixed in when `bad`.
    fn log(first: u64, jobs: u64, bad: bool) -> String {
        let mut s = String::new();
        for j in first..first + jobs {
            let user = j * 7919 % 97;
            s += &format!("04/13/2024 10:00:00;Q;{j}.srv;queue=workq\n");
            s += &format!("04/13/2024 10:00:01;S;{j}.srv;user=u{user} group=g exec_host=n{j}/0 Resource_List.ncpus=4 Resource_List.walltime=04:00:00 padding={}\n", "x".repeat(200));
            let cput = match (bad, j % 101) {
                (true, 3) => "abc".to_string(),
                (true, 5) => "-00:10:00".to_string(),
                _ => format!("{:02}:{:02}:{:02}", j % 24, j % 60, j % 59),
            };
            s += &format!("04/13/2024 11:00:00;E;{j}.srv;user=u{user} group=g queue=workq end={} Resource_List.ncpus=4 resources_used.cput={cput} resources_used.walltime=01:00:00 padding={}\n", 1_713_000_000 + j, "y".repeat(300));
            if bad && j % 211 == 7 {
                s += "garbage without separators\n\n";
            }
        }
        s
    }

    struct Run {
        usage: Usage,
        ledger: Ledger,
        report: Vec<String>,
        stats: ReadStats,
        charged: u64,
        repeated: u64,
    }

    /// The parallel reader's sink: [`Usage::try_charge_pbs`], counted.
    struct Fast<'a> {
        usage: PbsCharging,
        ledger: &'a mut Ledger,
        charged: &'a mut u64,
        repeated: &'a mut u64,
    }

    impl PbsSink for Fast<'_> {
        fn charge(&mut self, job: PreparedCharge<'_>) -> Result<(), String> {
            if self.usage.charge(self.ledger, &job)? {
                *self.charged += 1;
            } else {
                *self.repeated += 1;
            }
            Ok(())
        }
    }

    fn fresh() -> (Usage, Ledger) {
        (Usage::from_store(UsageStore::default()), Ledger::default())
    }

    /// Records `path` into `usage`/`ledger`: through the marks and the two-thread reader with
    /// `chunk`-byte chunks, or line by line with [`PbsLogReader::read`].
    fn run(path: &Path, chunk: Option<usize>, (mut usage, mut ledger): (Usage, Ledger)) -> Run {
        let c = ResourceCharge::new("cput");
        let (mut charged, mut repeated, mut skipped) = (0, 0, 0);
        let mut bad = Vec::new();
        let mut marks = std::mem::take(&mut usage.marks);
        let mut sink = |job: FinishedJob| -> Result<(), String> {
            if usage.try_charge(&mut ledger, &job)? {
                charged += 1;
            } else {
                repeated += 1;
            }
            Ok(())
        };
        let stats = match chunk {
            Some(chunk) => {
                let how = Files {
                    entity: FairshareEntity::Euser,
                    charge: &c,
                    zone: &jiff::tz::TimeZone::UTC,
                    chunk,
                    parallel_min: 0,
                    progress: None,
                };
                let mut fast = Fast {
                    usage: PbsCharging::new(&usage),
                    ledger: &mut ledger,
                    charged: &mut charged,
                    repeated: &mut repeated,
                };
                let stats =
                    read_file(path, &how, &mut marks, &mut fast, &mut bad, &mut skipped).unwrap();
                fast.usage.finish(&mut usage);
                stats
            }
            None => {
                let mut r = PbsLogReader::new(FairshareEntity::Euser, &c);
                let f = std::fs::File::open(path).unwrap();
                let mut f = std::io::BufReader::new(f);
                r.read(&mut f, path, &mut sink, &mut bad).unwrap()
            }
        };
        usage.marks = marks;
        Run {
            usage,
            ledger,
            report: bad.iter().map(ToString::to_string).collect(),
            stats,
            charged,
            repeated: repeated + skipped,
        }
    }

    fn bits(u: &Usage) -> Vec<(String, u64)> {
        u.entries()
            .map(|e| (e.name.clone(), e.usage.to_bits()))
            .collect()
    }

    fn ledger_text(l: &mut Ledger, dir: &Path, name: &str) -> String {
        let p = dir.join(name);
        l.append(&p, 0).unwrap();
        std::fs::read_to_string(&p).unwrap_or_default()
    }

    fn same(a: &mut Run, b: &mut Run, dir: &Path) {
        assert_eq!(bits(&a.usage), bits(&b.usage));
        assert_eq!(a.report, b.report);
        assert_eq!(a.stats, b.stats);
        assert_eq!((a.charged, a.repeated), (b.charged, b.repeated));
        assert_eq!(
            ledger_text(&mut a.ledger, dir, "a"),
            ledger_text(&mut b.ledger, dir, "b")
        );
    }

    #[test]
    fn parallel_equals_sequential_with_malformed_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("20240413");
        let mut text = log(1, 9000, true);
        text += "04/13/2024 11:00:00;E;partial.srv;user=zz end=17"; // no final newline
        std::fs::write(&path, &text).unwrap();
        assert!(text.len() > 5 * PARALLEL_MIN_BYTES);
        let mut seq = run(&path, None, fresh());
        assert!(
            seq.report.len() > 100 && seq.charged > 8000,
            "{}",
            seq.report.len()
        );
        for chunk in [
            4096 + 13,
            PARALLEL_MIN_BYTES,
            2 * PARALLEL_MIN_BYTES + 12345,
            CHUNK,
        ] {
            let mut par = run(&path, Some(chunk), fresh());
            same(&mut seq, &mut par, dir.path());
        }
    }

    /// Chunks of every small size cut records anywhere (inside a record, a `\r\n`, a line
    /// longer than several chunks); whichever thread parses a record, the result is the
    /// line-by-line reader's: with CRLF line ends, with and without a final newline.
    #[test]
    fn any_chunk_size_equals_sequential() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = log(1, 40, true);
        text += &format!(
            "04/13/2024 11:00:00;E;long.srv;user=u1 group=g end=1713000000 resources_used.cput=00:00:07 padding={}\n",
            "z".repeat(3000)
        );
        text += &log(41, 20, true);
        for (name, body) in [
            ("lf", text.clone()),
            (
                "lf-open",
                text.clone() + "04/13/2024 11:00:00;E;last.srv;user=zz end=17",
            ),
            ("crlf", text.replace('\n', "\r\n")),
            (
                "crlf-open",
                text.replace('\n', "\r\n") + "04/13/2024 11:00:00;E;x.srv;user=q\r",
            ),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, &body).unwrap();
            let mut seq = run(&path, None, fresh());
            assert!(seq.charged > 50 && !seq.report.is_empty(), "{name}");
            for chunk in [
                1,
                2,
                3,
                7,
                64,
                333,
                1000,
                4099,
                body.len() - 1,
                body.len() + 1,
            ] {
                let mut par = run(&path, Some(chunk), fresh());
                same(&mut seq, &mut par, dir.path());
            }
        }
    }

    #[test]
    fn re_recording_charges_nothing_and_needs_no_parse() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, log(1, 6000, false)).unwrap();
        let first = run(&path, Some(PARALLEL_MIN_BYTES), fresh());
        assert_eq!((first.charged, first.repeated), (6000, 0));
        let mark = first.usage.marks.first().cloned().unwrap();
        assert_eq!(mark.offset, std::fs::metadata(&path).unwrap().len());
        assert_eq!((mark.jobs, mark.lines), (6000, 18000));
        let c = ResourceCharge::new("cput");
        let done = fully_charged(
            std::slice::from_ref(&path),
            FairshareEntity::Euser,
            &c,
            &first.usage.marks,
        )
        .unwrap();
        assert_eq!(done, Some((first.stats, 6000)));
        // another reader setting is not covered by the mark
        let other = ResourceCharge::new("walltime");
        let none = fully_charged(
            std::slice::from_ref(&path),
            FairshareEntity::Euser,
            &other,
            &first.usage.marks,
        );
        assert_eq!(none.unwrap(), None);
        let before = bits(&first.usage);
        let mut again = run(&path, Some(PARALLEL_MIN_BYTES), (first.usage, first.ledger));
        assert_eq!((again.charged, again.repeated), (0, 6000));
        assert_eq!(again.stats, first.stats);
        assert_eq!(bits(&again.usage), before);
        assert_eq!(again.ledger.pending_jobs(), 6000);
        // the skip is real: with an empty ledger, nothing in the prefix is even looked at
        let (_, empty) = fresh();
        let skip = run(&path, Some(PARALLEL_MIN_BYTES), (again.usage, empty));
        assert_eq!((skip.charged, skip.repeated), (0, 6000));
        assert!(
            ledger_text(&mut again.ledger, dir.path(), "l")
                .lines()
                .count()
                == 6000
        );
    }

    #[test]
    fn an_appended_log_charges_only_the_new_part() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, log(1, 5000, false)).unwrap();
        let first = run(&path, Some(PARALLEL_MIN_BYTES), fresh());
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(log(5001, 700, false).as_bytes()).unwrap();
        drop(f);
        // with the real ledger: the new jobs only, as a full read would
        let mut whole = run(&path, None, fresh());
        let (_, l0) = fresh();
        let mut next = run(
            &path,
            Some(PARALLEL_MIN_BYTES),
            (first.usage.clone(), first.ledger),
        );
        assert_eq!((next.charged, next.repeated), (700, 5000));
        assert_eq!(next.stats, whole.stats);
        assert_eq!(bits(&next.usage), bits(&whole.usage));
        assert_eq!(
            ledger_text(&mut next.ledger, dir.path(), "a"),
            ledger_text(&mut whole.ledger, dir.path(), "b")
        );
        // the charged prefix was not parsed: an empty ledger charges only the new part
        let skip = run(&path, Some(PARALLEL_MIN_BYTES), (first.usage, l0));
        assert_eq!((skip.charged, skip.repeated), (700, 5000));
    }

    #[test]
    fn a_changed_prefix_is_read_again_and_nothing_is_charged_twice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let text = log(1, 5000, false);
        std::fs::write(&path, &text).unwrap();
        let first = run(&path, Some(PARALLEL_MIN_BYTES), fresh());
        let before = bits(&first.usage);
        // a charged job's user changed in place (same length), in the first block
        let changed = text.replacen("E;2.srv;user=u", "E;2.srv;user=v", 1);
        assert_ne!(changed, text);
        std::fs::write(&path, &changed).unwrap();
        let c = ResourceCharge::new("cput");
        let done = fully_charged(
            std::slice::from_ref(&path),
            FairshareEntity::Euser,
            &c,
            &first.usage.marks,
        );
        assert_eq!(done.unwrap(), None);
        let (_, l0) = fresh();
        let again = run(
            &path,
            Some(PARALLEL_MIN_BYTES),
            (first.usage.clone(), first.ledger),
        );
        assert_eq!((again.charged, again.repeated), (0, 5000));
        assert_eq!(bits(&again.usage), before);
        // read whole: with an empty ledger every job would be charged again
        let whole = run(&path, Some(PARALLEL_MIN_BYTES), (first.usage, l0));
        assert_eq!(whole.charged, 5000);
    }

    #[test]
    fn a_mark_stops_at_the_first_malformed_record_which_is_reported_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, log(1, 3000, true)).unwrap();
        let first = run(&path, Some(PARALLEL_MIN_BYTES), fresh());
        let mark = first.usage.marks.first().cloned().unwrap();
        assert!(mark.offset > 0 && mark.offset < std::fs::metadata(&path).unwrap().len());
        assert!(first.report[0].contains(&format!(":{}:", mark.lines + 1)));
        let again = run(&path, Some(PARALLEL_MIN_BYTES), (first.usage, first.ledger));
        assert_eq!(again.report, first.report);
        assert_eq!(again.stats, first.stats);
        assert_eq!(again.charged, 0);
        assert_eq!(again.repeated, first.charged);
    }
}
