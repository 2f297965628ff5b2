//! The jobs of `squeue --json` as the forecast needs them ([`SlurmSnapshotJob`]): who, where,
//! how big, how long, the priority slurmctld computed and, for a pending job, the start time the
//! scheduler estimated. Slurm 22.05 writes plain numbers (`0` for an unset time); 23.02 on writes
//! `{set, infinite, number}` objects and `job_state` as a list: both are read.

use super::error::SnapshotError;
use crate::slurm::hostlist::{expand_hostlist_within, Budget};
use crate::slurm::job::{number, parse_tres_str, text, whole, Num, MAX_EPOCH};
use crate::slurm::squeue::{slim_jobs, SlimJob};
use serde_json::Value;

const WHAT: &str = "squeue --json";

/// One job of a Slurm snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmSnapshotJob {
    /// `job_id`; an array task as `ARRAY_TASK`, a pending array's remaining tasks as
    /// `ARRAY_[TASKS]` (the one record squeue shows for them).
    pub id: String,
    /// `user_name`.
    pub user: String,
    /// `account` (empty without accounting).
    pub account: String,
    /// `partition` (a job pending in several partitions has them `,`-separated).
    pub partition: String,
    /// `job_state` (`PENDING`, `RUNNING`, `COMPLETED`, ...; 23.02's list joined by `,`).
    pub state: String,
    /// `submit_time`, epoch seconds.
    pub submit: i64,
    /// `start_time`: the start of a running job, the scheduler's estimate for a pending one;
    /// `None` when Slurm has none (it writes 0).
    pub start: Option<i64>,
    /// `end_time`: when a running job reaches its time limit; `None` when 0.
    pub end: Option<i64>,
    /// `time_limit` in seconds (Slurm gives minutes); `None` when unlimited or unset.
    pub limit_secs: Option<i64>,
    /// `priority` as slurmctld computed it (0 for a held job).
    pub priority: f64,
    /// `cpus` (`num_cpus` in older schemas): allocated for a running job, requested (minimum)
    /// for a pending one.
    pub cpus: u64,
    /// `node_count`.
    pub node_count: u64,
    /// Memory in MB over all its nodes: `memory_per_node` × nodes, else `memory_per_cpu` × CPUs,
    /// else the `mem` of `tres_req_str`; 0 when none is given.
    pub mem_mb: u64,
    /// `nodes` expanded (a running job's nodes; empty for a pending job).
    pub nodes: Vec<String>,
    /// `state_reason` (`None`, `Priority`, `Resources`, `JobHeldUser`, ...).
    pub reason: String,
    /// `state_description`: slurmctld's own words when it has some (empty otherwise); squeue and
    /// scontrol print it in place of the reason (22.05: `Resources` with "Nodes required for job
    /// are DOWN, DRAINED or reserved for jobs in higher priority partitions").
    pub reason_text: String,
}

impl SlurmSnapshotJob {
    /// Whether the job is pending.
    pub fn is_pending(&self) -> bool {
        self.state
            .split(',')
            .any(|s| s.eq_ignore_ascii_case("PENDING"))
    }

    /// Whether the job is running.
    pub fn is_running(&self) -> bool {
        self.state
            .split(',')
            .any(|s| s.eq_ignore_ascii_case("RUNNING"))
    }
}

/// Reads the jobs of `squeue --json` output; `path` names the file in errors.
pub fn read_squeue_json(bytes: &[u8], path: &str) -> Result<Vec<SlurmSnapshotJob>, SnapshotError> {
    // the one parse of squeue --json (`slurm::squeue`), its fields as this reader needs them
    let bytes = crate::slurm::squeue::strip_bom(bytes);
    SnapshotError::refuse_empty(bytes, path, WHAT)?;
    let jobs = slim_jobs(bytes).map_err(|e| SnapshotError::json(path, WHAT, &e))?;
    let jobs = jobs.ok_or_else(|| SnapshotError::NoList {
        file: path.to_string(),
        what: WHAT,
        list: "jobs",
    })?;
    // Every job's `nodes` draws on one budget: the file's hostlists are bounded as a whole.
    let mut budget = Budget::file();
    let mut seen = std::collections::HashSet::with_capacity(jobs.len());
    let line = |i: usize| crate::files::json_lines::element_line(bytes, "jobs", i);
    let mut out = Vec::with_capacity(jobs.len());
    for (i, j) in jobs.into_iter().enumerate() {
        let j = job(path, i + 1, j, &mut budget).map_err(|e| e.at_line(line(i)))?;
        if !seen.insert(j.id.clone()) {
            return Err(SnapshotError::Field {
                file: path.to_string(),
                line: line(i),
                what: WHAT,
                place: format!("job #{} ({})", i + 1, j.id),
                field: "job_id",
                message: "appears twice".into(),
            });
        }
        out.push(j);
    }
    Ok(out)
}

/// A number field: `None` when absent, `null`, unset or infinite.
fn value(v: &Option<Value>) -> Result<Option<f64>, String> {
    match v.as_ref().map(number).transpose()? {
        Some(Num::Value(x)) if x.is_finite() => Ok(Some(x)),
        Some(Num::Value(x)) => Err(format!("{x} is not a finite number")),
        _ => Ok(None),
    }
}

/// A count (non-negative integer within u64), `None` when absent or unset.
fn count(v: &Option<Value>) -> Result<Option<u64>, String> {
    match value(v)? {
        None => Ok(None),
        Some(x) if x >= 0.0 && x.fract() == 0.0 && x < 1.8e19 => Ok(Some(x as u64)),
        Some(x) => Err(format!("{x} is not a count")),
    }
}

/// A whole number in `lo..=hi` (a job id, a CPU count, a priority: Slurm's are 32-bit).
fn ranged(v: &Option<Value>, lo: f64, hi: f64) -> Result<Option<u64>, String> {
    match value(v)? {
        None => Ok(None),
        Some(x) => whole(x, lo, hi).map(|x| Some(x as u64)),
    }
}

/// An epoch time; 0 (Slurm's "none") and unset are `None`.
fn epoch(v: &Option<Value>) -> Result<Option<i64>, String> {
    match value(v)? {
        None => Ok(None),
        Some(x) if x.fract() == 0.0 && (0.0..=MAX_EPOCH).contains(&x) => {
            Ok(Some(x as i64).filter(|&t| t != 0))
        }
        Some(x) => Err(format!("{x} is not a time")),
    }
}

fn job(
    path: &str,
    record: usize,
    j: SlimJob,
    budget: &mut Budget,
) -> Result<SlurmSnapshotJob, SnapshotError> {
    let fail = |name: &str, field: &'static str, message: String| SnapshotError::Field {
        file: path.to_string(),
        line: 0,
        what: WHAT,
        place: if name.is_empty() {
            format!("job #{record}")
        } else {
            format!("job #{record} ({name})")
        },
        field,
        message,
    };
    let u32_max = f64::from(u32::MAX);
    let base = match ranged(&j.job_id, 1.0, u32_max) {
        Ok(Some(id)) => id,
        Ok(None) => return Err(fail("", "job_id", "missing".into())),
        Err(m) => return Err(fail("", "job_id", m)),
    };
    let array = ranged(&j.array_job_id, 0.0, u32_max).map_err(|m| fail("", "array_job_id", m))?;
    let task = ranged(&j.array_task_id, 0.0, u32_max).map_err(|m| fail("", "array_task_id", m))?;
    let tasks = text(j.array_task_string.as_ref());
    let id = match (array, task) {
        (Some(a), Some(t)) if a > 0 => format!("{a}_{t}"),
        (Some(a), None) if a > 0 && !tasks.is_empty() => format!("{a}_[{tasks}]"),
        _ => base.to_string(),
    };
    let n = |field: &'static str, v: &Option<Value>| count(v).map_err(|m| fail(&id, field, m));
    let t = |field: &'static str, v: &Option<Value>| epoch(v).map_err(|m| fail(&id, field, m));
    let n32 = |field: &'static str, v: &Option<Value>| {
        ranged(v, 0.0, u32_max).map_err(|m| fail(&id, field, m))
    };
    let cpus = match j.cpus {
        Some(_) => n32("cpus", &j.cpus)?,
        None => n32("num_cpus", &j.num_cpus)?,
    }
    .unwrap_or(0);
    let node_count = n32("node_count", &j.node_count)?.unwrap_or(0);
    let limit_secs = match j.time_limit.as_ref().map(number).transpose() {
        Err(m) => return Err(fail(&id, "time_limit", m)),
        Ok(Some(Num::Value(m))) if m >= f64::from(u32::MAX - 1) => None,
        Ok(Some(Num::Value(m))) if m >= 0.0 && m.fract() == 0.0 => Some(m as i64 * 60),
        Ok(Some(Num::Value(m))) => return Err(fail(&id, "time_limit", format!("{m} minutes"))),
        Ok(_) => None,
    };
    let mem_mb = match (
        n("memory_per_node", &j.memory_per_node)?,
        n("memory_per_cpu", &j.memory_per_cpu)?,
    ) {
        (Some(per_node), _) => per_node.saturating_mul(node_count.max(1)),
        (None, Some(per_cpu)) => per_cpu.saturating_mul(cpus),
        (None, None) => {
            let tres = parse_tres_str(&text(j.tres_req_str.as_ref()))
                .map_err(|m| fail(&id, "tres_req_str", m))?;
            tres.iter()
                .find(|(k, _)| k == "mem")
                // `as` saturates: a negative count is 0.
                .map_or(0, |&(_, mb)| mb as u64)
        }
    };
    let hosts = text(j.nodes.as_ref());
    let nodes = if hosts.trim().is_empty() {
        Vec::new()
    } else {
        expand_hostlist_within(&hosts, budget).map_err(|m| fail(&id, "nodes", m))?
    };
    Ok(SlurmSnapshotJob {
        user: text(j.user_name.as_ref()),
        account: text(j.account.as_ref()),
        partition: text(j.partition.as_ref()),
        state: text(j.job_state.as_ref()),
        submit: t("submit_time", &j.submit_time)?.unwrap_or(0),
        start: t("start_time", &j.start_time)?,
        end: t("end_time", &j.end_time)?,
        limit_secs,
        priority: ranged(&j.priority, 0.0, u32_max)
            .map_err(|m| fail(&id, "priority", m))?
            .unwrap_or(0) as f64,
        cpus,
        node_count,
        mem_mb,
        nodes,
        reason: text(j.state_reason.as_ref()),
        reason_text: text(j.state_description.as_ref()),
        id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two jobs as Slurm 22.05.8 wrote them (fields cut to the used ones).
    const V22: &str = r#"{"meta": {"Slurm": {"release": "22.05.8"}}, "errors": [], "jobs": [
      {"account": "", "array_job_id": 0, "array_task_id": null, "array_task_string": "",
       "job_id": 53, "job_state": "RUNNING", "user_name": "alice", "partition": "debug",
       "submit_time": 1796187993, "start_time": 1796187996, "end_time": 1796191596,
       "time_limit": 60, "priority": 1750, "cpus": 4, "node_count": 1,
       "memory_per_node": 4000, "memory_per_cpu": null, "nodes": "vm", "state_reason": "None",
       "tres_req_str": "cpu=4,mem=4000M,node=1,billing=4"},
      {"job_id": 73, "array_job_id": 0, "array_task_id": null, "job_state": "PENDING",
       "user_name": "bob", "partition": "debug", "submit_time": 1796188062, "start_time": 0,
       "end_time": 0, "time_limit": 30, "priority": 2000, "cpus": 16, "node_count": 2,
       "memory_per_node": null, "memory_per_cpu": 500, "nodes": "",
       "state_reason": "PartitionConfig"}]}"#;

    #[test]
    fn reads_22_05_jobs() {
        let jobs = read_squeue_json(V22.as_bytes(), "squeue.json").unwrap();
        let (r, p) = (&jobs[0], &jobs[1]);
        assert_eq!(r.id, "53");
        assert!(r.is_running() && !r.is_pending());
        assert_eq!(
            (r.start, r.end, r.limit_secs),
            (Some(1796187996), Some(1796191596), Some(3600))
        );
        assert_eq!((r.cpus, r.mem_mb, r.priority), (4, 4000, 1750.0));
        assert_eq!(r.nodes, ["vm"]);
        assert_eq!((p.start, p.end), (None, None), "0 is no estimate");
        assert_eq!(p.mem_mb, 16 * 500, "per CPU times CPUs");
        assert_eq!((p.reason.as_str(), p.node_count), ("PartitionConfig", 2));
        assert!(p.nodes.is_empty());
    }

    #[test]
    fn reads_23_02_objects() {
        let doc = r#"{"jobs": [{"job_id": 7, "array_job_id": {"set": true, "number": 5},
          "array_task_id": {"set": true, "number": 2}, "job_state": ["PENDING"],
          "start_time": {"set": true, "infinite": false, "number": 1700000060},
          "time_limit": {"set": true, "infinite": true, "number": 0},
          "priority": {"set": true, "number": 12}, "cpus": {"set": true, "number": 2},
          "node_count": {"set": true, "number": 1}, "memory_per_node": {"set": false, "number": 0},
          "memory_per_cpu": {"set": false, "number": 0}, "tres_req_str": "cpu=2,mem=2G",
          "nodes": "n[01-02]"}]}"#;
        let j = &read_squeue_json(doc.as_bytes(), "q.json").unwrap()[0];
        assert_eq!(j.id, "5_2");
        assert!(j.is_pending());
        assert_eq!(
            (j.start, j.limit_secs, j.priority),
            (Some(1700000060), None, 12.0)
        );
        assert_eq!(
            j.mem_mb, 2048,
            "from tres_req_str when neither memory field is set"
        );
        assert_eq!(j.nodes, ["n01", "n02"]);
    }

    #[test]
    fn a_pending_array_is_one_record() {
        let doc = r#"{"jobs": [{"job_id": 9, "array_job_id": 9, "array_task_id": null,
          "array_task_string": "1-2000", "job_state": "PENDING", "cpus": 1}]}"#;
        assert_eq!(
            read_squeue_json(doc.as_bytes(), "q").unwrap()[0].id,
            "9_[1-2000]"
        );
    }

    #[test]
    fn repeats_ranges_and_lines() {
        let e = |doc: &str| {
            read_squeue_json(doc.as_bytes(), "q.json")
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            e("{\"jobs\": [\n{\"job_id\": 4},\n{\"job_id\": 4}]}"),
            "q.json:3: squeue --json: job #2 (4): `job_id`: appears twice"
        );
        assert!(e("{\"jobs\": [{\"job_id\": 0}]}").contains("0 is out of range"));
        assert!(e("{\"jobs\": [{\"job_id\": 4.5}]}").contains("4.5 is not a whole number"));
        let p = e("{\"jobs\": [\n\n{\"job_id\": 4, \"priority\": -1e30}]}");
        assert!(
            p.starts_with("q.json:3: ") && p.contains("`priority`"),
            "{p}"
        );
        assert!(e("{\"jobs\": [{\"job_id\": 4, \"submit_time\": -5}]}").contains("is not a time"));
        assert_eq!(e(" "), "q.json: empty file (no squeue --json output)");
        let bom = "\u{feff}{\"jobs\": [{\"job_id\": 4}]}";
        assert_eq!(read_squeue_json(bom.as_bytes(), "q").unwrap()[0].id, "4");
        // The file's hostlists share one budget.
        let many: Vec<String> = (1..=9)
            .map(|i| format!("{{\"job_id\": {i}, \"nodes\": \"n[1-1000000]\"}}"))
            .collect();
        let doc = format!("{{\"jobs\": [{}]}}", many.join(",\n"));
        assert!(
            e(&doc).contains("the file's hostlists expand to more than"),
            "{}",
            e(&doc)
        );
    }

    #[test]
    fn errors_name_the_file_and_the_place() {
        let e = read_squeue_json(b"{\"jobs\": [\n{\"job_id\": 1,}]}", "q.json").unwrap_err();
        assert!(e.to_string().starts_with("q.json:2:"), "{e}");
        let e = read_squeue_json(b"{\"nodes\": []}", "q.json").unwrap_err();
        assert_eq!(e.to_string(), "q.json: squeue --json: no `jobs` list");
        let e =
            read_squeue_json(br#"{"jobs": [{"job_id": 3, "cpus": -1}]}"#, "q.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "q.json:1: squeue --json: job #1 (3): `cpus`: -1 is out of range (0 to 4294967295)"
        );
        let e = read_squeue_json(br#"{"jobs": [{"cpus": 1}]}"#, "q.json").unwrap_err();
        assert!(e.to_string().contains("`job_id`: missing"), "{e}");
        let e =
            read_squeue_json(br#"{"jobs": [{"job_id": 1, "nodes": "n[1-"}]}"#, "q").unwrap_err();
        assert!(e.to_string().contains("`nodes`"), "{e}");
        let e =
            read_squeue_json(br#"{"jobs": [{"job_id": 1, "time_limit": 1.5}]}"#, "q").unwrap_err();
        assert!(e.to_string().contains("`time_limit`"), "{e}");
    }
}
