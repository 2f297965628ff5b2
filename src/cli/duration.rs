//! The one form of every duration flag (`--half-life`, `--decay-period`, `--calc-period`,
//! `--sample`, …): plain seconds (`604800`), units (`7d`, `12h`, `1d12h`, `90m`, `30s`, `2w`),
//! clock time as PBS writes it (`HH:MM:SS`, `MM:SS`) and Slurm's `D-HH[:MM[:SS]]`. A bare number
//! is seconds in every flag, so the same setting has the same unit in every command.

/// One week, the largest unit.
const WEEK: f64 = 7.0 * 86_400.0;
/// The longest duration a flag takes: 100 years (longer is a typo, and keeps every product
/// with a rate finite).
const MAX: f64 = 100.0 * 365.25 * 86_400.0;

/// Parses a duration into seconds (finite, ≥ 0, at most 100 years).
pub fn parse(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let v = if t.is_empty() {
        None
    } else if let Some((days, clock)) = t.split_once('-') {
        slurm_days(days, clock)
    } else if t.contains(':') {
        clock(t)
    } else if t.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        number(t)
    } else {
        units(t)
    };
    let v = v.ok_or_else(|| {
        format!(
            "`{s}` is not a duration (seconds, `7d`, `12h`, `1d12h`, `HH:MM:SS` or `D-HH:MM:SS`)"
        )
    })?;
    if v > MAX {
        return Err(format!("`{s}` is longer than 100 years"));
    }
    Ok(v)
}

/// A clap value parser: a positive duration in seconds.
pub fn positive(s: &str) -> Result<f64, String> {
    let v = parse(s)?;
    if v <= 0.0 {
        return Err(format!("`{s}`: the duration must be positive"));
    }
    Ok(v)
}

/// A clap value parser: a whole number of seconds, 0 included (a half-life of 0 is Slurm's "no
/// decay"). A plain integer is passed on as it is, negative or huge, so that the setting's own
/// range check, where it is used, names the setting and its range.
pub fn seconds(s: &str) -> Result<i64, String> {
    if let Ok(v) = s.trim().parse::<i64>() {
        return Ok(v);
    }
    let v = parse(s)?;
    if v.fract() != 0.0 {
        return Err(format!("`{s}`: a whole number of seconds is needed"));
    }
    Ok(v as i64)
}

/// A clap value parser: a duration in seconds, 0 included.
pub fn non_negative(s: &str) -> Result<f64, String> {
    parse(s)
}

/// A clap value parser: a positive whole number of seconds (a plain integer above 100 years is
/// passed on for the setting's own range check).
pub fn positive_seconds(s: &str) -> Result<i64, String> {
    if let Ok(v) = s.trim().parse::<i64>() {
        return match v {
            1.. => Ok(v),
            _ => Err(format!("`{s}`: the duration must be positive")),
        };
    }
    let v = positive(s)?;
    if v.fract() != 0.0 {
        return Err(format!("`{s}`: a whole number of seconds is needed"));
    }
    Ok(v as i64)
}

fn number(t: &str) -> Option<f64> {
    if t.starts_with('.') || t.ends_with('.') || t.matches('.').count() > 1 {
        return None;
    }
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

fn whole(t: &str) -> Option<f64> {
    if t.is_empty() || t.len() > 12 || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse::<f64>().ok()
}

/// `HH:MM:SS` or `MM:SS` (seconds may have a fraction); the minutes and seconds below 60.
fn clock(t: &str) -> Option<f64> {
    let parts: Vec<&str> = t.split(':').collect();
    let (h, m, s) = match parts.as_slice() {
        [m, s] => ("0", *m, *s),
        [h, m, s] => (*h, *m, *s),
        _ => return None,
    };
    let (h, m, s) = (whole(h)?, whole(m)?, number(s)?);
    if parts.len() == 3 && m >= 60.0 || s >= 60.0 {
        return None;
    }
    Some(h * 3600.0 + m * 60.0 + s)
}

/// Slurm's `D-HH`, `D-HH:MM`, `D-HH:MM:SS`.
fn slurm_days(days: &str, clock: &str) -> Option<f64> {
    let d = whole(days)?;
    let parts: Vec<&str> = clock.split(':').collect();
    if parts.len() > 3 {
        return None;
    }
    let mut v = d * 86_400.0;
    for (i, p) in parts.iter().enumerate() {
        let n = whole(p)?;
        if i > 0 && n >= 60.0 || i == 0 && n >= 24.0 {
            return None;
        }
        v += n * [3600.0, 60.0, 1.0][i];
    }
    Some(v)
}

/// `7d`, `12h`, `1d12h`, `90m`, `30s`, `2w`: numbers each followed by a unit, units decreasing.
fn units(t: &str) -> Option<f64> {
    let mut total = 0.0;
    let mut last = f64::INFINITY;
    let mut rest = t;
    while !rest.is_empty() {
        let n = rest
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        let value = number(&rest[..n])?;
        let unit = match rest[n..].chars().next()? {
            'w' => WEEK,
            'd' => 86_400.0,
            'h' => 3600.0,
            'm' => 60.0,
            's' => 1.0,
            _ => return None,
        };
        if unit >= last {
            return None;
        }
        last = unit;
        total += value * unit;
        rest = &rest[n + 1..];
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_is_seconds() {
        for (s, v) in [
            ("604800", 604800.0),
            ("1.5", 1.5),
            ("7d", 604800.0),
            ("1d12h", 129600.0),
            ("90m", 5400.0),
            ("2w", 1209600.0),
            ("30s", 30.0),
            ("168:00:00", 604800.0),
            ("05:00", 300.0),
            ("7-00:00:00", 604800.0),
            ("1-12", 129600.0),
            ("1-00:05", 86700.0),
            ("0", 0.0),
        ] {
            assert_eq!(parse(s), Ok(v), "{s}");
        }
    }

    #[test]
    fn what_is_not_a_duration_is_refused() {
        for s in [
            "",
            "-1",
            "7x",
            "d",
            "1h1d",
            "1:60:00",
            "1-24",
            "1-1:1:1:1",
            "nan",
            "inf",
            "1e3",
            "1..2",
            ".5h",
            "00:3x:00",
            "7 d",
        ] {
            assert!(parse(s).is_err(), "{s}");
        }
        assert!(parse("200y").is_err());
        assert!(parse("99999999999w").is_err());
        assert!(positive("0").is_err());
        assert!(positive_seconds("1.5").is_err());
        assert_eq!(positive_seconds("5m"), Ok(300));
        assert_eq!(seconds("0"), Ok(0));
        assert_eq!(seconds("-3"), Ok(-3), "for the setting's own range check");
        assert!(seconds("-1d").is_err());
        assert!(positive_seconds("-5").is_err());
    }
}
