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
use crate::slurm::job::{number, split_partitions, text, whole, Num, MAX_EPOCH, MAX_NICE};
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

/// `bytes` without a leading UTF-8 byte-order mark (some editors and Windows tools write one).
pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

/// A message about the file as a whole (`FILE: what`).
fn whole_file(name: &str, what: String) -> JobsError {
    JobsError::Json {
        message: format!("{name}: {what}"),
    }
}

/// `FILE:LINE: what` for the `index`th job (0-based) of the document.
fn at_job(name: &str, bytes: &[u8], index: usize, what: String) -> JobsError {
    let line = crate::files::json_lines::element_line(bytes, "jobs", index);
    JobsError::Json {
        message: format!("{name}:{line}: {what}"),
    }
}

/// A serde_json error as `FILE:LINE:COL: squeue --json: what`.
fn json_error(name: &str, e: &serde_json::Error) -> JobsError {
    let text = e.to_string();
    let what = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(m, _)| m);
    JobsError::Json {
        message: format!("{name}:{}:{}: squeue --json: {what}", e.line(), e.column()),
    }
}

/// `squeue` output that is not there: an empty (or blank) file.
fn refuse_empty(name: &str, bytes: &[u8]) -> Result<(), JobsError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(whole_file(name, "empty file (no squeue output)".into()));
    }
    Ok(())
}

/// Reads `squeue` output whichever form it has: `--json` (the first character is `{`) or
/// pipe output with a header; a leading byte-order mark is skipped, an empty file refused.
pub fn read_squeue(name: &str, bytes: &[u8]) -> Result<Vec<SlurmJob>, JobsError> {
    let bytes = strip_bom(bytes);
    refuse_empty(name, bytes)?;
    match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => read_squeue_json(name, bytes),
        _ => read_squeue_pipe(name, bytes),
    }
}

/// A job id seen before (`seen` holds them all: one hash look-up a job).
fn repeated(seen: &mut std::collections::HashSet<String>, id: &str) -> bool {
    !seen.insert(id.to_string())
}

/// A whole-number field of a job in `lo..=hi`; unset and infinite as `Num` says.
fn checked(v: Num, lo: f64, hi: f64) -> Result<Num, String> {
    match v {
        Num::Value(x) => whole(x, lo, hi).map(|_| Num::Value(x)),
        other => Ok(other),
    }
}

/// Reads `squeue --json` output.
pub fn read_squeue_json(name: &str, bytes: &[u8]) -> Result<Vec<SlurmJob>, JobsError> {
    let bytes = strip_bom(bytes);
    refuse_empty(name, bytes)?;
    let jobs = slim_jobs(bytes).map_err(|e| json_error(name, &e))?;
    let jobs = jobs.ok_or_else(|| {
        whole_file(
            name,
            "squeue --json: no `jobs` list (is this squeue --json output?)".into(),
        )
    })?;
    let mut out = Vec::with_capacity(jobs.len());
    let mut seen = std::collections::HashSet::with_capacity(jobs.len());
    for (i, j) in jobs.into_iter().enumerate() {
        let at = |what: String| at_job(name, bytes, i, what);
        let j = &j.into_value();
        // `sacct --json` has the same envelope; its jobs carry a `time` object.
        if j.get("time").is_some_and(Value::is_object) {
            let job = crate::slurm::sacct_json::sacct_job(name, i, j)?;
            if repeated(&mut seen, &job.id) {
                return Err(at(format!("job `{}` appears twice", job.id)));
            }
            out.push(job);
            continue;
        }
        let id_field = |f: &str, lo: f64| -> Result<Option<u64>, JobsError> {
            match j.get(f).map(number) {
                None | Some(Ok(Num::Unset)) => Ok(None),
                Some(Ok(Num::Value(v))) => whole(v, lo, f64::from(u32::MAX))
                    .map(|v| Some(v as u64))
                    .map_err(|m| at(format!("job #{}: `{f}`: {m}", i + 1))),
                Some(Ok(Num::Infinite)) => Err(at(format!("job #{}: `{f}` is infinite", i + 1))),
                Some(Err(m)) => Err(at(format!("job #{}: `{f}`: {m}", i + 1))),
            }
        };
        let Some(base) = id_field("job_id", 1.0)? else {
            return Err(at(format!(
                "job #{}: no `job_id` (every squeue --json job has one)",
                i + 1
            )));
        };
        let id = match (
            id_field("array_job_id", 0.0)?,
            id_field("array_task_id", 0.0)?,
        ) {
            (Some(a), Some(t)) if a > 0 => format!("{a}_{t}"),
            _ => base.to_string(),
        };
        if repeated(&mut seen, &id) {
            return Err(at(format!("job `{id}` appears twice")));
        }
        let field = |f: &str, lo: f64, hi: f64| -> Result<Num, JobsError> {
            match j.get(f) {
                None => Ok(Num::Unset),
                Some(v) => number(v)
                    .and_then(|n| checked(n, lo, hi))
                    .map_err(|m| at(format!("job `{id}`: `{f}`: {m}"))),
            }
        };
        let time = |f: &str| -> Result<i64, JobsError> {
            Ok(match field(f, 0.0, MAX_EPOCH)? {
                Num::Value(v) => v as i64,
                _ => 0,
            })
        };
        let accrue_time = if j.get("accrue_time").is_some() {
            Some(time("accrue_time")?)
        } else {
            None
        };
        // 22.05 prints a negative nice as its u32 wrap-around.
        let nice = match field("nice", -(MAX_NICE as f64), f64::from(u32::MAX))? {
            Num::Value(v) => nice_value(v),
            _ => 0,
        };
        if nice.abs() > MAX_NICE {
            return Err(at(format!(
                "job `{id}`: `nice`: {nice} is out of range (-{MAX_NICE} to {MAX_NICE})"
            )));
        }
        let count = |f: &str| -> Result<u32, JobsError> {
            Ok(match field(f, 0.0, f64::from(u32::MAX))? {
                Num::Value(v) => v as u32,
                Num::Infinite => u32::MAX,
                Num::Unset => 0,
            })
        };
        let node_count = count("node_count")?;
        let cpus_field = if j.get("cpus").is_some() {
            "cpus"
        } else {
            "num_cpus"
        };
        let cpus = count(cpus_field)?;
        let time_limit = match field("time_limit", 0.0, f64::from(u32::MAX))? {
            Num::Unset => TimeLimit::Unset,
            Num::Infinite => TimeLimit::Infinite,
            Num::Value(v) if v >= f64::from(u32::MAX - 1) => TimeLimit::Infinite,
            Num::Value(v) => TimeLimit::Minutes(v as u32),
        };
        let tres = parse_tres_str(&text(j.get("tres_req_str")))
            .map_err(|m| at(format!("job `{id}`: `tres_req_str`: {m}")))?;
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

/// `FILE:LINE: what`.
fn at_line(name: &str, line: u64, what: String) -> JobsError {
    JobsError::Json {
        message: format!("{name}:{line}: {what}"),
    }
}

/// A JOBID cell as squeue prints one: `123`, an array task `123_4`, a pending array's tasks
/// `123_[1-10%2]`, a heterogeneous component `123+1`; the leading number 1 to 2^32 − 1.
fn valid_job_id(id: &str) -> bool {
    let digits = id.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &id[digits..];
    let base_ok = id[..digits].parse::<u32>().is_ok_and(|n| n > 0);
    base_ok
        && (rest.is_empty() || rest.starts_with('_') || rest.starts_with('+'))
        && !rest
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
}

/// Reads `squeue` output with a header and `|`-separated fields.
pub fn read_squeue_pipe(name: &str, bytes: &[u8]) -> Result<Vec<SlurmJob>, JobsError> {
    let bytes = strip_bom(bytes);
    refuse_empty(name, bytes)?;
    let text =
        std::str::from_utf8(bytes).map_err(|e| whole_file(name, format!("not UTF-8 text: {e}")))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((header_index, header)) = lines.next() else {
        return Err(whole_file(name, "empty file (no squeue output)".into()));
    };
    let cols: Vec<String> = header
        .trim_end_matches('|')
        .split('|')
        .map(|c| c.trim().to_ascii_uppercase())
        .collect();
    let col = |names: &[&str]| cols.iter().position(|c| names.contains(&c.as_str()));
    let c_id = col(&["JOBID", "JOB_ID"]).ok_or_else(|| {
        at_line(
            name,
            header_index as u64 + 1,
            "the squeue header has no JOBID column (print the header: no `squeue -h`; \
             separate the fields with `|`)"
                .into(),
        )
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
    let mut seen = std::collections::HashSet::new();
    for (i, line) in lines {
        let cells: Vec<&str> = line.trim_end_matches('|').split('|').collect();
        let line_no = i as u64 + 1;
        let at = |what: String| at_line(name, line_no, what);
        if cells.len() != cols.len() {
            return Err(at(format!(
                "{} fields, the header has {}",
                cells.len(),
                cols.len()
            )));
        }
        let get = |c: Option<usize>| c.and_then(|c| cells.get(c)).map_or("", |s| s.trim());
        let id = get(Some(c_id)).to_string();
        if !valid_job_id(&id) {
            return Err(at(format!("JOBID `{id}` is not a Slurm job id")));
        }
        if repeated(&mut seen, &id) {
            return Err(at(format!("job `{id}` appears twice")));
        }
        let err =
            |field: &str, value: &str| at(format!("job `{id}`: {field}: `{value}` is not valid"));
        let time = |c: Option<usize>, field: &str| -> Result<i64, JobsError> {
            let v = get(c);
            pipe_time(v)
                .filter(|&t| (0..=MAX_EPOCH as i64).contains(&t))
                .ok_or_else(|| err(field, v))
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
                let n = v.parse::<i64>().map_err(|_| err("NICE", v))?;
                let n = if n > i64::from(i32::MAX) && n <= i64::from(u32::MAX) {
                    n - (1i64 << 32)
                } else {
                    n
                };
                if n.abs() > MAX_NICE {
                    return Err(at(format!(
                        "job `{id}`: NICE: {v} is out of range (-{MAX_NICE} to {MAX_NICE})"
                    )));
                }
                n
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
            tres: parse_tres_str(get(c_tres)).map_err(|m| at(format!("job `{id}`: TRES: {m}")))?,
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
        assert_eq!(e, "x.json:1: job `9`: `cpus`: `many` is not a number");
    }

    /// Every number is checked at the reader: finite, whole, in the field's range; a job id is
    /// a positive whole number, seen once; errors are one `FILE:LINE: what`.
    #[test]
    fn numbers_ids_and_repeats_are_refused_with_their_line() {
        let e = |doc: &str| {
            read_squeue_json("q.json", doc.as_bytes())
                .unwrap_err()
                .to_string()
        };
        let job = |fields: &str| format!("{{\"jobs\": [\n{{\"job_id\": 1}},\n{{{fields}}}]}}");
        assert_eq!(
            e(&job(r#""job_id": 2, "nice": -1e30"#)),
            "q.json:3: job `2`: `nice`: -1e30 is out of range (-2147483645 to 4294967295)"
        );
        assert!(e(&job(r#""job_id": -5"#)).starts_with("q.json:3: job #2: `job_id`: -5 is out"));
        assert!(e(&job(r#""job_id": 101.7"#)).contains("101.7 is not a whole number"));
        assert!(e(&job(r#""job_id": 0"#)).contains("`job_id`: 0 is out of range"));
        assert!(e(&job(r#""job_id": 2, "cpus": 1.5"#)).contains("`cpus`: 1.5 is not a whole"));
        assert!(e(&job(r#""job_id": 2, "submit_time": -1"#)).contains("`submit_time`"));
        assert!(e(&job(r#""job_id": 2, "time_limit": 1e10"#)).contains("`time_limit`"));
        assert_eq!(e(&job(r#""job_id": 1"#)), "q.json:3: job `1` appears twice");
        assert_eq!(
            e(&job(r#""user_name": "x""#)),
            "q.json:3: job #2: no `job_id` (every squeue --json job has one)"
        );
        // Raw control characters are not JSON, in a key as in a value.
        let bad = "{\"jobs\": [{\"job_id\": 1, \"x\u{1}y\": 2}]}";
        assert!(e(bad).starts_with("q.json:1:"), "{}", e(bad));
        let bad = "{\"jobs\": [{\"job_id\": 1, \"x\": {\"a\u{1}\": 2}}]}";
        assert!(e(bad).contains("control character"), "{}", e(bad));
        assert_eq!(e(" \n"), "q.json: empty file (no squeue output)");
        // A byte-order mark is skipped.
        let bom = "\u{feff}{\"jobs\": [{\"job_id\": 3}]}";
        assert_eq!(read_squeue("q.json", bom.as_bytes()).unwrap()[0].id, "3");
    }

    #[test]
    fn many_copies_of_one_job_are_refused_in_one_pass() {
        let mut doc = String::from("{\"jobs\": [");
        for i in 0..100_000 {
            doc.push_str(if i == 0 { "" } else { ",\n" });
            doc.push_str("{\"job_id\": 5}");
        }
        doc.push_str("]}");
        let e = read_squeue_json("q.json", doc.as_bytes()).unwrap_err();
        assert_eq!(e.to_string(), "q.json:2: job `5` appears twice");
    }

    #[test]
    fn pipe_ids_nice_and_times_are_checked() {
        let e = |t: &str| {
            read_squeue_pipe("p.txt", t.as_bytes())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            e("JOBID|NICE\n5|0\n5|0\n"),
            "p.txt:3: job `5` appears twice"
        );
        assert_eq!(
            e("JOBID|NICE\n-5|0\n"),
            "p.txt:2: JOBID `-5` is not a Slurm job id"
        );
        assert!(e("JOBID|NICE\n5|1e30\n").starts_with("p.txt:2: job `5`: NICE"));
        assert!(e("JOBID|NICE\n5|-9999999999\n").contains("out of range"));
        assert!(e("JOBID|SUBMIT_TIME\n5|-7\n").contains("SUBMIT_TIME"));
        assert_eq!(e(""), "p.txt: empty file (no squeue output)");
        assert!(e("USER|STATE\nbob|PD\n").starts_with("p.txt:1: the squeue header has no JOBID"));
        let ok = read_squeue_pipe(
            "p.txt",
            "\u{feff}JOBID|NICE\n7_[1-3]|4294967246\n".as_bytes(),
        );
        assert_eq!(ok.unwrap()[0].nice, -50);
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
