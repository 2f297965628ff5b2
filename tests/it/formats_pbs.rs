//! PBS readers and writers against openpbs.md §3.2, §3.6 and the §4.1 tree.

use approx::assert_relative_eq;
use fairsort::fairshare::spec::{NodeKind, Shares, TreeSource, TreeSpec};
use fairsort::inputs::{read_tree, TreeFormat};
use fairsort::pbs;
use fairsort::pbs::PbsUsage;

use crate::common::{data, node};

fn tree() -> TreeSpec {
    read_tree(&data("formats/resource_group"), None).unwrap()
}

/// PBS group usage as the algorithm derives it: 1 + the sum of the listed leaves below.
fn group_usage(t: &TreeSpec, group: Option<&str>) -> f64 {
    1.0 + t
        .nodes
        .iter()
        .filter(|n| n.parent.as_deref() == group)
        .map(|n| match n.kind {
            NodeKind::User => n.usage.unwrap_or(0.0),
            NodeKind::Account => group_usage(t, Some(&n.name)) - 1.0,
        })
        .sum::<f64>()
}

#[test]
fn section_4_1_tree_is_detected_and_read() {
    let t = tree();
    assert_eq!(t.source, TreeSource::Pbs);
    assert_eq!(t.root_name, "TREEROOT");
    assert_eq!(t.unknown_shares, Some(0));
    let names: Vec<_> = t.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        ["group1", "group2", "pbsuser", "pbsuser1", "pbsuser2", "pbsuser3"]
    );
    let g2 = node(&t, "group2");
    assert_eq!(
        (g2.kind, g2.id, g2.shares, g2.parent.as_deref()),
        (NodeKind::Account, Some(20), Shares::Count(60), None)
    );
    let u3 = node(&t, "pbsuser3");
    assert_eq!(
        (u3.kind, u3.id, u3.shares, u3.line),
        (NodeKind::User, Some(22), Shares::Count(40), Some(8))
    );
    assert_eq!(u3.parent.as_deref(), Some("group2"));
}

#[test]
fn section_4_1_text_usage_gives_pbsfs_usages() {
    let mut t = tree();
    let text = std::fs::read_to_string(data("formats/usage.txt")).unwrap();
    let u = pbs::read_usage_text(&text).unwrap();
    assert_eq!(u.entries.len(), 3);
    fairsort::usage::apply_usage(&mut t, fairsort::pbs::pbs_records(&u)).unwrap();
    assert_eq!(node(&t, "pbsuser").usage, Some(100.0));
    assert_eq!(
        node(&t, "pbsuser2").usage,
        None,
        "unlisted: PBS's starting 1, not added to groups"
    );
    assert_eq!(node(&t, "pbsuser3").usage, Some(1000.0));
    assert_eq!(
        node(&t, "group1").usage,
        None,
        "group usage is the algorithm's"
    );
    // pbsfs -p of openpbs.md §3.8: TREEROOT 1201, group1 201, group2 1001.
    assert_relative_eq!(group_usage(&t, Some("group1")), 201.0, epsilon = 1e-12);
    assert_relative_eq!(group_usage(&t, Some("group2")), 1001.0, epsilon = 1e-12);
    assert_relative_eq!(group_usage(&t, None), 1201.0, epsilon = 1e-12);
}

#[test]
fn binary_usage_round_trip_in_pbs_write_order() {
    let mut t = tree();
    let text = std::fs::read_to_string(data("formats/usage.txt")).unwrap();
    fairsort::usage::apply_usage(
        &mut t,
        fairsort::pbs::pbs_records(&pbs::read_usage_text(&text).unwrap()),
    )
    .unwrap();
    let u = pbs::usage_from_tree(&t, Some(1_700_000_000));
    // rec_write_usage order: group1's children (reverse file order), then group2's; usage 1 skipped.
    let expected = vec![
        ("pbsuser1".to_string(), 100.0),
        ("pbsuser".to_string(), 100.0),
        ("pbsuser3".to_string(), 1000.0),
    ];
    assert_eq!(u.entries, expected);
    let bytes = pbs::write_usage_binary(&u);
    assert_eq!(bytes.len(), 24 + 8 + 3 * 64);
    assert_eq!(&bytes[..9], b"PBS_MAG!\0");
    assert_eq!(f64::from_le_bytes(bytes[16..24].try_into().unwrap()), 2.0);
    assert_eq!(
        i64::from_le_bytes(bytes[24..32].try_into().unwrap()),
        1_700_000_000
    );
    assert_eq!(&bytes[32..41], b"pbsuser1\0");
    assert_eq!(f64::from_le_bytes(bytes[88..96].try_into().unwrap()), 100.0);
    let back = pbs::read_usage_binary(&bytes).unwrap();
    assert_eq!(
        back,
        PbsUsage {
            version: 2,
            last_decay: Some(1_700_000_000),
            entries: expected
        }
    );
}

fn v1_record(name: &[u8], usage: f64) -> Vec<u8> {
    let mut r = vec![0u8; 24];
    r[..name.len()].copy_from_slice(name);
    r[16..].copy_from_slice(&usage.to_le_bytes());
    r
}

#[test]
fn hand_built_v1_file() {
    let mut bytes = v1_record(b"alice", 5.0);
    bytes.extend(v1_record(b"bob_1", 7.5));
    bytes.extend([1, 2, 3]); // a trailing partial record, ignored like fread()
    let u = pbs::read_usage_binary(&bytes).unwrap();
    assert_eq!(u.version, 1);
    assert_eq!(u.last_decay, None);
    assert_eq!(
        u.entries,
        vec![("alice".to_string(), 5.0), ("bob_1".to_string(), 7.5)]
    );
}

#[test]
fn binary_errors_use_pbs_messages() {
    let good = pbs::write_usage_binary(&PbsUsage {
        version: 2,
        last_decay: Some(0),
        entries: vec![("a".into(), 2.0)],
    });
    let mut bad_version = good.clone();
    bad_version[16..24].copy_from_slice(&3.0f64.to_le_bytes());
    assert_eq!(
        pbs::read_usage_binary(&bad_version)
            .unwrap_err()
            .to_string(),
        "usage: Invalid usage file header"
    );
    let mut old_decay = good.clone();
    old_decay[24..32].copy_from_slice(&5i64.to_le_bytes());
    assert_eq!(
        pbs::read_usage_binary(&old_decay).unwrap_err().to_string(),
        "usage: Invalid usage file header"
    );
    let mut negative = good.clone();
    negative[88..96].copy_from_slice(&(-1.0f64).to_le_bytes());
    assert_eq!(
        pbs::read_usage_binary(&negative).unwrap_err().to_string(),
        "usage: record 1 (byte 32): Invalid entity"
    );
    let mut unterminated = good.clone();
    unterminated[32..82].fill(b'a');
    assert!(pbs::read_usage_binary(&unterminated)
        .unwrap_err()
        .to_string()
        .ends_with("Invalid entity"));
    let mut nan = v1_record(b"x", 0.0);
    nan[16..].copy_from_slice(&f64::NAN.to_le_bytes());
    assert!(pbs::read_usage_binary(&nan)
        .unwrap_err()
        .to_string()
        .ends_with("Invalid entity"));
    // Shorter than a header: PBS's first fread fails and nothing is read.
    assert_eq!(pbs::read_usage_binary(&[1, 2, 3]).unwrap().entries, vec![]);
}

#[test]
fn text_usage_errors_name_the_line() {
    let e = |s: &str| pbs::read_usage_text(s).unwrap_err().to_string();
    assert_eq!(e("# c\nbob abc\n"), "usage:2: usage `abc` is not a number");
    assert_eq!(
        e("bob 1 2\n"),
        "usage:1: expected `name usage`, found 3 fields"
    );
    assert_eq!(e("\n\nbob -3\n"), "usage:3: usage -3 is negative");
    assert_eq!(e("bob nan\n"), "usage:1: usage is NaN");
    assert_eq!(e("bob inf\n"), "usage:1: usage is infinite");
}

#[test]
fn names_not_in_the_tree_go_under_unknown() {
    let mut t = tree();
    let u = PbsUsage {
        version: 0,
        last_decay: None,
        entries: vec![("stranger".into(), 42.0)],
    };
    fairsort::usage::apply_usage(&mut t, fairsort::pbs::pbs_records(&u)).unwrap();
    let s = node(&t, "stranger");
    assert_eq!(
        (s.parent.as_deref(), s.shares, s.usage, s.kind),
        (
            Some("unknown"),
            Shares::Count(1),
            Some(42.0),
            NodeKind::User
        )
    );
    let g = PbsUsage {
        version: 0,
        last_decay: None,
        entries: vec![("group1".into(), 3.0)],
    };
    assert!(
        fairsort::usage::apply_usage(&mut t, fairsort::pbs::pbs_records(&g))
            .unwrap_err()
            .to_string()
            .contains("`group1` is a group")
    );
}

#[test]
fn resource_group_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("resource_group");
    std::fs::write(
        &p,
        "a 1 root 1\nb 2 a 1\nc 3 b 1\nd 4 c 1\ne 5 d 1\nf 6 e 1\nbob 7 root 1\n",
    )
    .unwrap();
    assert!(read_tree(&p, Some(TreeFormat::Pbs)).is_ok());
    std::fs::write(
        &p,
        "a 1 root 1\nbob 2 a 1\n# c\n\nx 3 a 1\ny 4 a 1\nbob 7 root 1\n",
    )
    .unwrap();
    let e = read_tree(&p, Some(TreeFormat::Pbs))
        .unwrap_err()
        .to_string();
    assert_eq!(e, format!("{}:7: entity bob is not unique", p.display()));
    std::fs::write(&p, b"a 1 root 1\n\xff 2 a 1\n").unwrap();
    let e = read_tree(&p, Some(TreeFormat::Pbs))
        .unwrap_err()
        .to_string();
    assert_eq!(e, format!("{}:2: not valid UTF-8 text", p.display()));
}

#[test]
fn resource_group_round_trips_with_ids() {
    let t = tree();
    let text = pbs::write_resource_group(&t).unwrap();
    let back = pbs::parse_resource_group(&text, 0).unwrap();
    let mut a: Vec<_> = t
        .nodes
        .iter()
        .map(|n| (n.name.clone(), n.parent.clone(), n.kind, n.shares, n.id))
        .collect();
    let mut b: Vec<_> = back
        .nodes
        .iter()
        .map(|n| (n.name.clone(), n.parent.clone(), n.kind, n.shares, n.id))
        .collect();
    a.sort_by(|x, y| x.0.cmp(&y.0));
    b.sort_by(|x, y| x.0.cmp(&y.0));
    assert_eq!(a, b);
}
