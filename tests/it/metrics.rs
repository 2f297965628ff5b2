//! `fairsort metrics`: the output passes `promtool check metrics` (Debian's `prometheus`) for
//! every example site and a generated large tree; every value equals what `share --json` and
//! `order --json` print for the same inputs; `-o` replaces the file so that a concurrent reader
//! only ever sees a whole one; the Grafana dashboard queries only metrics fairsort writes.

use crate::common::{data, fairsort, import_pbs_capture, json_of, write};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One sample: metric name, labels, value.
#[derive(Debug, Clone)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// The samples of a Prometheus text exposition, checking each line's syntax: comments are
/// `# HELP` / `# TYPE` lines, every sample line `name{k="v",...} value` with the format's
/// escapes, and the text ends with a newline (a cut file would not).
fn parse(text: &str) -> Vec<Sample> {
    assert!(text.ends_with('\n'), "the exposition ends with a newline");
    let mut out = Vec::new();
    let mut typed = BTreeSet::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# ") {
            let mut w = rest.splitn(3, ' ');
            let (kind, name) = (w.next().unwrap(), w.next().unwrap());
            assert!(kind == "HELP" || kind == "TYPE", "{line}");
            if kind == "TYPE" {
                assert!(
                    typed.insert(name.to_string()),
                    "one TYPE per family: {line}"
                );
            }
            continue;
        }
        let (head, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line}"));
        let value = match value {
            "+Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            v => v.parse().unwrap_or_else(|_| panic!("value of {line}")),
        };
        let (name, labels) = match head.split_once('{') {
            None => (head.to_string(), BTreeMap::new()),
            Some((name, rest)) => {
                let body = rest.strip_suffix('}').unwrap_or_else(|| panic!("{line}"));
                (name.to_string(), labels(body))
            }
        };
        assert!(name.starts_with("fairsort_"), "{line}");
        out.push(Sample {
            name,
            labels,
            value,
        });
    }
    out
}

/// `k="v",k2="v2"` with `\\`, `\"` and `\n` escapes.
fn labels(body: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    let mut chars = body.chars().peekable();
    loop {
        let key: String = chars.by_ref().take_while(|&c| c != '=').collect();
        if key.is_empty() {
            break;
        }
        assert_eq!(chars.next(), Some('"'), "{body}");
        let mut v = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('n') => v.push('\n'),
                    Some(c) => v.push(c),
                    None => panic!("{body}"),
                },
                '"' => break,
                c => v.push(c),
            }
        }
        m.insert(key, v);
        match chars.next() {
            Some(',') => continue,
            None => break,
            Some(c) => panic!("{c} in {body}"),
        }
    }
    m
}

/// `promtool check metrics` of `text`: passes, or (promtool missing) fails under CI and is
/// skipped loudly elsewhere.
fn promtool(text: &str, what: &str) {
    use std::io::Write;
    let child = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            let message = format!(
                "promtool cannot run ({e}); `promtool check metrics` of {what} did not run"
            );
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{message} (CI=true: Debian's `prometheus` package is required)");
            }
            eprintln!("SKIPPED: {message}");
            return;
        }
    };
    let mut stdin = child.stdin.take().unwrap();
    let bytes = text.as_bytes().to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&bytes));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "promtool check metrics of {what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn metrics(args: &[&str]) -> String {
    let out = fairsort().arg("metrics").args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

fn json(args: &[&str]) -> Value {
    let out = fairsort().args(args).assert().success();
    json_of(&out.get_output().stdout)
}

/// The example names, as the binary lists them when refusing an unknown one.
fn example_names() -> Vec<String> {
    let out = fairsort()
        .args(["metrics", "--example", "no-such-site"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let list = err
        .split("expected one of: ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .unwrap_or_else(|| panic!("{err}"));
    let names: Vec<String> = list.split(", ").map(str::to_string).collect();
    assert!(names.len() >= 4, "{names:?}");
    names
}

/// A JSON value as a metric value: a number, `inf`/`-inf`/`nan` texts, or absent (null).
fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if s == "inf" => Some(f64::INFINITY),
        Value::String(s) if s == "-inf" => Some(f64::NEG_INFINITY),
        Value::String(s) if s == "nan" => Some(f64::NAN),
        _ => None,
    }
}

fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// The sum of the samples of `name` per value of `keys` (the other labels summed over).
fn sum_by(samples: &[Sample], name: &str, keys: &[&str]) -> BTreeMap<Vec<String>, f64> {
    let mut m = BTreeMap::new();
    for s in samples.iter().filter(|s| s.name == name) {
        let k: Vec<String> = keys
            .iter()
            .map(|k| s.labels.get(*k).cloned().unwrap_or_default())
            .collect();
        *m.entry(k).or_insert(0.0) += s.value;
    }
    m
}

/// Samples of `name` by the values of `keys`.
fn by(samples: &[Sample], name: &str, keys: &[&str]) -> BTreeMap<Vec<String>, f64> {
    let mut m = BTreeMap::new();
    for s in samples.iter().filter(|s| s.name == name) {
        let k: Vec<String> = keys
            .iter()
            .map(|k| s.labels.get(*k).cloned().unwrap_or_default())
            .collect();
        assert!(m.insert(k.clone(), s.value).is_none(), "{name} {k:?} twice");
    }
    m
}

/// Every association series of `algorithm` equals `share --json`'s row (the same node, the
/// same double), every row with a value has its series, and the series have no other rows
/// than the rows (plus, on a PBS order's tree, the `unknown` group PBS adds for entities the
/// file does not name).
fn check_share(samples: &[Sample], share: &Value) {
    let algorithm = share["algorithm"].as_str().unwrap();
    let pbs = algorithm == "pbs";
    let fields: [(&str, &str, bool); 6] = [
        (
            "fairsort_share_factor",
            if pbs { "fairshare_factor" } else { "fairshare" },
            true,
        ),
        ("fairsort_share_level_fs", "level_fs", true),
        ("fairsort_share_effective_usage", "effective_usage", true),
        ("fairsort_share_norm_shares", "norm_shares", true),
        ("fairsort_share_raw_usage", "raw_usage", true),
        ("fairsort_share_raw_shares", "raw_shares", false),
    ];
    for (metric, key, per_algorithm) in fields {
        let mut got: BTreeMap<(String, String), f64> = BTreeMap::new();
        for s in samples.iter().filter(|s| s.name == metric) {
            if per_algorithm && s.labels["algorithm"] != algorithm {
                continue;
            }
            let k = (s.labels["account"].clone(), s.labels["user"].clone());
            assert!(got.insert(k, s.value).is_none(), "{metric} twice");
        }
        let mut rows = 0;
        for row in share["rows"].as_array().unwrap() {
            let account = row["account"].as_str().unwrap().to_string();
            let user = row["user"].as_str().unwrap_or("").to_string();
            let want = num(&row[key]);
            let have = got.remove(&(account.clone(), user.clone()));
            match (want, have) {
                (Some(w), Some(h)) => assert!(same(w, h), "{metric} {account}/{user}: {h} != {w}"),
                (None, None) => {}
                (w, h) => {
                    panic!("{metric} {account}/{user} ({algorithm}): {h:?}, share --json {w:?}")
                }
            }
            rows += usize::from(want.is_some());
        }
        assert!(
            got.keys().all(|(a, _)| a == "unknown"),
            "{metric} ({algorithm}) rows share --json does not have: {got:?}"
        );
        if key == "raw_usage" {
            assert!(rows > 0, "{metric} was checked on no row");
        }
    }
}

/// The job series equal `order --json`'s jobs: the first N ranks and values, and per owner
/// and queue the running jobs (PBS's status `running`).
fn check_pbs_order(samples: &[Sample], order: &Value, top: usize) {
    let jobs = order["jobs"].as_array().unwrap();
    let rank = by(samples, "fairsort_top_job_rank", &["job"]);
    let value = by(samples, "fairsort_top_job_priority", &["job"]);
    assert_eq!(rank.len(), jobs.len().min(top));
    for j in jobs {
        let id = j["id"].as_str().unwrap().to_string();
        let r = j["rank"].as_u64().unwrap() as usize;
        if r > top {
            assert!(!rank.contains_key(&vec![id]));
            continue;
        }
        assert_eq!(rank[&vec![id.clone()]], r as f64, "{id}");
        assert!(
            same(value[&vec![id.clone()]], num(&j["value"]).unwrap()),
            "{id}"
        );
    }
    let running = sum_by(samples, "fairsort_jobs_running", &["user", "queue"]);
    let pending = sum_by(samples, "fairsort_jobs_pending", &["user", "queue"]);
    let mut want_running: BTreeMap<Vec<String>, f64> = BTreeMap::new();
    for j in jobs {
        let k = vec![
            j["owner"].as_str().unwrap().to_string(),
            j["queue"].as_str().unwrap().to_string(),
        ];
        *want_running.entry(k).or_default() += f64::from(u8::from(j["status"] == "running"));
    }
    for (k, n) in &want_running {
        assert_eq!(running.get(k).copied().unwrap_or(0.0), *n, "running {k:?}");
    }
    let total: f64 = pending.values().sum::<f64>() + running.values().sum::<f64>();
    assert!(total <= jobs.len() as f64);
    assert!(pending.values().sum::<f64>() > 0.0, "some job is pending");
}

/// Slurm: the ranked pending jobs are sprio's rows with their PRIORITY, in the order of
/// decreasing priority; every pending job is counted once.
fn check_slurm_order(samples: &[Sample], order: &Value, top: usize) {
    let jobs = order["jobs"].as_array().unwrap();
    let rank = by(samples, "fairsort_top_job_rank", &["job"]);
    let value = by(samples, "fairsort_top_job_priority", &["job"]);
    assert_eq!(rank.len(), jobs.len().min(top));
    let mut last = f64::INFINITY;
    let mut ranked: Vec<(f64, &str)> = rank.iter().map(|(k, r)| (*r, k[0].as_str())).collect();
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (k, (r, id)) in ranked.iter().enumerate() {
        assert_eq!(*r, (k + 1) as f64);
        let j = jobs.iter().find(|j| j["id"] == *id).unwrap();
        let p = j["priority"].as_f64().unwrap();
        assert_eq!(value[&vec![id.to_string()]], p, "{id}");
        assert!(p <= last, "ranks follow the priority");
        last = p;
    }
    let pending: f64 = by(
        samples,
        "fairsort_jobs_pending",
        &["user", "account", "partition"],
    )
    .values()
    .sum();
    assert_eq!(pending, jobs.len() as f64);
}

/// flux: the order's rows in turn, with mf_priority's value (none for a rejected job).
fn check_flux_order(samples: &[Sample], order: &Value, top: usize) {
    let jobs = order["jobs"].as_array().unwrap();
    let rank = by(samples, "fairsort_top_job_rank", &["job"]);
    let value = by(samples, "fairsort_top_job_priority", &["job"]);
    for (k, j) in jobs.iter().enumerate().take(top) {
        let id = vec![j["jobid"].as_str().unwrap().to_string()];
        assert_eq!(rank[&id], (k + 1) as f64);
        assert_eq!(value.get(&id).copied(), j["priority"].as_f64(), "{id:?}");
    }
    let pending: f64 = by(
        samples,
        "fairsort_jobs_pending",
        &["user", "account", "queue"],
    )
    .values()
    .sum();
    let want = jobs
        .iter()
        .filter(|j| j["status"] == "pending" || j["status"] == "expedited")
        .count();
    assert_eq!(pending, want as f64);
}

/// The share tree of an example, as `share` reads it, and the scratch directory it may need.
fn example_tree(name: &str, dir: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    match name {
        "pbs" => root.join("pbs_cluster/tree.toml"),
        "slurm-tree" => root.join("slurm_cluster/tree.toml"),
        "slurm" => root.join("slurm_priority/sshare.psv"),
        "flux" => {
            let db = dir.join("accounting.db");
            let sql = std::fs::read_to_string(root.join("flux_priority/accounting.sql")).unwrap();
            rusqlite::Connection::open(&db)
                .unwrap()
                .execute_batch(&sql)
                .unwrap();
            db
        }
        other => panic!("no tree known for example {other}: add it here"),
    }
}

#[test]
fn every_example_passes_promtool_and_agrees_with_share_and_order() {
    let dir = tempfile::tempdir().unwrap();
    for name in example_names() {
        let text = metrics(&["--example", &name, "--top", "3"]);
        promtool(&text, &format!("--example {name}"));
        let samples = parse(&text);
        for s in &samples {
            assert_eq!(
                s.labels.get("site").map(String::as_str),
                Some(name.as_str())
            );
        }
        let scheduler = samples[0].labels["scheduler"].clone();
        let order = json(&["order", "--example", &name, "--json"]);
        match scheduler.as_str() {
            "slurm" if order.get("not_pending").is_some() => check_slurm_order(&samples, &order, 3),
            "flux" => check_flux_order(&samples, &order, 3),
            _ => check_pbs_order(&samples, &order, 3),
        }
        // Each algorithm written is `share --json` of the example's tree.
        let algorithms: BTreeSet<String> = samples
            .iter()
            .filter(|s| s.name == "fairsort_share_factor")
            .map(|s| s.labels["algorithm"].clone())
            .collect();
        assert!(!algorithms.is_empty(), "{name}: no fair share written");
        let tree = example_tree(&name, dir.path());
        for a in &algorithms {
            let tree = tree.to_str().unwrap();
            let share = json(&["share", "--tree", tree, "-a", a, "--json"]);
            check_share(&samples, &share);
        }
        let names: BTreeSet<&str> = samples.iter().map(|s| s.name.as_str()).collect();
        for must in [
            "fairsort_run_duration_seconds",
            "fairsort_run_timestamp_seconds",
        ] {
            assert!(names.contains(must), "{name}: {must}");
        }
    }
}

/// An `sshare -a -l -P` capture of `accounts` × `per` users with varied shares and usage.
fn sshare_capture(dir: &Path, accounts: usize, per: usize) -> PathBuf {
    let mut text = String::from(
        "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|TRESRunMins\n",
    );
    let mut total = 0u64;
    let mut body = String::new();
    for a in 0..accounts {
        let users: Vec<(usize, u64)> = (0..per)
            .map(|u| {
                (
                    1 + (a * 7 + u * 13) % 100,
                    ((a * 7919 + u * 104729) % 1_000_003) as u64,
                )
            })
            .collect();
        let sum: u64 = users.iter().map(|u| u.1).sum();
        total += sum;
        body.push_str(&format!(" acct{a}||{}||{sum}||||||cpu=0\n", 1 + a % 50));
        for (u, (shares, usage)) in users.iter().enumerate() {
            // A user with no usage gets Fair Tree's Level FS of +Inf.
            let usage = if u == 0 { 0 } else { *usage };
            body.push_str(&format!(
                "  acct{a}|u{a}_{u}|{shares}||{usage}||||||cpu=0\n"
            ));
        }
    }
    text.push_str(&format!("root|||0.000000|{total}||1.000000||||cpu=0\n"));
    text.push_str(&body);
    write(dir, "sshare.psv", &text)
}

#[test]
fn a_large_tree_passes_promtool_and_agrees_with_share_under_every_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let tree = sshare_capture(dir.path(), 40, 250);
    let tree = tree.to_str().unwrap();
    let all = "pbs,classic,depth-oblivious,fair-tree,ticket,flux";
    let text = metrics(&["--tree", tree, "-a", all, "--site", "big \"one\"\\"]);
    promtool(&text, "a 10,000-user tree");
    let samples = parse(&text);
    assert_eq!(samples[0].labels["site"], "big \"one\"\\", "label escapes");
    assert!(
        samples
            .iter()
            .any(|s| s.name == "fairsort_share_level_fs" && s.value == f64::INFINITY),
        "+Inf is written for Fair Tree's Level FS of an unused association"
    );
    for a in all.split(',') {
        let share = json(&["share", "--tree", tree, "-a", a, "--json"]);
        check_share(&samples, &share);
    }
    let factors = samples
        .iter()
        .filter(|s| s.name == "fairsort_share_factor" && !s.labels["user"].is_empty())
        .count();
    assert_eq!(
        factors,
        6 * 40 * 250,
        "every user's factor under six algorithms"
    );
}

#[test]
fn a_concurrent_reader_never_sees_a_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let tree = sshare_capture(dir.path(), 20, 1000);
    let out_dir = dir.path().join("textfile");
    std::fs::create_dir(&out_dir).unwrap();
    let target = out_dir.join("fairsort.prom");
    let run = || {
        fairsort()
            .arg("metrics")
            .arg("--tree")
            .arg(&tree)
            .args(["-a", "fair-tree,classic", "--site", "s", "-o"])
            .arg(&target)
            .assert()
            .success()
            .stdout(predicates::str::starts_with(format!(
                "{}: ",
                target.display()
            )))
            .stdout(predicates::str::contains(" bytes written in "));
    };
    run();
    let lines = |text: &str| {
        text.lines()
            .filter(|l| !l.starts_with("fairsort_run_duration"))
            .count()
    };
    let want = lines(&std::fs::read_to_string(&target).unwrap());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (stop, target, out_dir) = (stop.clone(), target.clone(), out_dir.clone());
        std::thread::spawn(move || {
            let mut reads = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let text = std::fs::read_to_string(&target).unwrap();
                let samples = parse(&text);
                assert_eq!(lines(&text), want, "a whole file");
                assert_eq!(
                    samples.last().map(|s| s.name.as_str()),
                    Some("fairsort_run_duration_seconds")
                );
                // The temporary is never a `*.prom` the textfile collector would read.
                for e in std::fs::read_dir(&out_dir).unwrap() {
                    let name = e.unwrap().file_name().into_string().unwrap();
                    assert!(
                        name == "fairsort.prom" || !name.ends_with(".prom"),
                        "{name}"
                    );
                }
                reads += 1;
            }
            reads
        })
    };
    for _ in 0..5 {
        run();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let reads = reader.join().unwrap();
    assert!(reads > 0);
    let left: Vec<_> = std::fs::read_dir(&out_dir).unwrap().collect();
    assert_eq!(left.len(), 1, "no temporary left behind");
}

#[test]
fn forecast_waits_are_a_histogram_of_the_forecast() {
    let d = data("pbs_forecast/depth1");
    let home = tempfile::tempdir().unwrap();
    import_pbs_capture(&d, home.path());
    let want: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("expected.json")).unwrap()).unwrap();
    let at = want["at"].as_i64().unwrap().to_string();
    let jobs = d.join("before/qstat.json");
    let nodes = d.join("before/pbsnodes.json");
    let (jobs, nodes) = (jobs.to_str().unwrap(), nodes.to_str().unwrap());
    let h = home.path().to_str().unwrap();
    let text = metrics(&[
        "--home",
        h,
        "--jobs",
        jobs,
        "--node-state",
        nodes,
        "--at",
        &at,
    ]);
    promtool(&text, "a PBS site's forecast");
    let samples = parse(&text);
    let fc = json(&[
        "--home",
        h,
        "forecast",
        "--jobs",
        jobs,
        "--node-state",
        nodes,
        "--at",
        &at,
        "--json",
    ]);
    let at: i64 = fc["at"].as_i64().unwrap();
    let pending: Vec<&Value> = fc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["state"] != "R")
        .collect();
    assert!(!pending.is_empty());
    let count: f64 = samples
        .iter()
        .filter(|s| s.name == "fairsort_forecast_wait_seconds_count")
        .map(|s| s.value)
        .sum();
    let unplanned: f64 = samples
        .iter()
        .filter(|s| s.name == "fairsort_forecast_unplanned_jobs")
        .map(|s| s.value)
        .sum();
    assert_eq!(count + unplanned, pending.len() as f64);
    let waits: Vec<f64> = pending
        .iter()
        .filter_map(|j| j["start"].as_i64())
        .map(|s| (s - at).max(0) as f64)
        .collect();
    let sum: f64 = samples
        .iter()
        .filter(|s| s.name == "fairsort_forecast_wait_seconds_sum")
        .map(|s| s.value)
        .sum();
    assert_eq!(sum, waits.iter().sum::<f64>());
    for b in samples
        .iter()
        .filter(|s| s.name == "fairsort_forecast_wait_seconds_bucket")
    {
        let le: f64 = match b.labels["le"].as_str() {
            "+Inf" => f64::INFINITY,
            v => v.parse().unwrap(),
        };
        assert!(b.labels.contains_key("queue") && b.labels.contains_key("account"));
        let mine = pending
            .iter()
            .filter(|j| j["queue"].as_str() == b.labels.get("queue").map(String::as_str))
            .filter_map(|j| j["start"].as_i64())
            .filter(|&s| ((s - at).max(0) as f64) <= le)
            .count() as f64;
        // One account per queue in this capture: the bucket is the queue's.
        assert_eq!(b.value, mine, "le {le}");
    }
    // The home's usage (imported from pbsfs) has its decay time, or no series at all.
    assert!(samples
        .iter()
        .all(|s| s.name != "fairsort_usage_record_lag_seconds" || s.value >= 0.0));
}

#[test]
fn the_homes_usage_state_is_written() {
    let home = tempfile::tempdir().unwrap();
    let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pbs_cluster/tree.toml");
    crate::common::fairsort_home(home.path())
        .args(["tree", "import"])
        .arg(&tree)
        .assert()
        .success();
    crate::common::fairsort_home(home.path())
        .args(["usage", "record"])
        .arg(data("usage/pbs_logs"))
        .assert()
        .success();
    let before = jiff::Timestamp::now().as_second();
    let h = home.path().to_str().unwrap();
    let text = metrics(&["--home", h]);
    promtool(&text, "a home's tree and usage");
    let samples = parse(&text);
    let one = |name: &str| {
        let s: Vec<&Sample> = samples.iter().filter(|s| s.name == name).collect();
        assert_eq!(s.len(), 1, "{name}");
        s[0].value
    };
    let recorded = one("fairsort_usage_last_record_timestamp_seconds");
    assert!(recorded <= one("fairsort_run_timestamp_seconds"));
    assert!(
        recorded >= (before - 120) as f64,
        "recorded just now: {recorded}"
    );
    let lag = one("fairsort_usage_record_lag_seconds");
    assert_eq!(lag, one("fairsort_run_timestamp_seconds") - recorded);
    assert!(one("fairsort_usage_last_decay_timestamp_seconds") > 0.0);
    assert!(one("fairsort_run_duration_seconds") > 0.0);
    // The home's algorithm over its tree, with the usage recorded (alice's 1200 charged).
    let share = json(&["--home", h, "share", "--json"]);
    check_share(&samples, &share);
}

#[test]
fn errors_follow_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.psv");
    let out = fairsort()
        .arg("metrics")
        .arg("--tree")
        .arg(&missing)
        .args(["-a", "fair-tree"])
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("missing.psv"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    fairsort()
        .args(["metrics", "--example", "pbs", "--top", "1001"])
        .assert()
        .code(2);
    let tree = sshare_capture(dir.path(), 2, 2);
    fairsort()
        .arg("metrics")
        .arg("--tree")
        .arg(&tree)
        .assert()
        .code(2);
    let out = fairsort()
        .args(["metrics", "--example", "pbs", "-o"])
        .arg(dir.path().join("no/such/dir/x.prom"))
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("no/such/dir"), "{err}");
    // No input and no home: `share`'s refusal, a user error naming the home.
    let out = fairsort().args(["metrics"]).assert().code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("home"), "{err}");
}

#[test]
fn the_grafana_dashboard_loads_and_queries_only_what_fairsort_writes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/grafana/fairsort.json");
    let dash: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(dash["title"].is_string() && dash["panels"].is_array());
    let vars = dash["templating"]["list"].as_array().unwrap();
    assert!(
        vars.iter()
            .any(|v| v["type"] == "datasource" && v["query"] == "prometheus"),
        "a Prometheus datasource variable"
    );
    let known: BTreeSet<String> = fairsort::metrics::names::all_names().into_iter().collect();
    let mut exprs = Vec::new();
    fn walk<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("expr" | "query" | "definition", Value::String(s)) => out.push(s),
                        _ => walk(x, out),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(&dash, &mut exprs);
    let mut used = BTreeSet::new();
    for e in &exprs {
        let b = e.as_bytes();
        let mut i = 0;
        while let Some(k) = e[i..].find("fairsort_") {
            let start = i + k;
            let mut end = start;
            while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
                end += 1;
            }
            used.insert(e[start..end].to_string());
            i = end;
        }
    }
    assert!(used.len() >= 6, "{used:?}");
    for u in &used {
        assert!(
            known.contains(u),
            "the dashboard queries {u}, which fairsort does not write"
        );
    }
    // Every family the dashboard is about is written by some example (or the forecast test).
    for family in [
        "fairsort_share_factor",
        "fairsort_jobs_pending",
        "fairsort_forecast_wait_seconds_bucket",
    ] {
        assert!(used.contains(family), "{family}");
    }
}
