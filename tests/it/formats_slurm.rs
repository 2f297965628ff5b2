//! Slurm readers against slurm.md §6/§7: T1 and T2 as `sshare -a -l -P`/`-p` captures and as
//! `sacctmgr show assoc -P` output.

use approx::assert_abs_diff_eq;
use fairsort::fairshare::spec::{NodeKind, Shares, TreeSource, TreeSpec};
use fairsort::inputs::{read_tree, TreeFormat};
use fairsort::slurm::{parse_sacctmgr, parse_sshare, parse_sshare_rows};

use crate::common::{data, node};

/// The text of tests/data/formats/NAME.
fn text(name: &str) -> String {
    std::fs::read_to_string(data(&format!("formats/{name}"))).unwrap()
}

fn shape(t: &TreeSpec) -> Vec<(String, Option<String>, NodeKind, Shares)> {
    let mut v: Vec<_> = t
        .nodes
        .iter()
        .map(|n| (n.name.clone(), n.parent.clone(), n.kind, n.shares))
        .collect();
    v.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    v
}

#[test]
fn t2_fair_tree_capture_rows_keep_printed_values() {
    let rows = parse_sshare_rows(&text("t2_fair_tree.psv")).unwrap();
    assert_eq!(rows.len(), 35);
    let root = &rows[0];
    assert_eq!(
        (
            root.depth,
            root.account.as_str(),
            root.raw_shares,
            root.raw_usage
        ),
        (0, "root", None, Some(240.0))
    );
    assert_eq!((root.norm_usage, root.effective_usage), (None, Some(1.0)));
    let u1 = rows
        .iter()
        .find(|r| r.user.as_deref() == Some("u1"))
        .unwrap();
    assert_eq!(u1.level_fs, Some(f64::INFINITY));
    let ud1 = rows
        .iter()
        .find(|r| r.user.as_deref() == Some("uD1"))
        .unwrap();
    assert_eq!((ud1.raw_shares, ud1.level_fs), (Some(Shares::Parent), None));
    // Printed 6-decimal values, kept exactly as printed (tolerance 1e-12).
    let uga2 = rows
        .iter()
        .find(|r| r.user.as_deref() == Some("uGA2"))
        .unwrap();
    assert_abs_diff_eq!(uga2.norm_shares.unwrap(), 0.5, epsilon = 1e-12);
    assert_abs_diff_eq!(uga2.norm_usage.unwrap(), 0.025, epsilon = 1e-12);
    assert_abs_diff_eq!(uga2.effective_usage.unwrap(), 0.6, epsilon = 1e-12);
    assert_abs_diff_eq!(uga2.fairshare.unwrap(), 0.095238, epsilon = 1e-12);
    assert_abs_diff_eq!(uga2.level_fs.unwrap(), 0.833333, epsilon = 1e-12);
    let ad = rows
        .iter()
        .find(|r| r.account == "aD" && r.user.is_none())
        .unwrap();
    assert_eq!((ad.depth, ad.fairshare), (1, None));
    assert_abs_diff_eq!(ad.level_fs.unwrap(), 0.524476, epsilon = 1e-12);
}

#[test]
fn t2_tree_from_indentation() {
    let t = read_tree(&data("formats/t2_fair_tree.psv"), None).unwrap();
    assert_eq!(t.source, TreeSource::Slurm);
    assert_eq!(t.root_name, "root");
    assert_eq!(t.root_usage, Some(240.0));
    assert_eq!(t.nodes.len(), 34);
    assert_eq!(
        t.nodes.iter().filter(|n| n.kind == NodeKind::User).count(),
        21,
        "N = 21"
    );
    let u1 = node(&t, "u1");
    assert_eq!(
        (u1.parent.as_deref(), u1.kind, u1.shares, u1.usage),
        (None, NodeKind::User, Shares::Count(10), Some(0.0))
    );
    assert_eq!(node(&t, "aAA").parent.as_deref(), Some("aA"));
    let uaa1 = node(&t, "uAA1");
    assert_eq!(
        (uaa1.parent.as_deref(), uaa1.usage, uaa1.line),
        (Some("aAA"), Some(20.0), Some(7))
    );
    let ada = node(&t, "aDA");
    assert_eq!(
        (ada.kind, ada.shares, ada.parent.as_deref(), ada.usage),
        (NodeKind::Account, Shares::Parent, Some("aD"), Some(45.0))
    );
    assert_eq!(node(&t, "uDA1").shares, Shares::Parent);
    assert_eq!(node(&t, "aE1").kind, NodeKind::User);
    assert_eq!(node(&t, "uG1").parent.as_deref(), Some("aG"));
    assert_eq!(node(&t, "uGA2").parent.as_deref(), Some("aGA"));
    assert_eq!(node(&t, "aC").shares, Shares::Count(0));
}

#[test]
fn p_and_capital_p_captures_agree() {
    let big = parse_sshare(&text("t2_fair_tree.psv")).unwrap();
    let small = read_tree(&data("formats/t2_fair_tree_p.txt"), None).unwrap();
    assert_eq!(big, small);
    let rows = parse_sshare_rows(&text("t2_fair_tree_p.txt")).unwrap();
    assert_eq!(rows.last().unwrap().fairshare, Some(0.095238));
}

#[test]
fn t1_classic_capture() {
    let t = read_tree(&data("formats/t1_classic_p.txt"), Some(TreeFormat::Sshare)).unwrap();
    assert_eq!(t.root_usage, Some(100.0));
    assert_eq!(t.nodes.len(), 13);
    assert_eq!(node(&t, "User6").usage, Some(30.0));
    assert_eq!(node(&t, "AccountG").shares, Shares::Count(0));
    assert_eq!(node(&t, "User3").parent.as_deref(), Some("AccountC"));
    let rows = parse_sshare_rows(&text("t1_classic.psv")).unwrap();
    let user1 = rows
        .iter()
        .find(|r| r.user.as_deref() == Some("User1"))
        .unwrap();
    assert_abs_diff_eq!(user1.effective_usage.unwrap(), 0.3875, epsilon = 1e-12);
    assert_abs_diff_eq!(user1.fairshare.unwrap(), 0.408479, epsilon = 1e-12);
    assert_eq!(user1.level_fs, None, "classic prints no LevelFS column");
}

#[test]
fn sacctmgr_t2_matches_the_sshare_tree() {
    let from_sacctmgr = read_tree(&data("formats/t2_sacctmgr.psv"), None).unwrap();
    let from_sshare = parse_sshare(&text("t2_fair_tree.psv")).unwrap();
    assert_eq!(shape(&from_sacctmgr), shape(&from_sshare));
    assert_eq!(from_sacctmgr.root_usage, None);
    assert!(from_sacctmgr.nodes.iter().all(|n| n.usage.is_none()));
    assert_eq!(node(&from_sacctmgr, "aDA").line, Some(22));
}

#[test]
fn users_in_several_accounts_and_partitions() {
    let text = [
        "Account|User|Partition|RawShares|NormShares|RawUsage|EffectvUsage|FairShare",
        "root||||0.000000|30|1.000000|",
        " chem|||1|0.5|10|0.3|",
        "  chem|alice||1|0.5|10|0.3|0.5",
        " phys|||1|0.5|20|0.6|",
        "  phys|alice||1|0.5|15|0.4|0.4",
        "  phys|alice|gpu|1|0.5|5|0.2|0.6",
    ]
    .join("\n");
    let t = parse_sshare(&text).unwrap();
    let alices: Vec<_> = t
        .nodes
        .iter()
        .filter(|n| n.name.starts_with("alice"))
        .map(|n| (n.name.as_str(), n.parent.as_deref(), n.usage))
        .collect();
    assert_eq!(
        alices,
        [
            ("alice", Some("chem"), Some(10.0)),
            ("alice", Some("phys"), Some(15.0)),
            ("alice@gpu", Some("phys"), Some(5.0))
        ]
    );
    let sacct = "Cluster|Account|User|Partition|Share|ParentName\nc|root||||\nc|chem|||1|root\nc|chem|alice||parent|\nc|phys|||3|root\nc|phys|alice||2|\n";
    let t = parse_sacctmgr(sacct).unwrap();
    let alices: Vec<_> = t
        .nodes
        .iter()
        .filter(|n| n.name == "alice")
        .map(|n| (n.parent.as_deref(), n.shares))
        .collect();
    assert_eq!(
        alices,
        [
            (Some("chem"), Shares::Parent),
            (Some("phys"), Shares::Count(2))
        ]
    );
}

#[test]
fn bad_sshare_input_names_the_line() {
    let hdr = "Account|User|RawShares|NormShares|RawUsage\nroot|||0.0|10\n";
    let e = |body: &str| {
        parse_sshare(&format!("{hdr}{body}"))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        e(" a||1|0.5\n"),
        "sshare:3: expected 5 `|`-separated fields as in the header, found 4"
    );
    assert_eq!(e(" a||-2|0.5|1\n"), "sshare:3: RawShares `-2` is negative");
    assert_eq!(
        e(" a||x|0.5|1\n"),
        "sshare:3: RawShares `x` is not a non-negative integer"
    );
    assert_eq!(e(" a||1|0.5|nan\n"), "sshare:3: RawUsage is NaN");
    assert_eq!(e(" a||1|0.5|inf\n"), "sshare:3: RawUsage is infinite");
    assert_eq!(
        e(" a||1|0.5|1\n   b||1|0.5|1\n"),
        "sshare:4: account `b` is indented 3 levels but the enclosing account is at level 1"
    );
    assert_eq!(
        e(" a||1|0.5|1\n  z|u|1|0.5|1\n"),
        "sshare:4: user `u` of account `z` is not indented one level below that account"
    );
    assert_eq!(
        e(" a||1|zz|1\n"),
        "sshare:3: NormShares `zz` is not a number"
    );
    let e2 = parse_sshare("Account User RawShares\nroot\n")
        .unwrap_err()
        .to_string();
    assert!(e2.starts_with("sshare:1: no `|` separators"), "{e2}");
}

#[test]
fn bad_sacctmgr_input_names_the_line() {
    let e = |s: &str| parse_sacctmgr(s).unwrap_err().to_string();
    assert_eq!(
        e("Cluster|Account|User|Partition|Share|ParentName\nc|root||||\nc|a|||-1|root\n"),
        "sacctmgr:3: Share `-1` is negative"
    );
    assert_eq!(
        e("Cluster|Account|User|Partition|Share|ParentName\nc|root||||\nd|a|||1|root\n"),
        "sacctmgr:3: rows of clusters `c` and `d`: show one cluster (cluster=NAME)"
    );
    assert!(e("Cluster|Account|User|Share\nc|root||1\n").contains("no ParentName column"));
}
