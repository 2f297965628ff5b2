//! PBS units: a resource value's text turned into the number PBS's scheduler uses, exactly as
//! `res_to_num` (OpenPBS `src/scheduler/misc.cpp`, with its gate `is_num`) does: sizes in
//! kilobytes, times in seconds, anything else as written. Also `fairshare_decay_time` (a
//! `res_to_num` time) and PBS's `HH:MM:SS` printing of durations.
//!
//! Every reader and command converts PBS values here; nothing allocates (a million-job `qstat`
//! file converts a few million values).

/// Bytes in a kilobyte (`KILO`): bytes and words are divided by it and rounded up.
pub const KILO: f64 = 1024.0;
/// Bytes in a PBS word (`SIZEOF_WORD`: 8 on every 64-bit platform PBS supports).
pub const WORD_BYTES: f64 = 8.0;

/// What `res_to_num` found a value to be (its `resource_type` flags `is_num`, `is_size`,
/// `is_time`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A plain number (`4`, `1.5`, `-2`).
    Number,
    /// A size, converted to kilobytes (`4gb`, `300kb`, `1024b`, `8w`).
    Size,
    /// A duration, converted to seconds (`01:00:00`, `02:30`).
    Time,
}

/// PBS's `res_to_num` for a value that passes its `is_num` gate: `None` where PBS finds no
/// number (strings, booleans, malformed sizes such as `1.5kb` or `2pb`, an `HH:MM:SS` whose
/// seconds are not an integer). The rules, all from `res_to_num`/`is_num`:
///
/// * an optional sign, then digits; `:` separates at most three time fields (`HH:MM:SS` →
///   `H*3600 + M*60 + S`, `MM:SS` → `M*60 + S`; fields may exceed 59; the sign applies to the
///   first field only, as `strtod` reads it);
/// * a size suffix `k`/`m`/`g`/`t` (×1, ×1024, ×1024², ×1024³ KB, either case) optionally followed
///   by `b` (bytes, either case) or `w` (lower case only: ×8, words), or a bare `b`/`B` (bytes:
///   `ceil(n/1024)`) or `w` (words: `ceil(n/1024)*8`, not `ceil(n*8/1024)`); no `p` (PBS's
///   scheduler reads `2pb` as a string) and only integers take a suffix (`1.5k` is a string);
/// * a decimal fraction only without a suffix (`1.5`, `.5`, `1:30.5`); no exponent (`1e3`).
///
/// Quirks kept on purpose, as PBS has them: an upper-case `W` is not a word (`1024W` is 1024,
/// `1kW` is 1), empty fields read as 0 (`1::` is 3600, `""` and `-` are 0), and in `MM:SS`
/// whatever follows the seconds' number is ignored (`1:2k` is 62).
pub(crate) fn res_to_num(text: &[u8]) -> Option<(f64, Unit)> {
    match res_to_num_common(text) {
        Some(v) => Some(v),
        None => res_to_num_general(text),
    }
}

/// [`res_to_num`] of the shapes a qstat file is made of — digits (`4`), digits and a size
/// suffix `k|m|g|t` with or without `b` (`49gb`), `H:MM:SS` (`38:00:00`) — read in place, with
/// the same float operations as the general reading; `None` for any other shape (then
/// [`res_to_num_general`] decides). Runs for a few values of every job of a million-job file.
#[inline]
fn res_to_num_common(text: &[u8]) -> Option<(f64, Unit)> {
    let n = digits_len(text);
    let count = small_digits(text.get(..n)?)? as f64;
    let digit = |c: u8| c.is_ascii_digit().then(|| f64::from(c - b'0'));
    match *text.get(n..)? {
        [] => Some((count, Unit::Number)),
        [suffix] | [suffix, b'b' | b'B'] => {
            let multiplier = match suffix {
                b'k' | b'K' => 1.0,
                b'm' | b'M' => KILO,
                b'g' | b'G' => KILO * KILO,
                b't' | b'T' => KILO * KILO * KILO,
                _ => return None,
            };
            Some((count * multiplier, Unit::Size))
        }
        [b':', m0, m1, b':', s0, s1] => {
            let minutes = digit(m0)? * 10.0 + digit(m1)?;
            let seconds = digit(s0)? * 10.0 + digit(s1)?;
            Some((count * 3600.0 + minutes * 60.0 + seconds, Unit::Time))
        }
        _ => None,
    }
}

/// [`res_to_num`] for every text, by `is_num` and `strtod` as PBS reads it.
fn res_to_num_general(text: &[u8]) -> Option<(f64, Unit)> {
    if !is_num(text) {
        return None;
    }
    let (mut count, end) = strtod(text, 0);
    let mut multiplier = 1.0;
    let mut unit = Unit::Number;
    match text.get(end).copied() {
        Some(b':') => {
            let (count2, end2) = strtod(text, end + 1);
            if text.get(end2) == Some(&b':') {
                // HH:MM:SS: the seconds are an integer (`strtol`) reaching the end.
                let secs = text.get(end2 + 1..).unwrap_or_default();
                if !secs.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                count = count * 3600.0 + count2 * 60.0 + digits_value(secs);
            } else {
                count = count * 60.0 + count2;
            }
            unit = Unit::Time;
        }
        Some(b'k' | b'K') => unit = Unit::Size,
        Some(b'm' | b'M') => (multiplier, unit) = (KILO, Unit::Size),
        Some(b'g' | b'G') => (multiplier, unit) = (KILO * KILO, Unit::Size),
        Some(b't' | b'T') => (multiplier, unit) = (KILO * KILO * KILO, Unit::Size),
        Some(b'b' | b'B') => (count, unit) = ((count / KILO).ceil(), Unit::Size),
        Some(b'w') => {
            (count, multiplier, unit) = ((count / KILO).ceil(), WORD_BYTES, Unit::Size);
        }
        _ => {}
    }
    // `if (*endp != '\0' && *(endp + 1) == 'w')`: checked after the first number's end, which
    // for `MM:SS` is the colon (so `1:w` is 480 seconds, as in PBS).
    if end < text.len() && text.get(end + 1) == Some(&b'w') {
        multiplier *= WORD_BYTES;
    }
    let value = count * multiplier;
    value.is_finite().then_some((value, unit))
}

/// A resource value in PBS units (see [`res_to_num`]), ignoring surrounding ASCII whitespace
/// (job lists written by hand). `None` when PBS would see no number.
pub(crate) fn resource_value(text: &[u8]) -> Option<f64> {
    res_to_num(trim(text)).map(|(v, _)| v)
}

/// The longest time an accounting record's resource may hold, in seconds: 100 years (the SWF
/// reader's and the usage settings' bound). PBS's accounting logs hold real jobs' times.
pub const MAX_RECORD_SECONDS: f64 = 3_155_760_000.0;

/// The largest other amount a record's resource may hold: 2^53, the last integer f64 holds
/// exactly (a size in KB: 8 EiB; PBS's own counts are C longs).
pub const MAX_RECORD_AMOUNT: f64 = 9_007_199_254_740_992.0;

/// [`resource_value`] for a value a job's usage is charged from: finite, not negative, and
/// within [`MAX_RECORD_SECONDS`] for a time or [`MAX_RECORD_AMOUNT`] otherwise; `None` for any
/// other, so a typo'd or forged log line cannot give one user more usage than the cluster has.
pub(crate) fn record_value(text: &[u8]) -> Option<f64> {
    let t = trim(text);
    if t.first() == Some(&b'-') {
        return None;
    }
    let (v, unit) = res_to_num(t)?;
    let max = match unit {
        Unit::Time => MAX_RECORD_SECONDS,
        Unit::Number | Unit::Size => MAX_RECORD_AMOUNT,
    };
    (v.is_finite() && (0.0..=max).contains(&v)).then_some(v)
}

/// A value as an admin types it for a keyword or resource (`fairsort eval -D`, formula tests'
/// `with`): a plain number (`3600`, `0.5`, `-1`, `1e3`), else a PBS size or time converted as
/// PBS's scheduler does (`4gb` → 4194304 KB, `01:00:00` → 3600 s). `None` when neither.
pub fn typed_value(text: &str) -> Option<f64> {
    let t = text.trim();
    t.parse::<f64>()
        .ok()
        .or_else(|| resource_value(t.as_bytes()))
}

/// A size as PBS reads it for a `size` resource (`192gb`, `4096mb`, `1024b`, `8w`; a plain
/// number is bytes), in whole kilobytes; `None` for anything else (a time, a string, a
/// negative or fractional size). `Resource_List.mem` and `fairsort replay --mem-per-node`.
pub fn size_kb(text: &str) -> Option<u64> {
    let t = trim(text.as_bytes());
    if !t.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    match res_to_num(t)? {
        (v, Unit::Size) if v >= 0.0 && v.fract() == 0.0 && v < 2f64.powi(63) => Some(v as u64),
        (v, Unit::Number) if v >= 0.0 && v.fract() == 0.0 && v < 2f64.powi(63) => {
            Some((v / KILO).ceil() as u64)
        }
        _ => None,
    }
}

/// A duration in seconds as [`res_to_num`] reads it (`HH:MM:SS`, `MM:SS` or a plain number,
/// surrounding whitespace ignored); `None` for sizes and non-numbers. PBS's `eligible_time`.
pub(crate) fn time_value(text: &[u8]) -> Option<f64> {
    match res_to_num(trim(text)) {
        Some((v, Unit::Time | Unit::Number)) => Some(v),
        _ => None,
    }
}

/// `fairshare_decay_time` as PBS's scheduler reads it (`parse_config`: `res_to_num` must find a
/// time, so a bare `86400` is refused), in whole seconds; fairsort also requires at least one
/// second and at most `i64::MAX`. The error is PBS's `Invalid time <v>`.
pub fn decay_time(text: &str) -> Result<u64, String> {
    match res_to_num(text.as_bytes()) {
        // The scheduler keeps a `time_t`: a fraction (`1:2.5`) is cut off.
        Some((v, Unit::Time)) if (1.0..9.2e18).contains(&v) => Ok(v as u64),
        _ => Err(crate::pbs::defs::codes::invalid_time(text)),
    }
}

/// Seconds as PBS prints durations: `HH:MM:SS` (hours may exceed 24).
pub(crate) fn format_time(secs: u64) -> String {
    format!(
        "{:02}:{:02}:{:02}",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    )
}

/// The value of 1 to 15 ASCII digits (exact as an `f64`), else `None`: the common case of the
/// number reading here and in the other PBS readers, without the general float parser.
pub(crate) fn small_digits(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 15 {
        return None;
    }
    s.iter().try_fold(0u64, |v, &c| {
        let d = c.wrapping_sub(b'0');
        (d <= 9).then(|| v * 10 + u64::from(d))
    })
}

/// PBS's `is_num`: an optional sign, then digits and colons (at most two colons when nothing
/// else follows), then either nothing, a size suffix (`k|m|g|t` then optionally `b|w`, or a bare
/// `b|w`, any case) or a `.` and digits.
fn is_num(text: &[u8]) -> bool {
    let s = match text.first() {
        Some(b'-' | b'+') => text.get(1..).unwrap_or_default(),
        _ => text,
    };
    let i = s
        .iter()
        .position(|c| !(c.is_ascii_digit() || *c == b':'))
        .unwrap_or(s.len());
    let (head, rest) = s.split_at(i);
    let lower = |k: usize| rest.get(k).map(u8::to_ascii_lowercase);
    match (lower(0), lower(1), rest.len()) {
        (None, _, _) => head.iter().filter(|c| **c == b':').count() <= 2,
        (Some(b'k' | b'm' | b'g' | b't'), None, 1) => true,
        (Some(b'k' | b'm' | b'g' | b't'), Some(b'b' | b'w'), 2) => true,
        (Some(b'b' | b'w'), None, 1) => true,
        (Some(b'.'), _, _) => rest
            .get(1..)
            .unwrap_or_default()
            .iter()
            .all(u8::is_ascii_digit),
        _ => false,
    }
}

/// C's `strtod` from `start` over what `is_num` lets through (a sign, digits, one `.`, digits):
/// the value and the index where reading stopped; `(0, start)` when there is no number.
fn strtod(text: &[u8], start: usize) -> (f64, usize) {
    let s = text.get(start..).unwrap_or_default();
    let sign = usize::from(matches!(s.first(), Some(b'-' | b'+')));
    let int_end = sign + digits_len(s.get(sign..).unwrap_or_default());
    let mut end = int_end;
    if s.get(int_end) == Some(&b'.') {
        end = int_end + 1 + digits_len(s.get(int_end + 1..).unwrap_or_default());
    }
    if end == sign || (end == sign + 1 && int_end == sign) {
        // No digit at all (`""`, `-`, `.`, `:30`): no conversion.
        return (0.0, start);
    }
    let number = s.get(..end).unwrap_or_default();
    let value = match small_digits(number) {
        Some(n) => n as f64,
        None => std::str::from_utf8(number)
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0.0),
    };
    (value, start + end)
}

/// How many ASCII digits `s` starts with.
fn digits_len(s: &[u8]) -> usize {
    s.iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(s.len())
}

/// The value of a run of ASCII digits (0 when empty, as `strtol` gives).
fn digits_value(s: &[u8]) -> f64 {
    small_digits(s).map_or_else(
        || s.iter().fold(0.0, |v, c| v * 10.0 + f64::from(c - b'0')),
        |n| n as f64,
    )
}

/// `text` without surrounding ASCII whitespace.
fn trim(text: &[u8]) -> &[u8] {
    text.trim_ascii()
}

/// Days in `month` (1–12) of the proleptic Gregorian `year`; 0 for a month out of range.
pub fn days_in_month(year: i64, month: i64) -> i64 {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => 0,
    }
}

/// Whether `year-month-day` exists (year 0–9999): `2024-02-30` and `2023-02-29` do not, and are
/// refused by every date reader rather than rolled over into the next month.
pub fn valid_date(year: i64, month: i64, day: i64) -> bool {
    (0..=9999).contains(&year) && day >= 1 && day <= days_in_month(year, month)
}

#[cfg(test)]
mod tests {
    //! Each rule pinned to OpenPBS's `res_to_num` and `is_num` (`src/scheduler/misc.cpp`);
    //! openpbs.md §1.2.
    use super::*;

    #[test]
    fn sizes_in_kilobytes() {
        assert_eq!(size_kb("192gb"), Some(192 * 1024 * 1024));
        assert_eq!(size_kb(" 4mb "), Some(4096));
        assert_eq!(
            size_kb("1025"),
            Some(2),
            "a plain number is bytes, rounded up"
        );
        assert_eq!(size_kb("2kw"), Some(16));
        for bad in ["", "x", "-4gb", "1.5gb", "01:00:00", "2pb"] {
            assert_eq!(size_kb(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn typed_values_take_numbers_then_pbs_units() {
        assert_eq!(typed_value("3600"), Some(3600.0));
        assert_eq!(typed_value(" -1e3 "), Some(-1000.0));
        assert_eq!(typed_value("01:00:00"), Some(3600.0));
        assert_eq!(typed_value("4gb"), Some(4.0 * 1024.0 * 1024.0));
        assert_eq!(typed_value("lots"), None);
    }

    fn num(s: &str) -> Option<f64> {
        res_to_num(s.as_bytes()).map(|(v, _)| v)
    }

    fn unit(s: &str) -> Option<Unit> {
        res_to_num(s.as_bytes()).map(|(_, u)| u)
    }

    const KB: f64 = 1.0;
    const MB: f64 = 1024.0;
    const GB: f64 = 1024.0 * 1024.0;
    const TB: f64 = 1024.0 * 1024.0 * 1024.0;

    #[test]
    fn sizes_are_kilobytes_with_or_without_b() {
        // res_to_num: `k` multiplier 1, `m` MEGATOKILO, `g` GIGATOKILO, `t` TERATOKILO; the
        // optional `b` after them changes nothing.
        for (text, want) in [
            ("300kb", 300.0 * KB),
            ("300k", 300.0 * KB),
            ("2mb", 2.0 * MB),
            ("2m", 2.0 * MB),
            ("4gb", 4.0 * GB),
            ("4g", 4.0 * GB),
            ("1tb", TB),
            ("1t", TB),
            ("0kb", 0.0),
            ("0007gb", 7.0 * GB),
        ] {
            assert_eq!(
                res_to_num(text.as_bytes()),
                Some((want, Unit::Size)),
                "{text}"
            );
        }
    }

    #[test]
    fn size_suffixes_ignore_case_except_w() {
        // res_to_num tests `'k' || 'K'` ... `'b' || 'B'`, but only a lower-case `w`.
        assert_eq!(num("4GB"), Some(4.0 * GB));
        assert_eq!(num("4Gb"), Some(4.0 * GB));
        assert_eq!(num("3KB"), Some(3.0));
        assert_eq!(num("2M"), Some(2.0 * MB));
        assert_eq!(num("2048B"), Some(2.0));
        assert_eq!(num("1kw"), Some(8.0));
        assert_eq!(
            num("1kW"),
            Some(1.0),
            "upper-case W is no word: multiplier stays 1"
        );
        assert_eq!(
            num("1024W"),
            Some(1024.0),
            "a bare W falls to the catch-all"
        );
        assert_eq!(unit("1024W"), Some(Unit::Number));
    }

    #[test]
    fn bytes_round_up_to_kilobytes() {
        // `b`: count = ceil(count / KILO).
        assert_eq!(num("1b"), Some(1.0));
        assert_eq!(num("1024b"), Some(1.0));
        assert_eq!(num("1025b"), Some(2.0));
        assert_eq!(num("0b"), Some(0.0));
        assert_eq!(num("-1025b"), Some(-1.0), "ceil toward +inf");
        assert_eq!(unit("1025b"), Some(Unit::Size));
    }

    #[test]
    fn words_are_eight_bytes() {
        // `w`: count = ceil(count / KILO), multiplier SIZEOF_WORD; `kw`/`mw`/...: ×SIZEOF_WORD.
        assert_eq!(
            num("100w"),
            Some(8.0),
            "ceil(100/1024) * 8, not ceil(800/1024)"
        );
        assert_eq!(num("128w"), Some(8.0));
        assert_eq!(num("1024w"), Some(8.0));
        assert_eq!(num("1025w"), Some(16.0));
        assert_eq!(num("1kw"), Some(8.0));
        assert_eq!(num("2mw"), Some(2.0 * MB * 8.0));
        assert_eq!(num("1gw"), Some(GB * 8.0));
        assert_eq!(num("1tw"), Some(TB * 8.0));
        assert_eq!(num("1KW"), Some(1.0));
    }

    #[test]
    fn no_petabytes_and_no_fractional_sizes() {
        // is_num knows only k, m, g, t; a suffix must follow the integer digits directly.
        for text in [
            "2pb", "2p", "2PB", "1.5k", "1.5kb", "1.5gb", "1.5b", "1.5w", "4xb", "4kbb",
        ] {
            assert_eq!(num(text), None, "{text}");
        }
    }

    #[test]
    fn plain_numbers() {
        for (text, want) in [
            ("4", 4.0),
            ("-2", -2.0),
            ("+4", 4.0),
            ("1.5", 1.5),
            (".5", 0.5),
            ("5.", 5.0),
            ("-1.25", -1.25),
            ("1234567890123456789", 1_234_567_890_123_456_789.0),
        ] {
            assert_eq!(
                res_to_num(text.as_bytes()),
                Some((want, Unit::Number)),
                "{text}"
            );
        }
    }

    #[test]
    fn times_are_seconds() {
        // `HH:MM:SS`: H*3600 + M*60 + strtol(S); `MM:SS`: M*60 + strtod(S).
        for (text, want) in [
            ("01:00:00", 3600.0),
            ("00:01:00", 60.0),
            ("02:30", 150.0),
            ("100:00:00", 360_000.0),
            ("00:90:00", 5400.0),
            ("00:00:75", 75.0),
            ("01:30.5", 90.5),
            ("+01:00:00", 3600.0),
        ] {
            assert_eq!(
                res_to_num(text.as_bytes()),
                Some((want, Unit::Time)),
                "{text}"
            );
        }
        assert_eq!(
            num("-01:30:00"),
            Some(-1800.0),
            "strtod's sign covers the hours only"
        );
    }

    #[test]
    fn time_quirks() {
        // Empty fields are strtod's/strtol's "no conversion" 0.
        assert_eq!(num("1::"), Some(3600.0));
        assert_eq!(num(":30"), Some(30.0));
        assert_eq!(num("1:"), Some(60.0));
        // MM:SS ignores what follows the seconds' number (`1:2k` passes is_num as a size).
        assert_eq!(num("1:2k"), Some(62.0));
        assert_eq!(unit("1:2k"), Some(Unit::Time));
    }

    #[test]
    fn bad_inputs() {
        for text in [
            "1:2:3:4",  // three colons
            "1:00:2.5", // HH:MM:SS seconds must be an integer
            "1:00:2k",  // ... reaching the end
            "1.5:00",   // a fraction before a colon
            "a:00",
            "True",
            "False",
            "scatter",
            "2:ncpus=2:mem=4gb",
            "1e3",
            "inf",
            "nan",
            "0x10",
            " 4",
            "4 ",
            "+-4",
            "4k b",
        ] {
            assert_eq!(num(text), None, "{text}");
        }
    }

    #[test]
    fn empty_and_sign_only_are_zero() {
        // is_num accepts them, strtod converts nothing.
        assert_eq!(num(""), Some(0.0));
        assert_eq!(num("-"), Some(0.0));
        assert_eq!(num("."), Some(0.0));
    }

    #[test]
    fn readers_trim_whitespace() {
        assert_eq!(resource_value(b" 4gb "), Some(4.0 * GB));
        assert_eq!(resource_value(b"scatter"), None);
        assert_eq!(time_value(b" 00:10:00"), Some(600.0));
        assert_eq!(time_value(b"4"), Some(4.0));
        assert_eq!(time_value(b"4gb"), None);
        assert_eq!(time_value(b"a:00"), None);
    }

    #[test]
    fn decay_time_needs_a_time() {
        // parse_config: `decay_time = res_to_num(v, &type); if (!type.is_time) error`.
        assert_eq!(decay_time("24:00:00"), Ok(86_400));
        assert_eq!(decay_time("00:00:02"), Ok(2));
        assert_eq!(decay_time("10:30"), Ok(630));
        assert_eq!(decay_time("00:90:00"), Ok(5400));
        assert_eq!(decay_time("1:2.5"), Ok(62));
        assert_eq!(decay_time("86400"), Err("Invalid time 86400".to_string()));
        assert_eq!(decay_time("4gb"), Err("Invalid time 4gb".to_string()));
        // fairsort: at least one second, at most i64::MAX.
        assert!(decay_time("00:00:00").is_err());
        assert!(decay_time("-01:00:00").is_err());
        assert!(decay_time("99999999999999999999:00:00").is_err());
        assert!(decay_time("1:2:3:4").is_err());
        assert!(decay_time("1:xx").is_err());
        assert!(decay_time(" 24:00:00").is_err());
    }

    #[test]
    fn durations_print_as_pbs() {
        assert_eq!(format_time(86_400), "24:00:00");
        assert_eq!(format_time(3_723), "01:02:03");
        assert_eq!(format_time(360_000), "100:00:00");
    }

    /// The common shapes' fast reading gives the general reading's unit and value, to the bit,
    /// on every text it claims; it claims the usual qstat shapes.
    fn common_agrees(text: &[u8]) -> Result<(), String> {
        let Some((v, u)) = res_to_num_common(text) else {
            return Ok(());
        };
        match res_to_num_general(text) {
            Some((w, uw)) if w.to_bits() == v.to_bits() && u == uw => Ok(()),
            other => Err(format!(
                "{:?}: fast {:?}, general {other:?}",
                String::from_utf8_lossy(text),
                (v, u)
            )),
        }
    }

    #[test]
    fn the_common_shapes_read_as_the_general_reading_reads_them() {
        for text in [
            "4",
            "0",
            "007",
            "49gb",
            "49GB",
            "3kb",
            "3k",
            "2mB",
            "1tb",
            "1T",
            "38:00:00",
            "0:00:00",
            "123456:59:59",
            "1:99:99",
            "999999999999999",
            "999999999999999gb",
        ] {
            assert!(res_to_num_common(text.as_bytes()).is_some(), "{text}");
            common_agrees(text.as_bytes()).unwrap();
        }
        for text in [
            "",
            "-4",
            "+4",
            "1.5",
            "4w",
            "4kw",
            "4b",
            "4pb",
            "1:30",
            "1:2:3",
            "1:02:3x",
            "1::",
            "1000000000000000",
            " 4",
            "4 ",
            "4gbb",
            "1:02:03:04",
            "1:0a:00",
        ] {
            assert!(res_to_num_common(text.as_bytes()).is_none(), "{text}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]

        #[test]
        fn generated_values_read_as_the_general_reading_reads_them(
            text in "[0-9:kmgtKMGTbBwW.+ -]{0,12}|[0-9]{1,16}(|[kmgtpKMGTbw][bBw]?|:[0-9]{2}:[0-9]{2})"
        ) {
            common_agrees(text.as_bytes()).map_err(proptest::prelude::TestCaseError::fail)?;
            proptest::prop_assert_eq!(
                res_to_num(text.as_bytes()).map(|(v, u)| (v.to_bits(), u)),
                res_to_num_general(text.as_bytes()).map(|(v, u)| (v.to_bits(), u))
            );
        }
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
        assert_eq!(num("1234567890123456:00"), Some(1234567890123456.0 * 60.0));
    }

    #[test]
    fn calendar_days() {
        assert!(valid_date(2024, 2, 29));
        assert!(!valid_date(2023, 2, 29));
        assert!(!valid_date(2024, 2, 30));
        assert!(!valid_date(2024, 4, 31));
        assert!(valid_date(2000, 2, 29));
        assert!(!valid_date(1900, 2, 29));
        assert!(!valid_date(2024, 13, 1));
        assert!(!valid_date(2024, 1, 0));
    }
}
