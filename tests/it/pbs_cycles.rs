//! Acceptance: the cycle engine (`fairsort::pbs::cycle::consider`) against real OpenPBS
//! 23.06.06 cycles (`tests/data/pbs_cycles`). For each scenario: the jobs of `qstat.json`, the
//! formula of `print_server.txt` evaluated as `fairsort order --pbs-compat` does (a Scenario's
//! dry run, with the share tree of `resource_group` and `usage` when fair share is involved),
//! the rules written here by hand from the scenario's `sched_config` and `print_sched.txt`.
//! The considered jobs must be `expected.json`'s `considered`, in order, with the logged
//! `Formula Evaluation` values; the others must be its `not_considered`, for the same reason.

use crate::common::data;
use fairsort::jobs::JobSet;
use fairsort::pbs::cycle::{
    consider, cycle_shares, sort_key_columns, CycleInput, CycleRules, CycleShares, PreemptClass,
    QueueKind, QueueRule, Skipped, SortKey,
};
use fairsort::pbs::defs::FairshareEntity;
use fairsort::scenario::{Base, JobsInput, ScenarioBuilder, Threshold};
use serde_json::Value;
use std::path::PathBuf;

/// The scenario's directory.
fn dir(name: &str) -> PathBuf {
    data(&format!("pbs_cycles/{name}"))
}

/// The server's `job_sort_formula` of `print_server.txt`, as `pbs::site_files` reads it.
fn formula(name: &str) -> Option<String> {
    let text = std::fs::read_to_string(dir(name).join("print_server.txt")).unwrap();
    let server = fairsort::pbs::site_files::read_print_server(&text, "print_server.txt").unwrap();
    server.job_sort_formula().map(str::to_string)
}

/// A queue: (name, Priority, started).
fn queues(list: &[(&str, i64, bool)]) -> Vec<QueueRule> {
    list.iter()
        .map(|&(name, priority, started)| QueueRule {
            name: name.to_string(),
            priority,
            priority_set: priority != 0,
            kind: QueueKind::Execution,
            enabled: true,
            started,
        })
        .collect()
}

/// The scenario's rules, by hand from its `sched_config` and `print_sched.txt` (the shipped
/// defaults unless said), with its `fairshare_entity` and `unknown_shares`.
fn rules(name: &str) -> (CycleRules, FairshareEntity, u64) {
    let four = queues(&[
        ("workq", 0, true),
        ("high", 100, true),
        ("batch", 100, true),
        ("low", -10, true),
    ]);
    let express = queues(&[
        ("workq", 0, true),
        ("express", 200, true),
        ("high", 100, true),
    ]);
    let mut r = CycleRules {
        queues: queues(&[("workq", 0, true)]),
        ..CycleRules::default()
    };
    let key = |name: &str, high: bool| SortKey {
        name: name.to_string(),
        high,
    };
    let threshold = |t: f64| Some(fairsort::pbs::defs::threshold::stored(t));
    let mut entity = FairshareEntity::Euser;
    let mut unknown = 0;
    match name {
        "by_queue_default" | "by_queue_no_formula" => r.queues = four,
        // `by_queue: False non_prime`: the cycle ran outside prime time.
        "by_queue_off" | "prime_non_prime" => (r.queues, r.by_queue) = (four, false),
        // `by_queue: True prime`: the cycle ran in prime time.
        "prime_non_prime_in_prime" => r.queues = four,
        "by_queue_equal_prio" => {
            r.queues = queues(&[
                ("workq", 0, true),
                ("zq", 0, true),
                ("aq", 0, true),
                ("hq", 5, true),
            ])
        }
        "round_robin" => {
            r.round_robin = true;
            r.queues = queues(&[
                ("workq", 0, true),
                ("high", 100, true),
                ("batch", 100, true),
                ("mid", 0, true),
                ("low", -10, true),
            ]);
        }
        "express_preempt_on" => (r.queues, r.by_queue) = (express, false),
        "express_preempt_off" => {
            (r.queues, r.by_queue, r.preemptive_sched) = (express, false, false);
        }
        "express_preempt_by_queue" => r.queues = express,
        "express_prio_90" => {
            (r.queues, r.by_queue, r.preempt_queue_prio) = (express, false, 90);
        }
        "threshold" => (r.by_queue, r.threshold) = (false, threshold(20.5)),
        "threshold_negative" => (r.by_queue, r.threshold) = (false, threshold(-1.5)),
        "nan_threshold" => (r.by_queue, r.threshold) = (false, threshold(3.0)),
        "formula_errors"
        | "float_division_error"
        | "nan_inf"
        | "float32_ties"
        | "eligible_time"
        | "job_arrays" => r.by_queue = false,
        "job_states" => {
            r.by_queue = false;
            r.queues = queues(&[
                ("workq", 0, true),
                ("stopped", 50, false),
                ("zero", 0, true),
            ]);
        }
        "sort_key_no_formula" => r.sort_keys = vec![key("ncpus", true), key("walltime", false)],
        "sort_key_priority" => r.sort_keys = vec![key("job_priority", true), key("mem", false)],
        "sort_key_with_formula" => {
            r.sort_keys = vec![key("walltime", false), key("mem", true)];
        }
        "fairshare_no_formula"
        | "fairshare_with_formula"
        | "fairshare_factor_formula"
        | "unknown_shares_0"
        | "unknown_shares_0_formula"
        | "unknown_shares_0_formula_no_touch" => r.fair_share = true,
        "fairshare_formula_no_fair_share" => {}
        "fairshare_egroup" => (r.fair_share, entity) = (true, FairshareEntity::Egroup),
        "unknown_shares_10" => (r.fair_share, unknown) = (true, 10),
        "preempt_fairshare" => {
            r.fair_share = true;
            r.preempt_prio = vec![
                vec![PreemptClass::ExpressQueue],
                vec![PreemptClass::NormalJobs],
                vec![PreemptClass::FairShare],
            ];
        }
        other => panic!("no rules for {other}"),
    }
    (r, entity, unknown)
}

/// What the engine reads, computed as `fairsort order --pbs-compat` computes it.
struct Computed {
    jobs: JobSet,
    values: Option<Vec<f64>>,
    keys: Vec<Vec<f64>>,
    shares: Option<CycleShares>,
}

fn compute(name: &str, rules: &CycleRules, entity: FairshareEntity, unknown: u64) -> Computed {
    let d = dir(name);
    let qstat = d.join("qstat.json");
    let jobs = fairsort::pbs::read_qstat_json(&std::fs::read(&qstat).unwrap()).unwrap();
    let text = formula(name);
    let needs_tree = rules.fair_share
        || rules
            .preempt_prio
            .iter()
            .flatten()
            .any(|c| *c == PreemptClass::FairShare)
        || text.as_deref().is_some_and(|f| f.contains("fairshare"));
    let mut b = ScenarioBuilder::new(Base::None)
        .jobs(JobsInput::File(qstat), None)
        .threshold(Threshold::Off)
        .fair_share(Some(rules.fair_share))
        .entity(Some(entity))
        .unknown_shares(Some(unknown))
        .pbs_compat(true);
    if needs_tree {
        b = b
            .tree_file(Some(d.join("resource_group")), None)
            .usage_file(Some(d.join("usage")).filter(|u| u.exists()));
    }
    for q in &rules.queues {
        b = b.queue_priority(q.name.clone(), q.priority);
    }
    let scenario = b.build().unwrap();
    let ids = |s: &JobSet| s.jobs.iter().map(|j| j.id.to_string()).collect::<Vec<_>>();
    assert_eq!(
        ids(&scenario.setup.jobs),
        ids(&jobs),
        "{name}: the same jobs"
    );
    // Without a formula the dry run still gives the fair-share rank (its values are unused).
    let program = scenario.compile(text.as_deref().unwrap_or("0")).unwrap();
    let run = scenario.order(&program, &[]).unwrap();
    let values = text.as_ref().map(|_| {
        let mut v = vec![0.0; jobs.len()];
        for r in &run.order.ranked {
            v[r.job as usize] = r.value;
        }
        v
    });
    let shares = run.shares.as_ref().filter(|_| needs_tree).map(|ctx| {
        cycle_shares(ctx, run.options.fair_share_rank.as_deref()).expect("PBS fair share computed")
    });
    let keys = sort_key_columns(&rules.sort_keys, &jobs, None, true).unwrap();
    Computed {
        jobs,
        values,
        keys,
        shares,
    }
}

/// `printf`'s text of a logged value against the engine's float.
fn same_value(logged: &str, got: f64) -> bool {
    let want: f64 = logged.parse().unwrap();
    if want.is_nan() || want.is_infinite() {
        return want.is_nan() && got.is_nan() || want == got;
    }
    (want - got).abs() <= 5e-4_f64.max(want.abs() * 1e-6)
}

/// Runs one scenario and checks it against its `expected.json`.
/// The scenario's rules read from the site's own files — `print_server.txt`, `list_sched.txt`,
/// `sched_config` — by `pbs::site_files`, for the period the cycle ran in (prime time only in
/// `prime_non_prime_in_prime`), with `fairshare_entity` and `unknown_shares` of its
/// sched_config.
fn rules_from_files(name: &str) -> (CycleRules, FairshareEntity, u64) {
    use fairsort::pbs::site_files as sf;
    let read = |f: &str| std::fs::read_to_string(dir(name).join(f)).unwrap();
    let server = sf::read_print_server(&read("print_server.txt"), "print_server.txt").unwrap();
    let scheds = sf::read_sched_attrs(&read("list_sched.txt"), "list_sched.txt").unwrap();
    let sched = sf::default_sched(&scheds).expect("the default scheduler");
    let config = sf::read_sched_config(&read("sched_config"), "sched_config").unwrap();
    let prime = name == "prime_non_prime_in_prime";
    let rules = sf::cycle_rules(&server, sched, &config, prime).unwrap();
    let values = config.for_period(prime).values;
    let entity = values
        .get("fairshare_entity")
        .map_or(FairshareEntity::Euser, |e| e.parse().unwrap());
    let unknown = values
        .get("unknown_shares")
        .map_or(0, |u| u.parse().unwrap());
    (rules, entity, unknown)
}

fn check(name: &str) {
    check_with(name, rules(name));
}

/// The same cycle with the rules read from the site's files: the order an imported site gives.
fn check_files(name: &str) {
    check_with(name, rules_from_files(name));
}

fn check_with(name: &str, (rules, entity, unknown): (CycleRules, FairshareEntity, u64)) {
    let c = compute(name, &rules, entity, unknown);
    let input = CycleInput {
        jobs: &c.jobs,
        values: c.values.as_deref(),
        sort_keys: &c.keys,
        shares: c.shares.as_ref(),
    };
    let order = consider(&input, &rules);
    let expected: Value =
        serde_json::from_slice(&std::fs::read(dir(name).join("expected.json")).unwrap()).unwrap();
    let id = |j: u32| c.jobs.jobs[j as usize].id.to_string();
    let got: Vec<String> = order.considered.iter().map(|x| id(x.job)).collect();
    let want: Vec<String> = expected["considered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["job"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(got, want, "{name}: considered");
    // `qstat.json` was taken after the cycle: a job accruing eligible time (accrue_type 2)
    // shows that many more seconds than the scheduler saw.
    let late = expected["qstat_timestamp"].as_f64().unwrap() - expected["epoch"].as_f64().unwrap();
    let uses_eligible = formula(name).is_some_and(|f| f.contains("eligible_time"));
    for (x, e) in order
        .considered
        .iter()
        .zip(expected["considered"].as_array().unwrap())
    {
        if let Some(logged) = e["formula"].as_str() {
            let mut v = x.value.expect("a formula value");
            if uses_eligible && c.jobs.jobs[x.job as usize].accrue_type == 2 {
                v -= late;
            }
            assert!(
                same_value(logged, v),
                "{name} {}: {v} logged {logged}",
                id(x.job)
            );
        }
    }
    let mut skipped: Vec<(String, Skipped)> = order
        .not_considered
        .iter()
        .map(|x| (id(x.job), x.reason.clone()))
        .collect();
    skipped.sort_by(|a, b| a.0.cmp(&b.0));
    let mut want: Vec<(String, String)> = expected["not_considered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            let job = x["job"].as_str().unwrap().to_string();
            (job, x["reason"].as_str().unwrap_or("").to_string())
        })
        .collect();
    want.sort();
    assert_eq!(
        skipped.len(),
        want.len(),
        "{name}: not considered {skipped:?} {want:?}"
    );
    for ((job, reason), (wjob, wreason)) in skipped.iter().zip(&want) {
        assert_eq!(job, wjob, "{name}: not considered");
        let fits = match reason {
            Skipped::NotQueued(_) => wreason.contains("job_state"),
            Skipped::QueueStopped => wreason == "Queue not started",
            Skipped::ZeroShares => wreason == "Job has zero shares for fairshare",
            Skipped::BelowThreshold { .. } => wreason.contains("is under threshold"),
            Skipped::RouteQueue => false,
        };
        assert!(fits, "{name} {job}: {reason:?} but PBS says `{wreason}`");
    }
}

macro_rules! scenarios {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { check(stringify!($name)); })*
        /// Every scenario again, its rules read from its files.
        mod from_files {
            $(#[test] fn $name() { super::check_files(stringify!($name)); })*
        }
    };
}

crate::pbs_cycle_scenarios!(scenarios);
