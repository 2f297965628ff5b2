//! Value syntax of the schedulers' records besides PBS resource values (those are
//! `crate::pbs::defs::units`): PBS accounting log dates, Slurm durations (`[DD-]HH:MM:SS`), numbers.

use crate::usage::decay::calendar::epoch_of;

/// A PBS accounting log date `MM/DD/YYYY HH:MM:SS`, read as UTC, in epoch seconds.
pub(crate) fn pbs_log_date(v: &[u8]) -> Option<i64> {
    if v.len() != 19
        || v[2] != b'/'
        || v[5] != b'/'
        || v[10] != b' '
        || v[13] != b':'
        || v[16] != b':'
    {
        return None;
    }
    let n = |a: usize, b: usize| -> Option<i64> {
        let mut x = 0i64;
        for c in v.get(a..b)? {
            if !c.is_ascii_digit() {
                return None;
            }
            x = x * 10 + i64::from(c - b'0');
        }
        Some(x)
    };
    let (mo, d, y) = (n(0, 2)?, n(3, 5)?, n(6, 10)?);
    let (h, mi, s) = (n(11, 13)?, n(14, 16)?, n(17, 19)?);
    if !crate::pbs::defs::units::valid_date(y, mo, d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    Some(epoch_of(y, mo as u32, d as u32) + h * 3600 + mi * 60 + s)
}

/// A Slurm duration as sacct prints it: `[DD-]HH:MM:SS`, `MM:SS`, `MM:SS.mmm`, or plain seconds
/// (ElapsedRaw). Returns seconds.
pub(crate) fn slurm_duration(v: &str) -> Option<f64> {
    let v = v.trim();
    let (days, rest) = match v.split_once('-') {
        Some((d, r)) => (d.parse::<u64>().ok()? as f64, r),
        None => (0.0, v),
    };
    let t = clock_seconds(rest.as_bytes())?;
    Some(days * 86_400.0 + t)
}

/// `[[HH:]MM:]SS[.frac]` in seconds (a bare number is seconds): the clock part of a Slurm
/// duration.
fn clock_seconds(v: &[u8]) -> Option<f64> {
    let mut total = 0.0;
    let mut fields = 0;
    for part in v.split(|c| *c == b':') {
        fields += 1;
        if fields > 3 || part.is_empty() {
            return None;
        }
        let x = parse_f64(part)?;
        if x < 0.0 {
            return None;
        }
        total = total * 60.0 + x;
    }
    Some(total)
}

/// A decimal number from ASCII bytes.
pub(crate) fn parse_f64(v: &[u8]) -> Option<f64> {
    // Fast path: plain non-negative integers, the common case in accounting records.
    if !v.is_empty() && v.len() <= 15 && v.iter().all(u8::is_ascii_digit) {
        return Some(v.iter().fold(0u64, |a, c| a * 10 + u64::from(c - b'0')) as f64);
    }
    let s = std::str::from_utf8(v).ok()?;
    let x: f64 = s.parse().ok()?;
    x.is_finite().then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_dates() {
        assert_eq!(pbs_log_date(b"04/13/2024 00:00:01"), Some(1_712_966_401));
        assert_eq!(pbs_log_date(b"13/13/2024 00:00:01"), None);
        assert_eq!(pbs_log_date(b"04/13/2024T00:00:01"), None);
        assert_eq!(pbs_log_date(b"04/13/2024 00:00"), None);
        assert_eq!(pbs_log_date(b"02/30/2024 00:00:01"), None);
        assert_eq!(pbs_log_date(b"02/29/2023 00:00:01"), None);
    }

    #[test]
    fn slurm_durations() {
        assert_eq!(slurm_duration("1-02:00:00"), Some(93_600.0));
        assert_eq!(slurm_duration("00:10:00"), Some(600.0));
        assert_eq!(slurm_duration("10:00.500"), Some(600.5));
        assert_eq!(slurm_duration("3600"), Some(3600.0));
        assert_eq!(slurm_duration("x-1:00"), None);
        assert_eq!(slurm_duration("Unknown"), None);
        assert_eq!(slurm_duration("1::2"), None);
        assert_eq!(slurm_duration("1:2:3:4"), None);
    }
}
