//! One job of `sacct --json` (Slurm 21.08 to 24.x, data_parser v0.0.37 to v0.0.41): the
//! fields of `slurmdb_job_rec_t` as SchedMD's data_parser names them: `job_id`, `array`
//! {`job_id`, `task_id`}, `user`, `account`, `partition`, `qos`, `state` {`current`: a string,
//! or a list from 23.02}, `time` {`submission`, `eligible`, `limit` (minutes; a plain number or
//! `{set, infinite, number}`)}, `required` {`CPUs`}, `tres` {`requested`: a list of {`type`,
//! `name`, `count`}} and `allocation_nodes`.
//!
//! slurmdbd keeps neither the accrue time nor the nice value: age is counted from the eligible
//! time (else the submit time) and nice is 0, as for `squeue -o` input (docs/slurm.md). The
//! `priority` field is never used: it is the answer.

use crate::jobs::error::JobsError;
use crate::slurm::job::{
    bad, number, parse_tres_str, split_partitions, text, to_u32, whole, Num, SlurmJob, TimeLimit,
};
use serde_json::Value;

/// `tres.requested` (or `tres.allocated`) as `name=count` pairs: `cpu`, `mem` (MB), `node`,
/// `billing`, `gres/gpu`, ...
fn tres_list(job: &str, name: &str, v: Option<&Value>) -> Result<Vec<(String, f64)>, JobsError> {
    let Some(v) = v else {
        return Ok(Vec::new());
    };
    let items = match v {
        Value::Array(a) => a,
        Value::Null => return Ok(Vec::new()),
        // A TRES string, as some builds print it.
        Value::String(s) => {
            return parse_tres_str(s).map_err(|m| bad(job, &format!("{name}: tres.requested"), m))
        }
        _ => {
            return Err(bad(
                job,
                &format!("{name}: tres.requested"),
                "not a list".into(),
            ))
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for t in items {
        let ty = text(t.get("type")).to_ascii_lowercase();
        if ty.is_empty() {
            return Err(bad(
                job,
                &format!("{name}: tres.requested"),
                "an entry without `type`".into(),
            ));
        }
        let sub = text(t.get("name")).to_ascii_lowercase();
        let label = if sub.is_empty() {
            ty
        } else {
            format!("{ty}/{sub}")
        };
        let count = match t.get("count").map(number) {
            Some(Ok(Num::Value(c))) => c,
            None | Some(Ok(_)) => 0.0,
            Some(Err(m)) => {
                return Err(bad(
                    job,
                    &format!("{name}: tres.requested {label} count"),
                    m,
                ))
            }
        };
        out.push((label, count));
    }
    Ok(out)
}

/// The `jobs` list of a `sacct --json` document: the one document reader of `usage record`,
/// `replay` and the job readers.
pub fn sacct_json_jobs(bytes: &[u8]) -> Result<Vec<Value>, String> {
    let doc: Value = serde_json::from_slice(bytes).map_err(|e| format!("sacct --json: {e}"))?;
    match doc {
        Value::Object(mut o) => match o.remove("jobs") {
            Some(Value::Array(jobs)) => Ok(jobs),
            _ => Err("sacct --json: no `jobs` list".into()),
        },
        _ => Err("sacct --json: no `jobs` list".into()),
    }
}

/// A TRES count of `tres.<kind>` (`allocated` or `requested`) of type `ty` (no name), if any.
pub fn tres_count(j: &Value, kind: &str, ty: &str) -> Option<f64> {
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

/// A plain number or data_parser's `{set, infinite, number}`; `None` when unset, infinite or
/// not a number.
pub fn json_value(v: Option<&Value>) -> Option<f64> {
    match number(v?) {
        Ok(Num::Value(x)) => Some(x),
        _ => None,
    }
}

/// Reads job number `index` (0-based) of a `sacct --json` document named `name`.
pub fn sacct_job(name: &str, index: usize, j: &Value) -> Result<SlurmJob, JobsError> {
    if let Some(Ok(Num::Value(v))) = j.get("job_id").map(number) {
        if let Err(m) = whole(v, 1.0, f64::from(u32::MAX)) {
            return Err(JobsError::Json {
                message: format!("{name}: job #{}: `job_id`: {m}", index + 1),
            });
        }
    }
    let id = match j.get("job_id").map(number) {
        Some(Ok(Num::Value(v))) => {
            let array = j.get("array");
            let get = |k: &str| array.and_then(|a| a.get(k)).map(number);
            match (get("job_id"), get("task_id")) {
                (Some(Ok(Num::Value(a))), Some(Ok(Num::Value(t)))) if a > 0.0 => {
                    format!("{}_{}", a as u64, t as u64)
                }
                _ => format!("{}", v as u64),
            }
        }
        _ => {
            return Err(JobsError::Json {
                message: format!("{name}: job #{}: no `job_id`", index + 1),
            })
        }
    };
    let time = j.get("time");
    let field = |path: &str, v: Option<&Value>| -> Result<Num, JobsError> {
        match v {
            None => Ok(Num::Unset),
            Some(v) => number(v).map_err(|m| bad(&id, &format!("{name}: {path}"), m)),
        }
    };
    let seconds = |k: &str| -> Result<i64, JobsError> {
        Ok(
            match field(&format!("time.{k}"), time.and_then(|t| t.get(k)))? {
                Num::Value(v) => v as i64,
                _ => 0,
            },
        )
    };
    let time_limit = match field("time.limit", time.and_then(|t| t.get("limit")))? {
        Num::Unset => TimeLimit::Unset,
        Num::Infinite => TimeLimit::Infinite,
        Num::Value(v) if v >= f64::from(u32::MAX - 1) => TimeLimit::Infinite,
        Num::Value(v) => TimeLimit::Minutes(to_u32(&id, "time.limit", Num::Value(v))?),
    };
    let tres = tres_list(&id, name, j.get("tres").and_then(|t| t.get("requested")))?;
    let tres_count = |n: &str| tres.iter().find(|t| t.0 == n).map(|t| t.1);
    let required_cpus = j
        .get("required")
        .and_then(|r| r.get("CPUs"))
        .map(|v| field("required.CPUs", Some(v)))
        .transpose()?;
    let cpus = match required_cpus {
        Some(Num::Value(v)) if v > 0.0 => to_u32(&id, "required.CPUs", Num::Value(v))?,
        _ => tres_count("cpu").map_or(0, |c| c as u32),
    };
    let node_count = match tres_count("node") {
        Some(n) => n as u32,
        None => to_u32(
            &id,
            "allocation_nodes",
            field("allocation_nodes", j.get("allocation_nodes"))?,
        )?,
    };
    let (state, reason) = match j.get("state") {
        Some(Value::Object(o)) => (text(o.get("current")), text(o.get("reason"))),
        other => (text(other), String::new()),
    };
    Ok(SlurmJob {
        user: text(j.get("user")),
        account: text(j.get("account")),
        partitions: split_partitions(&text(j.get("partition"))),
        qos: text(j.get("qos")),
        state,
        held: SlurmJob::is_held_reason(&reason),
        submit_time: seconds("submission")?,
        eligible_time: seconds("eligible")?,
        accrue_time: None,
        nice: 0,
        node_count,
        cpus,
        time_limit,
        tres,
        id,
    })
}

#[cfg(test)]
mod tests {
    use crate::slurm::squeue::{read_squeue_json, TimeLimit};

    #[test]
    fn old_and_new_schemas() {
        // data_parser v0.0.37/38 (21.08, 22.05): plain numbers, `state.current` a string.
        let old = br#"{"meta":{"plugin":{"type":"openapi/dbv0.0.38"},"Slurm":{"version":{"major":22}}},
          "jobs":[{"account":"phys","allocation_nodes":0,"array":{"job_id":0,"task_id":null},
          "job_id":41,"partition":"batch,big","priority":1234,"qos":"normal",
          "required":{"CPUs":12,"memory":8000},"state":{"current":"PENDING","reason":"Resources"},
          "time":{"eligible":1700000100,"limit":120,"submission":1700000000,"start":0},
          "tres":{"allocated":[],"requested":[{"type":"cpu","name":null,"id":1,"count":12},
            {"type":"mem","name":null,"id":2,"count":8000},{"type":"node","name":null,"id":4,"count":2},
            {"type":"gres","name":"gpu","id":1001,"count":1}]},"user":"bob"}]}"#;
        let j = &read_squeue_json("sacct.json", old).unwrap()[0];
        assert_eq!(j.id, "41");
        assert_eq!((j.user.as_str(), j.account.as_str()), ("bob", "phys"));
        assert_eq!(j.partitions, ["batch", "big"]);
        assert_eq!(
            (j.submit_time, j.eligible_time, j.accrue_time),
            (1700000000, 1700000100, None)
        );
        assert_eq!((j.cpus, j.node_count, j.nice), (12, 2, 0));
        assert_eq!(j.time_limit, TimeLimit::Minutes(120));
        assert!(j.is_pending());
        assert_eq!(j.tres[1], ("mem".to_string(), 8000.0));
        assert_eq!(j.tres[3], ("gres/gpu".to_string(), 1.0));
        // v0.0.40+ (23.11, 24.x): `{set, infinite, number}` and `state.current` a list.
        let new = br#"{"jobs":[{"account":"a","array":{"job_id":50,"task_id":{"set":true,"infinite":false,"number":3}},
          "job_id":53,"partition":"p","qos":"q","required":{"CPUs":0},
          "state":{"current":["PENDING"],"reason":"Priority"},
          "time":{"eligible":10,"submission":5,"limit":{"set":false,"infinite":true,"number":0}},
          "tres":{"requested":[{"type":"cpu","count":4},{"type":"node","count":1}]},"user":"ann"}]}"#;
        let j = &read_squeue_json("sacct.json", new).unwrap()[0];
        assert_eq!(j.id, "50_3");
        assert_eq!((j.cpus, j.node_count), (4, 1));
        assert_eq!(j.time_limit, TimeLimit::Infinite);
        assert!(j.is_pending());
        // Errors name the file, the job and the field.
        let e = read_squeue_json(
            "s.json",
            br#"{"jobs":[{"job_id":7,"time":{"submission":"soon"}}]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("job `7`") && e.contains("s.json: time.submission"),
            "{e}"
        );
        let e = read_squeue_json(
            "s.json",
            br#"{"jobs":[{"job_id":8,"time":{},"tres":{"requested":[{"count":1}]}}]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("job `8`") && e.contains("tres.requested"), "{e}");
        // A job id is a positive whole number.
        for bad in ["-5", "101.7", "0"] {
            let doc = format!(r#"{{"jobs":[{{"job_id":{bad},"time":{{}}}}]}}"#);
            let e = read_squeue_json("s.json", doc.as_bytes()).unwrap_err();
            assert!(e.to_string().contains("`job_id`"), "{bad}: {e}");
        }
    }
}
