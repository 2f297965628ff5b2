//! The SWF fields by number: their names in the Parallel Workloads Archive's definition and the
//! range the reader accepts for each, so a value no real log holds (`nan`, `inf`, `1e300`, a
//! time near 2^63) is refused where it is written instead of reaching the replay's arithmetic.

/// The longest time the reader accepts, in seconds (a submit offset, a run or requested time):
/// 100 years. Real logs span a few years; this keeps every sum of times and every core ×
/// seconds product far inside i64 and exact in f64.
pub const MAX_SWF_SECONDS: i64 = 3_155_760_000;

/// The most processors one job may have (allocated or requested): 2^26 (67,108,864, more
/// than any machine has had).
pub const MAX_SWF_PROCS: i64 = 1 << 26;

/// The most memory per processor, KB (field 10): 2^40 KB (1 PiB).
pub const MAX_SWF_MEM_KB: i64 = 1 << 40;

/// The largest user, group or queue number: 2^31 − 1.
pub const MAX_SWF_ID: i64 = i32::MAX as i64;

/// What a field may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A count or an identifier: an integer, −1 (unknown) or 0 to the maximum.
    Integer(i64),
    /// A quantity (seconds, KB): a finite number, −1 (unknown) or 0 to the maximum; a decimal
    /// is rounded to the nearest whole unit.
    Quantity(i64),
    /// Not used by fairsort: any finite number.
    Unused,
}

/// The 18 fields: name and kind, by position (field 1 is index 0).
pub(crate) const FIELDS: [(&str, Kind); 18] = [
    ("Job Number", Kind::Unused),
    ("Submit Time", Kind::Quantity(MAX_SWF_SECONDS)),
    ("Wait Time", Kind::Unused),
    ("Run Time", Kind::Quantity(MAX_SWF_SECONDS)),
    (
        "Number of Allocated Processors",
        Kind::Integer(MAX_SWF_PROCS),
    ),
    ("Average CPU Time Used", Kind::Unused),
    ("Used Memory", Kind::Unused),
    (
        "Requested Number of Processors",
        Kind::Integer(MAX_SWF_PROCS),
    ),
    ("Requested Time", Kind::Quantity(MAX_SWF_SECONDS)),
    ("Requested Memory", Kind::Quantity(MAX_SWF_MEM_KB)),
    ("Status", Kind::Unused),
    ("User ID", Kind::Integer(MAX_SWF_ID)),
    ("Group ID", Kind::Integer(MAX_SWF_ID)),
    ("Executable (Application) Number", Kind::Unused),
    ("Queue Number", Kind::Integer(MAX_SWF_ID)),
    ("Partition Number", Kind::Unused),
    ("Preceding Job Number", Kind::Unused),
    ("Think Time from Preceding Job", Kind::Unused),
];

/// Field `k`'s (0-based) value from its text `s`, or what is wrong with it (without the
/// field's name).
pub(crate) fn value(k: usize, s: &str) -> Result<i64, String> {
    let kind = FIELDS.get(k).map_or(Kind::Unused, |f| f.1);
    let int = s.parse::<i64>().ok();
    let x = match int {
        Some(i) => i as f64,
        None => s
            .parse::<f64>()
            .map_err(|_| format!("`{s}` is not a number"))?,
    };
    if !x.is_finite() {
        return Err(format!("`{s}` is not a finite number"));
    }
    let max = match kind {
        Kind::Unused => return Ok(int.unwrap_or(0)),
        Kind::Integer(max) => {
            if int.is_none() && x.fract() != 0.0 {
                return Err(format!("`{s}` is not a whole number"));
            }
            max
        }
        Kind::Quantity(max) => max,
    };
    let v = match int {
        Some(i) => i,
        // within ±2^63 here or refused just below
        None if x.abs() < 9.0e18 => x.round() as i64,
        None => i64::MAX,
    };
    if v == -1 || (0..=max).contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "`{s}` is out of range (-1 for unknown, or 0 to {max})"
        ))
    }
}
