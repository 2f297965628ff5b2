//! Every input error names its file and line, whatever the format: JSON (with the
//! column), TOML, CSV, PBS `resource_group`, sshare text, PBS accounting logs; and a formula's
//! syntax error points at the offending character with a caret.

use crate::common::{fairsort, write};
use std::path::Path;

/// Runs fairsort and returns its stderr, checking it failed with status 1 and printed nothing.
fn error(args: &[&str], file: &Path) -> String {
    let out = fairsort().args(args).arg(file).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    String::from_utf8(out.stderr).unwrap()
}

/// A job reader's `FILE:LINE[:COL]: ` position.
fn starts_at(err: &str, file: &Path, position: &str) {
    let want = format!("fairsort: {}:{position}: ", file.display());
    assert!(err.starts_with(&want), "want {want:?}, got {err:?}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn json_tree_errors_name_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "tree.json",
        "{\n \"root\": \"root\",\n \"accounts\": [\n  {\"name\": \"a\",, }\n ]\n}\n",
    );
    let e = error(&["share", "-a", "classic", "--tree"], &f);
    starts_at(&e, &f, "4:16");
    assert!(e.contains("key must be a string"), "{e}");
    // A value refused while reading is placed too.
    let f = write(
        dir.path(),
        "neg.json",
        "{\"root\": \"r\",\n \"accounts\": [{\"name\": \"a\", \"shares\": -1}]}",
    );
    let e = error(&["share", "-a", "classic", "--tree"], &f);
    starts_at(&e, &f, "2:40");
    assert!(e.contains("shares must be a non-negative integer"), "{e}");
}

#[test]
fn json_job_list_and_qstat_errors_name_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "jobs.json",
        "[{\"id\": \"1\", \"owner\": \"bob\"},\n{\"id\": 2 \"owner\": \"x\"}]\n",
    );
    let e = error(&["order", "--example", "--jobs"], &f);
    starts_at(&e, &f, "2:10");
    let f = write(
        dir.path(),
        "qstat.json",
        "{\"Jobs\": {\n \"1.pbs\": {\"euser\": \"bob\",, }}}",
    );
    let e = error(&["order", "--example", "--jobs"], &f);
    starts_at(&e, &f, "2:27");
    assert!(e.contains("1.pbs"), "{e}");
}

#[test]
fn toml_tree_errors_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "tree.toml",
        "version = 1\n[[accounts]]\nname = \"a\"\nshares = \"x\"\n",
    );
    let e = error(&["share", "-a", "classic", "--tree"], &f);
    starts_at(&e, &f, "4");
    let f = write(
        dir.path(),
        "usage.toml",
        "[[accounts]]\nname = \"a\"\n  [[accounts.users]]\n  name = \"u\"\n  usage = -3.0\n",
    );
    let e = error(&["share", "-a", "classic", "--tree"], &f);
    starts_at(&e, &f, "5");
    assert!(e.contains("negative"), "{e}");
}

#[test]
fn csv_job_list_errors_name_the_line_once() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "jobs.csv",
        "id,owner,queue\n1,bob,workq\n2,alice\n",
    );
    let e = error(&["order", "--example", "--jobs"], &f);
    starts_at(&e, &f, "3");
    assert!(!e.contains("CSV error") && !e.contains("byte"), "{e}");
    assert!(e.contains("2 cells, but the header has 3"), "{e}");
}

#[test]
fn scheduler_text_files_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "resource_group",
        "grp1 10 root 40\nbob 11 grp1 x\n",
    );
    let e = error(
        &["share", "-a", "pbs", "--tree-format", "pbs", "--tree"],
        &f,
    );
    starts_at(&e, &f, "2");
    let f = write(
        dir.path(),
        "sshare.txt",
        "Account|User|RawShares|NormShares|RawUsage\nroot||1|1|0\n a|b|zz|0.5|3\n",
    );
    let e = error(&["share", "-a", "classic", "--tree"], &f);
    starts_at(&e, &f, "3");
}

#[test]
fn accounting_log_records_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    fairsort()
        .args(["init", "--home"])
        .arg(&home)
        .assert()
        .success();
    let log = write(
        dir.path(),
        "20240413",
        "04/13/2024 10:00:00;E;2.pbs;user=bob group=g resources_used.cput=00:10:00 end=1713002400\n04/13/2024 10:00:00;E;1.pbs;user=bob group=g resources_used.cput=garbage\n",
    );
    let out = fairsort()
        .arg("--home")
        .arg(&home)
        .args(["usage", "record", "--strict"])
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(
        e.contains(&format!("{}:2: bad value `garbage`", log.display())),
        "{e}"
    );
}

#[test]
fn an_unclosed_parenthesis_is_pointed_at() {
    let out = fairsort().args(["check", "(1+2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(e.contains("this `(` is never closed"), "{e}");
    assert!(e.contains("at line 1, column 1"), "{e}");
    // The caret sits under the `(`, the first character of the formula's line.
    let lines: Vec<&str> = e.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == "(1+2")
        .expect("the formula");
    let caret = lines[at + 1];
    assert_eq!(caret.find('^'), lines[at].find('('), "{e}");
    // A later one: the caret moves with it.
    let out = fairsort().args(["check", "1 + (2 * (3"]).output().unwrap();
    let e = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = e.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == "1 + (2 * (3")
        .unwrap();
    let col = lines[at + 1].find('^').unwrap();
    assert_eq!(&lines[at][col..col + 1], "(", "{e}");
}
