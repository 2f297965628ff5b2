//! Reading a job file whatever its format: `qstat -f -F json`, fairsort's JSON list or CSV,
//! chosen explicitly or detected from the extension and first bytes.

use crate::inputs::json_top::{json_kind, JsonKind};
use crate::jobs::error::{shown_name, JobsError};
use crate::jobs::job_set::JobSet;
use crate::mem::read_file::{FileBytes, Pages};
use crate::native::joblist::{read_job_list_csv_named, read_job_list_json_named};
use crate::pbs::qstat::read_qstat_named;
use crate::slurm::squeue::{read_squeue_json, read_squeue_pipe, to_job_set, SlurmJob};
use jiff::tz::TimeZone;
use std::fmt;
use std::str::FromStr;

/// The job file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobsFormat {
    /// PBS `qstat -f -F json`.
    Qstat,
    /// fairsort's JSON job list.
    Json,
    /// fairsort's CSV job list.
    Csv,
    /// Slurm `squeue --json` (21.08 to 24.x).
    SqueueJson,
    /// Slurm `squeue` output with a header and `|` between fields.
    SqueuePipe,
    /// flux `flux jobs --json` (for flux-accounting's `mf_priority`).
    FluxJobs,
}

impl JobsFormat {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            JobsFormat::Qstat => "qstat",
            JobsFormat::Json => "json",
            JobsFormat::Csv => "csv",
            JobsFormat::SqueueJson => "squeue-json",
            JobsFormat::SqueuePipe => "squeue",
            JobsFormat::FluxJobs => "flux-jobs",
        }
    }

    /// Guesses from the file name and the text's structure: `.csv` → CSV; JSON → by its
    /// top-level keys, JSON-tokenised (`inputs::json_top`): qstat's `Jobs`, `timestamp`,
    /// `pbs_version` or `pbs_server` → qstat; Slurm's `meta` or a first job with Slurm's
    /// fields → `squeue --json`; a first job with flux's `userid` or `urgency` → `flux jobs
    /// --json`; an array or `jobs` of fairsort's fields → fairsort's list; text whose first
    /// line starts with `JOBID` and has a `|` → `squeue` pipe output; anything else → CSV. A
    /// UTF-8 byte order mark is skipped.
    pub fn detect(name: &str, head: &[u8]) -> JobsFormat {
        if name.to_ascii_lowercase().ends_with(".csv") {
            return JobsFormat::Csv;
        }
        let head = without_bom(head);
        match json_kind(head) {
            Some(JsonKind::Qstat) => JobsFormat::Qstat,
            Some(JsonKind::Squeue) => JobsFormat::SqueueJson,
            Some(JsonKind::Flux) => JobsFormat::FluxJobs,
            Some(JsonKind::List) => JobsFormat::Json,
            None => {
                let text = String::from_utf8_lossy(&head[..head.len().min(DETECT_HEAD)]);
                let first = text.trim_start().lines().next().unwrap_or("").trim_start();
                if first.to_ascii_uppercase().starts_with("JOBID") && first.contains('|') {
                    JobsFormat::SqueuePipe
                } else {
                    JobsFormat::Csv
                }
            }
        }
    }
}

/// `bytes` without a leading UTF-8 byte order mark (an editor's, on a hand-written list).
fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

/// Which scheduler's path a jobs file takes: a PBS queue (or fairsort's lists) is ordered by a
/// formula, a Slurm queue by multifactor priority when a `slurm.conf` is known, a flux queue by
/// `mf_priority`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobsScheduler {
    /// `qstat -f -F json` and fairsort's JSON and CSV lists.
    Pbs,
    /// `squeue --json` and `squeue` pipe output.
    Slurm,
    /// `flux jobs --json`.
    Flux,
}

/// How many bytes of a jobs file the detector reads from a file on disk: its top-level keys
/// and first job come well within them (qstat prints its three header fields, then `Jobs`).
pub const DETECT_HEAD: usize = 64 << 10;

impl JobsFormat {
    /// The scheduler whose queue this format is.
    pub fn scheduler(self) -> JobsScheduler {
        match self {
            JobsFormat::Qstat | JobsFormat::Json | JobsFormat::Csv => JobsScheduler::Pbs,
            JobsFormat::SqueueJson | JobsFormat::SqueuePipe => JobsScheduler::Slurm,
            JobsFormat::FluxJobs => JobsScheduler::Flux,
        }
    }

    /// [`JobsFormat::detect`] on the first [`DETECT_HEAD`] bytes of the file at `path` (the rest
    /// is not read).
    pub fn detect_file(path: &std::path::Path) -> std::io::Result<JobsFormat> {
        use std::io::Read;
        let mut head = Vec::with_capacity(DETECT_HEAD);
        std::fs::File::open(path)?
            .take(DETECT_HEAD as u64)
            .read_to_end(&mut head)?;
        Ok(JobsFormat::detect(&path.to_string_lossy(), &head))
    }
}

impl fmt::Display for JobsFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for JobsFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "qstat" => Ok(JobsFormat::Qstat),
            "json" => Ok(JobsFormat::Json),
            "csv" => Ok(JobsFormat::Csv),
            "squeue-json" => Ok(JobsFormat::SqueueJson),
            "squeue" => Ok(JobsFormat::SqueuePipe),
            "flux-jobs" => Ok(JobsFormat::FluxJobs),
            _ => Err(format!(
                "unknown jobs format `{s}` (expected one of: qstat, json, csv, squeue-json, squeue, flux-jobs)"
            )),
        }
    }
}

/// Parses job file bytes in `format` (detected from `name` and content when `None`); dates
/// in UTC.
pub fn read_jobs_bytes(
    name: &str,
    bytes: &[u8],
    format: Option<JobsFormat>,
) -> Result<JobSet, JobsError> {
    read_jobs(name, bytes, Pages::none(), format, &TimeZone::UTC)
}

/// [`read_jobs_bytes`] over a whole file as [`read_file`](crate::mem::read_file()) gives it: a
/// mapped `qstat` file is held a few windows at a time, not whole.
pub fn read_jobs_file(
    name: &str,
    file: &FileBytes,
    format: Option<JobsFormat>,
) -> Result<JobSet, JobsError> {
    read_jobs(name, file, file.pages(), format, &TimeZone::UTC)
}

/// [`read_jobs_bytes`] with the date strings read in `zone`.
pub fn read_jobs_bytes_in(
    name: &str,
    bytes: &[u8],
    format: Option<JobsFormat>,
    zone: &TimeZone,
) -> Result<JobSet, JobsError> {
    read_jobs(name, bytes, Pages::none(), format, zone)
}

/// [`read_jobs_file`] with the file's date strings (qstat's `qtime` and `stime`, a list's dates
/// without a zone) read in `zone`, the site's clock.
pub fn read_jobs_file_in(
    name: &str,
    file: &FileBytes,
    format: Option<JobsFormat>,
    zone: &TimeZone,
) -> Result<JobSet, JobsError> {
    read_jobs(name, file, file.pages(), format, zone)
}

/// Every error names the file (`<stdin>` for `-`), with its line and column where known.
fn read_jobs(
    name: &str,
    bytes: &[u8],
    pages: Pages,
    format: Option<JobsFormat>,
    zone: &TimeZone,
) -> Result<JobSet, JobsError> {
    let shown = shown_name(name);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(JobsError::at(
            shown,
            0,
            0,
            "the file is empty: no jobs and no header",
        ));
    }
    let (bytes, pages) = match without_bom(bytes) {
        b if b.len() == bytes.len() => (b, pages),
        // A mapped file's windows are of the whole text: the shorter one is read plainly.
        b => (b, Pages::none()),
    };
    let result = match format.unwrap_or_else(|| JobsFormat::detect(name, bytes)) {
        JobsFormat::Qstat => read_qstat_named(shown, bytes, pages, zone),
        JobsFormat::Json => read_job_list_json_named(shown, bytes, zone),
        JobsFormat::Csv => read_job_list_csv_named(shown, bytes, zone),
        JobsFormat::SqueueJson => read_squeue_json(shown, bytes).and_then(|j| to_job_set(&j)),
        JobsFormat::SqueuePipe => read_squeue_pipe(shown, bytes).and_then(|j| to_job_set(&j)),
        JobsFormat::FluxJobs => Err(JobsError::Json {
            message: format!(
                "{shown}: `flux jobs --json` output: flux priorities come from mf_priority \
                 (`fairsort order --jobs {name} --tree accounting.db`), not from a formula"
            ),
        }),
    };
    result.map_err(|e| e.in_file(shown))
}

/// Reads a Slurm job file (`squeue --json` or `squeue` pipe output; detected when `format` is
/// `None`) as [`SlurmJob`]s, for the multifactor priority.
pub fn read_slurm_jobs(
    name: &str,
    bytes: &[u8],
    format: Option<JobsFormat>,
) -> Result<Vec<SlurmJob>, JobsError> {
    match format.unwrap_or_else(|| JobsFormat::detect(name, bytes)) {
        JobsFormat::SqueueJson => read_squeue_json(name, bytes),
        JobsFormat::SqueuePipe => read_squeue_pipe(name, bytes),
        other => Err(JobsError::Json {
            message: format!(
                "{name}: Slurm priorities need squeue --json or squeue pipe output, this is {other}"
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        assert_eq!(
            JobsFormat::detect(
                "q.json",
                b"{\n \"timestamp\":1,\n \"pbs_version\":\"x\",\n \"Jobs\":{}}"
            ),
            JobsFormat::Qstat
        );
        assert_eq!(
            JobsFormat::detect("l.json", b"{\"jobs\":[]}"),
            JobsFormat::Json
        );
        assert_eq!(JobsFormat::detect("l.json", b"[]"), JobsFormat::Json);
        assert_eq!(JobsFormat::detect("l.CSV", b"{"), JobsFormat::Csv);
        assert_eq!(JobsFormat::detect("-", b"id,user\n"), JobsFormat::Csv);
        assert_eq!(
            read_jobs_bytes("-", b"id,user\n1,a\n", None).unwrap().len(),
            1
        );
        assert!("xml".parse::<JobsFormat>().is_err());
        assert_eq!(
            JobsFormat::detect(
                "q.json",
                b"{\"meta\":{\"plugin\":{\"type\":\"openapi/slurmctld\"}},\"jobs\":[]}"
            ),
            JobsFormat::SqueueJson
        );
        assert_eq!(
            JobsFormat::detect("-", b"JOBID|USER|PARTITION\n1|a|b\n"),
            JobsFormat::SqueuePipe
        );
        assert_eq!(
            JobsFormat::detect(
                "flux.json",
                br#"{"jobs": [{"id": 1, "userid": 5011, "urgency": 16, "state": "SCHED"}]}"#
            ),
            JobsFormat::FluxJobs
        );
        assert_eq!("flux-jobs".parse::<JobsFormat>(), Ok(JobsFormat::FluxJobs));
        assert_eq!(JobsFormat::FluxJobs.scheduler(), JobsScheduler::Flux);
        assert_eq!(JobsFormat::SqueuePipe.scheduler(), JobsScheduler::Slurm);
        assert_eq!(JobsFormat::Qstat.scheduler(), JobsScheduler::Pbs);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("q.json");
        let mut big = b"{\"timestamp\":1,\"pbs_version\":\"x\",\"Jobs\":{".to_vec();
        big.resize(1 << 20, b' ');
        std::fs::write(&p, &big).unwrap();
        assert_eq!(JobsFormat::detect_file(&p).unwrap(), JobsFormat::Qstat);
        assert!(read_jobs_bytes(
            "f.json",
            br#"{"jobs":[{"id":1,"userid":2,"urgency":3}]}"#,
            None
        )
        .unwrap_err()
        .to_string()
        .contains("mf_priority"));
    }
}
