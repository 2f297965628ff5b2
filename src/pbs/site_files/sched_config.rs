//! pbs_sched's `sched_config`, read as `parse_config()` does (OpenPBS
//! `src/scheduler/parse.cpp`): `name: value [prime|non_prime|all|none]` lines, `#` (and `*`)
//! comments, a value in `"` or `'` when it holds spaces, repeated `job_sort_key` lines adding
//! up. pbs_sched never refuses the file: a bad line is logged and skipped or half-applied, so
//! this reader keeps every line and lists what pbs_sched would log ([`ConfigNote`]).

use std::collections::BTreeMap;

use crate::files::text;
use crate::files::FormatError;
use crate::pbs::cycle::rules::SortKey;

/// Label used in messages when no path is known.
pub const FILE: &str = "sched_config";

/// The period a line is for (its third word; none written: `All`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// `prime` / `PRIME`.
    Prime,
    /// `non_prime` / `NON_PRIME`.
    NonPrime,
    /// `all` / `ALL`, or nothing.
    All,
    /// `none` / `NONE`: the line sets nothing.
    None,
}

impl Period {
    /// Whether a line of this period is in force in prime time (`prime`) or out of it.
    pub fn covers(self, prime: bool) -> bool {
        match self {
            Period::All => true,
            Period::Prime => prime,
            Period::NonPrime => !prime,
            Period::None => false,
        }
    }
}

/// One option line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigLine {
    /// Its 1-based line number.
    pub line: usize,
    /// The option's name.
    pub name: String,
    /// Its value, unquoted.
    pub value: String,
    /// The period it is for (an invalid period word counts as `All`, as in pbs_sched).
    pub period: Period,
}

/// What pbs_sched logs about a line when it reads the file ("Error reading line N: ...",
/// "Obsolete config name ...").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigNote {
    /// Its 1-based line number.
    pub line: usize,
    /// pbs_sched's words.
    pub message: String,
}

impl std::fmt::Display for ConfigNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// A read `sched_config`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchedConfig {
    /// Every option line, in file order.
    pub lines: Vec<ConfigLine>,
    /// What pbs_sched would log reading it.
    pub notes: Vec<ConfigNote>,
}

/// The options in force in one period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeriodOptions {
    /// `round_robin` (unset: false, as in pbs_sched's `config()`; the shipped file says false).
    pub round_robin: bool,
    /// `by_queue` (unset: false; the shipped file says true).
    pub by_queue: bool,
    /// `strict_ordering` (unset: false).
    pub strict_ordering: bool,
    /// `fair_share` (unset: false).
    pub fair_share: bool,
    /// `preemptive_sched` (unset: false; the shipped file says true).
    pub preemptive_sched: bool,
    /// `backfill_prime` (unset: false).
    pub backfill_prime: bool,
    /// The valid `job_sort_key` lines of the period, in file order (`sort_priority` read as
    /// `job_priority`, as pbs_sched does).
    pub job_sort_keys: Vec<SortKey>,
    /// The last value in force of every option (known or not), by name.
    pub values: BTreeMap<String, String>,
}

/// The options pbs_sched 23.06 knows (the others are "Unknown config parameter").
pub const KNOWN: &[&str] = &[
    "round_robin",
    "by_queue",
    "strict_fifo",
    "strict_ordering",
    "fair_share",
    "help_starving_jobs",
    "backfill",
    "sort_queues",
    "update_comments",
    "backfill_prime",
    "preemptive_sched",
    "prime_exempt_anytime_queues",
    "fairshare_enforce_no_shares",
    "allow_aoe_calendar",
    "prime_spill",
    "max_starve",
    "half_life",
    "fairshare_decay_time",
    "unknown_shares",
    "fairshare_decay_factor",
    "fairshare_usage_res",
    "fairshare_entity",
    "node_group_key",
    "log_filter",
    "preempt_queue_prio",
    "resource_unset_infinite",
    "resv_confirm_ignore",
    "resources",
    "dedicated_prefix",
    "primetime_prefix",
    "nonprimetime_prefix",
    "smp_cluster_dist",
    "preempt_prio",
    "preempt_order",
    "preempt_sort",
    "job_sort_key",
    "node_sort_key",
    "server_dyn_res",
    "sort_nodes",
    "peer_queue",
    "preempt_attempts",
    "max_job_check",
    "provision_policy",
];

/// The options with one value per period; the period word of any other is ignored.
const PER_PERIOD: &[&str] = &[
    "round_robin",
    "by_queue",
    "strict_fifo",
    "strict_ordering",
    "fair_share",
    "backfill",
    "backfill_prime",
    "preemptive_sched",
    "prime_spill",
    "smp_cluster_dist",
    "job_sort_key",
    "node_sort_key",
];

/// Options pbs_sched reads and ignores ("Obsolete config name"), with what to use instead.
const OBSOLETE: &[(&str, Option<&str>)] = &[
    ("strict_fifo", Some("strict_ordering")),
    (
        "help_starving_jobs",
        Some("use eligible_time in job_sort_formula"),
    ),
    ("backfill", Some("server's backfill_depth=0")),
    ("sort_queues", None),
    ("max_starve", Some("use eligible_time in job_sort_formula")),
    (
        "half_life",
        Some("fairshare_decay_time and fairshare_decay_factor instead"),
    ),
    ("node_group_key", Some("nothing - set via qmgr")),
    ("log_filter", Some("nothing - set log_events via qmgr")),
    ("preempt_queue_prio", Some("nothing - set via qmgr")),
    ("preempt_prio", Some("nothing - set via qmgr")),
    ("preempt_order", Some("nothing - set via qmgr")),
    ("preempt_sort", Some("nothing - set via qmgr")),
];

/// C's `isspace`.
fn c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// pbs_sched's `scan()`: from `*pos`, skips spaces (and `target`), then takes a quoted string
/// or a word ending at a space or `target`; the delimiter after it is consumed.
fn scan<'a>(s: &'a str, pos: &mut usize, target: u8) -> Option<&'a str> {
    let b = s.as_bytes();
    let mut i = *pos;
    while i < b.len() && (c_space(b[i]) || b[i] == target) {
        i += 1;
    }
    let first = *b.get(i)?;
    let (start, end) = if first == b'"' || first == b'\'' {
        let start = i + 1;
        let end = b[start..]
            .iter()
            .position(|&c| c == first)
            .map_or(b.len(), |p| start + p);
        (start, end)
    } else {
        let end = b[i..]
            .iter()
            .position(|&c| c_space(c) || c == target)
            .map_or(b.len(), |p| i + p);
        (i, end)
    };
    *pos = (end + 1).min(b.len());
    // Cuts are at ASCII bytes or the ends, always character boundaries.
    s.get(start..end)
}

/// pbs_sched's `num` of a value: 1 for `true`, 0 for `false` (any case), `strtol` of a value
/// starting with a digit, else -1. Boolean options are `num != 0`.
fn num(value: &str) -> i64 {
    if value.eq_ignore_ascii_case("true") {
        1
    } else if value.eq_ignore_ascii_case("false") {
        0
    } else if value.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        let digits = value.bytes().take_while(u8::is_ascii_digit).count();
        // Overflow saturates in strtol; any such value is nonzero.
        value
            .get(..digits)
            .and_then(|d| d.parse().ok())
            .unwrap_or(i64::MAX)
    } else {
        -1
    }
}

/// A `job_sort_key` value (`"ncpus HIGH"`) as pbs_sched reads it, or `None` when invalid.
fn sort_key(value: &str) -> Option<SortKey> {
    let mut words = value.split([' ', '\t']).filter(|w| !w.is_empty());
    let name = words.next()?;
    let high = match words.next()? {
        "high" | "HIGH" | "High" => true,
        "low" | "LOW" | "Low" => false,
        _ => return None,
    };
    let name = if name == "sort_priority" {
        "job_priority"
    } else {
        name
    };
    Some(SortKey {
        name: name.to_string(),
        high,
    })
}

/// Reads `sched_config` text; fails only on a line longer than the readers' bound.
pub fn read_sched_config(text: &str, file: &str) -> Result<SchedConfig, FormatError> {
    let mut out = SchedConfig {
        lines: Vec::new(),
        notes: Vec::new(),
    };
    for item in text::lines(text, file) {
        let (n, line) = item?;
        let body = line.trim_start_matches(|c: char| c.is_ascii() && c_space(c as u8));
        if body.is_empty() || body.starts_with('#') || body.starts_with('*') {
            continue;
        }
        let mut pos = 0;
        let name = scan(line, &mut pos, b':');
        let value = scan(line, &mut pos, b' ');
        let period_word = scan(line, &mut pos, b' ');
        let (Some(name), Some(value)) = (name, value) else {
            out.note(n, "Error reading line {n}: Config line invalid");
            continue;
        };
        let mut error: Option<String> = None;
        let period = match period_word {
            None | Some("all" | "ALL") => Period::All,
            Some("prime" | "PRIME") => Period::Prime,
            Some("non_prime" | "NON_PRIME") => Period::NonPrime,
            Some("none" | "NONE") => Period::None,
            Some(other) => {
                error = Some(format!("Invalid prime keyword: {other}"));
                Period::All
            }
        };
        if !KNOWN.contains(&name) {
            error = Some("Unknown config parameter".to_string());
        } else if name == "job_sort_key" && sort_key(value).is_none() {
            error = Some("Invalid job_sort_key".to_string());
        }
        if let Some(e) = error {
            out.note(n, &format!("Error reading line {n}: {e}"));
        }
        if let Some((_, instead)) = OBSOLETE.iter().find(|(o, _)| *o == name) {
            out.obsolete(n, name, *instead);
        } else if name == "job_sort_key"
            && value.split([' ', '\t']).find(|w| !w.is_empty()) == Some("sort_priority")
        {
            out.obsolete(n, "sort_priority in job_sort_key", Some("job_priority"));
        }
        out.lines.push(ConfigLine {
            line: n,
            name: name.to_string(),
            value: value.to_string(),
            period,
        });
    }
    Ok(out)
}

impl SchedConfig {
    fn note(&mut self, line: usize, message: &str) {
        self.notes.push(ConfigNote {
            line,
            message: message.replace("{n}", &line.to_string()),
        });
    }

    fn obsolete(&mut self, line: usize, name: &str, instead: Option<&str>) {
        let message = match instead {
            Some(i) => format!("Obsolete config name {name}, instead use {i}"),
            None => format!("Obsolete config name {name}"),
        };
        self.notes.push(ConfigNote { line, message });
    }

    /// The lines of option `name`, in file order.
    pub fn get<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a ConfigLine> + 'a {
        self.lines.iter().filter(move |l| l.name == name)
    }

    /// The lines of options pbs_sched does not know (it logs and ignores them).
    pub fn unknown(&self) -> impl Iterator<Item = &ConfigLine> {
        self.lines
            .iter()
            .filter(|l| !KNOWN.contains(&l.name.as_str()))
    }

    /// The options in force in prime time (`prime`) or out of it: per-period options from the
    /// lines covering that period, the last one winning (`job_sort_key` lines adding up);
    /// every other option from its last line, whatever its period word.
    pub fn for_period(&self, prime: bool) -> PeriodOptions {
        let mut out = PeriodOptions {
            round_robin: false,
            by_queue: false,
            strict_ordering: false,
            fair_share: false,
            preemptive_sched: false,
            backfill_prime: false,
            job_sort_keys: Vec::new(),
            values: BTreeMap::new(),
        };
        for l in &self.lines {
            let per_period = PER_PERIOD.contains(&l.name.as_str());
            if per_period && !l.period.covers(prime) {
                continue;
            }
            let on = num(&l.value) != 0;
            match l.name.as_str() {
                "round_robin" => out.round_robin = on,
                "by_queue" => out.by_queue = on,
                "strict_ordering" => out.strict_ordering = on,
                "fair_share" => out.fair_share = on,
                "preemptive_sched" => out.preemptive_sched = on,
                "backfill_prime" => out.backfill_prime = on,
                "job_sort_key" => out.job_sort_keys.extend(sort_key(&l.value)),
                _ => {}
            }
            out.values.insert(l.name.clone(), l.value.clone());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(o: &PeriodOptions) -> Vec<(&str, bool)> {
        o.job_sort_keys
            .iter()
            .map(|k| (k.name.as_str(), k.high))
            .collect()
    }

    #[test]
    fn values_periods_quotes_and_repeated_keys() {
        let t = "# comment\n\n  * also a comment\nround_robin: False\tall\nby_queue: True prime\n\
            by_queue: False non_prime\njob_sort_key: \"ncpus HIGH\" ALL\njob_sort_key: 'mem LOW' prime\n\
            job_sort_key: \"sort_priority HIGH\"\nfairshare_entity: egroup\nfair_share: true NONE\n";
        let c = read_sched_config(t, FILE).unwrap();
        assert_eq!(c.lines.len(), 8);
        let p = c.for_period(true);
        let np = c.for_period(false);
        assert!(p.by_queue && !np.by_queue && !p.round_robin);
        assert!(
            !p.fair_share && !np.fair_share,
            "a `none` line sets nothing"
        );
        assert_eq!(
            keys(&p),
            [("ncpus", true), ("mem", false), ("job_priority", true)]
        );
        assert_eq!(keys(&np), [("ncpus", true), ("job_priority", true)]);
        assert_eq!(
            np.values.get("fairshare_entity").map(String::as_str),
            Some("egroup")
        );
        assert_eq!(c.notes.len(), 1);
        assert_eq!(
            c.notes[0].to_string(),
            "line 9: Obsolete config name sort_priority in job_sort_key, instead use job_priority"
        );
    }

    #[test]
    fn what_pbs_sched_logs_and_keeps() {
        let t = "by_queue: yes\nround_robin: 0\nno_colon_value\nfrobnicate: 3\njob_sort_key: ncpus HIGH\n\
            strict_ordering: true sometimes\nhelp_starving_jobs: true ALL\n";
        let c = read_sched_config(t, FILE).unwrap();
        let o = c.for_period(false);
        assert!(o.by_queue, "pbs_sched reads any word but false/0 as true");
        assert!(!o.round_robin);
        assert!(
            o.strict_ordering,
            "an invalid period word still sets both periods"
        );
        assert!(
            o.job_sort_keys.is_empty(),
            "an unquoted key has no direction"
        );
        let unknown: Vec<&str> = c.unknown().map(|l| l.name.as_str()).collect();
        assert_eq!(unknown, ["frobnicate"]);
        let notes: Vec<String> = c.notes.iter().map(|n| n.to_string()).collect();
        assert_eq!(
            notes,
            [
                "line 3: Error reading line 3: Config line invalid",
                "line 4: Error reading line 4: Unknown config parameter",
                "line 5: Error reading line 5: Invalid job_sort_key",
                "line 6: Error reading line 6: Invalid prime keyword: sometimes",
                "line 7: Obsolete config name help_starving_jobs, instead use use eligible_time in job_sort_formula",
            ]
        );
    }

    #[test]
    fn scan_as_pbs_sched() {
        let mut pos = 0;
        let s = "  name:value extra";
        assert_eq!(scan(s, &mut pos, b':'), Some("name"));
        assert_eq!(scan(s, &mut pos, b' '), Some("value"));
        assert_eq!(scan(s, &mut pos, b' '), Some("extra"));
        assert_eq!(scan(s, &mut pos, b' '), None);
        let mut pos = 0;
        let s = "k: \"open quote";
        assert_eq!(scan(s, &mut pos, b':'), Some("k"));
        assert_eq!(scan(s, &mut pos, b' '), Some("open quote"));
        assert_eq!(num("12abc"), 12);
        assert_eq!(num("off"), -1);
    }
}
