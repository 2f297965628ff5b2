//! `explain`: why a node has its value — the path from the root with each level's shares and
//! usage against its siblings and the algorithm's intermediate numbers, like `pbsfs -g` (PBS),
//! sshare's NormShares/EffectvUsage/LevelFS per level (Slurm) or the sibling weights of the
//! weighted walk (flux). Serialisable for `--json`; `render` gives the text form.

use crate::fairshare::algorithm::Algorithm;
use crate::fairshare::node::NodeId;
use crate::fairshare::result::{ShareResult, ShareRow};
use crate::fairshare::spec::{NodeKind, Shares};
use crate::fairshare::tree::Tree;
use crate::fairshare::{flux, slurm};
use serde::Serialize;
use std::fmt::Write as _;

/// One level of the path from the root to the explained node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    /// Node name (`account/user` for a user association).
    pub name: String,
    /// Account or user.
    pub kind: NodeKind,
    /// Depth (root 0).
    pub depth: usize,
    /// Raw shares (`parent` for Slurm's FairShare=parent; the root has none).
    #[serde(serialize_with = "serialize_shares")]
    pub raw_shares: Option<Shares>,
    /// Sum of the raw shares of the node and its siblings (`parent` counts 0).
    pub sibling_shares: Option<u64>,
    /// The usage the algorithm uses for this node (PBS: 1 + leaves' usage; others: raw usage).
    pub usage: f64,
    /// Sum of the usage of the node and its siblings (raw usage).
    pub sibling_usage: Option<f64>,
    /// Every value the algorithm computed for this node.
    pub values: ShareRow,
}

/// Why one node has its value under one algorithm.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The explained node (`account/user` for users).
    pub node: String,
    /// Its headline factor (PBS fairshare_factor, the others' fairshare), if it has one.
    pub value: Option<f64>,
    /// Root first, the node last.
    pub path: Vec<Step>,
    /// How the value follows from the path, in words and numbers.
    pub notes: Vec<String>,
}

/// Raw shares in JSON: a number, the string "parent", or null (the root).
pub fn shares_json(s: Option<Shares>) -> serde_json::Value {
    match s {
        Some(Shares::Count(c)) => c.into(),
        Some(Shares::Parent) => "parent".into(),
        None => serde_json::Value::Null,
    }
}

fn serialize_shares<S: serde::Serializer>(s: &Option<Shares>, ser: S) -> Result<S::Ok, S::Error> {
    shares_json(*s).serialize(ser)
}

fn count(s: Shares) -> u64 {
    match s {
        Shares::Count(c) => c,
        Shares::Parent => 0,
    }
}

/// Explains `node` under `result` (which must have been computed over `tree`).
pub fn explain(tree: &Tree, result: &ShareResult, node: NodeId) -> Explanation {
    let alg = result.algorithm;
    let path: Vec<Step> = tree
        .path(node)
        .into_iter()
        .map(|id| {
            let n = tree.node(id);
            let siblings = tree.parent(id).map(|p| tree.children(p));
            Step {
                name: tree.label(id),
                kind: n.kind,
                depth: n.depth,
                raw_shares: n.parent.map(|_| n.shares),
                sibling_shares: siblings.map(|s| {
                    s.iter()
                        .fold(0u64, |a, &c| a.saturating_add(count(tree.node(c).shares)))
                }),
                usage: result.row(id).usage.unwrap_or(n.raw_usage),
                sibling_usage: siblings.map(|s| s.iter().map(|&c| tree.node(c).raw_usage).sum()),
                values: result.row(id).clone(),
            }
        })
        .collect();
    let value = result.factor(node);
    let notes = notes(tree, result, node, &path);
    Explanation {
        algorithm: alg,
        node: tree.label(node),
        value,
        path,
        notes,
    }
}

fn f6(v: Option<f64>) -> String {
    match v {
        Some(x) if x == f64::INFINITY => "inf".into(),
        Some(x) => format!("{x:.6}"),
        None => "-".into(),
    }
}

/// The algorithm's rule applied to the explained node's numbers.
fn notes(tree: &Tree, result: &ShareResult, node: NodeId, path: &[Step]) -> Vec<String> {
    let mut out = Vec::new();
    let last = match path.last() {
        Some(s) => s,
        None => return out,
    };
    let v = &last.values;
    let users = tree.nodes().iter().filter(|n| n.is_user()).count();
    match result.algorithm {
        Algorithm::Pbs => {
            out.push(
                "fairshare_perc = shares / siblings' shares x parent's fairshare_perc (C float)"
                    .into(),
            );
            out.push(
                "fairshare_tree_usage = u + (parent's tree usage - u) x shares/siblings' shares, \
                 u = usage / root usage (root's children: u)"
                    .into(),
            );
            match (v.fairshare_tree_usage, v.fairshare_perc) {
                (Some(tu), Some(p)) if p > 0.0 => out.push(format!(
                    "fairshare_factor = 2^-(fairshare_tree_usage / fairshare_perc) = 2^-({} / {}) = {}",
                    f6(Some(tu)),
                    f6(Some(p)),
                    f6(v.fairshare_factor)
                )),
                (_, Some(_)) => out.push(
                    "fairshare_perc is 0 (no shares on the path): fairshare_factor = 0".into(),
                ),
                _ => {}
            }
            out.push(
                "ties in the formula fall to compare_path: at the first differing level the \
                 smaller usage / perc wins"
                    .into(),
            );
        }
        Algorithm::Flux => {
            out.push(format!(
                "weight = (shares / siblings' shares) / (usage / siblings' usage); 0 shares -> 0; \
                 0 usage -> {:e}",
                flux::MAX_WEIGHT
            ));
            out.push(
                "siblings are walked by weight (users first on ties, tied banks merged); \
                 fairshare = rank / N from the top"
                    .into(),
            );
            if let Some(f) = v.fairshare {
                let rank = (f * users as f64).round();
                out.push(format!("fairshare = {rank} / {users} = {}", f6(Some(f))));
            }
        }
        Algorithm::FairTree
        | Algorithm::Classic
        | Algorithm::DepthOblivious
        | Algorithm::Ticket => {
            out.extend(slurm::notes(tree, result, node));
        }
    }
    out
}

/// The text form: one line per level, then the notes.
pub fn render(e: &Explanation) -> String {
    let mut out = format!("{} under {}: {}\n", e.node, e.algorithm, f6(e.value));
    for s in &e.path {
        let shares = match s.raw_shares {
            Some(Shares::Count(c)) => c.to_string(),
            Some(Shares::Parent) => "parent".into(),
            None => "-".into(),
        };
        let of = s
            .sibling_shares
            .map(|t| format!("/{t}"))
            .unwrap_or_default();
        let uof = s.sibling_usage.map(|t| format!("/{t}")).unwrap_or_default();
        let v = &s.values;
        let mut line = format!(
            "{:indent$}{}  shares {shares}{of}  usage {}{uof}",
            "",
            s.name,
            s.usage,
            indent = s.depth * 2
        );
        let cols: [(&str, Option<f64>); 9] = [
            ("perc", v.fairshare_perc),
            ("tree_usage", v.fairshare_tree_usage),
            ("norm_shares", v.norm_shares),
            ("norm_usage", v.norm_usage),
            ("effective_usage", v.effective_usage),
            ("level_fs", v.level_fs),
            ("weight", v.weight),
            ("tickets", v.tickets),
            ("fairshare", v.fairshare),
        ];
        for (name, val) in cols {
            if val.is_some() {
                let _ = write!(line, "  {name} {}", f6(val));
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    for n in &e.notes {
        let _ = writeln!(out, "  {n}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::{compute, NodeSpec, Options, TreeSource, TreeSpec};

    fn tree() -> Tree {
        let mut u1 = NodeSpec::new("u1", Some("g".into()), NodeKind::User, Shares::Count(1));
        u1.usage = Some(30.0);
        let mut u2 = NodeSpec::new("u2", Some("g".into()), NodeKind::User, Shares::Count(3));
        u2.usage = Some(10.0);
        Tree::build(TreeSpec {
            source: TreeSource::Pbs,
            root_name: "root".into(),
            unknown_shares: Some(0),
            nodes: vec![
                NodeSpec::new("g", None, NodeKind::Account, Shares::Count(2)),
                u1,
                u2,
            ],
            ..TreeSpec::default()
        })
        .unwrap()
    }

    #[test]
    fn pbs_path_carries_usage_perc_and_factor() {
        let t = tree();
        let r = compute(&t, Algorithm::Pbs, &Options::default()).unwrap();
        let u1 = t.find_user(None, "u1").unwrap();
        let e = explain(&t, &r, u1);
        assert_eq!(e.node, "g/u1");
        assert_eq!(e.path.len(), 3);
        assert_eq!(e.path[0].usage, 41.0);
        assert_eq!(e.path[1].usage, 41.0);
        assert_eq!(e.path[1].sibling_shares, Some(2)); // g and unknown (0)
        assert_eq!(e.path[2].sibling_shares, Some(4));
        assert_eq!(e.path[2].sibling_usage, Some(40.0));
        assert_eq!(e.value, r.row(u1).fairshare_factor);
        assert!(e.notes.iter().any(|n| n.contains("2^-(")));
        let text = render(&e);
        assert!(text.starts_with("g/u1 under pbs: "), "{text}");
        assert!(text.contains("    g/u1  shares 1/4  usage 30/40"), "{text}");
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["algorithm"], "pbs");
        assert_eq!(json["path"][2]["raw_shares"], 1);
    }

    #[test]
    fn flux_notes_give_rank_over_n() {
        let t = tree();
        let r = compute(&t, Algorithm::Flux, &Options::default()).unwrap();
        let u2 = t.find_user(None, "u2").unwrap();
        let e = explain(&t, &r, u2);
        assert_eq!(e.value, Some(1.0));
        assert!(
            e.notes.iter().any(|n| n == "fairshare = 2 / 2 = 1.000000"),
            "{:?}",
            e.notes
        );
    }
}
