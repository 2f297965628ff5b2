//! fairsort's own job lists, for sites without PBS or for hand-written what-if queues.
//!
//! JSON: `{"jobs": [{"id": "1", "user": "bob", "group": "staff", "account": "proj1",
//! "queue": "workq", "state": "Q", "priority": 0, "qtime": 1700000000,
//! "eligible_time": "00:10:00", "accrue_type": 2, "resources": {"ncpus": 4, "mem": "4gb"}}]}`
//! (a bare array of jobs is accepted too). Only `id` and `user` are required.
//!
//! CSV: a header row; the columns `id`, `user`, `group`, `account`, `queue`, `state`,
//! `priority`, `qtime`, `eligible_time`, `accrue_type` are job attributes, every other column is
//! a resource (an empty cell = not requested). Values take PBS units (`4gb`, `01:00:00`).

use crate::jobs::error::JobsError;
use crate::jobs::job_set::JobSet;
use crate::jobs::raw::{add_job, Raw, RawJob, RawResources, LIST_FIELDS};
use serde::Deserialize;
use std::borrow::Cow;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListJob<'a> {
    #[serde(borrow, default)]
    id: Option<Raw<'a>>,
    #[serde(borrow, default)]
    user: Option<Raw<'a>>,
    #[serde(borrow, default)]
    owner: Option<Raw<'a>>,
    #[serde(borrow, default)]
    group: Option<Raw<'a>>,
    #[serde(borrow, default)]
    account: Option<Raw<'a>>,
    #[serde(borrow, default)]
    queue: Option<Raw<'a>>,
    #[serde(borrow, default)]
    state: Option<Raw<'a>>,
    #[serde(borrow, default)]
    priority: Option<Raw<'a>>,
    #[serde(borrow, default)]
    qtime: Option<Raw<'a>>,
    #[serde(borrow, default)]
    eligible_time: Option<Raw<'a>>,
    #[serde(borrow, default)]
    accrue_type: Option<Raw<'a>>,
    #[serde(borrow, default)]
    resources: RawResources<'a>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ListFile<'a> {
    Wrapped {
        #[serde(borrow)]
        jobs: Vec<ListJob<'a>>,
    },
    Bare(#[serde(borrow)] Vec<ListJob<'a>>),
}

fn id_text(i: usize, id: Option<Raw>) -> Result<String, JobsError> {
    match id {
        Some(Raw::Str(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        Some(Raw::Num(n)) => Ok(format!("{n}")),
        _ => Err(JobsError::MissingId(i + 1)),
    }
}

/// Reads fairsort's JSON job list.
pub fn read_job_list_json(bytes: &[u8]) -> Result<JobSet, JobsError> {
    // Parse jobs one by one through a Value-free path: first the structure, then each job.
    let file: ListFile = serde_json::from_slice(bytes).map_err(|e| JobsError::Json {
        message: format!("job list: {e}"),
    })?;
    let jobs = match file {
        ListFile::Wrapped { jobs } | ListFile::Bare(jobs) => jobs,
    };
    let mut set = JobSet::default();
    for (i, j) in jobs.into_iter().enumerate() {
        let id = id_text(i, j.id)?;
        let raw = RawJob {
            owner: j.owner,
            euser: j.user,
            egroup: j.group,
            account: j.account,
            queue: j.queue,
            state: j.state,
            priority: j.priority,
            qtime: j.qtime,
            eligible_time: j.eligible_time,
            accrue_type: j.accrue_type,
            stime: None,
            array_remaining: None,
            resources: j.resources,
        };
        add_job(&mut set, &id, raw, &LIST_FIELDS)?;
    }
    set.finish()?;
    Ok(set)
}

/// Reads fairsort's CSV job list.
pub fn read_job_list_csv(bytes: &[u8]) -> Result<JobSet, JobsError> {
    if let Some(line) = crate::files::lines::first_overlong_line(bytes) {
        return Err(JobsError::Csv {
            line: line as u64,
            message: crate::files::lines::too_long_message(),
        });
    }
    let mut rdr = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let csv_err = |e: csv::Error| JobsError::Csv {
        line: e.position().map(|p| p.line()).unwrap_or(0),
        message: e.to_string(),
    };
    let header: Vec<String> = rdr
        .headers()
        .map_err(csv_err)?
        .iter()
        .map(str::to_string)
        .collect();
    if !header.iter().any(|h| h == "id") {
        return Err(JobsError::Csv {
            line: 1,
            message: "the header has no `id` column".into(),
        });
    }
    let mut set = JobSet::default();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(csv_err)?;
        let mut raw = RawJob::default();
        let mut id = None;
        let mut resources = Vec::new();
        for (name, cell) in header.iter().zip(rec.iter()) {
            if cell.is_empty() {
                continue;
            }
            let v = Some(Raw::Str(Cow::Owned(cell.to_string())));
            match name.as_str() {
                "id" => id = v,
                "user" => raw.euser = v,
                "owner" => raw.owner = v,
                "group" => raw.egroup = v,
                "account" => raw.account = v,
                "queue" => raw.queue = v,
                "state" => raw.state = v,
                "priority" => raw.priority = v,
                "qtime" => raw.qtime = v,
                "eligible_time" => raw.eligible_time = v,
                "accrue_type" => raw.accrue_type = v,
                resource => resources.push((
                    Cow::Owned(resource.to_string()),
                    Raw::Str(Cow::Owned(cell.to_string())),
                )),
            }
        }
        raw.resources = RawResources(resources);
        // A bad record names its line, as a CSV syntax error does.
        let at_line = |e: JobsError| JobsError::Csv {
            line: rec.position().map_or(0, |p| p.line()),
            message: e.to_string(),
        };
        let id = id_text(i, id).map_err(at_line)?;
        add_job(&mut set, &id, raw, &LIST_FIELDS).map_err(at_line)?;
    }
    set.finish()?;
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::job::ResourceValue;

    #[test]
    fn json_list() {
        let set = read_job_list_json(
            br#"{"jobs":[{"id":"2","user":"bob","qtime":20,"resources":{"mem":"1mb"}},
                         {"id":"1","user":"amy","qtime":10,"queue":"q","priority":3}]}"#,
        )
        .unwrap();
        assert_eq!(set.jobs[0].id, "1");
        assert_eq!(set.jobs[0].priority, 3);
        let mem = set.resources.get("mem").unwrap();
        assert_eq!(
            set.resource(&set.jobs[1], mem),
            Some(ResourceValue::Number(1024.0))
        );
        let bare = read_job_list_json(br#"[{"id":"x","user":"u"}]"#).unwrap();
        assert_eq!(bare.len(), 1);
    }

    #[test]
    fn json_list_errors() {
        let e = read_job_list_json(br#"[{"user":"u"}]"#).unwrap_err();
        assert_eq!(e.to_string(), "job #1 has no `id`");
        let e = read_job_list_json(br#"[{"id":"a","user":"u","priority":1.5}]"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "job `a`: priority: expected an integer, got 1.5"
        );
        assert!(read_job_list_json(b"{").is_err());
    }

    #[test]
    fn csv_list() {
        let set = read_job_list_csv(
            b"id,user,queue,qtime,ncpus,mem,walltime\n1,bob,workq,5,4,4gb,01:00:00\n2,amy,workq,1,,,\n",
        )
        .unwrap();
        assert_eq!(set.jobs[0].id, "2");
        let ncpus = set.resources.get("ncpus").unwrap();
        assert_eq!(
            set.resource(&set.jobs[0], ncpus),
            None,
            "empty cell = unrequested"
        );
        let wt = set.resources.get("walltime").unwrap();
        assert_eq!(
            set.resource(&set.jobs[1], wt),
            Some(ResourceValue::Number(3600.0))
        );
        let e = read_job_list_csv(b"id,user,qtime\n1,bob,later\n").unwrap_err();
        assert!(e.to_string().starts_with("line 2: job `1`: qtime:"), "{e}");
        assert!(read_job_list_csv(b"user\nbob\n").is_err());
        assert!(read_job_list_csv(b"id,user\n1,bob,extra\n").is_err());
    }
}
