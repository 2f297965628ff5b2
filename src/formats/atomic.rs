//! All-or-nothing file writes (temporary file, fsync, rename, fsync of the directory), for
//! every writer: the home's state files and the schedulers' files fairsort exports.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A write that failed, with the file it failed on (the temporary or the target).
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct WriteError {
    /// The file involved.
    pub path: PathBuf,
    /// The OS error.
    #[source]
    pub source: std::io::Error,
}

fn at(path: &Path) -> impl FnOnce(std::io::Error) -> WriteError + '_ {
    move |source| WriteError {
        path: path.to_path_buf(),
        source,
    }
}

/// Replaces `path` with `contents` atomically: readers see the old or the new file, never a
/// mix, even if this process is killed at any moment. Call with the exclusive lock held.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), WriteError> {
    let tmp = temp_path(path);
    let mut f = File::create(&tmp).map_err(at(&tmp))?;
    f.write_all(contents).map_err(at(&tmp))?;
    f.sync_all().map_err(at(&tmp))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(at(path))?;
    if let Some(dir) = path.parent() {
        // Make the rename itself durable; not all file systems allow fsync on a directory.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// `dir/.name.tmp`: one temporary per target, safe because writers hold the exclusive lock.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.toml");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert!(!dir.path().join(".f.toml.tmp").exists());
    }
}
