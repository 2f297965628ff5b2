//! The ledger of already-charged jobs, `usage.ledger` in the home: one line per job,
//! `source<TAB>id<TAB>end<TAB>entity<TAB>account<TAB>charge` (account `-` when none). It is
//! append-only; `usage.toml` records how many bytes of it are committed, so a crash between the
//! append and the store's atomic rename leaves an uncommitted tail that is ignored and cut off.

use crate::mem::hash::SeededSet;
use crate::usage::checks::{check_name, check_usage};
use crate::usage::error::UsageError;
use crate::usage::job::{fingerprint, FinishedJob, Source};
use crate::usage::settings::check_time;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Charged-job fingerprints plus the lines not yet written.
#[derive(Debug, Default)]
pub struct Ledger {
    seen: SeededSet<u128>,
    pending: String,
    pending_jobs: u64,
}

/// The ledger is never opened through a symbolic link (docs/security.md).
const NOFOLLOW: i32 = rustix::fs::OFlags::NOFOLLOW.bits() as i32;

impl Ledger {
    /// Reads the first `committed` bytes of the ledger file (missing file = empty ledger).
    pub fn load(path: &Path, committed: u64) -> Result<Ledger, UsageError> {
        let mut ledger = Ledger::default();
        if committed == 0 {
            return Ok(ledger);
        }
        let f = OpenOptions::new()
            .read(true)
            .custom_flags(NOFOLLOW)
            .open(path)
            .map_err(|e| UsageError::io(path, e))?;
        let mut text = String::new();
        f.take(committed)
            .read_to_string(&mut text)
            .map_err(|e| UsageError::io(path, e))?;
        if (text.len() as u64) < committed {
            return Err(store_err(
                path,
                "ledger is shorter than the store says; it was truncated",
            ));
        }
        ledger.seen.reserve(text.len() / 48);
        for (n, line) in text.lines().enumerate() {
            let src = check_line(line).map_err(|(field, message)| {
                let column = line
                    .split('\t')
                    .take(field)
                    .map(|f| f.chars().count() + 1)
                    .sum::<usize>()
                    + 1;
                UsageError::Invalid {
                    path: path.to_path_buf(),
                    line: n + 1,
                    column,
                    message,
                }
            })?;
            let mut f = line.split('\t');
            let (id, end) = (f.nth(1).unwrap_or_default(), f.next().unwrap_or_default());
            let end = end.parse::<i64>().unwrap_or_default();
            if !ledger.seen.insert(fingerprint(src, id, end)) {
                return Err(UsageError::Invalid {
                    path: path.to_path_buf(),
                    line: n + 1,
                    column: 1,
                    message: format!("job {} {id} ending at {end} appears twice", src.name()),
                });
            }
        }
        Ok(ledger)
    }

    /// True (and remembered) when the job was not charged before; false for a repeat.
    pub(crate) fn admit(&mut self, job: &FinishedJob) -> bool {
        if !self.seen.insert(fingerprint(job.source, &job.id, job.end)) {
            return false;
        }
        let _ = writeln!(
            self.pending,
            "{}\t{}\t{}\t{}\t{}\t{}",
            job.source.name(),
            job.id,
            job.end,
            clean(&job.entity),
            job.account.as_deref().map_or(Cow::Borrowed("-"), clean),
            job.charge
        );
        self.pending_jobs += 1;
        true
    }

    /// [`Ledger::admit`] of a PBS job whose fingerprint and ledger line (with its `\n`) were
    /// made on a parsing thread (`pbs_span`).
    pub(crate) fn admit_line(&mut self, fp: u128, line: &str) -> bool {
        if !self.seen.insert(fp) {
            return false;
        }
        self.pending.push_str(line);
        self.pending_jobs += 1;
        true
    }

    /// Room for `jobs` more jobs and `bytes` more pending ledger text.
    pub(crate) fn reserve(&mut self, jobs: usize, bytes: usize) {
        self.seen.reserve(jobs);
        self.pending.reserve(bytes);
    }

    /// Jobs known to the ledger (committed and pending).
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// True when no job was ever charged.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// Bytes of pending lines (what [`Ledger::append`] writes).
    pub fn pending_bytes(&self) -> usize {
        self.pending.len()
    }

    /// The committed length after [`Ledger::append`] at `committed` succeeds.
    pub fn length_after(&self, committed: u64) -> u64 {
        committed + self.pending.len() as u64
    }

    /// Jobs admitted since load.
    pub fn pending_jobs(&self) -> u64 {
        self.pending_jobs
    }

    /// Cuts the file to `committed` bytes (dropping any uncommitted tail), appends the pending
    /// lines and syncs. Returns the new committed length, to store in `usage.toml`.
    pub fn append(&mut self, path: &Path, committed: u64) -> Result<u64, UsageError> {
        if self.pending.is_empty() {
            return Ok(committed);
        }
        let mut f = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(false)
            .custom_flags(NOFOLLOW)
            .mode(0o644)
            .open(path)
            .map_err(|e| UsageError::io(path, e))?;
        f.set_len(committed).map_err(|e| UsageError::io(path, e))?;
        use std::io::Seek;
        f.seek(std::io::SeekFrom::Start(committed))
            .map_err(|e| UsageError::io(path, e))?;
        f.write_all(self.pending.as_bytes())
            .and_then(|_| f.sync_data())
            .map_err(|e| UsageError::io(path, e))?;
        let len = committed + self.pending.len() as u64;
        self.pending.clear();
        Ok(len)
    }
}

/// Checks one ledger line (`source id end entity account charge`, tab-separated): its source, or
/// the index of the first bad field and why.
fn check_line(line: &str) -> Result<Source, (usize, String)> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 6 {
        return Err((
            0,
            format!(
                "a ledger line has 6 tab-separated fields, this one {}",
                f.len()
            ),
        ));
    }
    let src = Source::parse(f[0]).ok_or((0, format!("unknown source `{}`", f[0])))?;
    check_name(f[1]).map_err(|m| (1, format!("job id: {m}")))?;
    let end = f[2]
        .parse::<i64>()
        .map_err(|_| (2, format!("end time `{}` is not an integer", f[2])))?;
    check_time("end time", end).map_err(|e| (2, e.to_string()))?;
    check_name(f[3]).map_err(|m| (3, format!("entity: {m}")))?;
    check_name(f[4]).map_err(|m| (4, format!("account: {m}")))?;
    let charge = f[5]
        .parse::<f64>()
        .map_err(|_| (5, format!("charge `{}` is not a number", f[5])))?;
    check_usage(charge).map_err(|m| (5, format!("charge: {m}")))?;
    Ok(src)
}

fn clean(s: &str) -> Cow<'_, str> {
    if s.contains(['\t', '\n', '\r']) {
        Cow::Owned(s.replace(['\t', '\n', '\r'], " "))
    } else {
        Cow::Borrowed(s)
    }
}

fn store_err(path: &Path, message: &str) -> UsageError {
    UsageError::Store {
        path: PathBuf::from(path),
        message: message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str, end: i64) -> FinishedJob {
        FinishedJob::pbs(id, end, "alice", 10.0)
    }

    #[test]
    fn admits_once_and_survives_reload_and_crash_tail() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("usage.ledger");
        let mut l = Ledger::load(&p, 0).unwrap();
        assert!(l.admit(&job("1.s", 5)));
        assert!(!l.admit(&job("1.s", 5)));
        assert!(l.admit(&job("1.s", 6)));
        let committed = l.append(&p, 0).unwrap();
        // an uncommitted tail from a crash
        std::fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .unwrap()
            .write_all(b"pbs\t9.s\t1\tx\t-\t1\n")
            .unwrap();
        let mut l2 = Ledger::load(&p, committed).unwrap();
        assert_eq!(l2.len(), 2);
        assert!(!l2.admit(&job("1.s", 6)));
        assert!(l2.admit(&job("9.s", 1)));
        let c2 = l2.append(&p, committed).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text.len() as u64, c2);
        assert_eq!(text.lines().count(), 3);
        assert!(Ledger::load(&p, c2 + 10).is_err());
    }

    #[test]
    fn hand_edited_lines_are_checked_with_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("usage.ledger");
        for (text, want) in [
            (
                "pbs\t1\t5\ta\t-\t1\nslurm\t2\t5\tb\tacc\t-3\n",
                ":2:17: charge: usage must be a finite number >= 0, got -3",
            ),
            (
                "pbs\t1\t5\ta\t-\tNaN\n",
                ":1:13: charge: usage must be a finite number >= 0, got NaN",
            ),
            ("pbs\t1\t-5\ta\t-\t1\n", ":1:7: end time -5 is outside"),
            ("lsf\t1\t5\ta\t-\t1\n", ":1:1: unknown source `lsf`"),
            (
                "pbs\t1\t5\ta\n",
                ":1:1: a ledger line has 6 tab-separated fields, this one 4",
            ),
            ("pbs\t1\t5\ta\u{1b}\t-\t1\n", ":1:9: entity: name"),
            (
                "pbs\t1\t5\ta\t-\t1\npbs\t1\t5\tb\t-\t2\n",
                ":2:1: job pbs 1 ending at 5 appears twice",
            ),
        ] {
            std::fs::write(&p, text).unwrap();
            let e = Ledger::load(&p, text.len() as u64).unwrap_err().to_string();
            let want = format!("{}{want}", p.display());
            assert!(e.starts_with(&want), "{e}\n{want}");
        }
    }
}
