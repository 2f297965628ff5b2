//! `sacctmgr dump CLUSTER file=FILE`: the association tree as sacctmgr writes it for a later
//! `sacctmgr load`. One cluster per file: a `Cluster - 'name':...` line, then blocks that
//! start with `Parent - 'account'` and list that account's child `Account - 'name':...` and
//! `User - 'name':...` lines; options after `:` are `Key=Value` (values may be quoted),
//! `Fairshare=N` or `parent` giving the shares (1 when absent, as sacctmgr's default). `#`
//! lines are comments. A user listed under several accounts is one association per account;
//! a user line with `Partition='p'` is a per-partition association. No usage (the dump has
//! none).

use crate::fairshare::spec::{NodeKind, NodeSpec, TreeSource, TreeSpec};
use crate::files::text;
use crate::files::FormatError;
use crate::slurm::sshare::association_name;

/// Label used in messages when no path is known.
pub const FILE: &str = "sacctmgr dump";

/// `'name':Key=Value:Key='quoted:value'` → name and options (keys lower-case).
fn split_entry(rest: &str) -> Result<(String, Vec<(String, String)>), String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in rest.chars() {
        match c {
            '\'' => quoted = !quoted,
            ':' if !quoted => fields.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    if quoted {
        return Err("an unclosed quote".into());
    }
    fields.push(cur);
    let mut it = fields.into_iter();
    let name = it.next().unwrap_or_default().trim().to_string();
    if name.is_empty() {
        return Err("an empty name".into());
    }
    let mut opts = Vec::new();
    for f in it {
        let f = f.trim();
        if f.is_empty() {
            continue;
        }
        let (k, v) = f
            .split_once('=')
            .ok_or_else(|| format!("option `{f}` is not Key=Value"))?;
        opts.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    Ok((name, opts))
}

/// Builds the share tree from a `sacctmgr dump` file.
pub fn parse_sacctmgr_dump(input: &str) -> Result<TreeSpec, FormatError> {
    let mut spec = TreeSpec {
        source: TreeSource::Slurm,
        root_name: "root".to_string(),
        ..TreeSpec::default()
    };
    let mut cluster: Option<String> = None;
    let mut parent: Option<String> = None;
    for (i, raw) in input.lines().enumerate() {
        let line = i + 1;
        let err = |m: String| FormatError::line(FILE, line, m);
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let (kind, rest) = l
            .split_once(" - ")
            .ok_or_else(|| err(format!("`{l}` is not `Kind - 'name':...`")))?;
        let (name, opts) = split_entry(rest).map_err(err)?;
        let opt = |k: &str| {
            opts.iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_str())
        };
        match kind.trim().to_ascii_lowercase().as_str() {
            "cluster" => {
                if let Some(prev) = &cluster {
                    return Err(err(format!(
                        "a second cluster `{name}` after `{prev}`: dump one cluster per file"
                    )));
                }
                cluster = Some(name);
            }
            "parent" => {
                if cluster.is_none() {
                    return Err(err("a Parent line before the Cluster line".into()));
                }
                if name != spec.root_name && !spec.nodes.iter().any(|n| n.name == name) {
                    return Err(err(format!(
                        "Parent `{name}` is not an account listed before it"
                    )));
                }
                parent = Some(name);
            }
            k @ ("account" | "user") => {
                // (`root`'s own user association is kept: its shares count among root's
                // children, as in sshare.)
                let Some(p) = &parent else {
                    return Err(err(format!("a {kind} line before any Parent line")));
                };
                let shares = text::parse_shares(opt("fairshare").unwrap_or("1"), "Fairshare")
                    .map_err(err)?;
                let up = (*p != spec.root_name).then(|| p.clone());
                let mut node = if k == "account" {
                    NodeSpec::new(name, up, NodeKind::Account, shares)
                } else {
                    let partition = opt("partition").filter(|s| !s.is_empty());
                    NodeSpec::new(
                        association_name(&name, partition),
                        up,
                        NodeKind::User,
                        shares,
                    )
                };
                node.line = Some(line);
                spec.nodes.push(node);
            }
            other => {
                return Err(err(format!(
                    "unknown line kind `{other}` (expected Cluster, Parent, Account or User)"
                )))
            }
        }
    }
    if cluster.is_none() {
        return Err(FormatError::line(FILE, 1, "no `Cluster - 'name'` line"));
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_and_errors() {
        let (n, o) = split_entry("'cs':Description='a:b':Fairshare=parent:QOS='x,y'").unwrap();
        assert_eq!(n, "cs");
        assert_eq!(o[0], ("description".to_string(), "a:b".to_string()));
        assert_eq!(o[1], ("fairshare".to_string(), "parent".to_string()));
        let t = "Cluster - 'c'\nParent - 'root'\nAccount - 'a':Fairshare=parent\n\
                 Parent - 'a'\nUser - 'u':Partition='gpu'\n";
        let spec = parse_sacctmgr_dump(t).unwrap();
        assert_eq!(spec.nodes.len(), 2);
        assert_eq!(spec.nodes[1].parent.as_deref(), Some("a"));
        let e = parse_sacctmgr_dump("Cluster - 'c'\nParent - 'nope'\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains(":2:") && e.contains("nope"), "{e}");
        let e = parse_sacctmgr_dump("Cluster - 'c'\nParent - 'root'\nUser - 'u':Fairshare=x\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains(":3:"), "{e}");
        assert!(parse_sacctmgr_dump("# only comments\n").is_err());
    }
}
