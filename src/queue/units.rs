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
    let s = trim(text);
    if s.is_empty() {
        return None;
    }
    if s.as_bytes().contains(&b':') {
        return parse_duration(s);
    }
    let split = (s.bytes())
        .position(|c| !(c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'+' | b'e' | b'E')))
        .unwrap_or(s.len());
    // A trailing exponent-looking letter belongs to a suffix only if the number fails to parse;
    // sizes never use `e`, so try the longest numeric prefix first.
    let (num, suffix) = s.split_at(split);
    let count: f64 = match small_digits(num.as_bytes()) {
        Some(n) => n as f64,
        None => num.parse().ok()?,
    };
    if !count.is_finite() {
        return None;
    }
    // Every suffix is at most two letters; lower-cased in place (no allocation: this runs for
    // every size of a million-job file).
    if suffix.len() > 2 {
        return None;
    }
    let mut lower = [0u8; 2];
    for (d, c) in lower.iter_mut().zip(suffix.bytes()) {
        *d = c.to_ascii_lowercase();
    }
    let kb = match lower.get(..suffix.len()).unwrap_or(b"?") {
        b"" => return Some(count),
        b"k" | b"kb" => count,
        b"m" | b"mb" => count * 1024.0,
        b"g" | b"gb" => count * 1024.0 * 1024.0,
        b"t" | b"tb" => count * 1024.0 * 1024.0 * 1024.0,
        b"kw" => count * WORD_BYTES,
        b"mw" => count * 1024.0 * WORD_BYTES,
        b"gw" => count * 1024.0 * 1024.0 * WORD_BYTES,
        b"tw" => count * 1024.0 * 1024.0 * 1024.0 * WORD_BYTES,
        b"b" => (count / 1024.0).ceil(),
        b"w" => (count / 1024.0).ceil() * WORD_BYTES,
        _ => return None,
    };
    Some(kb)
}

/// Seconds from `HH:MM:SS`, `MM:SS` or a plain number of seconds (PBS time resources and the
/// `eligible_time` attribute). Fields may exceed their usual range (`100:00:00`).
pub fn parse_duration(text: &str) -> Option<f64> {
    let s = trim(text);
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    // At most three fields, split in place (called twice per job of a large file).
    let mut parts: [&str; 3] = [""; 3];
    let mut count = 0;
    let mut start = 0;
    for (i, c) in body.bytes().enumerate() {
        if c == b':' {
            *parts.get_mut(count).filter(|_| count < 2)? = body.get(start..i)?;
            count += 1;
            start = i + 1;
        }
    }
    *parts.get_mut(count)? = body.get(start..)?;
    let parts = parts.get(..count + 1)?;
    let field = |p: &str| -> Option<f64> {
        if let Some(n) = small_digits(p.as_bytes()) {
            return Some(n as f64);
        }
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
    if let Some(t) = ctime_exact(text.as_bytes()) {
        return Some(t);
    }
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
        (1..=31).contains(&day) && (1..=9999).contains(&year) && h < 24 && m < 60 && sec <= 60;
    valid.then(|| days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + sec)
}

/// `text.trim()`, skipping the Unicode whitespace tables when both ends are plain ASCII.
fn trim(text: &str) -> &str {
    let b = text.as_bytes();
    let plain = |c: Option<&u8>| c.is_some_and(u8::is_ascii_graphic);
    if plain(b.first()) && plain(b.last()) {
        text
    } else {
        text.trim()
    }
}

/// The value of 1 to 15 ASCII digits (exact as an `f64`), else `None`: the common case of the
/// number parsing here, without the general float parser.
fn small_digits(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 15 {
        return None;
    }
    s.iter().try_fold(0u64, |v, &c| {
        let d = c.wrapping_sub(b'0');
        (d <= 9).then(|| v * 10 + u64::from(d))
    })
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

    #[test]
    fn small_digits_only() {
        assert_eq!(small_digits(b"0"), Some(0));
        assert_eq!(small_digits(b"999999999999999"), Some(999_999_999_999_999));
        assert_eq!(
            small_digits(b"1000000000000000"),
            None,
            "16 digits: general parser"
        );
        assert_eq!(small_digits(b""), None);
        assert_eq!(small_digits(b"1a"), None);
        assert_eq!(small_digits(b"-1"), None);
        assert_eq!(parse_resource_value("0007gb"), Some(7.0 * 1024.0 * 1024.0));
        assert_eq!(
            parse_duration("1234567890123456:00"),
            Some(1234567890123456.0 * 60.0)
        );
    }
}
