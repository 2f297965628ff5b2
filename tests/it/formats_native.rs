//! fairsort's TOML/JSON tree: round trips of every other format's trees, detection, errors.

use std::path::Path;

use fairsort::fairshare::spec::{NodeKind, NodeSpec, Shares, TreeSource, TreeSpec};
use fairsort::inputs::{read_tree, TreeFormat};
use fairsort::native::tree::{read_json, read_toml, write_json, write_toml};
use fairsort::{pbs, slurm};

use crate::common::data;

/// Node order is document order (users, then accounts, depth-first); compare as sorted lists.
fn sorted(t: &TreeSpec) -> TreeSpec {
    let mut t = t.clone();
    for n in &mut t.nodes {
        n.line = None;
    }
    t.nodes
        .sort_by(|a, b| (&a.name, &a.parent).cmp(&(&b.name, &b.parent)));
    t
}

fn round_trips(t: &TreeSpec) {
    let toml_text = write_toml(t).unwrap();
    assert_eq!(
        sorted(&read_toml(&toml_text).unwrap()),
        sorted(t),
        "TOML:\n{toml_text}"
    );
    let json_text = write_json(t).unwrap();
    assert_eq!(
        sorted(&read_json(&json_text).unwrap()),
        sorted(t),
        "JSON:\n{json_text}"
    );
}

#[test]
fn slurm_t2_with_parent_shares_round_trips() {
    let text = std::fs::read_to_string(data("formats/t2_fair_tree.psv")).unwrap();
    round_trips(&slurm::parse_sshare(&text).unwrap());
}

#[test]
fn pbs_tree_with_ids_usage_and_unknown_round_trips() {
    let mut t = read_tree(&data("formats/resource_group"), None).unwrap();
    t.unknown_shares = Some(5);
    let u = pbs::PbsUsage {
        version: 0,
        last_decay: None,
        entries: vec![("pbsuser".into(), 100.0), ("stranger".into(), 3.5)],
    };
    fairsort::usage::apply_usage(&mut t, fairsort::pbs::pbs_records(&u)).unwrap();
    round_trips(&t);
    let text = write_toml(&t).unwrap();
    assert!(text.contains("unknown_shares = 5"), "{text}");
    assert!(text.contains("source = \"pbs\""), "{text}");
}

#[test]
fn inactive_nodes_root_usage_and_users_in_several_accounts_round_trip() {
    let mut t = TreeSpec {
        source: TreeSource::Flux,
        root_name: "top".into(),
        root_usage: Some(12.5),
        ..TreeSpec::default()
    };
    let mut a = NodeSpec::new("A", None, NodeKind::Account, Shares::Count(0));
    a.active = false;
    a.usage = Some(3.0);
    t.nodes.push(a);
    t.nodes
        .push(NodeSpec::new("B", None, NodeKind::Account, Shares::Parent));
    t.nodes.push(NodeSpec::new(
        "u",
        Some("A".into()),
        NodeKind::User,
        Shares::Count(1),
    ));
    t.nodes.push(NodeSpec::new(
        "u",
        Some("B".into()),
        NodeKind::User,
        Shares::Count(2),
    ));
    t.nodes
        .push(NodeSpec::new("v", None, NodeKind::User, Shares::Count(9)));
    round_trips(&t);
}

#[test]
fn documented_example_reads() {
    let text = r#"
version = 1
source = "slurm"
root = "root"
root_usage = 240.0

[[users]]
name = "u1"
shares = 10
usage = 0.0

[[accounts]]
name = "aD"
shares = 50

  [[accounts.users]]
  name = "uD1"
  shares = "parent"
  usage = 20.0

  [[accounts.accounts]]
  name = "aDA"
  shares = "parent"
  usage = 45.0
"#;
    let path = Path::new("tree.toml");
    assert_eq!(
        fairsort::inputs::detect_format(path, text.as_bytes()),
        Some(TreeFormat::Toml)
    );
    let t = read_toml(text).unwrap();
    let names: Vec<_> = t
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), n.parent.as_deref(), n.kind, n.shares))
        .collect();
    assert_eq!(
        names,
        [
            ("u1", None, NodeKind::User, Shares::Count(10)),
            ("aD", None, NodeKind::Account, Shares::Count(50)),
            ("uD1", Some("aD"), NodeKind::User, Shares::Parent),
            ("aDA", Some("aD"), NodeKind::Account, Shares::Parent),
        ]
    );
    assert_eq!(t.root_usage, Some(240.0));
    let json =
        r#"{"root": "root", "accounts": [{"name": "a", "users": [{"name": "x", "usage": 2.5}]}]}"#;
    let j = read_json(json).unwrap();
    assert_eq!(j.nodes[1].shares, Shares::Count(1), "shares default to 1");
    assert_eq!(j.source, TreeSource::Native);
}

#[test]
fn bad_native_input() {
    let e = read_toml("[[accounts]]\nname = \"a\"\nshares = \"half\"\n")
        .unwrap_err()
        .to_string();
    // Refused while reading, so the error names the line.
    assert_eq!(
        e,
        "tree.toml:3: shares must be a non-negative integer or \"parent\", not \"half\""
    );
    let e = read_toml("[[users]]\nname = \"u\"\nusage = -1.0\n")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "tree.toml:3: usage -1 is negative");
    let e = read_toml("[[users]]\nname = \"u\"\nshares = -3\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("tree.toml:3:"), "{e}");
    let e = read_toml("root = \"r\"\ncolour = 1\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("tree.toml:2:") && e.contains("colour"), "{e}");
    let e = read_json(
        "{\n  \"users\": [\n    {\"name\": \"u\", \"users\": [{\"name\": \"v\"}]}\n  ]\n}",
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        "tree.json: user `u`: users cannot have users or accounts"
    );
    let e = read_json("{\n\"root\": 3\n}").unwrap_err().to_string();
    assert!(e.starts_with("tree.json:2:"), "{e}");
    let e = read_toml("version = 7\n").unwrap_err().to_string();
    assert_eq!(e, "tree.toml: version 7 is not supported (only 1)");
    let mut t = TreeSpec::default();
    t.nodes.push(NodeSpec::new(
        "orphan",
        Some("nowhere".into()),
        NodeKind::User,
        Shares::Count(1),
    ));
    assert!(write_toml(&t)
        .unwrap_err()
        .to_string()
        .contains("`orphan` is not reachable"));
}

#[test]
fn every_format_is_detected_from_files() {
    let dir = tempfile::tempdir().unwrap();
    let t =
        slurm::parse_sshare(&std::fs::read_to_string(data("formats/t2_fair_tree.psv")).unwrap())
            .unwrap();
    let toml_path = dir.path().join("tree.txt");
    std::fs::write(&toml_path, write_toml(&t).unwrap()).unwrap();
    let json_path = dir.path().join("tree.data");
    std::fs::write(&json_path, write_json(&t).unwrap()).unwrap();
    for (path, format) in [
        (toml_path, TreeFormat::Toml),
        (json_path, TreeFormat::Json),
        (data("formats/resource_group"), TreeFormat::Pbs),
        (data("formats/t2_fair_tree.psv"), TreeFormat::Sshare),
        (data("formats/t2_sacctmgr.psv"), TreeFormat::Sacctmgr),
    ] {
        let head = std::fs::read(&path).unwrap();
        assert_eq!(
            fairsort::inputs::detect_format(&path, &head),
            Some(format),
            "{}",
            path.display()
        );
        assert!(read_tree(&path, None).is_ok());
    }
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "").unwrap();
    let e = read_tree(&empty, None).unwrap_err().to_string();
    assert!(e.ends_with("cannot tell the tree format; name it with --tree-format pbs|sshare|sacctmgr|sacctmgr-dump|flux-db|toml|json"), "{e}");
}

#[test]
fn every_reader_output_builds_a_valid_tree() {
    use fairsort::fairshare::tree::Tree;
    for name in [
        "resource_group",
        "t1_classic.psv",
        "t2_fair_tree.psv",
        "t2_fair_tree_p.txt",
        "t2_sacctmgr.psv",
    ] {
        let spec = read_tree(&data(&format!("formats/{name}")), None).unwrap();
        let back = read_toml(&write_toml(&spec).unwrap()).unwrap();
        assert!(Tree::build(spec).is_ok(), "{name}");
        assert!(Tree::build(back).is_ok(), "{name} via TOML");
    }
}

proptest::proptest! {
    /// No reader panics on arbitrary text (errors are fine).
    #[test]
    fn readers_never_panic(text in "[ -~\t\n|#*\u{e9}]{0,300}") {
        for f in [TreeFormat::Pbs, TreeFormat::Sshare, TreeFormat::Sacctmgr, TreeFormat::Toml, TreeFormat::Json] {
            let _ = fairsort::inputs::read_tree_str(&text, f);
        }
        let _ = pbs::read_usage_text(&text);
        let _ = fairsort::inputs::detect_format(Path::new("x"), text.as_bytes());
    }

    /// Nor the binary usage reader on arbitrary bytes.
    #[test]
    fn usage_binary_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
        let _ = pbs::read_usage_binary(&bytes);
        let mut with_magic = b"PBS_MAG!\0".to_vec();
        with_magic.extend(&bytes);
        let _ = pbs::read_usage_binary(&with_magic);
    }
}
