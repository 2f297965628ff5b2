//! The step every record reader (PBS log, `sacct -P`, flux-accounting `jobs`) takes with one
//! record: count it in the `ReadStats`, and pass its job on or keep its complaint.

use super::error::Malformed;
use super::job::FinishedJob;
use super::pbs_log::ReadStats;
use std::path::Path;

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

    /// One record's outcome: a job is counted and handed to `sink`; `Ok(None)`, a well-formed
    /// record that charges nothing, is passed over; a complaint is skipped as malformed.
    pub(crate) fn take(
        &mut self,
        record: Result<Option<FinishedJob>, String>,
        sink: &mut dyn FnMut(FinishedJob),
        malformed: &mut Vec<Malformed>,
        file: &Path,
        line: u64,
    ) {
        match record {
            Ok(Some(job)) => {
                self.jobs += 1;
                sink(job);
            }
            Ok(None) => {}
            Err(message) => self.skip(malformed, file, line, message),
        }
    }
}
