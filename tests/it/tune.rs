//! `fairsort tune`: on a generated trace whose best policy is known (9 : 1 shares, one account
//! asking for less than its share, a job-size weight that over-serves the other) and on the
//! replay month example, the search finds a share error within 10 % of a dense grid's best in a
//! fraction of its evaluations, the same for the same seed; `--submit`'s plan, tasks and
//! collect give the local run's result and name what is missing; and, where a Slurm is
//! reachable, the same through a real `sbatch --array`.

use crate::common::{fairsort, json_of, write, Rng};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A trace whose best policy is known. Two accounts on 2 nodes × 4 cores over 5 days: `g1`
/// (user u1, 9 shares of 10) runs 1-core jobs that ask for about 60 % of the cores, `g2` (u2,
/// 1 share) 4-core jobs that alone would fill the machine. `g1` cannot get its 90 %: the best
/// a policy can do is run every `g1` job as soon as it comes, which fair share with a large
/// weight does; first come first served (every weight 0) gives `g2` far more than its 10 %,
/// and a weight on `ncpus` favours `g2`'s large jobs still more. Returns the trace and the PBS
/// resource_group.
fn nine_to_one(dir: &Path) -> (PathBuf, PathBuf) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let span = 5 * 86_400;
    let mut jobs: Vec<(usize, usize, u32, u32)> = Vec::new();
    for (account, cores, n) in [(1, 1, 230), (2, 4, 96)] {
        for _ in 0..n {
            let submit = rng.below(span);
            let run = 3600 + rng.below(3 * 3600);
            jobs.push((submit, run, cores, account));
        }
    }
    jobs.sort();
    let mut swf = String::from("; MaxNodes: 2\n; MaxProcs: 8\n");
    for (i, (s, r, c, a)) in jobs.iter().enumerate() {
        swf.push_str(&format!(
            "{} {s} -1 {r} {c} -1 -1 {c} {r} -1 1 {a} {a} -1 1 -1 -1 -1\n",
            i + 1
        ));
    }
    let trace = write(dir, "nine.swf", &swf);
    let tree = write(
        dir,
        "resource_group",
        "g1 10 root 9\ng2 20 root 1\nu1 11 g1 1\nu2 21 g2 1\n",
    );
    (trace, tree)
}

fn month() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/replay/month.swf")
}

/// `fairsort tune ARGS --json`, which must succeed.
fn tune(args: &[&str]) -> Value {
    let out = fairsort()
        .arg("tune")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_of(&out.stdout)
}

fn share_error(v: &Value) -> f64 {
    v["objectives"]["share-error"].as_f64().unwrap()
}

fn evaluations(v: &Value) -> u64 {
    v["evaluations"].as_u64().unwrap()
}

/// The search against a dense grid of the same space: within 10 % of its best share error in
/// at most a tenth of its evaluations, the same twice with one seed.
fn finds_the_grids_best(common: &[&str], grid_budget: &str, budget: &str) -> (Value, Value) {
    let mut g = common.to_vec();
    g.extend(["--search", "grid", "--budget", grid_budget]);
    let grid = tune(&g);
    let mut t = common.to_vec();
    t.extend(["--budget", budget, "--seed", "7"]);
    let found = tune(&t);
    let (best, got) = (share_error(&grid["best"]), share_error(&found["best"]));
    assert!(
        got <= best * 1.10 + 1e-12,
        "tune's share error {got} is not within 10% of the grid's {best}"
    );
    assert!(
        evaluations(&found) * 10 <= evaluations(&grid),
        "{} evaluations against the grid's {}",
        evaluations(&found),
        evaluations(&grid)
    );
    assert_eq!(
        tune(&t)["best"],
        found["best"],
        "the same seed gives the same point"
    );
    (grid, found)
}

#[test]
fn tune_finds_the_known_best_of_a_nine_to_one_trace() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, tree) = nine_to_one(dir.path());
    let (trace, tree) = (trace.to_str().unwrap(), tree.to_str().unwrap());
    let common = [
        "--trace",
        trace,
        "--tree",
        tree,
        "--template",
        "a*fairshare_factor + b*ncpus",
        "--param",
        "a=0..100",
        "--param",
        "b=0..10",
    ];
    let (grid, found) = finds_the_grids_best(&common, "441", "40");
    assert_eq!(evaluations(&grid), 441);
    // The known best: g1 served first, so it gets all it asks for and no more than that.
    let best = share_error(&found["best"]);
    let baseline = share_error(&found["baseline"]);
    assert!(
        baseline > 3.0 * best,
        "first come first served {baseline} vs {best}"
    );
    assert_eq!(found["baseline"]["params"]["a"], 0.0);
    assert_eq!(found["baseline"]["params"]["b"], 0.0);
    let a = found["best"]["params"]["a"].as_f64().unwrap();
    assert!(a > 0.0, "the best point weighs fair share");
    // A weight that over-serves g2: the job-size term beats fair share's.
    let over = tune(&[
        "--trace",
        trace,
        "--tree",
        tree,
        "--template",
        "a*fairshare_factor + b*ncpus",
        "--param",
        "a=0..1",
        "--param",
        "b=5..10",
        "--search",
        "grid",
        "--budget",
        "4",
    ]);
    assert!(share_error(&over["best"]) > 2.0 * best);
    let g2 = over["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "g2")
        .unwrap();
    assert!(g2["delivered_share"]["best"].as_f64().unwrap() > 0.5);
    // The ready change is the qmgr command of the best formula.
    let formula = found["best"]["formula"].as_str().unwrap();
    assert!(found["change"][0]
        .as_str()
        .unwrap()
        .contains(&format!("set server job_sort_formula = \"{formula}\"")));
}

#[test]
fn tune_on_the_replay_month() {
    let m = month();
    let common = [
        "--trace",
        m.to_str().unwrap(),
        "--template",
        "a*fairshare_factor + b*eligible_time/3600",
        "--param",
        "a=0..1000",
        "--param",
        "b=0..10",
        "--subject-to",
        "p95-wait<=12h",
    ];
    let (_, found) = finds_the_grids_best(&common, "121", "12");
    assert!(found["best"]["feasible"].as_bool().unwrap());
    assert!(found["best"]["objectives"]["p95-wait"].as_f64().unwrap() <= 43_200.0);
    // The Pareto front: share error ascending, mean wait descending.
    let pts = found["pareto"]["points"].as_array().unwrap();
    assert!(!pts.is_empty());
    for w in pts.windows(2) {
        assert!(share_error(&w[0]) <= share_error(&w[1]));
        assert!(
            w[0]["objectives"]["mean-wait"].as_f64().unwrap()
                > w[1]["objectives"]["mean-wait"].as_f64().unwrap()
        );
    }
}

#[test]
fn tune_averages_several_traces_and_draws_the_front() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, tree) = nine_to_one(dir.path());
    let svg = dir.path().join("front.svg");
    let args = |traces: &[&Path]| {
        let mut v: Vec<String> = Vec::new();
        for t in traces {
            v.extend(["--trace".into(), t.display().to_string()]);
        }
        v.extend(
            [
                "--tree",
                tree.to_str().unwrap(),
                "--template",
                "a*fairshare_factor + b*ncpus",
                "--param",
                "a=1..100:log",
                "--param",
                "b=0..10",
                "--search",
                "random",
                "--budget",
                "6",
            ]
            .map(String::from),
        );
        v
    };
    let one = tune(
        &args(&[&trace])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    let mut two_args = args(&[&trace, &trace]);
    two_args.extend(["--plot-pareto".into(), svg.display().to_string()]);
    let two = tune(&two_args.iter().map(String::as_str).collect::<Vec<_>>());
    // The same month twice: every mean is that month's.
    assert_eq!(two["traces"], 2);
    let (x, y) = (share_error(&one["best"]), share_error(&two["best"]));
    assert!((x - y).abs() <= 1e-12 * x.max(1.0), "{x} vs {y}");
    let a = one["best"]["params"]["a"].as_f64().unwrap();
    assert!((1.0..=100.0).contains(&a));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("Pareto front"));
}

#[test]
fn tune_slurm_weights_give_slurm_conf_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, tree) = nine_to_one(dir.path());
    let conf = write(
        dir.path(),
        "slurm.conf",
        "ClusterName=c\nPriorityType=priority/multifactor\nAccountingStorageType=accounting_storage/slurmdbd\n\
         PriorityWeightFairshare=0\nPriorityWeightAge=0\nPriorityMaxAge=7-0\n\
         NodeName=n[1-2] CPUs=4\nPartitionName=p Nodes=n[1-2] Default=YES\n",
    );
    let v = tune(&[
        "--trace",
        trace.to_str().unwrap(),
        "--tree",
        tree.to_str().unwrap(),
        "--slurm-conf",
        conf.to_str().unwrap(),
        "--param",
        "PriorityWeightFairshare=0..100000",
        "--param",
        "PriorityWeightAge=0..1000",
        "--budget",
        "16",
    ]);
    assert!(share_error(&v["best"]) < share_error(&v["baseline"]));
    let change: Vec<&str> = v["change"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let w = v["best"]["params"]["PriorityWeightFairshare"]
        .as_f64()
        .unwrap();
    assert!(
        change.contains(&format!("PriorityWeightFairshare={}", w.round()).as_str()),
        "{change:?}"
    );
}

#[test]
fn tune_usage_errors() {
    let m = month();
    let m = m.to_str().unwrap();
    let base = ["tune", "--trace", m, "--template", "a*fairshare_factor"];
    for (extra, what) in [
        (vec!["--param", "a=5..1"], "lower bound"),
        (vec!["--param", "z=0..1"], "has no name `z`"),
        (
            vec!["--param", "a=0..1", "--minimize", "wait"],
            "unknown metric",
        ),
        (
            vec!["--param", "a=0..1", "--subject-to", "p95-wait<=soon"],
            "not a duration",
        ),
        (
            vec![
                "--param", "a=0..1", "--search", "optimise", "--submit", "slurm", "/tmp/x",
            ],
            "fixed design",
        ),
    ] {
        let out = fairsort().args(base).args(&extra).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(what), "{extra:?}: {err}");
    }
}

/// The search arguments of the job-array tests: a random design of 12 points.
fn array_args(trace: &Path, tree: &Path) -> Vec<String> {
    [
        "--trace",
        trace.to_str().unwrap(),
        "--tree",
        tree.to_str().unwrap(),
        "--template",
        "a*fairshare_factor + b*ncpus",
        "--param",
        "a=0..100",
        "--param",
        "b=0..10",
        "--budget",
        "12",
        "--seed",
        "3",
    ]
    .map(String::from)
    .to_vec()
}

fn collect(dir: &Path) -> std::process::Output {
    fairsort()
        .args(["tune", "collect"])
        .arg(dir)
        .arg("--json")
        .output()
        .unwrap()
}

#[test]
fn submit_tasks_and_collect_give_the_local_result() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, _) = nine_to_one(dir.path());
    let run = dir.path().join("run");
    // The plan is made in the traces' directory with relative paths; the tasks and the merge
    // run from elsewhere.
    let args = array_args(Path::new("nine.swf"), Path::new("resource_group"));
    let out = fairsort()
        .current_dir(dir.path())
        .arg("tune")
        .args(&args)
        .args(["--submit", "slurm", "run", "--tasks", "4", "--plan-only"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let script = std::fs::read_to_string(run.join("tune.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-3"), "{script}");
    assert!(script.contains("tune task") && script.contains("$SLURM_ARRAY_TASK_ID"));
    // Nothing run yet: every task is missing, and the command to run them is printed.
    let out = collect(&run);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("4 of 4 tasks") && err.contains("--array=0,1,2,3"),
        "{err}"
    );
    // Tasks 0 and 2 run; task 1 fails (its trace is gone); 3 never ran.
    let task = |i: usize| {
        fairsort()
            .args(["tune", "task"])
            .arg(&run)
            .args(["--index", &i.to_string()])
            .output()
            .unwrap()
    };
    assert!(task(0).status.success());
    assert!(task(2).status.success());
    let kept = dir.path().join("kept.swf");
    std::fs::rename(&trace, &kept).unwrap();
    assert_eq!(task(1).status.code(), Some(1));
    std::fs::rename(&kept, &trace).unwrap();
    let out = collect(&run);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("task 1 failed"), "{err}");
    assert!(
        err.contains("missing: 1; failed: 1") && err.contains("--array=1,3"),
        "{err}"
    );
    // Run again (task 0 twice: its file is replaced, never counted twice).
    for i in [0, 1, 3] {
        assert!(task(i).status.success());
    }
    let out = collect(&run);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = json_of(&out.stdout);
    assert_eq!(collect(&run).stdout, out.stdout, "collect is idempotent");
    let out = fairsort()
        .current_dir(dir.path())
        .arg("tune")
        .args(&args)
        .args(["--search", "random", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(merged, json_of(&out.stdout));
    assert_eq!(evaluations(&merged), 12);
}

#[test]
fn pbs_and_flux_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, tree) = nine_to_one(dir.path());
    for (sched, file, submit) in [
        ("pbs", "tune.pbs", "qsub -J 0-2"),
        ("flux", "tune.flux", "flux bulksubmit"),
    ] {
        let run = dir.path().join(sched);
        let out = fairsort()
            .arg("tune")
            .args(array_args(&trace, &tree))
            .args(["--submit", sched])
            .arg(&run)
            .args(["--tasks", "3", "--plan-only"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(submit), "{text}");
        let script = std::fs::read_to_string(run.join(file)).unwrap();
        assert!(script.contains("tune task"), "{script}");
        if sched == "flux" {
            assert!(text.contains("::: 0 1 2"), "{text}");
        }
    }
}

/// Whether a Slurm answers here: `sbatch` on the PATH and `sinfo` reaching slurmctld.
fn slurm_reachable() -> bool {
    let ok = |cmd: &str, args: &[&str]| {
        std::process::Command::new(cmd)
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    ok("sbatch", &["--version"]) && ok("sinfo", &["-h"])
}

/// `--submit slurm` end to end on a real Slurm: the array runs, `collect` gives the local
/// result. Runs where Slurm is reachable; with `CI=true` and `FAIRSORT_LIVE_SLURM=1` it must.
#[test]
fn live_slurm_submit_and_collect() {
    let must = std::env::var("CI").is_ok_and(|v| v == "true")
        && std::env::var("FAIRSORT_LIVE_SLURM").is_ok_and(|v| v == "1");
    if !slurm_reachable() {
        assert!(
            !must,
            "FAIRSORT_LIVE_SLURM=1 but no Slurm answers (sbatch, sinfo)"
        );
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"live_slurm_submit_and_collect: skipped, no Slurm reachable\n",
        );
        return;
    }
    // The tasks run as the submitting user on this host: a directory they can write.
    let dir = tempfile::Builder::new()
        .prefix("fairsort-tune-")
        .tempdir_in(std::env::temp_dir())
        .unwrap();
    let (trace, tree) = nine_to_one(dir.path());
    let run = dir.path().join("run");
    let args = array_args(&trace, &tree);
    let out = fairsort()
        .arg("tune")
        .args(&args)
        .args(["--submit", "slurm"])
        .arg(&run)
        .args(["--tasks", "3"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    let merged = loop {
        let out = collect(&run);
        if out.status.success() {
            break json_of(&out.stdout);
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the array did not finish: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::thread::sleep(std::time::Duration::from_secs(2));
    };
    let mut local_args = args.clone();
    local_args.extend(["--search".into(), "random".into()]);
    let local = tune(&local_args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(merged, local);
}
