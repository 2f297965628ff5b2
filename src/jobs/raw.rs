//! `Raw`: a JSON scalar as a job file holds it (number, string, boolean), read without building a
//! `serde_json::Value`, and the conversion of a raw job record into a `Job` with messages that
//! name the job and the field. Shared by the `qstat -f -F json` reader and fairsort's own lists.

use crate::jobs::dates::parse_ctime_in;
use crate::jobs::error::JobsError;
use crate::jobs::job::{Job, JobState, Request, ResourceValue, ShortStr};
use crate::jobs::job_set::JobSet;
use crate::jobs::names::{NameCache, Sym};
use crate::jobs::repeats::first_repeat;
use crate::pbs::defs::resources::{builtin_type, resource_name_problem};
use crate::pbs::defs::units::{resource_value, time_value};
use crate::pbs::defs::ResourceType;
use jiff::tz::TimeZone;
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
    /// How the reader names the resources field in messages (`""`: by the resource's name
    /// alone, as a CSV column).
    pub resources: &'static str,
    /// Whether a built-in numeric resource (`ncpus`, `mem`, `walltime`, ...) must hold a value
    /// of its type: fairsort's own lists, written by hand. qstat's values are the server's,
    /// and a text one is left to the formula's binding to refuse when the formula uses it.
    pub strict_resources: bool,
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
    strict_resources: false,
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
    strict_resources: true,
};

/// fairsort's CSV job-list field names: every resource is a column named by the resource.
pub const CSV_FIELDS: FieldNames = FieldNames {
    resources: "",
    ..LIST_FIELDS
};

fn bad(job: &str, field: &str, message: impl Into<String>) -> JobsError {
    JobsError::BadField {
        job: job.to_string(),
        field: field.to_string(),
        message: message.into(),
    }
}

/// Largest magnitude of a number kept exactly (2^53): past it an integer field would be
/// rounded, and a resource value would bind as another number than the file says.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// One resource value checked against its built-in type: `Ok(Ok(number))`, `Ok(Err(text))`
/// for a text value, `Err(message)` for a value the type refuses (a number that is not finite
/// or past 2^53, a fraction for a `long`, a negative size or duration; under `strict`, a text
/// where the type wants a number).
fn resource_request(name: &str, value: Raw, strict: bool) -> Result<Result<f64, String>, String> {
    let ty = builtin_type(name);
    let (n, text) = match value {
        Raw::Num(n) => (Some(n), None),
        Raw::Str(s) => (resource_value(s.as_bytes()), Some(s)),
        other => (None, Some(Cow::Owned(other.text()))),
    };
    let shown = || match &text {
        Some(t) => format!("`{t}`"),
        None => format!("{}", n.unwrap_or(f64::NAN)),
    };
    let Some(n) = n else {
        return match ty {
            Some(t) if strict && t.is_numeric() => {
                Err(format!("{} is not {}", shown(), type_words(t)))
            }
            _ => Ok(Err(text.map(Cow::into_owned).unwrap_or_default())),
        };
    };
    if !n.is_finite() || n.abs() > EXACT {
        return Err(format!(
            "{} is out of range (at most 2^53 in size)",
            shown()
        ));
    }
    match ty {
        Some(ResourceType::Long) if n.fract() != 0.0 => Err(format!(
            "{} is not {}",
            shown(),
            type_words(ResourceType::Long)
        )),
        Some(t @ (ResourceType::Size | ResourceType::Time)) if n < 0.0 => {
            Err(format!("{} is negative: not {}", shown(), type_words(t)))
        }
        _ => Ok(Ok(n)),
    }
}

/// A resource type as a value of it is named in messages.
fn type_words(t: ResourceType) -> &'static str {
    match t {
        ResourceType::Long => "an integer",
        ResourceType::Float => "a number",
        ResourceType::Size => "a size (`4gb`, `512mb`)",
        ResourceType::Time => "a duration (`01:30:00` or seconds)",
        ResourceType::Boolean => "a boolean",
        ResourceType::String => "a text",
    }
}

/// Latest date a job may carry: the last second of the year 9999 (epoch seconds), as far as
/// the ctime and ISO dates go.
const LAST_DATE: i64 = 253_402_300_799;

/// A date field (`qtime`, `stime`): epoch seconds (a whole number from 0 to [`LAST_DATE`]) or a
/// date string, read in `zone` when it names no zone of its own.
fn date_field(
    job: &str,
    field: &str,
    raw: &Option<Raw>,
    zone: &TimeZone,
) -> Result<Option<i64>, JobsError> {
    let t = match raw {
        None => return Ok(None),
        Some(Raw::Num(n)) if n.fract() == 0.0 && (0.0..=LAST_DATE as f64).contains(n) => {
            return Ok(Some(*n as i64))
        }
        Some(Raw::Num(n)) => {
            return Err(bad(
                job,
                field,
                format!("{n} is not a date: epoch seconds are a whole number from 0 to {LAST_DATE} (the year 9999)"),
            ))
        }
        Some(Raw::Str(s)) => parse_ctime_in(s, zone).ok_or_else(|| {
            bad(
                job,
                field,
                format!(
                    "expected a date like `Tue Oct  4 21:23:20 2022` or epoch seconds, got `{s}`"
                ),
            )
        })?,
        Some(other) => {
            return Err(bad(
                job,
                field,
                format!("expected a date, got {}", other.text()),
            ))
        }
    };
    if !(0..=LAST_DATE).contains(&t) {
        return Err(bad(
            job,
            field,
            format!("{t} is not a date from 1970 to 9999"),
        ));
    }
    Ok(Some(t))
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
    add_job_with(set, id, raw, names, &TimeZone::UTC, None)
}

/// [`add_job`] reading the record's date strings (`qtime`, `stime`) in `zone`: the site's
/// clock, which `qstat` and fairsort's lists print dates in.
pub fn add_job_in(
    set: &mut JobSet,
    id: &str,
    raw: RawJob,
    names: &FieldNames,
    zone: &TimeZone,
) -> Result<(), JobsError> {
    add_job_with(set, id, raw, names, zone, None)
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
    // Moved out for the call (no reference count touched per job), then put back.
    let zone = std::mem::replace(&mut pending.zone, TimeZone::UTC);
    let result = add_job_with(set, id, raw, names, &zone, Some(pending));
    pending.zone = zone;
    result
}

/// What a large reader carries from job to job (see [`add_job_later`]): the user names still
/// to intern, a cache of the set's recent group, account and queue names, and the zone its
/// dates are read in.
#[derive(Debug)]
pub(crate) struct Pending<'a> {
    /// One user name per job added since the last batch, in order.
    pub(crate) users: Vec<PendingName<'a>>,
    /// Recent names of the set's `names` pool (used with that pool only).
    cache: NameCache,
    /// The zone the records' date strings are read in.
    zone: TimeZone,
}

impl Pending<'_> {
    /// Nothing pending yet; dates read in `zone`.
    pub(crate) fn new(zone: &TimeZone) -> Self {
        Pending {
            users: Vec::new(),
            cache: NameCache::default(),
            zone: zone.clone(),
        }
    }
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
    zone: &TimeZone,
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
    let qtime = date_field(id, names.qtime, &raw.qtime, zone)?.unwrap_or(0);
    let stime = date_field(id, "stime", &raw.stime, zone)?;
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
        Some(Raw::Num(n)) => *n,
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
    if !(0.0..=EXACT).contains(&eligible_time) {
        return Err(bad(
            id,
            names.eligible_time,
            format!("{eligible_time} is out of range (0 to 2^53 seconds)"),
        ));
    }
    // Resource names come in the same order job after job: the previous job's symbol at the
    // same place is tried before hashing the name.
    let previous = set.jobs.last().map_or(0..0, |j| j.requests());
    let start = set.requests.len();
    let field = |name: &str| match names.resources {
        "" => name.to_string(),
        list => format!("{list}.{name}"),
    };
    for (k, (name, value)) in raw.resources.0.into_iter().enumerate() {
        if let Some(why) = resource_name_problem(&name) {
            set.requests.truncate(start);
            return Err(bad(
                id,
                &field(&name),
                format!("`{name}` is not a PBS resource name: {why}"),
            ));
        }
        let v = match resource_request(&name, value, names.strict_resources) {
            Ok(Ok(n)) => ResourceValue::Number(n),
            Ok(Err(text)) => ResourceValue::Text(set.texts.intern(&text)),
            Err(message) => {
                set.requests.truncate(start);
                return Err(bad(id, &field(&name), message));
            }
        };
        let guess = (set.requests.get(previous.clone()))
            .and_then(|p| p.get(k))
            .map(|r| r.sym());
        let sym = set.resources.intern_guess(&name, guess);
        set.requests.push(Request::new(sym, v));
    }
    // A resource given twice: one pass over the job's symbols, however many it requests.
    let syms: Vec<Sym> = (set.requests.get(start..).unwrap_or(&[]).iter())
        .map(|r| r.sym())
        .collect();
    if let (Some(at), _) = first_repeat(&syms) {
        set.requests.truncate(start);
        let name = set.resources.name(syms[at]).to_string();
        return Err(bad(id, &field(&name), "given twice"));
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
                    let e = serde.unwrap_err().to_string();
                    assert!(e.starts_with("2:") && e.ends_with(message), "{e}");
                    assert!(fast.is_none());
                }
            }
        }
    }
}
