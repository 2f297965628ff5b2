//! Slurm `sacctmgr show assoc -P` (or `-p`) output with a `ParentName` column: the association
//! tree as slurmdbd stores it (`format=Cluster,Account,User,Partition,Share,ParentName` or the
//! default columns plus ParentName).

use crate::fairshare::spec::{NodeKind, NodeSpec, TreeSource, TreeSpec};
use crate::files::text;
use crate::files::FormatError;
use crate::slurm::columns;
use crate::slurm::sshare::association_name;

/// Label used in messages when no path is known.
pub const FILE: &str = "sacctmgr";

/// Builds the share tree from `sacctmgr show assoc -P` output. Account rows (empty User) hang
/// under their `ParentName`; the `root` row (empty ParentName) is the root; user rows hang under
/// their Account. `Share` (older releases: `FairShare`) is an integer or `parent`. sacctmgr has
/// no usage, so users get none. Rows of several clusters are refused: select one with
/// `cluster=NAME`.
pub fn parse_sacctmgr(text: &str) -> Result<TreeSpec, FormatError> {
    let table = columns::parse(text, FILE)?;
    let need = |names: &[&str], label: &str| {
        table.col(names).ok_or_else(|| {
            FormatError::line(
                FILE,
                1,
                format!("the header has no {label} column (use format=Cluster,Account,User,Partition,Share,ParentName)"),
            )
        })
    };
    let c_acct = need(&["account"], "Account")?;
    let c_user = need(&["user"], "User")?;
    let c_share = need(&["share", "fairshare", "shares"], "Share")?;
    let c_parent = need(&["parentname", "parname"], "ParentName")?;
    let c_part = table.col(&["partition"]);
    let c_cluster = table.col(&["cluster"]);

    let mut spec = TreeSpec {
        source: TreeSource::Slurm,
        root_name: "root".to_string(),
        ..TreeSpec::default()
    };
    let mut cluster: Option<String> = None;
    for (line, fields) in table.rows() {
        let err = |m: String| FormatError::line(FILE, line, m);
        let get = |c: usize| fields.get(c).map_or("", |s| s.trim());
        if let Some(c) = c_cluster {
            let name = get(c);
            match &cluster {
                Some(prev) if prev != name => {
                    return Err(err(format!(
                        "rows of clusters `{prev}` and `{name}`: show one cluster (cluster=NAME)"
                    )))
                }
                None => cluster = Some(name.to_string()),
                _ => {}
            }
        }
        let account = get(c_acct);
        let user = get(c_user);
        let parent_name = get(c_parent);
        if account.is_empty() {
            return Err(err("empty Account".to_string()));
        }
        if user.is_empty() && parent_name.is_empty() {
            // The root association; its Share is not used.
            spec.root_name = account.to_string();
            continue;
        }
        let shares = text::parse_shares(get(c_share), "Share").map_err(err)?;
        let mut node = if user.is_empty() {
            let parent = (parent_name != spec.root_name).then(|| parent_name.to_string());
            NodeSpec::new(account, parent, NodeKind::Account, shares)
        } else {
            let parent = (account != spec.root_name).then(|| account.to_string());
            let partition = c_part.map(get).filter(|p| !p.is_empty());
            NodeSpec::new(
                association_name(user, partition),
                parent,
                NodeKind::User,
                shares,
            )
        };
        node.line = Some(line);
        spec.nodes.push(node);
    }
    // A root row after its children: fix parents that named it.
    let root = spec.root_name.clone();
    for n in &mut spec.nodes {
        if n.parent.as_deref() == Some(root.as_str()) {
            n.parent = None;
        }
    }
    Ok(spec)
}
