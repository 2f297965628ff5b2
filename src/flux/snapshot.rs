//! A flux instance's queue for a forecast, as `flux jobs -a --json` prints it (flux-core
//! `flux-jobs.py`, `JobInfo.to_dict`): every job's state, priority and urgency, its size
//! (`ncores`, `nnodes`), its time limit (`duration`, 0 = none), and for a running job its
//! `t_run` and `expiration`; the scheduler's `annotations.sched` (`t_estimate`,
//! `reason_pending`, `resource_summary`) and a job's `exception`. Empty fields are left out by
//! flux (no `t_run` before the job runs, no `nnodes` for a pending job that asked for none).

use crate::files::json_lines::element_line;
use crate::flux::jobs::{f58_encode, parse_job_id};
use crate::jobs::error::{json_at, JobsError};
use serde::Deserialize;
use serde_json::Value;

/// What errors call the input.
const WHAT: &str = "flux jobs --json";

/// One job of the snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct FluxSnapshotJob {
    /// The numeric job id (a FLUID: later submissions have larger ids).
    pub id: u64,
    /// The id as flux prints it (`ƒ2C1sZt3`).
    pub jobid: String,
    /// The user name (else the user id as text).
    pub user: String,
    /// The state name (`SCHED`, `RUN`, `INACTIVE`, ...).
    pub state: String,
    /// Urgency, 0 (held) to 31 (expedite).
    pub urgency: u32,
    /// The job's priority as the job manager gave it to the scheduler (`None`: not yet
    /// assigned; taken as the urgency, what flux's default priority plugin gives).
    pub priority: Option<u64>,
    /// Submission time, epoch seconds.
    pub t_submit: f64,
    /// When it began running.
    pub t_run: Option<f64>,
    /// When its allocation expires (a running job's start + time limit).
    pub expiration: Option<f64>,
    /// Its time limit in seconds (`None`: none given).
    pub duration: Option<f64>,
    /// Cores it asks for (or holds).
    pub ncores: u64,
    /// Nodes it asks for (or holds), when it said.
    pub nnodes: Option<u64>,
    /// GPUs it asks for, when the output has them.
    pub ngpus: u64,
    /// Its queue, if any.
    pub queue: Option<String>,
    /// The scheduler's start estimate (`annotations.sched.t_estimate`).
    pub t_estimate: Option<f64>,
    /// The scheduler's reason it waits (`annotations.sched.reason_pending`).
    pub reason_pending: Option<String>,
    /// The nodes it runs on (`nodelist`).
    pub nodelist: Option<String>,
    /// An exception raised on the job: (type, note).
    pub exception: Option<(String, String)>,
    /// What it depends on (`dependencies`).
    pub dependencies: Vec<String>,
}

impl FluxSnapshotJob {
    /// Waiting for the scheduler (`SCHED`), or before it (`DEPEND`, `PRIORITY`, `NEW`).
    pub fn is_pending(&self) -> bool {
        matches!(self.state.as_str(), "NEW" | "DEPEND" | "PRIORITY" | "SCHED")
    }

    /// Holding resources: `RUN`, and `CLEANUP` until its resources are freed.
    pub fn is_running(&self) -> bool {
        matches!(self.state.as_str(), "RUN" | "CLEANUP")
    }

    /// The priority the scheduler orders by.
    pub fn effective_priority(&self) -> u64 {
        self.priority.unwrap_or(u64::from(self.urgency))
    }
}

#[derive(Debug, Default, Deserialize)]
struct Doc {
    jobs: Option<Vec<Value>>,
}

fn field(path: &str, line: usize, place: &str, field: &str, message: &str) -> JobsError {
    JobsError::at(
        path,
        line as u64,
        0,
        format!("{WHAT}: {place}: `{field}`: {message}"),
    )
}

/// Reads `flux jobs -a --json` output (`{"jobs": [...]}`); `path` names the file in errors.
pub fn read_flux_snapshot(bytes: &[u8], path: &str) -> Result<Vec<FluxSnapshotJob>, JobsError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(JobsError::at(
            path,
            0,
            0,
            format!("empty file (no {WHAT} output)"),
        ));
    }
    let doc: Doc = serde_json::from_slice(bytes).map_err(|e| json_at(path, &e))?;
    let jobs = doc
        .jobs
        .ok_or_else(|| JobsError::at(path, 0, 0, format!("{WHAT}: no `jobs` list")))?;
    let mut seen = std::collections::HashSet::with_capacity(jobs.len());
    let mut out = Vec::with_capacity(jobs.len());
    for (i, v) in jobs.iter().enumerate() {
        let line = || element_line(bytes, "jobs", i);
        let j = job(v, i + 1).map_err(|(place, f, m)| field(path, line(), &place, f, &m))?;
        if !seen.insert(j.id) {
            return Err(field(
                path,
                line(),
                &format!("job #{} ({})", i + 1, j.jobid),
                "id",
                "appears twice",
            ));
        }
        out.push(j);
    }
    Ok(out)
}

type Bad = (String, &'static str, String);

fn job(v: &Value, n: usize) -> Result<FluxSnapshotJob, Bad> {
    let o = v.as_object().ok_or_else(|| {
        (
            format!("job #{n}"),
            "jobs",
            format!("expected an object, got {v}"),
        )
    })?;
    let id = match o.get("id") {
        Some(Value::Number(x)) => x.as_u64(),
        Some(Value::String(s)) => parse_job_id(s),
        _ => None,
    }
    .or_else(|| {
        o.get("jobid")
            .and_then(Value::as_str)
            .and_then(parse_job_id)
    })
    .ok_or_else(|| {
        (
            format!("job #{n}"),
            "id",
            "missing or not a job id (an unsigned integer)".to_string(),
        )
    })?;
    let jobid = f58_encode(id);
    let place = format!("job #{n} ({jobid})");
    let bad = |f: &'static str, m: String| (place.clone(), f, m);
    let num = |f: &'static str| -> Result<Option<f64>, Bad> {
        match o.get(f) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(x)) => match x.as_f64() {
                Some(x) if x.is_finite() && x >= 0.0 => Ok(Some(x)),
                _ => Err(bad(f, format!("`{x}` is not a time or count"))),
            },
            Some(other) => Err(bad(f, format!("expected a number, got {other}"))),
        }
    };
    let count = |f: &'static str| -> Result<Option<u64>, Bad> {
        match o.get(f) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(x)) => x
                .as_u64()
                .map(Some)
                .ok_or_else(|| bad(f, format!("`{x}` is not a count"))),
            Some(other) => Err(bad(f, format!("expected a count, got {other}"))),
        }
    };
    let text = |f: &'static str| -> Result<Option<String>, Bad> {
        match o.get(f) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(bad(f, format!("expected text, got {other}"))),
        }
    };
    let state = text("state")?.ok_or_else(|| bad("state", "missing".to_string()))?;
    let urgency = match count("urgency")? {
        Some(u) if u <= 31 => u as u32,
        Some(u) => return Err(bad("urgency", format!("`{u}` is not from 0 to 31"))),
        None => 16,
    };
    let user = match text("username")? {
        Some(u) => u,
        None => count("userid")?.map_or_else(String::new, |u| u.to_string()),
    };
    let sched = o.get("annotations").and_then(|a| a.get("sched"));
    let t_estimate = match sched.and_then(|s| s.get("t_estimate")) {
        None | Some(Value::Null) => None,
        Some(Value::Number(x)) => x.as_f64().filter(|x| x.is_finite()),
        Some(other) => {
            return Err(bad(
                "annotations.sched.t_estimate",
                format!("expected a number, got {other}"),
            ))
        }
    };
    let reason_pending = sched
        .and_then(|s| s.get("reason_pending"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let exception = o.get("exception").and_then(|e| {
        (e.get("occurred") == Some(&Value::Bool(true))).then(|| {
            let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            (s("type"), s("note"))
        })
    });
    let dependencies = match o.get("dependencies") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|d| d.as_str().map_or_else(|| d.to_string(), str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    let duration = num("duration")?.filter(|&d| d > 0.0);
    Ok(FluxSnapshotJob {
        id,
        jobid,
        user,
        state: state.to_ascii_uppercase(),
        urgency,
        priority: count("priority")?,
        t_submit: num("t_submit")?.unwrap_or(0.0),
        t_run: num("t_run")?,
        expiration: num("expiration")?.filter(|&e| e > 0.0),
        duration,
        ncores: count("ncores")?.unwrap_or(1).max(1),
        nnodes: count("nnodes")?.filter(|&n| n > 0),
        ngpus: count("ngpus")?.unwrap_or(0),
        queue: text("queue")?,
        t_estimate,
        reason_pending,
        nodelist: text("nodelist")?,
        exception,
        dependencies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two jobs as flux-core 0.88 printed them (a test instance of 8 cores).
    const TWO: &str = r#"{"jobs": [{"t_depend": 1796305025.75275, "duration": 300.0, "name": "sleep", "ntasks": 8, "ncores": 8, "priority": 16, "id": 45298483200, "t_submit": 1796305025.7096078, "state": "SCHED", "username": "root", "userid": 0, "urgency": 16, "status": "SCHED", "dependencies": [], "jobid": "\u01922C1sZt3", "annotations": {"sched": {"t_estimate": 1796305325.2374613}}, "exception": {"occurred": false}},
 {"t_run": 1796305025.2473927, "duration": 300.0, "expiration": 1796305325.2373924, "ntasks": 2, "ncores": 2, "nnodes": 1, "priority": 16, "ranks": "0", "nodelist": "vm", "id": 36205232128, "t_submit": 1796305025.1677146, "state": "RUN", "username": "root", "userid": 0, "urgency": 16, "jobid": "\u0192xALH99", "annotations": {"sched": {"resource_summary": "rank0/core[0-1]"}}, "exception": {"occurred": false}}]}"#;

    #[test]
    fn reads_pending_and_running_jobs() {
        let jobs = read_flux_snapshot(TWO.as_bytes(), "jobs.json").unwrap();
        assert_eq!(jobs.len(), 2);
        let (p, r) = (&jobs[0], &jobs[1]);
        assert_eq!(p.jobid, "ƒ2C1sZt3");
        assert!(p.is_pending() && !p.is_running());
        assert_eq!(p.ncores, 8);
        assert_eq!(p.nnodes, None);
        assert_eq!(p.t_estimate, Some(1796305325.2374613));
        assert_eq!(p.duration, Some(300.0));
        assert_eq!(p.effective_priority(), 16);
        assert!(r.is_running());
        assert_eq!(r.t_run, Some(1796305025.2473927));
        assert_eq!(r.expiration, Some(1796305325.2373924));
        assert_eq!(r.nodelist.as_deref(), Some("vm"));
        assert_eq!(r.user, "root");
    }

    #[test]
    fn bad_fields_name_the_file_line_and_job() {
        let doc = "{\"jobs\": [\n{\"id\": 1, \"state\": \"SCHED\"},\n{\"id\": 2, \"state\": \"SCHED\", \"ncores\": -1}]}";
        let e = read_flux_snapshot(doc.as_bytes(), "q.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("q.json:3: flux jobs --json: job #2 (ƒ3): `ncores`"),
            "{e}"
        );
        let e = read_flux_snapshot(
            b"{\"jobs\": [{\"id\": 1, \"state\": \"SCHED\"}, {\"id\": 1, \"state\": \"RUN\"}]}",
            "q.json",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("appears twice"), "{e}");
        let e = read_flux_snapshot(b"{\"jobs\": [", "q.json")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("q.json:1:10: "), "{e}");
        let e = read_flux_snapshot(b"  ", "q.json").unwrap_err().to_string();
        assert!(e.contains("empty file"), "{e}");
        let e = read_flux_snapshot(b"{}", "q.json").unwrap_err().to_string();
        assert!(e.contains("no `jobs` list"), "{e}");
    }
}
