//! The step every record reader (PBS log, `sacct -P`, flux-accounting `jobs`) takes with one
//! record: count it in the `ReadStats`, and pass its job on or keep its complaint.

use crate::usage::error::Malformed;
use crate::usage::job::FinishedJob;
use crate::usage::settings::check_time;
use crate::usage::store::{check_name, check_usage};
use std::path::Path;

/// What every reader's job must satisfy before it is charged.
fn check_job(job: &FinishedJob) -> Result<(), String> {
    check_name(&job.id).map_err(|m| format!("job id: {m}"))?;
    check_name(&job.entity).map_err(|m| format!("entity: {m}"))?;
    if let Some(a) = &job.account {
        check_name(a).map_err(|m| format!("account: {m}"))?;
    }
    check_usage(job.charge).map_err(|m| format!("charge: {m}"))?;
    check_time("end time", job.end).map_err(|e| e.to_string())
}

/// Counts of one read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReadStats {
    /// Bytes read.
    pub bytes: u64,
    /// Lines read.
    pub lines: u64,
    /// Finished-job records passed on.
    pub jobs: u64,
    /// Malformed records skipped.
    pub malformed: u64,
    /// Jobs whose charge failed to evaluate (charged 0, as PBS does).
    pub eval_errors: u64,
}

impl std::ops::AddAssign for ReadStats {
    fn add_assign(&mut self, o: Self) {
        self.bytes += o.bytes;
        self.lines += o.lines;
        self.jobs += o.jobs;
        self.malformed += o.malformed;
        self.eval_errors += o.eval_errors;
    }
}

impl ReadStats {
    /// Counts a malformed record, at line (or row id) `line` of `file`, and keeps its report.
    pub(crate) fn skip(
        &mut self,
        malformed: &mut Vec<Malformed>,
        file: &Path,
        line: u64,
        message: String,
    ) {
        self.malformed += 1;
        malformed.push(Malformed {
            file: file.to_path_buf(),
            line,
            message,
        });
    }

    /// One record's outcome: a job is checked (names without control characters, a finite
    /// charge >= 0, an end time in range), counted and handed to `sink`; `Ok(None)`, a
    /// well-formed record that charges nothing, is passed over; a complaint — the reader's, the
    /// check's or the sink's (e.g. a charge that would overflow the usage) — is skipped as
    /// malformed, with the record's file and line.
    pub(crate) fn take(
        &mut self,
        record: Result<Option<FinishedJob>, String>,
        sink: &mut dyn FnMut(FinishedJob) -> Result<(), String>,
        malformed: &mut Vec<Malformed>,
        file: &Path,
        line: u64,
    ) {
        let outcome = record.and_then(|job| match job {
            Some(job) => {
                check_job(&job)?;
                sink(job)?;
                Ok(true)
            }
            None => Ok(false),
        });
        match outcome {
            Ok(true) => self.jobs += 1,
            Ok(false) => {}
            Err(message) => self.skip(malformed, file, line, message),
        }
    }
}
