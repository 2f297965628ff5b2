//! The home's binary snapshot `snapshot.bin`: written by a reader that owns the
//! home, used only when it was built from exactly the current text (same results, bit for bit),
//! rebuilt when any input changes (a same-size, same-mtime edit included), ignored when damaged
//! or foreign, and never followed when it is a link.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::common::{data_str, fairsort_home, qmgr, write};

const JOBS: &str = r#"[{"id":"1","user":"pbsuser","group":"group1","qtime":1},
 {"id":"2","user":"pbsuser3","group":"group2","qtime":2},
 {"id":"3","user":"stranger","group":"g9","qtime":3}]"#;

/// A PBS home with the openpbs.md tree, usage (one entity not in the tree), a formula and
/// fair_share on.
fn home(dir: &Path) -> std::path::PathBuf {
    let h = dir.join("home");
    qmgr(
        &h,
        "set server job_sort_formula = \"fairshare_perc * 1000 + fairshare_tree_usage + fairshare_factor\"",
    )
    .success();
    qmgr(&h, "set sched fair_share = True").success();
    fairsort_home(&h)
        .args(["tree", "import", &data_str("server/resource_group")])
        .assert()
        .success();
    let usage = std::fs::read_to_string(data_str("server/usage.toml")).unwrap()
        + "\n[[entity]]\nname = \"ghost\"\nusage = 7.5\n";
    std::fs::write(h.join("usage.toml"), usage).unwrap();
    write(dir, "jobs.json", JOBS);
    h
}

/// `order --json` and `share --json` outputs (stdout and stderr) from the home.
fn outputs(h: &Path, dir: &Path) -> Vec<Vec<u8>> {
    let jobs = dir.join("jobs.json");
    let order = fairsort_home(h)
        .args(["order", "--json", "--jobs"])
        .arg(&jobs)
        .output()
        .unwrap();
    assert!(order.status.success(), "{order:?}");
    let share = fairsort_home(h).args(["share", "--json"]).output().unwrap();
    assert!(share.status.success(), "{share:?}");
    vec![order.stdout, order.stderr, share.stdout, share.stderr]
}

/// `a` and `b` are the same snapshot, but for the text files' identity in the header (recorded
/// once they have settled: see `home::snapshot_ident`).
fn assert_same_snapshot(a: &[u8], b: &[u8], what: &str) {
    let header = fairsort::home::snapshot_cache::HEADER;
    assert_eq!(
        a.len(),
        b.len(),
        "{what}: a valid snapshot of the same length"
    );
    assert_eq!(a[..56], b[..56], "{what}: the same layout and key");
    assert_eq!(a[header..], b[header..], "{what}: the same blocks");
}

fn snapshot_id(h: &Path) -> Option<(u64, i64, i64)> {
    std::fs::symlink_metadata(h.join("snapshot.bin"))
        .ok()
        .map(|m| (m.ino(), m.mtime(), m.mtime_nsec()))
}

#[test]
fn the_snapshot_is_written_then_used_with_identical_results() {
    let dir = tempfile::tempdir().unwrap();
    let h = home(dir.path());
    let _ = std::fs::remove_file(h.join("snapshot.bin"));
    let from_text = outputs(&h, dir.path());
    assert!(
        snapshot_id(&h).is_some(),
        "the first read writes the snapshot"
    );
    let mode = std::fs::metadata(h.join("snapshot.bin")).unwrap().mode();
    assert_eq!(mode & 0o7777, 0o644);
    // Once the text files have settled, a reader may record their identity in it (one
    // rewrite, see `a_settled_identity_is_recorded_once_and_an_edit_still_rebuilds`); from
    // then on a valid snapshot is not rewritten.
    past_the_margin(&h);
    let from_snapshot = outputs(&h, dir.path());
    let id = snapshot_id(&h);
    assert_eq!(outputs(&h, dir.path()), from_snapshot);
    assert_eq!(snapshot_id(&h), id, "a valid snapshot is not rewritten");
    assert_eq!(from_text, from_snapshot);
    // The same as with no snapshot at all.
    std::fs::remove_file(h.join("snapshot.bin")).unwrap();
    assert_eq!(outputs(&h, dir.path()), from_text);
}

#[test]
fn any_change_of_the_text_rebuilds_it() {
    let dir = tempfile::tempdir().unwrap();
    let h = home(dir.path());
    let before = outputs(&h, dir.path());
    // A same-size edit of usage.toml with its old mtime: only the content tells.
    let (path, text) = edit_usage_keeping_size_and_mtime(&h);
    let id = snapshot_id(&h);
    let after_usage = outputs(&h, dir.path());
    assert_ne!(after_usage[0], before[0], "the new usage is seen");
    assert_ne!(snapshot_id(&h), id, "and the snapshot rebuilt");
    std::fs::write(&path, &text).unwrap();
    assert_eq!(outputs(&h, dir.path()), before);

    // The tree's text.
    let rg = h.join("resource_group");
    let tree = std::fs::read_to_string(&rg).unwrap();
    std::fs::write(&rg, tree.replacen(" 40\n", " 41\n", 1)).unwrap();
    assert_ne!(outputs(&h, dir.path())[0], before[0]);
    std::fs::write(&rg, &tree).unwrap();
    assert_eq!(outputs(&h, dir.path()), before);

    // unknown_shares (server.toml) changes the `unknown` group's share.
    qmgr(&h, "set sched unknown_shares = 50").success();
    assert_ne!(outputs(&h, dir.path())[0], before[0]);
    qmgr(&h, "set sched unknown_shares = 0").success();
    assert_eq!(outputs(&h, dir.path()), before);

    // Usage removed altogether.
    std::fs::remove_file(&path).unwrap();
    assert_ne!(outputs(&h, dir.path())[0], before[0]);
}

#[test]
fn a_damaged_truncated_or_foreign_snapshot_is_ignored_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let h = home(dir.path());
    let good = outputs(&h, dir.path());
    let valid = std::fs::read(h.join("snapshot.bin")).unwrap();
    let other = tempfile::tempdir().unwrap();
    let oh = home(other.path());
    qmgr(&oh, "set sched unknown_shares = 9").success();
    outputs(&oh, other.path());
    let foreign = std::fs::read(oh.join("snapshot.bin")).unwrap();
    let mut flipped = valid.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 1;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("garbage", b"not a snapshot at all\n".repeat(50)),
        ("truncated", valid[..valid.len() / 2].to_vec()),
        ("one byte short", valid[..valid.len() - 1].to_vec()),
        ("a flipped bit", flipped),
        ("another home's", foreign),
    ];
    for (what, bytes) in cases {
        std::fs::write(h.join("snapshot.bin"), &bytes).unwrap();
        assert_eq!(outputs(&h, dir.path()), good, "{what}");
        let now = std::fs::read(h.join("snapshot.bin")).unwrap();
        assert_same_snapshot(&now, &valid, what);
    }
}

#[test]
fn a_link_at_the_snapshot_is_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let h = home(dir.path());
    outputs(&h, dir.path());
    let valid = std::fs::read(h.join("snapshot.bin")).unwrap();
    // A link to a valid snapshot elsewhere: the home is refused, as for its other files.
    let target = dir.path().join("elsewhere.bin");
    std::fs::write(&target, &valid).unwrap();
    std::fs::remove_file(h.join("snapshot.bin")).unwrap();
    std::os::unix::fs::symlink(&target, h.join("snapshot.bin")).unwrap();
    let out = fairsort_home(&h)
        .args(["order", "--jobs"])
        .arg(dir.path().join("jobs.json"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("snapshot.bin") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(std::fs::read(&target).unwrap(), valid);

    // A link planted after the home was checked is not read and is replaced, not written
    // through.
    std::fs::remove_file(h.join("snapshot.bin")).unwrap();
    std::fs::write(&target, b"precious").unwrap();
    let home = fairsort::home::Home::find(Some(&h)).unwrap().unwrap();
    std::os::unix::fs::symlink(&target, h.join("snapshot.bin")).unwrap();
    let s = fairsort::scenario::Scenario::from_home(&home).unwrap();
    assert!(s.setup.tree.is_some());
    assert_eq!(std::fs::read(&target).unwrap(), b"precious");
    let meta = std::fs::symlink_metadata(h.join("snapshot.bin")).unwrap();
    assert!(meta.file_type().is_file(), "the link was replaced");
    let now = std::fs::read(h.join("snapshot.bin")).unwrap();
    assert_same_snapshot(&now, &valid, "rewritten");
}

/// A user who does not own the home reads the text (same results) and writes nothing there.
#[test]
fn a_reader_who_does_not_own_the_home_does_not_write_it() {
    if !rustix::process::geteuid().is_root() {
        return; // needs another user (`nobody` through setpriv)
    }
    let dir = tempfile::tempdir().unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let h = home(dir.path());
    let owner = outputs(&h, dir.path());
    std::fs::remove_file(h.join("snapshot.bin")).unwrap();
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(crate::common::bin())
        .env_remove("FAIRSORT_HOME")
        .env("XDG_DATA_HOME", crate::common::NO_XDG_DATA_HOME)
        .arg("--home")
        .arg(&h)
        .args(["order", "--json", "--jobs"])
        .arg(dir.path().join("jobs.json"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(out.stdout, owner[0]);
    assert_eq!(snapshot_id(&h), None);
}

/// A PBS home of 4 groups of 15 users with usage (one user under `unknown` when `member`), its
/// snapshot written, and 6 jobs: users of every group, one user twice, one not in the tree.
fn larger_home(dir: &Path, member: bool) -> std::path::PathBuf {
    let h = dir.join("home");
    qmgr(&h, "set sched fair_share = True").success();
    qmgr(&h, "set sched unknown_shares = 10").success();
    qmgr(&h, "set server job_sort_formula = fairshare_factor").success();
    let mut rg = String::new();
    let mut usage = String::from("version = 1\n");
    for g in 0..4 {
        rg.push_str(&format!("grp{g} {} root {}\n", 10 + g, 5 + 7 * g));
        for u in 0..15 {
            let id = 100 + g * 15 + u;
            rg.push_str(&format!("u{id} {id} grp{g} {}\n", 1 + (u * 3) % 7));
            if u % 4 != 0 {
                let cput = ((id * 37) % 101) as f64 * 12.5;
                usage.push_str(&format!("[[entity]]\nname = \"u{id}\"\nusage = {cput:?}\n"));
            }
        }
    }
    if member {
        rg.push_str("ux 99 unknown 3\n");
    }
    let tree = write(dir, "rg", &rg);
    fairsort_home(&h)
        .args(["tree", "import"])
        .arg(&tree)
        .assert()
        .success();
    std::fs::write(h.join("usage.toml"), usage).unwrap();
    let jobs = r#"[{"id":"1","user":"u101","group":"grp0","qtime":1},
     {"id":"2","user":"u130","group":"grp2","qtime":2},
     {"id":"3","user":"u150","group":"grp3","qtime":3},
     {"id":"4","user":"stranger","group":"g9","qtime":4},
     {"id":"5","user":"u101","group":"grp0","qtime":5},
     {"id":"6","user":"u117","group":"grp1","qtime":6}]"#;
    // The first order reads the text and writes the snapshot.
    write(dir, "jobs.json", jobs);
    fairsort_home(&h)
        .args(["order", "--jobs"])
        .arg(dir.join("jobs.json"))
        .assert()
        .success();
    assert!(snapshot_id(&h).is_some());
    h
}

/// An order over the part of the snapshot's tree that its jobs need (few jobs, a large tree)
/// gives what the whole tree gives, bit for bit: values, order and fair-share ranks.
#[test]
fn an_order_over_a_part_of_the_tree_is_the_order_over_the_whole() {
    use fairsort::scenario::{Base, JobsInput, ScenarioBuilder};
    for member in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let h = larger_home(dir.path(), member);
        let jobs = dir.path().join("jobs.json");
        let home = fairsort::home::Home::find(Some(&h)).unwrap().unwrap();
        for formula in [
            "fairshare_factor",
            "fairshare_perc * 100 + fairshare_tree_usage",
            "1",
            "ncpus",
        ] {
            let run = |lazy: bool| {
                let mut b = ScenarioBuilder::new(Base::Home(home.clone()))
                    .jobs(JobsInput::File(jobs.clone()), None)
                    .formula(Some(formula.to_string()));
                if lazy {
                    b = b.lazy_home_tree();
                }
                let mut sc = b.build().unwrap();
                let program = sc.compile(formula).unwrap();
                let run = sc.order_once(&program, None).unwrap();
                let ctx = run.shares.as_ref().unwrap();
                let len = (ctx.tree.len(), sc.share_tree_len(ctx.tree.len()));
                (run, len)
            };
            let (whole, (n, shown)) = run(false);
            let (part, (pn, pshown)) = run(true);
            assert_eq!(n, shown);
            assert!(pn < n, "{formula}: a part ({pn} of {n} nodes) was used");
            assert_eq!(pshown, n, "{formula}: the header counts the whole tree");
            assert_eq!(part.order.ranked.len(), 6);
            for (a, b) in whole.order.ranked.iter().zip(&part.order.ranked) {
                assert_eq!(a.job, b.job, "{formula}, member {member}");
                assert_eq!(a.value.to_bits(), b.value.to_bits(), "{formula}");
                assert_eq!(
                    (a.eligible, a.below_threshold),
                    (b.eligible, b.below_threshold)
                );
            }
            assert_eq!(whole.options.fair_share_rank, part.options.fair_share_rank);
            let (w, p) = (whole.shares.unwrap(), part.shares.unwrap());
            assert_eq!(w.unknown_entities, p.unknown_entities);
            assert_eq!(w.unknown_entities, ["stranger"]);
        }
    }
}

/// Waits until the home's text files are older than the margin after which their identity is
/// settled (`home::snapshot_ident`: 2 s where timestamps are whole seconds).
fn past_the_margin(h: &Path) {
    let coarse = std::fs::metadata(h.join("usage.toml"))
        .unwrap()
        .ctime_nsec()
        == 0;
    std::thread::sleep(std::time::Duration::from_millis(if coarse {
        2100
    } else {
        120
    }));
}

/// Once the text files are older than the timestamp margin, a reader records their identity
/// in the snapshot (one rewrite), later readers use it without hashing the text, and a
/// same-size edit with the old mtime put back is still seen (its ctime changed).
#[test]
fn a_settled_identity_is_recorded_once_and_an_edit_still_rebuilds() {
    let dir = tempfile::tempdir().unwrap();
    let h = home(dir.path());
    let first = outputs(&h, dir.path());
    past_the_margin(&h);
    // Written settled already when the text was old enough at the first read, else
    // rewritten once now, with the identity.
    assert_eq!(outputs(&h, dir.path()), first);
    let snapshot = std::fs::read(h.join("snapshot.bin")).unwrap();
    assert!(fairsort::home::snapshot_cache::is_settled(&snapshot));
    let settled = snapshot_id(&h);
    assert_eq!(outputs(&h, dir.path()), first);
    assert_eq!(snapshot_id(&h), settled, "then used as is");
    edit_usage_keeping_size_and_mtime(&h);
    assert_ne!(
        outputs(&h, dir.path())[0],
        first[0],
        "the new usage is seen"
    );
}

/// Edits one usage in `usage.toml` to a value of the same length and puts its old mtime back:
/// only the content (or the ctime) tells that it changed. Gives the file and its old text.
fn edit_usage_keeping_size_and_mtime(h: &std::path::Path) -> (std::path::PathBuf, String) {
    let path = h.join("usage.toml");
    let meta = std::fs::metadata(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen("usage = 1000.0", "usage = 9000.0", 1);
    assert_eq!(edited.len(), text.len());
    std::fs::write(&path, &edited).unwrap();
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(meta.modified().unwrap()).unwrap();
    drop(f);
    (path, text)
}
