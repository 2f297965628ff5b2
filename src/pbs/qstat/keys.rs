//! The `qstat -f -F json` attributes fairsort binds: their keys and the `Field` enum the reader
//! matches each job's keys to.

/// `Job_Owner` (`user@host`).
pub(super) const JOB_OWNER: &[u8] = b"Job_Owner";
/// The effective user.
pub(super) const EUSER: &[u8] = b"euser";
/// The effective group.
pub(super) const EGROUP: &[u8] = b"egroup";
/// The account.
pub(super) const ACCOUNT_NAME: &[u8] = b"Account_Name";
/// The queue the job is in.
pub(super) const QUEUE: &[u8] = b"queue";
/// The job's state letter.
pub(super) const JOB_STATE: &[u8] = b"job_state";
/// The job's priority.
pub(super) const PRIORITY: &[u8] = b"Priority";
/// When the job was queued.
pub(super) const QTIME: &[u8] = b"qtime";
/// Seconds the job has been eligible to run.
pub(super) const ELIGIBLE_TIME: &[u8] = b"eligible_time";
/// What the job accrues now.
pub(super) const ACCRUE_TYPE: &[u8] = b"accrue_type";
/// When a running job started.
pub(super) const STIME: &[u8] = b"stime";
/// The subjobs of an array job still queued (`1-3,7`).
pub(super) const ARRAY_REMAINING: &[u8] = b"array_indices_remaining";
/// The job's requested resources.
pub(super) const RESOURCE_LIST: &[u8] = b"Resource_List";

/// The attribute a job key names; a key needs no UTF-8 check to be matched (an unknown key's
/// value is skipped like any other).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    Owner,
    Euser,
    Egroup,
    Account,
    Queue,
    State,
    Priority,
    Qtime,
    EligibleTime,
    AccrueType,
    Stime,
    ArrayRemaining,
    Resources,
    /// Any other key: its value is skipped.
    Other,
}

/// Every bound key with the attribute it names.
#[cfg(test)]
pub(super) const KEYS: [(&[u8], Field); 13] = [
    (JOB_OWNER, Field::Owner),
    (EUSER, Field::Euser),
    (EGROUP, Field::Egroup),
    (ACCOUNT_NAME, Field::Account),
    (QUEUE, Field::Queue),
    (JOB_STATE, Field::State),
    (PRIORITY, Field::Priority),
    (QTIME, Field::Qtime),
    (ELIGIBLE_TIME, Field::EligibleTime),
    (ACCRUE_TYPE, Field::AccrueType),
    (STIME, Field::Stime),
    (ARRAY_REMAINING, Field::ArrayRemaining),
    (RESOURCE_LIST, Field::Resources),
];

/// A bound key as text, for messages (every key above is ASCII).
pub(super) fn text(key: &'static [u8]) -> &'static str {
    std::str::from_utf8(key).unwrap_or("?")
}

impl Field {
    /// Which attribute `key` names, by byte compares (the serde reader's way).
    pub(super) fn of(key: &[u8]) -> Field {
        match key {
            JOB_OWNER => Field::Owner,
            EUSER => Field::Euser,
            EGROUP => Field::Egroup,
            ACCOUNT_NAME => Field::Account,
            QUEUE => Field::Queue,
            JOB_STATE => Field::State,
            PRIORITY => Field::Priority,
            QTIME => Field::Qtime,
            ELIGIBLE_TIME => Field::EligibleTime,
            ACCRUE_TYPE => Field::AccrueType,
            STIME => Field::Stime,
            ARRAY_REMAINING => Field::ArrayRemaining,
            RESOURCE_LIST => Field::Resources,
            _ => Field::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_names_its_field_and_nothing_else_does() {
        for (key, field) in KEYS {
            assert_eq!(Field::of(key), field);
            assert_eq!(Field::of(&key[1..]), Field::Other);
        }
        assert_eq!(Field::of(b"Variable_List"), Field::Other);
    }
}
