//! A newcomer's first hour: a fresh HOME, the README's commands in order, every
//! command piped into a reader that closes early, the missing-home rule, PBS units on the
//! command line, shell completion and man pages, pictures, dates in local time or UTC, and
//! the error cases a newcomer hits.

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
        &["usage", "show", "--utc"],
        &["usage", "show", "--epoch"],
        &["audit"],
        &["audit", "--json"],
        &["plot", "factors", "--example", "-o", "-"],
        &["plot", "tree", "--example", "-o", "-"],
        &[
            "plot",
            "against",
            "--example",
            "--against",
            "fairshare_perc",
            "-o",
            "-",
        ],
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
        err.contains("set server job_sort_formla = 1\n                           ^\ndid you mean `job_sort_formula`?"),
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

#[test]
fn pictures_are_svg_files_a_browser_opens() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    // The README's command, writing where the newcomer asked.
    let file = h.join("factors.svg");
    let out = ok(
        h,
        &[
            "plot",
            "factors",
            "--example",
            "--user",
            "bob",
            "-o",
            file.to_str().unwrap(),
        ],
    );
    assert!(out.is_empty(), "{out}");
    let svg = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
    assert!(svg.starts_with("<svg "), "{}", &svg[..svg.len().min(80)]);
    assert!(svg.contains("<title>Fair-share factor of group1/bob against its usage</title>"));
    assert!(svg.trim_end().ends_with("</svg>"));
    for name in [
        "pbs",
        "classic",
        "fair-tree",
        "flux",
        "ticket",
        "depth-oblivious",
    ] {
        assert!(svg.contains(name), "{name}");
    }
    // What a newcomer gets wrong: a kind that does not exist, a forgotten -o, against without
    // the other formula.
    let (code, err) = fails(h, &["plot", "pie", "--example", "-o", "-"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("factors") && err.contains("tree") && err.contains("against"),
        "{err}"
    );
    let (code, _) = fails(h, &["plot", "tree", "--example"]);
    assert_eq!(code, 2);
    let (code, err) = fails(h, &["plot", "against", "--example", "-o", "-"]);
    assert_eq!(code, 2);
    assert!(err.contains("--against FORMULA"), "{err}");
    // No tree anywhere: said, with what to do.
    let (code, err) = fails(h, &["plot", "tree", "-o", "-"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no share tree") && err.contains("--example"),
        "{err}"
    );
}

#[test]
fn dates_print_in_local_time_utc_or_epoch_and_read_iso_8601() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    // UTC+2 as a POSIX TZ string: no zone database needed.
    let at = |tz: &str, args: &[&str]| {
        let out = cmd(h, args)
            .env("TZ", tz)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    ok(h, &["init"]);
    ok(h, &["usage", "set", "pbsuser3", "1000"]);
    // A time without a zone is local time: 12:00 at UTC+2 is 10:00 UTC.
    let out = at("XST-2", &["usage", "decay", "--at", "2024-04-13T12:00"]);
    assert!(out.contains("last_decay 2024-04-13 12:00:00 XST"), "{out}");
    let first = |s: String| s.lines().next().unwrap_or_default().to_string();
    assert_eq!(
        first(at("XST-2", &["usage", "show"])),
        "model pbs; last decay 2024-04-13 12:00:00 XST"
    );
    assert_eq!(
        first(at("XST-2", &["usage", "show", "--utc"])),
        "model pbs; last decay 2024-04-13 10:00:00 UTC"
    );
    assert_eq!(
        first(at("XST-2", &["usage", "show", "--epoch"])),
        "model pbs; last decay 1713002400"
    );
    // JSON carries epoch seconds whatever the zone.
    let json = at("XST-2", &["usage", "show", "--json"]);
    assert!(json.contains("1713002400"), "{json}");
    assert!(!json.contains("2024-04-13"), "{json}");
    // With a zone, the zone wins: 11:00 at +02:00 is 09:00 UTC, before the last decay (PBS
    // keeps last_decay on whole periods: still 10:00 UTC), and both times are shown as dates.
    let refused = cmd(
        h,
        &["usage", "decay", "--at", "2024-04-13T11:00+02:00", "--utc"],
    )
    .env("TZ", "UTC")
    .output()
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains(
            "--at 2024-04-13 09:00:00 UTC is before the last decay (2024-04-13 10:00:00 UTC)"
        ),
        "{err}"
    );
    // The same wall time without a zone, in UTC, is 11:00 UTC: after it.
    at("UTC", &["usage", "decay", "--at", "2024-04-13T11:00"]);
    // A day and a second later with `Z`: one PBS period (strictly more than one day), last_decay
    // a day on.
    let out = at(
        "XST-2",
        &["usage", "decay", "--at", "2024-04-14T10:00:01Z", "--epoch"],
    );
    assert!(out.contains("1 period(s)"), "{out}");
    assert!(out.contains("last_decay 1713088800"), "{out}");
    let (code, err) = fails(h, &["usage", "decay", "--at", "next tuesday"]);
    assert_eq!(code, 2);
    assert!(err.contains("ISO 8601"), "{err}");
    // --utc and --epoch are one choice.
    let (code, _) = fails(h, &["usage", "show", "--utc", "--epoch"]);
    assert_eq!(code, 2);
    // The audit log: every change, its time in local time, UTC or epoch seconds.
    let log = std::fs::read_to_string(h.join(".local/share/fairsort/audit.log"))
        .unwrap_or_else(|e| panic!("{e}"));
    let stored = log.lines().last().unwrap_or_default();
    let (utc, rest) = stored.split_once('\t').unwrap_or_default();
    let command = rest.split_once('\t').map(|(_, c)| c).unwrap_or_default();
    assert!(command.contains("usage decay"), "{stored}");
    let secs = utc
        .parse::<jiff::Timestamp>()
        .unwrap_or_else(|e| panic!("{utc}: {e}"))
        .as_second();
    let last = |tz: &str, args: &[&str]| {
        let out = at(tz, args);
        out.lines().last().unwrap_or_default().to_string()
    };
    let row = last("UTC", &["audit", "--utc", "--last", "1"]);
    let shown = jiff::Timestamp::from_second(secs)
        .unwrap_or_else(|e| panic!("{e}"))
        .strftime("%Y-%m-%d %H:%M:%S UTC")
        .to_string();
    assert!(row.starts_with(&shown) && row.ends_with(command), "{row}");
    let row = last("UTC", &["audit", "--epoch", "--last", "1"]);
    assert!(row.starts_with(&secs.to_string()), "{row}");
    let local = jiff::Timestamp::from_second(secs + 7200)
        .unwrap_or_else(|e| panic!("{e}"))
        .strftime("%Y-%m-%d %H:%M:%S XST")
        .to_string();
    let row = last("XST-2", &["audit", "--last", "1"]);
    assert!(row.starts_with(&local), "{row} vs {local}");
    let json = at("XST-2", &["audit", "--json", "--last", "1"]);
    assert!(json.contains(&format!("\"time\": {secs}")), "{json}");
}

#[test]
fn job_lists_take_iso_8601_submission_times() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    // Equal values: submission order decides. 08:00Z (cy, given at +02:00) < 09:00Z (amy) <
    // 10:05 without a zone (bob, read in the site's zone like qstat's dates: UTC here) < epoch 1767265200 (dee, 11:00Z).
    let jobs = crate::common::write(
        h,
        "jobs.csv",
        "id,user,queue,qtime,ncpus\n1,bob,workq,2026-01-01T10:05:00,4\n2,amy,workq,2026-01-01T09:00:00Z,2\n3,cy,workq,2026-01-01T10:00+02:00,1\n4,dee,workq,1767265200,1\n",
    );
    let out = ok(
        h,
        &[
            "order",
            "--jobs",
            jobs.to_str().unwrap(),
            "--formula",
            "1",
            "--csv",
        ],
    );
    let ids: Vec<&str> = out
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').nth(1))
        .collect();
    assert_eq!(ids, ["3", "2", "1", "4"], "{out}");
    let bad = crate::common::write(h, "bad.csv", "id,user,qtime\n1,bob,2026-02-30\n");
    let (code, err) = fails(
        h,
        &["order", "--jobs", bad.to_str().unwrap(), "--formula", "1"],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("bad.csv:2:7:") && err.contains("qtime"),
        "{err}"
    );
}
