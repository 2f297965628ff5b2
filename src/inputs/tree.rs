//! Which format a tree file is in ([`TreeFormat`], [`detect_format`]) and the entry points that
//! read any of them ([`read_tree`], [`read_tree_str`]).

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use crate::fairshare::spec::TreeSpec;
use crate::files::{text, FormatError};
use crate::flux::db as flux;
use crate::native::tree as native;
use crate::{pbs, slurm};

/// The tree formats fairsort reads; `--tree-format` takes these names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TreeFormat {
    /// PBS `resource_group`.
    Pbs,
    /// Slurm `sshare -a -l -P` or `-p`.
    Sshare,
    /// Slurm `sacctmgr show assoc -P` with ParentName.
    Sacctmgr,
    /// Slurm `sacctmgr dump CLUSTER file=FILE`.
    SacctmgrDump,
    /// flux-accounting SQLite database.
    FluxDb,
    /// fairsort TOML.
    Toml,
    /// fairsort JSON.
    Json,
}

impl TreeFormat {
    /// Every format, in `--help` order.
    pub const ALL: [TreeFormat; 7] = [
        TreeFormat::Pbs,
        TreeFormat::Sshare,
        TreeFormat::Sacctmgr,
        TreeFormat::SacctmgrDump,
        TreeFormat::FluxDb,
        TreeFormat::Toml,
        TreeFormat::Json,
    ];

    /// The command-line name (`flux-db`, ...).
    pub fn name(self) -> &'static str {
        match self {
            TreeFormat::Pbs => "pbs",
            TreeFormat::Sshare => "sshare",
            TreeFormat::Sacctmgr => "sacctmgr",
            TreeFormat::SacctmgrDump => "sacctmgr-dump",
            TreeFormat::FluxDb => "flux-db",
            TreeFormat::Toml => "toml",
            TreeFormat::Json => "json",
        }
    }
}

impl fmt::Display for TreeFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TreeFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TreeFormat::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                format!(
                    "unknown tree format `{s}` (expected one of: pbs, sshare, sacctmgr, sacctmgr-dump, flux-db, toml, json)"
                )
            })
    }
}

/// SQLite's file header.
const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// Guesses the format of a tree file from its first bytes (`head`, a few KiB is enough) and,
/// when the content says nothing, its extension: SQLite magic → flux-db; `{` → json; a `|` header
/// naming ParentName → sacctmgr, naming RawShares/RawUsage → sshare; `key = value` or `[table]`
/// → toml; a line of at least four whitespace-separated fields → pbs. `None` if nothing fits.
pub fn detect_format(path: &Path, head: &[u8]) -> Option<TreeFormat> {
    if head.starts_with(SQLITE_MAGIC) {
        return Some(TreeFormat::FluxDb);
    }
    let by_ext = || match path.extension().and_then(|e| e.to_str()) {
        Some("toml") => Some(TreeFormat::Toml),
        Some("json") => Some(TreeFormat::Json),
        Some("db" | "sqlite" | "sqlite3") => Some(TreeFormat::FluxDb),
        _ => None,
    };
    // A head may end inside a UTF-8 sequence: judge the valid prefix.
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(head.get(..e.valid_up_to()).unwrap_or(&[])).unwrap_or(""),
    };
    let text = text.trim_start_matches('\u{feff}');
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        return Some(TreeFormat::Json);
    }
    let first = text.lines().map(str::trim).find(|l| {
        !l.is_empty() && !l.starts_with('#') && !l.starts_with('*') && !l.starts_with("CLUSTER: ")
    });
    let Some(first) = first else {
        return by_ext();
    };
    if first.to_ascii_lowercase().starts_with("cluster - ") {
        return Some(TreeFormat::SacctmgrDump);
    }
    if first.contains('|') {
        let cols: Vec<String> = first
            .split('|')
            .map(|c| {
                c.chars()
                    .filter(|ch| !ch.is_whitespace())
                    .collect::<String>()
                    .to_ascii_lowercase()
            })
            .collect();
        let has = |n: &str| cols.iter().any(|c| c == n);
        if has("account") && (has("parentname") || has("parname")) {
            return Some(TreeFormat::Sacctmgr);
        }
        if has("account") && (has("rawshares") || has("rawusage")) {
            return Some(TreeFormat::Sshare);
        }
        return by_ext();
    }
    let is_toml_key = first.split_once('=').is_some_and(|(k, _)| {
        let k = k.trim();
        !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '"' | ' '))
            && !k.contains("  ")
    });
    if first.starts_with('[') || is_toml_key {
        return Some(TreeFormat::Toml);
    }
    if first.split_whitespace().count() >= 4 {
        return by_ext().or(Some(TreeFormat::Pbs));
    }
    by_ext()
}

/// Reads a tree file, detecting the format when `format` is `None`. Errors name the path. PBS
/// trees get PBS's default `unknown_shares` 0.
pub fn read_tree(path: &Path, format: Option<TreeFormat>) -> Result<TreeSpec, FormatError> {
    read_tree_indexed(path, format).map(|(spec, _)| spec)
}

/// [`read_tree`], with the PBS `resource_group` reader's index of the nodes by name (`None`
/// for the other formats), for applying a usage file without indexing the names again.
pub fn read_tree_indexed(
    path: &Path,
    format: Option<TreeFormat>,
) -> Result<(TreeSpec, Option<pbs::SpecNames>), FormatError> {
    let file = path.display().to_string();
    let format = match format {
        Some(f) => f,
        None => {
            let head = read_head(path).map_err(|source| FormatError::Io {
                file: file.clone(),
                source,
            })?;
            detect_format(path, &head).ok_or_else(|| {
                FormatError::file(
                    &file,
                    "cannot tell the tree format; name it with --tree-format pbs|sshare|sacctmgr|sacctmgr-dump|flux-db|toml|json",
                )
            })?
        }
    };
    if format == TreeFormat::FluxDb {
        if !path.exists() {
            return Err(FormatError::Io {
                file,
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            });
        }
        return flux::read_db(path).map(|spec| (spec, None));
    }
    // JSON may legitimately be one long line; the line-oriented formats bound a line.
    let bytes = if format == TreeFormat::Json {
        let bytes = std::fs::read(path).map_err(|source| FormatError::Io {
            file: file.clone(),
            source,
        })?;
        text::FileText::Read(bytes)
    } else {
        text::read_file(path, &file)?
    };
    let text = text::utf8(&bytes, &file)?;
    if format == TreeFormat::Pbs {
        return pbs::parse_resource_group_indexed(text, 0)
            .map(|(spec, names)| (spec, Some(names)))
            .map_err(|e| e.with_file(&file));
    }
    read_tree_str(text, format)
        .map(|spec| (spec, None))
        .map_err(|e| e.with_file(&file))
}

fn read_head(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::with_capacity(8192);
    std::fs::File::open(path)?
        .take(8192)
        .read_to_end(&mut buf)?;
    Ok(buf)
}

/// Reads a tree from text in any text format (`FluxDb` is a database: use [`read_tree`]).
pub fn read_tree_str(text: &str, format: TreeFormat) -> Result<TreeSpec, FormatError> {
    match format {
        TreeFormat::Pbs => pbs::parse_resource_group(text, 0),
        TreeFormat::Sshare => slurm::parse_sshare(text),
        TreeFormat::Sacctmgr => slurm::parse_sacctmgr(text),
        TreeFormat::SacctmgrDump => slurm::parse_sacctmgr_dump(text),
        TreeFormat::Toml => native::read_toml(text),
        TreeFormat::Json => native::read_json(text),
        TreeFormat::FluxDb => Err(FormatError::file(
            "flux-db",
            "a flux-accounting database is binary SQLite: read it from a file",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in TreeFormat::ALL {
            assert_eq!(f.to_string().parse::<TreeFormat>(), Ok(f));
        }
        assert!("slurm".parse::<TreeFormat>().is_err());
    }

    #[test]
    fn detects() {
        let p = Path::new("x");
        assert_eq!(
            detect_format(p, b"SQLite format 3\0rest"),
            Some(TreeFormat::FluxDb)
        );
        assert_eq!(
            detect_format(p, b"  {\"root\": \"r\"}"),
            Some(TreeFormat::Json)
        );
        assert_eq!(
            detect_format(p, b"# c\nroot = \"r\"\n"),
            Some(TreeFormat::Toml)
        );
        assert_eq!(
            detect_format(p, b"[[accounts]]\nname = \"a\"\n"),
            Some(TreeFormat::Toml)
        );
        assert_eq!(
            detect_format(p, b"Account|User|RawShares|NormShares|RawUsage\n"),
            Some(TreeFormat::Sshare)
        );
        assert_eq!(
            detect_format(p, b"Cluster|Account|User|Partition|Share|ParentName|\n"),
            Some(TreeFormat::Sacctmgr)
        );
        assert_eq!(
            detect_format(p, b"# name id parent shares\ngrp1 10 root 40\n"),
            Some(TreeFormat::Pbs)
        );
        assert_eq!(
            detect_format(
                p,
                b"# To edit\nCluster - 'c':Fairshare=1\nParent - 'root'\n"
            ),
            Some(TreeFormat::SacctmgrDump)
        );
        assert_eq!(detect_format(p, b""), None);
        assert_eq!(
            detect_format(Path::new("t.toml"), b""),
            Some(TreeFormat::Toml)
        );
    }
}
