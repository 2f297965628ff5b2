//! The nodes of `sinfo --json` (Slurm 22.05: its `scontrol` has no `--json`) or
//! `scontrol show nodes --json` (23.02 on), as the forecast needs them ([`SlurmNodeState`]):
//! size, what is allocated now, state and partitions. Both write the same `nodes` list; 22.05
//! gives `state` as one lower-case word plus `state_flags`, 23.02 on a list of upper-case words.

use super::error::SnapshotError;
use crate::slurm::job::{number, text, Num};
use serde_json::Value;

const WHAT: &str = "nodes --json";

/// One node of a Slurm snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmNodeState {
    /// `name`.
    pub name: String,
    /// `cpus`: the CPUs slurmctld schedules (after `config_overrides`).
    pub cpus: u64,
    /// `real_memory` in MB.
    pub mem_mb: u64,
    /// `alloc_cpus`.
    pub alloc_cpus: u64,
    /// `alloc_memory` in MB.
    pub alloc_mem_mb: u64,
    /// The base state, upper case (`IDLE`, `MIXED`, `ALLOCATED`, `DOWN`, ...): 22.05's `state`
    /// word, or the first word of 23.02's list.
    pub state: String,
    /// The state flags, upper case (`DRAIN`, `RESERVED`, ...): 22.05's `state_flags`, or the rest
    /// of 23.02's list.
    pub flags: Vec<String>,
    /// `partitions`.
    pub partitions: Vec<String>,
}

impl SlurmNodeState {
    /// CPUs not allocated now.
    pub fn free_cpus(&self) -> u64 {
        self.cpus.saturating_sub(self.alloc_cpus)
    }

    /// Memory (MB) not allocated now.
    pub fn free_mem_mb(&self) -> u64 {
        self.mem_mb.saturating_sub(self.alloc_mem_mb)
    }
}

#[derive(serde::Deserialize)]
struct Doc {
    #[serde(default)]
    nodes: Option<Vec<Node>>,
}

/// The used fields of one node (every other one skipped while parsing).
#[derive(serde::Deserialize)]
struct Node {
    name: Option<Value>,
    cpus: Option<Value>,
    real_memory: Option<Value>,
    alloc_cpus: Option<Value>,
    alloc_memory: Option<Value>,
    state: Option<Value>,
    state_flags: Option<Value>,
    partitions: Option<Value>,
}

/// Reads the nodes of `sinfo --json` or `scontrol show nodes --json`; `path` names the file in
/// errors.
pub fn read_nodes_json(bytes: &[u8], path: &str) -> Result<Vec<SlurmNodeState>, SnapshotError> {
    let bytes = crate::slurm::squeue::strip_bom(bytes);
    SnapshotError::refuse_empty(bytes, path, WHAT)?;
    let doc: Doc =
        serde_json::from_slice(bytes).map_err(|e| SnapshotError::json(path, WHAT, &e))?;
    let nodes = doc.nodes.ok_or_else(|| SnapshotError::NoList {
        file: path.to_string(),
        what: WHAT,
        list: "nodes",
    })?;
    let mut seen = std::collections::HashSet::with_capacity(nodes.len());
    let line = |i: usize| crate::files::json_lines::element_line(bytes, "nodes", i);
    let mut out = Vec::with_capacity(nodes.len());
    for (i, n) in nodes.into_iter().enumerate() {
        let n = node(path, i + 1, n).map_err(|e| e.at_line(line(i)))?;
        if !seen.insert(n.name.clone()) {
            return Err(SnapshotError::Field {
                file: path.to_string(),
                line: line(i),
                what: WHAT,
                place: format!("node #{} ({})", i + 1, n.name),
                field: "name",
                message: "appears twice".into(),
            });
        }
        out.push(n);
    }
    Ok(out)
}

/// Upper-case words of a string or a list of strings.
fn words(v: Option<&Value>) -> Vec<String> {
    text(v)
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_uppercase)
        .collect()
}

fn node(path: &str, record: usize, n: Node) -> Result<SlurmNodeState, SnapshotError> {
    let name = text(n.name.as_ref());
    let fail = |field: &'static str, message: String| SnapshotError::Field {
        file: path.to_string(),
        line: 0,
        what: WHAT,
        place: format!("node #{record} ({name})"),
        field,
        message,
    };
    if name.is_empty() {
        return Err(fail("name", "missing".into()));
    }
    let count = |field: &'static str, v: &Option<Value>| -> Result<u64, SnapshotError> {
        match v.as_ref().map(number).transpose() {
            Err(m) => Err(fail(field, m)),
            Ok(Some(Num::Value(x))) if x >= 0.0 && x.fract() == 0.0 && x < 1.8e19 => Ok(x as u64),
            Ok(Some(Num::Value(x))) => Err(fail(field, format!("{x} is not a count"))),
            Ok(_) => Ok(0),
        }
    };
    let mut state = words(n.state.as_ref());
    let mut flags = if state.len() > 1 {
        state.split_off(1)
    } else {
        Vec::new()
    };
    flags.extend(words(n.state_flags.as_ref()));
    Ok(SlurmNodeState {
        cpus: count("cpus", &n.cpus)?,
        mem_mb: count("real_memory", &n.real_memory)?,
        alloc_cpus: count("alloc_cpus", &n.alloc_cpus)?,
        alloc_mem_mb: count("alloc_memory", &n.alloc_memory)?,
        state: state.pop().unwrap_or_default(),
        flags,
        partitions: text(n.partitions.as_ref())
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect(),
        name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sinfo_22_05() {
        let doc = r#"{"meta": {}, "errors": [], "nodes": [{"name": "vm", "cpus": 8,
          "real_memory": 16000, "alloc_cpus": 6, "alloc_memory": 6000, "state": "mixed",
          "state_flags": [], "partitions": ["debug", "urgent"], "free_memory": 15576}]}"#;
        let n = &read_nodes_json(doc.as_bytes(), "sinfo.json").unwrap()[0];
        assert_eq!((n.name.as_str(), n.cpus, n.mem_mb), ("vm", 8, 16000));
        assert_eq!((n.free_cpus(), n.free_mem_mb()), (2, 10000));
        assert_eq!(n.state, "MIXED");
        assert!(n.flags.is_empty());
        assert_eq!(n.partitions, ["debug", "urgent"]);
    }

    #[test]
    fn reads_scontrol_23_02_state_lists() {
        let doc = r#"{"nodes": [{"name": "n1", "cpus": 4, "real_memory": 100,
          "alloc_cpus": 0, "alloc_memory": 0, "state": ["IDLE", "DRAIN"],
          "partitions": ["batch"]}]}"#;
        let n = &read_nodes_json(doc.as_bytes(), "n.json").unwrap()[0];
        assert_eq!(
            (n.state.as_str(), n.flags.as_slice()),
            ("IDLE", &["DRAIN".to_string()][..])
        );
    }

    #[test]
    fn a_repeated_node_or_an_empty_file_is_refused() {
        let doc =
            "{\"nodes\": [{\"name\": \"n1\", \"cpus\": 4},\n{\"name\": \"n1\", \"cpus\": 4}]}";
        let e = read_nodes_json(doc.as_bytes(), "n.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("n.json:2: ") && e.ends_with("`name`: appears twice"),
            "{e}"
        );
        let e = read_nodes_json(b"", "n.json").unwrap_err().to_string();
        assert!(e.starts_with("n.json: empty file"), "{e}");
    }

    #[test]
    fn errors_name_the_node() {
        let e =
            read_nodes_json(br#"{"nodes": [{"name": "n1", "cpus": "x"}]}"#, "n.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "n.json:1: nodes --json: node #1 (n1): `cpus`: `x` is not a number"
        );
        let e = read_nodes_json(br#"{"nodes": [{"cpus": 1}]}"#, "n.json").unwrap_err();
        assert!(e.to_string().contains("`name`: missing"), "{e}");
        assert!(read_nodes_json(b"{\"jobs\": []}", "n.json").is_err());
        assert!(read_nodes_json(b"[", "n.json")
            .unwrap_err()
            .to_string()
            .starts_with("n.json:1:"));
    }
}
