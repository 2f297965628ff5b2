//! Crash-safe file primitives of the home: an advisory lock file (shared for readers, exclusive
//! for writers) and all-or-nothing writes (temporary file, fsync, rename, fsync of the directory).

use super::error::ServerError;
use std::fs::{File, OpenOptions};
use std::path::Path;

/// A held lock on the home's `lock` file; released on drop (or when the process dies).
#[derive(Debug)]
pub struct HomeLock {
    _file: File,
}

impl HomeLock {
    /// Blocks until a shared (read) lock is held. A reader who may not write the home (anyone
    /// may read) opens the lock file read-only; if it cannot even do that, it reads unlocked,
    /// which is still consistent because writers replace files by atomic rename.
    pub fn shared(path: &Path) -> Result<Option<Self>, ServerError> {
        let file = match open_lock_file(path) {
            Ok(f) => f,
            Err(_) => match File::open(path) {
                Ok(f) => f,
                Err(_) => return Ok(None),
            },
        };
        file.lock_shared().map_err(|e| ServerError::io(path, e))?;
        Ok(Some(HomeLock { _file: file }))
    }

    /// Blocks until the exclusive (write) lock is held.
    pub fn exclusive(path: &Path) -> Result<Self, ServerError> {
        let file = open_lock_file(path)?;
        file.lock().map_err(|e| ServerError::io(path, e))?;
        Ok(HomeLock { _file: file })
    }
}

fn open_lock_file(path: &Path) -> Result<File, ServerError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| ServerError::io(path, e))
}

/// Replaces `path` with `contents` atomically (see [`crate::formats::write_atomic`]).
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), ServerError> {
    crate::formats::write_atomic(path, contents).map_err(|e| ServerError::io(e.path, e.source))
}

/// Reads a file to a string, `None` if it does not exist.
pub(crate) fn read_optional(path: &Path) -> Result<Option<String>, ServerError> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|e| ServerError::Corrupt {
                path: path.to_path_buf(),
                line: 1,
                column: 1,
                message: format!("not UTF-8 text ({e})"),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ServerError::io(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_reads_as_none_and_errors_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_optional(&dir.path().join("missing")).unwrap(), None);
        let p = dir.path().join("f.toml");
        write_atomic(&p, b"two").unwrap();
        assert_eq!(read_optional(&p).unwrap().as_deref(), Some("two"));
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        assert!(read_optional(&p)
            .unwrap_err()
            .to_string()
            .contains("not UTF-8"));
    }

    #[test]
    fn shared_locks_coexist() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lock");
        let a = HomeLock::shared(&p).unwrap();
        let b = HomeLock::shared(&p).unwrap();
        drop((a, b));
        let _c = HomeLock::exclusive(&p).unwrap();
    }
}
