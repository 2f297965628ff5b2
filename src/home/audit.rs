//! The audit log (`audit.log` in the home): one line per change, `time<TAB>user@host<TAB>command`,
//! time in UTC ISO-8601. A record and the change it records are committed together or not at
//! all (see `journal`); the file is created with mode 0640.

use std::time::{SystemTime, UNIX_EPOCH};

/// One record, `time<TAB>user@host<TAB>command\n`; control characters (tabs and newlines
/// included) and backslashes inside the command, user and host are escaped so a record is one
/// line of three fields. It is written by [`crate::home::journal::commit`], together with the change
/// it records.
pub fn record(user: &str, host: &str, command: &str) -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format!(
        "{}\t{}@{}\t{}\n",
        utc_timestamp(secs),
        escape(user),
        escape(host),
        escape(command)
    )
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the Unix epoch (proleptic Gregorian, UTC).
pub(crate) fn utc_timestamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(1_700_000_000), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn one_line_per_record() {
        let a = record("alice", "h", "set server a = 1");
        let b = record("bob", "h", "multi\nline\tcmd");
        assert!(a.ends_with("\talice@h\tset server a = 1\n"));
        assert!(b.ends_with("\tbob@h\tmulti\\nline\\tcmd\n"));
        assert_eq!(b.matches('\n').count(), 1);
    }
}
