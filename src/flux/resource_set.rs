//! A flux instance's resources for a forecast, as `flux resource R` prints them (RFC 20's R
//! version 1: `execution.R_lite`, a list of `{"rank": IDSET, "children": {"core": IDSET,
//! "gpu": IDSET}}`, and `execution.nodelist`, the host names in rank order as hostlists). flux
//! 0.88 has no `flux resource list --json`: R is the one machine-readable form.

use crate::jobs::error::{json_at, JobsError};
use serde_json::Value;

/// What errors call the input.
const WHAT: &str = "flux resource R";

/// The most ids an idset of R may hold (ranks, or cores of one rank): a bound on what one file
/// makes the reader allocate.
const MAX_IDS: u64 = 1 << 20;

/// One node (broker rank) of the instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FluxNode {
    /// Its broker rank.
    pub rank: u64,
    /// Its host name, when `nodelist` gives it.
    pub host: Option<String>,
    /// Its cores.
    pub cores: u64,
    /// Its GPUs.
    pub gpus: u64,
}

/// The ids of a flux idset such as `0-3,5,7-8`, in order, at most [`MAX_IDS`].
fn idset(s: &str) -> Result<Vec<u64>, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || format!("bad idset `{s}`");
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (
                a.trim().parse::<u64>().map_err(|_| bad())?,
                b.trim().parse::<u64>().map_err(|_| bad())?,
            ),
            None => {
                let x = part.parse::<u64>().map_err(|_| bad())?;
                (x, x)
            }
        };
        if b < a || (b - a) >= MAX_IDS || out.len() as u64 + (b - a) >= MAX_IDS {
            return Err(bad());
        }
        out.extend(a..=b);
    }
    Ok(out)
}

/// The hosts of a flux hostlist (`vm`, `node[0-3,7]`, `a[1-2]b`), at most [`MAX_IDS`].
fn hostlist(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut rest = s.trim();
    while !rest.is_empty() {
        // one host or one bracketed range, up to the next comma outside brackets
        let mut depth = 0;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '[' => depth += 1,
                    ']' => depth -= 1,
                    _ => {}
                }
                c == ',' && depth == 0
            })
            .map_or(rest.len(), |(i, _)| i);
        let item = &rest[..end];
        rest = rest[end..].trim_start_matches(',').trim_start();
        match (item.find('['), item.find(']')) {
            (Some(o), Some(c)) if o < c => {
                let (pre, ids, post) = (&item[..o], &item[o + 1..c], &item[c + 1..]);
                for part in ids.split(',') {
                    // `08-10`: the ids keep the first one's digits
                    let width = part.split('-').next().unwrap_or(part).trim().len();
                    for x in idset(part)? {
                        if out.len() as u64 >= MAX_IDS {
                            return Err(format!("hostlist `{s}` is too long"));
                        }
                        out.push(format!("{pre}{x:0width$}{post}"));
                    }
                }
            }
            (None, None) => out.push(item.to_string()),
            _ => return Err(format!("bad hostlist `{s}`")),
        }
    }
    Ok(out)
}

/// Reads `flux resource R` output: one [`FluxNode`] per rank, in rank order.
pub fn read_flux_r(bytes: &[u8], path: &str) -> Result<Vec<FluxNode>, JobsError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(JobsError::at(
            path,
            0,
            0,
            format!("empty file (no {WHAT} output)"),
        ));
    }
    let doc: Value = serde_json::from_slice(bytes).map_err(|e| json_at(path, &e))?;
    let bad = |m: String| JobsError::at(path, 0, 0, format!("{WHAT}: {m}"));
    let lite = doc
        .pointer("/execution/R_lite")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no `execution.R_lite` list".to_string()))?;
    let mut nodes: Vec<FluxNode> = Vec::new();
    for (i, entry) in lite.iter().enumerate() {
        let place = format!("R_lite #{}", i + 1);
        let ranks = entry
            .get("rank")
            .and_then(Value::as_str)
            .ok_or_else(|| bad(format!("{place}: `rank`: missing or not an idset")))?;
        let ranks = idset(ranks).map_err(|m| bad(format!("{place}: `rank`: {m}")))?;
        let child = |name: &str| -> Result<u64, JobsError> {
            match entry.pointer(&format!("/children/{name}")) {
                None | Some(Value::Null) => Ok(0),
                Some(Value::String(s)) => idset(s)
                    .map(|v| v.len() as u64)
                    .map_err(|m| bad(format!("{place}: `children.{name}`: {m}"))),
                Some(other) => Err(bad(format!(
                    "{place}: `children.{name}`: expected an idset, got {other}"
                ))),
            }
        };
        let (cores, gpus) = (child("core")?, child("gpu")?);
        if nodes.len() as u64 + ranks.len() as u64 > MAX_IDS {
            return Err(bad(format!("{place}: more than {MAX_IDS} ranks")));
        }
        nodes.extend(ranks.into_iter().map(|rank| FluxNode {
            rank,
            host: None,
            cores,
            gpus,
        }));
    }
    nodes.sort_by_key(|n| n.rank);
    if nodes.windows(2).any(|w| w[0].rank == w[1].rank) {
        return Err(bad("a rank appears twice in `R_lite`".to_string()));
    }
    // `nodelist` names the ranks of the whole instance in order: rank r is its r-th host.
    if let Some(list) = doc.pointer("/execution/nodelist").and_then(Value::as_array) {
        let mut hosts = Vec::new();
        for h in list.iter().filter_map(Value::as_str) {
            hosts.extend(hostlist(h).map_err(|m| bad(format!("`nodelist`: {m}")))?);
        }
        for n in &mut nodes {
            n.host = usize::try_from(n.rank)
                .ok()
                .and_then(|r| hosts.get(r))
                .cloned();
        }
    }
    Ok(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_r_of_a_test_instance() {
        let r = br#"{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-7"}}], "starttime": 0.0, "expiration": 0.0, "nodelist": ["vm"]}}"#;
        let n = read_flux_r(r, "R.json").unwrap();
        assert_eq!(
            n,
            vec![FluxNode {
                rank: 0,
                host: Some("vm".into()),
                cores: 8,
                gpus: 0
            }]
        );
    }

    #[test]
    fn reads_ranges_of_ranks_and_hosts() {
        let r = br#"{"version": 1, "execution": {"R_lite": [{"rank": "2-3", "children": {"core": "0-3", "gpu": "0-1"}}, {"rank": "0-1", "children": {"core": "0-15"}}], "nodelist": ["node[08-10]", "big"]}}"#;
        let n = read_flux_r(r, "R.json").unwrap();
        let got: Vec<(u64, Option<&str>, u64, u64)> = n
            .iter()
            .map(|n| (n.rank, n.host.as_deref(), n.cores, n.gpus))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, Some("node08"), 16, 0),
                (1, Some("node09"), 16, 0),
                (2, Some("node10"), 4, 2),
                (3, Some("big"), 4, 2)
            ]
        );
    }

    #[test]
    fn bad_r_is_refused_with_the_file() {
        for (doc, want) in [
            (&b"{}"[..], "no `execution.R_lite`"),
            (
                br#"{"execution": {"R_lite": [{"rank": "3-1"}]}}"#,
                "bad idset",
            ),
            (
                br#"{"execution": {"R_lite": [{"rank": "0-99999999"}]}}"#,
                "bad idset",
            ),
            (
                br#"{"execution": {"R_lite": [{"rank": "0"}, {"rank": "0"}]}}"#,
                "twice",
            ),
            (b"[", "R.json:1:1: "),
        ] {
            let e = read_flux_r(doc, "R.json").unwrap_err().to_string();
            assert!(e.contains(want) && e.starts_with("R.json"), "{e}");
        }
    }
}
