//! PBS `sched_priv/resource_group`: `name id parent shares` lines (openpbs.md §3.2), read with
//! `parse_group()`'s rules and messages, and written back in the same layout.

use std::collections::{HashMap, HashSet};

use crate::fairshare::spec::{NodeKind, NodeSpec, Shares, TreeSource, TreeSpec};
use crate::files::text;
use crate::files::FormatError;
use crate::parallel::stages;

use crate::pbs::spec_names;

pub use crate::pbs::defs::tree::{ROOT_NAME, UNKNOWN_GROUP};
pub use crate::pbs::spec_names::SpecNames;

/// Label used in messages when no path is known.
pub const FILE: &str = "resource_group";
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
///
/// A large file is read in two stages at once ([`stages`]): this thread splits the lines and
/// makes their nodes, a pool thread indexes them by name and links them to their parents; the
/// first error is the one a single pass over the lines meets (see [`Linker::add`]).
pub fn parse_resource_group_indexed(
    text: &str,
    unknown_shares: u64,
) -> Result<(TreeSpec, SpecNames), FormatError> {
    parse_indexed_from(text, unknown_shares, PIPELINE_MIN_BYTES)
}

/// How many lines ahead the second stage loads a name's slot into the cache: enough to cover
/// a cache miss with the work of the lines between.
const AHEAD: usize = 16;

/// Files from this size up are read in two stages at once ([`stages`]).
const PIPELINE_MIN_BYTES: usize = 1 << 20;

/// [`parse_resource_group_indexed`], in two stages from `pipeline_min` bytes of text up.
fn parse_indexed_from<'t>(
    text: &'t str,
    unknown_shares: u64,
    pipeline_min: usize,
) -> Result<(TreeSpec, SpecNames), FormatError> {
    let parallel = text.len() >= pipeline_min;
    let mut linker = Linker::new(text::line_count_hint(text), parallel);
    let mut lines = text::lines(text, FILE);
    let make = |buf: &mut Vec<Line<'t>>| {
        while buf.len() < stages::ROUND {
            let Some(item) = lines.next() else {
                return Ok(false);
            };
            let Some(line) = read_line(item) else {
                continue;
            };
            // The second stage stops at this line or before: nothing after it counts.
            let last = line.fails();
            buf.push(line);
            if last {
                return Ok(false);
            }
        }
        Ok(true)
    };
    stages::run_rounds(parallel, make, |round| linker.add_round(round))?;
    let spec = TreeSpec {
        source: TreeSource::Pbs,
        root_name: ROOT_NAME.to_string(),
        root_usage: None,
        unknown_shares: Some(unknown_shares),
        nodes: linker.nodes,
    };
    Ok((spec, linker.names))
}

/// One line of the file as the first stage reads it: split, its numbers checked, its node made.
enum Line<'a> {
    /// A node line. The node, or its first bad number (reported only if the names are right).
    Node {
        name: &'a str,
        /// `name`'s hash ([`spec_names::name_hash`]), made here for the second stage.
        hash: u64,
        /// The parent's name, `root` read as `TREEROOT`.
        parent: &'a str,
        line: usize,
        node: Result<NodeSpec, FormatError>,
    },
    /// A line that fails before its names are looked at (too long, too few fields).
    Bad(FormatError),
    /// A line the second stage has taken out of its round (nothing left to add).
    Taken,
}

impl Line<'_> {
    /// Whether the second stage fails on this line if on no earlier one.
    fn fails(&self) -> bool {
        matches!(self, Line::Bad(_) | Line::Node { node: Err(_), .. })
    }
}

/// The first stage's reading of one numbered line of the file (`None` for a blank or comment
/// line), with `parse_group()`'s checks in its order.
fn read_line(item: Result<(usize, &str), FormatError>) -> Option<Line<'_>> {
    let (n, line) = match item {
        Ok(l) => l,
        Err(e) => return Some(Line::Bad(e)),
    };
    if skip_line(line) {
        return None;
    }
    if line.len() > MAX_LINE {
        return Some(Line::Bad(line_error(
            n,
            Some("longer than 255 characters, PBS reads lines in 255-character pieces"),
        )));
    }
    let mut toks = line.split([' ', '\t']).filter(|t| !t.is_empty());
    let (Some(name), Some(id_tok), Some(parent_tok), Some(shares_tok)) =
        (toks.next(), toks.next(), toks.next(), toks.next())
    else {
        return Some(Line::Bad(line_error(
            n,
            Some("expected `name id parent shares`"),
        )));
    };
    let parent = if parent_tok == "root" {
        ROOT_NAME
    } else {
        parent_tok
    };
    let node = (|| {
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
        let parent = (parent != ROOT_NAME).then(|| parent.to_string());
        let mut node = NodeSpec::new(name, parent, NodeKind::User, Shares::Count(shares));
        node.id = Some(id);
        node.line = Some(n);
        Ok(node)
    })();
    Some(Line::Node {
        name,
        hash: spec_names::name_hash(name),
        parent,
        line: n,
        node,
    })
}

/// The second stage: the nodes in file order, indexed by name, each parent found among the
/// nodes before it and marked a group.
struct Linker<'a> {
    nodes: Vec<NodeSpec>,
    /// Every node read so far by name (TREEROOT and unknown are not nodes: they are names of
    /// the tree that no line may take).
    names: SpecNames,
    /// Siblings come together in a generated file: the last parent found is tried first.
    last_parent: Option<(&'a str, usize)>,
    /// Whether each round's nodes are faulted in with one call before they are written (a
    /// large file: a page fault each was most of the faults' cost on a virtual machine).
    populate: bool,
}

impl<'a> Linker<'a> {
    /// A linker for about `lines` lines; `populate`: a large file, whose memory is faulted in
    /// a round at a time ([`Linker::add_round`]) and the name table's at once.
    fn new(lines: usize, populate: bool) -> Self {
        // No huge pages: the nodes are faulted in a round at a time (see
        // `huge_pages::MAX_ADVISED`).
        let nodes: Vec<NodeSpec> = Vec::with_capacity(lines);
        let mut names = SpecNames::with_capacity(lines);
        if populate {
            names.populate();
        }
        Linker {
            nodes,
            names,
            last_parent: None,
            populate,
        }
    }

    /// Adds a round of lines in order ([`Linker::add`]), the name's slot of the line
    /// [`AHEAD`] lines on loaded into the cache meanwhile; stops at the first that fails.
    fn add_round(&mut self, round: &mut Vec<Line<'a>>) -> Result<(), FormatError> {
        let hash = |l: &Line<'_>| match l {
            Line::Node { hash, .. } => Some(*hash),
            Line::Bad(_) | Line::Taken => None,
        };
        for h in round.iter().take(AHEAD).filter_map(hash) {
            self.names.prefetch(h);
        }
        if self.populate {
            let bytes = round.len() * std::mem::size_of::<NodeSpec>();
            crate::mem::huge_pages::populate_spare(&mut self.nodes, bytes);
        }
        for k in 0..round.len() {
            if let Some(h) = round.get(k + AHEAD).and_then(hash) {
                self.names.prefetch(h);
            }
            let line = std::mem::replace(&mut round[k], Line::Taken);
            self.add(line)?;
        }
        Ok(())
    }

    /// Adds the next line's node, or fails as PBS does on it: a name used before, then a
    /// parent not read before, then a bad number.
    fn add(&mut self, line: Line<'a>) -> Result<(), FormatError> {
        let (name, hash, parent_name, n, node) = match line {
            Line::Bad(e) => return Err(e),
            Line::Taken => return Ok(()),
            Line::Node {
                name,
                hash,
                parent,
                line,
                node,
            } => (name, hash, parent, line, node),
        };
        // `Some(None)`: the root or `unknown`; `Some(Some(i))`: node i; `None`: no such name.
        let parent_found = match self.last_parent {
            _ if parent_name == ROOT_NAME || parent_name == UNKNOWN_GROUP => Some(None),
            Some((p, i)) if p == parent_name => Some(Some(i)),
            _ => self.names.find(&self.nodes, parent_name).map(Some),
        };
        let inserted = if name == ROOT_NAME || name == UNKNOWN_GROUP {
            Err(0)
        } else {
            (self.names).insert_next_hashed(&self.nodes, name, hash)
        };
        if inserted == Err(usize::MAX) {
            return Err(FormatError::line(
                FILE,
                n,
                format!("more than {} entities", spec_names::MAX_NODES),
            ));
        }
        if inserted.is_err() {
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
        let node = node?;
        // A node with children is a group.
        if let Some(i) = parent_idx {
            if let Some(p) = self.nodes.get_mut(i) {
                p.kind = NodeKind::Account;
            }
            self.last_parent = Some((parent_name, i));
        }
        self.nodes.push(node);
        Ok(())
    }
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

    /// The two-stage reader gives what one pass gives: the tree, or the same first error, with
    /// the bad lines on either side of a round's edge.
    #[test]
    fn two_stages_read_as_one() {
        use crate::parallel::stages::ROUND;
        let users = 3 * ROUND;
        let base = |edit: &dyn Fn(&mut Vec<String>)| {
            let mut lines = vec![
                "# comment".to_string(),
                "g0 10 root 5".into(),
                "g1 11 g0 3".into(),
            ];
            for u in 0..users {
                lines.push(format!("u{u} {} g{} 2", 20 + u, u % 2));
            }
            edit(&mut lines);
            lines.join("\n") + "\n"
        };
        let at = |i: usize, l: &'static str| move |v: &mut Vec<String>| v[i] = l.to_string();
        type Edit = Box<dyn Fn(&mut Vec<String>)>;
        let edits: Vec<Edit> = vec![
            Box::new(|_| {}),
            Box::new(at(ROUND + 3, "u7 9 g0 1")),
            Box::new(at(ROUND - 1, "x 9 nope 1")),
            Box::new(at(2 * ROUND, "x 9 g0 one")),
            Box::new(at(ROUND, "x nine g0 1")),
            Box::new(at(ROUND + 1, "x 9 g0 -1")),
            Box::new(at(5, "x 9 g0")),
            Box::new(|v| {
                v[ROUND + 9] = "x 9 g0 one".into();
                v[ROUND + 10] = "u3 9 g0 1".into();
            }),
            Box::new(|v| {
                v[40] = "u3 9 nope 1".into();
                v[2 * ROUND] = "y".repeat(300);
            }),
            Box::new(|v| v[3 * ROUND] = "z".repeat(300)),
            Box::new(at(7, "TREEROOT 9 g0 1")),
            // Around the lines whose slots the second stage loads ahead.
            Box::new(at(ROUND - AHEAD, "x 9 g0")),
            Box::new(at(ROUND + AHEAD - 1, "u1 9 g1 1")),
            Box::new(|v| {
                v[2 * ROUND - 1] = "dup 9 g0 1".into();
                v[2 * ROUND - 1 + AHEAD] = "dup 9 g1 1".into();
            }),
            Box::new(|v| {
                v[AHEAD] = "u9 9 g1 1".into();
                v[AHEAD + 1] = "w".repeat(300);
            }),
        ];
        for (i, edit) in edits.iter().enumerate() {
            let text = base(edit.as_ref());
            let one = parse_indexed_from(&text, 0, usize::MAX);
            let two = parse_indexed_from(&text, 0, 0);
            assert_eq!(
                one.as_ref().map(|(s, _)| s).map_err(ToString::to_string),
                two.as_ref().map(|(s, _)| s).map_err(ToString::to_string),
                "edit {i}"
            );
            assert_eq!(one.is_ok(), i == 0, "edit {i}");
        }
    }
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
            "resource_group:2: entity a is not unique"
        );
        assert_eq!(
            e("unknown 5 root 1\n"),
            "resource_group:1: entity unknown is not unique"
        );
        assert_eq!(
            e("b 1 a 1\na 2 root 1\n"),
            "resource_group:1: Parent ginfo of b doesnt exist."
        );
        assert!(e("a 1 root\n").starts_with("resource_group:1: resgroup: error on line 1."));
        assert!(e("\n\na 1 root 1x\n").starts_with("resource_group:3: resgroup: error on line 3."));
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
