//! pbs_sched's `sched_priv/holidays`, read as `parse_holidays()` does, and its prime-time rule
//! (`is_prime_time()`, `end_prime_status()`), after OpenPBS 23.06 `src/scheduler/prime.cpp`.
//!
//! The file is read in pieces of at most 255 bytes, as `fgets(buf, 256, fp)` reads it: a longer
//! line is cut after its 255th byte and the rest is read as the next line, with its own line
//! number (the rest of a 255-byte line is its bare newline: an empty, skipped line). A piece is
//! read up to its first NUL byte, as C strings are. `*`, `#` and blank lines are skipped
//! (`skip_line()`); words are split on spaces and tabs only (`strtok(" \t")`), so a CRLF file's
//! `\r` stays on the last word. The first word picks the line's kind:
//! - `HOLIDAYFILE_VERSION1`: ignored;
//! - `YEAR N`: the year the file is for (`strtol`, the whole word a number, else an error);
//!   `YEAR 0`, or no `YEAR` line at all (the shipped file), means always prime time;
//! - `weekday`, `monday` .. `friday`, `saturday`, `sunday` `PRIME NONPRIME`: the starts of prime
//!   and non-prime time that day, each `all`/`ALL`, `none`/`NONE` or `HHMM` (any `strtol` number:
//!   hour `N / 100`, minute `N % 100`, as unsigned);
//! - any other word: a holiday, its day of the year read by `strtol` from the word's start
//!   (`Jan` gives 0, `359abc` gives 359). A holiday is non-prime all day.
//!
//! pbs_sched never refuses the file; its log lines ("Error on line N, line started with: X", the
//! both-`all` and both-`none` warnings) are kept as [`HolidaysNote`]s.

use std::collections::BTreeSet;

use jiff::tz::TimeZone;
use jiff::Timestamp;

use crate::files::FormatError;

/// Label used in messages when no path is known.
pub const FILE: &str = "holidays";

/// What pbs_sched logs when there is no holidays file to open (it then runs in prime time
/// always, as [`Holidays::none`] does).
pub const NO_FILE_WARNING: &str = "Warning: cannot open holidays file; assuming 24hr primetime";

/// pbs_sched's warning for a day whose prime and non-prime starts are both `all`.
pub const BOTH_ALL_WARNING: &str =
    "Warning: both prime & non-prime starts are 'all'; assuming 24hr primetime";

/// pbs_sched's warning for a day whose prime and non-prime starts are both `none`.
pub const BOTH_NONE_WARNING: &str =
    "Warning: both prime & non-prime starts are 'none'; assuming 24hr primetime";

/// PBS's `UNSPECIFIED` (-1) as stored in the unsigned hour and minute of an `all`/`none` start.
const UNSPECIFIED: u32 = u32::MAX;

/// Seconds in PBS's look-ahead of `end_prime_status()`: the rule repeats weekly.
const WEEK: i64 = 7 * 24 * 60 * 60;

/// The byte count `fgets(buf, 256, fp)` reads at most per call.
const FGETS_BYTES: usize = 255;

/// A day of PBS's table (`enum days`), in its order; `Weekday` is the `weekday` line's own row,
/// which no date ever consults (every date has a named day).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Day {
    /// `sunday` (`tm_wday` 0).
    Sunday,
    /// `monday`.
    Monday,
    /// `tuesday`.
    Tuesday,
    /// `wednesday`.
    Wednesday,
    /// `thursday`.
    Thursday,
    /// `friday`.
    Friday,
    /// `saturday` (`tm_wday` 6).
    Saturday,
    /// `weekday`: written by the `weekday` line along with Monday to Friday.
    Weekday,
}

impl Day {
    /// Every day, in PBS's order (the index of each in [`Holidays`]' table).
    pub const ALL: [Day; 8] = [
        Day::Sunday,
        Day::Monday,
        Day::Tuesday,
        Day::Wednesday,
        Day::Thursday,
        Day::Friday,
        Day::Saturday,
        Day::Weekday,
    ];

    /// The named day of a `tm_wday` (0 = Sunday); PBS's fallback `Weekday` for anything else.
    fn of_wday(wday: i32) -> Day {
        match wday {
            0 => Day::Sunday,
            1 => Day::Monday,
            2 => Day::Tuesday,
            3 => Day::Wednesday,
            4 => Day::Thursday,
            5 => Day::Friday,
            6 => Day::Saturday,
            _ => Day::Weekday,
        }
    }
}

/// One start of a day (PBS's `struct t`): when prime or non-prime time begins. A number word
/// sets `hour` and `min` and leaves `all`/`none` as they were, as pbs_sched does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Start {
    /// The hour (`N / 100`, wrapped to unsigned; `u32::MAX` after `all`/`none`).
    pub hour: u32,
    /// The minute (`N % 100`, wrapped to unsigned; `u32::MAX` after `all`/`none`).
    pub min: u32,
    /// `none`: this period does not start this day.
    pub none: bool,
    /// `all`: this period lasts the whole day.
    pub all: bool,
}

impl Start {
    /// The start as `all` or `none` (PBS's `load_day` of that word).
    fn word(all: bool) -> Start {
        Start {
            hour: UNSPECIFIED,
            min: UNSPECIFIED,
            none: !all,
            all,
        }
    }

    /// PBS's "military time" of the start, `hour * 100 + min` in unsigned then `int` arithmetic.
    fn military(self) -> i32 {
        self.hour.wrapping_mul(100).wrapping_add(self.min) as i32
    }
}

/// The two starts of one day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DayStarts {
    /// When prime time starts (the line's first word after the day).
    pub prime: Start,
    /// When non-prime time starts (the second).
    pub non_prime: Start,
}

/// What pbs_sched logs about a line when it reads the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HolidaysNote {
    /// Its 1-based line number, counted as `fgets` pieces (see the module's doc).
    pub line: usize,
    /// pbs_sched's words.
    pub message: String,
}

impl std::fmt::Display for HolidaysNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// A read holidays file: pbs_sched's prime-time table, holidays and year (boxed: a `Holidays`
/// rides in larger values and stays one pointer).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Holidays {
    table: Box<Table>,
}

/// What a holidays file holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Table {
    /// `YEAR`'s value (0: none given, and then it is prime time always).
    year: i32,
    /// The starts of each day, indexed by [`Day`] in [`Day::ALL`] order.
    days: [DayStarts; 8],
    /// The holidays' day-of-year numbers, as written (1 = 1 January; only 1..=366 can match).
    holidays: BTreeSet<i32>,
    /// What pbs_sched would log reading the file.
    notes: Vec<HolidaysNote>,
}

/// The fields of `struct tm` that the prime-time rule reads.
struct Tm {
    /// The year (`tm_year + 1900`).
    year: i32,
    /// Day of the year, 1-based (`tm_yday + 1`).
    yday: i32,
    /// Day of the week, 0 = Sunday.
    wday: i32,
    hour: i32,
    min: i32,
    sec: i32,
}

impl Tm {
    /// `localtime()` of `epoch` in `tz`; `None` outside the range of dates fairsort handles
    /// (years -9999 to 9999).
    fn local(epoch: i64, tz: &TimeZone) -> Option<Tm> {
        Some(Tm::at(Timestamp::from_second(epoch).ok()?, tz))
    }

    /// `localtime()` of `ts` in `tz`.
    fn at(ts: Timestamp, tz: &TimeZone) -> Tm {
        let dt = tz.to_datetime(ts);
        Tm {
            year: i32::from(dt.year()),
            yday: i32::from(dt.day_of_year()),
            wday: i32::from(dt.weekday().to_sunday_zero_offset()),
            hour: i32::from(dt.hour()),
            min: i32::from(dt.minute()),
            sec: i32::from(dt.second()),
        }
    }

    /// `localtime()` of `epoch`, a time outside fairsort's range of dates taken as its nearest end.
    fn clamped(epoch: i64, tz: &TimeZone) -> Tm {
        let epoch = epoch.clamp(Timestamp::MIN.as_second(), Timestamp::MAX.as_second());
        Tm::at(
            Timestamp::from_second(epoch).unwrap_or(Timestamp::UNIX_EPOCH),
            tz,
        )
    }

    /// PBS's `time_left_today`: seconds from this time to the next 00:00:00 by the clock.
    fn left_today(&self) -> i64 {
        i64::from((23 - self.hour) * 3600 + (59 - self.min) * 60 + (59 - self.sec) + 1)
    }
}

impl Holidays {
    /// No holidays file: prime time always, as pbs_sched assumes when it cannot open one.
    pub fn none() -> Holidays {
        Holidays::default()
    }

    /// `YEAR`'s value (0: none given, and then it is prime time always).
    pub fn year(&self) -> i32 {
        self.table.year
    }

    /// The holidays' day-of-year numbers, as written (1 = 1 January; only 1..=366 can match).
    pub fn holidays(&self) -> &BTreeSet<i32> {
        &self.table.holidays
    }

    /// What pbs_sched would log reading the file, in file order.
    pub fn notes(&self) -> &[HolidaysNote] {
        &self.table.notes
    }

    /// The starts of `day` after reading (after PBS's filling of unset days, when a year is set).
    pub fn day(&self, day: Day) -> DayStarts {
        self.table.days[day as usize]
    }

    /// Whether `holidays` holds a day of the year (1-based), as `is_holiday()` asks.
    fn is_holiday(&self, yday: i32) -> bool {
        self.table.holidays.contains(&yday)
    }

    /// Whether `epoch` is in prime time, in the local time of `tz` (`is_prime_time()`): always
    /// with no year; else not on a holiday; else by the day's starts. An epoch beyond the years
    /// -9999 to 9999 is judged at the nearest end of that range.
    pub fn is_prime(&self, epoch: i64, tz: &TimeZone) -> bool {
        if self.table.year == 0 {
            return true;
        }
        let tm = Tm::clamped(epoch, tz);
        !self.is_holiday(tm.yday) && self.check_prime(Day::of_wday(tm.wday), &tm)
    }

    /// PBS's `check_prime()`: whether the clock time of `tm` is prime by `day`'s starts.
    fn check_prime(&self, day: Day, tm: &Tm) -> bool {
        let DayStarts { prime, non_prime } = self.day(day);
        let npt = non_prime.military();
        let pt = prime.military();
        let ct = tm.hour * 100 + tm.min;
        if prime.all {
            true
        } else if non_prime.all || prime.none {
            false
        } else if non_prime.none {
            true
        } else if npt > pt {
            pt <= ct && ct < npt
        } else if npt < pt {
            !(npt <= ct && ct < pt)
        } else {
            false
        }
    }

    /// When the period `epoch` is in ends (`end_prime_status()`): `None` when it never ends,
    /// as pbs_sched's "It will never end" (no year, or no change within the coming week, or a
    /// time beyond the years -9999 to 9999). pbs_sched's arithmetic is kept as it is, so the
    /// answer can be a little before `epoch` (a change at this very minute) or past the day
    /// (an hour over 23).
    pub fn prime_ends(&self, epoch: i64, tz: &TimeZone) -> Option<i64> {
        let prime = self.is_prime(epoch, tz);
        if prime && self.table.year == 0 {
            return None;
        }
        let limit = epoch.saturating_add(WEEK);
        let mut date = epoch;
        loop {
            if date > limit {
                return None;
            }
            let tm = Tm::local(date, tz)?;
            let DayStarts {
                prime: p,
                non_prime: np,
            } = self.day(Day::of_wday(tm.wday));
            let (next, holiday_skips) = if prime { (np, false) } else { (p, true) };
            let holiday = self.is_holiday(tm.yday);
            let hour = tm.hour as u32;
            let min = tm.min as u32;
            let skip = next.none
                || (holiday_skips && holiday)
                || next.hour < hour
                || (next.hour == hour && next.min < min);
            if skip {
                date = date.saturating_add(tm.left_today());
                continue;
            }
            if next.all || (prime && holiday) {
                return Some(date);
            }
            let hours = next.hour.wrapping_sub(hour).wrapping_mul(3600);
            let mins = (next.min as i32).wrapping_sub(tm.min).wrapping_mul(60);
            return Some(
                date.wrapping_add(i64::from(hours))
                    .wrapping_add(i64::from(mins))
                    .wrapping_sub(i64::from(tm.sec)),
            );
        }
    }

    /// Whether pbs_sched would log "The holiday file is out of date; please update it." at
    /// `epoch`: a year is set and the local year is past it.
    pub fn out_of_date(&self, epoch: i64, tz: &TimeZone) -> bool {
        self.table.year != 0 && Tm::clamped(epoch, tz).year > self.table.year
    }

    /// PBS's `load_day()`: set `day`'s start of `period` (`prime`: true) from `word`; false for
    /// a missing or bad word.
    fn load_day(&mut self, day: Day, prime: bool, word: Option<&[u8]>, line: usize) -> bool {
        let Some(word) = word else {
            return false;
        };
        let prime_start = self.table.days[day as usize].prime;
        let start = match word {
            b"all" | b"ALL" => {
                if !prime && prime_start.all {
                    self.note(line, BOTH_ALL_WARNING);
                    return true;
                }
                Start::word(true)
            }
            b"none" | b"NONE" => {
                if !prime && prime_start.none {
                    self.note(line, BOTH_NONE_WARNING);
                    return self.load_day(day, true, Some(b"all"), line);
                }
                Start::word(false)
            }
            _ => match strtol_whole(word) {
                // A number sets the hour and minute only; `all`/`none` stay as they were.
                Some(num) => Start {
                    hour: (num / 100) as u32,
                    min: (num % 100) as u32,
                    ..*period_mut(&mut self.table.days[day as usize], prime)
                },
                None => return false,
            },
        };
        *period_mut(&mut self.table.days[day as usize], prime) = start;
        true
    }

    /// Load `PRIME NONPRIME` for each of `days`, stopping at the first failure as pbs_sched's
    /// chain of `else if` does; false when a word was missing or bad.
    fn load_line(&mut self, days: &[Day], words: [Option<&[u8]>; 2], line: usize) -> bool {
        for (prime, word) in [(true, words[0]), (false, words[1])] {
            for &day in days {
                if !self.load_day(day, prime, word, line) {
                    return false;
                }
            }
        }
        true
    }

    /// PBS's `handle_missing_prime_info()`: a day nothing was set for (by its unsigned sum of
    /// fields) becomes prime all day.
    fn fill_missing_days(&mut self) {
        for starts in &mut self.table.days {
            let p = starts.prime;
            let np = starts.non_prime;
            let sum = u32::from(p.all)
                .wrapping_add(u32::from(p.none))
                .wrapping_add(p.hour)
                .wrapping_add(p.min)
                .wrapping_add(np.hour)
                .wrapping_add(np.min);
            if sum == 0 {
                starts.prime = Start::word(true);
                starts.non_prime = Start::word(false);
            }
        }
    }

    fn note(&mut self, line: usize, message: impl Into<String>) {
        self.table.notes.push(HolidaysNote {
            line,
            message: message.into(),
        });
    }
}

/// The start of `period` (`prime`: true) in `starts`.
fn period_mut(starts: &mut DayStarts, prime: bool) -> &mut Start {
    if prime {
        &mut starts.prime
    } else {
        &mut starts.non_prime
    }
}

/// C's `isspace` in the C locale.
fn c_isspace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// C's `strtol(s, &end, 10)` on a 64-bit `long`: the value (saturated on overflow) and the index
/// of `end` (0 when there are no digits).
fn strtol(s: &[u8]) -> (i64, usize) {
    let mut i = s.iter().take_while(|b| c_isspace(**b)).count();
    let negative = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits = s[i.min(s.len())..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        return (0, 0);
    }
    let mut value: i64 = 0;
    for &b in &s[i..i + digits] {
        let d = i64::from(b - b'0');
        value = if negative {
            value.saturating_mul(10).saturating_sub(d)
        } else {
            value.saturating_mul(10).saturating_add(d)
        };
    }
    (value, i + digits)
}

/// The pieces `fgets(buf, 256, fp)` reads from `bytes`: up to 255 bytes, through a newline.
fn fgets_pieces(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let window = &rest[..rest.len().min(FGETS_BYTES)];
        let len = window
            .iter()
            .position(|b| *b == b'\n')
            .map_or(window.len(), |i| i + 1);
        let (piece, after) = rest.split_at(len);
        rest = after;
        Some(piece)
    })
}

/// Read a holidays file as pbs_sched does (see the module's doc). `file` names it in errors.
/// The one refusal: a line starting with a NUL byte, where pbs_sched reads the byte before its
/// buffer (`buf[strlen(buf) - 1]`) and what it does is undefined.
pub fn read_holidays(text: &str, file: &str) -> Result<Holidays, FormatError> {
    let mut out = Holidays::default();
    for (index, piece) in fgets_pieces(text.as_bytes()).enumerate() {
        let line = index + 1;
        let mut buf = &piece[..piece.iter().position(|b| *b == 0).unwrap_or(piece.len())];
        if buf.is_empty() {
            return Err(FormatError::line(
                file,
                line,
                "a NUL byte starts the line; pbs_sched's reading of it is undefined",
            ));
        }
        if let Some(stripped) = buf.strip_suffix(b"\n") {
            buf = stripped;
        }
        let first = buf.iter().position(|b| !c_isspace(*b));
        match first.map(|i| buf[i]) {
            None | Some(b'#') | Some(b'*') => continue,
            Some(_) => {}
        }
        let mut words = buf
            .split(|b| *b == b' ' || *b == b'\t')
            .filter(|w| !w.is_empty());
        // skip_line passed, so a byte that is not C whitespace is there: a word exists.
        let Some(name) = words.next() else {
            continue;
        };
        let ok = match name {
            b"HOLIDAYFILE_VERSION1" => true,
            b"YEAR" => match words.next().map(strtol_whole) {
                Some(Some(year)) => {
                    out.table.year = year as i32;
                    true
                }
                _ => false,
            },
            b"weekday" => {
                let pair = [words.next(), words.next()];
                out.load_line(
                    &[
                        Day::Weekday,
                        Day::Monday,
                        Day::Tuesday,
                        Day::Wednesday,
                        Day::Thursday,
                        Day::Friday,
                    ],
                    pair,
                    line,
                )
            }
            _ => match named_day(name) {
                Some(day) => {
                    let pair = [words.next(), words.next()];
                    out.load_line(&[day], pair, line)
                }
                None => {
                    out.table.holidays.insert(strtol(name).0 as i32);
                    true
                }
            },
        };
        if !ok {
            let message = format!(
                "Error on line {line}, line started with: {}",
                String::from_utf8_lossy(name)
            );
            out.note(line, message);
        }
    }
    if out.table.year != 0 {
        out.fill_missing_days();
    }
    Ok(out)
}

/// `strtol` of a whole word: its value when nothing follows the number.
fn strtol_whole(word: &[u8]) -> Option<i64> {
    let (value, end) = strtol(word);
    (end == word.len()).then_some(value)
}

/// The day a single-day line's first word names.
fn named_day(word: &[u8]) -> Option<Day> {
    Some(match word {
        b"sunday" => Day::Sunday,
        b"monday" => Day::Monday,
        b"tuesday" => Day::Tuesday,
        b"wednesday" => Day::Wednesday,
        b"thursday" => Day::Thursday,
        b"friday" => Day::Friday,
        b"saturday" => Day::Saturday,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The epoch of a UTC clock time.
    fn utc(y: i16, m: i8, d: i8, h: i8, mi: i8) -> i64 {
        TimeZone::UTC
            .to_timestamp(jiff::civil::date(y, m, d).at(h, mi, 0, 0))
            .map(|t| t.as_second())
            .expect("a valid date")
    }

    fn read(text: &str) -> Holidays {
        read_holidays(text, FILE).expect("read")
    }

    fn prime(h: &Holidays, epoch: i64) -> bool {
        h.is_prime(epoch, &TimeZone::UTC)
    }

    fn notes(h: &Holidays) -> Vec<String> {
        h.notes().iter().map(|n| n.to_string()).collect()
    }

    const WORK: &str = "YEAR 2026\nweekday 0600 1730\nsaturday none all\nsunday none all\n";

    #[test]
    fn no_year_is_always_prime_even_with_holidays_and_non_prime_days() {
        let h = read("weekday none all\nsaturday none all\n1\n359\n");
        assert_eq!(h.year(), 0);
        assert!(prime(&h, utc(2026, 12, 25, 12, 0)));
        assert!(prime(&h, utc(2026, 12, 26, 3, 0)));
        assert_eq!(h.prime_ends(utc(2026, 12, 25, 12, 0), &TimeZone::UTC), None);
        // Without a year the unset days are not filled in.
        assert_eq!(h.day(Day::Sunday), DayStarts::default());
    }

    #[test]
    fn empty_file_is_the_no_file_case() {
        assert_eq!(read(""), Holidays::none());
        assert_eq!(read("\n\n   \n"), Holidays::none());
        assert!(prime(&Holidays::none(), 0));
        assert!(!Holidays::none().out_of_date(utc(2026, 1, 1, 0, 0), &TimeZone::UTC));
    }

    #[test]
    fn comments_blank_lines_and_version_are_skipped() {
        let h = read("# c\n   # c\n* star\n\t* star\n\nHOLIDAYFILE_VERSION1\n#YEAR 2026\n");
        assert_eq!(h, Holidays::none());
    }

    #[test]
    fn year_lines() {
        assert_eq!(read("YEAR 2026").year(), 2026);
        assert_eq!(read("YEAR   2026  extra\n").year(), 2026);
        assert_eq!(read("YEAR 2025\nYEAR 2026\n").year(), 2026);
        assert_eq!(read("YEAR -5\n").year(), -5);
        assert_eq!(read("YEAR +7\n").year(), 7);
        // `int num = strtol(...)`: the long's low 32 bits.
        assert_eq!(read("YEAR 4294967296\n").year(), 0);
        assert_eq!(read("YEAR 4294969322\n").year(), 2026);
        for bad in ["YEAR\n", "YEAR 20x6\n", "YEAR 2026\r\n", "YEAR -\n"] {
            let h = read(&format!("YEAR 1999\n{bad}"));
            assert_eq!(h.year(), 1999, "{bad:?}");
            assert_eq!(
                notes(&h),
                ["line 2: Error on line 2, line started with: YEAR"],
                "{bad:?}"
            );
        }
        // Lower case is not the keyword: a holiday 0.
        let h = read("year 2026\n");
        assert_eq!(h.year(), 0);
        assert!(h.holidays().contains(&0));
    }

    #[test]
    fn weekday_line_sets_monday_to_friday_and_missing_days_become_prime() {
        let h = read("YEAR 2026\nweekday 0600 1730\n");
        let set = DayStarts {
            prime: Start {
                hour: 6,
                min: 0,
                none: false,
                all: false,
            },
            non_prime: Start {
                hour: 17,
                min: 30,
                none: false,
                all: false,
            },
        };
        for day in [
            Day::Weekday,
            Day::Monday,
            Day::Tuesday,
            Day::Wednesday,
            Day::Thursday,
            Day::Friday,
        ] {
            assert_eq!(h.day(day), set, "{day:?}");
        }
        for day in [Day::Saturday, Day::Sunday] {
            assert_eq!(h.day(day).prime, Start::word(true));
            assert_eq!(h.day(day).non_prime, Start::word(false));
        }
        assert!(prime(&h, utc(2026, 12, 26, 3, 0)), "Saturday: 24h prime");
        assert!(h.notes().is_empty());
    }

    #[test]
    fn clock_times_of_a_day() {
        let h = read(WORK);
        // Tuesday 1 December 2026.
        assert!(!prime(&h, utc(2026, 12, 1, 5, 59)));
        assert!(prime(&h, utc(2026, 12, 1, 6, 0)));
        assert!(prime(&h, utc(2026, 12, 1, 17, 29)));
        assert!(!prime(&h, utc(2026, 12, 1, 17, 30)));
        assert!(!prime(&h, utc(2026, 12, 5, 12, 0)), "Saturday none all");
        // Non-prime starting first: non-prime only between the two.
        let h = read("YEAR 2026\ntuesday 1730 0600\n");
        assert!(prime(&h, utc(2026, 12, 1, 5, 59)));
        assert!(!prime(&h, utc(2026, 12, 1, 6, 0)));
        assert!(!prime(&h, utc(2026, 12, 1, 17, 29)));
        assert!(prime(&h, utc(2026, 12, 1, 17, 30)));
        // Equal starts: non-prime all day.
        let h = read("YEAR 2026\ntuesday 0800 0800\n");
        assert!(!prime(&h, utc(2026, 12, 1, 8, 0)));
        assert!(!prime(&h, utc(2026, 12, 1, 20, 0)));
        // All four fields zero reads as unset: 24h prime.
        let h = read("YEAR 2026\ntuesday 0000 0000\n");
        assert!(prime(&h, utc(2026, 12, 1, 8, 0)));
        assert_eq!(h.day(Day::Tuesday).prime, Start::word(true));
    }

    #[test]
    fn all_and_none_words() {
        let h = read("YEAR 2026\ntuesday all none\nwednesday none all\nthursday ALL 0900\nfriday NONE 0900\n");
        assert!(prime(&h, utc(2026, 12, 1, 3, 0)));
        assert!(!prime(&h, utc(2026, 12, 2, 12, 0)));
        assert!(prime(&h, utc(2026, 12, 3, 12, 0)));
        assert!(!prime(&h, utc(2026, 12, 4, 12, 0)));
        assert!(h.notes().is_empty());
    }

    #[test]
    fn both_all_and_both_none_warn_and_are_prime() {
        let h = read("YEAR 2026\ntuesday all all\nwednesday none none\n");
        assert_eq!(
            notes(&h),
            [
                format!("line 2: {BOTH_ALL_WARNING}"),
                format!("line 3: {BOTH_NONE_WARNING}")
            ]
        );
        assert!(prime(&h, utc(2026, 12, 1, 3, 0)));
        assert!(prime(&h, utc(2026, 12, 2, 3, 0)));
        // The non-prime start is left as it was.
        assert_eq!(h.day(Day::Tuesday).non_prime, Start::default());
        assert_eq!(h.day(Day::Wednesday).prime, Start::word(true));
        // The weekday line warns once per day it writes, as pbs_sched logs it.
        let h = read("YEAR 2026\nweekday all all\n");
        assert_eq!(h.notes().len(), 6);
    }

    #[test]
    fn bad_day_lines_are_logged_and_half_applied() {
        let h = read("YEAR 2026\nmonday 0600\ntuesday abc 1730\nwednesday 0600 5pm\nthursday\n");
        assert_eq!(
            notes(&h),
            [
                "line 2: Error on line 2, line started with: monday",
                "line 3: Error on line 3, line started with: tuesday",
                "line 4: Error on line 4, line started with: wednesday",
                "line 5: Error on line 5, line started with: thursday",
            ]
        );
        assert_eq!(h.day(Day::Monday).prime.hour, 6, "the prime start is kept");
        assert_eq!(h.day(Day::Monday).non_prime, Start::default());
        assert_eq!(
            h.day(Day::Tuesday).prime,
            Start::word(true),
            "unset: filled"
        );
    }

    #[test]
    fn a_number_keeps_earlier_all_and_none() {
        let h = read("YEAR 2026\ntuesday none all\ntuesday 0600 1730\n");
        let t = h.day(Day::Tuesday);
        assert!(t.prime.none && t.non_prime.all);
        assert_eq!((t.prime.hour, t.prime.min), (6, 0));
        assert!(!prime(&h, utc(2026, 12, 1, 12, 0)));
    }

    #[test]
    fn odd_numbers_wrap_as_unsigned() {
        let h = read("YEAR 2026\ntuesday -0630 2500\n");
        let p = h.day(Day::Tuesday).prime;
        assert_eq!((p.hour, p.min), (-6i32 as u32, -30i32 as u32));
        // pt = (2^32-6)*100 + (2^32-30) as int = -630 < npt 2500: prime from "-6:-30" to 25:00.
        assert!(prime(&h, utc(2026, 12, 1, 0, 0)));
        assert!(prime(&h, utc(2026, 12, 1, 23, 59)));
    }

    #[test]
    fn holidays_are_non_prime_and_read_by_strtol() {
        let h = read(&format!(
            "{WORK}  1  Jan 1 New Year's Day\n359abc Dec 25\nJan 2\n"
        ));
        assert_eq!(*h.holidays(), BTreeSet::from([0, 1, 359]));
        assert!(!prime(&h, utc(2026, 12, 25, 12, 0)), "Friday 25 December");
        assert!(prime(&h, utc(2026, 12, 24, 12, 0)));
        assert!(!prime(&h, utc(2026, 1, 1, 12, 0)));
        assert!(prime(&h, utc(2026, 1, 2, 12, 0)), "`Jan 2` is day 0");
        // A day name in another case is a holiday 0 too, not a day line.
        let h = read("YEAR 2026\nMonday none all\n");
        assert_eq!(*h.holidays(), BTreeSet::from([0]));
        assert!(h.notes().is_empty());
    }

    #[test]
    fn many_holidays_are_a_set() {
        let text: String = (0..100_000).map(|i| format!("{}\n", i % 400)).collect();
        let h = read(&format!("YEAR 2026\n{text}"));
        assert_eq!(h.holidays().len(), 400);
        assert!(!prime(&h, utc(2026, 6, 1, 12, 0)));
    }

    #[test]
    fn lines_are_read_in_fgets_pieces_of_255_bytes() {
        // A 255-byte comment: its newline is read as line 2 (empty), the next line is line 3.
        let text = format!("#{}\nYEAR\n", "a".repeat(254));
        assert_eq!(
            notes(&read(&text)),
            ["line 3: Error on line 3, line started with: YEAR"]
        );
        // A longer comment: its tail is read as a line of its own.
        let text = format!("#{}YEAR 2026\n", "a".repeat(254));
        assert_eq!(read(&text).year(), 2026);
        // 254 bytes and the newline fit one piece.
        let text = format!("#{}\nYEAR\n", "a".repeat(253));
        assert_eq!(
            notes(&read(&text)),
            ["line 2: Error on line 2, line started with: YEAR"]
        );
        // A multi-byte character can be cut; its bytes are just bytes.
        let text = format!("#{}é\n7\n", "a".repeat(253));
        assert_eq!(*read(&text).holidays(), BTreeSet::from([0, 7]));
    }

    #[test]
    fn nul_bytes_end_the_line_and_a_leading_one_is_refused() {
        let h = read("YEAR 2026\0 junk\n");
        assert_eq!(h.year(), 2026);
        assert!(h.notes().is_empty());
        let err = read_holidays("YEAR 2026\n\0YEAR\n", "hol").expect_err("undefined in PBS");
        assert!(err.to_string().starts_with("hol:2: "), "{err}");
    }

    #[test]
    fn local_time_of_the_zone() {
        let h = read(WORK);
        let plus5 = TimeZone::fixed(jiff::tz::offset(5));
        // 03:00 UTC on Tuesday is 08:00 at +05:00.
        let t = utc(2026, 12, 1, 3, 0);
        assert!(!h.is_prime(t, &TimeZone::UTC));
        assert!(h.is_prime(t, &plus5));
        // The holiday is the local day: 22:00 UTC on Thursday 24 December is Friday the 25th,
        // 08:00, at +10:00.
        let plus10 = TimeZone::fixed(jiff::tz::offset(10));
        let t = utc(2026, 12, 24, 22, 0);
        assert!(h.is_prime(t, &plus10));
        let with_holiday = read(&format!("{WORK}359\n"));
        assert!(!with_holiday.is_prime(t, &plus10));
        assert!(
            with_holiday.is_prime(t - 10 * 3600, &TimeZone::UTC),
            "12:00 on the 24th"
        );
    }

    #[test]
    fn far_epochs_do_not_panic() {
        let h = read(WORK);
        for t in [i64::MIN, i64::MAX, -1, 0] {
            let _ = h.is_prime(t, &TimeZone::UTC);
            let _ = h.prime_ends(t, &TimeZone::UTC);
            let _ = h.out_of_date(t, &TimeZone::UTC);
        }
        assert_eq!(h.prime_ends(i64::MAX, &TimeZone::UTC), None);
    }

    #[test]
    fn prime_ends_at_the_next_change() {
        let h = read(&format!("{WORK}359\n"));
        let ends = |t| h.prime_ends(t, &TimeZone::UTC);
        // Prime on Tuesday: non-prime starts at 17:30.
        assert_eq!(
            ends(utc(2026, 12, 1, 10, 0)),
            Some(utc(2026, 12, 1, 17, 30))
        );
        assert_eq!(
            ends(utc(2026, 12, 1, 17, 29) + 30),
            Some(utc(2026, 12, 1, 17, 30))
        );
        // Non-prime on Friday evening: Saturday and Sunday have no prime time.
        assert_eq!(ends(utc(2026, 12, 4, 18, 0)), Some(utc(2026, 12, 7, 6, 0)));
        // Non-prime on Tuesday before dawn: today at 06:00.
        assert_eq!(ends(utc(2026, 12, 1, 3, 0)), Some(utc(2026, 12, 1, 6, 0)));
        // Thursday 24 December evening: Friday is a holiday, then the weekend.
        assert_eq!(
            ends(utc(2026, 12, 24, 18, 0)),
            Some(utc(2026, 12, 28, 6, 0))
        );
        // On the holiday itself (non-prime): the same.
        assert_eq!(
            ends(utc(2026, 12, 25, 12, 0)),
            Some(utc(2026, 12, 28, 6, 0))
        );
    }

    #[test]
    fn prime_ends_never_when_nothing_changes_in_a_week() {
        let all = read("YEAR 2026\nweekday all none\nsaturday all none\nsunday all none\n");
        assert_eq!(
            all.prime_ends(utc(2026, 12, 1, 10, 0), &TimeZone::UTC),
            None
        );
        let never = read("YEAR 2026\nweekday none all\nsaturday none all\nsunday none all\n");
        assert_eq!(
            never.prime_ends(utc(2026, 12, 1, 10, 0), &TimeZone::UTC),
            None
        );
        // pbs_sched's quirk: an all-prime day before a holiday skips the holiday check.
        let quirk = read("YEAR 2026\nweekday all none\nsaturday all none\nsunday all none\n359\n");
        assert!(!prime(&quirk, utc(2026, 12, 25, 12, 0)));
        assert_eq!(
            quirk.prime_ends(utc(2026, 12, 24, 12, 0), &TimeZone::UTC),
            None
        );
    }

    #[test]
    fn out_of_date_when_the_local_year_is_past() {
        let t = utc(2026, 6, 1, 0, 0);
        assert!(read("YEAR 2025\n").out_of_date(t, &TimeZone::UTC));
        assert!(!read("YEAR 2026\n").out_of_date(t, &TimeZone::UTC));
        assert!(!read("YEAR 2027\n").out_of_date(t, &TimeZone::UTC));
    }
}
