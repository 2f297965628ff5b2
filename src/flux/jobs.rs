//! flux's pending queue as `flux jobs --json` prints it (flux-core `flux-jobs.py`,
//! `JobInfo.to_dict`): `{"jobs": [{"id": 1234, "userid": 5011, "urgency": 16, "queue": "batch",
//! "bank": "physics", "state": "SCHED", "t_submit": 1.7e9, ...}]}`, or a single job object when
//! one job id was asked for. `id` is the numeric FLUID (`jobid` its f58 text), `state` a name
//! (`DEPEND`, `PRIORITY`, `SCHED`, `RUN`, ...); empty fields are left out by flux (no `queue`
//! when the job has none, no `bank` until the plugin has posted the default bank).
//!
//! The `priority` field of the input is never used: it is the answer.

use crate::jobs::error::JobsError;
use serde::Deserialize;
use serde_json::Value;

/// One flux job as `mf_priority` needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct FluxJob {
    /// The numeric job id (a FLUID: later submissions have larger ids).
    pub id: u64,
    /// The user id the job runs as.
    pub userid: i64,
    /// `username`, when the input has it (flux resolves it on the machine that ran `flux jobs`).
    pub username: Option<String>,
    /// Urgency, 0 (hold) to 31 (expedite); 16 is the default.
    pub urgency: i32,
    /// `attributes.system.queue`, if any.
    pub queue: Option<String>,
    /// `attributes.system.bank`, if any (absent: the user's default bank).
    pub bank: Option<String>,
    /// The state name (`None` when the input has none: taken as pending).
    pub state: Option<String>,
    /// Submission time, seconds since the epoch (0 when absent).
    pub t_submit: f64,
}

impl FluxJob {
    /// Whether the job is waiting to run (NEW, DEPEND, PRIORITY or SCHED; no state: pending).
    pub fn is_pending(&self) -> bool {
        match &self.state {
            None => true,
            Some(s) => matches!(
                s.to_ascii_uppercase().as_str(),
                "NEW" | "DEPEND" | "PRIORITY" | "SCHED" | "D" | "P" | "S"
            ),
        }
    }

    /// The job id as flux prints it: f58 with the `ƒ` prefix.
    pub fn f58(&self) -> String {
        f58_encode(self.id)
    }
}

const F58_DIGITS: &[u8; 58] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/// A FLUID as flux-core's `fluid_f58_encode` writes it (UTF-8 locale): `ƒ` then base 58.
pub fn f58_encode(id: u64) -> String {
    let mut digits = Vec::new();
    let mut n = id;
    loop {
        digits.push(F58_DIGITS[(n % 58) as usize] as char);
        n /= 58;
        if n == 0 {
            break;
        }
    }
    let mut s = String::from("ƒ");
    s.extend(digits.iter().rev());
    s
}

/// A job id as flux accepts one: decimal, or f58 with a `ƒ` or `f` prefix.
pub fn parse_job_id(text: &str) -> Option<u64> {
    let t = text.trim();
    if let Ok(n) = t.parse::<u64>() {
        return Some(n);
    }
    let body = t.strip_prefix('ƒ').or_else(|| t.strip_prefix('f'))?;
    if body.is_empty() || body.len() > 12 {
        return None;
    }
    let mut n: u64 = 0;
    for c in body.bytes() {
        let d = F58_DIGITS.iter().position(|&x| x == c)? as u64;
        n = n.checked_mul(58)?.checked_add(d)?;
    }
    Some(n)
}

/// Whether JSON text looks like `flux jobs --json` output: its first job has `userid` and
/// `urgency` (fairsort's own job lists have neither).
pub fn looks_like_flux_jobs(head: &str) -> bool {
    head.contains("\"userid\"") && head.contains("\"urgency\"")
}

fn bad(name: &str, job: &str, field: &str, message: impl Into<String>) -> JobsError {
    JobsError::BadField {
        job: format!("{name}: {job}"),
        field: field.to_string(),
        message: message.into(),
    }
}

fn opt_text(
    name: &str,
    job: &str,
    v: Option<&Value>,
    field: &str,
) -> Result<Option<String>, JobsError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(bad(name, job, field, format!("expected text, got {other}"))),
    }
}

/// The fields of one job fairsort reads; the others are skipped while parsing, not kept (a
/// million-job capture stays a few hundred bytes per job).
#[derive(Debug, Default, Deserialize)]
struct RawJob {
    id: Option<Value>,
    jobid: Option<Value>,
    userid: Option<Value>,
    urgency: Option<Value>,
    queue: Option<Value>,
    bank: Option<Value>,
    state: Option<Value>,
    t_submit: Option<Value>,
    username: Option<Value>,
}

/// The whole document: `{"jobs": [...]}`, or one job's fields at the top.
#[derive(Debug, Default, Deserialize)]
struct Top {
    jobs: Option<Vec<RawJob>>,
    id: Option<Value>,
    jobid: Option<Value>,
    userid: Option<Value>,
    urgency: Option<Value>,
    queue: Option<Value>,
    bank: Option<Value>,
    state: Option<Value>,
    t_submit: Option<Value>,
    username: Option<Value>,
}

fn one_job(name: &str, index: usize, o: &RawJob) -> Result<FluxJob, JobsError> {
    let id = match &o.id {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => parse_job_id(s),
        _ => None,
    };
    let id = match id {
        Some(id) => id,
        None => match o
            .jobid
            .as_ref()
            .and_then(Value::as_str)
            .and_then(parse_job_id)
        {
            Some(id) => id,
            None => {
                return Err(JobsError::Json {
                    message: format!(
                        "{name}: job #{}: `id` is missing or not a job id (an unsigned integer)",
                        index + 1
                    ),
                })
            }
        },
    };
    let label = f58_encode(id);
    let userid = match &o.userid {
        Some(Value::Number(n)) => n
            .as_i64()
            .ok_or_else(|| bad(name, &label, "userid", format!("`{n}` is not an integer")))?,
        Some(other) => {
            return Err(bad(
                name,
                &label,
                "userid",
                format!("expected an integer, got {other}"),
            ))
        }
        None => return Err(bad(name, &label, "userid", "missing")),
    };
    let urgency = match &o.urgency {
        Some(Value::Number(n)) => match n.as_i64() {
            Some(u) if (0..=31).contains(&u) => u as i32,
            _ => {
                return Err(bad(
                    name,
                    &label,
                    "urgency",
                    format!("`{n}` is not an urgency (an integer from 0 to 31)"),
                ))
            }
        },
        Some(other) => {
            return Err(bad(
                name,
                &label,
                "urgency",
                format!("expected an integer from 0 to 31, got {other}"),
            ))
        }
        None => return Err(bad(name, &label, "urgency", "missing")),
    };
    let state = match &o.state {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(state_name(n.as_u64()).to_string()),
        Some(other) => {
            return Err(bad(
                name,
                &label,
                "state",
                format!("expected a state name, got {other}"),
            ))
        }
    };
    let t_submit = match &o.t_submit {
        None | Some(Value::Null) => 0.0,
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(other) => {
            return Err(bad(
                name,
                &label,
                "t_submit",
                format!("expected a number, got {other}"),
            ))
        }
    };
    Ok(FluxJob {
        id,
        userid,
        username: opt_text(name, &label, o.username.as_ref(), "username")?,
        urgency,
        queue: opt_text(name, &label, o.queue.as_ref(), "queue")?,
        bank: opt_text(name, &label, o.bank.as_ref(), "bank")?,
        state,
        t_submit,
    })
}

/// flux-core's numeric states (`flux_job_state_t`: NEW 1, DEPEND 2, PRIORITY 4, SCHED 8, RUN 16,
/// CLEANUP 32, INACTIVE 64), as job-list reports them to older clients.
fn state_name(n: Option<u64>) -> &'static str {
    match n {
        Some(1) => "NEW",
        Some(2) => "DEPEND",
        Some(4) => "PRIORITY",
        Some(8) => "SCHED",
        Some(16) => "RUN",
        Some(32) => "CLEANUP",
        Some(64) => "INACTIVE",
        _ => "UNKNOWN",
    }
}

/// Reads `flux jobs --json` output (`{"jobs": [...]}`, one job object, or a bare array); `name`
/// is the file name errors give. Jobs of sub-instances (`flux jobs -R`'s nested `jobs`) are not
/// read: another instance's plugin prioritises them.
pub fn read_flux_jobs(name: &str, bytes: &[u8]) -> Result<Vec<FluxJob>, JobsError> {
    let json_err = |e: serde_json::Error| JobsError::Json {
        message: format!("{name}: {e}"),
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    let list: Vec<RawJob> = match first {
        Some(b'[') => serde_json::from_slice(bytes).map_err(json_err)?,
        Some(b'{') => {
            let top: Top = serde_json::from_slice(bytes).map_err(json_err)?;
            // One job (`flux jobs --json JOBID`; with -R its children are in its `jobs`).
            match top.jobs {
                Some(list) if top.id.is_none() && top.jobid.is_none() => list,
                _ if top.id.is_some() || top.jobid.is_some() => vec![RawJob {
                    id: top.id,
                    jobid: top.jobid,
                    userid: top.userid,
                    urgency: top.urgency,
                    queue: top.queue,
                    bank: top.bank,
                    state: top.state,
                    t_submit: top.t_submit,
                    username: top.username,
                }],
                _ => {
                    return Err(JobsError::Json {
                        message: format!(
                        "{name}: not `flux jobs --json` output (no `jobs` array and no job `id`)"
                    ),
                    })
                }
            }
        }
        _ => {
            // Not an object or array: serde_json's own message for bad JSON, ours otherwise.
            serde_json::from_slice::<Value>(bytes).map_err(json_err)?;
            return Err(JobsError::Json {
                message: format!("{name}: not `flux jobs --json` output (not an object)"),
            });
        }
    };
    let mut jobs = Vec::with_capacity(list.len());
    for (i, j) in list.iter().enumerate() {
        jobs.push(one_job(name, i, j)?);
    }
    // Duplicate ids: sorted neighbours (cheaper than a hash set over a million ids).
    let mut ids: Vec<u64> = jobs.iter().map(|j| j.id).collect();
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(JobsError::DuplicateJob(format!(
            "{name}: {}",
            f58_encode(w[0])
        )));
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f58_round_trips_and_matches_flux() {
        // flux-core src/common/libutil/test/fluid.c, `f58_tests`.
        let vectors: [(u64, &str); 14] = [
            (0, "ƒ1"),
            (1, "ƒ2"),
            (57, "ƒz"),
            (1234, "ƒNH"),
            (1888, "ƒZZ"),
            (3363, "ƒzz"),
            (3364, "ƒ211"),
            (4369, "ƒ2JL"),
            (65535, "ƒLUv"),
            (4294967295, "ƒ7YXq9G"),
            (633528662, "ƒxyzzy"),
            (6731191091817518, "ƒuZZybuNNy"),
            (18446744073709551614, "ƒjpXCZedGfVP"),
            (18446744073709551615, "ƒjpXCZedGfVQ"),
        ];
        for (id, text) in vectors {
            assert_eq!(f58_encode(id), text);
            assert_eq!(parse_job_id(text), Some(id));
            assert_eq!(parse_job_id(&text.replace('ƒ', "f")), Some(id));
        }
        for id in [0u64, 1, 57, 58, 3_364, 1_234_567_890_123, u64::MAX] {
            assert_eq!(parse_job_id(&f58_encode(id)), Some(id));
        }
        assert_eq!(parse_job_id("12345"), Some(12345));
        assert_eq!(parse_job_id("ƒ0"), None);
        assert_eq!(parse_job_id("ƒ"), None);
        assert_eq!(parse_job_id("ƒzzzzzzzzzzzzz"), None);
    }

    #[test]
    fn reads_the_jobs_array_with_big_ids() {
        let text = br#"{"jobs": [
          {"id": 18446744073709551615, "userid": 5011, "urgency": 16, "state": "SCHED",
           "queue": "batch", "bank": "A", "priority": 99, "t_submit": 1700000000.5},
          {"id": 7, "userid": 5012, "urgency": 0, "state": "PRIORITY", "queue": ""},
          {"id": 8, "userid": 5012, "urgency": 31, "state": "RUN"}
        ]}"#;
        let jobs = read_flux_jobs("q.json", text).unwrap();
        assert_eq!(jobs.len(), 3);
        assert_eq!(jobs[0].id, u64::MAX);
        assert_eq!(jobs[0].queue.as_deref(), Some("batch"));
        assert_eq!(jobs[0].bank.as_deref(), Some("A"));
        assert_eq!(jobs[0].t_submit, 1_700_000_000.5);
        assert_eq!(jobs[1].queue, None);
        assert!(jobs[1].is_pending());
        assert!(!jobs[2].is_pending());
    }

    #[test]
    fn a_single_job_object_is_one_job() {
        let jobs = read_flux_jobs("-", br#"{"id": 5, "userid": 1, "urgency": 16}"#).unwrap();
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].state, None);
        assert!(jobs[0].is_pending());
        // `flux jobs -R --json JOBID`: the sub-instance's jobs are not this instance's.
        let jobs = read_flux_jobs(
            "-",
            br#"{"id": 5, "userid": 1, "urgency": 16, "jobs": [{"id": 6, "userid": 2, "urgency": 3}]}"#,
        )
        .unwrap();
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].id, 5);
    }

    #[test]
    fn errors_name_file_job_and_field() {
        let e = read_flux_jobs(
            "q.json",
            br#"{"jobs":[{"id": 58, "userid": 1, "urgency": 40}]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("q.json") && e.contains("ƒ21") && e.contains("urgency"),
            "{e}"
        );
        let e = read_flux_jobs("q.json", br#"{"jobs":[{"id": 58, "urgency": 4}]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("userid") && e.contains("missing"), "{e}");
        let e = read_flux_jobs("q.json", br#"{"jobs":[{"userid": 1, "urgency": 4}]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("job #1") && e.contains("`id`"), "{e}");
        let e = read_flux_jobs(
            "q.json",
            br#"{"jobs":[{"id":1,"userid":1,"urgency":4},{"id":1,"userid":1,"urgency":4}]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("twice"), "{e}");
        assert!(read_flux_jobs("q.json", b"{\"jobs\": 3}").is_err());
        assert!(read_flux_jobs("q.json", b"not json").is_err());
        assert!(read_flux_jobs("q.json", b"\"text\"").is_err());
    }

    #[test]
    fn detection_needs_userid_and_urgency() {
        assert!(looks_like_flux_jobs(
            r#"{"jobs": [{"id": 1, "userid": 2, "urgency": 16}]}"#
        ));
        assert!(!looks_like_flux_jobs(
            r#"{"jobs": [{"id": "1", "user": "bob"}]}"#
        ));
    }
}
