//! The home records its site (`site.toml`): after `fairsort slurm import`, PBS and flux orders
//! still work from the same home (the jobs' format picks the path); `site show` tells what the
//! home holds; `site remove` removes it, audited and for managers only; the reports' headers
//! and JSON name their inputs' sources; replay names its half-life and its tree's source; a Slurm
//! home's `share` uses its slurm.conf's algorithm and its root's name.

use crate::common::{data_str, fairsort, fairsort_home, json_of};
use std::path::Path;

fn root() -> String {
    env!("CARGO_MANIFEST_DIR").to_string()
}

fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A home with a Slurm site: the sshare tree and the slurm.conf (with QOS) imported.
fn slurm_home(home: &Path) {
    let d = |f: &str| data_str(&format!("slurm_priority/{f}"));
    ok(&fairsort_home(home)
        .args(["tree", "import", &d("sshare.psv")])
        .output()
        .unwrap());
    ok(&fairsort_home(home)
        .args([
            "slurm",
            "import",
            "--conf",
            &d("slurm.conf"),
            "--qos",
            &d("qos.psv"),
        ])
        .output()
        .unwrap());
}

#[test]
fn a_slurm_home_still_orders_a_pbs_queue_and_a_flux_queue() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h");
    slurm_home(&home);
    let r = root();
    // A qstat file is a PBS queue in any home.
    let out = ok(&fairsort_home(&home)
        .args([
            "order",
            "--jobs",
            &format!("{r}/examples/pbs_cluster/jobs.json"),
        ])
        .args([
            "--formula",
            "ncpus",
            "--tree",
            &data_str("share/resource_group"),
        ])
        .output()
        .unwrap());
    assert!(out.contains("formula:    ncpus"), "{out}");
    assert!(out.contains("eligible"), "{out}");
    assert!(!out.contains("Slurm priorities need"), "{out}");
    // The same from a home without the Slurm site gives the same rows.
    let plain = dir.path().join("plain");
    let other = ok(&fairsort_home(&plain)
        .args([
            "order",
            "--jobs",
            &format!("{r}/examples/pbs_cluster/jobs.json"),
        ])
        .args([
            "--formula",
            "ncpus",
            "--tree",
            &data_str("share/resource_group"),
        ])
        .args(["--json"])
        .output()
        .unwrap());
    let here = ok(&fairsort_home(&home)
        .args([
            "order",
            "--jobs",
            &format!("{r}/examples/pbs_cluster/jobs.json"),
        ])
        .args([
            "--formula",
            "ncpus",
            "--tree",
            &data_str("share/resource_group"),
        ])
        .args(["--json"])
        .output()
        .unwrap());
    assert_eq!(
        json_of(here.as_bytes())["jobs"],
        json_of(other.as_bytes())["jobs"]
    );
    // A flux queue takes mf_priority's path, with its database.
    let db = dir.path().join("accounting.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(
            &std::fs::read_to_string(format!("{r}/examples/flux_priority/accounting.sql")).unwrap(),
        )
        .unwrap();
    let out = ok(&fairsort_home(&home)
        .args([
            "order",
            "--jobs",
            &format!("{r}/examples/flux_priority/flux-jobs.json"),
        ])
        .arg("--tree")
        .arg(&db)
        .output()
        .unwrap());
    assert!(out.contains("flux-accounting mf_priority"), "{out}");
    // And a Slurm queue still gets sprio's priorities from the stored slurm.conf.
    let out = ok(&fairsort_home(&home)
        .args(["order", "--jobs", &data_str("slurm_priority/squeue.json")])
        .args(["--at", "1764000000"])
        .output()
        .unwrap());
    assert!(
        out.contains("PRIORITY") && out.contains("FAIRSHARE"),
        "{out}"
    );
    assert!(out.contains("weights   home "), "{out}");
}

#[test]
fn site_show_tells_what_the_home_holds() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h");
    slurm_home(&home);
    let table = ok(&fairsort_home(&home)
        .args(["site", "show"])
        .output()
        .unwrap());
    for want in [
        "site         Slurm",
        "tree.toml (slurm tree, root root, 11 nodes)",
        "sshare.psv (sshare), imported ",
        "slurm.conf, qos",
        "PriorityWeightFairshare=",
        "algorithm    fair-tree",
        "half-life    7 days (604800 s)",
        "cluster      10 nodes, 320 cores",
    ] {
        assert!(table.contains(want), "missing {want:?} in\n{table}");
    }
    let json = json_of(
        ok(&fairsort_home(&home)
            .args(["site", "show", "--json"])
            .output()
            .unwrap())
        .as_bytes(),
    );
    assert_eq!(json["site"], "slurm");
    assert_eq!(json["recorded"], true);
    assert_eq!(json["tree"]["nodes"], 11);
    assert_eq!(json["tree"]["imported"]["format"], "sshare");
    assert_eq!(json["tree"]["edited_since_import"], false);
    assert!(json["tree"]["imported"]["source"]
        .as_str()
        .unwrap()
        .ends_with("slurm_priority/sshare.psv"));
    assert_eq!(json["decay"]["half_life"], 604800.0);
    assert_eq!(json["algorithm"], "fair-tree");
    // A hand edit of the stored tree shows.
    let tree = home.join("tree.toml");
    let text = std::fs::read_to_string(&tree).unwrap();
    std::fs::write(&tree, format!("{text}\n# edited\n")).unwrap();
    let json = json_of(
        ok(&fairsort_home(&home)
            .args(["site", "show", "--json"])
            .output()
            .unwrap())
        .as_bytes(),
    );
    assert_eq!(json["tree"]["edited_since_import"], true);
    // A home without a record is a PBS home.
    let plain = dir.path().join("plain");
    let json = json_of(
        ok(&fairsort_home(&plain)
            .args(["site", "show", "--json"])
            .output()
            .unwrap())
        .as_bytes(),
    );
    assert_eq!(
        (json["site"].as_str(), json["recorded"].as_bool()),
        (Some("pbs"), Some(false))
    );
}

#[test]
fn a_bad_site_record_is_reported_and_never_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h");
    slurm_home(&home);
    let site = home.join("site.toml");
    std::fs::write(&site, "kind = \"lsf\"\n").unwrap();
    let out = fairsort_home(&home)
        .args(["site", "show"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("site.toml:1:"), "{err}");
    let out = fairsort_home(&home)
        .args(["tree", "import", &data_str("slurm_priority/sshare.psv")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&site).unwrap(), "kind = \"lsf\"\n");
}

#[test]
fn site_remove_removes_the_site_and_is_audited() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h");
    slurm_home(&home);
    let out = ok(&fairsort_home(&home)
        .args(["site", "remove"])
        .output()
        .unwrap());
    assert!(out.contains("removed the Slurm site"), "{out}");
    for f in ["tree.toml", "slurm.toml", "site.toml"] {
        assert!(!home.join(f).exists(), "{f} still there");
    }
    assert!(home.join("server.toml").exists());
    let audit = std::fs::read_to_string(home.join("audit.log")).unwrap();
    let last = audit.lines().last().unwrap();
    assert!(
        last.ends_with("site remove (Slurm: tree.toml, slurm.toml, site.toml)"),
        "{audit}"
    );
    // Nothing left to remove: an error, and no audit line.
    let out = fairsort_home(&home)
        .args(["site", "remove"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(home.join("audit.log")).unwrap(),
        audit
    );
    // Re-import replaces a site: a PBS tree makes a PBS site and drops the Slurm configuration.
    slurm_home(&home);
    ok(&fairsort_home(&home)
        .args(["tree", "import", &data_str("share/resource_group")])
        .output()
        .unwrap());
    assert!(!home.join("slurm.toml").exists());
    let json = json_of(
        ok(&fairsort_home(&home)
            .args(["site", "show", "--json"])
            .output()
            .unwrap())
        .as_bytes(),
    );
    assert_eq!(json["site"], "pbs");
}

#[test]
fn site_remove_is_for_managers_only() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h");
    slurm_home(&home);
    ok(&fairsort_home(&home)
        .args(["qmgr", "-c", "set server managers = nobody@*"])
        .output()
        .unwrap());
    let out = fairsort_home(&home)
        .args(["site", "remove"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("15007"));
    assert!(home.join("site.toml").exists() && home.join("slurm.toml").exists());
}

#[test]
fn headers_and_json_name_the_sources() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h");
    slurm_home(&home);
    let r = root();
    let jobs = format!("{r}/examples/pbs_cluster/jobs.json");
    let rg = data_str("share/resource_group");
    let out = ok(&fairsort_home(&home)
        .args([
            "order",
            "--jobs",
            &jobs,
            "--formula",
            "ncpus",
            "--tree",
            &rg,
        ])
        .output()
        .unwrap());
    assert!(
        out.contains(&format!("sources:    tree      --tree {rg} (pbs)")),
        "{out}"
    );
    assert!(out.contains("            formula   --formula\n"), "{out}");
    assert!(out.contains("            half-life home "), "{out}");
    let json = json_of(
        ok(&fairsort_home(&home)
            .args([
                "order",
                "--jobs",
                &jobs,
                "--formula",
                "ncpus",
                "--tree",
                &rg,
                "--json",
            ])
            .output()
            .unwrap())
        .as_bytes(),
    );
    let s = &json["sources"];
    assert_eq!(s["tree"]["from"], "file");
    assert_eq!(s["tree"]["flag"], "--tree");
    assert_eq!(s["formula"]["from"], "flag");
    assert_eq!(s["site"], "slurm");
    // The home's own tree names its import.
    let json = json_of(
        ok(&fairsort_home(&home)
            .args(["share", "--json"])
            .output()
            .unwrap())
        .as_bytes(),
    );
    assert_eq!(json["sources"]["tree"]["from"], "home");
    assert_eq!(json["sources"]["tree"]["imported"]["format"], "sshare");
    assert_eq!(json["sources"]["algorithm"]["value"], "fair-tree");
    // An example names itself.
    let out = ok(&fairsort().args(["order", "--example"]).output().unwrap());
    assert!(out.contains("sources:    tree      example pbs"), "{out}");
}

#[test]
fn replay_names_its_half_life_and_its_trees_source() {
    let dir = tempfile::tempdir().unwrap();
    let r = root();
    let trace = format!("{r}/examples/replay/small.swf");
    let out = ok(&fairsort()
        .args(["replay", "--trace", &trace, "--formula", "fairshare_factor"])
        .output()
        .unwrap());
    assert!(
        out.contains("half-life default (7 days (604800 s))"),
        "{out}"
    );
    assert!(
        out.contains(&format!("tree      built from the trace {trace}")),
        "{out}"
    );
    // From a home: the home's PBS decay (1 day from `init`'s defaults) and its tree.
    let home = dir.path().join("h");
    ok(&fairsort_home(&home)
        .args(["tree", "import", &data_str("share/resource_group")])
        .output()
        .unwrap());
    let out = ok(&fairsort_home(&home)
        .args(["replay", "--trace", &trace, "--formula", "fairshare_factor"])
        .output()
        .unwrap());
    assert!(out.contains("half-life home "), "{out}");
    assert!(
        out.contains("(1 day (86400 s); fairshare_decay_time 86400 s"),
        "{out}"
    );
    assert!(out.contains("tree      home "), "{out}");
    let json = json_of(
        ok(&fairsort()
            .args(["replay", "--trace", &trace, "--formula", "fairshare_factor"])
            .args([
                "--tree",
                &data_str("share/resource_group"),
                "--half-life",
                "3600",
            ])
            .arg("--json")
            .output()
            .unwrap())
        .as_bytes(),
    );
    assert_eq!(json["sources"]["half_life"]["from"], "flag");
    assert_eq!(json["sources"]["half_life"]["value"], "3600");
    assert_eq!(json["sources"]["tree"]["flag"], "--tree");
}

#[test]
fn a_slurm_homes_share_uses_fair_tree_and_the_real_root_name() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h");
    slurm_home(&home);
    let out = ok(&fairsort_home(&home).arg("share").output().unwrap());
    assert!(out.contains("LevelFS"), "{out}");
    assert!(!out.contains("TREEROOT"), "{out}");
    assert!(out.contains("\nroot "), "{out}");
    let json = json_of(
        ok(&fairsort_home(&home)
            .args(["share", "--json"])
            .output()
            .unwrap())
        .as_bytes(),
    );
    assert_eq!(json["algorithm"], "fair-tree");
    // NO_FAIR_TREE in slurm.conf: the classic algorithm.
    let conf = std::fs::read_to_string(data_str("slurm_priority/slurm.conf")).unwrap();
    let conf = crate::common::write(
        dir.path(),
        "classic.conf",
        &conf.replace(
            "PriorityFlags=ACCRUE_ALWAYS",
            "PriorityFlags=ACCRUE_ALWAYS,NO_FAIR_TREE",
        ),
    );
    ok(&fairsort_home(&home)
        .args(["slurm", "import", "--conf"])
        .arg(&conf)
        .output()
        .unwrap());
    let json = json_of(
        ok(&fairsort_home(&home)
            .args(["share", "--json"])
            .output()
            .unwrap())
        .as_bytes(),
    );
    assert_eq!(json["algorithm"], "classic");
}
