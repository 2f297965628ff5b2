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

use crate::jobs::error::{json_at, JobsError};
use crate::jobs::job_set::JobSet;
use crate::jobs::raw::{add_job_in, Raw, RawJob, RawResources, CSV_FIELDS, LIST_FIELDS};
use crate::jobs::repeats::first_repeat;
use crate::mem::hash::SeededSet;
use jiff::tz::TimeZone;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a job: an object of `id`, `user` and the other fields"
)]
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

impl<'a> ListJob<'a> {
    /// The fields by meaning.
    fn into_raw(self) -> RawJob<'a> {
        RawJob {
            owner: self.owner,
            euser: self.user,
            egroup: self.group,
            account: self.account,
            queue: self.queue,
            state: self.state,
            priority: self.priority,
            qtime: self.qtime,
            eligible_time: self.eligible_time,
            accrue_type: self.accrue_type,
            stime: None,
            array_remaining: None,
            resources: self.resources,
        }
    }
}

fn id_text(i: usize, id: Option<Raw>) -> Result<String, JobsError> {
    match id {
        Some(Raw::Str(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        Some(Raw::Num(n)) => Ok(format!("{n}")),
        _ => Err(JobsError::MissingId(i + 1)),
    }
}

/// Reads fairsort's JSON job list (dates in UTC; errors give the line and column but no file:
/// see [`read_job_list_json_named`]).
pub fn read_job_list_json(bytes: &[u8]) -> Result<JobSet, JobsError> {
    read_job_list_json_named("", bytes, &TimeZone::UTC)
}

/// Reads fairsort's JSON job list from the file `name` (named in every error, with the line
/// and column), its dates without a zone read in `zone`. Its structure decides: an array of
/// jobs, or an object whose one key is `jobs`; each job is converted as soon as it is parsed,
/// so a bad one stops the read where it stands.
pub fn read_job_list_json_named(
    name: &str,
    bytes: &[u8],
    zone: &TimeZone,
) -> Result<JobSet, JobsError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let mut set = JobSet::default();
    de.deserialize_any(Top {
        set: &mut set,
        zone,
    })
    .and_then(|()| de.end())
    .map_err(|e| json_at(name, &e))?;
    set.finish()?;
    Ok(set)
}

/// The top level of a JSON job list: `[jobs…]` or `{"jobs": [jobs…]}`.
struct Top<'s> {
    set: &'s mut JobSet,
    zone: &'s TimeZone,
}

impl<'de> Visitor<'de> for Top<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a job list: an array of jobs, or an object with a `jobs` array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        JobsSeq {
            set: self.set,
            zone: self.zone,
        }
        .visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        let mut seen = false;
        while let Some(key) = m.next_key::<Cow<'de, str>>()? {
            if key != "jobs" {
                return Err(de::Error::unknown_field(&key, &["jobs"]));
            }
            if seen {
                return Err(de::Error::duplicate_field("jobs"));
            }
            seen = true;
            m.next_value_seed(JobsSeq {
                set: &mut *self.set,
                zone: self.zone,
            })?;
        }
        if !seen {
            return Err(de::Error::missing_field("jobs"));
        }
        Ok(())
    }
}

/// The array of jobs, each added to the set as it is parsed.
struct JobsSeq<'s> {
    set: &'s mut JobSet,
    zone: &'s TimeZone,
}

impl<'de> DeserializeSeed<'de> for JobsSeq<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for JobsSeq<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of jobs")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // Ids seen so far: a repeated one is refused where it stands (one insertion a job).
        let mut ids: SeededSet<String> = SeededSet::default();
        let mut i = 0;
        while let Some(job) = seq.next_element::<ListJob>()? {
            let id = id_text(i, job.id.clone()).map_err(de::Error::custom)?;
            if !ids.insert(id.clone()) {
                return Err(de::Error::custom(JobsError::DuplicateJob(id)));
            }
            add_job_in(self.set, &id, job.into_raw(), &LIST_FIELDS, self.zone)
                .map_err(de::Error::custom)?;
            i += 1;
        }
        Ok(())
    }
}

/// Reads fairsort's CSV job list (dates in UTC; errors give the line and column but no file:
/// see [`read_job_list_csv_named`]).
pub fn read_job_list_csv(bytes: &[u8]) -> Result<JobSet, JobsError> {
    read_job_list_csv_named("", bytes, &TimeZone::UTC)
}

/// The 1-based byte column where field `index` of the record starting at byte `start` begins
/// (commas inside quotes skipped), for messages; one pass over the record's own line.
fn field_column(bytes: &[u8], start: usize, index: usize) -> u64 {
    let line = bytes.get(start..).unwrap_or_default();
    let (mut field, mut quoted) = (0, false);
    for (at, &b) in line.iter().enumerate() {
        if field == index {
            return at as u64 + 1;
        }
        match b {
            b'"' => quoted = !quoted,
            b',' if !quoted => field += 1,
            b'\n' if !quoted => break,
            _ => {}
        }
    }
    if field == index {
        return line.len() as u64 + 1;
    }
    0
}

/// The line of a csv error, and its message without the crate's own position.
fn csv_error(name: &str, e: &csv::Error) -> JobsError {
    let line = e.position().map_or(0, |p| p.line());
    let message = match e.kind() {
        csv::ErrorKind::Utf8 { err, .. } => format!("invalid UTF-8 in field {}", err.field() + 1),
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("{len} cells, but the header has {expected_len}"),
        _ => e.to_string(),
    };
    JobsError::at(name, line, 0, message)
}

/// Reads fairsort's CSV job list from the file `name` (named in every error as
/// `FILE:LINE:COL`, the column as the header names it), its dates without a zone read in
/// `zone`.
pub fn read_job_list_csv_named(
    name: &str,
    bytes: &[u8],
    zone: &TimeZone,
) -> Result<JobSet, JobsError> {
    if let Some(line) = crate::files::lines::first_overlong_line(bytes) {
        return Err(JobsError::at(
            name,
            line as u64,
            0,
            crate::files::lines::too_long_message(),
        ));
    }
    let mut rdr = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let header: Vec<String> = rdr
        .headers()
        .map_err(|e| csv_error(name, &e))?
        .iter()
        .map(str::to_string)
        .collect();
    if !header.iter().any(|h| h == "id") {
        return Err(JobsError::at(name, 1, 0, "the header has no `id` column"));
    }
    let columns: Vec<&str> = header.iter().map(String::as_str).collect();
    if let (Some(k), _) = first_repeat(&columns) {
        return Err(JobsError::at(
            name,
            1,
            field_column(bytes, 0, k),
            format!("the column `{}` is named twice", columns[k]),
        ));
    }
    let mut set = JobSet::default();
    let mut ids: SeededSet<String> = SeededSet::default();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| csv_error(name, &e))?;
        let (line, start) = rec
            .position()
            .map_or((0, 0), |p| (p.line(), p.byte() as usize));
        let mut raw = RawJob::default();
        let mut id = None;
        let mut resources = Vec::new();
        for (column, cell) in header.iter().zip(rec.iter()) {
            if cell.is_empty() {
                continue;
            }
            let v = Some(Raw::Str(Cow::Owned(cell.to_string())));
            match column.as_str() {
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
        // A bad cell names its line and column: the column the field's name is the header's.
        let at = |e: JobsError| match e {
            JobsError::BadField {
                job,
                field,
                message,
            } => {
                let column = (columns.iter().position(|c| *c == field))
                    .map_or(0, |k| field_column(bytes, start, k));
                JobsError::at(
                    name,
                    line,
                    column,
                    format!("job `{job}`: {field}: {message}"),
                )
            }
            other => JobsError::at(name, line, 0, other.to_string()),
        };
        let id = id_text(i, id).map_err(at)?;
        if !ids.insert(id.clone()) {
            return Err(at(JobsError::DuplicateJob(id)));
        }
        add_job_in(&mut set, &id, raw, &CSV_FIELDS, zone).map_err(at)?;
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
        assert_eq!(e.to_string(), "1:14: job #1 has no `id`");
        let e = read_job_list_json(br#"[{"id":"a","user":"u","priority":1.5}]"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1:38: job `a`: priority: expected an integer, got 1.5"
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
        assert!(e.to_string().starts_with("2:7: job `1`: qtime:"), "{e}");
        assert!(read_job_list_csv(b"user\nbob\n").is_err());
        assert!(read_job_list_csv(b"id,user\n1,bob,extra\n").is_err());
    }
}
