//! `contrib/systemd`: the units that run fairsort as a service. `systemd-analyze verify` accepts
//! every unit and timer, and each service's command lines run as systemd would run them (its
//! `${VAR}`s from an environment file like `fairsort.env`, `%t` the runtime directory), on a
//! real PBS site's files (`tests/data/pbs_forecast`, `tests/data/usage/pbs_logs`): they succeed,
//! write what they say, and log one line each (notes about the input aside).

use crate::common::{bin, data, import_pbs_capture};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn contrib() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/systemd")
}

/// The unit files of `contrib/systemd`, by name.
fn units(ext: &str) -> BTreeMap<String, String> {
    std::fs::read_dir(contrib())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The installed paths of the units, made this checkout's (the binary cargo built, the script
/// beside the units).
fn localised(text: &str) -> String {
    text.replace("/usr/local/bin/fairsort", &bin().display().to_string())
        .replace(
            "/usr/local/libexec/fairsort-snapshot",
            &contrib().join("fairsort-snapshot").display().to_string(),
        )
}

/// A required tool that is missing: under CI (`.ci/run` installs it) the test fails; elsewhere
/// it says loudly that it was skipped.
fn missing(tool: &str) -> bool {
    if Command::new(tool).arg("--version").output().is_ok() {
        return false;
    }
    let message = format!("{tool} is not available; the systemd units were not verified");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{message} (CI=true: {tool} is required)");
    }
    eprintln!("SKIPPED: {message}");
    true
}

#[test]
fn every_service_has_its_timer_and_every_timer_its_service() {
    let services: Vec<String> = units("service")
        .keys()
        .map(|n| n.trim_end_matches(".service").to_string())
        .collect();
    let timers: Vec<String> = units("timer")
        .keys()
        .map(|n| n.trim_end_matches(".timer").to_string())
        .collect();
    assert_eq!(
        services,
        [
            "fairsort-metrics",
            "fairsort-report",
            "fairsort-usage-record"
        ]
    );
    assert_eq!(services, timers);
}

#[test]
fn systemd_analyze_verify_accepts_every_unit() {
    if missing("systemd-analyze") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (name, text) in units("service").into_iter().chain(units("timer")) {
        let p = tmp.path().join(&name);
        std::fs::write(&p, localised(&text)).unwrap();
        paths.push(p);
    }
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .args(&paths)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "systemd-analyze verify: {stderr}");
    // An unknown key or a bad value is only a warning to systemd: none is allowed.
    assert!(stderr.trim().is_empty(), "systemd-analyze verify: {stderr}");
}

#[test]
fn a_unit_that_systemd_refuses_fails_the_check() {
    if missing("systemd-analyze") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let timer = units("timer")["fairsort-metrics.timer"].replace("minutely", "every minute");
    let p = tmp.path().join("fairsort-metrics.timer");
    std::fs::write(&p, timer).unwrap();
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&p)
        .output()
        .unwrap();
    assert!(!out.status.success() || !out.stderr.is_empty());
}

/// `KEY=VALUE` lines of an environment file (comments and blank lines aside).
fn environment(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A unit's `KEY=` lines of its `[Service]` section, in order.
fn directives<'a>(unit: &'a str, key: &str) -> Vec<&'a str> {
    let prefix = format!("{key}=");
    unit.lines()
        .filter_map(|l| l.strip_prefix(prefix.as_str()))
        .collect()
}

/// A command line as systemd splits and expands it: words on blanks, `${VAR}` one word from the
/// environment, `%t` the runtime directory.
fn command_line(line: &str, env: &BTreeMap<String, String>, runtime: &Path) -> Vec<String> {
    line.split_whitespace()
        .map(|w| {
            let mut w = w.replace("%t", &runtime.display().to_string());
            for (k, v) in env {
                w = w.replace(&format!("${{{k}}}"), v);
            }
            assert!(!w.contains("${"), "unknown variable in `{w}`");
            w
        })
        .collect()
}

#[test]
fn the_environment_file_sets_every_variable_the_units_use() {
    let env = environment(&std::fs::read_to_string(contrib().join("fairsort.env")).unwrap());
    for (name, text) in units("service") {
        for line in directives(&text, "ExecStart")
            .into_iter()
            .chain(directives(&text, "ExecStartPre"))
        {
            for var in line.split("${").skip(1) {
                let var = var.split('}').next().unwrap();
                assert!(
                    env.contains_key(var),
                    "{name}: ${{{var}}} is not in fairsort.env"
                );
            }
        }
    }
}

#[test]
fn each_services_command_lines_run_on_a_real_pbs_site() {
    let tmp = tempfile::tempdir().unwrap();
    let capture = data("pbs_forecast/depth1");
    let home = tmp.path().join("home");
    import_pbs_capture(&capture, &home);
    let runtime = tmp.path().join("run");
    let textfiles = tmp.path().join("textfile");
    let reports = tmp.path().join("report");
    std::fs::create_dir_all(&textfiles).unwrap();
    std::fs::create_dir_all(&reports).unwrap();
    let mut env = environment(&std::fs::read_to_string(contrib().join("fairsort.env")).unwrap());
    for (k, v) in [
        ("FAIRSORT_HOME", home.clone()),
        ("FAIRSORT_USAGE_FROM", data("usage/pbs_logs")),
        ("FAIRSORT_TEXTFILE_DIR", textfiles.clone()),
        ("FAIRSORT_REPORT_DIR", reports.clone()),
    ] {
        env.insert(k.to_string(), v.display().to_string());
    }
    assert_eq!(env["FAIRSORT_SCHEDULER"], "pbs");
    for (name, text) in units("service") {
        let dir = runtime.join(directives(&text, "RuntimeDirectory")[0]);
        std::fs::create_dir_all(&dir).unwrap();
        // What `fairsort-snapshot pbs queue DIR` leaves there, from the real PBS's own output
        // (the test machine has no PBS to run qstat and pbsnodes).
        std::fs::copy(capture.join("before/qstat.json"), dir.join("jobs.json")).unwrap();
        std::fs::copy(capture.join("before/pbsnodes.json"), dir.join("nodes.json")).unwrap();
        for pre in directives(&text, "ExecStartPre") {
            let words = command_line(pre, &env, &runtime);
            assert!(words[0].ends_with("fairsort-snapshot"), "{name}: {pre}");
            assert_eq!(words[1], "pbs");
            assert_eq!(
                Path::new(&words[3]),
                dir,
                "{name}: the snapshot goes elsewhere"
            );
        }
        let lines = directives(&text, "ExecStart");
        assert!(!lines.is_empty(), "{name} runs nothing");
        for line in lines {
            let words = command_line(&localised(line), &env, &runtime);
            let out = Command::new(&words[0])
                .args(&words[1..])
                .env_remove("FAIRSORT_HOME")
                .env("TZ", "UTC")
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success(),
                "{name}: `{line}` failed: {stderr}{stdout}"
            );
            // One line says what the run did; notes about the input (here: the logs' users
            // who are not in the capture's tree) may follow it.
            let logged: Vec<&str> = stdout
                .lines()
                .chain(stderr.lines())
                .filter(|l| !l.starts_with("note: "))
                .collect();
            assert_eq!(logged.len(), 1, "{name}: `{line}` logs {logged:?}");
        }
    }
    let prom = std::fs::read_to_string(textfiles.join("fairsort.prom")).unwrap();
    assert!(prom.contains("# TYPE fairsort_"), "{prom}");
    let html = std::fs::read_to_string(reports.join("report.html")).unwrap();
    assert!(html.contains("</html>"));
    // Every file the units write was renamed into place: no temporary is left beside it.
    for d in [&textfiles, &reports] {
        let names: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
    // The usage was charged into the home.
    let out = Command::new(bin())
        .arg("--home")
        .arg(&home)
        .args(["usage", "show", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stdout).contains("\"entries\": []"));
}

#[test]
fn the_snapshot_script_refuses_what_it_does_not_know() {
    for args in [
        &["pbs"][..],
        &["lsf", "queue", "/nonexistent"][..],
        &["pbs", "jobs", "/nonexistent"][..],
    ] {
        let out = Command::new(contrib().join("fairsort-snapshot"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("fairsort-snapshot"));
    }
}
