//! The home under a full disk and a read-only home: a clear one-line error, exit 1,
//! and the previous state intact. (Concurrent writers and kill -9 during writes are covered by
//! tests/it/home_safety.rs.)
//!
//! A full disk is simulated with `ulimit -f 0` (writes fail with EFBIG; SIGXFSZ ignored), a
//! read-only home by running as `nobody` through `setpriv` when the tests run as root (root
//! ignores file modes), else by `chmod 0555`.

use std::process::Command as Process;

use crate::common::{bin, qmgr, queue_q_priority};

fn make_home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    qmgr(dir.path(), "create queue q Priority = 1").success();
    dir
}

#[test]
fn full_disk_leaves_the_old_state_and_says_why() {
    let dir = make_home();
    let state_before = std::fs::read(dir.path().join("state.toml")).ok();
    let audit_before = std::fs::read(dir.path().join("audit.log")).unwrap();
    let out = Process::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 0; exec \"$0\" --home \"$1\" qmgr -c 'set queue q Priority = 2'")
        .arg(bin())
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.contains("File too large"),
        "the OS error is shown: {stderr}"
    );
    assert_eq!(queue_q_priority(dir.path()), Some(1), "old state intact");
    if let Some(before) = state_before {
        assert_eq!(
            std::fs::read(dir.path().join("state.toml")).ok(),
            Some(before)
        );
    }
    // A failed write leaves no temporary, no intent record, and no audit record behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') || n.ends_with(".pending"))
        .collect();
    assert!(names.is_empty(), "left behind: {names:?}");
    assert_eq!(
        audit_before,
        std::fs::read(dir.path().join("audit.log")).unwrap()
    );
    // The next write, with room again, succeeds.
    qmgr(dir.path(), "set queue q Priority = 3").success();
    assert_eq!(queue_q_priority(dir.path()), Some(3));
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false)
}

#[test]
fn read_only_home_refuses_changes_clearly_and_still_reads() {
    let dir = make_home();
    let home = dir.path();
    let run = |args: &[&str]| {
        if is_root() {
            let mut c = Process::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]);
            c.arg(bin());
            c.arg("--home").arg(home).args(args);
            c.output()
        } else {
            Process::new(bin())
                .arg("--home")
                .arg(home)
                .args(args)
                .output()
        }
    };
    if is_root() {
        // nobody is a manager, so the change goes past the manager check to the files.
        qmgr(home, "set server managers += nobody@*").success();
    }
    {
        // Others may read the home (as a real one is set up); only writing is denied.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(home, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    if !is_root() {
        use std::os::unix::fs::PermissionsExt;
        for e in std::fs::read_dir(home).unwrap() {
            let p = e.unwrap().path();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
        }
        std::fs::set_permissions(home, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    let Ok(out) = run(&["qmgr", "-c", "set queue q Priority = 2"]) else {
        eprintln!("setpriv is not available: skipped");
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.contains("Permission denied"),
        "names the cause: {stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    // Reading still works.
    let out = run(&["qmgr", "-c", "print queue q"]).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Priority = 1"));
    if !is_root() {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(home, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    assert_eq!(queue_q_priority(home), Some(1));
}

#[test]
fn a_change_whose_audit_record_cannot_be_written_is_not_applied() {
    let dir = make_home();
    let h = dir.path();
    // An audit log past the file-size limit, a state file under it: only the audit append fails.
    let mut log = std::fs::read_to_string(h.join("audit.log")).unwrap();
    while log.len() < 64 * 1024 {
        log.push_str("2000-01-01T00:00:00Z\told@h\tpadding\n");
    }
    std::fs::write(h.join("audit.log"), &log).unwrap();
    let state_before = std::fs::read(h.join("server.toml")).unwrap();
    let out = Process::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 16; exec \"$0\" --home \"$1\" qmgr -c 'set queue q Priority = 2'")
        .arg(bin())
        .arg(h)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.contains("audit.log") && stderr.contains("File too large"),
        "{stderr}"
    );
    assert_eq!(queue_q_priority(h), Some(1), "the change is not applied");
    assert_eq!(std::fs::read(h.join("server.toml")).unwrap(), state_before);
    assert_eq!(std::fs::read_to_string(h.join("audit.log")).unwrap(), log);
    let left: Vec<String> = std::fs::read_dir(h)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') || n.ends_with(".pending"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
