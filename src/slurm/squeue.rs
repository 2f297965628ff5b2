//! Slurm job inputs: `squeue --json` (the schemas of Slurm 21.08 to 24.x: plain numbers in the
//! older ones, `{set, infinite, number}` objects from 23.02 on; `job_state` a string or a list),
//! `sacct --json` (same envelope, read by `slurm_sacct`) and `squeue` pipe output with a header.
//!
//! Pipe output: `squeue -h` must not be used (the header names the columns); separate the fields
//! with `|` and print times as epoch seconds, e.g.
//! `SLURM_TIME_FORMAT=%s squeue -a -t PD -O 'JobID:30|,UserName:30|,...,AccrueTime:20|,...'`
//! (docs/slurm.md has the whole line) or `-o '%i|%u|%a|%P|%q|%V|%D|%C|%l|%T|%y'` (no accrue
//! time: age is then counted from the eligible, else submit, time).
//! Headers understood (case-insensitive): JOBID, USER, ACCOUNT, PARTITION, QOS, SUBMIT_TIME,
//! ELIGIBLE_TIME,
//! ACCRUE_TIME, NODES, CPUS, TIME_LIMIT (Slurm time string or UNLIMITED), STATE, NICE,
//! TRES_ALLOC/TRES (a `cpu=4,mem=8G` string), REASON (`JobHeldUser`: held); PRIORITY and any
//! other column are ignored.
//! ISO times (`2024-03-01T10:00:00`) are read as UTC.
//!
//! The `priority` field of the input is never used: it is the answer.

use crate::jobs::error::JobsError;
use crate::jobs::job_set::JobSet;
use crate::jobs::raw::{add_job, Raw, RawJob, RawResources, LIST_FIELDS};
use crate::slurm::job::{bad, number, split_partitions, text, to_u32, Num};
pub use crate::slurm::job::{parse_tres_str, SlurmJob, TimeLimit};
use serde_json::Value;
use std::borrow::Cow;

/// Nice as squeue prints it: 22.05 prints a negative nice as its u32 wrap-around.
fn nice_value(v: f64) -> i64 {
    let n = v as i64;
    if n > i64::from(i32::MAX) && n <= i64::from(u32::MAX) {
        n - (1i64 << 32)
    } else {
        n
    }
}

/// The fields the Slurm JSON readers use (squeue's and sacct's), so a large document is never
/// held as a whole `Value` tree: every other field (environment, command, steps, ...) is
/// skipped while parsing (a 66 MB, 100k-job squeue --json).
#[derive(serde::Deserialize)]
struct SlimDoc {
    #[serde(default)]
    jobs: Option<Vec<SlimJob>>,
}

/// The `jobs` list of `squeue --json` (or `sacct --json`) text, each job's used fields only:
/// the one parse of that format, for the priority readers here and the forecast's snapshot
/// (`slurm::snapshot`). `None` when the document has no `jobs` list.
pub(crate) fn slim_jobs(bytes: &[u8]) -> Result<Option<Vec<SlimJob>>, serde_json::Error> {
    serde_json::from_slice::<SlimDoc>(bytes).map(|d| d.jobs)
}

/// One job's used fields; `Some(Value::Null)` when present as `null`, `None` when absent.
#[derive(serde::Deserialize)]
pub(crate) struct SlimJob {
    #[serde(default, deserialize_with = "present")]
    pub(crate) job_id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) array_job_id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) array_task_id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) array: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) user_name: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) user: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) account: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) partition: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) qos: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) job_state: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) state: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) state_reason: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) submit_time: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) eligible_time: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) accrue_time: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) nice: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) node_count: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) cpus: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) num_cpus: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) time_limit: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) tres_req_str: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) time: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) required: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) tres: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) allocation_nodes: Option<Value>,
    // The forecast's (`slurm::snapshot`): the estimate, the allocation, slurmctld's words.
    #[serde(default, deserialize_with = "present")]
    pub(crate) array_task_string: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) start_time: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) end_time: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) priority: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) memory_per_node: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) memory_per_cpu: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) nodes: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) state_description: Option<Value>,
}

/// A field that is present, even as `null`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    serde::Deserialize::deserialize(d).map(Some)
}

impl SlimJob {
    /// The job as a small JSON object with only its present fields.
    fn into_value(self) -> Value {
        let fields = [
            ("job_id", self.job_id),
            ("array_job_id", self.array_job_id),
            ("array_task_id", self.array_task_id),
            ("array", self.array),
            ("user_name", self.user_name),
            ("user", self.user),
            ("account", self.account),
            ("partition", self.partition),
            ("qos", self.qos),
            ("job_state", self.job_state),
            ("state", self.state),
            ("state_reason", self.state_reason),
            ("submit_time", self.submit_time),
            ("eligible_time", self.eligible_time),
            ("accrue_time", self.accrue_time),
            ("nice", self.nice),
            ("node_count", self.node_count),
            ("cpus", self.cpus),
            ("num_cpus", self.num_cpus),
            ("time_limit", self.time_limit),
            ("tres_req_str", self.tres_req_str),
            ("time", self.time),
            ("required", self.required),
            ("tres", self.tres),
            ("allocation_nodes", self.allocation_nodes),
        ];
        Value::Object(
            fields
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| (k.to_string(), v)))
                .collect(),
        )
    }
}

/// Reads `squeue --json` output.
pub fn read_squeue_json(name: &str, bytes: &[u8]) -> Result<Vec<SlurmJob>, JobsError> {
    let jobs = slim_jobs(bytes).map_err(|e| JobsError::Json {
        message: format!("{name}: squeue --json: {e}"),
    })?;
    let jobs = jobs.ok_or_else(|| JobsError::Json {
        message: format!("{name}: squeue --json: no `jobs` list"),
    })?;
    let mut out = Vec::with_capacity(jobs.len());
    for (i, j) in jobs.into_iter().enumerate() {
        let j = &j.into_value();
        // `sacct --json` has the same envelope; its jobs carry a `time` object.
        if j.get("time").is_some_and(Value::is_object) {
            out.push(crate::slurm::sacct_json::sacct_job(name, i, j)?);
            continue;
        }
        let id = match j.get("job_id").map(number) {
            Some(Ok(Num::Value(v))) => {
                let base = format!("{}", v as u64);
                match (
                    j.get("array_job_id").map(number),
                    j.get("array_task_id").map(number),
                ) {
                    (Some(Ok(Num::Value(a))), Some(Ok(Num::Value(t)))) if a > 0.0 => {
                        format!("{}_{}", a as u64, t as u64)
                    }
                    _ => base,
                }
            }
            _ => {
                return Err(JobsError::Json {
                    message: format!("{name}: job #{}: no `job_id`", i + 1),
                })
            }
        };
        let field = |f: &str| -> Result<Num, JobsError> {
            match j.get(f) {
                None => Ok(Num::Unset),
                Some(v) => number(v).map_err(|m| bad(&id, &format!("{name}: {f}"), m)),
            }
        };
        let time = |f: &str| -> Result<i64, JobsError> {
            Ok(match field(f)? {
                Num::Value(v) => v as i64,
                _ => 0,
            })
        };
        let accrue_time = if j.get("accrue_time").is_some() {
            Some(time("accrue_time")?)
        } else {
            None
        };
        let nice = match field("nice")? {
            Num::Value(v) => nice_value(v),
            _ => 0,
        };
        let node_count = to_u32(&id, "node_count", field("node_count")?)?;
        let cpus_field = if j.get("cpus").is_some() {
            "cpus"
        } else {
            "num_cpus"
        };
        let cpus = to_u32(&id, cpus_field, field(cpus_field)?)?;
        let time_limit = match field("time_limit")? {
            Num::Unset => TimeLimit::Unset,
            Num::Infinite => TimeLimit::Infinite,
            Num::Value(v) if v >= f64::from(u32::MAX - 1) => TimeLimit::Infinite,
            Num::Value(v) => TimeLimit::Minutes(to_u32(&id, "time_limit", Num::Value(v))?),
        };
        let tres = parse_tres_str(&text(j.get("tres_req_str")))
            .map_err(|m| bad(&id, &format!("{name}: tres_req_str"), m))?;
        out.push(SlurmJob {
            user: text(j.get("user_name")),
            account: text(j.get("account")),
            partitions: split_partitions(&text(j.get("partition"))),
            qos: text(j.get("qos")),
            state: text(j.get("job_state")),
            held: SlurmJob::is_held_reason(&text(j.get("state_reason"))),
            submit_time: time("submit_time")?,
            eligible_time: time("eligible_time")?,
            accrue_time,
            nice,
            node_count,
            cpus,
            time_limit,
            tres,
            id,
        });
    }
    Ok(out)
}

/// Epoch seconds, or an ISO `YYYY-MM-DDTHH:MM:SS` time read as UTC; `N/A`, `Unknown`, `None`
/// and empty cells are 0.
fn pipe_time(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.is_empty() || matches!(s, "N/A" | "Unknown" | "None" | "0") {
        return Some(0);
    }
    if let Ok(n) = s.parse::<i64>() {
        return Some(n);
    }
    let (date, time) = s.split_once('T')?;
    let d: Vec<i64> = date
        .split('-')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let t: Vec<i64> = time
        .split(':')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let ([y, m, day], [hh, mm, ss]) = (d.as_slice(), t.as_slice()) else {
        return None;
    };
    // Days from civil (Howard Hinnant's algorithm).
    let y = if *m <= 2 { y - 1 } else { *y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    Some(days * 86400 + hh * 3600 + mm * 60 + ss)
}

/// Reads `squeue` output with a header and `|`-separated fields.
pub fn read_squeue_pipe(name: &str, bytes: &[u8]) -> Result<Vec<SlurmJob>, JobsError> {
    let text = std::str::from_utf8(bytes).map_err(|e| JobsError::Csv {
        line: 0,
        message: format!("{name}: not UTF-8 text: {e}"),
    })?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Ok(Vec::new());
    };
    let cols: Vec<String> = header
        .trim_end_matches('|')
        .split('|')
        .map(|c| c.trim().to_ascii_uppercase())
        .collect();
    let col = |names: &[&str]| cols.iter().position(|c| names.contains(&c.as_str()));
    let c_id = col(&["JOBID", "JOB_ID"]).ok_or_else(|| JobsError::Csv {
        line: 1,
        message: format!("{name}: the squeue header has no JOBID column"),
    })?;
    let c_user = col(&["USER", "USER_NAME"]);
    let c_acct = col(&["ACCOUNT"]);
    let c_part = col(&["PARTITION"]);
    let c_qos = col(&["QOS"]);
    let c_submit = col(&["SUBMIT_TIME"]);
    let c_elig = col(&["ELIGIBLE_TIME"]);
    let c_accrue = col(&["ACCRUE_TIME"]);
    let c_nodes = col(&["NODES", "NUM_NODES"]);
    let c_cpus = col(&["CPUS", "NUM_CPUS"]);
    let c_limit = col(&["TIME_LIMIT", "TIMELIMIT"]);
    let c_state = col(&["STATE", "ST"]);
    let c_nice = col(&["NICE"]);
    let c_tres = col(&["TRES_ALLOC", "TRES", "TRES_REQ"]);
    let c_reason = col(&["REASON", "STATE_REASON"]);
    let mut out = Vec::new();
    for (i, line) in lines {
        let cells: Vec<&str> = line.trim_end_matches('|').split('|').collect();
        let line_no = i as u64 + 1;
        if cells.len() != cols.len() {
            return Err(JobsError::Csv {
                line: line_no,
                message: format!(
                    "{name}: {} fields, the header has {}",
                    cells.len(),
                    cols.len()
                ),
            });
        }
        let get = |c: Option<usize>| c.and_then(|c| cells.get(c)).map_or("", |s| s.trim());
        let id = get(Some(c_id)).to_string();
        let err = |field: &str, value: &str| {
            bad(
                &id,
                &format!("{name}: {field}"),
                format!("`{value}` is not valid"),
            )
        };
        let time = |c: Option<usize>, field: &str| -> Result<i64, JobsError> {
            let v = get(c);
            pipe_time(v).ok_or_else(|| err(field, v))
        };
        let count = |c: Option<usize>, field: &str| -> Result<u32, JobsError> {
            let v = get(c);
            if v.is_empty() {
                return Ok(0);
            }
            // `1-2` (min-max) as squeue prints a range: the minimum.
            let v0 = v.split('-').next().unwrap_or(v);
            v0.parse().map_err(|_| err(field, v))
        };
        let time_limit = {
            let v = get(c_limit);
            if v.is_empty() || v == "NOT_SET" {
                TimeLimit::Unset
            } else {
                match crate::slurm::conf::time_minutes(v) {
                    Some(u32::MAX) => TimeLimit::Infinite,
                    Some(m) => TimeLimit::Minutes(m),
                    None => return Err(err("TIME_LIMIT", v)),
                }
            }
        };
        let nice = {
            let v = get(c_nice);
            if v.is_empty() {
                0
            } else {
                nice_value(v.parse::<f64>().map_err(|_| err("NICE", v))?)
            }
        };
        let state = match get(c_state) {
            "PD" => "PENDING".to_string(),
            "R" => "RUNNING".to_string(),
            s => s.to_string(),
        };
        out.push(SlurmJob {
            user: get(c_user).to_string(),
            account: get(c_acct).to_string(),
            partitions: split_partitions(get(c_part)),
            qos: get(c_qos).to_string(),
            state,
            held: SlurmJob::is_held_reason(get(c_reason)),
            submit_time: time(c_submit, "SUBMIT_TIME")?,
            eligible_time: time(c_elig, "ELIGIBLE_TIME")?,
            accrue_time: c_accrue
                .map(|_| time(c_accrue, "ACCRUE_TIME"))
                .transpose()?,
            nice,
            node_count: count(c_nodes, "NODES")?,
            cpus: count(c_cpus, "CPUS")?,
            time_limit,
            tres: parse_tres_str(get(c_tres)).map_err(|m| bad(&id, &format!("{name}: TRES"), m))?,
            id,
        });
    }
    Ok(out)
}

/// Slurm jobs as a PBS-style [`JobSet`] for the formula path: `euser` = user, `Account_Name` =
/// account, `queue` = first partition, `job_state` Q/R/H, `qtime` = submit time,
/// `Resource_List` `ncpus`, `nodect`, `walltime` (seconds).
pub fn to_job_set(jobs: &[SlurmJob]) -> Result<JobSet, JobsError> {
    let mut set = JobSet::default();
    for j in jobs {
        let state = match j.state.as_str() {
            _ if j.held => "H",
            "PENDING" => "Q",
            "RUNNING" => "R",
            _ => "H",
        };
        let mut res = vec![
            (Cow::Borrowed("ncpus"), Raw::Num(f64::from(j.cpus))),
            (Cow::Borrowed("nodect"), Raw::Num(f64::from(j.node_count))),
        ];
        if let TimeLimit::Minutes(m) = j.time_limit {
            res.push((Cow::Borrowed("walltime"), Raw::Num(f64::from(m) * 60.0)));
        }
        let raw = RawJob {
            euser: Some(Raw::Str(Cow::Borrowed(j.user.as_str()))),
            account: (!j.account.is_empty()).then_some(Raw::Str(Cow::Borrowed(j.account.as_str()))),
            queue: j
                .partitions
                .first()
                .map(|p| Raw::Str(Cow::Borrowed(p.as_str()))),
            state: Some(Raw::Str(Cow::Borrowed(state))),
            qtime: Some(Raw::Num(j.submit_time as f64)),
            resources: RawResources(res),
            ..RawJob::default()
        };
        add_job(&mut set, &j.id, raw, &LIST_FIELDS)?;
    }
    set.finish()?;
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_and_new_schemas() {
        let old = br#"{"meta":{"Slurm":{"version":{"major":22}}},"jobs":[{"job_id":7,"user_name":"bob",
            "account":"phys","partition":"batch,gpu","qos":"normal","priority":123,"submit_time":100,
            "eligible_time":110,"accrue_time":120,"nice":4294967246,"node_count":2,"cpus":8,
            "time_limit":60,"job_state":"PENDING","tres_req_str":"cpu=8,mem=4G,node=2,billing=8"}]}"#;
        let j = &read_squeue_json("old.json", old).unwrap()[0];
        assert_eq!(j.id, "7");
        assert_eq!(j.partitions, ["batch", "gpu"]);
        assert_eq!(j.nice, -50);
        assert_eq!(j.accrue_time, Some(120));
        assert_eq!(j.tres[1], ("mem".to_string(), 4096.0));
        let new = br#"{"jobs":[{"job_id":8,"user_name":"ann","account":"a","partition":"p",
            "qos":"q","submit_time":{"set":true,"infinite":false,"number":100},
            "accrue_time":{"set":false,"infinite":false,"number":0},"nice":0,
            "node_count":{"set":true,"infinite":false,"number":1},
            "cpus":{"set":true,"infinite":false,"number":4},
            "time_limit":{"set":false,"infinite":true,"number":0},"job_state":["PENDING"]}]}"#;
        let j = &read_squeue_json("new.json", new).unwrap()[0];
        assert_eq!((j.submit_time, j.accrue_time, j.cpus), (100, Some(0), 4));
        assert_eq!(j.time_limit, TimeLimit::Infinite);
        assert!(j.is_pending());
        let e = read_squeue_json("x.json", br#"{"jobs":[{"job_id":9,"cpus":"many"}]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("job `9`") && e.contains("x.json: cpus"), "{e}");
    }

    #[test]
    fn held_jobs() {
        // A held job as a real 22.05 squeue --json prints it (`sbatch -H`): priority 0,
        // state_reason JobHeldUser; sprio leaves it out.
        let t = br#"{"jobs":[{"job_id":14,"user_name":"bob","account":"physics","partition":"batch",
            "job_state":"PENDING","state_reason":"JobHeldUser","priority":0,"cpus":1,"node_count":1},
            {"job_id":15,"user_name":"ann","job_state":"PENDING","state_reason":"Priority"}]}"#;
        let j = read_squeue_json("h.json", t).unwrap();
        assert!(j[0].held && j[0].is_pending() && !j[1].held);
        assert_eq!(to_job_set(&j).unwrap().len(), 2);
        let p = b"JOBID|STATE|REASON\n16|PD|JobHeldAdmin\n";
        assert!(read_squeue_pipe("h.txt", p).unwrap()[0].held);
    }

    #[test]
    fn pipe() {
        let t = b"JOBID|USER|ACCOUNT|PARTITION|QOS|SUBMIT_TIME|ACCRUE_TIME|NODES|CPUS|TIME_LIMIT|STATE|NICE\n\
                  5|bob|phys|batch|normal|1700000000|2024-01-01T00:00:00|1|4|1:00:00|PENDING|0\n";
        let j = &read_squeue_pipe("sq.txt", t).unwrap()[0];
        assert_eq!(j.accrue_time, Some(1704067200));
        assert_eq!(j.time_limit, TimeLimit::Minutes(60));
        assert_eq!(to_job_set(std::slice::from_ref(j)).unwrap().len(), 1);
    }
}
