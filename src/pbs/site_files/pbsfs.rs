//! `pbsfs` output (OpenPBS `src/scheduler/pbsfs.cpp`): the tree listing of `pbsfs` / `pbsfs -p`
//! (`Fairshare usage units are in: cput`, then one `NAME : Grp: G  cgrp: C Shares: S Usage: U
//! Perc: P%` line per entity, root first, depth first) and the one-entity report of
//! `pbsfs -g NAME`. Usage is printed rounded to a whole number (`%.0f`). The note pbsfs writes
//! to stderr when there is no usage file yet ([`NO_USAGE_FILE`]) is skipped, so captures of
//! both streams read too.

use std::collections::{HashMap, HashSet};

use crate::files::text;
use crate::files::FormatError;
use crate::pbs::defs::tree::{ROOT_NAME, UNKNOWN_GROUP};
use crate::pbs::usage_file::PbsUsage;

/// Label used in messages when no path is known.
pub const FILE: &str = "pbsfs";

/// What pbsfs prints (to stderr) when the usage file does not exist yet.
pub const NO_USAGE_FILE: &str = "Creating usage database for fairshare.";

/// One entity line of the tree listing.
#[derive(Debug, Clone, PartialEq)]
pub struct PbsfsRow {
    /// The entity's name.
    pub name: String,
    /// `Grp`: its parent's `cgrp` (-1 for the root).
    pub group: i64,
    /// `cgrp`: its own group number.
    pub cgroup: i64,
    /// `Shares` (-1 for the root).
    pub shares: i64,
    /// `Usage`, as printed (rounded).
    pub usage: f64,
    /// `Perc`: its share of the whole tree, in percent.
    pub percent: f64,
}

/// The tree listing.
#[derive(Debug, Clone, PartialEq)]
pub struct PbsfsTree {
    /// The usage resource (`fairshare_usage_res`), when the header was printed.
    pub unit: Option<String>,
    /// The entities, in the order printed.
    pub rows: Vec<PbsfsRow>,
}

/// The report of `pbsfs -g NAME`.
#[derive(Debug, Clone, PartialEq)]
pub struct PbsfsEntity {
    /// The entity's name.
    pub name: String,
    /// `Resgroup`: its parent's group number.
    pub group: i64,
    /// `cresgroup`: its own.
    pub cgroup: i64,
    /// `Shares`.
    pub shares: i64,
    /// `Percentage`, in percent.
    pub percent: f64,
    /// `fairshare_tree_usage`.
    pub tree_usage: f64,
    /// `usage` (rounded).
    pub usage: f64,
    /// The unit after the usage (`cput`).
    pub unit: String,
    /// `Path from root`: (name, cgroup, usage) from the root down to the entity.
    pub path: Vec<(String, i64, f64)>,
}

/// The text of `key` up to the next key (or the end), trimmed.
fn field<'a>(line: &'a str, key: &str, next: Option<&str>) -> Option<&'a str> {
    let at = line.find(key)? + key.len();
    let rest = line.get(at..)?;
    let end = next.and_then(|n| rest.find(n)).unwrap_or(rest.len());
    rest.get(..end).map(str::trim)
}

fn number<T: std::str::FromStr>(
    s: Option<&str>,
    what: &str,
    file: &str,
    n: usize,
) -> Result<T, FormatError> {
    let s = s.unwrap_or("");
    s.trim_end_matches('%')
        .trim()
        .parse()
        .map_err(|_| FormatError::line(file, n, format!("{what} `{s}` is not a number")))
}

/// Reads the tree listing of `pbsfs` (or `pbsfs -p`).
pub fn read_pbsfs(text: &str, file: &str) -> Result<PbsfsTree, FormatError> {
    let mut out = PbsfsTree {
        unit: None,
        rows: Vec::new(),
    };
    for item in text::lines(text, file) {
        let (n, line) = item?;
        if line.trim().is_empty() || line.trim() == NO_USAGE_FILE {
            continue;
        }
        if let Some(unit) = line.strip_prefix("Fairshare usage units are in:") {
            out.unit = Some(unit.trim().to_string());
            continue;
        }
        let Some(at) = line.find(": Grp:") else {
            return Err(FormatError::line(
                file,
                n,
                "expected `NAME : Grp: G cgrp: C Shares: S Usage: U Perc: P%`",
            ));
        };
        let name = line.get(..at).unwrap_or("").trim_end();
        let rest = line.get(at..).unwrap_or("");
        out.rows.push(PbsfsRow {
            name: name.to_string(),
            group: number(field(rest, "Grp:", Some("cgrp:")), "Grp", file, n)?,
            cgroup: number(field(rest, "cgrp:", Some("Shares:")), "cgrp", file, n)?,
            shares: number(field(rest, "Shares:", Some("Usage:")), "Shares", file, n)?,
            usage: number(field(rest, "Usage:", Some("Perc:")), "Usage", file, n)?,
            percent: number(field(rest, "Perc:", None), "Perc", file, n)?,
        });
    }
    Ok(out)
}

impl PbsfsTree {
    /// The row named `name`.
    pub fn get(&self, name: &str) -> Option<&PbsfsRow> {
        self.rows.iter().find(|r| r.name == name)
    }

    /// The name of each entity's parent (the row whose `cgrp` is its `Grp`); the root has none.
    pub fn parents(&self) -> HashMap<&str, &str> {
        let by_cgroup: HashMap<i64, &str> = self
            .rows
            .iter()
            .map(|r| (r.cgroup, r.name.as_str()))
            .collect();
        self.rows
            .iter()
            .filter_map(|r| Some((r.name.as_str(), *by_cgroup.get(&r.group)?)))
            .filter(|(c, p)| c != p)
            .collect()
    }

    /// The usage of the leaves (entities no other row has as parent), without the root and the
    /// `unknown` group: what the binary `usage` file holds, usage rounded as printed.
    pub fn usage(&self) -> PbsUsage {
        let parents: HashSet<i64> = self.rows.iter().map(|r| r.group).collect();
        let entries = self
            .rows
            .iter()
            .filter(|r| !parents.contains(&r.cgroup))
            .filter(|r| r.name != ROOT_NAME && r.name != UNKNOWN_GROUP)
            .map(|r| (r.name.clone(), r.usage))
            .collect();
        PbsUsage {
            version: 0,
            last_decay: None,
            entries,
        }
    }
}

/// Reads the report of `pbsfs -g NAME`; `None` for "Fairshare Entity NAME does not exist."
pub fn read_pbsfs_entity(text: &str, file: &str) -> Result<Option<PbsfsEntity>, FormatError> {
    let mut e = PbsfsEntity {
        name: String::new(),
        group: 0,
        cgroup: 0,
        shares: 0,
        percent: 0.0,
        tree_usage: 0.0,
        usage: 0.0,
        unit: String::new(),
        path: Vec::new(),
    };
    let mut in_path = false;
    let mut named = false;
    for item in text::lines(text, file) {
        let (n, line) = item?;
        if line.trim().is_empty() || line.trim() == NO_USAGE_FILE {
            continue;
        }
        if line.starts_with("Fairshare Entity ") && line.trim_end().ends_with("does not exist.") {
            return Ok(None);
        }
        if in_path {
            // `%-10s: %5d %10.0f / %5.3f = %.0f`
            let Some((name, rest)) = line.rsplit_once(':').filter(|(_, r)| r.contains('/')) else {
                return Err(FormatError::line(
                    file,
                    n,
                    "expected `NAME : CGRP USAGE / PERC = RATIO`",
                ));
            };
            let words: Vec<&str> = rest.split_whitespace().collect();
            let cg = number(words.first().copied(), "cgrp", file, n)?;
            let usage = number(words.get(1).copied(), "usage", file, n)?;
            e.path.push((name.trim_end().to_string(), cg, usage));
            continue;
        }
        if line.starts_with("Path from root:") {
            in_path = true;
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(FormatError::line(file, n, "expected `key : value`"));
        };
        let value = value.trim();
        match key.trim() {
            "fairshare entity" => {
                e.name = value.to_string();
                named = true;
            }
            "Resgroup" => e.group = number(Some(value), "Resgroup", file, n)?,
            "cresgroup" => e.cgroup = number(Some(value), "cresgroup", file, n)?,
            "Shares" => e.shares = number(Some(value), "Shares", file, n)?,
            "Percentage" => e.percent = number(Some(value), "Percentage", file, n)?,
            "fairshare_tree_usage" => {
                e.tree_usage = number(Some(value), "fairshare_tree_usage", file, n)?
            }
            "usage" => {
                let (u, unit) = value.split_once(' ').unwrap_or((value, ""));
                e.usage = number(Some(u), "usage", file, n)?;
                e.unit = unit
                    .trim()
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .to_string();
            }
            // `usage/perc` and anything a later pbsfs prints.
            _ => {}
        }
    }
    if !named {
        return Err(FormatError::file(file, "no `fairshare entity:` line"));
    }
    Ok(Some(e))
}

/// A usage file in any form `fairsort pbs import` takes: `pbsfs` output (recognised by its
/// lines), else PBS's binary `usage` file or fairsort's text ([`crate::pbs::read_usage`] tells
/// those apart). `file` names it in errors.
pub fn read_any_usage(bytes: &[u8], file: &str) -> Result<PbsUsage, FormatError> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        let pbsfs = text.lines().any(|l| {
            l.starts_with("Fairshare usage units are in:")
                || (l.contains(": Grp:") && l.contains("Shares:"))
        });
        if pbsfs {
            return read_pbsfs(text, file).map(|tree| tree.usage());
        }
    }
    crate::pbs::usage_file::read_usage(bytes).map_err(|e| e.with_file(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TREE: &str = "Fairshare usage units are in: cput\n\
        TREEROOT  : Grp: -1     cgrp: 0    Shares: -1     Usage: 1551   Perc: 100.000%\n\
        chem      : Grp: 0      cgrp: 20   Shares: 40     Usage: 1001   Perc: 40.000%\n\
        erin      : Grp: 20     cgrp: 22   Shares: 50     Usage: 200    Perc: 20.000%\n\
        averylongname: Grp: 20     cgrp: 123456Shares: 50     Usage: 800    Perc: 20.000%\n\
        unknown   : Grp: 0      cgrp: 1    Shares: 0      Usage: 1      Perc:  0.000%\n";

    #[test]
    fn tree_rows_parents_and_leaf_usage() {
        let t = read_pbsfs(&format!("{NO_USAGE_FILE}\n{TREE}"), FILE).unwrap();
        assert_eq!(t.unit.as_deref(), Some("cput"));
        assert_eq!(t.rows.len(), 5);
        let l = t.get("averylongname").unwrap();
        assert_eq!(
            (l.group, l.cgroup, l.shares, l.usage, l.percent),
            (20, 123456, 50, 800.0, 20.0)
        );
        let p = t.parents();
        assert_eq!(p.get("erin"), Some(&"chem"));
        assert_eq!(p.get("chem"), Some(&"TREEROOT"));
        assert!(!p.contains_key("TREEROOT"));
        let u = t.usage();
        assert_eq!(
            u.entries,
            [
                ("erin".to_string(), 200.0),
                ("averylongname".to_string(), 800.0)
            ]
        );
    }

    #[test]
    fn bad_tree_line() {
        let e = read_pbsfs(
            "TREEROOT  : Grp: x cgrp: 0 Shares: -1 Usage: 1 Perc: 1%\n",
            FILE,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "pbsfs:1: Grp `x` is not a number");
        assert!(read_pbsfs("hello\n", FILE).is_err());
    }

    #[test]
    fn entity_report() {
        let t = "fairshare entity: alice\nResgroup\t\t: 10\ncresgroup\t\t: 11\nShares\t\t\t: 40\n\
            Percentage\t\t: 24.000000%\nfairshare_tree_usage\t: 0.296841\nusage\t\t\t: 400 (cput)\n\
            usage/perc\t\t: 1667\nPath from root: \nTREEROOT  :     0       1551 / 1.000 = 1551\n\
            physics   :    10        551 / 0.600 = 918\nalice     :    11        400 / 0.240 = 1667\n";
        let e = read_pbsfs_entity(t, FILE).unwrap().unwrap();
        assert_eq!(
            (e.name.as_str(), e.group, e.cgroup, e.shares),
            ("alice", 10, 11, 40)
        );
        assert_eq!(
            (e.percent, e.tree_usage, e.usage, e.unit.as_str()),
            (24.0, 0.296841, 400.0, "cput")
        );
        assert_eq!(e.path.len(), 3);
        assert_eq!(e.path[1], ("physics".to_string(), 10, 551.0));
        let missing = format!("{NO_USAGE_FILE}\nFairshare Entity frank does not exist.\n");
        assert_eq!(read_pbsfs_entity(&missing, FILE).unwrap(), None);
        assert!(read_pbsfs_entity("Resgroup : 1\n", FILE).is_err());
    }

    /// pbsfs output, fairsort's text and PBS's binary file all read as usage, each error
    /// naming the file.
    #[test]
    fn any_usage_form() {
        let pbsfs = "Fairshare usage units are in: cput\n\
            TREEROOT  : Grp: -1     cgrp: 0    Shares: -1     Usage: 11     Perc: 100.000%\n\
            alice     : Grp: 0      cgrp: 1    Shares: 10     Usage: 10     Perc: 100.000%\n";
        let u = read_any_usage(pbsfs.as_bytes(), "p").unwrap();
        assert_eq!(u.entries, [("alice".to_string(), 10.0)]);
        let text = read_any_usage(b"alice 4\n", "t").unwrap();
        assert_eq!(text.entries, [("alice".to_string(), 4.0)]);
        let binary = crate::pbs::usage_file::write_usage_binary(&u);
        assert_eq!(read_any_usage(&binary, "b").unwrap().entries, u.entries);
        let e = read_any_usage(b"garbage\n", "bad.txt")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("bad.txt:1:"), "{e}");
    }
}
