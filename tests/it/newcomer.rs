//! A newcomer's first hour (issue #18): a fresh HOME, the README's commands in order, every
//! command piped into a reader that closes early, the missing-home rule, PBS units on the
//! command line, shell completion and man pages, and the error cases a newcomer hits.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{bin, data_str};

/// `fairsort ARGS` with HOME (and nothing else) pointing at `home`, from the repository root.
fn cmd(home: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("HOME", home)
        .env_remove("FAIRSORT_HOME")
        .env_remove("XDG_DATA_HOME");
    c
}

/// Runs `fairsort ARGS` with its standard output read by nobody (the read end closed before
/// the command writes), as `fairsort ... | head -0` does: status 0, nothing on stderr.
fn closed_pipe(home: &Path, args: &[&str]) {
    let mut child = cmd(home, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    drop(child.stdout.take());
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let status = child.wait().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status.code(), Some(0), "fairsort {args:?} | head: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe"),
        "fairsort {args:?}: {err}"
    );
}

fn ok(home: &Path, args: &[&str]) -> String {
    let out = cmd(home, args).output().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "fairsort {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The status and standard error of a command expected to fail.
fn fails(home: &Path, args: &[&str]) -> (i32, String) {
    let out = cmd(home, args).output().unwrap_or_else(|e| panic!("{e}"));
    assert!(!out.status.success(), "fairsort {args:?} succeeded");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_command_piped_into_head_exits_quietly() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    ok(h, &["init"]);
    ok(h, &["tree", "import", &data_str("share/resource_group")]);
    let fair_tree = data_str("formats/t2_fair_tree.psv");
    let usage = data_str("share/usage.txt");
    let runs: &[&[&str]] = &[
        &["--help"],
        &["--version"],
        &["init"],
        &["eval", "1+1"],
        &["eval", "--json", "1+1"],
        &["check", "walltime/ncpus"],
        &["check", "--json", "walltime/ncpus"],
        &["share", "--algorithm", "pbs", "--usage", &usage],
        &[
            "share",
            "--tree",
            &fair_tree,
            "--algorithm",
            "fair-tree",
            "--json",
        ],
        &["share", "--tree", &fair_tree, "--compare"],
        &["share", "--tree", &fair_tree, "--compare", "--csv"],
        &["qmgr", "-c", "print server"],
        &["qmgr", "-c", "list server", "--json"],
        &["tree", "show"],
        &["tree", "show", "--json"],
        &["order", "--example"],
        &["order", "--example", "--json"],
        &["order", "--example", "--csv"],
        &["order", "--example", "--explain", "104.pbs"],
        &["order", "--example", "--against", "fairshare_factor"],
        &[
            "order",
            "--example",
            "--against",
            "fairshare_factor",
            "--json",
        ],
        &["test", "examples/formula-tests.toml"],
        &["test", "--json", "examples/formula-tests.toml"],
        &["usage", "show"],
        &["usage", "show", "--json"],
        &["usage", "show", "--csv"],
        &["completions", "bash"],
        &["man"],
    ];
    for args in runs {
        closed_pipe(h, args);
    }
}

#[test]
fn a_missing_home_is_created_only_by_init() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let default = h.join(".local/share/fairsort");
    // Read-only commands that document built-in defaults work without a home.
    ok(h, &["eval", "1+1"]);
    ok(h, &["check", "walltime"]);
    ok(h, &["order", "--example"]);
    // Every other command says the same thing and creates nothing.
    let usage = data_str("share/usage.txt");
    for args in [
        &["usage", "show"][..],
        &["qmgr", "-c", "print server"],
        &["qmgr", "-c", "create queue q"],
        &["tree", "show"],
        &["tree", "import", &data_str("share/resource_group")],
        &["share", "--algorithm", "pbs", "--usage", &usage],
    ] {
        let (code, err) = fails(h, args);
        assert_eq!(code, 1, "{args:?}");
        assert!(
            err.contains(&format!(
                "no fairsort home at {}; run `fairsort init`",
                default.display()
            )),
            "{args:?}: {err}"
        );
    }
    assert!(!default.exists());
    // An explicit home that does not exist is the same error for eval.
    let other = h.join("elsewhere");
    let (_, err) = fails(h, &["--home", other.to_str().unwrap(), "eval", "1"]);
    assert!(err.contains("run `fairsort init`"), "{err}");
    assert!(ok(h, &["init"]).contains("created fairsort home at"));
    assert!(default.join("server.toml").is_file());
    assert!(ok(h, &["init"]).contains("already exists"));
    assert!(ok(h, &["qmgr", "-c", "print server"]).contains("managers"));
}

#[test]
fn eval_defines_and_test_values_take_pbs_units() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let out = ok(
        h,
        &[
            "eval",
            "walltime + mem",
            "-D",
            "walltime=01:00:00",
            "-D",
            "mem=4gb",
        ],
    );
    assert_eq!(out.trim(), "4197904");
    let (code, err) = fails(h, &["eval", "ncpus", "-D", "ncpus=lots"]);
    assert_eq!(code, 1);
    assert!(err.contains("not a number or a PBS size or time"), "{err}");
    let f = crate::common::write(
        h,
        "t.toml",
        "[[eval]]\nformula = \"walltime/3600 + mem/1048576\"\nwith = { walltime = \"02:00:00\", mem = \"1gb\" }\nexpect = 3\n",
    );
    ok(h, &["test", f.to_str().unwrap()]);
}

#[test]
fn completions_and_man_pages() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = ok(h, &["completions", shell]);
        assert!(out.contains("fairsort"), "{shell}");
    }
    assert!(ok(h, &["man"]).contains(".TH fairsort 1"));
    let dir = h.join("man1");
    ok(h, &["man", "-o", dir.to_str().unwrap()]);
    assert!(dir.join("fairsort.1").is_file());
    assert!(dir.join("fairsort-order.1").is_file());
    let (code, _) = fails(h, &["completions", "tcsh"]);
    assert_eq!(code, 2);
}

#[test]
fn the_example_formula_tests_run_on_their_own() {
    let home = tempfile::tempdir().unwrap();
    let out = ok(home.path(), &["test", "examples/formula-tests.toml"]);
    assert!(out.contains(" passed, 0 failed"), "{out}");
}

#[test]
fn errors_point_at_the_spot_and_suggest() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let (code, err) = fails(h, &["check", "(1+2"]);
    assert_eq!(code, 1);
    assert!(err.contains("`(` is never closed"), "{err}");
    assert!(err.contains("\n  (1+2\n  ^\n"), "{err}");
    ok(h, &["init"]);
    let (_, err) = fails(h, &["qmgr", "-c", "set server job_sort_formla = 1"]);
    assert!(
        err.contains("set server job_sort_formla = 1\n           ^~~~~~~~~~~~~~~\ndid you mean `job_sort_formula`?"),
        "{err}"
    );
    let (_, err) = fails(h, &["qmgr", "-c", "prnt server"]);
    assert!(err.contains("did you mean `print`?"), "{err}");
}

#[test]
fn against_keeps_queue_and_status_columns() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let out = ok(h, &["order", "--example", "--against", "fairshare_factor"]);
    let header = out.lines().find(|l| l.starts_with("rank")).unwrap_or("");
    assert!(
        header.contains("queue") && header.contains("status"),
        "{out}"
    );
    let csv = ok(
        h,
        &[
            "order",
            "--example",
            "--against",
            "fairshare_factor",
            "--csv",
        ],
    );
    assert!(
        csv.starts_with("rank,rank_against,moved,job_id,owner,queue,value,value_against,status\n"),
        "{csv}"
    );
    let json = ok(
        h,
        &[
            "order",
            "--example",
            "--against",
            "fairshare_factor",
            "--json",
        ],
    );
    assert!(
        json.contains("\"queue\": \"workq\"") && json.contains("\"status\": \"eligible\""),
        "{json}"
    );
}
