//! Reading a job file whatever its format: `qstat -f -F json`, fairsort's JSON list or CSV,
//! chosen explicitly or detected from the extension and first bytes.

use crate::jobs::error::JobsError;
use crate::jobs::job_set::JobSet;
use crate::mem::read_file::{FileBytes, Pages};
use crate::native::{read_job_list_csv, read_job_list_json};
use crate::pbs::qstat::read_qstat_json_paged;
use crate::slurm::squeue::{read_squeue_json, read_squeue_pipe, to_job_set, SlurmJob};
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

    /// Guesses from the file name and first bytes: `.csv` → CSV; a JSON object with a `"Jobs"`
    /// key near the start (qstat prints it after three short header fields) → qstat; other
    /// JSON → `flux jobs --json` when it has `"userid"` and `"urgency"`; other
    /// JSON → `squeue --json` when it has a `"job_id"` or Slurm's `"meta"` block, else fairsort's
    /// list; text whose first line starts with `JOBID` and has a `|` → `squeue` pipe output;
    /// anything else → CSV.
    pub fn detect(name: &str, head: &[u8]) -> JobsFormat {
        if name.to_ascii_lowercase().ends_with(".csv") {
            return JobsFormat::Csv;
        }
        let text = String::from_utf8_lossy(&head[..head.len().min(DETECT_HEAD)]);
        let trimmed = text.trim_start();
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            if text.contains("\"Jobs\"") || text.contains("\"pbs_version\"") {
                JobsFormat::Qstat
            } else if crate::flux::jobs::looks_like_flux_jobs(&text) {
                JobsFormat::FluxJobs
            } else if text.contains("\"job_id\"")
                || (text.contains("\"meta\"") && text.to_ascii_lowercase().contains("slurm"))
            {
                JobsFormat::SqueueJson
            } else {
                JobsFormat::Json
            }
        } else {
            let first = trimmed.lines().next().unwrap_or("").trim_start();
            if first.to_ascii_uppercase().starts_with("JOBID") && first.contains('|') {
                JobsFormat::SqueuePipe
            } else {
                JobsFormat::Csv
            }
        }
    }
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

/// How many bytes of a jobs file the detector reads.
pub const DETECT_HEAD: usize = 4096;

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

/// Parses job file bytes in `format` (detected from `name` and content when `None`).
pub fn read_jobs_bytes(
    name: &str,
    bytes: &[u8],
    format: Option<JobsFormat>,
) -> Result<JobSet, JobsError> {
    read_jobs(name, bytes, Pages::none(), format)
}

/// [`read_jobs_bytes`] over a whole file as [`read_file`](crate::mem::read_file()) gives it: a
/// mapped `qstat` file is held a few windows at a time, not whole.
pub fn read_jobs_file(
    name: &str,
    file: &FileBytes,
    format: Option<JobsFormat>,
) -> Result<JobSet, JobsError> {
    read_jobs(name, file, file.pages(), format)
}

fn read_jobs(
    name: &str,
    bytes: &[u8],
    pages: Pages,
    format: Option<JobsFormat>,
) -> Result<JobSet, JobsError> {
    match format.unwrap_or_else(|| JobsFormat::detect(name, bytes)) {
        JobsFormat::Qstat => read_qstat_json_paged(bytes, pages),
        JobsFormat::Json => read_job_list_json(bytes),
        JobsFormat::Csv => read_job_list_csv(bytes),
        JobsFormat::SqueueJson => to_job_set(&read_squeue_json(name, bytes)?),
        JobsFormat::SqueuePipe => to_job_set(&read_squeue_pipe(name, bytes)?),
        JobsFormat::FluxJobs => Err(JobsError::Json {
            message: format!(
                "{name}: `flux jobs --json` output: flux priorities come from mf_priority \
                 (`fairsort order --jobs {name} --tree accounting.db`), not from a formula"
            ),
        }),
    }
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
