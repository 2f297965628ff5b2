//! The PBS site-file readers (`pbs::site_files`) on every real OpenPBS 23.06.06 capture of
//! `tests/data/pbs_cycles`: each reader's view checked against another part of the same capture
//! (`qstat -Qf` for the queues, `print sched` against `list sched`, `sched_formula`, the binary
//! `usage` file, `pbsfs -g`) and against the settings `capture.sh` applied to the scenario.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use fairsort::pbs::cycle::rules::{PreemptClass, QueueKind, SortKey};
use fairsort::pbs::read_usage_binary;
use fairsort::pbs::site_files::{
    cycle_rules, read_pbsfs, read_pbsfs_entity, read_print_server, read_sched_attrs,
    read_sched_config, sched_attrs::default_sched, sched_config::Period, SchedAttrs,
};
use serde_json::Value;

use crate::common::data;

fn read(dir: &Path, name: &str) -> Option<String> {
    fs::read_to_string(dir.join(name)).ok()
}

fn must(dir: &Path, name: &str) -> String {
    read(dir, name).unwrap_or_else(|| panic!("{}/{name} is missing", dir.display()))
}

/// Every scenario directory, by name.
fn scenarios() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = fs::read_dir(data("pbs_cycles"))
        .expect("tests/data/pbs_cycles")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .collect();
    out.sort();
    assert!(out.len() >= 40, "only {} scenarios", out.len());
    out
}

/// The lines of `capture.sh`'s function `name`, the functions it calls expanded once.
fn script_lines(script: &str, name: &str, depth: usize) -> Vec<String> {
    let head = format!("{name}() {{");
    let Some(start) = script.lines().position(|l| l.starts_with(&head)) else {
        return Vec::new();
    };
    let first = script.lines().nth(start).unwrap_or("");
    if first.trim_end().ends_with('}') {
        // A one-line function: `name() { body; }`.
        let body = first
            .trim_start_matches(&head)
            .trim_end()
            .trim_end_matches('}');
        return vec![body.trim().to_string()];
    }
    let mut out = Vec::new();
    for l in script.lines().skip(start + 1).take_while(|l| *l != "}") {
        let l = l.trim();
        let word = l.split_whitespace().next().unwrap_or("");
        if depth > 0 && !word.is_empty() && script.contains(&format!("\n{word}() {{")) {
            out.extend(script_lines(script, word, depth - 1));
        }
        out.push(l.to_string());
    }
    out
}

/// The single-quoted arguments of a script line (`sc_set key 'a b' 'c'`).
fn quoted_args(line: &str) -> Vec<String> {
    line.split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn json_bool(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) => fairsort::pbs::site_files::pbs_bool(s),
        _ => None,
    }
}

/// `print server`'s queues are `qstat -Qf`'s, with the same type, Priority, enabled, started.
fn check_queues(name: &str, dir: &Path) {
    let server = read_print_server(&must(dir, "print_server.txt"), "print_server.txt")
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let q: Value = serde_json::from_str(&must(dir, "qstat_Q.json")).expect("qstat_Q.json");
    let queues = q["Queue"].as_object().expect("Queue object");
    let mut printed: Vec<&str> = server.queues.iter().map(|q| q.name.as_str()).collect();
    printed.sort_unstable();
    let mut listed: Vec<&str> = queues.keys().map(String::as_str).collect();
    listed.sort_unstable();
    assert_eq!(printed, listed, "{name}: queues");
    for p in &server.queues {
        let j = &queues[&p.name];
        assert_eq!(
            p.queue_type.as_deref(),
            j["queue_type"].as_str(),
            "{name} {}",
            p.name
        );
        assert_eq!(
            p.priority,
            j.get("Priority").and_then(Value::as_i64),
            "{name} {}",
            p.name
        );
        assert_eq!(
            p.enabled,
            j.get("enabled").and_then(json_bool),
            "{name} {}",
            p.name
        );
        assert_eq!(
            p.started,
            j.get("started").and_then(json_bool),
            "{name} {}",
            p.name
        );
    }
    // The formula the server handed the scheduler is the one `print server` shows.
    if let Some(f) = read(dir, "sched_formula") {
        let read = fairsort::pbs::read_sched_formula(f.as_bytes(), "sched_formula").unwrap();
        assert_eq!(server.job_sort_formula(), Some(read.as_str()), "{name}");
    }
    assert!(server.server.value("default_queue").is_some(), "{name}");
}

fn default_of(name: &str, scheds: &[SchedAttrs]) -> SchedAttrs {
    default_sched(scheds)
        .unwrap_or_else(|| panic!("{name}: no default scheduler"))
        .clone()
}

/// `list sched` and `print sched` say the same, attribute for attribute .
fn check_sched(name: &str, dir: &Path) -> SchedAttrs {
    let list = read_sched_attrs(&must(dir, "list_sched.txt"), "list_sched.txt")
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let print = read_sched_attrs(&must(dir, "print_sched.txt"), "print_sched.txt")
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let (l, p) = (default_of(name, &list), default_of(name, &print));
    let values = |s: &SchedAttrs| -> BTreeMap<String, String> {
        s.attrs
            .iter()
            .map(|(k, v)| (k.to_string(), v.value.clone()))
            .collect()
    };
    assert!(l.attrs.len() >= 10, "{name}: {} attributes", l.attrs.len());
    // `state` (read-only) is printed only when it is not `down`; the rest is the same.
    let (mut listed, mut printed) = (values(&l), values(&p));
    let (ls, ps) = (listed.remove("state"), printed.remove("state"));
    assert!(
        ls.is_some() && (ps == ls || ls.as_deref() == Some("down") && ps.is_none()),
        "{name}"
    );
    assert_eq!(listed, printed, "{name}");
    assert_eq!(l.preempt_prio(), p.preempt_prio(), "{name}");
    assert!(
        l.preempt_prio().is_some_and(|p| p.ignored.is_empty()),
        "{name}"
    );
    assert_eq!(l.preempt_order(), Some("SCR"), "{name}");
    assert_eq!(l.preempt_sort(), Some("min_time_since_start"), "{name}");
    l
}

/// pbsfs's tree agrees with the binary usage file and with `pbsfs -g` of each entity.
/// Returns how many entity reports it checked (`None`: no `pbsfs.txt`).
fn check_pbsfs(name: &str, dir: &Path, set_usage: &HashMap<String, f64>) -> Option<usize> {
    let text = read(dir, "pbsfs.txt")?;
    let tree = read_pbsfs(&text, "pbsfs.txt").unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        tree.rows.first().map(|r| r.name.as_str()),
        Some("TREEROOT"),
        "{name}"
    );
    assert!(tree.unit.is_some(), "{name}");
    let leaves = tree.usage();
    if let Ok(bytes) = fs::read(dir.join("usage")) {
        let binary = read_usage_binary(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!binary.entries.is_empty(), "{name}: empty usage file");
        for (entity, u) in &binary.entries {
            let row = tree
                .get(entity)
                .unwrap_or_else(|| panic!("{name}: {entity} of the usage file is not in pbsfs"));
            assert!(
                (row.usage - u).abs() <= 0.5,
                "{name} {entity}: {} vs {u}",
                row.usage
            );
        }
        // A leaf the file does not hold has the usage PBS starts every entity with.
        for (entity, u) in &leaves.entries {
            if !binary.entries.iter().any(|(e, _)| e == entity) {
                assert_eq!(*u, 1.0, "{name} {entity}");
            }
        }
    }
    for (entity, u) in set_usage {
        let row = tree
            .get(entity)
            .unwrap_or_else(|| panic!("{name}: {entity}"));
        assert_eq!(row.usage, *u, "{name}: pbsfs -s {entity}");
    }
    let parents = tree.parents();
    let mut reports = 0;
    for entry in fs::read_dir(dir)
        .expect("scenario dir")
        .filter_map(|e| e.ok())
    {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(entity) = file
            .strip_prefix("pbsfs_g_")
            .and_then(|f| f.strip_suffix(".txt"))
        else {
            continue;
        };
        let text = must(dir, &file);
        let report = read_pbsfs_entity(&text, &file).unwrap_or_else(|e| panic!("{name}: {e}"));
        let row = tree.get(entity);
        let Some(e) = report else {
            assert!(
                row.is_none(),
                "{name}: pbsfs -g {entity} says it does not exist"
            );
            continue;
        };
        reports += 1;
        let row = row.unwrap_or_else(|| panic!("{name}: {entity} not in the tree"));
        assert_eq!(e.name, entity);
        assert_eq!(
            (e.group, e.cgroup, e.shares, e.usage),
            (row.group, row.cgroup, row.shares, row.usage),
            "{name} {entity}"
        );
        assert!((e.percent - row.percent).abs() < 0.001, "{name} {entity}");
        assert_eq!(
            e.path.first().map(|p| p.0.as_str()),
            Some("TREEROOT"),
            "{name} {entity}"
        );
        assert_eq!(
            e.path.last().map(|p| p.0.as_str()),
            Some(entity),
            "{name} {entity}"
        );
        // The path is the chain of parents of the tree listing.
        for w in e.path.windows(2) {
            assert_eq!(
                parents.get(w[1].0.as_str()),
                Some(&w[0].0.as_str()),
                "{name} {entity}"
            );
        }
    }
    Some(reports)
}

/// Every scenario, every reader.
#[test]
fn every_capture_reads_and_agrees_with_itself() {
    let script = fs::read_to_string(data("pbs_cycles/capture.sh")).expect("capture.sh");
    let mut with_pbsfs = 0;
    let mut reports = 0;
    let mut sc_sets = 0;
    for (name, dir) in scenarios() {
        check_queues(&name, &dir);
        let sched = check_sched(&name, &dir);
        let config = read_sched_config(&must(&dir, "sched_config"), "sched_config")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(config.unknown().count(), 0, "{name}");
        assert!(config.notes.is_empty(), "{name}: {:?}", config.notes);
        let server = read_print_server(&must(&dir, "print_server.txt"), "print_server.txt")
            .unwrap_or_else(|e| panic!("{name}: {e}"));

        // What capture.sh set for this scenario (base_state's resets first, the last one wins).
        let mut set_usage = HashMap::new();
        let mut sc: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut sched_sets: BTreeMap<String, Option<String>> = BTreeMap::new();
        let mut formula: Option<Option<String>> = None;
        for line in script_lines(&script, &format!("scn_{name}"), 1) {
            let words: Vec<&str> = line.split_whitespace().collect();
            if line.contains('$') {
                // A setting from a shell variable: not known here, so not checked.
                match words.first().copied() {
                    Some("formula") => formula = None,
                    Some("sc_set") => drop(sc.remove(words[1])),
                    _ => {}
                }
                continue;
            }
            match words.first().copied() {
                Some("sc_set") => {
                    sc.insert(words[1].to_string(), quoted_args(&line));
                }
                Some("q") if line.starts_with("q 'set sched ") => {
                    let set = quoted_args(&line).concat();
                    let (attr, value) = set
                        .trim_start_matches("set sched ")
                        .split_once(" = ")
                        .expect("set sched A = V");
                    sched_sets.insert(attr.to_string(), Some(value.trim_matches('"').to_string()));
                }
                Some("qmgr") if line.starts_with("qmgr -c 'unset sched ") => {
                    let attr = quoted_args(&line)
                        .concat()
                        .trim_start_matches("unset sched ")
                        .to_string();
                    sched_sets.insert(attr, None);
                }
                Some("qmgr") if line == "qmgr -c 'unset server job_sort_formula'" => {
                    formula = Some(None)
                }
                Some("formula") => formula = Some(Some(quoted_args(&line).concat())),
                Some("pbsfs") if words.get(1) == Some(&"-s") => {
                    for pair in line.split("pbsfs -s ").skip(1) {
                        let w: Vec<&str> = pair.split_whitespace().collect();
                        if let [e, u, ..] = w[..] {
                            set_usage.insert(e.to_string(), u.parse::<f64>().expect("usage"));
                        }
                    }
                }
                _ => {}
            }
        }
        let file = must(&dir, "sched_config");
        for (key, values) in &sc {
            let got: Vec<_> = config.get(key).collect();
            assert_eq!(got.len(), values.len(), "{name}: {key}");
            for (g, v) in got.iter().zip(values) {
                let raw = file.lines().nth(g.line - 1).unwrap_or("");
                assert_eq!(raw, format!("{key}: {v}"), "{name}");
                assert!(v.contains(&g.value), "{name}: {key} {v} -> {}", g.value);
                let word = v.rsplit_once(' ').map(|(_, w)| w.to_ascii_lowercase());
                let period = match word.as_deref() {
                    Some("prime") => Period::Prime,
                    Some("non_prime") => Period::NonPrime,
                    _ => Period::All,
                };
                assert_eq!(g.period, period, "{name}: {key} {v}");
            }
            sc_sets += 1;
        }
        for (attr, value) in &sched_sets {
            assert_eq!(sched.attrs.value(attr), value.as_deref(), "{name}: {attr}");
        }
        if let Some(f) = &formula {
            assert_eq!(server.job_sort_formula(), f.as_deref(), "{name}");
        }

        if let Some(n) = check_pbsfs(&name, &dir, &set_usage) {
            with_pbsfs += 1;
            reports += n;
        }

        for prime in [true, false] {
            let rules = cycle_rules(&server, &sched, &config, prime)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let names: Vec<&str> = rules.queues.iter().map(|q| q.name.as_str()).collect();
            let printed: Vec<&str> = server.queues.iter().map(|q| q.name.as_str()).collect();
            assert_eq!(names, printed, "{name}");
            assert!(
                rules.queues.iter().all(|q| q.kind == QueueKind::Execution),
                "{name}"
            );
            assert_eq!(
                Some(rules.preempt_queue_prio),
                sched.preempt_queue_prio().unwrap(),
                "{name}"
            );
            assert_eq!(rules.threshold, sched.threshold().unwrap(), "{name}");
            // The shipped `preemptive_sched: true`, but where the scenario turned it off.
            assert_eq!(
                rules.preemptive_sched,
                name != "express_preempt_off",
                "{name}"
            );
            check_scenario(&name, prime, &rules);
        }
    }
    assert!(with_pbsfs >= 40, "only {with_pbsfs} captures with pbsfs");
    assert!(reports >= 50, "only {reports} pbsfs -g reports");
    assert!(
        sc_sets >= 35,
        "only {sc_sets} sched_config settings checked"
    );
}

/// The settings the scenarios are about, as rules.
fn check_scenario(name: &str, prime: bool, r: &fairsort::pbs::cycle::rules::CycleRules) {
    let key = |n: &str, high: bool| SortKey {
        name: n.to_string(),
        high,
    };
    match name {
        "by_queue_default" => assert!(r.by_queue && !r.round_robin, "{name}"),
        "by_queue_off" | "job_states" | "threshold" => assert!(!r.by_queue, "{name}"),
        "round_robin" => assert!(r.round_robin && r.by_queue, "{name}"),
        "prime_non_prime" | "prime_non_prime_in_prime" => assert_eq!(r.by_queue, prime, "{name}"),
        "sort_key_no_formula" => {
            assert_eq!(r.sort_keys, [key("ncpus", true), key("walltime", false)])
        }
        "sort_key_priority" => {
            assert_eq!(r.sort_keys, [key("job_priority", true), key("mem", false)])
        }
        "sort_key_with_formula" => {
            assert_eq!(r.sort_keys, [key("walltime", false), key("mem", true)])
        }
        "express_prio_90" => assert_eq!(r.preempt_queue_prio, 90),
        "preempt_fairshare" => assert_eq!(
            r.preempt_prio,
            [
                vec![PreemptClass::ExpressQueue],
                vec![PreemptClass::NormalJobs],
                vec![PreemptClass::FairShare]
            ]
        ),
        "threshold_negative" => assert_eq!(r.threshold, Some(-1.5)),
        "fairshare_egroup" | "fairshare_no_formula" | "fairshare_with_formula" => {
            assert!(r.fair_share, "{name}")
        }
        "fairshare_formula_no_fair_share" => assert!(!r.fair_share, "{name}"),
        _ => {}
    }
    if name == "threshold" {
        assert_eq!(r.threshold, Some(20.5));
    }
    if !name.starts_with("sort_key") {
        assert!(r.sort_keys.is_empty(), "{name}");
    }
    if name != "express_prio_90" {
        assert_eq!(r.preempt_queue_prio, 150, "{name}");
    }
}
