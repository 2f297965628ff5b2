//! Permissions: only managers change anything; anyone may read. The non-manager is simulated
//! by a `managers` list without the current user (no impersonation switch exists).

use predicates::prelude::*;

use crate::common::qmgr;

/// PBS's two lines for `obj=`, then fairsort's line naming the user and the managers.
fn refused(obj: &str, managers: &str) -> impl predicates::Predicate<str> {
    let head = format!(
        "qmgr obj={obj} svr=default: Unauthorized Request \nqmgr: Error (15007) returned from server\nfairsort: "
    );
    let tail = format!(" is not a manager of this home; managers: {managers}\n");
    predicate::str::starts_with(head).and(predicate::str::ends_with(tail))
}

#[test]
fn non_manager_reads_but_cannot_change() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    qmgr(h, "create queue workq Priority = 10").success();
    // Hand the home to someone else: the current user is no longer a manager.
    qmgr(h, "set server managers = nobody@*").success();
    let before = std::fs::read(h.join("server.toml")).unwrap();
    qmgr(h, "print server")
        .success()
        .stdout(predicate::str::contains("set server managers = nobody@*\n"));
    qmgr(h, "list queue workq")
        .success()
        .stdout("Queue workq\n    Priority = 10\n");
    qmgr(h, "set server job_sort_formula = ncpus")
        .code(159)
        .stderr(refused("", "nobody@*"));
    qmgr(h, "set server managers += root@*")
        .code(159)
        .stderr(refused("", "nobody@*"));
    qmgr(h, "unset server managers")
        .code(159)
        .stderr(refused("", "nobody@*"));
    qmgr(h, "set sched fair_share = True")
        .code(159)
        .stderr(refused("", "nobody@*"));
    qmgr(h, "set queue workq Priority = 1")
        .code(159)
        .stderr(refused("workq", "nobody@*"));
    qmgr(h, "create queue other")
        .code(159)
        .stderr(predicate::str::contains("Error (15007)"));
    qmgr(h, "delete queue workq")
        .code(159)
        .stderr(predicate::str::contains("Error (15007)"));
    qmgr(h, "create resource foo type=float")
        .code(159)
        .stderr(predicate::str::contains("Error (15007)"));
    assert_eq!(
        std::fs::read(h.join("server.toml")).unwrap(),
        before,
        "nothing changed"
    );
}

#[test]
fn hand_written_state_file_with_other_managers_is_enforced() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    std::fs::write(
        h.join("server.toml"),
        "[server]\njob_sort_formula = \"ncpus\"\nmanagers = [\"alice@*.example.com\", \"*@trusted-host\"]\n",
    )
    .unwrap();
    qmgr(h, "list server")
        .success()
        .stdout(predicate::str::contains("    job_sort_formula = ncpus\n"));
    qmgr(h, "unset server job_sort_formula")
        .code(159)
        .stderr(refused("", "alice@*.example.com, *@trusted-host"));
    assert!(std::fs::read_to_string(h.join("server.toml"))
        .unwrap()
        .contains("job_sort_formula = \"ncpus\""));
}

#[test]
fn creator_is_a_manager_of_a_new_home() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path().join("new");
    qmgr(&h, "list server")
        .success()
        .stdout(predicate::str::contains("managers = root@*"));
    qmgr(&h, "create queue mine").success();
}
