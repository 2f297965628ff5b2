//! The Slurm snapshot reader (`fairsort::slurm::snapshot`) on every real capture of
//! `tests/data/slurm_forecast` (Slurm 22.05.8): what it reads from `squeue --json`,
//! `sinfo --json` and `slurm.conf` agrees with the same capture's `scontrol show job -o`,
//! `scontrol show nodes -o`, `scontrol show config` and `expected.json`.

use crate::common::data;
use fairsort::slurm::snapshot::{
    read_nodes_json, read_scheduler_conf, read_squeue_json, SlurmNodeState, SlurmSnapshotJob,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The scenario directories (those with an `expected.json`).
fn scenarios() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(data("slurm_forecast"))
        .expect("tests/data/slurm_forecast")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    out.sort();
    out
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn jobs(p: &Path) -> Vec<SlurmSnapshotJob> {
    read_squeue_json(read(p).as_bytes(), &p.display().to_string()).unwrap_or_else(|e| panic!("{e}"))
}

fn nodes(p: &Path) -> Vec<SlurmNodeState> {
    read_nodes_json(read(p).as_bytes(), &p.display().to_string()).unwrap_or_else(|e| panic!("{e}"))
}

/// `KEY=VALUE` words of one `scontrol show ... -o` line.
fn fields(line: &str) -> BTreeMap<String, String> {
    line.split_whitespace()
        .filter_map(|w| w.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// scontrol's `2026-12-02T06:59:48` (the captures ran with TZ=UTC) as epoch seconds.
fn epoch(s: &str) -> Option<i64> {
    if matches!(s, "Unknown" | "N/A" | "None") {
        return None;
    }
    let t: jiff::civil::DateTime = s.parse().unwrap_or_else(|e| panic!("`{s}`: {e}"));
    let ts = jiff::tz::TimeZone::UTC.to_timestamp(t).expect("UTC");
    Some(ts.as_second())
}

/// scontrol's `TimeLimit=` (`[D-]HH:MM:SS`, `UNLIMITED`) in seconds.
fn limit(s: &str) -> Option<i64> {
    if s == "UNLIMITED" {
        return None;
    }
    let (days, hms) = s
        .split_once('-')
        .map_or((0, s), |(d, r)| (d.parse().expect("days"), r));
    let secs = hms.split(':').fold(0i64, |acc, x| {
        acc * 60 + x.parse::<i64>().expect("a time field")
    });
    Some(days * 86400 + secs)
}

#[test]
fn every_capture_is_read() {
    let all = scenarios();
    assert!(all.len() >= 9, "the forecast captures are missing: {all:?}");
    for dir in &all {
        for stage in ["before", "after"] {
            let js = jobs(&dir.join(stage).join("squeue.json"));
            assert!(!js.is_empty(), "{}: {stage}: no jobs", dir.display());
            let ns = nodes(&dir.join(stage).join("sinfo.json"));
            assert_eq!(ns.len(), 1, "{}: one node", dir.display());
        }
    }
}

/// Every job of after/squeue.json against its `scontrol show job -o` line.
#[test]
fn jobs_agree_with_scontrol() {
    for dir in scenarios() {
        for stage in ["before", "after"] {
            let js = jobs(&dir.join(stage).join("squeue.json"));
            let text = read(&dir.join(stage).join("scontrol_show_job.txt"));
            let lines: Vec<_> = text.lines().map(fields).collect();
            assert_eq!(lines.len(), js.len(), "{}/{stage}", dir.display());
            for (j, f) in js.iter().zip(&lines) {
                let at = format!("{}/{stage} job {}", dir.display(), j.id);
                assert_eq!(f["JobId"], j.id, "{at}");
                assert_eq!(f["JobState"], j.state, "{at}");
                assert_eq!(f["NumCPUs"].parse::<u64>().ok(), Some(j.cpus), "{at}");
                assert_eq!(
                    f["NumNodes"].parse::<u64>().ok(),
                    Some(j.node_count),
                    "{at}"
                );
                assert_eq!(f["Priority"].parse::<f64>().ok(), Some(j.priority), "{at}");
                assert_eq!(f["Partition"], j.partition, "{at}");
                assert_eq!(f["UserId"].split('(').next(), Some(j.user.as_str()), "{at}");
                // scontrol prints the description when there is one, its spaces as `_` with -o.
                let reason = if j.reason_text.is_empty() {
                    &j.reason
                } else {
                    &j.reason_text
                };
                assert_eq!(f["Reason"], reason.replace(' ', "_"), "{at}");
                assert_eq!(limit(&f["TimeLimit"]), j.limit_secs, "{at}");
                assert_eq!(epoch(&f["SubmitTime"]), Some(j.submit), "{at}");
                if j.is_running() || j.start.is_some() {
                    assert_eq!(epoch(&f["StartTime"]), j.start, "{at}");
                }
                let nodes = f
                    .get("NodeList")
                    .filter(|n| !matches!(n.as_str(), "" | "(null)"));
                assert_eq!(
                    nodes.map(|n| vec![n.clone()]).unwrap_or_default(),
                    j.nodes,
                    "{at}"
                );
            }
        }
    }
}

/// Pending jobs and their estimates against expected.json (extract_forecast.py's reading of the
/// same files) and `squeue --start`.
#[test]
fn pending_estimates_agree_with_expected() {
    let mut estimates = 0;
    for dir in scenarios() {
        let expected: Value =
            serde_json::from_str(&read(&dir.join("expected.json"))).expect("JSON");
        let js = jobs(&dir.join("after/squeue.json"));
        let pending: Vec<_> = js.iter().filter(|j| j.is_pending()).collect();
        let want = expected["pending"].as_array().expect("pending list");
        assert_eq!(pending.len(), want.len(), "{}", dir.display());
        assert!(!pending.is_empty(), "{}: nothing pending", dir.display());
        for (j, w) in pending.iter().zip(want) {
            let at = format!("{} job {}", dir.display(), j.id);
            assert_eq!(
                w["id"].as_u64().map(|i| i.to_string()),
                Some(j.id.clone()),
                "{at}"
            );
            assert_eq!(w["start"].as_i64(), j.start, "{at}");
            assert_eq!(w["squeue_start"].as_i64(), j.start, "{at}: squeue --start");
            assert_eq!(w["reason"].as_str(), Some(j.reason.as_str()), "{at}");
            assert_eq!(w["cpus"].as_u64(), Some(j.cpus), "{at}");
            assert_eq!(w["mem_mb"].as_u64(), Some(j.mem_mb), "{at}");
            // An estimate lies after the capture (nothing pending could have started before).
            if let Some(s) = j.start {
                assert!(
                    s >= expected["release_time"].as_i64().expect("release_time"),
                    "{at}"
                );
                estimates += 1;
            }
        }
        let running = js.iter().filter(|j| j.is_running()).count();
        let want_running = expected["running_before"].as_array().expect("list").len()
            + expected["started_after_release"]
                .as_array()
                .expect("list")
                .len();
        assert_eq!(running, want_running, "{}", dir.display());
        // before/: every pending job was held, with priority 0.
        for j in jobs(&dir.join("before/squeue.json"))
            .iter()
            .filter(|j| j.is_pending())
        {
            assert_eq!(j.start, None, "{} job {}", dir.display(), j.id);
            if j.reason == "JobHeldUser" {
                assert_eq!(j.priority, 0.0, "{} job {}", dir.display(), j.id);
            }
        }
    }
    assert!(
        estimates >= 10,
        "only {estimates} estimates in the captures"
    );
}

/// Each estimate is where Slurm 22.05's backfill puts it: at the end of a job running now (to the
/// second), or at a multiple of `bf_resolution` (the end of a job it planned, rounded down).
#[test]
fn estimates_are_running_ends_or_resolution_steps() {
    let (mut exact, mut rounded) = (0, 0);
    for dir in scenarios() {
        let path = dir.join("before/slurm.conf");
        let res = read_scheduler_conf(&read(&path), "slurm.conf")
            .unwrap_or_else(|e| panic!("{e}"))
            .backfill
            .resolution;
        let js = jobs(&dir.join("after/squeue.json"));
        let ends: Vec<i64> = js
            .iter()
            .filter(|j| j.is_running())
            .filter_map(|j| j.end)
            .collect();
        for j in js.iter().filter(|j| j.is_pending()) {
            let Some(start) = j.start else { continue };
            if ends.contains(&start) {
                exact += 1;
            } else {
                assert_eq!(start % res, 0, "{} job {}: {start}", dir.display(), j.id);
                rounded += 1;
            }
            if let (Some(end), Some(limit)) = (j.end, j.limit_secs) {
                assert_eq!(end, start + limit, "{} job {}", dir.display(), j.id);
            }
        }
    }
    assert!(
        exact >= 5 && rounded >= 5,
        "{exact} exact, {rounded} rounded"
    );
}

/// The node's allocation is the sum of its running jobs', as `scontrol show nodes -o` says.
#[test]
fn nodes_agree_with_running_jobs() {
    for dir in scenarios() {
        for stage in ["before", "after"] {
            let js = jobs(&dir.join(stage).join("squeue.json"));
            let ns = nodes(&dir.join(stage).join("sinfo.json"));
            let n = &ns[0];
            let at = format!("{}/{stage}", dir.display());
            let running: Vec<_> = js.iter().filter(|j| j.is_running()).collect();
            assert!(running.iter().all(|j| j.nodes == [n.name.clone()]), "{at}");
            assert_eq!(
                n.alloc_cpus,
                running.iter().map(|j| j.cpus).sum::<u64>(),
                "{at}"
            );
            assert_eq!(
                n.alloc_mem_mb,
                running.iter().map(|j| j.mem_mb).sum::<u64>(),
                "{at}"
            );
            assert_eq!((n.cpus, n.mem_mb), (8, 16000), "{at}");
            assert_eq!(n.partitions, ["debug", "urgent"], "{at}");
            let text = read(&dir.join(stage).join("scontrol_show_nodes.txt"));
            let f = fields(text.lines().next().expect("a node line"));
            assert_eq!(f["NodeName"], n.name, "{at}");
            assert_eq!(
                f["CPUAlloc"].parse::<u64>().ok(),
                Some(n.alloc_cpus),
                "{at}"
            );
            assert_eq!(
                f["AllocMem"].parse::<u64>().ok(),
                Some(n.alloc_mem_mb),
                "{at}"
            );
            assert_eq!(f["CPUTot"].parse::<u64>().ok(), Some(n.cpus), "{at}");
            assert_eq!(f["RealMemory"].parse::<u64>().ok(), Some(n.mem_mb), "{at}");
            assert!(
                f["State"].starts_with(&n.state),
                "{at}: {} vs {}",
                f["State"],
                n.state
            );
        }
    }
}

/// slurm.conf's backfill parameters and tiers against `scontrol show config` of the same run.
#[test]
fn scheduler_conf_agrees_with_scontrol_show_config() {
    for dir in scenarios() {
        let path = dir.join("before/slurm.conf");
        let c = read_scheduler_conf(&read(&path), &path.display().to_string())
            .unwrap_or_else(|e| panic!("{e}"));
        let config = read(&dir.join("before/scontrol_show_config.txt"));
        let params = config
            .lines()
            .find_map(|l| {
                l.split_once('=')
                    .filter(|(k, _)| k.trim() == "SchedulerParameters")
            })
            .map(|(_, v)| v.trim().to_string())
            .expect("SchedulerParameters in scontrol show config");
        let b = &c.backfill;
        for (key, v) in [
            ("bf_interval", b.interval),
            ("bf_resolution", b.resolution),
            ("bf_window", b.window_minutes),
            ("bf_max_job_test", b.max_job_test),
        ] {
            assert!(
                params.contains(&format!("{key}={v}")),
                "{}: {key}: {params}",
                dir.display()
            );
        }
        assert_eq!(b.continue_, params.contains("bf_continue"));
        assert!(b.notes.is_empty(), "{:?}", b.notes);
        let tiers: Vec<_> = c
            .partitions
            .iter()
            .map(|p| (p.name.as_str(), p.tier))
            .collect();
        assert_eq!(tiers, [("debug", 1), ("urgent", 2)], "{}", dir.display());
        let parts = read(&dir.join("before/scontrol_show_partition.txt"));
        for (line, p) in parts.lines().map(fields).zip(&c.partitions) {
            assert_eq!(line["PartitionName"], p.name);
            assert_eq!(line["PriorityTier"].parse::<u32>().ok(), Some(p.tier));
        }
    }
}
