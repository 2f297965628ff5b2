//! Export: write the store's usage where a real scheduler reads it — PBS's binary `usage` file
//! (through `formats::pbs`) and a flux-accounting database's `job_usage` columns (through
//! `formats::flux`).

use crate::fairshare::{NodeKind, TreeSpec};
use crate::pbs::{write_usage_binary, PbsUsage};
use crate::usage::error::UsageError;
use crate::usage::store::Usage;
use std::collections::HashMap;
use std::path::Path;

/// PBS's view of the store: leaves with usage ≠ 1 and not named `unknown` (`rec_write_usage()`),
/// with the store's `last_decay`.
pub fn to_pbs_usage(usage: &Usage) -> PbsUsage {
    let entries = usage
        .entries()
        .filter(|e| e.usage != 1.0 && e.name != crate::fairshare::tree::PBS_UNKNOWN)
        .map(|e| (e.name.clone(), e.usage))
        .collect();
    PbsUsage {
        version: 2,
        last_decay: usage.last_decay,
        entries,
    }
}

/// Writes PBS's binary usage file atomically, keeping the old one as `<file>.bak` and creating
/// `usage.touch` beside it when `touch` is set (as `pbsfs` does, so a running scheduler rereads it).
pub fn write_pbs_usage(usage: &Usage, path: &Path, touch: bool) -> Result<usize, UsageError> {
    let u = to_pbs_usage(usage);
    // Never write what PBS's reader (and fairsort's) would refuse.
    crate::pbs::usage_file::check_writable(&u).map_err(|m| UsageError::Store {
        path: path.to_path_buf(),
        message: m,
    })?;
    // The backup, the file and usage.touch are each replaced by an atomic rename: a link
    // planted at any of them is replaced, never written through; the old file is read without
    // following a link.
    let store = |e: crate::files::WriteError| UsageError::io(&e.path, e.source);
    if let Some(old) = read_no_follow(path)? {
        let mut bak = path.as_os_str().to_owned();
        bak.push(".bak");
        crate::files::write_atomic(Path::new(&bak), &old).map_err(store)?;
    }
    crate::files::write_atomic(path, &write_usage_binary(&u)).map_err(store)?;
    if touch {
        let t = path.with_file_name("usage.touch");
        crate::files::write_atomic(&t, b"").map_err(store)?;
    }
    Ok(u.entries.len())
}

/// The bytes of `path`, `None` if it does not exist; an error if it is a symbolic link.
fn read_no_follow(path: &Path) -> Result<Option<Vec<u8>>, UsageError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path);
    match f {
        Ok(mut f) => {
            let mut bytes = Vec::new();
            f.read_to_end(&mut bytes)
                .map_err(|e| UsageError::io(path, e))?;
            Ok(Some(bytes))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(UsageError::io(path, e)),
    }
}

/// The `(bank, user, usage)` rows for a flux database: each association's usage, and each bank's
/// sum over its subtree (`calc_parent_bank_usage`), banks taken from the database's own tree.
pub(crate) fn flux_rows(usage: &Usage, tree: &TreeSpec) -> Vec<(String, Option<String>, f64)> {
    let mut rows = Vec::new();
    let mut bank_total: HashMap<String, f64> = HashMap::new();
    let parent_of: HashMap<&str, Option<&str>> = tree
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Account)
        .map(|n| (n.name.as_str(), n.parent.as_deref()))
        .collect();
    for e in usage.entries() {
        let Some(bank) = &e.account else { continue };
        rows.push((bank.clone(), Some(e.name.clone()), e.usage));
        let mut at = Some(bank.as_str());
        let mut guard = 0;
        while let Some(b) = at {
            *bank_total.entry(b.to_string()).or_insert(0.0) += e.usage;
            at = parent_of.get(b).copied().flatten();
            guard += 1;
            if guard > parent_of.len() + 1 {
                break;
            }
        }
    }
    let mut banks: Vec<_> = parent_of.keys().map(|b| b.to_string()).collect();
    if !tree.root_name.is_empty() {
        banks.push(tree.root_name.clone());
        let all: f64 = usage
            .entries()
            .filter(|e| e.account.is_some())
            .fold(0.0, |sum, e| sum + e.usage);
        bank_total.insert(tree.root_name.clone(), all);
    }
    banks.sort();
    banks.dedup();
    for b in banks {
        let total = bank_total.get(&b).copied().unwrap_or(0.0);
        rows.push((b, None, total));
    }
    rows
}

/// Writes the associations' and banks' `job_usage` into a flux-accounting database (one
/// transaction; nothing written if an association is missing).
pub fn write_flux_usage(usage: &Usage, db: &Path) -> Result<usize, UsageError> {
    let tree = crate::flux::db::read_db(db).map_err(|e| UsageError::Input {
        path: db.to_path_buf(),
        message: e.to_string(),
    })?;
    let rows = flux_rows(usage, &tree);
    if let Some((bank, user, v)) = rows.iter().find(|(_, _, v)| !(v.is_finite() && *v >= 0.0)) {
        return Err(UsageError::Store {
            path: db.to_path_buf(),
            message: format!(
                "usage {v} of {bank}/{} is not a finite number >= 0",
                user.as_deref().unwrap_or("")
            ),
        });
    }
    crate::flux::db::write_usage(db, &rows).map_err(|e| UsageError::Input {
        path: db.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok(rows.len())
}
