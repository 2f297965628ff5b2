//! `pbs::site_files::holidays` on the real OpenPBS 23.06.06 captures of `tests/data/pbs_cycles`:
//! the prime-time status each cycle logged ("It is primetime.  It will never end") against the
//! reader's view of the holidays file the cycle read (the scenario's `holidays`, else the shipped
//! `/opt/pbs/etc/pbs_holidays`, kept as `shipped_holidays`), at the cycle's `epoch` on the UTC
//! capture host.

use std::fs;
use std::path::Path;

use fairsort::pbs::site_files::{read_holidays, Holidays};
use jiff::tz::TimeZone;
use serde_json::Value;

use crate::common::data;

fn holidays(path: &Path) -> Holidays {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    read_holidays(&text, &path.display().to_string()).expect("read_holidays")
}

/// The `epoch` of a scenario's `expected.json`.
fn epoch(dir: &Path) -> i64 {
    let text = fs::read_to_string(dir.join("expected.json")).expect("expected.json");
    let v: Value = serde_json::from_str(&text).expect("expected.json is JSON");
    v["epoch"].as_i64().expect("an integer epoch")
}

/// The status the cycle logged: (prime, never ends).
fn logged_status(dir: &Path) -> (bool, bool) {
    let log = fs::read_to_string(dir.join("sched_log.txt")).expect("sched_log.txt");
    let line = log
        .lines()
        .find_map(|l| l.split(";Svr;;").nth(1).filter(|m| m.starts_with("It is ")))
        .unwrap_or_else(|| panic!("{}: no prime-time line", dir.display()));
    let prime = line.starts_with("It is primetime.");
    assert!(prime || line.starts_with("It is non-primetime."), "{line}");
    (prime, line.ends_with("It will never end"))
}

#[test]
fn non_prime_capture_is_non_prime_at_its_epoch() {
    let dir = data("pbs_cycles/prime_non_prime");
    let h = holidays(&dir.join("holidays"));
    assert_eq!(h.year(), 2026);
    assert!(h.notes().is_empty(), "{:?}", h.notes());
    let t = epoch(&dir);
    assert!(!h.is_prime(t, &TimeZone::UTC));
    assert_eq!(h.prime_ends(t, &TimeZone::UTC), None);
    assert_eq!(logged_status(&dir), (false, true));
}

#[test]
fn prime_capture_is_prime_at_its_epoch() {
    let dir = data("pbs_cycles/prime_non_prime_in_prime");
    let h = holidays(&dir.join("holidays"));
    assert_eq!(h.year(), 2026);
    let t = epoch(&dir);
    assert!(h.is_prime(t, &TimeZone::UTC));
    assert_eq!(h.prime_ends(t, &TimeZone::UTC), None);
    assert!(!h.out_of_date(t, &TimeZone::UTC));
    assert_eq!(logged_status(&dir), (true, true));
}

#[test]
fn shipped_file_is_always_prime() {
    let h = holidays(&data("pbs_cycles/shipped_holidays"));
    assert_eq!(h, Holidays::none());
    let epochs = [
        0,
        1_796_167_277,
        1_798_200_000,
        -86_400 * 365,
        4_102_444_800,
    ];
    for t in epochs
        .into_iter()
        .chain((0..7 * 24).map(|h| 1_796_167_277 + h * 3600))
    {
        assert!(h.is_prime(t, &TimeZone::UTC), "{t}");
        assert_eq!(h.prime_ends(t, &TimeZone::UTC), None, "{t}");
    }
    // Uncommenting its example lines gives a real table: the text is the shipped one.
    let text = fs::read_to_string(data("pbs_cycles/shipped_holidays")).expect("shipped");
    let live: String = text
        .lines()
        .map(|l| {
            let t = l.trim_start();
            if t.starts_with("#YEAR") || t.starts_with("#  weekday") || t.starts_with("#    1 ") {
                t.trim_start_matches('#')
            } else {
                l
            }
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let live = read_holidays(&live, "pbs_holidays").expect("read");
    assert_eq!(live.year(), 1970);
    assert!(live.holidays().contains(&1));
    // Thursday 1 January 2026 12:00 UTC: a holiday, else a prime weekday.
    assert!(!live.is_prime(1_767_268_800, &TimeZone::UTC));
    assert!(live.is_prime(1_767_268_800 + 86_400, &TimeZone::UTC));
}

#[test]
fn every_capture_logged_the_status_the_reader_gives() {
    let shipped = holidays(&data("pbs_cycles/shipped_holidays"));
    let mut dirs: Vec<_> = fs::read_dir(data("pbs_cycles"))
        .expect("tests/data/pbs_cycles")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 40, "only {} scenarios", dirs.len());
    for dir in dirs {
        let own = dir.join("holidays");
        let h = if own.exists() {
            holidays(&own)
        } else {
            shipped.clone()
        };
        let t = epoch(&dir);
        let (prime, never) = logged_status(&dir);
        assert_eq!(h.is_prime(t, &TimeZone::UTC), prime, "{}", dir.display());
        assert_eq!(
            h.prime_ends(t, &TimeZone::UTC).is_none(),
            never,
            "{}",
            dir.display()
        );
    }
}
