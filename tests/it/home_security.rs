//! The home's defences (docs/security.md): no link is ever followed, an unsafe home is
//! refused with the fix, permission is checked before the lock, nobody outside the managers can
//! block a change for longer than the documented wait, modes are documented and kept.
//!
//! The tests work as root and as an ordinary user: as root, "another user" is `nobody` (65534)
//! through `setpriv`; as an ordinary user the same situations are made with group- or
//! world-writable modes and with locks this process holds itself.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::time::Duration;

use predicates::prelude::*;

use crate::common::{bin, data, data_str, fairsort, fairsort_home, qmgr, write};

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().mode() & 0o7777
}

fn chmod(p: &Path, m: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
}

/// A home with every file it can have: state, tree, usage store, ledger, audit log, lock.
fn full_home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    qmgr(h, "create queue q Priority = 1").success();
    fairsort_home(h)
        .args(["tree", "import", &data_str("server/resource_group")])
        .assert()
        .success();
    fairsort_home(h)
        .args(["usage", "record"])
        .arg(data("usage/pbs_logs"))
        .assert()
        .success();
    for f in [
        "server.toml",
        "resource_group",
        "usage.toml",
        "usage.ledger",
        "audit.log",
        "lock",
    ] {
        assert!(h.join(f).is_file(), "{f}");
    }
    dir
}

/// Every kind of change and read the home serves, as argument lists.
fn commands(out: &Path) -> Vec<Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        s(&["qmgr", "-c", "set queue q Priority = 2"]),
        s(&["qmgr", "-c", "print server"]),
        s(&["tree", "import", &data_str("server/resource_group")]),
        s(&["usage", "set", "alice", "5"]),
        s(&["usage", "record", &data_str("usage/pbs_logs")]),
        s(&["usage", "decay"]),
        s(&["usage", "reset", "--forget-jobs"]),
        s(&["usage", "show"]),
        s(&[
            "usage",
            "export",
            "--pbs",
            &out.join("usage").to_string_lossy(),
        ]),
        s(&["share", "--algorithm", "pbs"]),
    ]
}

#[test]
fn a_link_planted_at_any_home_file_is_refused_and_never_written_through() {
    let outside = tempfile::tempdir().unwrap();
    let victim = write(&outside, "victim", "precious\n");
    let out = tempfile::tempdir().unwrap();
    for name in [
        "server.toml",
        "resource_group",
        "usage.toml",
        "usage.ledger",
        "audit.log",
        "lock",
        "audit.pending",
    ] {
        let dir = full_home();
        let h = dir.path();
        let _ = std::fs::remove_file(h.join(name));
        std::os::unix::fs::symlink(&victim, h.join(name)).unwrap();
        for args in commands(out.path()) {
            let o = fairsort_home(h).args(&args).output().unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success(), "{name}: {args:?} succeeded");
            assert!(
                stderr.contains("symbolic link"),
                "{name}: {args:?}: says why: {stderr}"
            );
            assert_eq!(
                std::fs::read_to_string(&victim).unwrap(),
                "precious\n",
                "{name}: {args:?} wrote through the link"
            );
            assert_eq!(mode(&victim), 0o644, "{name}: {args:?}");
        }
        assert!(std::fs::symlink_metadata(h.join(name))
            .unwrap()
            .file_type()
            .is_symlink());
    }
}

#[test]
fn links_at_the_temporaries_of_every_write_are_never_written_through() {
    let outside = tempfile::tempdir().unwrap();
    let victim = write(&outside, "victim", "precious\n");
    let dir = full_home();
    let h = dir.path();
    let out = tempfile::tempdir().unwrap();
    // Temporaries of today's and earlier versions (fixed names), the export's backup, touch file
    // and target, and `test --record`'s file and temporaries.
    for name in [
        ".server.toml.tmp",
        ".usage.toml.tmp",
        ".resource_group.tmp",
        ".audit.log.tmp",
        ".audit.pending.tmp",
        ".lock.tmp",
    ] {
        std::os::unix::fs::symlink(&victim, h.join(name)).unwrap();
    }
    std::fs::write(out.path().join("usage"), b"old").unwrap();
    for name in ["usage.bak", "usage.touch", ".usage.tmp"] {
        std::os::unix::fs::symlink(&victim, out.path().join(name)).unwrap();
    }
    for args in commands(out.path()) {
        fairsort_home(h).args(&args).assert().success();
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "precious\n",
            "{args:?}"
        );
    }
    assert_eq!(std::fs::read(out.path().join("usage.bak")).unwrap(), b"old");
    fairsort_home(h)
        .args(["usage", "export", "--touch", "--pbs"])
        .arg(out.path().join("usage"))
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    for name in ["usage.bak", "usage.touch"] {
        let p = out.path().join(name);
        assert!(p.is_file() && !p.is_symlink(), "{name} replaced the link");
    }

    // `test --record` on a test file that is a link: the link is replaced by the recorded
    // file, its target is untouched.
    let tests = tempfile::tempdir().unwrap();
    let real = write(&outside, "real.toml", "[[eval]]\nformula = \"1 + 1\"\n");
    std::os::unix::fs::symlink(&real, tests.path().join("t.toml")).unwrap();
    std::os::unix::fs::symlink(&victim, tests.path().join(".t.toml.tmp")).unwrap();
    fairsort()
        .args(["test", "--record", "--formula", "ncpus"])
        .arg(tests.path().join("t.toml"))
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(&real).unwrap(),
        "[[eval]]\nformula = \"1 + 1\"\n"
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    let recorded = std::fs::read_to_string(tests.path().join("t.toml")).unwrap();
    assert!(recorded.contains("expect = 2"), "{recorded}");
    assert!(!tests.path().join("t.toml").is_symlink());
}

#[test]
fn an_unsafe_home_is_refused_with_the_fix() {
    let dir = full_home();
    let h = dir.path();
    let before = std::fs::read(h.join("server.toml")).unwrap();
    // A group- or world-writable home directory.
    for m in [0o775, 0o757] {
        chmod(h, m);
        let want = format!(
            "unsafe home: is writable by its group or others (mode 0{m:o}); run `chmod go-w {}`",
            h.display()
        );
        qmgr(h, "set queue q Priority = 5")
            .code(1)
            .stderr(predicate::str::contains(want.clone()));
        qmgr(h, "print queue q")
            .code(1)
            .stderr(predicate::str::contains(want));
    }
    chmod(h, 0o755);
    // A group- or world-writable file in it.
    for f in ["server.toml", "usage.toml", "audit.log", "usage.ledger"] {
        let p = h.join(f);
        let old = mode(&p);
        chmod(&p, 0o666);
        fairsort_home(h)
            .args(["usage", "set", "alice", "7"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!(
                "{}: unsafe home: is writable by its group or others (mode 0666); run `chmod go-w {}`",
                p.display(),
                p.display()
            )));
        chmod(&p, old);
    }
    assert_eq!(std::fs::read(h.join("server.toml")).unwrap(), before);
    if is_root() {
        // Owned by another non-root user.
        std::os::unix::fs::chown(h.join("usage.toml"), Some(65534), None).unwrap();
        qmgr(h, "print server")
            .code(1)
            .stderr(predicate::str::contains("is owned by uid 65534"));
        std::os::unix::fs::chown(h.join("usage.toml"), Some(0), None).unwrap();
        std::os::unix::fs::chown(h, Some(65534), None).unwrap();
        qmgr(h, "print server")
            .code(1)
            .stderr(predicate::str::contains(
                "is owned by uid 65534 (neither root nor you)",
            ));
        std::os::unix::fs::chown(h, Some(0), None).unwrap();
    }
    qmgr(h, "set queue q Priority = 5").success();
}

/// Holds an exclusive flock on `path` in this process until dropped.
struct Held(#[allow(dead_code)] std::fs::File);

fn hold(path: &Path) -> Held {
    let f = std::fs::File::open(path).unwrap();
    rustix::fs::flock(&f, rustix::fs::FlockOperation::LockExclusive).unwrap();
    Held(f)
}

#[test]
fn permission_is_checked_before_the_lock() {
    let dir = full_home();
    let h = dir.path();
    qmgr(h, "set server managers = nobody@*").success();
    // Even with the writers' lock held for a long time, a non-manager is refused at once.
    let _held = hold(&h.join("lock"));
    for args in [
        vec!["qmgr", "-c", "set queue q Priority = 9"],
        vec!["usage", "set", "alice", "5"],
        vec!["tree", "import", &data_str("server/resource_group")],
    ] {
        fairsort_home(h)
            // A version that locked first would give up on the test's lock after 1 s and say
            // so (`lock` in stderr, refused below).
            .env("FAIRSORT_LOCK_TIMEOUT", "1")
            .args(&args)
            .assert()
            // qmgr exits as real qmgr (15007 modulo 256); other commands with 1
            .code(if args[0] == "qmgr" { 159 } else { 1 })
            .stderr(predicate::str::contains("qmgr obj="))
            .stderr(predicate::str::contains(
                "Unauthorized Request \nqmgr: Error (15007) returned from server\nfairsort: ",
            ))
            .stderr(predicate::str::contains(
                " is not a manager of this home; managers: nobody@*",
            ))
            .stderr(predicate::str::contains("lock").not());
    }
}

fn as_nobody(program: &str) -> Process {
    let mut c = Process::new("setpriv");
    c.args([
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "--",
        program,
    ]);
    c
}

struct Killed(Vec<Child>);
impl Drop for Killed {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// `flock -F -x FILE sleep 60` (as nobody when root).
fn flock_holder(file: &Path) -> Option<Child> {
    let mut c = if is_root() {
        as_nobody("flock")
    } else {
        Process::new("flock")
    };
    // -F: flock execs sleep itself, so killing it releases the lock.
    c.args(["-F", "-x", "-n"])
        .arg(file)
        .args(["sleep", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()
}

/// A change with `FAIRSORT_LOCK_TIMEOUT=timeout`; killed after 20 s (a version without a
/// bounded wait would block for as long as the holder lives).
fn timed_change(h: &Path, timeout: &str, value: u32) -> std::process::Output {
    assert_cmd::Command::new(bin())
        .arg("--home")
        .arg(h)
        .env("FAIRSORT_LOCK_TIMEOUT", timeout)
        .env_remove("FAIRSORT_HOME")
        .args(["qmgr", "-c", &format!("set queue q Priority = {value}")])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap()
}

#[test]
fn nobody_outside_the_managers_can_block_a_change() {
    let dir = full_home();
    let h = dir.path();
    chmod(h, 0o755);
    // Readers take no lock: a lock held on any file a non-manager can open delays nothing.
    let files: Vec<PathBuf> = std::fs::read_dir(h)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with("lock") || is_root())
        .collect();
    let holders = Killed(files.iter().filter_map(|f| flock_holder(f)).collect());
    std::thread::sleep(Duration::from_millis(300));
    // Blocked by any of those locks, the change would give up after 2 s and fail.
    let out = timed_change(h, "2", 11);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    qmgr(h, "print queue q")
        .success()
        .stdout(predicate::str::contains("Priority = 11"));
    drop(holders);
    assert_eq!(
        mode(&h.join("lock")),
        0o600,
        "only the owner can open the lock"
    );

    // A lock file left readable by an older version and held by another process: the writer
    // gives up after the documented wait and names the holder.
    chmod(&h.join("lock"), 0o644);
    let holder = flock_holder(&h.join("lock")).expect("flock(1) runs");
    let pid = holder.id();
    let _holder = Killed(vec![holder]);
    std::thread::sleep(Duration::from_millis(300));
    let out = timed_change(h, "1", 12);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "lock: the home is locked by pid {pid} (sleep, uid "
        )) && stderr.contains("gave up after 1 s (set FAIRSORT_LOCK_TIMEOUT to wait longer)"),
        "{stderr}"
    );
    assert_eq!(mode(&h.join("lock")), 0o600, "tightened again");
    drop(_holder);
    let out = timed_change(h, "1", 13);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn new_files_get_documented_modes_and_rewrites_keep_modes_and_owner() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path().join("home");
    qmgr(&h, "create queue q").success();
    fairsort_home(&h)
        .args(["usage", "record"])
        .arg(data("usage/pbs_logs"))
        .assert()
        .success();
    fairsort_home(&h)
        .args(["tree", "import", &data_str("server/resource_group")])
        .assert()
        .success();
    assert_eq!(mode(&h), 0o755);
    for (f, m) in [
        ("server.toml", 0o644),
        ("resource_group", 0o644),
        ("usage.toml", 0o644),
        ("usage.ledger", 0o644),
        ("audit.log", 0o640),
        ("lock", 0o600),
    ] {
        assert_eq!(mode(&h.join(f)), m, "{f}");
    }
    for f in ["server.toml", "usage.toml", "resource_group"] {
        chmod(&h.join(f), 0o600);
    }
    if is_root() {
        std::os::unix::fs::chown(h.join("server.toml"), Some(0), Some(65534)).unwrap();
    }
    qmgr(&h, "set queue q Priority = 3").success();
    fairsort_home(&h)
        .args(["usage", "set", "alice", "5"])
        .assert()
        .success();
    fairsort_home(&h)
        .args(["tree", "import", &data_str("server/resource_group")])
        .assert()
        .success();
    for f in ["server.toml", "usage.toml", "resource_group"] {
        assert_eq!(mode(&h.join(f)), 0o600, "{f} kept its mode");
    }
    if is_root() {
        assert_eq!(
            std::fs::metadata(h.join("server.toml")).unwrap().gid(),
            65534
        );
    }
    let names: Vec<String> = std::fs::read_dir(&h)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') || n.ends_with(".pending"))
        .collect();
    assert!(names.is_empty(), "left behind: {names:?}");
}
