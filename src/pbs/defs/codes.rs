//! PBS error numbers and messages (`src/include/pbs_error.h`, `src/lib/Liblog/pbs_messages.c`)
//! and the scheduler's configuration messages, so every refusal reads exactly as PBS's.

/// A PBS error: its number (`PBSE_*`) and PBS's message for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    /// The error number, e.g. 15007.
    pub number: u32,
    /// PBS's message, e.g. `Unauthorized Request ` (trailing space included where PBS has one).
    pub message: &'static str,
}

/// PBSE_NOATTR: the attribute does not exist on that object (PBS's `msg_noattr`, trailing
/// space included).
pub const NOATTR: Code = code(15002, "Undefined attribute ");
/// PBSE_ATTRRO: setting or unsetting a read-only attribute (`msg_attrro`, trailing space
/// included; the server appends the attribute's name).
pub const ATTRRO: Code = code(
    15003,
    "Cannot set attribute, read only or insufficient permission ",
);
/// PBSE_IVALREQ: a request that cannot apply (e.g. deleting a built-in resource).
pub const IVALREQ: Code = code(15004, "Invalid request");
/// PBSE_PERM: the user is not a manager (or may not change the formula).
pub const PERM: Code = code(15007, "Unauthorized Request ");
/// PBSE_BADATVAL: a value of the wrong form.
pub const BADATVAL: Code = code(15014, "Illegal attribute or resource value");
/// PBSE_UNKQUE: no such queue.
pub const UNKQUE: Code = code(15018, "Unknown queue");
/// PBSE_QUEEXIST: `create queue` of an existing queue.
pub const QUEEXIST: Code = code(15025, "Queue already exists");
/// PBSE_NOSERVER: a server name other than this home's.
pub const NOSERVER: Code = code(15034, "No server to connect to");
/// PBSE_UNKRESC: no such resource.
pub const UNKRESC: Code = code(15035, "Unknown resource");
/// PBSE_DUPLIST: `create resource` of an existing resource.
pub const DUPLIST: Code = code(15055, "Duplicate entry in list ");
/// PBSE_BAD_FORMULA: the formula is not valid Python expression syntax.
pub const BAD_FORMULA: Code = code(15123, "Invalid Formula Format");
/// PBSE_BAD_FORMULA_KW: the formula names something that is not a keyword or resource.
pub const BAD_FORMULA_KW: Code = code(15124, "Formula contains invalid keyword");
/// PBSE_BAD_FORMULA_TYPE: the formula names a string or boolean resource.
pub const BAD_FORMULA_TYPE: Code = code(15125, "Formula contains a resource of an invalid type");
/// PBSE_IVAL_OBJ_NAME: a queue or resource name PBS would not accept.
pub const IVAL_OBJ_NAME: Code = code(15172, "Invalid object name");
/// PBSE_RESCBUSY: deleting a resource that is in use (fairsort: used by a stored formula).
pub const RESCBUSY: Code = code(15174, "Resource busy");
/// PBSE_SCHEDEXIST: `create sched` of an existing scheduler (`default` always exists).
pub const SCHEDEXIST: Code = code(15211, "Scheduler already exists");
/// PBSE_UNKSCHED: a scheduler other than `default`.
pub const UNKSCHED: Code = code(15213, "Unknown Scheduler");

/// PBSE_SVR_SCHED_JSF_INCOMPAT: the server's and the scheduler's `job_sort_formula` would
/// differ (both set).
pub const SVR_SCHED_JSF_INCOMPAT: Code = code(
    15226,
    "Server's job_sort_formula value is incompatible with sched's",
);

/// The three codes of formula validation, in code order (15123, 15124, 15125).
pub const FORMULA_CODES: [Code; 3] = [BAD_FORMULA, BAD_FORMULA_KW, BAD_FORMULA_TYPE];

/// A `Code` (for the constants above).
const fn code(number: u32, message: &'static str) -> Code {
    Code { number, message }
}

/// The scheduler's message for a `fairshare_decay_time` (or other time setting) that is not a
/// time: `Invalid time <v>`.
pub(crate) fn invalid_time(value: &str) -> String {
    format!("Invalid time {value}")
}

/// The scheduler's message for a `fairshare_decay_factor` outside (0, 1).
pub(crate) fn invalid_decay_factor(f: f64) -> String {
    format!("fairshare_decay_factor: Invalid value: {f:.4}.  Valid values are between 0 and 1.")
}

/// The scheduler's message for an unknown `fairshare_entity`.
pub(crate) fn invalid_entity(value: &str) -> String {
    format!("fairshare_entity {value} is erroneous (or deprecated).")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_pbs_numbers() {
        assert_eq!(
            (PERM.number, PERM.message),
            (15007, "Unauthorized Request ")
        );
        assert_eq!(
            FORMULA_CODES.map(|c| c.number),
            [15123, 15124, 15125],
            "pbs_error.h"
        );
        assert_eq!(invalid_time("86400"), "Invalid time 86400");
        assert_eq!(
            invalid_decay_factor(1.0),
            "fairshare_decay_factor: Invalid value: 1.0000.  Valid values are between 0 and 1."
        );
    }
}
