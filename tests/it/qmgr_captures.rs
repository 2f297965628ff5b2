//! Real OpenPBS 23.06 `qmgr -c 'print server'` and `qmgr -c 'print sched'` output
//! (`tests/data/pbs_cycles/*/print_{server,sched}.txt`) piped into `fairsort qmgr`, as an admin
//! loads a site's settings: every capture loads with exit status 0, with only the errors real
//! qmgr gives for it, and `print` afterwards holds every captured `set` request.

use crate::common::{data, fairsort_home};
use fairsort::qmgr::{parse, Command};
use std::collections::BTreeSet;
use std::path::Path;

/// Captures whose server `job_sort_formula` is outside fairsort's formula language (refused
/// with 15123, as `qmgr_pbs_verdicts` lists): every other line of them still loads.
const FORMULA_OUTSIDE_FAIRSORT: &[&str] = &["crash_none", "formula_dquote", "formula_dquote_after"];

/// One parsed `set` request: object, names, attribute, operator and value.
type SetLine = (String, Vec<String>, String, String, String);

/// The `set` requests of a `print` output, parsed by fairsort's own qmgr parser (so quoting
/// differences that read back the same do not count).
fn set_lines(text: &str) -> Vec<SetLine> {
    let mut out = Vec::new();
    for req in fairsort::qmgr::script_requests(text) {
        let Ok(Some(Command {
            verb,
            object: Some(object),
            names,
            attrs,
        })) = parse(&req)
        else {
            continue;
        };
        if format!("{verb:?}") != "Set" {
            continue;
        }
        for a in attrs {
            let (op, v) = a.value.clone().unwrap_or_else(|| panic!("{req}: no value"));
            out.push((
                format!("{object:?}"),
                names.clone(),
                a.name.clone(),
                format!("{op:?}"),
                v,
            ));
        }
    }
    out
}

fn captures() -> Vec<String> {
    let mut dirs: Vec<String> = std::fs::read_dir(data("pbs_cycles"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("print_server.txt").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    dirs
}

fn load(home: &Path, file: &Path) -> std::process::Output {
    fairsort_home(home)
        .arg("qmgr")
        .pipe_stdin(file)
        .unwrap()
        .output()
        .unwrap()
}

fn print(home: &Path, what: &str) -> String {
    let out = fairsort_home(home)
        .args(["qmgr", "-c", &format!("print {what}")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The PBS error lines (`qmgr: Error (N) returned from server`) of a run's standard error.
fn errors(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| l.starts_with("qmgr: Error ("))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_captured_print_server_and_print_sched_loads_and_prints_back() {
    let names = captures();
    assert!(names.len() >= 40, "{names:?}");
    for name in &names {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("h");
        let server_file = data(&format!("pbs_cycles/{name}/print_server.txt"));
        let sched_file = data(&format!("pbs_cycles/{name}/print_sched.txt"));

        let out = load(&home, &server_file);
        assert_eq!(out.status.code(), Some(0), "{name}: {out:?}");
        let outside = FORMULA_OUTSIDE_FAIRSORT.contains(&name.as_str());
        let want: Vec<String> = if outside {
            vec!["qmgr: Error (15123) returned from server".to_string()]
        } else {
            vec![]
        };
        assert_eq!(errors(&out.stderr), want, "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        let note = err.lines().last().unwrap_or("");
        assert!(
            note.starts_with("note: kept 20 server attributes fairsort does not model: scheduling, default_queue, "),
            "{name}: {err}"
        );

        let sched_text = std::fs::read_to_string(&sched_file).unwrap();
        let out = load(&home, &sched_file);
        assert_eq!(out.status.code(), Some(0), "{name}: {out:?}");
        // real qmgr: the default scheduler exists (15211), and `state` is read-only (15003),
        // though `print sched` writes it (qmgr's `is_attr` finds the node attribute `state`)
        let mut want = vec!["qmgr: Error (15211) returned from server".to_string()];
        if sched_text.contains("\nset sched state = ") {
            want.push("qmgr: Error (15003) returned from server".to_string());
        }
        assert_eq!(errors(&out.stderr), want, "{name}");

        let server_text = std::fs::read_to_string(&server_file).unwrap();
        let printed: BTreeSet<SetLine> = set_lines(&print(&home, "server")).into_iter().collect();
        let captured = set_lines(&server_text);
        assert!(captured.len() >= 20, "{name}: {captured:?}");
        for line in &captured {
            if outside && line.2 == "job_sort_formula" {
                continue;
            }
            assert!(
                printed.contains(line),
                "{name}: {line:?} not in print server"
            );
        }
        let printed: BTreeSet<SetLine> = set_lines(&print(&home, "sched")).into_iter().collect();
        let captured = set_lines(&sched_text);
        assert!(captured.len() >= 10, "{name}: {captured:?}");
        for line in captured.iter().filter(|l| l.2 != "state") {
            assert!(
                printed.contains(line),
                "{name}: {line:?} not in print sched"
            );
        }
        assert!(!printed.iter().any(|l| l.2 == "state"), "{name}");
    }
}

#[test]
fn a_loaded_capture_prints_in_pbs_order_and_lists_and_unsets() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h");
    let out = load(&home, &data("pbs_cycles/by_queue_default/print_server.txt"));
    assert!(out.status.success(), "{out:?}");
    let text = print(&home, "server");
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("set server "))
        .filter(|l| !l.contains(" job_sort_formula ") && !l.contains(" managers "))
        .collect();
    let file =
        std::fs::read_to_string(data("pbs_cycles/by_queue_default/print_server.txt")).unwrap();
    let captured: Vec<&str> = file
        .lines()
        .filter(|l| l.starts_with("set server ") && !l.contains(" job_sort_formula "))
        .collect();
    assert_eq!(
        kept, captured,
        "kept attributes print in PBS's order, as PBS wrote them"
    );

    let list = fairsort_home(&home)
        .args(["qmgr", "-c", "list server resources_default"])
        .output()
        .unwrap();
    assert!(list.status.success(), "{list:?}");
    let list = String::from_utf8(list.stdout).unwrap();
    assert!(
        list.ends_with("\n    resources_default.ncpus = 1\n"),
        "{list}"
    );
    assert_eq!(list.lines().count(), 2, "{list}");

    let unset = fairsort_home(&home)
        .args(["qmgr", "-c", "unset server scheduling, resources_default"])
        .output()
        .unwrap();
    assert!(unset.status.success(), "{unset:?}");
    assert!(unset.stderr.is_empty(), "unset keeps nothing: {unset:?}");
    let text = print(&home, "server");
    assert!(!text.contains("scheduling"), "{text}");
    assert!(!text.contains("resources_default"), "{text}");
    assert!(
        text.contains("set server default_queue = workq\n"),
        "{text}"
    );
}

#[test]
fn read_only_unknown_and_badly_typed_attributes_are_refused_as_pbs_does() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h");
    let run = |req: &str| {
        fairsort_home(&home)
            .args(["qmgr", "-c", req])
            .output()
            .unwrap()
    };
    let cases: &[(&str, i32, &str)] = &[
        (
            "set server pbs_version = 1",
            155,
            "qmgr obj= svr=default: Cannot set attribute, read only or insufficient permission  pbs_version\nqmgr: Error (15003) returned from server\n",
        ),
        (
            "unset server total_jobs",
            155,
            "qmgr obj= svr=default: Cannot set attribute, read only or insufficient permission  total_jobs\nqmgr: Error (15003) returned from server\n",
        ),
        (
            "set sched state = idle",
            155,
            "qmgr obj= svr=default: Cannot set attribute, read only or insufficient permission  state\nqmgr: Error (15003) returned from server\n",
        ),
        (
            "create sched default",
            107,
            "qmgr obj=default svr=default: Scheduler already exists\nqmgr: Error (15211) returned from server\n",
        ),
        (
            "set server scheduling = 3",
            166,
            "qmgr obj= svr=default: Illegal attribute or resource value\nqmgr: Error (15014) returned from server\n",
        ),
        (
            "set server resources_default.nosuchres = 1",
            187,
            "qmgr obj= svr=default: Unknown resource resources_default.nosuchres\nqmgr: Error (15035) returned from server\n",
        ),
    ];
    for (req, status, stderr) in cases {
        let out = run(req);
        assert_eq!(out.status.code(), Some(*status), "{req}: {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), *stderr, "{req}");
    }
    // a name PBS does not have for the object stays 15002, with fairsort's caret
    let out = run("set queue nosuch enabled = True");
    assert_eq!(
        out.status.code(),
        Some(170),
        "15018, unknown queue: {out:?}"
    );
    let out = run("create queue workq");
    assert!(out.status.success(), "{out:?}");
    let out = run("set queue workq scheduling = True");
    assert_eq!(out.status.code(), Some(154), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("qmgr obj=workq svr=default: Undefined attribute \nqmgr: Error (15002) returned from server\nset queue workq scheduling = True\n"),
        "{err}"
    );
    let st = std::fs::read_to_string(home.join("server.toml")).unwrap();
    assert!(!st.contains("other"), "nothing was kept: {st}");
}
