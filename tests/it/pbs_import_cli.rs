//! `fairsort pbs import` from the places a PBS site keeps its files: named one by one, under
//! PBS_HOME (`--pbs-home`), or asked of the site's own `qmgr` and `pbsfs` (`--live`, with stub
//! commands that print real OpenPBS captures); what it stores, what it refuses, and what
//! `order --explain` then says of a job's place in pbs_sched's cycle.

use crate::common::{data, fairsort, fairsort_home, json_of};
use std::path::{Path, PathBuf};

fn capture(name: &str) -> PathBuf {
    data(&format!("pbs_cycles/{name}"))
}

fn new_home(tmp: &Path) -> PathBuf {
    let home = tmp.join("home");
    fairsort()
        .arg("--home")
        .arg(&home)
        .arg("init")
        .assert()
        .success();
    home
}

/// The ids `order --json` lists as considered, in order.
fn considered(home: &Path, jobs: &Path, at: &str) -> Vec<String> {
    let out = fairsort_home(home)
        .args(["order", "--json", "--at", at, "--jobs"])
        .arg(jobs)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_of(&out.stdout)["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["eligible"] == true)
        .map(|j| j["id"].as_str().unwrap().to_string())
        .collect()
}

/// The capture's files `pbs import` reads, by flag.
const SITE_FILES: [(&str, &str); 5] = [
    ("--server", "print_server.txt"),
    ("--sched", "list_sched.txt"),
    ("--sched-config", "sched_config"),
    ("--resource-group", "resource_group"),
    ("--usage", "pbsfs.txt"),
];

/// `fairsort pbs import` of the capture `d`'s `files` into `home`, which must succeed.
fn import_capture(home: &Path, d: &Path, files: &[(&str, &str)]) {
    let mut c = fairsort();
    c.arg("--home").arg(home).args(["pbs", "import"]);
    for (flag, file) in files {
        c.arg(flag).arg(d.join(file));
    }
    c.assert().success();
}

fn logged(name: &str) -> (Vec<String>, String) {
    let e: serde_json::Value =
        serde_json::from_slice(&std::fs::read(capture(name).join("expected.json")).unwrap())
            .unwrap();
    let ids = e["considered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["job"].as_str().unwrap().to_string())
        .collect();
    (ids, e["epoch"].as_i64().unwrap().to_string())
}

/// A PBS_HOME with the capture's `sched_priv` files at their standard places.
fn pbs_home(name: &str, tmp: &Path) -> PathBuf {
    let root = tmp.join("var_spool_pbs");
    let sp = root.join("sched_priv");
    std::fs::create_dir_all(&sp).unwrap();
    let d = capture(name);
    for f in [
        "sched_config",
        "resource_group",
        "usage",
        "holidays",
        "sched_formula",
    ] {
        if d.join(f).exists() {
            std::fs::copy(d.join(f), sp.join(f)).unwrap();
        }
    }
    root
}

#[test]
fn pbs_home_finds_the_scheduler_files() {
    let name = "fairshare_with_formula";
    let tmp = tempfile::tempdir().unwrap();
    let home = new_home(tmp.path());
    let d = capture(name);
    fairsort_home(&home)
        .args(["pbs", "import", "--server"])
        .arg(d.join("print_server.txt"))
        .arg("--sched")
        .arg(d.join("list_sched.txt"))
        .arg("--pbs-home")
        .arg(pbs_home(name, tmp.path()))
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "stored the PBS site (server, sched, sched_config, resource_group, usage, sched_formula)",
        ));
    let (want, at) = logged(name);
    assert_eq!(considered(&home, &d.join("qstat.json"), &at), want);
    // The binary usage file gave the same usage as pbsfs prints.
    let show = fairsort_home(&home).args(["pbs", "show"]).output().unwrap();
    let text = String::from_utf8(show.stdout).unwrap();
    assert!(
        text.contains("# sched_config") && text.contains("fair_share: true"),
        "{text}"
    );
    // A part imported again alone keeps the others.
    fairsort_home(&home)
        .args(["pbs", "import", "--sched-config"])
        .arg(d.join("sched_config"))
        .assert()
        .success();
    let show = fairsort_home(&home).args(["pbs", "show"]).output().unwrap();
    assert_eq!(String::from_utf8(show.stdout).unwrap(), text);
    assert_eq!(considered(&home, &d.join("qstat.json"), &at), want);
}

/// Writes an executable stub that prints `file` (whatever its arguments say, `qmgr` prints the
/// capture matching `-c`).
fn stub(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn live_asks_the_site_own_commands() {
    let name = "unknown_shares_10";
    let tmp = tempfile::tempdir().unwrap();
    let home = new_home(tmp.path());
    let d = capture(name);
    let exec = tmp.path().join("opt_pbs");
    let server = d.join("print_server.txt");
    let sched = d.join("list_sched.txt");
    stub(
        &exec.join("bin/qmgr"),
        &format!(
            "case \"$2\" in 'print server') cat '{}';; 'list sched') cat '{}';; *) echo \"qmgr: bad $2\" >&2; exit 1;; esac",
            server.display(),
            sched.display()
        ),
    );
    stub(
        &exec.join("sbin/pbsfs"),
        &format!("cat '{}'", d.join("pbsfs.txt").display()),
    );
    let phome = pbs_home(name, tmp.path());
    let conf = tmp.path().join("pbs.conf");
    std::fs::write(
        &conf,
        format!(
            "PBS_EXEC={}\nPBS_HOME={}\nPBS_SERVER=pbshost\n",
            exec.display(),
            phome.display()
        ),
    )
    .unwrap();
    fairsort_home(&home)
        .args(["pbs", "import", "--live"])
        .env("PBS_CONF_FILE", &conf)
        .env_remove("PBS_EXEC")
        .env_remove("PBS_HOME")
        .assert()
        .success();
    let (want, at) = logged(name);
    assert_eq!(considered(&home, &d.join("qstat.json"), &at), want);
    // A failing site command stops the import and says which.
    stub(
        &exec.join("sbin/pbsfs"),
        "echo 'pbsfs: cannot open usage' >&2; exit 3",
    );
    fairsort_home(&home)
        .args(["pbs", "import", "--live"])
        .env("PBS_CONF_FILE", &conf)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("pbsfs failed"))
        .stderr(predicates::str::contains("cannot open usage"));
}

#[test]
fn bad_input_names_its_line_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let home = new_home(tmp.path());
    let before = std::fs::read_to_string(home.join("server.toml")).unwrap();
    let bad = crate::common::write(
        tmp.path(),
        "sched_config",
        "by_queue: true\nfairshare_decay_factor: 2\n",
    );
    fairsort_home(&home)
        .args(["pbs", "import", "--sched-config"])
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "sched_config:2: fairshare_decay_factor",
        ));
    assert_eq!(
        std::fs::read_to_string(home.join("server.toml")).unwrap(),
        before
    );
    assert!(!home.join("pbs.toml").exists());
    let server = crate::common::write(
        tmp.path(),
        "print_server.txt",
        "create queue q\nset queue q Priority = 99999\n",
    );
    fairsort_home(&home)
        .args(["pbs", "import", "--server"])
        .arg(&server)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "print_server.txt:2: queue q: Priority 99999 is not an integer from -1024 to 1023",
        ));
    assert!(!home.join("pbs.toml").exists());
    fairsort_home(&home)
        .args(["pbs", "import"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("nothing to import"));
    // --at needs a cycle: this home has no PBS site yet.
    fairsort_home(&home)
        .args(["order", "--formula", "1", "--at", "5", "--jobs"])
        .arg(capture("by_queue_default").join("qstat.json"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--at needs"));
}

#[test]
fn explain_shows_the_place_in_the_cycle() {
    let name = "express_preempt_by_queue";
    let tmp = tempfile::tempdir().unwrap();
    let home = new_home(tmp.path());
    let d = capture(name);
    import_capture(&home, &d, &SITE_FILES[..3]);
    let (want, at) = logged(name);
    let first = &want[0];
    let out = fairsort_home(&home)
        .args(["order", "--json", "--at", &at, "--explain", first, "--jobs"])
        .arg(d.join("qstat.json"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c = &json_of(&out.stdout)["cycle"];
    assert_eq!(c["considered"], 1);
    assert_eq!(c["of"].as_u64().unwrap() as usize, want.len());
    assert_eq!(c["queue"], "express");
    assert_eq!(c["preempt_classes"][0], "express_queue");
    let text = fairsort_home(&home)
        .args([
            "order",
            "--at",
            &at,
            "--explain",
            &want[want.len() - 1],
            "--jobs",
        ])
        .arg(d.join("qstat.json"))
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains(&format!(
            "considered:      {} of {}",
            want.len(),
            want.len()
        )),
        "{text}"
    );
    assert!(
        text.contains("reached by:      its queue's turn (by_queue)"),
        "{text}"
    );
}

/// A replay on an imported PBS site walks as its pbs_sched: the express queue's job starts
/// before an older workq job that the formula (`eligible_time`) puts first.
#[test]
fn replay_walks_as_the_site_pbs_sched() {
    let tmp = tempfile::tempdir().unwrap();
    let home = new_home(tmp.path());
    let log = crate::common::write(
        tmp.path(),
        "20261120",
        "11/20/2026 12:00:00;E;1.srv;user=alice group=phys queue=workq qtime=1795168800 start=1795168800 end=1795172400 Resource_List.ncpus=4 Resource_List.walltime=01:00:00\n\
         11/20/2026 12:00:00;E;2.srv;user=bob group=chem queue=workq qtime=1795168810 start=1795172400 end=1795176000 Resource_List.ncpus=4 Resource_List.walltime=01:00:00\n\
         11/20/2026 12:00:00;E;3.srv;user=carol group=chem queue=express qtime=1795168820 start=1795176000 end=1795179600 Resource_List.ncpus=4 Resource_List.walltime=01:00:00\n",
    );
    let server = crate::common::write(
        tmp.path(),
        "print_server.txt",
        "create queue workq\nset queue workq queue_type = Execution\nset queue workq enabled = True\n\
         set queue workq started = True\ncreate queue express\nset queue express queue_type = Execution\n\
         set queue express Priority = 200\nset queue express enabled = True\nset queue express started = True\n\
         set server job_sort_formula = eligible_time\n",
    );
    let starts = || {
        let out = fairsort_home(&home)
            .args([
                "replay",
                "--trace-format",
                "pbs",
                "--nodes",
                "1",
                "--cores-per-node",
                "4",
            ])
            .args(["--json", "--formula", "eligible_time", "--trace"])
            .arg(&log)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc = json_of(&out.stdout);
        let start = |id: &str| {
            doc["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|j| j["id"] == id)
                .unwrap()["start"]
                .as_i64()
                .unwrap()
        };
        (
            start("2.srv"),
            start("3.srv"),
            doc["sources"]["formula"]["detail"].clone(),
        )
    };
    let (two, three, _) = starts();
    assert!(two < three, "by the formula alone: the older job first");
    fairsort_home(&home)
        .args(["pbs", "import", "--server"])
        .arg(&server)
        .assert()
        .success();
    let (two, three, detail) = starts();
    assert!(
        three < two,
        "by_queue and the express level: the express job first"
    );
    assert!(
        detail.as_str().unwrap_or("").contains("pbs_sched's walk"),
        "{detail}"
    );
}

/// `--explain` says which rule put a considered job before the next one: the express pass,
/// a queue's turn, the value, a job_sort_key, the server's order.
#[test]
fn explain_says_what_put_a_job_before_the_next() {
    let cases = [
        (
            "express_preempt_by_queue",
            2,
            "the express pass comes before any queue's turn (by_queue)",
        ),
        (
            "express_preempt_by_queue",
            0,
            "a higher formula value (as C floats): 4.0167 against 2.4",
        ),
        (
            "sort_key_with_formula",
            0,
            "equal values, then job_sort_key walltime LOW: 3600 against 43200",
        ),
        (
            "fairshare_with_formula",
            0,
            "equal values, then the server's order (submitted earlier)",
        ),
    ];
    for (name, k, because) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let home = new_home(tmp.path());
        let d = capture(name);
        import_capture(&home, &d, &SITE_FILES);
        let (want, at) = logged(name);
        let out = fairsort_home(&home)
            .args(["order", "--at", &at, "--explain", &want[k], "--jobs"])
            .arg(d.join("qstat.json"))
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let line = format!("  before {}: {because}", want[k + 1]);
        assert!(text.contains(&line), "{name}: {line}\n{text}");
    }
}
