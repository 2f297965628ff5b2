//! `Raw`: a JSON scalar as a job file holds it (number, string, boolean), read without building a
//! `serde_json::Value`, and the conversion of a raw job record into a `Job` with messages that
//! name the job and the field. Shared by the `qstat -f -F json` reader and fairsort's own lists.

use crate::jobs::dates::parse_ctime;
use crate::jobs::error::JobsError;
use crate::jobs::job::{Job, JobState, Request, ResourceValue, ShortStr};
use crate::jobs::job_set::JobSet;
use crate::jobs::names::{NameCache, Sym};
use crate::pbs::defs::units::{resource_value, time_value};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

/// One scalar of a job record. Nested objects and arrays are kept as `Other` (never bound).
#[derive(Debug, Clone, PartialEq)]
pub enum Raw<'a> {
    /// A JSON number.
    Num(f64),
    /// A JSON string (borrowed from the input when it has no escapes).
    Str(Cow<'a, str>),
    /// A JSON boolean.
    Bool(bool),
    /// null, an object or an array.
    Other,
}

impl<'a> Raw<'a> {
    /// The text of a scalar, as PBS would print it.
    pub fn text(&self) -> String {
        match self {
            Raw::Num(n) => format!("{n}"),
            Raw::Str(s) => s.to_string(),
            Raw::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            Raw::Other => "(not a scalar)".to_string(),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Raw<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number, string or boolean")
            }
            fn visit_f64<E>(self, v: f64) -> Result<Raw<'de>, E> {
                Ok(Raw::Num(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Raw<'de>, E> {
                Ok(Raw::Num(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Raw<'de>, E> {
                Ok(Raw::Num(v as f64))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Raw<'de>, E> {
                Ok(Raw::Bool(v))
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Raw<'de>, E> {
                Ok(Raw::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Raw<'de>, E> {
                Ok(Raw::Str(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Raw<'de>, E> {
                Ok(Raw::Str(Cow::Owned(v)))
            }
            fn visit_unit<E>(self) -> Result<Raw<'de>, E> {
                Ok(Raw::Other)
            }
            fn visit_none<E>(self) -> Result<Raw<'de>, E> {
                Ok(Raw::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Raw<'de>, A::Error> {
                while m.next_entry::<de::IgnoredAny, de::IgnoredAny>()?.is_some() {}
                Ok(Raw::Other)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut s: A) -> Result<Raw<'de>, A::Error> {
                while s.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(Raw::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// A `Resource_List`-like object: (name, value) pairs in input order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawResources<'a>(pub Vec<(Cow<'a, str>, Raw<'a>)>);

impl<'de: 'a, 'a> Deserialize<'de> for RawResources<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawResources<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of resource values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                // qstat prints 5-8 resources per job: one allocation, no regrowth.
                let mut out = Vec::with_capacity(m.size_hint().unwrap_or(8));
                while let Some(k) = m.next_key::<Raw<'de>>()? {
                    let k = match k {
                        Raw::Str(s) => s,
                        other => Cow::Owned(other.text()),
                    };
                    let v: Raw<'de> = m.next_value()?;
                    out.push((k, v));
                }
                Ok(RawResources(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The fields of one job record, by meaning; each reader fills it from its own layout.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawJob<'a> {
    /// `Job_Owner` (`user@host`).
    pub owner: Option<Raw<'a>>,
    /// The effective user (`euser`).
    pub euser: Option<Raw<'a>>,
    /// The effective group (`egroup`).
    pub egroup: Option<Raw<'a>>,
    /// `Account_Name`.
    pub account: Option<Raw<'a>>,
    /// The queue the job is in.
    pub queue: Option<Raw<'a>>,
    /// `job_state` (Q, R, H, ...).
    pub state: Option<Raw<'a>>,
    /// `Priority` (`job_priority`).
    pub priority: Option<Raw<'a>>,
    /// When the job was queued (`qtime`).
    pub qtime: Option<Raw<'a>>,
    /// `eligible_time` (seconds eligible to run).
    pub eligible_time: Option<Raw<'a>>,
    /// `accrue_type` (what the job accrues now).
    pub accrue_type: Option<Raw<'a>>,
    /// When a running job started (`stime`).
    pub stime: Option<Raw<'a>>,
    /// The subjobs of an array job still queued (`array_indices_remaining`: `1-3,7`).
    pub array_remaining: Option<Raw<'a>>,
    /// `Resource_List` entries.
    pub resources: RawResources<'a>,
}

/// The field names a reader reports in messages (qstat's or fairsort's own).
#[derive(Debug, Clone, Copy)]
pub struct FieldNames {
    /// How the reader names the euser field in messages.
    pub euser: &'static str,
    /// How the reader names the egroup field in messages.
    pub egroup: &'static str,
    /// How the reader names the account field in messages.
    pub account: &'static str,
    /// How the reader names the queue field in messages.
    pub queue: &'static str,
    /// How the reader names the priority field in messages.
    pub priority: &'static str,
    /// How the reader names the qtime field in messages.
    pub qtime: &'static str,
    /// How the reader names the eligible time field in messages.
    pub eligible_time: &'static str,
    /// How the reader names the accrue type field in messages.
    pub accrue_type: &'static str,
    /// How the reader names the resources field in messages.
    pub resources: &'static str,
}

/// `qstat -f -F json` attribute names.
pub const QSTAT_FIELDS: FieldNames = FieldNames {
    euser: "euser",
    egroup: "egroup",
    account: "Account_Name",
    queue: "queue",
    priority: "Priority",
    qtime: "qtime",
    eligible_time: "eligible_time",
    accrue_type: "accrue_type",
    resources: "Resource_List",
};

/// fairsort's own job-list field names.
pub const LIST_FIELDS: FieldNames = FieldNames {
    euser: "user",
    egroup: "group",
    account: "account",
    queue: "queue",
    priority: "priority",
    qtime: "qtime",
    eligible_time: "eligible_time",
    accrue_type: "accrue_type",
    resources: "resources",
};

fn bad(job: &str, field: &str, message: impl Into<String>) -> JobsError {
    JobsError::BadField {
        job: job.to_string(),
        field: field.to_string(),
        message: message.into(),
    }
}

fn text_of<'r>(
    job: &str,
    field: &str,
    raw: &'r Option<Raw>,
) -> Result<Option<Cow<'r, str>>, JobsError> {
    match raw {
        None => Ok(None),
        Some(Raw::Str(s)) => Ok(Some(Cow::Borrowed(s.as_ref()))),
        Some(Raw::Num(n)) => Ok(Some(Cow::Owned(format!("{n}")))),
        Some(other) => Err(bad(
            job,
            field,
            format!("expected a name, got {}", other.text()),
        )),
    }
}

fn integer(job: &str, field: &str, raw: &Option<Raw>) -> Result<i64, JobsError> {
    let v = match raw {
        None => return Ok(0),
        Some(Raw::Num(n)) => *n,
        Some(Raw::Str(s)) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| bad(job, field, format!("expected an integer, got `{s}`")))?,
        Some(other) => {
            return Err(bad(
                job,
                field,
                format!("expected an integer, got {}", other.text()),
            ))
        }
    };
    if v.fract() != 0.0 || !v.is_finite() || v.abs() > 9.0e15 {
        return Err(bad(job, field, format!("expected an integer, got {v}")));
    }
    Ok(v as i64)
}

/// The text of a name field, moved out of the record (borrowed from the input when it was).
fn into_text<'a>(
    job: &str,
    field: &str,
    raw: Option<Raw<'a>>,
) -> Result<Option<Cow<'a, str>>, JobsError> {
    match raw {
        Some(Raw::Str(s)) => Ok(Some(s)),
        other => Ok(text_of(job, field, &other)?.map(|t| Cow::Owned(t.into_owned()))),
    }
}

/// Adds one raw job record to `set`, converting units and checking every field it uses (public so
/// that a reader outside the crate, such as `benches/qstat_reader.rs`, builds the same `JobSet`).
pub fn add_job(
    set: &mut JobSet,
    id: &str,
    raw: RawJob,
    names: &FieldNames,
) -> Result<(), JobsError> {
    add_job_with(set, id, raw, names, None)
}

/// [`add_job`] leaving the user name to be interned later: it is pushed on `users` and the
/// job's `euser` is left unset until [`JobSet::intern_users`]. A million-job reader interns
/// its users in one batch after the parse: the pool of 100 000 users is cold by then (the input
/// streams through the cache), and lookups one after another overlap their cache misses, where
/// one per job, between the jobs' parsing, each waits alone.
pub(crate) fn add_job_later<'a>(
    set: &mut JobSet,
    id: &str,
    raw: RawJob<'a>,
    names: &FieldNames,
    pending: &mut Pending<'a>,
) -> Result<(), JobsError> {
    add_job_with(set, id, raw, names, Some(pending))
}

/// What a large reader carries from job to job (see [`add_job_later`]): the user names still
/// to intern, and a cache of the set's recent group, account and queue names.
#[derive(Debug, Default)]
pub(crate) struct Pending<'a> {
    /// One user name per job added since the last batch, in order.
    pub(crate) users: Vec<PendingName<'a>>,
    /// Recent names of the set's `names` pool (used with that pool only).
    cache: NameCache,
}

/// A user name waiting in [`Pending`] for its batch: a short name (nearly every user name) is
/// copied out of the input while its bytes are in the CPU's cache, so the batch reads the names
/// one after another from this list instead of from a text that lies up to a window (16 MB)
/// back — the scattered misses of the batch's hashing pass, 1.3 % of the 3M order's samples.
#[derive(Debug, Clone)]
pub(crate) enum PendingName<'a> {
    /// A short name, copied.
    Short(ShortStr),
    /// A longer name.
    Long(Cow<'a, str>),
}

impl<'a> PendingName<'a> {
    fn new(name: Cow<'a, str>) -> Self {
        match ShortStr::new(&name) {
            Some(short) => PendingName::Short(short),
            None => PendingName::Long(name),
        }
    }
}

impl AsRef<str> for PendingName<'_> {
    #[inline]
    fn as_ref(&self) -> &str {
        match self {
            PendingName::Short(short) => short.as_str(),
            PendingName::Long(s) => s,
        }
    }
}

/// How many indices a PBS range list names (`1-3,7,10-20:5` → 6); `None` when it is not one.
fn index_count(text: &str) -> Option<u64> {
    let t = text.trim();
    if t == "-" || t.is_empty() {
        return Some(0); // nothing left
    }
    let mut n: u64 = 0;
    for part in t.split(',') {
        let (range, step) = match part.trim().split_once(':') {
            Some((r, s)) => (r, s.trim().parse::<u64>().ok().filter(|&s| s > 0)?),
            None => (part.trim(), 1),
        };
        let count = match range.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?);
                (b.checked_sub(a)? / step).checked_add(1)?
            }
            None => {
                range.parse::<u64>().ok()?;
                1
            }
        };
        n = n.checked_add(count)?;
    }
    Some(n)
}

fn add_job_with<'a>(
    set: &mut JobSet,
    id: &str,
    mut raw: RawJob<'a>,
    names: &FieldNames,
    mut later: Option<&mut Pending<'a>>,
) -> Result<(), JobsError> {
    let owner = into_text(id, "Job_Owner", raw.owner.take())?;
    let euser = match into_text(id, names.euser, raw.euser.take())? {
        Some(u) => u,
        None => match owner {
            Some(Cow::Borrowed(o)) => Cow::Borrowed(o.split('@').next().unwrap_or("")),
            Some(Cow::Owned(o)) => Cow::Owned(o.split('@').next().unwrap_or("").to_string()),
            None => Cow::Borrowed(""),
        },
    };
    if euser.is_empty() {
        return Err(bad(
            id,
            names.euser,
            "missing (and no Job_Owner to take it from)",
        ));
    }
    let egroup = text_of(id, names.egroup, &raw.egroup)?.unwrap_or_default();
    let account = text_of(id, names.account, &raw.account)?;
    let queue = text_of(id, names.queue, &raw.queue)?.unwrap_or_default();
    let state = match text_of(id, "job_state", &raw.state)? {
        Some(s) => JobState::from_letter(&s),
        None => JobState::Queued,
    };
    let priority = integer(id, names.priority, &raw.priority)?;
    let accrue_type = integer(id, names.accrue_type, &raw.accrue_type)?;
    let qtime = match &raw.qtime {
        None => 0,
        Some(Raw::Num(n)) if n.fract() == 0.0 && n.is_finite() => *n as i64,
        Some(Raw::Str(s)) => parse_ctime(s).ok_or_else(|| {
            bad(
                id,
                names.qtime,
                format!(
                    "expected a date like `Tue Oct  4 21:23:20 2022` or epoch seconds, got `{s}`"
                ),
            )
        })?,
        Some(other) => {
            return Err(bad(
                id,
                names.qtime,
                format!("expected a date, got {}", other.text()),
            ))
        }
    };
    let stime = match &raw.stime {
        None => None,
        Some(Raw::Num(n)) if n.fract() == 0.0 && n.is_finite() => Some(*n as i64),
        Some(Raw::Str(s)) => Some(parse_ctime(s).ok_or_else(|| {
            bad(
                id,
                "stime",
                format!(
                    "expected a date like `Tue Oct  4 21:23:20 2022` or epoch seconds, got `{s}`"
                ),
            )
        })?),
        Some(other) => {
            return Err(bad(
                id,
                "stime",
                format!("expected a date, got {}", other.text()),
            ))
        }
    };
    let array_remaining = match &raw.array_remaining {
        None => None,
        Some(Raw::Str(s)) => Some(index_count(s).ok_or_else(|| {
            bad(
                id,
                "array_indices_remaining",
                format!("expected indices like `1-3,7` or `1-9:2`, got `{s}`"),
            )
        })?),
        Some(Raw::Num(n)) if n.fract() == 0.0 && *n >= 0.0 && n.is_finite() => Some(1),
        Some(other) => {
            return Err(bad(
                id,
                "array_indices_remaining",
                format!("expected indices like `1-3,7`, got {}", other.text()),
            ))
        }
    };
    let eligible_time = match &raw.eligible_time {
        None => 0.0,
        Some(Raw::Num(n)) if n.is_finite() => *n,
        Some(Raw::Str(s)) => time_value(s.as_bytes()).ok_or_else(|| {
            bad(
                id,
                names.eligible_time,
                format!("expected HH:MM:SS or seconds, got `{s}`"),
            )
        })?,
        Some(other) => {
            return Err(bad(
                id,
                names.eligible_time,
                format!("expected HH:MM:SS or seconds, got {}", other.text()),
            ))
        }
    };
    // Resource names come in the same order job after job: the previous job's symbol at the
    // same place is tried before hashing the name.
    let previous = set.jobs.last().map_or(0..0, |j| j.requests());
    let start = set.requests.len();
    for (k, (name, value)) in raw.resources.0.into_iter().enumerate() {
        let v = match value {
            Raw::Num(n) if n.is_finite() => ResourceValue::Number(n),
            Raw::Str(s) => match resource_value(s.as_bytes()) {
                Some(n) => ResourceValue::Number(n),
                None => ResourceValue::Text(set.texts.intern(&s)),
            },
            other => ResourceValue::Text(set.texts.intern(&other.text())),
        };
        let guess = (set.requests.get(previous.clone()))
            .and_then(|p| p.get(k))
            .map(|r| r.sym());
        let sym = set.resources.intern_guess(&name, guess);
        if (set.requests.get(start..).unwrap_or(&[]).iter()).any(|r| r.sym() == sym) {
            set.requests.truncate(start);
            return Err(bad(
                id,
                &format!("{}.{name}", names.resources),
                "given twice",
            ));
        }
        set.requests.push(Request::new(sym, v));
    }
    let mut job = Job::with_id(id);
    if job.set_requests(start..set.requests.len()).is_none() {
        set.requests.truncate(start);
        return Err(bad(
            id,
            names.resources,
            "more than 4294967295 resource requests in all",
        ));
    }
    let mut intern = |name: &str| match later.as_deref_mut() {
        Some(p) => set.names.intern_cached(&mut p.cache, name),
        None => set.names.intern(name),
    };
    job.egroup = intern(&egroup);
    job.set_account(account.as_deref().map(&mut intern));
    job.queue = intern(&queue);
    job.euser = match later {
        Some(_) => Sym::MAX,
        None => set.names.intern(&euser),
    };
    job.state = state;
    job.priority = priority;
    job.qtime = qtime;
    job.eligible_time = eligible_time;
    job.accrue_type = accrue_type;
    if let Some(start) = stime {
        set.starts.push((job.id.clone(), start));
    }
    if let Some(n) = array_remaining {
        set.arrays.push((job.id.clone(), n));
    }
    set.jobs.push(job);
    if let Some(pending) = later {
        pending.users.push(PendingName::new(euser));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::pbs::qstat::read_both_ways;

    #[test]
    fn pending_names_are_the_names() {
        use super::PendingName;
        use std::borrow::Cow;
        let long = "a-user-name-longer-than-twenty-two-bytes";
        let mut names: Vec<String> = (0..=40)
            .map(|n| "é".repeat(n / 2) + &"u".repeat(n % 2))
            .collect();
        names.extend(["", "u1", "u42445", long].map(String::from));
        for name in &names {
            for cow in [Cow::Borrowed(name.as_str()), Cow::Owned(name.clone())] {
                let p = PendingName::new(cow);
                assert_eq!(p.as_ref(), name.as_str());
                assert_eq!(matches!(p, PendingName::Short(_)), name.len() <= 22);
            }
        }
    }

    fn qstat(priority: &str, accrue: &str, id: &str) -> String {
        format!(
            r#"{{"Jobs":{{"{id}":{{"Job_Owner":"u@h","Priority":{priority},"accrue_type":{accrue},
            "Resource_List":{{"ncpus":2}}}}}}}}"#
        )
    }

    /// Priorities and accrue types are kept exactly up to 9e15 (what the serde reader has
    /// always accepted, far past PBS's −1024…1023 and 0…4), and refused with the same message
    /// beyond; both readers agree, and the job's other fields survive the narrow record.
    #[test]
    fn integer_fields_keep_their_range_and_messages() {
        for (priority, want) in [
            ("-1024", Ok(-1024)),
            ("1023", Ok(1023)),
            ("9000000000000000", Ok(9_000_000_000_000_000)),
            ("-9000000000000000", Ok(-9_000_000_000_000_000)),
            (
                "1e18",
                Err(
                    "job `1[4294967296].s`: Priority: expected an integer, got 1000000000000000000",
                ),
            ),
            (
                "1.5",
                Err("job `1[4294967296].s`: Priority: expected an integer, got 1.5"),
            ),
        ] {
            let text = qstat(priority, priority, "1[4294967296].s");
            let (fast, serde) = read_both_ways(text.as_bytes());
            match want {
                Ok(p) => {
                    let set = serde.unwrap();
                    let j = &set.jobs[0];
                    assert_eq!((j.priority, j.accrue_type), (p, p));
                    assert_eq!((j.seq, j.array_index()), (1, Some(1 << 32)));
                    assert_eq!(j.id, "1[4294967296].s");
                    assert_eq!(set.requests(j).len(), 1);
                    assert_eq!(fast.unwrap().describe(), set.describe());
                }
                Err(message) => {
                    assert_eq!(serde.unwrap_err().to_string(), message);
                    assert!(fast.is_none());
                }
            }
        }
    }
}
