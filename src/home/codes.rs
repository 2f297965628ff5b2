//! PBS error numbers and messages (`src/include/pbs_error.h`, `src/lib/Liblog/pbs_messages.c`)
//! that the qmgr language returns, so every refusal reads exactly as PBS's.

use super::error::Rejection;

/// PBSE_NOATTR: the attribute does not exist on that object.
pub const NOATTR: (u32, &str) = (15002, "Unknown Attribute");
/// PBSE_PERM: the user is not a manager.
pub const PERM: (u32, &str) = (15007, "Unauthorized Request ");
/// PBSE_BADATVAL: a value of the wrong form.
pub const BADATVAL: (u32, &str) = (15014, "Illegal attribute or resource value");
/// PBSE_UNKQUE: no such queue.
pub const UNKQUE: (u32, &str) = (15018, "Unknown queue");
/// PBSE_QUEEXIST: `create queue` of an existing queue.
pub const QUEEXIST: (u32, &str) = (15025, "Queue already exists");
/// PBSE_UNKRESC: no such resource.
pub const UNKRESC: (u32, &str) = (15035, "Unknown resource");
/// PBSE_DUPLIST: `create resource` of an existing resource.
pub const DUPLIST: (u32, &str) = (15055, "Duplicate entry in list ");
/// PBSE_BAD_FORMULA: syntax error in a formula.
pub const BAD_FORMULA: (u32, &str) = (15123, "Invalid Formula Format");
/// PBSE_BAD_FORMULA_KW: unknown name in a formula.
pub const BAD_FORMULA_KW: (u32, &str) = (15124, "Formula contains invalid keyword");
/// PBSE_BAD_FORMULA_TYPE: a string/boolean resource in a formula.
pub const BAD_FORMULA_TYPE: (u32, &str) = (15125, "Formula contains a resource of an invalid type");
/// PBSE_RESCBUSY: deleting a resource that is in use (fairsort: used by a stored formula).
pub const RESCBUSY: (u32, &str) = (15174, "Resource busy");
/// PBSE_UNKSCHED: a scheduler other than `default`.
pub const UNKSCHED: (u32, &str) = (15213, "Unknown Scheduler");

/// Builds the rejection of `code` for `object`.
pub fn reject(code: (u32, &str), object: &str) -> Rejection {
    Rejection::new(code.0, object, code.1)
}

/// PBSE_IVALREQ: a request that cannot apply (e.g. deleting a built-in resource).
pub const IVALREQ: (u32, &str) = (15004, "Invalid request");
/// PBSE_NOSERVER: a server name other than this home's.
pub const NOSERVER: (u32, &str) = (15034, "No server to connect to");
/// PBSE_IVAL_OBJ_NAME: a queue or resource name PBS would not accept.
pub const IVAL_OBJ_NAME: (u32, &str) = (15172, "Invalid object name");
