//! `fairsort eval` / `fairsort check` take custom resources from the home when one
//! exists (`--home`, `FAIRSORT_HOME`, or the default place under `XDG_DATA_HOME`), `-R`
//! overrides them, and neither command ever creates a home. Every home here is a temporary
//! directory, never the user's own.

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;
use serde_json::Value as Json;
use std::path::Path;

use crate::common::{self, json_of, qmgr};

/// The binary with no home configured except what the test passes: the default one is under
/// `xdg` (`XDG_DATA_HOME`).
fn fairsort(xdg: &Path) -> Command {
    let mut c = common::fairsort();
    c.env("XDG_DATA_HOME", xdg);
    c
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
}

/// A home at `home` with these `qmgr` requests applied.
fn make_home(home: &Path, requests: &[&str]) {
    for r in requests {
        qmgr(home, r).success();
    }
}

#[test]
fn eval_uses_the_homes_custom_resources() {
    let dir = tempdir();
    let home = dir.path().join("home");
    make_home(
        &home,
        &[
            "create resource foo_weight type=float",
            "create resource licenses type=long",
        ],
    );
    let out = fairsort(dir.path())
        .arg("--home")
        .arg(&home)
        .args(["eval", "--json", "foo_weight * 2 + licenses"])
        .args(["-D", "foo_weight=1.25", "-D", "licenses=3"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out.stdout);
    assert_eq!(v["value"].as_f64(), Some(5.5));
    assert_eq!(v["error"], Json::Null);

    // the same formula without that home: an unknown keyword (15124)
    let out = fairsort(&dir.path().join("no-such-data-dir"))
        .args(["eval", "--json", "foo_weight * 2 + licenses"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_of(&out.stdout)["code"].as_u64(), Some(15124));
}

#[test]
fn the_default_home_and_fairsort_home_are_read_too() {
    let dir = tempdir();
    // the default place: $XDG_DATA_HOME/fairsort
    make_home(
        &dir.path().join("fairsort"),
        &["create resource gpu_hours type=float"],
    );
    fairsort(dir.path())
        .args(["eval", "gpu_hours / 2", "-D", "gpu_hours=3"])
        .assert()
        .success()
        .stdout("1.5\n");
    // FAIRSORT_HOME (clap folds it into --home)
    let other = dir.path().join("other");
    make_home(&other, &["create resource scratch type=size"]);
    fairsort(&dir.path().join("empty"))
        .env("FAIRSORT_HOME", &other)
        .args(["check", "scratch + 1"])
        .assert()
        .success()
        .stdout(contains("scratch").and(contains("size resource")));
}

#[test]
fn check_refuses_a_homes_string_resource_unless_overridden() {
    let dir = tempdir();
    let home = dir.path().join("home");
    make_home(&home, &["create resource project type=string"]);
    let out = fairsort(dir.path())
        .arg("--home")
        .arg(&home)
        .args(["check", "--json", "project + 1"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_of(&out.stdout)["code"].as_u64(), Some(15125));
    // -R overrides the home's definition
    fairsort(dir.path())
        .arg("--home")
        .arg(&home)
        .args(["check", "project + 1", "-R", "project=long"])
        .assert()
        .success()
        .stdout(contains("long resource"));
    fairsort(dir.path())
        .arg("--home")
        .arg(&home)
        .args([
            "eval",
            "project + 1",
            "-R",
            "project=long",
            "-D",
            "project=41",
        ])
        .assert()
        .success()
        .stdout("42\n");
}

#[test]
fn eval_and_check_never_create_a_home() {
    let dir = tempdir();
    // no default home: built-in resources only, and nothing created
    for sub in [["eval", "ncpus * 2"], ["check", "ncpus * 2"]] {
        fairsort(dir.path()).args(sub).assert().success();
    }
    assert!(!dir.path().join("fairsort").exists());
    // an existing directory that is no home is left alone: no state file appears
    let plain = dir.path().join("fairsort");
    std::fs::create_dir(&plain).unwrap_or_else(|e| panic!("{e}"));
    fairsort(dir.path())
        .args(["eval", "1 + 1"])
        .assert()
        .success()
        .stdout("2\n");
    assert_eq!(
        std::fs::read_dir(&plain).map(|d| d.count()).unwrap_or(99),
        0,
        "eval wrote into {}",
        plain.display()
    );
}

#[test]
fn an_explicit_home_that_is_no_home_is_an_error() {
    let dir = tempdir();
    let missing = dir.path().join("typo");
    fairsort(dir.path())
        .arg("--home")
        .arg(&missing)
        .args(["eval", "ncpus"])
        .assert()
        .code(1)
        .stderr(contains("no fairsort home at"));
    assert!(!missing.exists());
}
