//! The `ctime`-style dates `qstat -f -F json` prints for `qtime` (`Tue Oct  4 21:23:20 2022`),
//! read in place. Resource values and durations are `crate::pbs::defs::units`.

use crate::pbs::defs::units::{small_digits, valid_date};

use jiff::tz::TimeZone;

/// [`parse_ctime_in`] read in UTC (what the PBS tools' dates are when the site runs in UTC:
/// pbs_rstat's, and every caller that names no zone).
pub(crate) fn parse_ctime(text: &str) -> Option<i64> {
    parse_ctime_in(text, &TimeZone::UTC)
}

/// Seconds since the epoch from a C `ctime` date as `qstat` prints it, `Tue Oct  4 21:23:20
/// 2022`: `ctime(3)` writes the server's local time, so it is read in `zone` (the site's
/// zone: `TZ`, or `--tz`); a time that the zone skips or repeats (a daylight-saving change)
/// is read as the later or the earlier one, as `mktime` does. Also accepts a plain integer epoch
/// and ISO 8601 (fairsort's own job lists, where people type dates: `2024-04-13T12:00`,
/// `2024-04-13 12:00:00Z`, `2024-04-13T14:00+02:00`): one with a zone or offset is that
/// instant, one without is read in `zone` too.
pub(crate) fn parse_ctime_in(text: &str, zone: &TimeZone) -> Option<i64> {
    match civil_seconds(text)? {
        Civil::Local(t) => in_zone(t, zone),
        Civil::Instant(t) => Some(t),
    }
}

/// A date as [`civil_seconds`] reads it.
enum Civil {
    /// A wall-clock time, as seconds of the same wall clock in UTC.
    Local(i64),
    /// An instant (epoch seconds, or a date with its own zone or offset).
    Instant(i64),
}

/// The instant a wall-clock time (as UTC seconds of that clock) is in `zone`: a time repeated
/// when clocks go back is its first occurrence, one skipped when they go forward is taken after
/// the gap (as `mktime` does with no DST hint). The one conversion of every reader of a
/// scheduler's zone-less dates (qstat, PBS accounting logs, sacct).
pub(crate) fn in_zone(civil: i64, zone: &TimeZone) -> Option<i64> {
    if *zone == TimeZone::UTC {
        return Some(civil);
    }
    let dt = TimeZone::UTC.to_datetime(jiff::Timestamp::from_second(civil).ok()?);
    let t = zone.to_ambiguous_timestamp(dt).compatible().ok()?;
    Some(t.as_second())
}

fn civil_seconds(text: &str) -> Option<Civil> {
    if let Some(t) = ctime_exact(text.as_bytes()) {
        return Some(Civil::Local(t));
    }
    let s = text.trim();
    if let Ok(n) = s.parse::<i64>() {
        return Some(Civil::Instant(n));
    }
    if s.as_bytes().get(4) == Some(&b'-') {
        return parse_iso_8601(s);
    }
    // Iterators, not vectors: this runs once per job of a million-job file.
    let mut fields = s.split_whitespace();
    let (Some(_weekday), Some(month), Some(day), Some(time), Some(year), None) = (
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
    ) else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| m.eq_ignore_ascii_case(month))? as i64 + 1;
    let day: i64 = day.parse().ok().filter(|d| (1..=31).contains(d))?;
    // Four-digit years only: a huge year overflowed the day arithmetic.
    let year: i64 = year.parse().ok().filter(|y| (1..=9999).contains(y))?;
    if !valid_date(year, month, day) {
        return None; // `Feb 30`: refused, not rolled over into March
    }
    let mut hms = time.split(':');
    let (Some(h), Some(m), Some(sec), None) = (hms.next(), hms.next(), hms.next(), hms.next())
    else {
        return None;
    };
    let h: i64 = h.parse().ok().filter(|v| (0..24).contains(v))?;
    let m: i64 = m.parse().ok().filter(|v| (0..60).contains(v))?;
    let sec: i64 = sec.parse().ok().filter(|v| (0..=60).contains(v))?;
    Some(Civil::Local(
        days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + sec,
    ))
}

/// An ISO 8601 date: with a zone or offset the instant it names, without one a wall-clock time.
fn parse_iso_8601(s: &str) -> Option<Civil> {
    use jiff::civil::{Date, DateTime};
    if let Ok(t) = s.parse::<jiff::Timestamp>() {
        return Some(Civil::Instant(t.as_second()));
    }
    if let Ok(z) = s.parse::<jiff::ZonedDateTime>() {
        return Some(Civil::Instant(z.timestamp().as_second()));
    }
    let dt = match s.parse::<DateTime>() {
        Ok(dt) => dt,
        Err(_) => s
            .parse::<Date>()
            .ok()?
            .to_datetime(jiff::civil::Time::midnight()),
    };
    let z = dt.to_zoned_datetime(TimeZone::UTC).ok()?;
    Some(Civil::Local(z.timestamp().as_second()))
}

/// `parse_ctime` of the exact layout `ctime` prints (`Tue Oct  4 21:23:20 2022`: 24 bytes,
/// the day padded with a space), read in place; `None` for anything else, which the general
/// path then reads. Runs once per job of a million-job file.
fn ctime_exact(b: &[u8]) -> Option<i64> {
    let [w0, w1, w2, b' ', m0, m1, m2, b' ', d0, d1, b' ', h0, h1, b':', n0, n1, b':', s0, s1, b' ', y0, y1, y2, y3] =
        *b
    else {
        return None;
    };
    if ![w0, w1, w2].iter().all(u8::is_ascii_graphic) {
        return None;
    }
    const MONTHS: [&[u8; 3]; 12] = [
        b"jan", b"feb", b"mar", b"apr", b"may", b"jun", b"jul", b"aug", b"sep", b"oct", b"nov",
        b"dec",
    ];
    let month = [m0, m1, m2].map(|c| c.to_ascii_lowercase());
    let month = MONTHS.iter().position(|m| **m == month)? as i64 + 1;
    let day = match d0 {
        b' ' => small_digits(&[d1])?,
        _ => small_digits(&[d0, d1])?,
    } as i64;
    let year = small_digits(&[y0, y1, y2, y3])? as i64;
    let h = small_digits(&[h0, h1])? as i64;
    let m = small_digits(&[n0, n1])? as i64;
    let sec = small_digits(&[s0, s1])? as i64;
    let valid =
        (1..=9999).contains(&year) && valid_date(year, month, day) && h < 24 && m < 60 && sec <= 60;
    valid.then(|| days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + sec)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ctime date is the server's wall clock: read in New York's zone (a POSIX rule, so no
    /// zone database is needed) it is 4 hours (summer) or 5 (winter) after the same clock in
    /// UTC; a date with its own offset, or epoch seconds, is the same instant in every zone.
    #[test]
    fn dates_are_read_in_the_sites_zone() {
        let ny = TimeZone::posix("EST5EDT,M3.2.0,M11.1.0").unwrap();
        let utc = |t: &str| parse_ctime(t).unwrap();
        for (text, hours) in [
            ("Sat Apr 13 12:00:00 2024", 4),
            ("Tue Jan  2 12:00:00 2024", 5),
            ("2024-04-13T12:00", 4),
        ] {
            assert_eq!(
                parse_ctime_in(text, &ny),
                Some(utc(text) + hours * 3600),
                "{text}"
            );
        }
        for text in ["1700000000", "2024-04-13T12:00Z", "2024-04-13T14:00+02:00"] {
            assert_eq!(parse_ctime_in(text, &ny), parse_ctime(text), "{text}");
        }
        // 02:30 on the spring-forward day does not exist in New York: read as 03:30 EDT.
        assert_eq!(
            parse_ctime_in("Sun Mar 10 02:30:00 2024", &ny),
            Some(utc("Sun Mar 10 03:30:00 2024") + 4 * 3600)
        );
    }

    #[test]
    fn iso_8601_dates() {
        assert_eq!(parse_ctime("2024-04-13"), Some(1_712_966_400));
        assert_eq!(
            parse_ctime("2024-04-13T01:02:03"),
            Some(1_712_966_400 + 3723)
        );
        assert_eq!(
            parse_ctime(" 2024-04-13 01:02 "),
            Some(1_712_966_400 + 3720)
        );
        assert_eq!(parse_ctime("2024-04-13T01:02Z"), Some(1_712_966_400 + 3720));
        assert_eq!(
            parse_ctime("2024-04-13T03:02+02:00"),
            Some(1_712_966_400 + 3720)
        );
        assert_eq!(parse_ctime("2024-02-30"), None);
        assert_eq!(parse_ctime("2024-04-13T25:00"), None);
        assert_eq!(parse_ctime("2024-04"), None);
    }

    #[test]
    fn ctime_dates() {
        assert_eq!(parse_ctime("Thu Jan  1 00:00:00 1970"), Some(0));
        // date -u -d '2022-10-04 21:23:20' +%s
        assert_eq!(parse_ctime("Tue Oct  4 21:23:20 2022"), Some(1_664_918_600));
        assert_eq!(parse_ctime("1664918600"), Some(1_664_918_600));
        assert_eq!(parse_ctime("Tue Foo  4 21:23:20 2022"), None);
        assert_eq!(parse_ctime("yesterday"), None);
        // The in-place reading of ctime's own layout agrees with the general one.
        for (text, want) in [
            ("Tue Oct  4 21:23:20 2022", Some(1_664_918_600)),
            ("tue OCT 04 21:23:20 2022", Some(1_664_918_600)),
            ("Sat Feb 29 23:59:60 2020", Some(1_583_020_800)),
            ("Tue Oct 32 21:23:20 2022", None),
            ("Tue Oct  0 21:23:20 2022", None),
            ("Tue Oct  4 24:00:00 2022", None),
            ("Tue Oct  4 21:60:00 2022", None),
            ("Tue Oct  4 21:23:61 2022", None),
            ("Tue Oct  4 21:23:20 0000", None),
            ("Tue Oct  4 2x:23:20 2022", None),
            ("T e Oct  4 21:23:20 2022", None),
        ] {
            assert_eq!(parse_ctime(text), want, "{text}");
            if want.is_some() {
                assert_eq!(ctime_exact(text.as_bytes()), want, "{text}");
            }
        }
        assert_eq!(ctime_exact(b" Tue Oct  4 21:23:20 2022"), None);
        assert_eq!(
            parse_ctime(" Tue Oct  4 21:23:20 2022 "),
            Some(1_664_918_600)
        );
    }
}
