//! Placeholder of the holidays reader (replaced by the full reader).

use crate::files::FormatError;

/// The prime-time table of `holidays`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Holidays {
    notes: Vec<String>,
}

/// Reads `holidays`.
pub fn read_holidays(_text: &str, _file: &str) -> Result<Holidays, FormatError> {
    Ok(Holidays::default())
}

impl Holidays {
    /// Whether `epoch` is prime time.
    pub fn is_prime(&self, _epoch: i64, _tz: &jiff::tz::TimeZone) -> bool {
        true
    }
    /// What pbs_sched logs.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
}
