//! `sacct --json` as a replay trace (data_parser v0.0.37 to v0.0.41): each job through
//! `queue::slurm_sacct::sacct_job` (the reader `fairsort order` uses: `job_id`/`array`, `user`,
//! `account`, `partition`, `qos`, `time.submission`, `time.limit` in minutes, `required.CPUs`,
//! `tres.requested`), plus what a replay needs of a job that ran: `time.start`, `time.end` and
//! the allocated CPUs (`tres.allocated` `cpu`). Steps are nested in their job (`steps`), so every
//! element of `jobs` is a job.

use crate::replay::trace::{Trace, TraceError, TraceJob};
use crate::slurm::sacct_json::sacct_job;
use crate::slurm::squeue::{number, text, Num, TimeLimit};
use serde_json::Value;
use std::path::Path;

fn json_err(path: &Path, message: impl Into<String>) -> TraceError {
    TraceError::Json {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// A TRES count of `tres.<kind>` (`allocated` or `requested`) of type `ty` (no name), if any.
pub(crate) fn tres_count(j: &Value, kind: &str, ty: &str) -> Option<f64> {
    j.get("tres")?
        .get(kind)?
        .as_array()?
        .iter()
        .filter(|t| text(t.get("type")).eq_ignore_ascii_case(ty) && text(t.get("name")).is_empty())
        .find_map(|t| match t.get("count").map(number) {
            Some(Ok(Num::Value(c))) => Some(c),
            _ => None,
        })
}

/// Reads a `sacct --json` document into `trace`. Jobs without a start (never ran) or an end
/// (still running) are left out and counted; a job without a size (no allocated or required
/// CPUs) too; a field of the wrong type is an error naming the file, the job and the field.
pub fn read_sacct_json(bytes: &[u8], path: &Path, trace: &mut Trace) -> Result<(), TraceError> {
    let doc: Value =
        serde_json::from_slice(bytes).map_err(|e| json_err(path, format!("sacct --json: {e}")))?;
    let Some(jobs) = doc.get("jobs").and_then(Value::as_array) else {
        return Err(json_err(path, "sacct --json: no `jobs` list"));
    };
    let name = path.display().to_string();
    for (i, j) in jobs.iter().enumerate() {
        let sj = sacct_job(&name, i, j).map_err(|e| json_err(path, e.to_string()))?;
        let time = |k: &str| -> Result<Option<i64>, TraceError> {
            match j.get("time").and_then(|t| t.get(k)).map(number) {
                Some(Ok(Num::Value(v))) if v > 0.0 => Ok(Some(v as i64)),
                None | Some(Ok(_)) => Ok(None),
                Some(Err(m)) => Err(json_err(path, format!("job `{}`: time.{k}: {m}", sj.id))),
            }
        };
        let (start, end) = (time("start")?, time("end")?);
        if sj.submit_time <= 0 {
            return Err(json_err(
                path,
                format!("job `{}`: no time.submission", sj.id),
            ));
        }
        let Some(start) = start else {
            trace.leave_out("never started");
            continue;
        };
        let Some(end) = end else {
            trace.leave_out("not ended");
            continue;
        };
        let alloc = tres_count(j, "allocated", "cpu").filter(|&c| c >= 1.0);
        let cores = match alloc {
            Some(c) => c as u64,
            None => u64::from(sj.cpus),
        };
        if cores == 0 {
            trace.leave_out("no size");
            continue;
        }
        let walltime = match sj.time_limit {
            TimeLimit::Minutes(m) => Some(i64::from(m) * 60),
            _ => None,
        };
        // Memory: the requested TRES `mem` (MB, the job's total), else the allocated one.
        let mem_mb = sj
            .tres
            .iter()
            .find(|(n, _)| n == "mem")
            .map(|t| t.1)
            .or_else(|| tres_count(j, "allocated", "mem"))
            .unwrap_or(0.0);
        let account = if sj.account.is_empty() {
            text(j.get("group"))
        } else {
            sj.account.clone()
        };
        trace.jobs.push(TraceJob {
            run: end.saturating_sub(start).max(0),
            submit: sj.submit_time,
            walltime,
            cores,
            mem: (mem_mb * 1024.0).ceil().max(0.0) as u64,
            account: if account.is_empty() {
                "default".into()
            } else {
                account
            },
            queue: sj.partitions.join(","),
            qos: sj.qos,
            user: sj.user,
            id: sj.id,
        });
    }
    Ok(())
}
