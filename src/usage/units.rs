//! Value syntax of the schedulers' records, converted to the units their formulas use:
//! PBS times (`HH:MM:SS`) → seconds, PBS sizes (`300kb`, `4gb`) → kilobytes, PBS log dates,
//! Slurm durations (`[DD-]HH:MM:SS`).

use super::decay::calendar::epoch_of;

/// A PBS resource value from an accounting record in PBS formula units: a time
/// (`[[HH:]MM:]SS[.frac]`) in seconds, a size (`<n>[b|kb|mb|gb|tb|pb|w|kw|mw|gw|tw|pw]`) in kilobytes
/// (rounded up, as PBS normalises sizes to kb), or a plain number. `None` if it is none of these.
pub fn pbs_value(v: &[u8]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    if v.contains(&b':') {
        return pbs_time(v);
    }
    let digits_end = v
        .iter()
        .position(|c| !(c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'+' | b'e' | b'E')))
        .unwrap_or(v.len());
    if digits_end == v.len() {
        return parse_f64(v);
    }
    // A size: integer digits then a unit suffix (an 'e' belongs to no PBS size).
    let (num, unit) = v.split_at(digits_end);
    let n = parse_f64(num)?;
    let (mult_bytes, word) = match unit.to_ascii_lowercase().as_slice() {
        b"b" => (1.0, false),
        b"kb" | b"k" => (1024.0, false),
        b"mb" | b"m" => (1024.0 * 1024.0, false),
        b"gb" | b"g" => (1024.0f64.powi(3), false),
        b"tb" | b"t" => (1024.0f64.powi(4), false),
        b"pb" | b"p" => (1024.0f64.powi(5), false),
        b"w" => (1.0, true),
        b"kw" => (1024.0, true),
        b"mw" => (1024.0 * 1024.0, true),
        b"gw" => (1024.0f64.powi(3), true),
        b"tw" => (1024.0f64.powi(4), true),
        b"pw" => (1024.0f64.powi(5), true),
        _ => return None,
    };
    let bytes = n * mult_bytes * if word { 8.0 } else { 1.0 };
    Some((bytes / 1024.0).ceil())
}

/// A PBS time `[[HH:]MM:]SS[.frac]` in seconds (a bare number is seconds).
pub fn pbs_time(v: &[u8]) -> Option<f64> {
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

/// Strict `HH:MM:SS` / `MM:SS` as PBS requires for `fairshare_decay_time` (a bare number is
/// rejected with PBS's `Invalid time <v>`).
pub fn pbs_decay_time(v: &str) -> Result<i64, String> {
    let invalid = || format!("Invalid time {v}");
    let parts: Vec<&str> = v.split(':').collect();
    if parts.len() < 2 || parts.len() > 3 {
        return Err(invalid());
    }
    let mut total: i64 = 0;
    for p in parts {
        let x: i64 = p.parse().map_err(|_| invalid())?;
        if x < 0 {
            return Err(invalid());
        }
        total = total
            .checked_mul(60)
            .and_then(|t| t.checked_add(x))
            .ok_or_else(invalid)?;
    }
    Ok(total)
}

/// A PBS accounting log date `MM/DD/YYYY HH:MM:SS`, read as UTC, in epoch seconds.
pub fn pbs_log_date(v: &[u8]) -> Option<i64> {
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
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    Some(epoch_of(y, mo as u32, d as u32) + h * 3600 + mi * 60 + s)
}

/// A Slurm duration as sacct prints it: `[DD-]HH:MM:SS`, `MM:SS`, `MM:SS.mmm`, or plain seconds
/// (ElapsedRaw). Returns seconds.
pub fn slurm_duration(v: &str) -> Option<f64> {
    let v = v.trim();
    let (days, rest) = match v.split_once('-') {
        Some((d, r)) => (d.parse::<u64>().ok()? as f64, r),
        None => (0.0, v),
    };
    let t = pbs_time(rest.as_bytes())?;
    Some(days * 86_400.0 + t)
}

/// A decimal number from ASCII bytes.
pub fn parse_f64(v: &[u8]) -> Option<f64> {
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
    fn pbs_times_are_seconds() {
        assert_eq!(pbs_value(b"01:00:00"), Some(3600.0));
        assert_eq!(pbs_value(b"00:00:10"), Some(10.0));
        assert_eq!(pbs_value(b"02:30"), Some(150.0));
        assert_eq!(pbs_value(b"120"), Some(120.0));
        assert_eq!(pbs_value(b"1.5"), Some(1.5));
        assert_eq!(pbs_value(b"1::2"), None);
        assert_eq!(pbs_value(b"1:2:3:4"), None);
    }

    #[test]
    fn pbs_sizes_are_kilobytes() {
        assert_eq!(pbs_value(b"300kb"), Some(300.0));
        assert_eq!(pbs_value(b"4gb"), Some(4.0 * 1024.0 * 1024.0));
        assert_eq!(pbs_value(b"2mb"), Some(2048.0));
        assert_eq!(pbs_value(b"1b"), Some(1.0));
        assert_eq!(pbs_value(b"0kb"), Some(0.0));
        assert_eq!(pbs_value(b"128w"), Some(1.0));
        assert_eq!(pbs_value(b"3KB"), Some(3.0));
        assert_eq!(pbs_value(b"pack"), None);
        assert_eq!(pbs_value(b"12xb"), None);
        assert_eq!(pbs_value(b""), None);
    }

    #[test]
    fn decay_time_needs_colons() {
        assert_eq!(pbs_decay_time("24:00:00"), Ok(86_400));
        assert_eq!(pbs_decay_time("00:00:02"), Ok(2));
        assert_eq!(pbs_decay_time("10:00"), Ok(600));
        assert_eq!(pbs_decay_time("86400"), Err("Invalid time 86400".into()));
        assert!(pbs_decay_time("a:b").is_err());
    }

    #[test]
    fn log_dates() {
        assert_eq!(pbs_log_date(b"04/13/2024 00:00:01"), Some(1_712_966_401));
        assert_eq!(pbs_log_date(b"13/13/2024 00:00:01"), None);
        assert_eq!(pbs_log_date(b"04/13/2024T00:00:01"), None);
        assert_eq!(pbs_log_date(b"04/13/2024 00:00"), None);
    }

    #[test]
    fn slurm_durations() {
        assert_eq!(slurm_duration("1-02:00:00"), Some(93_600.0));
        assert_eq!(slurm_duration("00:10:00"), Some(600.0));
        assert_eq!(slurm_duration("10:00.500"), Some(600.5));
        assert_eq!(slurm_duration("3600"), Some(3600.0));
        assert_eq!(slurm_duration("x-1:00"), None);
        assert_eq!(slurm_duration("Unknown"), None);
    }
}
