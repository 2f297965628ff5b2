//! PBS's fair-share `usage` file applied to a share tree: [`apply_usage`] of its entries, fast on
//! a tree the `resource_group` reader indexed.

use crate::fairshare::{NodeKind, NodeSpec, Shares, TreeSource, TreeSpec};
use crate::files::FormatError;
use crate::parallel::{self, PARALLEL_MIN_JOBS};
use crate::pbs::defs::tree::{ROOT_NAME, UNKNOWN_GROUP, USAGE_FILE as FILE};
use crate::pbs::{name_hash, PbsUsage, SpecNames};
use crate::usage::apply::{apply_usage, entity_usage, UnmatchedUsage, UsageRecord};

/// [`apply_usage`] of the entries of a PBS usage file, with the index of the tree's names that
/// the `resource_group` reader built ([`SpecNames`], when `spec` is the tree it read and nothing
/// was added since): the same usage, errors and added entities, without indexing a million
/// names again, the entries looked up on every worker. Otherwise [`apply_usage`] itself.
pub fn apply_pbs_usage(
    spec: &mut TreeSpec,
    names: Option<SpecNames>,
    usage: &PbsUsage,
) -> Result<UnmatchedUsage, FormatError> {
    // The reader's trees state no usage above the leaves (nothing to walk up), and every node
    // that is some node's parent is an account, so `parents` of [`apply_usage`] is the
    // accounts (and `unknown`).
    let plain = |spec: &TreeSpec| {
        spec.source == TreeSource::Pbs
            && spec.root_usage.is_none()
            && u32::try_from(spec.nodes.len()).is_ok_and(|n| n < u32::MAX)
            && !(spec.nodes.iter()).any(|n| n.kind == NodeKind::Account && n.usage.is_some())
    };
    let Some(mut names) = names.filter(|n| n.describes(spec) && plain(spec)) else {
        return apply_usage(spec, pbs_records(usage));
    };
    let given = spec.nodes.len();
    // The node of each entry among the nodes read (`u32::MAX`: none), in parts on every worker.
    // Each name's slot is loaded into the cache `AHEAD` entries before it is looked up (a
    // cache miss each in a million-name table, no longer one after the other).
    const AHEAD: usize = 16;
    let find_all = |entries: &[(String, f64)]| -> Vec<u32> {
        for (name, _) in entries.iter().take(AHEAD) {
            names.prefetch(name_hash(name));
        }
        (entries.iter().enumerate())
            .map(|(k, (name, _))| {
                if let Some((ahead, _)) = entries.get(k + AHEAD) {
                    names.prefetch(name_hash(ahead));
                }
                names
                    .find(&spec.nodes, name)
                    .and_then(|i| u32::try_from(i).ok())
                    .unwrap_or(u32::MAX)
            })
            .collect()
    };
    let entries = usage.entries.as_slice();
    let ranges = parallel::ranges(entries.len(), PARALLEL_MIN_JOBS, 1);
    let found = parallel::map_ranges(ranges, |r| find_all(entries.get(r).unwrap_or_default()));
    let found = parallel::concat(found);
    // Then in file order, as [`apply_usage`]: check, refuse a group, set a leaf or add an
    // entity under `unknown` (found by name when it comes again).
    for (k, ((name, usage), &at)) in entries.iter().zip(&found).enumerate() {
        let value = entity_usage(name, *usage)?;
        let read = (at != u32::MAX).then_some(at as usize);
        let group = read.is_some_and(|i| {
            spec.nodes
                .get(i)
                .is_some_and(|n| n.kind == NodeKind::Account)
        });
        if name == ROOT_NAME || name == UNKNOWN_GROUP || group {
            return Err(FormatError::file(
                FILE,
                format!(
                    "entry {}: `{name}` is a group; PBS keeps usage for leaves only",
                    k + 1
                ),
            ));
        }
        let leaf = read.or_else(|| {
            (spec.nodes.len() > given)
                .then(|| names.find(&spec.nodes, name))
                .flatten()
        });
        match leaf.and_then(|i| spec.nodes.get_mut(i)) {
            Some(node) => node.usage = Some(value),
            None => {
                let mut node = NodeSpec::new(
                    name.as_str(),
                    Some(UNKNOWN_GROUP.to_string()),
                    NodeKind::User,
                    Shares::Count(1),
                );
                node.usage = Some(value);
                spec.nodes.push(node);
                names.add_last(&spec.nodes);
            }
        }
    }
    Ok(UnmatchedUsage::default())
}

/// The records of a PBS usage file (`sched_priv/usage`), all PBS entities.
pub fn pbs_records(usage: &PbsUsage) -> impl Iterator<Item = UsageRecord<'_>> {
    usage.entries.iter().map(|(name, usage)| UsageRecord {
        account: None,
        name,
        usage: *usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reader's index gives what [`apply_usage`] gives: usage, added entities under
    /// `unknown` (a name met twice added once, the later value kept), and the same errors; on
    /// a small file and on one large enough for the two-thread lookup.
    #[test]
    fn pbs_usage_with_the_readers_index_is_apply_usage() {
        use crate::pbs::{parse_resource_group_indexed, PbsUsage};
        for groups in [3usize, 300] {
            let mut text = String::new();
            for g in 0..groups {
                text += &format!("g{g} {} root {}\n", g + 10, 1 + g % 3);
                text += &format!("s{g} {} g{g} 2\n", g + 100_000);
            }
            for g in 0..groups {
                for u in 0..400 {
                    text += &format!("u{g}_{u} {} s{g} {}\n", 1_000_000 + g * 1000 + u, 1 + u % 4);
                }
            }
            let entries = |extra: &[(&str, f64)]| {
                let mut e: Vec<(String, f64)> = Vec::new();
                for g in 0..groups {
                    for u in (0..400).filter(|u| (g + u) % 3 != 0) {
                        e.push((format!("u{g}_{u}"), (g * 7 + u) as f64 * 0.5));
                    }
                }
                e.push(("stranger".into(), 4.0));
                e.push(("u0_1".into(), 9.0));
                e.push(("stranger".into(), 6.0));
                e.extend(extra.iter().map(|(n, v)| (n.to_string(), *v)));
                PbsUsage {
                    version: 0,
                    last_decay: None,
                    entries: e,
                }
            };
            let extras = [
                &[][..],
                &[("g1", 1.0)][..],
                &[("s0", 1.0)][..],
                &[("unknown", 1.0)][..],
                &[("TREEROOT", 1.0)][..],
                &[("u0_2", f64::NAN), ("g0", 1.0)][..],
                &[("late", -1.0)][..],
                &[("u1_1", f64::INFINITY)][..],
            ];
            // The large tree (two-thread lookups) with and without an error.
            let take = if groups > 100 { 2 } else { extras.len() };
            for extra in extras.into_iter().take(take) {
                let usage = entries(extra);
                let (mut a, names) = parse_resource_group_indexed(&text, 0).unwrap();
                let mut b = a.clone();
                let fast = apply_pbs_usage(&mut a, Some(names), &usage);
                let slow = apply_usage(&mut b, pbs_records(&usage));
                match (fast, slow) {
                    (Ok(f), Ok(s)) => {
                        assert_eq!(f, s);
                        assert_eq!(a, b);
                    }
                    (f, s) => assert_eq!(
                        f.map_err(|e| e.to_string()),
                        s.map_err(|e| e.to_string()),
                        "{extra:?}"
                    ),
                }
            }
        }
    }
}
