//! The usage files of a home: the store `usage.toml` and the job ledger `usage.ledger`, opened
//! together under the home's exclusive lock (`UsageHome`), and the store read without a lock.

use super::audit;
use super::dir::{files, Home};
use super::fsio::{self, HomeLock};
use super::permissions::is_manager;
use crate::usage::{Ledger, Usage, UsageError, UsageStore};
use std::path::{Path, PathBuf};

/// The usage files of one server home, held under the home's exclusive lock until drop:
/// the store at `Home::usage_path()` (`<home>/usage`) and the ledger `<home>/usage.ledger`.
pub struct UsageHome {
    store: PathBuf,
    ledger: PathBuf,
    _lock: HomeLock,
}

impl UsageHome {
    /// Takes the server home's exclusive lock (waiting for other writers, qmgr included).
    pub fn lock(home: &Home) -> Result<UsageHome, UsageError> {
        Self::lock_dir(home.path())
    }

    /// The same for a bare directory laid out like a home (`lock`, `usage`, `usage.ledger`),
    /// created if needed; for tests and benchmarks that need no server state.
    pub fn lock_dir(dir: &Path) -> Result<UsageHome, UsageError> {
        std::fs::create_dir_all(dir).map_err(|e| UsageError::io(dir, e))?;
        let lock = HomeLock::exclusive(&dir.join(files::LOCK)).map_err(|e| server_err(dir, e))?;
        Ok(UsageHome {
            store: dir.join(files::USAGE),
            ledger: dir.join(files::LEDGER),
            _lock: lock,
        })
    }

    /// The store file.
    pub fn store_path(&self) -> &Path {
        &self.store
    }

    /// The ledger file.
    pub fn ledger_path(&self) -> &Path {
        &self.ledger
    }

    /// Loads the store (a missing file is an empty PBS-model store).
    pub fn load(&self) -> Result<Usage, UsageError> {
        load_store(&self.store).map(Usage::from_store)
    }

    /// Loads the ledger's committed part.
    pub fn ledger(&self, usage: &Usage) -> Result<Ledger, UsageError> {
        Ledger::load(&self.ledger, usage.ledger_bytes)
    }

    /// Appends the ledger's new lines, then atomically replaces the store.
    pub fn commit(&self, usage: &mut Usage, ledger: Option<&mut Ledger>) -> Result<(), UsageError> {
        if let Some(l) = ledger {
            usage.ledger_bytes = l.append(&self.ledger, usage.ledger_bytes)?;
        }
        let text = usage.to_store().render(&self.store)?;
        write_atomic(&self.store, text.as_bytes())
    }

    /// Forgets every charged job (an empty ledger).
    pub fn clear_ledger(&self, usage: &mut Usage) -> Result<(), UsageError> {
        usage.ledger_bytes = 0;
        match std::fs::remove_file(&self.ledger) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(UsageError::io(&self.ledger, e)),
        }
    }
}

fn server_err(path: &Path, e: crate::home::ServerError) -> UsageError {
    UsageError::Store {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Why a change of the home's usage was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum UsageChangeError {
    /// The user is not a manager of the home (checked before any lock is taken).
    #[error("Unauthorized Request: {user}@{host} is not a manager of this home")]
    Unauthorized {
        /// Who asked.
        user: String,
        /// From where.
        host: String,
    },
    /// The home's state, lock or audit log failed.
    #[error(transparent)]
    Home(#[from] crate::home::ServerError),
    /// The store, ledger or an input failed.
    #[error(transparent)]
    Usage(#[from] UsageError),
}

impl Home {
    /// One change of the usage store by `user`@`host`: only a manager may (checked before any
    /// lock), then `f` runs under the exclusive lock (it loads, changes and commits through the
    /// [`UsageHome`] it is given), then `command` is recorded in the audit log.
    pub fn change_usage<T, E>(
        &self,
        user: &str,
        host: &str,
        command: &str,
        f: impl FnOnce(&UsageHome) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<UsageChangeError>,
    {
        let state = self.load().map_err(UsageChangeError::from)?;
        if !is_manager(user, host, &state.server.managers) {
            return Err(UsageChangeError::Unauthorized {
                user: user.to_string(),
                host: host.to_string(),
            }
            .into());
        }
        let out = {
            let lock = UsageHome::lock(self).map_err(UsageChangeError::from)?;
            f(&lock)?
        };
        audit::append(&self.file(files::AUDIT), user, host, command)
            .map_err(UsageChangeError::from)?;
        Ok(out)
    }
}

/// Reads a store without locking (writes are atomic renames); a missing file is an empty store.
pub fn load_store(path: &Path) -> Result<UsageStore, UsageError> {
    match std::fs::read_to_string(path) {
        Ok(text) => UsageStore::parse(&text, path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(UsageStore::default()),
        Err(e) => Err(UsageError::io(path, e)),
    }
}

/// Replaces `path` atomically with the server's helper (temporary file, fsync, rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), UsageError> {
    fsio::write_atomic(path, bytes).map_err(|e| server_err(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::FinishedJob;

    #[test]
    fn pbs_store_round_trip_and_decay() {
        let dir = tempfile::tempdir().unwrap();
        let home = UsageHome::lock_dir(dir.path()).unwrap();
        let mut u = home.load().unwrap();
        let mut l = home.ledger(&u).unwrap();
        assert!(u.charge(&mut l, &FinishedJob::pbs("1", 100, "alice", 999.0)));
        assert!(!u.charge(&mut l, &FinishedJob::pbs("1", 100, "alice", 999.0)));
        assert_eq!(u.usage_of(None, "alice"), 1000.0);
        assert_eq!(u.usage_of(None, "nobody"), 1.0);
        u.decay(0).unwrap();
        home.commit(&mut u, Some(&mut l)).unwrap();
        drop(home);

        let home = UsageHome::lock_dir(dir.path()).unwrap();
        let mut u = home.load().unwrap();
        let mut l = home.ledger(&u).unwrap();
        assert!(!u.charge(&mut l, &FinishedJob::pbs("1", 100, "alice", 999.0)));
        let r = u.decay(3 * 86_400 + 1).unwrap();
        assert_eq!(r.periods, 3);
        assert_eq!(u.usage_of(None, "alice"), 125.0);
        assert_eq!(u.last_decay, Some(3 * 86_400));
    }

    #[test]
    fn damaged_store_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(files::USAGE);
        assert!(load_store(&path).unwrap().entries.is_empty());
        std::fs::write(&path, "version = [").unwrap();
        assert!(load_store(&path).is_err());
    }
}
