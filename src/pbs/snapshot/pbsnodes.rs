//! Reader of `pbsnodes -av -F json`: `{"nodes": {"NAME": {"state": "free", "resources_available":
//! {"ncpus": 8, "mem": "32gb", "ngpus": 2, …}, "resources_assigned": {…}, "jobs": […]}, …}}`.

use crate::files::FormatError;
use crate::pbs::defs::units::size_kb;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One vnode as `pbsnodes` shows it: what it has, what is assigned, its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vnode {
    /// The vnode's name.
    pub name: String,
    /// `state` (`free`, `job-busy`, `offline`, `down`, several joined with commas).
    pub state: String,
    /// `resources_available.ncpus`.
    pub ncpus: u64,
    /// `resources_available.mem` in KB.
    pub mem_kb: u64,
    /// `resources_available.ngpus`.
    pub ngpus: u64,
    /// `resources_assigned.ncpus`.
    pub assigned_ncpus: u64,
    /// `resources_assigned.mem` in KB.
    pub assigned_mem_kb: u64,
    /// `resources_assigned.ngpus`.
    pub assigned_ngpus: u64,
}

/// The states in which pbs_sched places no job on a vnode.
const UNUSABLE: &[&str] = &[
    "offline",
    "down",
    "state-unknown",
    "stale",
    "unresolvable",
    "maintenance",
    "sleep",
    "wait-provisioning",
    "provisioning",
];

impl Vnode {
    /// Whether pbs_sched may place jobs on it (its state names none of the unusable ones;
    /// `job-busy` and `resv-exclusive` vnodes are usable once their jobs end).
    pub fn usable(&self) -> bool {
        self.state.split(',').all(|s| !UNUSABLE.contains(&s.trim()))
    }
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    nodes: BTreeMap<String, NodeJson>,
}

#[derive(Deserialize)]
struct NodeJson {
    #[serde(default)]
    state: String,
    #[serde(default)]
    resources_available: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    resources_assigned: BTreeMap<String, serde_json::Value>,
}

/// Reads `pbsnodes -av -F json` text (`file` names it in errors).
pub fn read_pbsnodes_json(bytes: &[u8], file: &str) -> Result<Vec<Vnode>, FormatError> {
    let parsed: File = serde_json::from_slice(bytes).map_err(|e| FormatError::Line {
        file: file.to_string(),
        line: e.line(),
        message: format!("not pbsnodes -F json output: {e}"),
    })?;
    let mut out = Vec::with_capacity(parsed.nodes.len());
    for (name, n) in parsed.nodes {
        let bad = |what: &str, v: &serde_json::Value| FormatError::Line {
            file: file.to_string(),
            line: 1,
            message: format!("vnode {name}: {what} is not a count or size: {v}"),
        };
        let count = |m: &BTreeMap<String, serde_json::Value>, key: &str| match m.get(key) {
            None => Ok(0),
            Some(v) => v
                .as_u64()
                .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                .ok_or_else(|| bad(key, v)),
        };
        let size = |m: &BTreeMap<String, serde_json::Value>, key: &str| match m.get(key) {
            None => Ok(0),
            Some(v) => v
                .as_str()
                .and_then(size_kb)
                .or_else(|| v.as_u64().map(|b| b.div_ceil(1024)))
                .ok_or_else(|| bad(key, v)),
        };
        let (a, s) = (&n.resources_available, &n.resources_assigned);
        out.push(Vnode {
            ncpus: count(a, "ncpus")?,
            mem_kb: size(a, "mem")?,
            ngpus: count(a, "ngpus")?,
            assigned_ncpus: count(s, "ncpus")?,
            assigned_mem_kb: size(s, "mem")?,
            assigned_ngpus: count(s, "ngpus")?,
            state: n.state,
            name,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_vnode_with_its_assigned_resources() {
        let text = br#"{"timestamp":1,"nodes":{"n1":{"state":"job-busy",
            "resources_available":{"ncpus":8,"mem":"32gb","ngpus":2,"arch":"linux"},
            "resources_assigned":{"ncpus":8,"mem":"8388608kb"}},
            "n2":{"state":"offline","resources_available":{"ncpus":4}}}}"#;
        let v = read_pbsnodes_json(text, "pbsnodes.json").unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(
            (v[0].ncpus, v[0].mem_kb, v[0].ngpus, v[0].assigned_mem_kb),
            (8, 32 << 20, 2, 8 << 20)
        );
        assert!(v[0].usable());
        assert!(!v[1].usable());
    }

    #[test]
    fn bad_input_names_the_file_and_the_vnode() {
        let e = read_pbsnodes_json(b"{\"nodes\":", "p.json").unwrap_err();
        assert!(e.to_string().starts_with("p.json:1: not pbsnodes"), "{e}");
        let e = read_pbsnodes_json(
            br#"{"nodes":{"n1":{"resources_available":{"ncpus":-3}}}}"#,
            "p.json",
        )
        .unwrap_err();
        assert!(e.to_string().contains("vnode n1: ncpus"), "{e}");
    }
}
