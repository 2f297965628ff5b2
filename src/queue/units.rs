//! PBS units: the text of a resource value turned into the number the scheduler binds, exactly as
//! PBS's `res_to_num` does (sizes in kilobytes, times in seconds), plus the `ctime`-style dates
//! and `HH:MM:SS` durations that `qstat -f -F json` prints for `qtime` and `eligible_time`.

/// Bytes in a PBS word (`SIZEOF_WORD` on every 64-bit platform PBS supports).
const WORD_BYTES: f64 = 8.0;

/// Converts a resource value's text to PBS units, or `None` when PBS would not see a number
/// (booleans, strings such as `select` or `place`, malformed sizes).
///
/// * plain numbers: as written (`4`, `1.5`, `-2`);
/// * sizes: kilobytes; suffix `k`/`m`/`g`/`t` (×1, ×1024, ×1024², ×1024³) optionally followed by
///   `b` (bytes) or `w` (words, ×8), a bare `b` is bytes rounded up to whole kilobytes, a bare
///   `w` is words (bytes ×8, rounded up); case-insensitive (`4gb`, `4GB`, `300kb`, `1024b`);
/// * times: seconds from `HH:MM:SS` or `MM:SS` (`01:00:00` → 3600, `02:30` → 150).
pub fn parse_resource_value(text: &str) -> Option<f64> {
    let s = text.trim();
    if s.is_empty() {
        return None;
    }
    if s.contains(':') {
        return parse_duration(s);
    }
    let split = s
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')
        })
        .unwrap_or(s.len());
    // A trailing exponent-looking letter belongs to a suffix only if the number fails to parse;
    // sizes never use `e`, so try the longest numeric prefix first.
    let (num, suffix) = s.split_at(split);
    let count: f64 = num.parse().ok()?;
    if !count.is_finite() {
        return None;
    }
    let suffix = suffix.to_ascii_lowercase();
    let kb = match suffix.as_str() {
        "" => return Some(count),
        "k" | "kb" => count,
        "m" | "mb" => count * 1024.0,
        "g" | "gb" => count * 1024.0 * 1024.0,
        "t" | "tb" => count * 1024.0 * 1024.0 * 1024.0,
        "kw" => count * WORD_BYTES,
        "mw" => count * 1024.0 * WORD_BYTES,
        "gw" => count * 1024.0 * 1024.0 * WORD_BYTES,
        "tw" => count * 1024.0 * 1024.0 * 1024.0 * WORD_BYTES,
        "b" => (count / 1024.0).ceil(),
        "w" => (count / 1024.0).ceil() * WORD_BYTES,
        _ => return None,
    };
    Some(kb)
}

/// Seconds from `HH:MM:SS`, `MM:SS` or a plain number of seconds (PBS time resources and the
/// `eligible_time` attribute). Fields may exceed their usual range (`100:00:00`).
pub fn parse_duration(text: &str) -> Option<f64> {
    let s = text.trim();
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    // At most three fields, without allocating (called twice per job of a large file).
    let mut split = body.split(':');
    let mut parts: [&str; 3] = [""; 3];
    let mut count = 0;
    for p in split.by_ref().take(3) {
        parts[count] = p;
        count += 1;
    }
    if split.next().is_some() {
        return None;
    }
    let parts = &parts[..count];
    let field = |p: &str| -> Option<f64> {
        if p.is_empty() || !p.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return None;
        }
        p.parse::<f64>().ok()
    };
    let secs = match parts {
        [sec] => field(sec)?,
        [m, sec] => field(m)? * 60.0 + field(sec)?,
        [h, m, sec] => {
            // PBS reads the seconds of HH:MM:SS as an integer (strtol).
            if sec.contains('.') {
                return None;
            }
            field(h)? * 3600.0 + field(m)? * 60.0 + field(sec)?
        }
        _ => return None,
    };
    Some(if negative { -secs } else { secs })
}

/// Seconds since the epoch (read as UTC) from a C `ctime` date as `qstat` prints it:
/// `Tue Oct  4 21:23:20 2022`. Also accepts a plain integer epoch (fairsort's own job lists).
/// Only the relative order of dates matters for sorting, so the server's time zone is ignored.
pub fn parse_ctime(text: &str) -> Option<i64> {
    let s = text.trim();
    if let Ok(n) = s.parse::<i64>() {
        return Some(n);
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
    let mut hms = time.split(':');
    let (Some(h), Some(m), Some(sec), None) = (hms.next(), hms.next(), hms.next(), hms.next())
    else {
        return None;
    };
    let h: i64 = h.parse().ok().filter(|v| (0..24).contains(v))?;
    let m: i64 = m.parse().ok().filter(|v| (0..60).contains(v))?;
    let sec: i64 = sec.parse().ok().filter(|v| (0..=60).contains(v))?;
    Some(days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + sec)
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

    #[test]
    fn sizes_are_kilobytes() {
        assert_eq!(parse_resource_value("300kb"), Some(300.0));
        assert_eq!(parse_resource_value("300k"), Some(300.0));
        assert_eq!(parse_resource_value("4gb"), Some(4.0 * 1024.0 * 1024.0));
        assert_eq!(parse_resource_value("4GB"), Some(4.0 * 1024.0 * 1024.0));
        assert_eq!(parse_resource_value("2mb"), Some(2048.0));
        assert_eq!(parse_resource_value("1tb"), Some(1024.0f64.powi(3)));
        assert_eq!(parse_resource_value("1025b"), Some(2.0), "bytes round up");
        assert_eq!(parse_resource_value("1024b"), Some(1.0));
        assert_eq!(parse_resource_value("1kw"), Some(8.0));
        assert_eq!(parse_resource_value("1024w"), Some(8.0));
    }

    #[test]
    fn times_are_seconds() {
        assert_eq!(parse_resource_value("01:00:00"), Some(3600.0));
        assert_eq!(parse_resource_value("00:01:00"), Some(60.0));
        assert_eq!(parse_resource_value("02:30"), Some(150.0));
        assert_eq!(parse_resource_value("100:00:00"), Some(360_000.0));
        assert_eq!(parse_duration("4"), Some(4.0));
        assert_eq!(parse_duration("1:2:3:4"), None);
        assert_eq!(parse_duration("a:00"), None);
    }

    #[test]
    fn plain_numbers_and_non_numbers() {
        assert_eq!(parse_resource_value("4"), Some(4.0));
        assert_eq!(parse_resource_value("-2"), Some(-2.0));
        assert_eq!(parse_resource_value("1.5"), Some(1.5));
        assert_eq!(parse_resource_value("True"), None);
        assert_eq!(parse_resource_value("scatter"), None);
        assert_eq!(parse_resource_value("2:ncpus=2:mem=4gb"), None);
        assert_eq!(parse_resource_value("4xb"), None);
        assert_eq!(parse_resource_value(""), None);
        assert_eq!(parse_resource_value("inf"), None);
    }

    #[test]
    fn ctime_dates() {
        assert_eq!(parse_ctime("Thu Jan  1 00:00:00 1970"), Some(0));
        // date -u -d '2022-10-04 21:23:20' +%s
        assert_eq!(parse_ctime("Tue Oct  4 21:23:20 2022"), Some(1_664_918_600));
        assert_eq!(parse_ctime("1664918600"), Some(1_664_918_600));
        assert_eq!(parse_ctime("Tue Foo  4 21:23:20 2022"), None);
        assert_eq!(parse_ctime("yesterday"), None);
    }
}
