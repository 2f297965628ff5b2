//! Civil-calendar arithmetic in UTC (days ↔ year/month/day), enough for Slurm's
//! `PriorityUsageResetPeriod` boundaries without a date crate.

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month 1–12, day 1–31) of a day count since 1970-01-01.
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Seconds since the epoch of `y-m-d 00:00:00` UTC.
pub(crate) fn epoch_of(y: i64, m: u32, d: u32) -> i64 {
    days_from_civil(y, m, d) * 86_400
}

/// Parses `YYYY-MM-DD[THH:MM[:SS]]` (UTC) into epoch seconds; `None` if malformed.
pub fn parse_iso(s: &str) -> Option<i64> {
    let (date, time) = match s.split_once(['T', ' ']) {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let mut dp = date.split('-');
    // Four-digit years only: a huge year overflowed the day arithmetic (found by fuzzing).
    let y: i64 = dp.next()?.parse().ok().filter(|y| (0..=9999).contains(y))?;
    let m: u32 = dp.next()?.parse().ok()?;
    let d: u32 = dp.next()?.parse().ok()?;
    if dp.next().is_some() || !crate::pbs::defs::units::valid_date(y, i64::from(m), i64::from(d)) {
        return None;
    }
    let mut secs = 0i64;
    if let Some(t) = time {
        let t = t.strip_suffix('Z').unwrap_or(t);
        let parts: Vec<&str> = t.split(':').collect();
        if parts.len() < 2 || parts.len() > 3 {
            return None;
        }
        let mut mult = 3600;
        for p in parts {
            let v: i64 = p.parse().ok()?;
            if !(0..60).contains(&v) && mult != 3600 || !(0..24).contains(&v) && mult == 3600 {
                return None;
            }
            secs += v * mult;
            mult /= 60;
        }
    }
    Some(epoch_of(y, m, d) + secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil_from_days(11_017), (2000, 3, 1));
        assert_eq!(epoch_of(2024, 4, 13), 1_712_966_400);
        for z in [-1000, -1, 0, 59, 60, 10_000, 20_000, 19_782] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
    }

    #[test]
    fn parses_iso_times() {
        assert_eq!(parse_iso("2024-04-13"), Some(1_712_966_400));
        assert_eq!(parse_iso("2024-04-13T01:02:03"), Some(1_712_966_400 + 3723));
        assert_eq!(parse_iso("2024-04-13 01:02"), Some(1_712_966_400 + 3720));
        assert_eq!(parse_iso("2024-13-01"), None);
        assert_eq!(parse_iso("2024-04-13T25:00"), None);
        assert_eq!(parse_iso("yesterday"), None);
        // impossible dates are refused, not rolled over into the next month
        assert_eq!(parse_iso("2024-02-30"), None);
        assert_eq!(parse_iso("2023-02-29"), None);
        assert_eq!(parse_iso("2024-04-31T00:00"), None);
        assert_eq!(parse_iso("2024-02-29"), Some(1_709_164_800));
        assert_eq!(parse_iso("2024-04-13T-1:00"), None);
    }
}
