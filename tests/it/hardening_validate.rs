//! Hand-edited home files are validated (file:line:col) and never rewritten, every
//! setting has a range checked on set, decay over any span is instant, usage stays finite and
//! non-negative through every ingest path, and impossible dates and names are refused.

use std::path::Path;
use std::time::Duration;

use predicates::prelude::*;

use crate::common::{fairsort_home, qmgr, write};

fn new_home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    qmgr(dir.path(), "create queue workq Priority = 10").success();
    dir
}

/// Runs `args` on `home`, expects exit 1 and `want` in stderr, and checks `file` is unchanged.
fn refused_and_untouched(home: &Path, file: &str, args: &[&str], want: &str) {
    let path = home.join(file);
    let before = std::fs::read(&path).unwrap();
    let out = fairsort_home(home).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(
        stderr.contains(want),
        "{args:?}: wanted {want:?} in {stderr}"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "{file} must be left byte for byte ({args:?})"
    );
}

#[test]
fn hand_edited_server_toml_with_a_bad_value_fails_with_position_and_is_not_rewritten() {
    let dir = new_home();
    let h = dir.path();
    let path = h.join("server.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replace("priority = 10", "priority = 5000");
    assert_ne!(text, edited);
    std::fs::write(&path, &edited).unwrap();
    let line = edited
        .lines()
        .position(|l| l.starts_with("priority = 5000"))
        .unwrap()
        + 1;
    let want = format!(
        "{}:{line}:12: Priority: 5000 is not an integer from -1024 to 1023",
        path.display()
    );
    for args in [
        &["qmgr", "-c", "set server job_sort_formula = ncpus"][..],
        &["qmgr", "-c", "create queue other"],
        &["usage", "set", "alice", "5"],
        &["qmgr", "-c", "print server"],
    ] {
        refused_and_untouched(h, "server.toml", args, &want);
    }
}

#[test]
fn empty_manager_list_and_bad_formula_in_server_toml_are_refused() {
    let dir = new_home();
    let h = dir.path();
    let path = h.join("server.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("managers = [").unwrap();
    let end = start + text[start..].find(']').unwrap() + 1;
    let mut edited = text.clone();
    edited.replace_range(start..end, "managers = []");
    std::fs::write(&path, &edited).unwrap();
    refused_and_untouched(
        h,
        "server.toml",
        &["qmgr", "-c", "set queue workq Priority = 3"],
        "managers: the list is empty",
    );
    let edited = text.replace(
        "[server]\n",
        "[server]\njob_sort_formula = \"ncpus * nosuch\"\n",
    );
    std::fs::write(&path, &edited).unwrap();
    refused_and_untouched(
        h,
        "server.toml",
        &["qmgr", "-c", "set queue workq Priority = 3"],
        &format!(
            "{}:5:20: job_sort_formula: Formula contains invalid keyword (15124)",
            path.display()
        ),
    );
    // and qmgr cannot empty the list either
    std::fs::write(&path, &text).unwrap();
    qmgr(h, "unset server managers")
        .code(166)
        .stderr(predicate::str::contains("managers: the list is empty"));
}

#[test]
fn hand_edited_usage_toml_is_validated_and_not_rewritten() {
    let dir = new_home();
    let h = dir.path();
    fairsort_home(h)
        .args(["usage", "set", "alice", "5"])
        .assert()
        .success();
    let path = h.join("usage.toml");
    let good = std::fs::read_to_string(&path).unwrap();
    let entity_line =
        |text: &str, needle: &str| text.lines().position(|l| l == needle).unwrap() + 1;
    // a duplicate entity: today it is merged (one of the two lost) on the next write
    let dup = format!("{good}\n[[entity]]\nname = \"alice\"\nusage = 7.0\n");
    std::fs::write(&path, &dup).unwrap();
    let second_name = dup.rfind("name = \"alice\"").unwrap();
    let line = dup[..second_name].lines().count() + 1;
    refused_and_untouched(
        h,
        "usage.toml",
        &["usage", "set", "bob", "1"],
        &format!("{}:{line}:8: entity alice appears twice", path.display()),
    );
    // an unknown key: today dropped on the next write
    let unknown = good.replace("usage = 5.0", "usage = 5.0\nnote = \"keep me\"");
    std::fs::write(&path, &unknown).unwrap();
    let line = entity_line(&unknown, "note = \"keep me\"");
    refused_and_untouched(
        h,
        "usage.toml",
        &["usage", "decay", "--at", "2030-01-01"],
        &format!("{}:{line}:1: unknown field `note`", path.display()),
    );
    // negative, NaN and infinite usage
    for bad in ["-5.0", "nan", "inf", "-inf"] {
        let text = good.replace("usage = 5.0", &format!("usage = {bad}"));
        std::fs::write(&path, &text).unwrap();
        let line = entity_line(&text, &format!("usage = {bad}"));
        refused_and_untouched(
            h,
            "usage.toml",
            &["usage", "set", "bob", "1"],
            &format!(
                "{}:{line}:9: usage must be a finite number >= 0",
                path.display()
            ),
        );
    }
    // a setting out of range
    let text = good.replace("calc_period = 300", "calc_period = -1");
    std::fs::write(&path, &text).unwrap();
    let line = entity_line(&text, "calc_period = -1");
    refused_and_untouched(
        h,
        "usage.toml",
        &["usage", "reset"],
        &format!(
            "{}:{line}:15: calc_period must be from 1 to 3153600000 seconds (100 years), got -1",
            path.display()
        ),
    );
}

#[test]
fn out_of_range_decay_settings_are_refused_without_a_panic() {
    let dir = new_home();
    let h = dir.path();
    fairsort_home(h)
        .args(["usage", "set", "bank/alice", "5"])
        .assert()
        .success();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--model", "flux", "--usage-reset-period", "9223372036854775807"],
            "usage_reset_period must be from 0 to 3153600000 seconds (100 years), got 9223372036854775807",
        ),
        (
            &["--model", "flux", "--half-life", "1"],
            "gives 2419200 bins; at most 1024",
        ),
        (
            &["--model", "slurm", "--calc-period", "153722867280912930"],
            "calc_period must be from 1 to 3153600000 seconds",
        ),
        (
            &["--model", "half-life", "--half-life=-3"],
            "half_life must be from 0 to 3153600000 seconds (100 years), got -3",
        ),
        (&["--decay-factor", "1.5"], "Valid values are between 0 and 1."),
        (&["--decay-factor", "NaN"], "Valid values are between 0 and 1."),
    ];
    for (flags, want) in cases {
        for verb in ["decay", "reset"] {
            let mut args = vec!["usage", verb];
            args.extend_from_slice(flags);
            refused_and_untouched(h, "usage.toml", &args, want);
        }
    }
    // the store still records (no capacity overflow) with the most bins allowed
    fairsort_home(h)
        .args([
            "usage",
            "decay",
            "--model",
            "flux",
            "--half-life",
            "1",
            "--usage-reset-period",
            "1024",
        ])
        .assert()
        .success();
    fairsort_home(h)
        .args(["usage", "set", "bank/bob", "3"])
        .assert()
        .success();
    // times out of range are usage errors, not overflows
    for at in ["-1", "9223372036854775807", "10000-01-01", "2024-02-30"] {
        fairsort_home(h)
            .args(["usage", "decay", &format!("--at={at}")])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("bad time"));
    }
}

#[test]
fn decay_to_a_far_future_time_is_immediate() {
    // One-second periods and a factor this close to 1: the per-period loop needed billions of
    // steps (minutes, under the home's lock) before usage reached the floor.
    let dir = new_home();
    let h = dir.path();
    fairsort_home(h)
        .args(["usage", "set", "alice", "1e300"])
        .assert()
        .success();
    fairsort_home(h)
        .args(["usage", "decay", "--at", "2000-01-01"])
        .assert()
        .success();
    fairsort_home(h)
        .args([
            "usage",
            "decay",
            "--at",
            "9999-12-31",
            "--decay-factor",
            "0.9999999",
            "--decay-time",
            "00:00:01",
            "--json",
        ])
        .timeout(Duration::from_secs(120))
        .assert()
        .success()
        .stdout(predicate::str::contains("\"periods\": 252455529599"))
        .stdout(predicate::str::contains("\"factor\": 0.0"));
    let text = std::fs::read_to_string(h.join("usage.toml")).unwrap();
    assert!(
        text.contains("name = \"alice\"\nusage = 1.0\n"),
        "decayed to the floor 1: {text}"
    );
}

#[test]
fn ingest_rejects_negative_non_finite_and_overflowing_values_with_file_and_line() {
    let dir = new_home();
    let h = dir.path();
    let logs = tempfile::tempdir().unwrap();
    let e308 = format!("1{}", "0".repeat(308));
    let e400 = format!("1{}", "0".repeat(400));
    let log = write(
        logs.path(),
        "20240413",
        &format!(
            "04/13/2024 10:00:00;E;1.pbs;user=amy group=g resources_used.cput=-00:10:00\n\
             04/13/2024 10:00:00;E;2.pbs;user=amy group=g resources_used.cput={e400}\n\
             04/13/2024 10:00:00;E;3.pbs;user=amy group=g resources_used.cput=nan\n\
             02/30/2024 10:00:00;E;4.pbs;user=amy group=g resources_used.cput=10\n\
             04/13/2024 10:00:00;E;5.pbs;user=a\x07my group=g resources_used.cput=10\n\
             04/13/2024 10:00:00;E;6.pbs;user=amy group=g resources_used.cput=3155760000\n\
             04/13/2024 10:00:00;E;7.pbs;user=amy group=g resources_used.cput={e308}\n\
             04/13/2024 10:00:00;E;8.pbs;user=amy group=g resources_used.cput=10\n"
        ),
    );
    let out = fairsort_home(h)
        .args(["usage", "record", "--format", "pbs"])
        .arg(&log)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let at = |n: u32| format!("{}:{n}: ", log.display());
    for (n, what) in [
        (1, "bad value `-00:10:00` for resources_used.cput"),
        (2, "bad value `1000"),
        (3, "bad value `nan`"),
        (4, "bad record date `02/30/2024 10:00:00`"),
        (
            5,
            "entity: name \"a\\u{7}my\" contains the control character",
        ),
        // no real job used more than a hundred years of CPU time (the store's own overflow
        // refusal is tested beside it)
        (7, "bad value `1000"),
    ] {
        assert!(
            stderr.contains(&format!("{}{what}", at(n))),
            "line {n}: {what}: {stderr}"
        );
    }
    assert!(
        !stderr.contains(&at(6)) && !stderr.contains(&at(8)),
        "{stderr}"
    );
    // the store is still one a later command reads
    fairsort_home(h)
        .args(["usage", "show", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"name\": \"amy\""));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("charged 2 job(s)"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let sacct = write(
        logs.path(),
        "sacct.txt",
        "JobID|User|Account|Start|End|AllocCPUS|State\n\
         1|amy|a|2024-04-13T10:00:00|2024-04-13T09:00:00|2|COMPLETED\n\
         2|amy|a|2024-04-13T10:00:00|2024-02-30T11:00:00|2|COMPLETED\n\
         3|amy|a|2024-04-13T10:00:00|2024-04-13T11:00:00|-2|COMPLETED\n\
         4|amy|a|2024-04-13T10:00:00|2024-04-13T11:00:00|inf|COMPLETED\n\
         5|amy|a|2024-04-13T10:00:00|2024-04-13T11:00:00|2|COMPLETED\n",
    );
    let out = fairsort_home(h)
        .args(["usage", "record", "--format", "slurm"])
        .arg(&sacct)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    for (n, what) in [
        (
            2,
            "End `2024-04-13T09:00:00` is before Start `2024-04-13T10:00:00`",
        ),
        (3, "bad End `2024-02-30T11:00:00`"),
        (4, "billable TRES -2 is not a finite number >= 0"),
        (5, "billable TRES inf is not a finite number >= 0"),
    ] {
        let want = format!("{}:{n}: {what}", sacct.display());
        assert!(stderr.contains(&want), "{want}: {stderr}");
    }
    assert!(String::from_utf8_lossy(&out.stdout).contains("charged 1 job(s), total 7200"));
}

#[test]
fn usage_set_refuses_bad_values_and_names() {
    let dir = new_home();
    let h = dir.path();
    for (entity, value, want) in [
        ("alice", "-1", "usage must be a finite number >= 0, got -1"),
        (
            "alice",
            "NaN",
            "usage must be a finite number >= 0, got NaN",
        ),
        (
            "alice",
            "inf",
            "usage must be a finite number >= 0, got inf",
        ),
        (
            "alice",
            "1e999",
            "usage must be a finite number >= 0, got inf",
        ),
        ("al\nice", "1", "control character"),
        ("bank/al\x1bice", "1", "control character"),
    ] {
        fairsort_home(h)
            .args(["usage", "set", entity, value])
            .assert()
            .code(1)
            .stderr(predicate::str::contains(want));
    }
    assert!(!h.join("usage.toml").exists());
}

#[test]
fn values_with_newlines_and_quotes_round_trip_through_print_as_one_command() {
    let a = new_home();
    let formula = "(ncpus\n+ walltime)";
    let tests = "it's \"odd\".toml";
    qmgr(
        a.path(),
        "set server job_sort_formula = \"(ncpus\n+ walltime)\"",
    )
    .success();
    qmgr(
        a.path(),
        "set server job_sort_formula_tests = \"it's \"'\"odd\".toml'",
    )
    .success();
    qmgr(a.path(), "set sched fairshare_usage_res = \"ncpus >= 2\"").success();
    let printed = fairsort_home(a.path())
        .args(["qmgr", "-c", "print server"])
        .output()
        .unwrap();
    assert!(printed.status.success());
    let printed = String::from_utf8(printed.stdout).unwrap();
    assert!(
        printed.contains("set server job_sort_formula = \"(ncpus\n+ walltime)\"\n"),
        "{printed}"
    );
    let sched = fairsort_home(a.path())
        .args(["qmgr", "-c", "print sched"])
        .output()
        .unwrap();
    let sched = String::from_utf8(sched.stdout).unwrap();
    assert!(
        sched.contains("fairshare_usage_res = \"ncpus >= 2\"\n"),
        "{sched}"
    );

    // replay both into a fresh home: every value arrives whole, nothing else is run
    let b = tempfile::tempdir().unwrap();
    fairsort_home(b.path())
        .arg("qmgr")
        .write_stdin(format!("{printed}{sched}"))
        .assert()
        .success()
        .stderr("");
    let state = fairsort::home::Home::open(Some(b.path()))
        .unwrap()
        .load()
        .unwrap();
    assert_eq!(state.server.job_sort_formula.as_deref(), Some(formula));
    assert_eq!(state.server.job_sort_formula_tests.as_deref(), Some(tests));
    assert_eq!(state.sched.fairshare_usage_res, "ncpus >= 2");
    let again = fairsort_home(b.path())
        .args(["qmgr", "-c", "print server"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(again.stdout).unwrap(), printed);

    // the audit log keeps one record per change, the newline escaped
    let audit = std::fs::read_to_string(a.path().join("audit.log")).unwrap();
    let records: Vec<&str> = audit.lines().collect();
    assert_eq!(records.len(), 5, "{audit}");
    assert!(
        records[2].ends_with("\tset server job_sort_formula = \"(ncpus\\n+ walltime)\""),
        "{audit}"
    );
    fairsort_home(a.path())
        .args(["usage", "set", "bank/it's a user", "5"])
        .assert()
        .success();
    let audit = std::fs::read_to_string(a.path().join("audit.log")).unwrap();
    assert!(
        // the shell quoting's backslash is itself escaped in the log
        audit
            .trim_end()
            .ends_with("usage set 'bank/it'\\\\''s a user' 5"),
        "{audit}"
    );
}

#[test]
fn control_characters_in_text_attributes_are_refused() {
    let dir = new_home();
    qmgr(dir.path(), "set server job_sort_formula_tests = \"a\x1bb\"")
        .code(166)
        .stderr(predicate::str::contains("control character"));
    qmgr(dir.path(), "set server job_sort_formula = \"ncpus\x07\"").code(19);
}

#[test]
fn eval_file_reads_at_most_its_limit() {
    // an endless input: read whole, it never ends (or exhausts memory)
    crate::common::fairsort()
        .args(["eval", "--file", "/dev/zero"])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "/dev/zero: longer than 65579 bytes; a formula is at most 65536 bytes",
        ));
    let dir = tempfile::tempdir().unwrap();
    let big = write(dir.path(), "f", &"1+".repeat(40_000));
    crate::common::fairsort()
        .args(["eval", "--file"])
        .arg(&big)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("longer than 65579 bytes"));
    crate::common::fairsort()
        .args(["eval", "--file", "-"])
        .write_stdin("### PBS INTERNAL FILE DO NOT MODIFY ###\n2*3\n")
        .assert()
        .success()
        .stdout("6\n");
}
