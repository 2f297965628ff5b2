//! fairsort's own tree format, in TOML or JSON: nested accounts and users that can say
//! everything a [`TreeSpec`] holds (shares including `"parent"`, usage, active, ids, PBS's
//! `unknown_shares`, the root's name and usage, and the source). Documented in docs/formats.md.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::fairshare::spec::{NodeKind, NodeSpec, Shares, TreeSource, TreeSpec};
use crate::files::text;
use crate::files::FormatError;

/// Label for TOML messages.
pub const TOML_FILE: &str = "tree.toml";
/// Label for JSON messages.
pub const JSON_FILE: &str = "tree.json";
/// The only format version so far.
pub const VERSION: u32 = 1;
/// Deepest nesting the writer accepts (the TOML and JSON readers have their own limits).
pub const MAX_DEPTH: usize = 1000;

/// Shares as written: an integer or the string `"parent"`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
enum ShareValue {
    Count(u64),
    Word(String),
}

/// By hand rather than `untagged`, so that a negative or fractional number is refused with a
/// message saying what shares may be (and the reader's line), not serde's "did not match any
/// variant".
impl<'de> Deserialize<'de> for ShareValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        const WANT: &str = "shares must be a non-negative integer or \"parent\"";
        impl serde::de::Visitor<'_> for V {
            type Value = ShareValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a non-negative integer or \"parent\"")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<ShareValue, E> {
                Ok(ShareValue::Count(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<ShareValue, E> {
                u64::try_from(v)
                    .map(ShareValue::Count)
                    .map_err(|_| E::custom(format!("{WANT}, not {v}")))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<ShareValue, E> {
                Err(E::custom(format!("{WANT}, not {v}")))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ShareValue, E> {
                // Refused here rather than after reading: the reader's error has the line.
                match v {
                    "parent" => Ok(ShareValue::Word(v.to_string())),
                    _ => Err(E::custom(format!("{WANT}, not \"{v}\""))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// One account or user. Accounts may hold `accounts` and `users`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Node {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shares: Option<ShareValue>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "checked_usage"
    )]
    usage: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    active: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    users: Vec<Node>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    accounts: Vec<Node>,
}

/// The whole document.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    #[serde(default = "default_version")]
    version: u32,
    #[serde(default)]
    source: TreeSource,
    #[serde(default = "default_root")]
    root: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    root_usage: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unknown_shares: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    users: Vec<Node>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    accounts: Vec<Node>,
    /// PBS entities inside the implicit `unknown` group (PBS trees only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    unknown: Vec<Node>,
}

/// A node's usage, checked while it is read so that the reader's error names its line.
fn checked_usage<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = f64::deserialize(d)?;
    text::check_usage(v, "usage")
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// Name of PBS's implicit group.
const UNKNOWN: &str = "unknown";

fn default_version() -> u32 {
    VERSION
}

fn default_root() -> String {
    "root".to_string()
}

fn to_spec(doc: Document, file: &str) -> Result<TreeSpec, FormatError> {
    let bad = |m: String| FormatError::file(file, m);
    if doc.version != VERSION {
        return Err(bad(format!(
            "version {} is not supported (only {VERSION})",
            doc.version
        )));
    }
    if let Some(u) = doc.root_usage {
        text::check_usage(u, "root_usage").map_err(bad)?;
    }
    let mut spec = TreeSpec {
        source: doc.source,
        root_name: doc.root,
        root_usage: doc.root_usage,
        unknown_shares: doc.unknown_shares,
        nodes: Vec::new(),
    };
    // (node, kind, parent) depth-first in document order, without recursion.
    let mut stack: Vec<(Node, NodeKind, Option<String>)> = Vec::new();
    let push_children = |stack: &mut Vec<(Node, NodeKind, Option<String>)>,
                         users: Vec<Node>,
                         accounts: Vec<Node>,
                         parent: Option<String>| {
        for a in accounts.into_iter().rev() {
            stack.push((a, NodeKind::Account, parent.clone()));
        }
        for u in users.into_iter().rev() {
            stack.push((u, NodeKind::User, parent.clone()));
        }
    };
    if !doc.unknown.is_empty() && spec.unknown_shares.is_none() {
        return Err(bad(
            "`unknown` entities need `unknown_shares` (a PBS tree)".to_string()
        ));
    }
    // Pushed first, so visited last.
    for u in doc.unknown.into_iter().rev() {
        stack.push((u, NodeKind::User, Some(UNKNOWN.to_string())));
    }
    push_children(&mut stack, doc.users, doc.accounts, None);
    while let Some((node, kind, parent)) = stack.pop() {
        let what = |field: &str| {
            format!(
                "{} `{}`: {field}",
                if kind == NodeKind::User {
                    "user"
                } else {
                    "account"
                },
                node.name
            )
        };
        if node.name.is_empty() {
            return Err(bad("a node has an empty name".to_string()));
        }
        if kind == NodeKind::User && (!node.users.is_empty() || !node.accounts.is_empty()) {
            return Err(bad(what("users cannot have users or accounts")));
        }
        let shares = match &node.shares {
            None => Shares::Count(1),
            Some(ShareValue::Count(c)) => Shares::Count(*c),
            Some(ShareValue::Word(w)) if w == "parent" => Shares::Parent,
            Some(ShareValue::Word(w)) => {
                return Err(bad(what(&format!(
                    "shares must be a non-negative integer or \"parent\", not \"{w}\""
                ))))
            }
        };
        if let Some(u) = node.usage {
            text::check_usage(u, "usage").map_err(|m| bad(what(&m)))?;
        }
        let mut spec_node = NodeSpec::new(node.name.clone(), parent, kind, shares);
        spec_node.usage = node.usage;
        spec_node.active = node.active.unwrap_or(true);
        spec_node.id = node.id;
        spec.nodes.push(spec_node);
        push_children(&mut stack, node.users, node.accounts, Some(node.name));
    }
    Ok(spec)
}

fn to_document(spec: &TreeSpec, format: &'static str) -> Result<Document, FormatError> {
    let err = |m: String| FormatError::unwritable(format, m);
    if let Some(u) = spec.root_usage {
        text::check_usage(u, "root_usage").map_err(err)?;
    }
    let mut children: HashMap<Option<&str>, Vec<usize>> = HashMap::new();
    for (i, n) in spec.nodes.iter().enumerate() {
        let key = n.parent.as_deref().filter(|p| *p != spec.root_name);
        children.entry(key).or_default().push(i);
    }
    let mut placed: HashSet<usize> = HashSet::new();
    // Build bottom-up: an explicit post-order over the parent→children map.
    fn build(
        spec: &TreeSpec,
        children: &HashMap<Option<&str>, Vec<usize>>,
        idx: usize,
        placed: &mut HashSet<usize>,
        depth: usize,
    ) -> Result<Node, String> {
        let n = spec.nodes.get(idx).ok_or("internal index")?;
        if depth > MAX_DEPTH {
            return Err(format!(
                "`{}` is nested over {MAX_DEPTH} levels deep",
                n.name
            ));
        }
        if let Some(u) = n.usage {
            text::check_usage(u, &format!("usage of `{}`", n.name))?;
        }
        placed.insert(idx);
        let mut node = Node {
            name: n.name.clone(),
            shares: Some(match n.shares {
                Shares::Count(c) => ShareValue::Count(c),
                Shares::Parent => ShareValue::Word("parent".to_string()),
            }),
            usage: n.usage,
            active: (!n.active).then_some(false),
            id: n.id,
            ..Node::default()
        };
        // Only accounts own children; a user's name may repeat under other accounts.
        if n.kind == NodeKind::Account {
            for &c in children
                .get(&Some(n.name.as_str()))
                .map_or(&[][..], |v| v.as_slice())
            {
                if placed.contains(&c) {
                    continue;
                }
                let child = build(spec, children, c, placed, depth + 1)?;
                match spec.nodes.get(c).map(|x| x.kind) {
                    Some(NodeKind::Account) => node.accounts.push(child),
                    _ => node.users.push(child),
                }
            }
        }
        Ok(node)
    }
    let mut doc = Document {
        version: VERSION,
        source: spec.source,
        root: spec.root_name.clone(),
        root_usage: spec.root_usage,
        unknown_shares: spec.unknown_shares,
        ..Document::default()
    };
    for &i in children.get(&None).map_or(&[][..], |v| v.as_slice()) {
        let node = build(spec, &children, i, &mut placed, 0).map_err(err)?;
        match spec.nodes.get(i).map(|x| x.kind) {
            Some(NodeKind::Account) => doc.accounts.push(node),
            _ => doc.users.push(node),
        }
    }
    // PBS entities under the implicit `unknown` group (when no node is named `unknown`).
    if spec.unknown_shares.is_some() && !spec.nodes.iter().any(|n| n.name == UNKNOWN) {
        for &i in children
            .get(&Some(UNKNOWN))
            .map_or(&[][..], |v| v.as_slice())
        {
            let node = build(spec, &children, i, &mut placed, 0).map_err(err)?;
            doc.unknown.push(node);
        }
    }
    if placed.len() != spec.nodes.len() {
        let missing = spec
            .nodes
            .iter()
            .enumerate()
            .find(|(i, _)| !placed.contains(i))
            .map_or_else(String::new, |(_, n)| n.name.clone());
        return Err(err(format!(
            "`{missing}` is not reachable from the root (its parent is missing, is a user, or is in a cycle)"
        )));
    }
    Ok(doc)
}

/// Reads fairsort's TOML tree.
pub fn read_toml(text: &str) -> Result<TreeSpec, FormatError> {
    let doc: Document = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| 1 + text.get(..s.start).map_or(0, |p| p.matches('\n').count()));
        let msg = e.message().to_string();
        match line {
            Some(l) => FormatError::line(TOML_FILE, l, msg),
            None => FormatError::file(TOML_FILE, msg),
        }
    })?;
    to_spec(doc, TOML_FILE)
}

/// Writes `spec` as fairsort's TOML tree; refuses nodes not reachable from the root.
pub fn write_toml(spec: &TreeSpec) -> Result<String, FormatError> {
    let doc = to_document(spec, "TOML")?;
    toml::to_string(&doc).map_err(|e| FormatError::unwritable("TOML", e.to_string()))
}

/// Reads fairsort's JSON tree.
pub fn read_json(text: &str) -> Result<TreeSpec, FormatError> {
    let doc: Document = serde_json::from_str(text).map_err(|e| {
        if e.line() > 0 {
            FormatError::line(JSON_FILE, e.line(), e.to_string())
        } else {
            FormatError::file(JSON_FILE, e.to_string())
        }
    })?;
    to_spec(doc, JSON_FILE)
}

/// Writes `spec` as fairsort's JSON tree (pretty-printed); refuses nodes not reachable from the
/// root.
pub fn write_json(spec: &TreeSpec) -> Result<String, FormatError> {
    let doc = to_document(spec, "JSON")?;
    serde_json::to_string_pretty(&doc).map_err(|e| FormatError::unwritable("JSON", e.to_string()))
}
