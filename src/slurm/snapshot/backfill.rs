//! The backfill scheduler's parameters (`SchedulerParameters` of `slurm.conf`: `bf_resolution`,
//! `bf_window`, `bf_max_job_test`, `bf_continue`, `bf_interval`) and the partitions'
//! `PriorityTier`, read through the one `slurm.conf` reader ([`crate::slurm::conf`]).
//!
//! As sched/backfill reads them (22.05 `_load_config`): each key is found anywhere in the
//! parameter string, case-insensitively (the first occurrence), its value read as C's `atoi`
//! does (leading digits; anything else is 0), and a value out of Slurm's range falls back to the
//! default with a note, as slurmctld logs an error and goes on.

use super::error::SnapshotError;
use crate::slurm::conf::{parse_slurm_conf, SlurmConf, INFINITE};

/// The backfill parameters that shape start estimates.
#[derive(Debug, Clone, PartialEq)]
pub struct BackfillParams {
    /// `bf_resolution`, seconds (default 60, 1..=3600): start estimates are multiples of it.
    pub resolution: i64,
    /// `bf_window`, minutes (default 1440, 1..=43200): how far ahead jobs are planned.
    pub window_minutes: i64,
    /// `bf_max_job_test` (default 500, 1..=1,000,000): how many pending jobs a cycle considers.
    pub max_job_test: i64,
    /// `bf_continue`: a cycle goes on with its job list after releasing its locks.
    pub continue_: bool,
    /// `bf_interval`, seconds (default 30, 1..=10800, or -1 for no backfill).
    pub interval: i64,
    /// Values slurmctld would reject (it logs them and uses the default).
    pub notes: Vec<String>,
}

impl Default for BackfillParams {
    fn default() -> Self {
        BackfillParams {
            resolution: 60,
            window_minutes: 1440,
            max_job_test: 500,
            continue_: false,
            interval: 30,
            notes: Vec::new(),
        }
    }
}

impl BackfillParams {
    /// The parameters of a `SchedulerParameters` value.
    pub fn parse(params: &str) -> Self {
        let mut p = BackfillParams::default();
        let mut int = |key: &str, lo: i64, hi: i64, default: i64, ok: &dyn Fn(i64) -> bool| {
            let Some(v) = find(params, key).map(atoi) else {
                return default;
            };
            if (lo..=hi).contains(&v) || ok(v) {
                v
            } else {
                p.notes.push(format!(
                    "SchedulerParameters {key}{v} is out of range ({lo}..={hi}): slurmctld uses {default}"
                ));
                default
            }
        };
        let interval = int("bf_interval=", 1, 10800, 30, &|v| v == -1);
        let resolution = int("bf_resolution=", 1, 3600, 60, &|_| false);
        let window_minutes = int("bf_window=", 1, 43200, 1440, &|_| false);
        let max_job_test = int("bf_max_job_test=", 1, 1_000_000, 500, &|_| false);
        p.interval = interval;
        p.resolution = resolution;
        p.window_minutes = window_minutes;
        p.max_job_test = max_job_test;
        p.continue_ = find(params, "bf_continue").is_some();
        p
    }

    /// The parameters of a read `slurm.conf` (defaults without `SchedulerParameters`).
    pub fn from_conf(conf: &SlurmConf) -> Self {
        conf.scheduler_parameters
            .as_ref()
            .map_or_else(BackfillParams::default, |(_, v)| BackfillParams::parse(v))
    }
}

/// The text after the first case-insensitive occurrence of `key` (`xstrcasestr`).
fn find<'a>(params: &'a str, key: &str) -> Option<&'a str> {
    let k = key.as_bytes();
    params
        .as_bytes()
        .windows(k.len())
        .position(|w| w.eq_ignore_ascii_case(k))
        .and_then(|i| params.get(i + k.len()..))
}

/// C's `atoi`, saturating instead of overflowing: blanks, a sign, then digits; 0 without digits.
fn atoi(s: &str) -> i64 {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut n: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        n = n.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    if neg {
        -n
    } else {
        n
    }
}

/// One partition's scheduling order and limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionTier {
    /// `PartitionName`.
    pub name: String,
    /// `PriorityTier` (default 1): higher tiers' jobs are considered first.
    pub tier: u32,
    /// `MaxTime` in minutes; `None` when unlimited.
    pub max_time_minutes: Option<u32>,
}

/// What the forecast reads from `slurm.conf`.
#[derive(Debug, Clone, PartialEq)]
pub struct SchedulerConf {
    /// The backfill parameters.
    pub backfill: BackfillParams,
    /// `SchedulerParameters`' 1-based line, when there is one.
    pub line: Option<usize>,
    /// The partitions, in file order.
    pub partitions: Vec<PartitionTier>,
}

/// Reads the backfill parameters and partition tiers of `slurm.conf` text; `path` names it in
/// errors.
pub fn read_scheduler_conf(text: &str, path: &str) -> Result<SchedulerConf, SnapshotError> {
    let conf = parse_slurm_conf(text, path)?;
    let mut backfill = BackfillParams::from_conf(&conf);
    let line = conf.scheduler_parameters.as_ref().map(|&(l, _)| l);
    if let Some(l) = line {
        for n in &mut backfill.notes {
            *n = format!("{path}:{l}: {n}");
        }
    }
    Ok(SchedulerConf {
        backfill,
        line,
        partitions: conf
            .partitions
            .iter()
            .map(|p| PartitionTier {
                name: p.name.clone(),
                tier: p.tier,
                max_time_minutes: Some(p.max_time).filter(|&m| m != INFINITE),
            })
            .collect(),
    })
}

/// The backfill parameters of `slurm.conf` text; `path` names it in errors.
pub fn backfill_params(text: &str, path: &str) -> Result<BackfillParams, SnapshotError> {
    read_scheduler_conf(text, path).map(|c| c.backfill)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_of_22_05() {
        let p = backfill_params("SchedulerType=sched/backfill\n", "slurm.conf").unwrap();
        assert_eq!(p, BackfillParams::default());
        assert_eq!(
            (p.resolution, p.window_minutes, p.max_job_test),
            (60, 1440, 500)
        );
        assert!(!p.continue_);
    }

    #[test]
    fn reads_the_keys_as_slurmctld() {
        let p = BackfillParams::parse(
            "bf_interval=5,BF_Resolution=300,bf_window=2880,bf_max_job_test=1000x,bf_continue",
        );
        assert_eq!(
            (p.interval, p.resolution, p.window_minutes, p.max_job_test),
            (5, 300, 2880, 1000)
        );
        assert!(p.continue_ && p.notes.is_empty());
        // bf_window_linear= is not bf_window=; -1 disables backfill.
        let p = BackfillParams::parse("bf_window_linear=30,bf_interval=-1");
        assert_eq!((p.window_minutes, p.interval), (1440, -1));
        // Out of range or not a number: the default, with a note.
        let p = BackfillParams::parse(
            "bf_resolution=0,bf_window=99999999999999999999,bf_max_job_test=abc",
        );
        assert_eq!(
            (p.resolution, p.window_minutes, p.max_job_test),
            (60, 1440, 500)
        );
        assert_eq!(p.notes.len(), 3, "{:?}", p.notes);
        assert!(p.notes[0].contains("bf_resolution=0"), "{:?}", p.notes);
    }

    #[test]
    fn partitions_and_lines() {
        let c = read_scheduler_conf(
            "NodeName=n1 CPUs=8\nSchedulerParameters=bf_resolution=7200\n\
             PartitionName=debug Nodes=n1 Default=YES MaxTime=INFINITE\n\
             PartitionName=urgent Nodes=n1 PriorityTier=2 MaxTime=60\n",
            "slurm.conf",
        )
        .unwrap();
        assert_eq!(c.line, Some(2));
        assert_eq!(c.backfill.resolution, 60);
        assert!(
            c.backfill.notes[0].starts_with("slurm.conf:2: "),
            "{:?}",
            c.backfill.notes
        );
        let tiers: Vec<_> = c
            .partitions
            .iter()
            .map(|p| (p.name.as_str(), p.tier, p.max_time_minutes))
            .collect();
        assert_eq!(tiers, [("debug", 1, None), ("urgent", 2, Some(60))]);
        let e = read_scheduler_conf("PartitionName=x PriorityTier=z\n", "s.conf").unwrap_err();
        assert!(e.to_string().starts_with("s.conf:1"), "{e}");
    }
}
