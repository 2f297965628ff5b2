//! Workload traces: the jobs a site really ran, as the replay needs them — submit time, real run
//! time (end − start), requested walltime, size in cores, user, group/account and queue. The
//! recorded start is used only for the run time. Readers: the Standard Workload Format (SWF) of
//! the Parallel Workloads Archive, PBS accounting logs (`E` records, with `Q` records for the
//! submit time when `E` lacks `qtime`), Slurm `sacct -P` and `sacct --json`, and a
//! flux-accounting database's `jobs` table, each through its adapter's one reader (the one
//! `usage record` uses), in `swf_trace`, `pbs_trace`, `sacct_trace` and `flux_trace`; the jobs
//! and traces they make are in `trace_job`.

use crate::replay::pbs_trace::PbsTrace;
use crate::replay::swf_trace::read_swf_trace;
pub use crate::replay::trace_job::{Trace, TraceError, TraceFormat, TraceJob};
use std::path::{Path, PathBuf};

/// Guesses a format from a file's first meaningful line.
pub fn detect(text: &str) -> Option<TraceFormat> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    if first.trim_start().starts_with('{') {
        return Some(TraceFormat::Sacct);
    }
    if first.trim_start().starts_with(';') {
        return Some(TraceFormat::Swf);
    }
    if first.contains('|') {
        return Some(TraceFormat::Sacct);
    }
    if first.split(';').nth(1).is_some_and(|k| k.len() == 1) {
        return Some(TraceFormat::Pbs);
    }
    let n = first.split_whitespace().count();
    (n == 18).then_some(TraceFormat::Swf)
}

/// Reads a trace file (PBS: also a directory of daily files, in name order).
pub fn read_trace(path: &Path, format: Option<TraceFormat>) -> Result<Trace, TraceError> {
    read_trace_in(path, format, &jiff::tz::TimeZone::UTC)
}

/// [`read_trace`] with the dates of PBS accounting logs and `sacct -P` rows, which carry no zone,
/// read as wall-clock time in `zone` (the site's: both schedulers write local time).
pub fn read_trace_in(
    path: &Path,
    format: Option<TraceFormat>,
    zone: &jiff::tz::TimeZone,
) -> Result<Trace, TraceError> {
    let io = |e| TraceError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    if format == Some(TraceFormat::Flux)
        || (format.is_none() && crate::replay::flux_trace::is_sqlite(path))
    {
        let mut trace = Trace::default();
        crate::replay::flux_trace::read_flux_trace(path, &mut trace)?;
        return Ok(trace);
    }
    let files: Vec<PathBuf> = if path.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(io)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && !p
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with('.'))
            })
            .collect();
        v.sort();
        v
    } else {
        vec![path.to_path_buf()]
    };
    let mut texts = Vec::with_capacity(files.len());
    for f in &files {
        let bytes = std::fs::read(f).map_err(|e| TraceError::Io {
            path: f.clone(),
            source: e,
        })?;
        texts.push((f.clone(), String::from_utf8_lossy(&bytes).into_owned()));
    }
    let format = match format {
        Some(f) => f,
        None => texts
            .first()
            .and_then(|(_, t)| detect(t))
            .ok_or_else(|| TraceError::Unknown {
                path: path.to_path_buf(),
            })?,
    };
    let mut trace = Trace::default();
    match format {
        TraceFormat::Swf => {
            for (p, t) in &texts {
                read_swf_trace(t, p, &mut trace)?;
            }
        }
        TraceFormat::Sacct => {
            for (p, t) in &texts {
                if t.trim_start().starts_with('{') {
                    crate::replay::sacct_trace::read_sacct_json(t.as_bytes(), p, &mut trace)?;
                } else {
                    crate::replay::sacct_trace::read_sacct(t.as_bytes(), p, zone, &mut trace)?;
                }
            }
        }
        TraceFormat::Flux => unreachable_flux(path)?,
        TraceFormat::Pbs => {
            let mut reader = PbsTrace::in_zone(zone);
            for (p, t) in &texts {
                reader.read(t.as_bytes(), p, &mut trace)?;
            }
        }
    }
    Ok(trace)
}

/// The flux format is read from the database before the text path (`read_trace`).
fn unreachable_flux(path: &Path) -> Result<(), TraceError> {
    Err(TraceError::Unknown {
        path: path.to_path_buf(),
    })
}
