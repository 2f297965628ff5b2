//! Dates as people read and type them. Output: local date-times (the zone of `TZ`, else the
//! system's), `--utc` for the same style in UTC, `--epoch` for seconds since 1970; `--json` and
//! `--csv` always carry epoch seconds, so scripts do not depend on the reader's zone. Input:
//! epoch seconds or ISO 8601 with or without a zone (`2024-04-13`, `2024-04-13T12:00`,
//! `2024-04-13 12:00:00`, `2024-04-13T12:00Z`, `2024-04-13T12:00+02:00`,
//! `2024-04-13T12:00[Europe/Paris]`); without one, the local zone.

use fairsort::usage::decay::calendar::parse_iso;
use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ZonedDateTime};

/// How dates are printed: `--utc` and `--epoch` on the commands that print them.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct DateFlags {
    /// Print dates in UTC (`2024-04-13 12:00:00 UTC`, the style of local dates) instead of local time.
    #[arg(long, conflicts_with = "epoch")]
    pub utc: bool,
    /// Print dates as epoch seconds (for scripts).
    #[arg(long)]
    pub epoch: bool,
}

impl DateFlags {
    /// `secs` (epoch seconds) as the flags ask: local (default), UTC or epoch.
    pub fn show(self, secs: i64) -> String {
        if self.epoch {
            return secs.to_string();
        }
        let Ok(t) = Timestamp::from_second(secs) else {
            return secs.to_string();
        };
        if self.utc {
            return t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string();
        }
        local(t, &TimeZone::system())
    }
}

/// `t` in zone `tz`, as `2024-04-13 14:00:00 CEST` (the zone's abbreviation, else its offset).
fn local(t: Timestamp, tz: &TimeZone) -> String {
    t.to_zoned_datetime(tz.clone())
        .strftime("%Y-%m-%d %H:%M:%S %Z")
        .to_string()
}

/// A time typed by a user: epoch seconds, or ISO 8601 with or without a zone (without: the
/// local zone). The error says which forms are accepted.
pub fn parse_time(s: &str) -> Result<i64, String> {
    parse_time_in(s, &TimeZone::system())
}

/// [`parse_time`] with `tz` for zone-less dates.
fn parse_time_in(s: &str, tz: &TimeZone) -> Result<i64, String> {
    let t = s.trim();
    if let Ok(secs) = t.parse::<i64>() {
        return Ok(secs);
    }
    let zoned = if let Ok(ts) = t.parse::<Timestamp>() {
        Some(ts.as_second())
    } else if let Ok(z) = t.parse::<ZonedDateTime>() {
        Some(z.timestamp().as_second())
    } else if let Ok(dt) = t.parse::<DateTime>() {
        (dt.to_zoned_datetime(tz.clone()).ok())
            .map(|z| z.timestamp().as_second())
            .or_else(|| at_the_edge(t, tz))
    } else if let Ok(d) = t.parse::<Date>() {
        (d.to_zoned_datetime(tz.clone()).ok())
            .map(|z| z.timestamp().as_second())
            .or_else(|| at_the_edge(t, tz))
    } else {
        None
    };
    zoned.ok_or_else(|| {
        format!(
            "bad time `{s}`: use epoch seconds or ISO 8601, e.g. 2024-04-13, 2024-04-13T12:00, 2024-04-13T12:00:00Z or 2024-04-13T12:00+02:00 (no zone: local time)"
        )
    })
}

/// A zone-less date-time past the last instant jiff represents (9999-12-30 22:00 UTC, so that
/// any offset fits): as UTC shifted by the zone's offset at that last instant.
fn at_the_edge(t: &str, tz: &TimeZone) -> Option<i64> {
    let utc = parse_iso(t)?;
    Some(utc - i64::from(tz.to_offset(Timestamp::MAX).seconds()))
}

/// `--tz ZONE`: the zone a site's dates are read in (qstat's `qtime`, PBS accounting-log
/// stamps): an IANA name (`America/New_York`) or a POSIX TZ string (`EST5EDT,M3.2.0,M11.1.0`).
pub fn parse_zone(text: &str) -> Result<jiff::tz::TimeZone, String> {
    jiff::tz::TimeZone::get(text)
        .or_else(|_| jiff::tz::TimeZone::posix(text))
        .map_err(|_| {
            format!("`{text}` is not a time zone (an IANA name such as `America/New_York`, or a POSIX TZ string)")
        })
}

/// The zone of `--tz`, else the system's (`TZ`, `/etc/localtime`).
pub fn zone_or_system(zone: &Option<jiff::tz::TimeZone>) -> jiff::tz::TimeZone {
    zone.clone().unwrap_or_else(jiff::tz::TimeZone::system)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// UTC+2 (Paris in summer), fixed: the tests do not need the system's zone database.
    fn paris() -> TimeZone {
        TimeZone::fixed(jiff::tz::offset(2))
    }

    #[test]
    fn reads_epoch_and_iso_with_or_without_a_zone() {
        let utc = TimeZone::UTC;
        assert_eq!(parse_time_in("1713000000", &utc), Ok(1_713_000_000));
        assert_eq!(parse_time_in("2024-04-13", &utc), Ok(1_712_966_400));
        assert_eq!(
            parse_time_in("2024-04-13T01:02:03", &utc),
            Ok(1_712_966_400 + 3723)
        );
        assert_eq!(
            parse_time_in("2024-04-13 01:02", &utc),
            Ok(1_712_966_400 + 3720)
        );
        assert_eq!(
            parse_time_in("2024-04-13T01:02Z", &utc),
            Ok(1_712_966_400 + 3720)
        );
        // An offset or a zone wins over the local zone.
        assert_eq!(
            parse_time_in("2024-04-13T02:00+02:00", &paris()),
            Ok(1_712_966_400)
        );
        assert_eq!(
            parse_time_in("2024-04-13T00:00:00Z", &paris()),
            Ok(1_712_966_400)
        );
        // Without one, the given local zone.
        assert_eq!(
            parse_time_in("2024-04-13T02:00", &paris()),
            Ok(1_712_966_400)
        );
        // The last day the home accepts, past jiff's range.
        assert_eq!(parse_time_in("9999-12-31", &utc), Ok(253_402_214_400));
        assert_eq!(
            parse_time_in("9999-12-31T23:59:59", &paris()),
            Ok(253_402_300_799 - 7200)
        );
        for bad in [
            "tomorrow",
            "2024-13-01",
            "2024-02-30",
            "2024-04-13T25:00",
            "",
        ] {
            let e = parse_time_in(bad, &utc).unwrap_err();
            assert!(e.contains("ISO 8601"), "{bad}: {e}");
        }
    }

    #[test]
    fn prints_local_utc_or_epoch() {
        let t = Timestamp::from_second(1_712_966_400).unwrap();
        assert_eq!(local(t, &TimeZone::UTC), "2024-04-13 00:00:00 UTC");
        assert!(local(t, &paris()).starts_with("2024-04-13 02:00:00 "));
        let utc = DateFlags {
            utc: true,
            epoch: false,
        };
        assert_eq!(utc.show(1_712_966_400), "2024-04-13 00:00:00 UTC");
        let epoch = DateFlags {
            utc: false,
            epoch: true,
        };
        assert_eq!(epoch.show(1_712_966_400), "1712966400");
        // Out of jiff's range: the number, never a panic.
        assert_eq!(utc.show(i64::MAX), i64::MAX.to_string());
    }

    #[test]
    fn zones_are_named_by_iana_name_or_posix_rule() {
        assert!(parse_zone("UTC").is_ok());
        assert!(parse_zone("CET-1CEST,M3.5.0,M10.5.0/3").is_ok());
        assert!(parse_zone("Mars/Olympus")
            .unwrap_err()
            .contains("`Mars/Olympus` is not a time zone"));
    }
}
