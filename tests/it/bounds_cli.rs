//! The command line's side of the input contract: a closed stderr ends quietly (and what was
//! committed stays committed), values beginning with `-` are taken where a value is expected,
//! durations have one form in every flag, one list of example names, fallbacks said in one line,
//! and tables whose width cannot grow with the tree's depth.

use crate::common::{bin, data, fairsort, fairsort_home, write};
use predicates::prelude::*;
use std::process::{Command, Stdio};

/// The command with its stderr a pipe whose reading end is already closed: every write to it
/// fails with EPIPE, as under `2>&1 | head -1` once head has exited.
fn with_closed_stderr(mut c: Command) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    c.env_remove("FAIRSORT_HOME")
        .env("XDG_DATA_HOME", crate::common::NO_XDG_DATA_HOME)
        .env("TZ", "UTC")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(writer);
    c.output().unwrap()
}

#[test]
fn a_closed_stderr_ends_quietly_and_a_committed_record_stays() {
    let home = tempfile::tempdir().unwrap();
    let normal = fairsort_home(home.path())
        .arg("qmgr")
        .write_stdin("create queue q1\ncreate queue q1\n")
        .output()
        .unwrap();
    // qmgr: every line is refused (the queue exists), each refusal written to stderr.
    let d = tempfile::tempdir().unwrap();
    let req = "create queue q1\n".repeat(50);
    let file = write(d.path(), "req.qmgr", &req);
    let mut c = Command::new(bin());
    c.arg("--home").arg(home.path()).arg("qmgr");
    c.stdin(std::fs::File::open(&file).unwrap());
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = c
        .env("TZ", "UTC")
        .stdout(Stdio::piped())
        .stderr(writer)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(101), "no panic: {out:?}");
    assert_eq!(
        out.status.code(),
        normal.status.code(),
        "qmgr's own status for a refusal"
    );
    // usage record with a malformed line: the good records are committed whatever stderr does.
    let mut c = Command::new(bin());
    c.arg("--home")
        .arg(home.path())
        .args(["usage", "record"])
        .arg(data("usage/corrupt.log"));
    let out = with_closed_stderr(c);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    fairsort_home(home.path())
        .args(["usage", "show", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("carol"));
}

#[test]
fn values_beginning_with_a_dash_are_values() {
    fairsort()
        .args(["order", "--example", "pbs", "--formula", "-walltime"])
        .assert()
        .success()
        .stdout(predicate::str::contains("-walltime"));
    // A negative duration is refused by the duration's own rule, not as an unknown option.
    let home = tempfile::tempdir().unwrap();
    fairsort_home(home.path())
        .args([
            "usage",
            "decay",
            "--model",
            "half-life",
            "--half-life",
            "-1",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("half_life must be from 0"));
    fairsort()
        .args(["replay", "--trace"])
        .arg(data("../../examples/replay/small.swf"))
        .args(["--formula", "1", "--half-life", "-1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("`-1` is not a duration"));
}

#[test]
fn durations_take_the_same_forms_in_every_flag() {
    let home = tempfile::tempdir().unwrap();
    let decay = |h: &str| {
        let out = fairsort_home(home.path())
            .args([
                "usage",
                "decay",
                "--model",
                "half-life",
                "--half-life",
                h,
                "--json",
                "--at",
                "2024-04-20T00:00:00Z",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{h}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let plain = decay("604800");
    for form in ["7d", "1w", "168:00:00", "7-00:00:00", "6d24h"] {
        assert_eq!(decay(form), plain, "{form}");
    }
    let swf = data("../../examples/replay/small.swf");
    let replay = |h: &str| {
        let out = fairsort()
            .args(["replay", "--trace"])
            .arg(&swf)
            .args(["--formula", "fairshare_perc", "--half-life", h, "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{h}: {out:?}");
        out.stdout
    };
    assert_eq!(replay("7d"), replay("604800"));
}

#[test]
fn check_exits_1_when_a_pbs_server_refuses_the_formula() {
    fairsort()
        .args(["check", "level_fs"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("valid for fairsort only"))
        .stderr(predicate::str::contains("15124"));
    fairsort().args(["check", "walltime*2"]).assert().success();
    fairsort()
        .args(["check", "level_fs", "--json"])
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("\"accepted\": false")
                .or(predicate::str::contains("\"accepted\":false")),
        );
}

#[test]
fn one_list_of_example_names() {
    for args in [
        &["order", "--example", "lsf"][..],
        &["plot", "factors", "--example", "lsf", "-o", "-"][..],
    ] {
        fairsort()
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "expected one of: pbs, slurm, slurm-tree, flux",
            ));
    }
    // The same name is the same site in every command.
    let order = fairsort()
        .args(["order", "--example", "slurm-tree", "--json"])
        .output()
        .unwrap();
    assert!(order.status.success());
    fairsort()
        .args(["plot", "factors", "--example", "slurm-tree", "-o", "-"])
        .assert()
        .success()
        .stdout(predicate::str::contains("<svg"));
    fairsort()
        .args(["plot", "factors", "--example", "flux", "-o", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("it takes pbs or slurm-tree"));
}

#[test]
fn the_example_files_work_with_the_flags_their_readme_shows() {
    for (dir, algorithm) in [("pbs_cluster", "pbs"), ("slurm_cluster", "fair-tree")] {
        let tree = data(&format!("../../examples/{dir}/tree.toml"));
        fairsort()
            .args(["share", "--algorithm", algorithm, "--tree"])
            .arg(&tree)
            .assert()
            .success();
    }
}

#[test]
fn unknown_active_users_and_blank_entities_are_said() {
    let tree = data("../../examples/pbs_cluster/tree.toml");
    fairsort()
        .args(["share", "--algorithm", "ticket", "--active", "bob,nosuch"])
        .arg("--tree")
        .arg(&tree)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "--active: 1 user is not in the share tree: `nosuch`",
        ));
    let d = tempfile::tempdir().unwrap();
    let jobs = write(
        d.path(),
        "jobs.json",
        r#"[{"id":"1","user":"bob","queue":"workq"},{"id":"2","user":"al","queue":"workq"}]"#,
    );
    fairsort()
        .args(["order", "--example", "pbs", "--entity", "egroup", "--jobs"])
        .arg(&jobs)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "fairshare_entity egroup: 2 of 2 jobs have no egroup (the first: job `1`)",
        ));
}

#[test]
fn a_deep_tree_table_is_not_as_wide_as_the_tree_is_deep() {
    let d = tempfile::tempdir().unwrap();
    let depth = 5000;
    let mut rg = String::new();
    let mut parent = "root".to_string();
    for i in 1..=depth {
        rg.push_str(&format!("g{i} {} {parent} 1\n", i + 10));
        parent = format!("g{i}");
    }
    rg.push_str(&format!("alice 99999 {parent} 1\n"));
    let file = write(d.path(), "resource_group", &rg);
    for algorithm in ["pbs", "classic"] {
        let out = fairsort()
            .args(["share", "--algorithm", algorithm, "--tree"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let widest = out.stdout.split(|&b| b == b'\n').map(<[u8]>::len).max();
        // Indentation is capped: the widest row is a few names wide, not `depth` columns.
        assert!(widest < Some(400), "{algorithm}: {widest:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("[5000] g5000"),
            "{algorithm}: the depth is said"
        );
    }
}

#[test]
fn repeated_per_record_warnings_are_capped_with_a_count() {
    let home = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 1..=30 {
        text.push_str(&format!(
            "04/13/2024 10:00:00;E;{i}.pbs;user=amy group=g resources_used.cput=ten\n"
        ));
    }
    text.push_str("04/13/2024 10:00:00;E;31.pbs;user=amy group=g resources_used.cput=10\n");
    let log = write(logs.path(), "20240413", &text);
    let out = fairsort_home(home.path())
        .args(["usage", "record", "--format", "pbs"])
        .arg(&log)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.matches("(record skipped)").count(), 10, "{stderr}");
    assert!(
        stderr.contains("… and 20 more malformed records skipped (not shown)"),
        "{stderr}"
    );
}

#[test]
fn the_against_example_of_the_docs_is_what_the_binary_prints() {
    let doc = std::fs::read_to_string(data("../../docs/order.md")).unwrap();
    let cmd = "$ fairsort order --example --against fairshare_factor\n(the sources header, then)\n";
    let start = doc.find(cmd).expect("the example is in docs/order.md") + cmd.len();
    let shown = &doc[start..start + doc[start..].find("```").unwrap()];
    let out = fairsort()
        .args(["order", "--example", "--against", "fairshare_factor"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let printed = &text[text.find("current:").unwrap()..];
    assert_eq!(shown, printed);
}
