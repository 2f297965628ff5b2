//! `fairsort qmgr` language through the real binary: quoting, abbreviations, case, scripts on
//! stdin, print/list layouts, and every client- and server-side message.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::Path;

use crate::common::{fairsort, fairsort_home};

fn qmgr(home: &Path) -> Command {
    let mut c = fairsort_home(home);
    c.arg("qmgr");
    c
}

fn ok(home: &Path, req: &str) -> String {
    let out = qmgr(home)
        .arg("-c")
        .arg(req)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// real qmgr's exit status for a failed request with this standard error: the server's error
/// number modulo 256 for a change (1 for a list or print), 4 for a syntax error, 2 for an object type
/// it does not take, else 1.
fn pbs_status(req: &str, stderr: &str) -> i32 {
    let verb = req.split_whitespace().next().unwrap_or("");
    if ["l", "list", "p", "print"].contains(&verb) && stderr.contains("returned from server") {
        return 1;
    }
    if let Some(n) = stderr
        .split("qmgr: Error (")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .and_then(|n| n.parse::<i32>().ok())
    {
        return n % 256;
    }
    if stderr.starts_with("qmgr: Syntax error") {
        4
    } else if stderr.starts_with("qmgr: Illegal object type")
        || stderr.starts_with("qmgr: fairsort does not manage")
    {
        2
    } else {
        1
    }
}

fn fails(home: &Path, req: &str, stderr: &str) {
    qmgr(home)
        .arg("-c")
        .arg(req)
        .assert()
        .code(pbs_status(req, stderr))
        .stdout("")
        .stderr(stderr.to_string());
}

#[test]
fn queues_with_abbreviations_case_and_print_layout() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    ok(h, "c q workq queue_type=e, Priority = 100,enabled=t");
    ok(h, "S Q workq STARTED = True");
    ok(h, "create queue express");
    ok(h, "set queue express priority=-5");
    assert_eq!(
        ok(h, "p q workq"),
        "#\n# Create queues and set their attributes.\n#\n#\n# Create and define queue workq\n#\n\
         create queue workq\nset queue workq queue_type = Execution\nset queue workq Priority = 100\n\
         set queue workq enabled = True\nset queue workq started = True\n"
    );
    assert_eq!(
        ok(h, "list queue"),
        "Queue express\n    Priority = -5\n\nQueue workq\n    queue_type = Execution\n    Priority = 100\n    enabled = True\n    started = True\n"
    );
    assert_eq!(
        ok(h, "l q workq Priority"),
        "Queue workq\n    Priority = 100\n"
    );
    ok(h, "unset queue workq Priority,enabled");
    assert_eq!(
        ok(h, "l q workq"),
        "Queue workq\n    queue_type = Execution\n    started = True\n"
    );
    ok(h, "delete queue express");
    fails(
        h,
        "l q express",
        "qmgr obj=express svr=default: Unknown queue\nqmgr: Error (15018) returned from server\n",
    );
}

#[test]
fn queue_and_resource_errors_use_pbs_codes() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    ok(h, "create queue workq");
    fails(h, "create queue workq", "qmgr obj=workq svr=default: Queue already exists\nqmgr: Error (15025) returned from server\n");
    fails(
        h,
        "set queue nosuch Priority=1",
        "qmgr obj=nosuch svr=default: Unknown queue\nqmgr: Error (15018) returned from server\n",
    );
    fails(
        h,
        "delete queue nosuch",
        "qmgr obj=nosuch svr=default: Unknown queue\nqmgr: Error (15018) returned from server\n",
    );
    fails(
        h,
        "set queue workq color=blue",
        "qmgr obj=workq svr=default: Undefined attribute \nqmgr: Error (15002) returned from server\nset queue workq color=blue\n                ^~~~~\nattributes: queue_type, Priority, enabled, started\n",
    );
    fails(
        h,
        "set queue workq Priority=2000",
        "qmgr obj=workq svr=default: Illegal attribute or resource value\nqmgr: Error (15014) returned from server\n\
         Priority: 2000 is not an integer from -1024 to 1023\n",
    );
    fails(
        h,
        "set server color=blue",
        "qmgr: Syntax error\nset server color=blue\n                ^\nattributes: job_sort_formula, job_sort_formula_tests, managers, replay_nodes, replay_cores_per_node, replay_mem_per_node\n",
    );
    fails(
        h,
        "delete resource nosuch",
        "qmgr obj=nosuch svr=default: Unknown resource\nqmgr: Error (15035) returned from server\n",
    );
    fails(
        h,
        "create resource foo type=complex",
        "qmgr obj=foo svr=default: Illegal attribute or resource value\nqmgr: Error (15014) returned from server\n\
         resource type complex is not one of long, float, size, time, boolean, string\n",
    );
    fails(
        h,
        "create queue 9lives",
        "qmgr obj=9lives svr=default: Invalid object name\nqmgr: Error (15172) returned from server\n\
         invalid name '9lives': a letter, then letters, digits, '_' or '-' (at most 64)\n",
    );
    fails(h, "set sched nosuch=1", "qmgr: Syntax error\nset sched nosuch=1\n                ^\nattributes: job_sort_formula, job_sort_formula_threshold, fair_share, fairshare_entity, fairshare_usage_res, fairshare_decay_time, fairshare_decay_factor, unknown_shares, fairshare_algorithm\n");
    fails(h, "set sched fairshare_usage_rez=cput", "qmgr: Syntax error\nset sched fairshare_usage_rez=cput\n                             ^\ndid you mean `fairshare_usage_res`?\n");
    fails(
        h,
        "set sched other fair_share=1",
        "qmgr obj=other svr=default: Unknown Scheduler\nqmgr: Error (15213) returned from server\n",
    );
}

#[test]
fn client_side_errors() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    fails(
        h,
        "frob server",
        "qmgr: Illegal operation: frob\nTry 'help' if you are having trouble.\nfrob server\n^~~~\n",
    );
    fails(
        h,
        "set widget x=1",
        "qmgr: Illegal object type: widget.\nset widget x=1\n    ^~~~~~\nTry 'help' if you are having trouble.\n",
    );
    fails(
        h,
        "sett servr x=1",
        "qmgr: Illegal operation: sett\nTry 'help' if you are having trouble.\nsett servr x=1\n^~~~\ndid you mean `set`?\n",
    );
    fails(
        h,
        "set servr x=1",
        "qmgr: Illegal object type: servr.\nset servr x=1\n    ^~~~~\ndid you mean `server`?\nTry 'help' if you are having trouble.\n",
    );
    fails(
        h,
        "set server job_sort_formula = ncpus + 1",
        "qmgr: Syntax error\nset server job_sort_formula = ncpus + 1\n                                    ^\n",
    );
    fails(h, "set server job_sort_formula = \"ncpus", "qmgr: Syntax error\nset server job_sort_formula = \"ncpus\n                              ^\n");
    fails(
        h,
        "set queue",
        "qmgr: Syntax error\nset queue\n         ^\n",
    );
    qmgr(h)
        .args(["-c", "set node n1 a=1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does not manage node objects"));
}

#[test]
fn sched_attributes_validate_with_pbs_messages() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    let bad = |req: &str, detail: &str| {
        fails(
            h,
            req,
            &format!("qmgr obj= svr=default: Illegal attribute or resource value\nqmgr: Error (15014) returned from server\n{detail}\n"),
        )
    };
    bad(
        "set sched fairshare_entity = user",
        "fairshare_entity user is erroneous (or deprecated).",
    );
    bad(
        "set sched fairshare_decay_time = 86400",
        "Invalid time 86400",
    );
    bad(
        "set sched fairshare_decay_factor = 1.5",
        "fairshare_decay_factor: Invalid value: 1.5000.  Valid values are between 0 and 1.",
    );
    bad(
        "set sched fairshare_decay_factor = 0",
        "fairshare_decay_factor: Invalid value: 0.0000.  Valid values are between 0 and 1.",
    );
    bad(
        "set sched fairshare_decay_factor = half",
        "Invalid fairshare_decay_factor",
    );
    bad(
        "set sched unknown_shares = -1",
        "unknown_shares: -1 is not a non-negative integer",
    );
    bad(
        "set sched fair_share = maybe",
        "fair_share: maybe is not True or False",
    );
    bad(
        "set sched job_sort_formula_threshold = lots",
        "job_sort_formula_threshold: lots is not a number",
    );
    qmgr(h)
        .args(["-c", "set sched fairshare_algorithm = best"])
        .assert()
        .code(166)
        .stderr(predicate::str::contains("Error (15014)").and(predicate::str::contains("best")));
    ok(
        h,
        "set sched job_sort_formula_threshold=7, fair_share=True, fairshare_entity=Account_Name",
    );
    ok(h, "set sched fairshare_decay_time=00:00:02, fairshare_decay_factor=0.25, unknown_shares=10, fairshare_algorithm=fair-tree");
    assert_eq!(
        ok(h, "list sched"),
        "Sched default\n    job_sort_formula_threshold = 7\n    fair_share = True\n    fairshare_entity = Account_Name\n    \
         fairshare_usage_res = cput\n    fairshare_decay_time = 00:00:02\n    fairshare_decay_factor = 0.25\n    \
         unknown_shares = 10\n    fairshare_algorithm = fair-tree\n"
    );
    ok(
        h,
        "unset sched job_sort_formula_threshold, fairshare_decay_time, fairshare_algorithm",
    );
    let out = ok(h, "print sched");
    assert!(!out.contains("job_sort_formula_threshold"), "{out}");
    assert!(
        out.contains("set sched fairshare_decay_time = 24:00:00\n"),
        "{out}"
    );
    assert!(
        out.contains("set sched fairshare_algorithm = pbs\n"),
        "{out}"
    );
}

#[test]
fn managers_list_operators_and_quoting() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    ok(h, "set server managers += \"alice@*.example.com,bob@head\"");
    ok(h, "set server managers -= bob@head");
    let out = ok(h, "print server");
    assert!(out.ends_with("#\n# Set server attributes.\n#\nset server managers = root@*\nset server managers += alice@*.example.com\n"), "{out}");
    fails(
        h,
        "set server managers += alice",
        "qmgr obj= svr=default: Illegal attribute or resource value\nqmgr: Error (15014) returned from server\n\
         manager entry 'alice' is not of the form user@host\n",
    );
    ok(
        h,
        "set server job_sort_formula_tests = '/srv/formula tests.toml'",
    );
    assert!(
        ok(h, "p s").contains("set server job_sort_formula_tests = \"/srv/formula tests.toml\"\n")
    );
    assert!(ok(h, "l s").contains("    job_sort_formula_tests = /srv/formula tests.toml\n"));
    ok(h, "unset server job_sort_formula_tests");
    assert!(!ok(h, "l s").contains("job_sort_formula_tests"));
}

#[test]
fn script_on_stdin_with_comments_continuations_and_quit() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    let script = "# set up queues\n\ncreate queue a\nset queue a \\\n  Priority = 3\n  # indented comment\ncreate queue a\ncreate queue b\nquit\ncreate queue c\n";
    // As real qmgr: the exit status is the last request's (`quit` is 0).
    qmgr(h).write_stdin(script).assert().code(0).stderr(
        "qmgr obj=a svr=default: Queue already exists\nqmgr: Error (15025) returned from server\n",
    );
    assert_eq!(ok(h, "l q"), "Queue a\n    Priority = 3\n\nQueue b\n");
    // -a stops at the first error (2: refused by the server); -e echoes.
    qmgr(h)
        .args(["-a", "-e"])
        .write_stdin("create queue d\ncreate queue d\ncreate queue e\n")
        .assert()
        .code(2)
        .stdout("create queue d\ncreate queue d\n");
    assert!(!ok(h, "l q").contains("Queue e"));
    qmgr(h)
        .write_stdin("print queue a\n")
        .assert()
        .success()
        .stdout(predicate::str::contains("set queue a Priority = 3\n"));
}

#[test]
fn home_from_flag_after_subcommand_and_from_env() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    fairsort()
        .args(["qmgr", "--home"])
        .arg(&a)
        .args(["-c", "create queue viaflag"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("run `fairsort init`"));
    assert!(!a.exists());
    fairsort()
        .arg("--home")
        .arg(&a)
        .arg("init")
        .assert()
        .success();
    fairsort()
        .args(["qmgr", "--home"])
        .arg(&a)
        .args(["-c", "create queue viaflag"])
        .assert()
        .success();
    assert!(std::fs::read_to_string(a.join("server.toml"))
        .unwrap()
        .contains("[queues.viaflag]"));
    let b = dir.path().join("b");
    fairsort()
        .env("FAIRSORT_HOME", &b)
        .arg("init")
        .assert()
        .success();
    fairsort()
        .env("FAIRSORT_HOME", &b)
        .args(["qmgr", "-c", "create queue viaenv"])
        .assert()
        .success();
    assert!(std::fs::read_to_string(b.join("server.toml"))
        .unwrap()
        .contains("[queues.viaenv]"));
    let xdg = dir.path().join("xdg");
    fairsort()
        .env_remove("FAIRSORT_HOME")
        .env("XDG_DATA_HOME", &xdg)
        .arg("init")
        .assert()
        .success();
    fairsort()
        .env_remove("FAIRSORT_HOME")
        .env("XDG_DATA_HOME", &xdg)
        .args(["qmgr", "-c", "create queue viadefault"])
        .assert()
        .success();
    assert!(xdg.join("fairsort/server.toml").exists());
    let audit = std::fs::read_to_string(a.join("audit.log")).unwrap();
    let lines: Vec<&str> = audit.lines().collect();
    assert_eq!(lines.len(), 2, "{audit}");
    assert!(lines[0].ends_with("\tcreate home"));
    assert!(lines[1].ends_with("\tcreate queue viaflag"));
}

#[test]
fn corrupt_state_file_is_named_with_line_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    ok(h, "create queue workq");
    let path = h.join("server.toml");
    let broken = "[server]\nmanagers = [\"root@*\"]\n\n[queues.workq]\npriority = \"high\"\n";
    std::fs::write(&path, broken).unwrap();
    for req in ["print server", "set queue workq Priority = 1"] {
        qmgr(h)
            .args(["-c", req])
            .assert()
            .code(1)
            .stderr(predicate::str::starts_with(format!(
                "qmgr: {}:5:12: ",
                path.display()
            )));
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
}

#[test]
fn json_answers_for_list_and_print() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    ok(h, "create queue workq Priority=3");
    let out = qmgr(h)
        .args(["--json", "-c", "list queue"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        v,
        serde_json::json!([{"object": "Queue", "name": "workq", "attributes": {"Priority": "3"}}])
    );
    let out = qmgr(h)
        .args(["--json", "-c", "print server managers"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v[0]["attributes"]["managers"][0], "root@*");
    assert_eq!(v[0]["object"], "Server");
}

#[test]
fn remaining_messages_server_name_singletons_help() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    qmgr(h)
        .args(["-c", "set server elsewhere job_sort_formula_tests = x"])
        .assert()
        .code(186)
        .stderr(predicate::str::starts_with(
            "qmgr obj= svr=default: No server to connect to\nqmgr: Error (15034) returned from server\n",
        ));
    fails(
        h,
        "create sched default",
        "qmgr obj=default svr=default: Scheduler already exists\nqmgr: Error (15211) returned from server\n",
    );
    fails(
        h,
        "delete sched default",
        "qmgr obj=default svr=default: Invalid request\nqmgr: Error (15004) returned from server\n\
         the sched object cannot be created or deleted\n",
    );
    fails(
        h,
        "set server job_sort_formula_tests += x",
        "qmgr obj= svr=default: Illegal attribute or resource value\nqmgr: Error (15014) returned from server\n\
         job_sort_formula_tests is not a list attribute: use =\n",
    );
    fails(
        h,
        "delete sched other",
        "qmgr obj=other svr=default: Unknown Scheduler\nqmgr: Error (15213) returned from server\n",
    );
    ok(h, "set server default job_sort_formula_tests = x");
    assert!(ok(h, "help").contains("verbs:"));
    assert!(ok(h, "?").contains("objects: server (s), sched, queue (q), resource (r)"));
}
