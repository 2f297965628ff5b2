//! Reader of PBS `qstat -f -F json` output: `{"timestamp":…, "pbs_version":…, "pbs_server":…,
//! "Jobs": {"<id>": {"Job_Owner":…, "euser":…, "egroup":…, "Account_Name":…, "queue":…,
//! "job_state":…, "Priority":…, "qtime":…, "eligible_time":…, "accrue_type":…,
//! "Resource_List": {"ncpus":4, "mem":"4gb", "walltime":"01:00:00", …}, …}}}`.
//!
//! Jobs are converted one at a time as the parser reaches them (no `serde_json::Value` tree;
//! attributes fairsort does not use, such as `Variable_List`, are skipped unread), so memory
//! grows with the jobs kept, not with the file. The text is read by a strict scanner of
//! fairsort's own (`scan`, `blocks`, `entries`, `shapes`), a large `Jobs` object in parts on
//! every thread of rayon's pool (`split`); whatever the scanner is unsure of is read by
//! serde_json (`read_serde`), so every answer is serde_json's. `euser` falls back to the user
//! part of `Job_Owner` (qstat shows `euser`/`egroup` only to managers).

#[cfg(test)]
mod agreement;
mod blocks;
mod entries;
mod keys;
mod scan;
mod shapes;
mod split;

use crate::jobs::error::json_at;
use crate::jobs::error::JobsError;
use crate::jobs::job_set::JobSet;
use crate::jobs::raw::{add_job_in, Raw, RawJob, RawResources, QSTAT_FIELDS};
use crate::mem::hash::SeededSet;
use crate::mem::read_file::Pages;
use crate::pbs::qstat::keys::Field;
use jiff::tz::TimeZone;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

/// One job's attributes as `qstat -f -F json` prints them (only those fairsort binds).
#[derive(Default)]
pub(super) struct QstatJob<'a> {
    owner: Option<Raw<'a>>,
    euser: Option<Raw<'a>>,
    egroup: Option<Raw<'a>>,
    account: Option<Raw<'a>>,
    queue: Option<Raw<'a>>,
    job_state: Option<Raw<'a>>,
    priority: Option<Raw<'a>>,
    qtime: Option<Raw<'a>>,
    eligible_time: Option<Raw<'a>>,
    accrue_type: Option<Raw<'a>>,
    stime: Option<Raw<'a>>,
    array_remaining: Option<Raw<'a>>,
    resources: RawResources<'a>,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Field, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an attribute name")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Field, E> {
                Ok(Field::of(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
                self.visit_bytes(v.as_bytes())
            }
        }
        d.deserialize_bytes(V)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for QstatJob<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = QstatJob<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a job's attributes")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<QstatJob<'de>, A::Error> {
                let mut job = QstatJob::default();
                let mut have_resources = false;
                while let Some(field) = m.next_key::<Field>()? {
                    // A repeated attribute is an error, as serde's derive made it.
                    let (slot, name) = match field {
                        Field::Owner => (&mut job.owner, keys::JOB_OWNER),
                        Field::Euser => (&mut job.euser, keys::EUSER),
                        Field::Egroup => (&mut job.egroup, keys::EGROUP),
                        Field::Account => (&mut job.account, keys::ACCOUNT_NAME),
                        Field::Queue => (&mut job.queue, keys::QUEUE),
                        Field::State => (&mut job.job_state, keys::JOB_STATE),
                        Field::Priority => (&mut job.priority, keys::PRIORITY),
                        Field::Qtime => (&mut job.qtime, keys::QTIME),
                        Field::EligibleTime => (&mut job.eligible_time, keys::ELIGIBLE_TIME),
                        Field::AccrueType => (&mut job.accrue_type, keys::ACCRUE_TYPE),
                        Field::Stime => (&mut job.stime, keys::STIME),
                        Field::ArrayRemaining => (&mut job.array_remaining, keys::ARRAY_REMAINING),
                        Field::Resources => {
                            if have_resources {
                                return Err(de::Error::duplicate_field(keys::text(
                                    keys::RESOURCE_LIST,
                                )));
                            }
                            have_resources = true;
                            job.resources = m.next_value()?;
                            continue;
                        }
                        Field::Other => {
                            m.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    if slot.is_some() {
                        return Err(de::Error::duplicate_field(keys::text(name)));
                    }
                    *slot = m.next_value()?;
                }
                Ok(job)
            }
        }
        d.deserialize_map(V)
    }
}

impl<'a> QstatJob<'a> {
    /// The fields by meaning.
    pub(super) fn into_raw(self) -> RawJob<'a> {
        RawJob {
            owner: self.owner,
            euser: self.euser,
            egroup: self.egroup,
            account: self.account,
            queue: self.queue,
            state: self.job_state,
            priority: self.priority,
            qtime: self.qtime,
            eligible_time: self.eligible_time,
            accrue_type: self.accrue_type,
            stime: self.stime,
            array_remaining: self.array_remaining,
            resources: self.resources,
        }
    }
}

/// Reads `qstat -f -F json` text held in memory: the one reader of qstat output. The strict
/// scanner reads it (a large `Jobs` object in parts on every thread of rayon's pool, strings
/// borrowed from the text); a text it declines — anything unusual, any error — is read by
/// serde_json in one pass, which also gives the exact message for a bad one. Dates are read in
/// UTC and errors name no file: see [`read_qstat_named`].
pub fn read_qstat_json(bytes: &[u8]) -> Result<JobSet, JobsError> {
    read_qstat_named("", bytes, Pages::none(), &TimeZone::UTC)
}

/// [`read_qstat_json`] of the file `name` (named in every error, with the line and column),
/// its `ctime` dates read in `zone` (the site's clock), over a mapped file held only a few
/// windows at a time.
pub(crate) fn read_qstat_named(
    name: &str,
    bytes: &[u8],
    pages: Pages,
    zone: &TimeZone,
) -> Result<JobSet, JobsError> {
    match split::read(bytes, pages, split::MIN_PART_BYTES, zone) {
        Some(set) => Ok(set),
        None => read_serde(name, bytes, zone),
    }
}

/// The text read by the scanner in parts of one byte or more (`None` where it declines) and by
/// serde_json in one pass, which must agree whenever the first answers: for the `jobs` fuzz
/// target and the crate's tests.
#[cfg(any(test, fuzzing))]
pub fn read_both_ways(bytes: &[u8]) -> (Option<JobSet>, Result<JobSet, JobsError>) {
    (
        split::read(bytes, Pages::none(), 1, &TimeZone::UTC),
        read_serde("", bytes, &TimeZone::UTC),
    )
}

/// Reads `qstat -f -F json` text in one pass of serde_json: what a text the scanner declines is
/// read with, and the reference the scanner is tested against. A bad job stops the read where
/// it is, so serde_json names the line and column.
fn read_serde(name: &str, bytes: &[u8], zone: &TimeZone) -> Result<JobSet, JobsError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let mut set = read(&mut de, zone).map_err(|e| json_error(name, &e))?;
    de.end().map_err(|e| json_error(name, &e))?;
    set.finish()?;
    Ok(set)
}

fn json_error(name: &str, e: &serde_json::Error) -> JobsError {
    match json_at(name, e) {
        JobsError::At {
            file,
            line,
            column,
            message,
        } => JobsError::at(&file, line, column, format!("qstat JSON: {message}")),
        other => other,
    }
}

/// Parses the top level.
fn read<'de, D: Deserializer<'de>>(d: D, zone: &TimeZone) -> Result<JobSet, D::Error> {
    struct Top<'z>(&'z TimeZone);
    impl<'de> Visitor<'de> for Top<'_> {
        type Value = JobSet;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("the object `qstat -f -F json` prints")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
            let mut set = JobSet::default();
            let mut seen_jobs = false;
            while let Some(key) = m.next_key::<Cow<'de, str>>()? {
                if key == "Jobs" {
                    if seen_jobs {
                        return Err(de::Error::duplicate_field("Jobs"));
                    }
                    seen_jobs = true;
                    let seed = JobsSeed {
                        set: &mut set,
                        zone: self.0,
                    };
                    m.next_value_seed(seed)?;
                } else {
                    m.next_value::<IgnoredAny>()?;
                }
            }
            Ok(set)
        }
    }
    d.deserialize_map(Top(zone))
}

/// Visits the `Jobs` object, converting each job as soon as it is parsed.
struct JobsSeed<'s> {
    set: &'s mut JobSet,
    zone: &'s TimeZone,
}

impl<'de> DeserializeSeed<'de> for JobsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for JobsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of jobs keyed by job id")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        // Ids seen so far, so a repeated one is refused where it stands (one insertion per
        // job, in a table keyed by the process's secret hash).
        let mut ids: SeededSet<String> = SeededSet::default();
        while let Some(id) = m.next_key::<Cow<'de, str>>()? {
            if !ids.insert(id.to_string()) {
                return Err(de::Error::custom(JobsError::DuplicateJob(id.into_owned())));
            }
            let job: QstatJob = m
                .next_value()
                .map_err(|e| de::Error::custom(format!("job `{id}`: {e}")))?;
            add_job_in(self.set, &id, job.into_raw(), &QSTAT_FIELDS, self.zone)
                .map_err(de::Error::custom)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::job::{JobState, ResourceValue};

    const SAMPLE: &str = r#"{
        "timestamp":1664911414,
        "pbs_version":"19.0.0",
        "pbs_server":"pbs",
        "Jobs":{
            "12.pbs":{
                "Job_Name":"b",
                "Job_Owner":"bob@host",
                "job_state":"Q",
                "queue":"workq",
                "Priority":5,
                "qtime":"Tue Oct  4 21:23:21 2022",
                "Resource_List":{"mem":"8gb","ncpus":4,"place":"scatter",
                    "select":"2:ncpus=2:mem=4gb","walltime":"00:01:00"},
                "Variable_List":{"PBS_O_HOME":"/home/bob","PBS_NCPUS":2},
                "eligible_time":"00:10:00",
                "accrue_type":2
            },
            "11.pbs":{
                "Job_Owner":"alice@host",
                "euser":"alice","egroup":"staff","Account_Name":"proj1",
                "job_state":"R","queue":"workq",
                "qtime":"Tue Oct  4 21:23:21 2022",
                "Resource_List":{"ncpus":1}
            }
        }
    }"#;

    #[test]
    fn reads_the_real_layout_in_submission_order() {
        for set in [
            read_qstat_json(SAMPLE.as_bytes()).unwrap(),
            split::read(SAMPLE.as_bytes(), Pages::none(), 1, &TimeZone::UTC).unwrap(),
        ] {
            assert_eq!(set.len(), 2);
            let a = &set.jobs[0];
            assert_eq!(a.id, "11.pbs", "same qtime: lower sequence number first");
            assert_eq!(set.names.name(a.egroup), "staff");
            assert_eq!(a.account().map(|s| set.names.name(s)), Some("proj1"));
            assert_eq!(a.state, JobState::Running);
            let b = &set.jobs[1];
            assert_eq!(set.user(b), "bob", "euser from Job_Owner");
            assert_eq!((b.priority, b.accrue_type), (5, 2));
            assert_eq!(b.eligible_time, 600.0);
            let mem = set.resources.get("mem").unwrap();
            assert_eq!(
                set.resource(b, mem),
                Some(ResourceValue::Number(8.0 * 1024.0 * 1024.0))
            );
            let wt = set.resources.get("walltime").unwrap();
            assert_eq!(set.resource(b, wt), Some(ResourceValue::Number(60.0)));
            let place = set.resources.get("place").unwrap();
            assert_eq!(set.text(set.resource(b, place).unwrap()), "scatter");
        }
    }

    #[test]
    fn no_jobs_key_is_an_empty_queue() {
        let set = read_qstat_json(br#"{"timestamp":1,"pbs_version":"22"}"#).unwrap();
        assert!(set.is_empty());
    }

    #[test]
    fn bad_values_name_the_job_and_field() {
        let e = read_qstat_json(br#"{"Jobs":{"7.s":{"Job_Owner":"a@h","Priority":"high"}}}"#)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "1:53: qstat JSON: job `7.s`: Priority: expected an integer, got `high`"
        );
        let e =
            read_qstat_json(br#"{"Jobs":{"7.s":{"Job_Owner":"a@h","qtime":"soon"}}}"#).unwrap_err();
        assert!(e.to_string().contains("job `7.s`: qtime:"), "{e}");
        let e = read_qstat_json(br#"{"Jobs":{"7.s":{"Job_Owner":"a@h","Resource_List":[1]}}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("job `7.s`"), "{e}");
        assert!(e.to_string().starts_with("1:"), "{e}");
    }

    #[test]
    fn broken_json_reports_the_position() {
        let e = read_qstat_json(b"{\"Jobs\":{\"1.s\":{\"Job_Name\":inf}}}").unwrap_err();
        assert!(e.to_string().starts_with("1:"), "{e}");
        assert!(read_qstat_json(b"[]").is_err());
        assert!(read_qstat_json(b"{} x").is_err());
    }

    #[test]
    fn duplicate_ids_are_refused() {
        let e =
            read_qstat_json(br#"{"Jobs":{"1.s":{"Job_Owner":"a@h"},"1.s":{"Job_Owner":"b@h"}}}"#)
                .unwrap_err();
        assert!(e.to_string().ends_with("job `1.s` appears twice"), "{e}");
        assert!(e.to_string().starts_with("1:"), "{e}");
    }
    #[test]
    fn a_repeated_attribute_is_refused_and_unknown_ones_skipped() {
        let text = r#"{"Jobs":{"1.s":{"euser":"a","Other":{"x":[1,{"y":null}]},"euser":"b"}}}"#;
        let e = read_qstat_json(text.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("duplicate field `euser`"), "{e}");
        let text = r#"{"Jobs":{"1.s":{"euser":"a","Resource_List":{},"Resource_List":{}}}}"#;
        let e = read_qstat_json(text.as_bytes()).unwrap_err();
        assert!(
            e.to_string().contains("duplicate field `Resource_List`"),
            "{e}"
        );
        let text = r#"{"Jobs":{"1.s":{"eus\u0065r":"a","Other":{"x":[1]}}}}"#;
        let set = read_qstat_json(text.as_bytes()).unwrap();
        assert_eq!(set.user(&set.jobs[0]), "a");
    }
}

/// The `timestamp` of a `qstat -f -F json` snapshot (when qstat took it), read from the keys
/// before `Jobs` only (qstat writes it first): `None` when it is not there. A cycle at another
/// time (`order --at`) sees accruing jobs' `eligible_time` grown by the difference.
pub fn snapshot_time(bytes: &[u8]) -> Option<i64> {
    struct Top(std::rc::Rc<std::cell::Cell<Option<i64>>>);
    impl<'de> Visitor<'de> for Top {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a qstat snapshot")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
            while let Some(key) = m.next_key::<Cow<'de, str>>()? {
                match key.as_ref() {
                    "timestamp" => {
                        self.0.set(m.next_value::<i64>().ok());
                        break;
                    }
                    "Jobs" => break,
                    _ => {
                        m.next_value::<IgnoredAny>()?;
                    }
                }
            }
            // Stops here: the rest of the file (the jobs) is not read.
            Err(de::Error::custom("stop"))
        }
    }
    let found = std::rc::Rc::new(std::cell::Cell::new(None));
    let mut d = serde_json::Deserializer::from_slice(bytes);
    let _ = d.deserialize_map(Top(found.clone()));
    found.get()
}

#[cfg(test)]
mod snapshot_time_tests {
    use super::snapshot_time;

    #[test]
    fn timestamp_before_the_jobs_only() {
        assert_eq!(
            snapshot_time(br#"{"timestamp":1796166908,"pbs_version":"23","Jobs":{"#),
            Some(1796166908)
        );
        assert_eq!(
            snapshot_time(br#"{"pbs_version":"23","timestamp":7,"Jobs":{}}"#),
            Some(7)
        );
        assert_eq!(snapshot_time(br#"{"Jobs":{},"timestamp":7}"#), None);
        assert_eq!(snapshot_time(b"[1,2]"), None);
        assert_eq!(snapshot_time(b""), None);
    }
}
