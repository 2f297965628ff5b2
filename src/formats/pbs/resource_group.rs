//! PBS `sched_priv/resource_group`: `name id parent shares` lines (openpbs.md §3.2), read with
//! `parse_group()`'s rules and messages, and written back in the same layout.

use std::collections::{HashMap, HashSet};

use crate::fairshare::spec::{NodeKind, NodeSpec, Shares, TreeSource, TreeSpec};
use crate::formats::text;
use crate::formats::FormatError;

pub use super::spec_names::SpecNames;

/// Label used in messages when no path is known.
pub const FILE: &str = "resource_group";
/// PBS's root node name.
pub const ROOT_NAME: &str = "TREEROOT";
/// PBS's pre-created group for entities not in the file.
pub const UNKNOWN_GROUP: &str = "unknown";
/// PBS reads the file with `fgets(buf, 256)`: at most 255 characters per line.
pub const MAX_LINE: usize = 255;

/// PBS's `skip_line()`: blank lines and lines whose first non-space character is `#` or `*`.
fn skip_line(line: &str) -> bool {
    let t = line.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b');
    t.is_empty() || t.starts_with('#') || t.starts_with('*')
}

/// C `strtol(s, &end, 10)` with `*end == '\0'` required, then narrowed to `int` as PBS stores it.
fn strtol_int(tok: &str) -> Option<i64> {
    let t = tok.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse::<i64>().ok().filter(|v| i32::try_from(*v).is_ok())
}

/// The message PBS prints after any bad line.
fn line_error(line: usize, detail: Option<&str>) -> FormatError {
    let base = format!("resgroup: error on line {line}.");
    FormatError::line(
        FILE,
        line,
        match detail {
            Some(d) => format!("{base} ({d})"),
            None => base,
        },
    )
}

/// Parses a `resource_group` file. The result has source `Pbs`, root `TREEROOT`,
/// `unknown_shares` set, each node's id and line; nodes with children are accounts, the others
/// users. Parents must come before their children, as PBS requires. PBS's pre-created `unknown`
/// group is not emitted as a node (consumers create it from `unknown_shares`); entities placed
/// under it name `unknown` as their parent.
///
/// PBS logs a bad line and goes on; fairsort stops at the first one with PBS's message.
/// Differences, all refusals of input PBS would misread: lines over 255 characters (PBS splits
/// them), negative shares and ids outside `int`.
pub fn parse_resource_group(text: &str, unknown_shares: u64) -> Result<TreeSpec, FormatError> {
    parse_resource_group_indexed(text, unknown_shares).map(|(spec, _)| spec)
}

/// [`parse_resource_group`], with the index of the nodes by name that the reader builds anyway
/// (to check that names are unique and parents exist), for [`crate::usage`] to apply a usage
/// file without indexing the names again.
pub fn parse_resource_group_indexed(
    text: &str,
    unknown_shares: u64,
) -> Result<(TreeSpec, SpecNames), FormatError> {
    let hint = text::line_count_hint(text);
    let mut nodes: Vec<NodeSpec> = Vec::with_capacity(hint);
    crate::fairshare::huge_pages::advise(&mut nodes);
    // Every node read so far by name (TREEROOT and unknown are not nodes: they are names of
    // the tree that no line may take).
    let mut names = SpecNames::with_capacity(hint);
    // Siblings come together in a generated file: the last parent found is tried first.
    let mut last_parent: Option<(&str, usize)> = None;

    for item in text::lines(text, FILE) {
        let (n, line) = item?;
        if skip_line(line) {
            continue;
        }
        if line.len() > MAX_LINE {
            return Err(line_error(
                n,
                Some("longer than 255 characters, PBS reads lines in 255-character pieces"),
            ));
        }
        let mut toks = line.split([' ', '\t']).filter(|t| !t.is_empty());
        let (Some(name), Some(id_tok), Some(parent_tok), Some(shares_tok)) =
            (toks.next(), toks.next(), toks.next(), toks.next())
        else {
            return Err(line_error(n, Some("expected `name id parent shares`")));
        };
        let parent_name = if parent_tok == "root" {
            ROOT_NAME
        } else {
            parent_tok
        };
        // `Some(None)`: the root or `unknown`; `Some(Some(i))`: node i; `None`: no such name.
        let parent_found = match last_parent {
            _ if parent_name == ROOT_NAME || parent_name == UNKNOWN_GROUP => Some(None),
            Some((p, i)) if p == parent_name => Some(Some(i)),
            _ => names.find(&nodes, parent_name).map(Some),
        };
        if name == ROOT_NAME || name == UNKNOWN_GROUP || names.insert_next(&nodes, name).is_err() {
            return Err(FormatError::line(
                FILE,
                n,
                format!("entity {name} is not unique"),
            ));
        }
        let Some(parent_idx) = parent_found else {
            return Err(FormatError::line(
                FILE,
                n,
                format!("Parent ginfo of {name} doesnt exist."),
            ));
        };
        let Some(shares) = strtol_int(shares_tok) else {
            return Err(line_error(
                n,
                Some(&format!("shares `{shares_tok}` is not an integer")),
            ));
        };
        let Some(id) = strtol_int(id_tok) else {
            return Err(line_error(
                n,
                Some(&format!("id `{id_tok}` is not an integer")),
            ));
        };
        let shares = u64::try_from(shares)
            .map_err(|_| line_error(n, Some(&format!("shares {shares} is negative"))))?;
        let parent = (parent_name != ROOT_NAME).then(|| parent_name.to_string());
        // A node with children is a group.
        if let Some(i) = parent_idx {
            if let Some(p) = nodes.get_mut(i) {
                p.kind = NodeKind::Account;
            }
            last_parent = Some((parent_name, i));
        }
        let mut node = NodeSpec::new(name, parent, NodeKind::User, Shares::Count(shares));
        node.id = Some(id);
        node.line = Some(n);
        nodes.push(node);
    }
    let spec = TreeSpec {
        source: TreeSource::Pbs,
        root_name: ROOT_NAME.to_string(),
        root_usage: None,
        unknown_shares: Some(unknown_shares),
        nodes,
    };
    Ok((spec, names))
}

/// Writes `spec` as a `resource_group` file that [`parse_resource_group`] reads back to the same
/// nodes: parents before children, given ids kept, missing ids allocated above the largest one
/// in use (PBS reserves 0 for TREEROOT and 1 for `unknown`). Inactive nodes are left out (no
/// scheduler counts them); usage is not part of this file (see `write_usage_binary`).
///
/// Refuses what PBS cannot express: `parent` shares, a name used twice (PBS names are global, so
/// a user under several accounts), names PBS would misread, shares above `int`, nodes whose
/// parent is missing or that sit in a cycle, and the reserved names `TREEROOT`/`unknown` as
/// nodes.
pub fn write_resource_group(spec: &TreeSpec) -> Result<String, FormatError> {
    let err = |m: String| FormatError::unwritable(FILE, m);
    let nodes: Vec<&NodeSpec> = spec.nodes.iter().filter(|n| n.active).collect();
    let mut seen: HashSet<&str> = HashSet::new();
    for n in &nodes {
        if n.name == ROOT_NAME || n.name == UNKNOWN_GROUP || n.name == "root" {
            return Err(err(format!(
                "`{}` is a reserved PBS group name and cannot be a node",
                n.name
            )));
        }
        if n.name.is_empty()
            || n.name.contains([' ', '\t', '\n', '\r'])
            || n.name.starts_with(['#', '*'])
        {
            return Err(err(format!(
                "name `{}` cannot be written as one field",
                n.name
            )));
        }
        if !seen.insert(n.name.as_str()) {
            return Err(err(format!(
                "`{}` appears more than once (PBS entity names are unique in the whole tree)",
                n.name
            )));
        }
        match n.shares {
            Shares::Parent => {
                return Err(err(format!(
                    "`{}` has `parent` shares, which PBS does not have",
                    n.name
                )))
            }
            Shares::Count(c) if c > i32::MAX as u64 => {
                return Err(err(format!("`{}` has {c} shares, above PBS's int", n.name)))
            }
            _ => {}
        }
    }
    // Children by parent key ("" = root), in spec order.
    let mut children: HashMap<&str, Vec<&NodeSpec>> = HashMap::new();
    for n in &nodes {
        let key = match n.parent.as_deref() {
            None => "",
            Some(p) if p == ROOT_NAME || p == "root" => "",
            Some(p) => p,
        };
        children.entry(key).or_default().push(n);
    }
    let mut used: HashSet<i64> = nodes.iter().filter_map(|n| n.id).collect();
    used.insert(0);
    used.insert(1);
    let mut next_id = used.iter().copied().max().unwrap_or(1).max(1);
    let mut out =
        String::from("# name id parent shares (PBS resource_group, written by fairsort)\n");
    let mut written = 0usize;
    // Breadth-first from the root, then the implicit `unknown` group's children.
    let mut queue: std::collections::VecDeque<&str> = ["", UNKNOWN_GROUP].into_iter().collect();
    let mut visited: HashSet<&str> = HashSet::new();
    while let Some(key) = queue.pop_front() {
        if !visited.insert(key) {
            continue;
        }
        let Some(list) = children.get(key) else {
            continue;
        };
        for n in list {
            let id = match n.id {
                Some(id) => id,
                None => {
                    next_id += 1;
                    while used.contains(&next_id) {
                        next_id += 1;
                    }
                    used.insert(next_id);
                    next_id
                }
            };
            if i32::try_from(id).is_err() {
                return Err(err(format!("`{}` has id {id}, outside PBS's int", n.name)));
            }
            let parent = if key.is_empty() { "root" } else { key };
            let shares = match n.shares {
                Shares::Count(c) => c,
                Shares::Parent => 0, // refused above
            };
            let line = format!("{} {id} {parent} {shares}\n", n.name);
            if line.len() - 1 > MAX_LINE {
                return Err(err(format!(
                    "the line for `{}` is over 255 characters",
                    n.name
                )));
            }
            out.push_str(&line);
            written += 1;
            queue.push_back(n.name.as_str());
        }
    }
    if written != nodes.len() {
        let orphan = nodes
            .iter()
            .find(|n| n.parent.as_deref().is_some_and(|p| !visited.contains(p)))
            .map_or_else(String::new, |n| n.name.clone());
        return Err(err(format!(
            "`{orphan}` is not reachable from the root (missing parent or a cycle)"
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TREE: &str = "# §4.1\ngroup1 10 root 40\ngroup2 20 root 60\npbsuser 11 group1 50\n\
                        pbsuser1 12 group1 50\npbsuser2 21 group2 60\npbsuser3 22 group2 40\n";

    #[test]
    fn reads_the_pbsfs_tree() {
        let t = parse_resource_group(TREE, 0).unwrap();
        assert_eq!(t.root_name, "TREEROOT");
        assert_eq!(t.unknown_shares, Some(0));
        assert_eq!(t.nodes.len(), 6);
        let g1 = &t.nodes[0];
        assert_eq!(
            (g1.name.as_str(), g1.id, g1.kind),
            ("group1", Some(10), NodeKind::Account)
        );
        assert_eq!(g1.parent, None);
        let u = &t.nodes[5];
        assert_eq!(u.parent.as_deref(), Some("group2"));
        assert_eq!(
            (u.kind, u.shares, u.line),
            (NodeKind::User, Shares::Count(40), Some(7))
        );
    }

    #[test]
    fn pbs_messages() {
        let e = |s: &str| parse_resource_group(s, 0).unwrap_err().to_string();
        assert_eq!(
            e("a 1 root 1\na 2 root 1\n"),
            "resource_group: line 2: entity a is not unique"
        );
        assert_eq!(
            e("unknown 5 root 1\n"),
            "resource_group: line 1: entity unknown is not unique"
        );
        assert_eq!(
            e("b 1 a 1\na 2 root 1\n"),
            "resource_group: line 1: Parent ginfo of b doesnt exist."
        );
        assert!(e("a 1 root\n").starts_with("resource_group: line 1: resgroup: error on line 1."));
        assert!(e("\n\na 1 root 1x\n")
            .starts_with("resource_group: line 3: resgroup: error on line 3."));
        assert!(e("a x root 1\n").contains("id `x`"));
        assert!(e("a 1 root -4\n").contains("negative"));
    }

    #[test]
    fn comments_tabs_extra_columns_and_unknown_parent() {
        let t = parse_resource_group("  # c\n* star\n\na\t1\troot\t5\textra\nb 2 unknown 3\n", 7)
            .unwrap();
        assert_eq!(t.nodes.len(), 2);
        assert_eq!(t.nodes[1].parent.as_deref(), Some("unknown"));
        assert_eq!(t.unknown_shares, Some(7));
    }

    #[test]
    fn round_trip_and_id_allocation() {
        let t = parse_resource_group(TREE, 0).unwrap();
        let back = parse_resource_group(&write_resource_group(&t).unwrap(), 0).unwrap();
        let key = |t: &TreeSpec| {
            let mut v: Vec<_> = t
                .nodes
                .iter()
                .map(|n| (n.name.clone(), n.parent.clone(), n.kind, n.shares, n.id))
                .collect();
            v.sort_by(|a, b| a.0.cmp(&b.0));
            v
        };
        assert_eq!(key(&t), key(&back));

        let mut spec = TreeSpec::default();
        spec.nodes.push(NodeSpec::new(
            "acct",
            None,
            NodeKind::Account,
            Shares::Count(1),
        ));
        spec.nodes.push(NodeSpec::new(
            "u",
            Some("acct".into()),
            NodeKind::User,
            Shares::Count(2),
        ));
        let text = write_resource_group(&spec).unwrap();
        assert_eq!(text.lines().nth(1), Some("acct 2 root 1"));
        assert_eq!(text.lines().nth(2), Some("u 3 acct 2"));
    }

    #[test]
    fn refuses_what_pbs_cannot_express() {
        let mut spec = TreeSpec::default();
        spec.nodes.push(NodeSpec::new(
            "a",
            None,
            NodeKind::Account,
            Shares::Count(1),
        ));
        spec.nodes.push(NodeSpec::new(
            "b",
            None,
            NodeKind::Account,
            Shares::Count(1),
        ));
        spec.nodes.push(NodeSpec::new(
            "u",
            Some("a".into()),
            NodeKind::User,
            Shares::Count(1),
        ));
        spec.nodes.push(NodeSpec::new(
            "u",
            Some("b".into()),
            NodeKind::User,
            Shares::Count(1),
        ));
        assert!(write_resource_group(&spec)
            .unwrap_err()
            .to_string()
            .contains("more than once"));
        spec.nodes.pop();
        spec.nodes.push(NodeSpec::new(
            "p",
            Some("b".into()),
            NodeKind::User,
            Shares::Parent,
        ));
        assert!(write_resource_group(&spec)
            .unwrap_err()
            .to_string()
            .contains("parent"));
        spec.nodes.pop();
        spec.nodes.push(NodeSpec::new(
            "o",
            Some("zz".into()),
            NodeKind::User,
            Shares::Count(1),
        ));
        assert!(write_resource_group(&spec)
            .unwrap_err()
            .to_string()
            .contains("not reachable"));
    }
}
