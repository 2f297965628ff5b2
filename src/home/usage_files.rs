//! The usage files of a home: the store `usage.toml` and the job ledger `usage.ledger`, opened
//! together under the home's writers' lock (`UsageHome`), and the store read without a lock.

use crate::home::audit;
use crate::home::dir::{files, Home};
use crate::home::fsio::{modes, HomeDir, WriteLock};
use crate::home::journal;
use crate::home::permissions::is_manager;
use crate::home::usage_cache;
use crate::usage::{Ledger, Usage, UsageError, UsageStore};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The usage files of one home, held under the home's writers' lock until drop:
/// the store `<home>/usage.toml` and the ledger `<home>/usage.ledger`.
pub struct UsageHome {
    dir: Arc<HomeDir>,
    store: PathBuf,
    ledger: PathBuf,
    /// The audit record committed with the store (none for a bare directory).
    audit: Option<String>,
    /// Whether the store (and so the audit record) was committed.
    committed: Cell<bool>,
    /// `clear_ledger` was asked: the ledger file is emptied once the store is committed.
    clear_ledger: Cell<bool>,
    _lock: WriteLock,
}

impl UsageHome {
    /// The same for a bare directory laid out like a home (`lock`, `usage.toml`,
    /// `usage.ledger`), created if needed; for tests and benchmarks that need no server state.
    /// Nothing is audited.
    pub fn lock_dir(dir: &Path) -> Result<UsageHome, UsageError> {
        std::fs::create_dir_all(dir).map_err(|e| UsageError::io(dir, e))?;
        let hd = HomeDir::open(dir).map_err(|e| server_err(dir, e))?;
        hd.check_safe(&files::ALL).map_err(|e| server_err(dir, e))?;
        Self::locked(Arc::new(hd), None).map_err(|e| server_err(dir, e))
    }

    fn locked(
        dir: Arc<HomeDir>,
        audit: Option<String>,
    ) -> Result<UsageHome, crate::home::HomeError> {
        let lock = WriteLock::acquire(&dir, files::LOCK)?;
        dir.check_safe(&files::ALL)?;
        journal::recover(&dir, &files::ALL)?;
        Ok(UsageHome {
            store: dir.file(files::USAGE),
            ledger: dir.file(files::LEDGER),
            dir,
            audit,
            committed: Cell::new(false),
            clear_ledger: Cell::new(false),
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

    /// Loads the store (a missing file is an empty PBS-model store): from its binary copy when
    /// that was made for this exact text, else parsed (and the copy rewritten).
    pub fn load(&self) -> Result<Usage, UsageError> {
        self.load_store().map(Usage::from_store)
    }

    /// [`UsageHome::load`] without indexing the entries (for a look at the settings or the
    /// charged marks: a re-record of charged logs needs no more).
    pub fn load_store(&self) -> Result<UsageStore, UsageError> {
        let text = self
            .dir
            .read(files::USAGE)
            .map_err(|e| server_err(&self.store, e))?;
        let store = match text {
            Some((text, _)) => {
                let key = usage_cache::key(text.as_bytes());
                match cached(&self.dir, &key) {
                    Some(store) => store,
                    None => {
                        let store = UsageStore::parse(&text, &self.store)?;
                        write_cache(&self.dir, &key, &store);
                        store
                    }
                }
            }
            None => UsageStore::default(),
        };
        Ok(store)
    }

    /// Loads the ledger's committed part.
    pub fn ledger(&self, usage: &Usage) -> Result<Ledger, UsageError> {
        self.check_ledger()?;
        Ledger::load(&self.ledger, usage.ledger_bytes)
    }

    /// The ledger is opened by path (by the usage layer, with `O_NOFOLLOW`); make sure it is
    /// still a plain file of the home.
    fn check_ledger(&self) -> Result<(), UsageError> {
        self.dir
            .check_safe(&[files::LEDGER])
            .map_err(|e| server_err(&self.ledger, e))
    }

    /// Appends the ledger's new lines (past the committed length the store records, so a crash
    /// leaves them unused), then replaces the store and writes the audit record together. A large
    /// append (a `usage record`) is written and synced on a pool thread while the store is
    /// rendered; the store is written only once the ledger is synced.
    pub fn commit(&self, usage: &mut Usage, ledger: Option<&mut Ledger>) -> Result<(), UsageError> {
        let committed = usage.ledger_bytes;
        let text = match ledger {
            Some(l) => {
                self.check_ledger()?;
                usage.ledger_bytes = l.length_after(committed);
                let path: &Path = &self.ledger;
                let parallel = l.pending_bytes() >= PARALLEL_APPEND_BYTES;
                let mut append = || l.append(path, committed);
                let render = || usage.to_store();
                let (store, appended) = if parallel {
                    crate::parallel::join(|| rendered(render(), &self.store), append)
                } else {
                    let appended = append();
                    (rendered(render(), &self.store), appended)
                };
                if let Err(e) = appended {
                    usage.ledger_bytes = committed;
                    return Err(e);
                }
                store?
            }
            None => rendered(usage.to_store(), &self.store)?,
        };
        let (store, text) = text;
        let target = Some((files::USAGE, text.as_bytes(), modes::PUBLIC));
        let result = match (&self.audit, self.committed.get()) {
            (Some(line), false) => journal::commit(&self.dir, target, line),
            _ => self.dir.write(files::USAGE, text.as_bytes(), modes::PUBLIC),
        };
        result.map_err(|e| server_err(&self.store, e))?;
        self.committed.set(true);
        write_cache(&self.dir, &usage_cache::key(text.as_bytes()), &store);
        if self.clear_ledger.get() && usage.ledger_bytes == 0 {
            self.dir
                .remove(files::LEDGER)
                .map_err(|e| server_err(&self.ledger, e))?;
            self.dir.sync();
            self.clear_ledger.set(false);
        }
        Ok(())
    }

    /// Forgets every charged job (an empty ledger, once the store is committed).
    pub fn clear_ledger(&self, usage: &mut Usage) -> Result<(), UsageError> {
        usage.ledger_bytes = 0;
        // The charged marks stand for ledger lines: forgotten with them.
        usage.forget_marks();
        self.clear_ledger.set(true);
        Ok(())
    }
}

/// From this many bytes of new ledger lines, [`UsageHome::commit`] writes them on a second thread.
const PARALLEL_APPEND_BYTES: usize = 1 << 20;

/// A store with its text (the `usage.toml` to write).
fn rendered(store: UsageStore, path: &Path) -> Result<(UsageStore, String), UsageError> {
    let text = store.render(path)?;
    Ok((store, text))
}

/// The binary copy of the store if it was made for the text with `key` (any problem is a miss).
fn cached(dir: &HomeDir, key: &usage_cache::Key) -> Option<UsageStore> {
    use std::io::Read;
    let mut f = dir.open_read(usage_cache::FILE).ok()??;
    let size = f.metadata().map_or(0, |m| m.len());
    // Read in one go (no doubling of a 1.3 MB buffer for 50 000 entities).
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    f.read_to_end(&mut bytes).ok()?;
    usage_cache::decode(&bytes, key)
}

/// Rewrites the binary copy of the store (under the writers' lock). A copy that cannot be
/// written is only a cost: the next reader parses the text.
fn write_cache(dir: &HomeDir, key: &usage_cache::Key, store: &UsageStore) {
    let bytes = usage_cache::encode(key, store);
    let _ = dir.write(usage_cache::FILE, &bytes, modes::PUBLIC);
}

fn server_err(path: &Path, e: crate::home::HomeError) -> UsageError {
    match e {
        crate::home::HomeError::Io { path, source } => UsageError::io(&path, source),
        e => UsageError::Store {
            path: path.to_path_buf(),
            message: e.to_string(),
        },
    }
}

/// Why a change of the home's usage was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum UsageChangeError {
    /// The user is not a manager of the home (checked before any lock is taken): PBS's
    /// `Unauthorized Request` lines, then who asked and who the managers are.
    #[error("{}", crate::home::permissions::unauthorized("", user, host, managers).render("default"))]
    Unauthorized {
        /// Who asked.
        user: String,
        /// From where.
        host: String,
        /// The home's managers.
        managers: Vec<String>,
    },
    /// The home's state, lock or audit log failed.
    #[error(transparent)]
    Home(#[from] crate::home::HomeError),
    /// The store, ledger or an input failed.
    #[error(transparent)]
    Usage(#[from] UsageError),
}

impl Home {
    /// One change of the usage store by `user`@`host`: only a manager may (checked before any
    /// lock), then `f` runs under the writers' lock (it loads, changes and commits through the
    /// [`UsageHome`] it is given); the store and the audit record of `command` are committed
    /// together. A command that commits no store (an export, which writes outside the home) is
    /// recorded after `f` succeeds.
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
                managers: state.server.managers,
            }
            .into());
        }
        let line = audit::record(user, host, command);
        let lock = UsageHome::locked(self.dir_arc(), Some(line.clone()))
            .map_err(UsageChangeError::from)?;
        // The managers may have changed while this process waited for the lock.
        let state = self.load().map_err(UsageChangeError::from)?;
        if !is_manager(user, host, &state.server.managers) {
            return Err(UsageChangeError::Unauthorized {
                user: user.to_string(),
                host: host.to_string(),
                managers: state.server.managers,
            }
            .into());
        }
        let out = f(&lock)?;
        if !lock.committed.get() {
            journal::commit(&lock.dir, None, &line).map_err(UsageChangeError::from)?;
        }
        Ok(out)
    }
}

impl Home {
    /// The home's usage store, read without a lock through the home's handle (a missing file is
    /// an empty store).
    pub fn usage_store(&self) -> Result<UsageStore, UsageError> {
        let path = self.usage_path();
        match self.read_text(files::USAGE) {
            Ok(Some(text)) => match cached(self.dir(), &usage_cache::key(text.as_bytes())) {
                Some(store) => Ok(store),
                None => UsageStore::parse(&text, &path),
            },
            Ok(None) => Ok(UsageStore::default()),
            Err(e) => Err(server_err(&path, e)),
        }
    }
}

/// Reads a store without locking (writes are atomic renames) and without following a link at
/// `path`; a missing file is an empty store.
pub fn load_store(path: &Path) -> Result<UsageStore, UsageError> {
    match crate::home::fsio::read_optional(path) {
        Ok(Some(text)) => UsageStore::parse(&text, path),
        Ok(None) => Ok(UsageStore::default()),
        Err(e) => Err(server_err(path, e)),
    }
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

    /// A ledger append large enough to be written on the second thread while the store is
    /// rendered: the store records the appended length, and a second commit appends after it.
    #[test]
    fn a_large_append_is_committed_before_the_store_that_counts_it() {
        let dir = tempfile::tempdir().unwrap();
        let jobs = |from: u64, n: u64| {
            (from..from + n)
                .map(|j| FinishedJob::pbs(format!("{j}.server"), 1_713_000_000, "alice", 2.0))
                .collect::<Vec<_>>()
        };
        let mut lengths = Vec::new();
        for (from, n) in [(0, 40_000), (40_000, 30_000)] {
            let home = UsageHome::lock_dir(dir.path()).unwrap();
            let mut u = home.load().unwrap();
            let mut l = home.ledger(&u).unwrap();
            for j in jobs(from, n) {
                assert!(u.charge(&mut l, &j));
            }
            assert!(l.pending_bytes() >= PARALLEL_APPEND_BYTES);
            home.commit(&mut u, Some(&mut l)).unwrap();
            let on_disk = std::fs::metadata(home.ledger_path()).unwrap().len();
            assert_eq!(u.ledger_bytes, on_disk);
            lengths.push(on_disk);
        }
        assert!(lengths[0] > 0 && lengths[1] > lengths[0]);
        let home = UsageHome::lock_dir(dir.path()).unwrap();
        let mut u = home.load().unwrap();
        assert_eq!(u.ledger_bytes, lengths[1]);
        let mut l = home.ledger(&u).unwrap();
        assert_eq!(l.len(), 70_000);
        assert!(jobs(0, 70_000).iter().all(|j| !u.charge(&mut l, j)));
        assert_eq!(u.usage_of(None, "alice"), 1.0 + 2.0 * 70_000.0);
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
