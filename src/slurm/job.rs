//! One Slurm job as the multifactor plugin needs it ([`SlurmJob`]), whichever reader made it
//! (`squeue --json`, `squeue` pipe output, `sacct --json`), and the JSON values those readers
//! share: data_parser's numbers (plain, `null`, or `{set, infinite, number}`), texts, TRES strings.

use crate::jobs::error::JobsError;
use serde_json::Value;

/// A job's time limit in minutes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeLimit {
    /// Not set: the partition's MaxTime applies.
    Unset,
    /// Minutes.
    Minutes(u32),
    /// UNLIMITED (Slurm's INFINITE).
    Infinite,
}

/// One Slurm job as the multifactor plugin needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmJob {
    /// `job_id` (an array task as printed, e.g. `123_4` when available).
    pub id: String,
    /// `user_name`.
    pub user: String,
    /// `account`.
    pub account: String,
    /// `partition` split on `,` (a job pending in several partitions).
    pub partitions: Vec<String>,
    /// `qos`.
    pub qos: String,
    /// `job_state` (`PENDING`, `RUNNING`, ...).
    pub state: String,
    /// Held (`state_reason` `JobHeldUser`/`JobHeldAdmin`): slurmctld sets its priority to 0
    /// and sprio leaves it out.
    pub held: bool,
    /// `submit_time` (epoch seconds, 0 when unset).
    pub submit_time: i64,
    /// `eligible_time` (0 when unset).
    pub eligible_time: i64,
    /// `accrue_time` (0 when unset: a held job or a future `--begin`); `None` when the input has
    /// no such field.
    pub accrue_time: Option<i64>,
    /// `nice` as the user gave it (negative raises the priority).
    pub nice: i64,
    /// `node_count` (the minimum nodes).
    pub node_count: u32,
    /// `cpus` / `num_cpus` (the minimum CPUs).
    pub cpus: u32,
    /// `time_limit`.
    pub time_limit: TimeLimit,
    /// `tres_req_str` parsed: lower-case TRES name → count (memory in MB).
    pub tres: Vec<(String, f64)>,
}

impl SlurmJob {
    /// Whether a `state_reason` (squeue's REASON) says the job is held.
    pub fn is_held_reason(reason: &str) -> bool {
        reason.trim().starts_with("JobHeld")
    }

    /// Whether the job is pending (sprio lists only these).
    pub fn is_pending(&self) -> bool {
        self.state.eq_ignore_ascii_case("PENDING") || self.state.eq_ignore_ascii_case("PD")
    }
}

/// A number as squeue --json prints it: a plain number, `null`, or `{set, infinite, number}`.
pub(crate) enum Num {
    Unset,
    Infinite,
    Value(f64),
}

pub(crate) fn number(v: &Value) -> Result<Num, String> {
    match v {
        Value::Null => Ok(Num::Unset),
        Value::Number(n) => n
            .as_f64()
            .map(Num::Value)
            .ok_or_else(|| "not a number".to_string()),
        Value::String(s) if s.trim().is_empty() => Ok(Num::Unset),
        Value::String(s) => s
            .trim()
            .parse()
            .map(Num::Value)
            .map_err(|_| format!("`{s}` is not a number")),
        Value::Object(o) => {
            if o.get("infinite").and_then(Value::as_bool) == Some(true) {
                return Ok(Num::Infinite);
            }
            if o.get("set").and_then(Value::as_bool) == Some(false) {
                return Ok(Num::Unset);
            }
            match o.get("number") {
                Some(n) => number(n),
                None => Err("an object without `number`".into()),
            }
        }
        other => Err(format!("`{other}` is not a number")),
    }
}

pub(crate) fn text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(","),
        _ => String::new(),
    }
}

/// `cpu=4,mem=8G,node=1,billing=4,gres/gpu=2` → names and counts (memory in MB).
pub fn parse_tres_str(s: &str) -> Result<Vec<(String, f64)>, String> {
    let mut out = Vec::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| format!("`{item}` is not NAME=COUNT"))?;
        let name = name.trim().to_ascii_lowercase();
        let value = value.trim();
        let (digits, scale) = match value.chars().last() {
            Some('K' | 'k') => (&value[..value.len() - 1], 1.0 / 1024.0),
            Some('M' | 'm') => (&value[..value.len() - 1], 1.0),
            Some('G' | 'g') => (&value[..value.len() - 1], 1024.0),
            Some('T' | 't') => (&value[..value.len() - 1], 1024.0 * 1024.0),
            Some('P' | 'p') => (&value[..value.len() - 1], 1024.0 * 1024.0 * 1024.0),
            _ => (value, 1.0),
        };
        let n: f64 = digits
            .parse()
            .ok()
            .filter(|n: &f64| n.is_finite())
            .ok_or_else(|| format!("`{item}`: `{value}` is not a count"))?;
        // Only memory takes units; a suffix on a count multiplies by 1024s as Slurm prints it.
        let n = if name == "mem" {
            n * scale
        } else {
            n * match scale {
                s if s < 1.0 => 1.0,
                s => s,
            }
        };
        out.push((name, n));
    }
    Ok(out)
}

pub(crate) fn to_u32(job: &str, field: &str, n: Num) -> Result<u32, JobsError> {
    match n {
        Num::Unset => Ok(0),
        Num::Infinite => Ok(u32::MAX),
        Num::Value(v) => whole(v, 0.0, f64::from(u32::MAX))
            .map(|v| v as u32)
            .map_err(|m| bad(job, field, m)),
    }
}

/// `v` as a whole number within `lo..=hi`, or why not (not finite, a fraction, out of range).
pub(crate) fn whole(v: f64, lo: f64, hi: f64) -> Result<i64, String> {
    let shown = |x: f64| {
        if x.abs() >= 1e15 {
            format!("{x:e}")
        } else {
            format!("{x}")
        }
    };
    if !v.is_finite() || v.fract() != 0.0 {
        return Err(format!("{} is not a whole number", shown(v)));
    }
    if v < lo || v > hi {
        return Err(format!(
            "{} is out of range ({} to {})",
            shown(v),
            shown(lo),
            shown(hi)
        ));
    }
    Ok(v as i64)
}

/// The last epoch second Slurm's readers accept (9999-12-31T23:59:59Z).
pub(crate) const MAX_EPOCH: f64 = 253_402_300_799.0;

/// The range of a job's nice as slurmctld accepts it (`NICE_OFFSET` − 3 either way).
pub(crate) const MAX_NICE: i64 = 2_147_483_645;

pub(crate) fn bad(job: &str, field: &str, message: String) -> JobsError {
    JobsError::BadField {
        job: job.to_string(),
        field: field.to_string(),
        message,
    }
}

/// A partition list (`batch,big`) split on `,`.
pub(crate) fn split_partitions(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}
