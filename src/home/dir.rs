//! `Home`: an opened home directory. Layout (all human-readable, see docs/home.md):
//! `server.toml` (attributes, queues, custom resources), `resource_group` (the share tree, PBS
//! layout), `usage.toml` (fair-share usage, owned by `fairsort usage`), `audit.log`, `lock`.
//! How the files are opened, locked, written and audited: docs/security.md.

use crate::home::audit;
use crate::home::error::{HomeError, Rejection};
use crate::home::fsio::{modes, HomeDir, WriteLock};
use crate::home::journal;
use crate::home::permissions::current_host;
use crate::home::state::HomeState;
use crate::home::state_file;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// File names inside a home.
pub mod files {
    /// Attributes, queues and custom resources (TOML).
    pub const STATE: &str = "server.toml";
    /// The share tree in PBS `resource_group` layout.
    pub const TREE: &str = "resource_group";
    /// A Slurm, flux or fairsort share tree (fairsort's TOML tree format); when present it is
    /// the home's tree, whatever `resource_group` holds.
    pub const NATIVE_TREE: &str = "tree.toml";
    /// Fair-share usage (written by `fairsort usage`).
    pub const USAGE: &str = "usage.toml";
    /// The ledger of charged jobs beside the usage store.
    pub const LEDGER: &str = "usage.ledger";
    /// One line per change.
    pub const AUDIT: &str = "audit.log";
    /// The writers' lock file (mode 0600).
    pub const LOCK: &str = "lock";
    /// The intent record of a change being committed (see `journal`).
    pub const PENDING: &str = super::super::journal::PENDING;
    /// The binary snapshot of the tree with usage (a cache of the text, see `snapshot_cache`).
    pub const SNAPSHOT: &str = super::super::snapshot_cache::FILE;
    /// The binary copy of the usage store (a cache of the text, see `usage_cache`).
    pub const USAGE_CACHE: &str = super::super::usage_cache::FILE;
    /// A Slurm site's configuration (slurm.conf, `sacctmgr` QOS and associations; see
    /// `slurm_store`).
    pub const SLURM: &str = super::super::slurm_store::FILE;
    /// Which scheduler the home describes and where each part came from (see `site`).
    pub const SITE: &str = super::super::site::FILE;
    /// A PBS site's own files (print server, list sched, sched_config, holidays; see
    /// `pbs_store`).
    pub const PBS: &str = super::super::pbs_store::FILE;
    /// Every file the home reads or writes (checked before the home is used).
    pub const ALL: [&str; 12] = [
        STATE,
        TREE,
        USAGE,
        LEDGER,
        AUDIT,
        LOCK,
        PENDING,
        SNAPSHOT,
        USAGE_CACHE,
        SLURM,
        SITE,
        PBS,
    ];
}

/// An opened home (the directory exists, is safe, and holds a state file).
#[derive(Debug, Clone)]
pub struct Home {
    path: PathBuf,
    dir: Arc<HomeDir>,
}

/// A change of one file of the home other than `server.toml`, made inside
/// [`Home::with_exclusive`] and committed with its audit record.
#[derive(Debug, Default)]
pub struct Change {
    writes: Vec<(&'static str, Vec<u8>)>,
    removes: Vec<&'static str>,
}

impl Change {
    /// Replaces the home's file `name` with `contents` when the change commits (the first file
    /// written is the change's commit point, see `journal`).
    pub fn write(&mut self, name: &'static str, contents: Vec<u8>) {
        self.writes.retain(|(n, _)| *n != name);
        self.removes.retain(|n| *n != name);
        self.writes.push((name, contents));
    }

    /// Removes the home's file `name` when the change commits (a file the new one supersedes),
    /// in the same transaction as the writes.
    pub fn remove_after(&mut self, name: &'static str) {
        self.writes.retain(|(n, _)| *n != name);
        if !self.removes.contains(&name) {
            self.removes.push(name);
        }
    }
}

impl Home {
    /// Where the home is: `explicit` (`--home`, or `FAIRSORT_HOME` which the command line folds into it),
    /// else `$XDG_DATA_HOME/fairsort`, else `$HOME/.local/share/fairsort`.
    pub fn resolve(explicit: Option<&Path>) -> Result<PathBuf, HomeError> {
        if let Some(p) = explicit {
            return Ok(p.to_path_buf());
        }
        if let Some(p) = std::env::var_os("FAIRSORT_HOME").filter(|v| !v.is_empty()) {
            return Ok(PathBuf::from(p));
        }
        if let Some(x) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
            return Ok(PathBuf::from(x).join("fairsort"));
        }
        match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
            Some(h) => Ok(PathBuf::from(h).join(".local/share/fairsort")),
            None => Err(HomeError::NoDefaultHome),
        }
    }

    /// Opens the home, creating it on first use (directory 0755, `server.toml` 0644) with default
    /// attributes and `managers` set to root and the creating user (the creation is the first
    /// audit record). An unsafe home (see [`HomeDir::check_safe`]) is refused.
    pub fn open(explicit: Option<&Path>) -> Result<Home, HomeError> {
        let path = Self::resolve(explicit)?;
        HomeDir::create(&path)?;
        let home = Self::at(path)?;
        if home.dir.identity(files::STATE)?.is_none() {
            let _lock = home.lock()?;
            if home.dir.identity(files::STATE)?.is_none() {
                let user = crate::home::permissions::current_user();
                let state = HomeState::initial(&user);
                journal::commit(
                    &home.dir,
                    Some((
                        files::STATE,
                        state_file::render(&state)?.as_bytes(),
                        modes::PUBLIC,
                    )),
                    &audit::record(&user, &current_host(), "create home"),
                )?;
            }
        }
        Ok(home)
    }

    /// Opens the home that `explicit` (or the default place) names, which must exist: never
    /// creates one (only `fairsort init`, through [`Home::open`], does). A directory without a
    /// `server.toml` is [`HomeError::NotAHome`].
    pub fn existing(explicit: Option<&Path>) -> Result<Home, HomeError> {
        let path = Self::resolve(explicit)?;
        if !path.is_dir() {
            return Err(HomeError::NotAHome(path));
        }
        let handle = HomeDir::open(&path)?;
        if handle.identity(files::STATE)?.is_none() {
            return Err(HomeError::NotAHome(path));
        }
        handle.check_safe(&files::ALL)?;
        Ok(Home {
            path,
            dir: Arc::new(handle),
        })
    }

    /// Whether a home exists at `explicit` (or the default place): its directory holds a
    /// `server.toml`.
    pub fn exists(explicit: Option<&Path>) -> bool {
        Self::resolve(explicit).is_ok_and(|p| p.join(files::STATE).is_file())
    }

    /// The home that `explicit` (or the default place) names, if one exists there; never
    /// creates one. An explicit directory that holds no home is an error, as a typo there would
    /// silently drop the home's settings.
    pub fn find(explicit: Option<&Path>) -> Result<Option<Home>, HomeError> {
        let Ok(dir) = Self::resolve(explicit) else {
            return Ok(None);
        };
        if !dir.is_dir() {
            if explicit.is_some() {
                return Err(HomeError::NotAHome(dir));
            }
            return Ok(None);
        }
        let handle = HomeDir::open(&dir)?;
        if handle.identity(files::STATE)?.is_none() {
            if explicit.is_some() {
                return Err(HomeError::NotAHome(dir));
            }
            return Ok(None);
        }
        handle.check_safe(&files::ALL)?;
        Ok(Some(Home {
            path: dir,
            dir: Arc::new(handle),
        }))
    }

    /// Opens the directory handle and checks the home's safety.
    fn at(path: PathBuf) -> Result<Home, HomeError> {
        let dir = HomeDir::open(&path)?;
        dir.check_safe(&files::ALL)?;
        Ok(Home {
            path,
            dir: Arc::new(dir),
        })
    }

    /// The home directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The opened directory (every file of the home is opened relative to it).
    pub fn dir(&self) -> &HomeDir {
        &self.dir
    }

    pub(crate) fn dir_arc(&self) -> Arc<HomeDir> {
        Arc::clone(&self.dir)
    }

    /// A file inside the home (for messages; the home opens it through [`Home::dir`]).
    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Where usage lives (its content belongs to `fairsort usage`).
    pub fn usage_path(&self) -> PathBuf {
        self.file(files::USAGE)
    }

    /// The current state, read without any lock (writers replace the file by atomic rename).
    pub fn load(&self) -> Result<HomeState, HomeError> {
        let path = self.file(files::STATE);
        match self.dir.read(files::STATE)? {
            Some((text, _)) => state_file::parse(&text, &path),
            None => Err(missing_state(&path)),
        }
    }

    /// The writers' lock, then the completion of a change a killed writer left (see `journal`).
    fn lock(&self) -> Result<WriteLock, HomeError> {
        let lock = WriteLock::acquire(&self.dir, files::LOCK)?;
        self.dir.check_safe(&files::ALL)?;
        journal::recover(&self.dir, &files::ALL)?;
        Ok(lock)
    }

    /// Takes the writers' lock and finishes a change a killed writer left half done; true if
    /// there was one. (Every change does this first; tests call it to see the settled home.)
    pub fn recover(&self) -> Result<bool, HomeError> {
        let _lock = WriteLock::acquire(&self.dir, files::LOCK)?;
        journal::recover(&self.dir, &files::ALL)
    }

    /// Applies one change: writers' lock, re-read, `f`, check, then the new state and its audit
    /// record committed together (see `journal`). If `f` fails or the result is invalid nothing
    /// is written. An unchanged state is not rewritten nor audited. Check permissions before
    /// calling (on [`Home::load`]), so a refused user never takes the lock, and again in `f`.
    pub fn update<T>(
        &self,
        user: &str,
        command: &str,
        f: impl FnOnce(&mut HomeState) -> Result<T, HomeError>,
    ) -> Result<T, HomeError> {
        let _lock = self.lock()?;
        let before = self.load()?;
        let mut after = before.clone();
        let out = f(&mut after)?;
        after.check().map_err(|(_, _, message)| {
            Rejection::pbs(crate::pbs::defs::codes::BADATVAL, "").with_detail(message)
        })?;
        if after != before {
            journal::commit(
                &self.dir,
                Some((
                    files::STATE,
                    state_file::render(&after)?.as_bytes(),
                    modes::PUBLIC,
                )),
                &audit::record(user, &current_host(), command),
            )?;
        }
        Ok(out)
    }

    /// Runs `f` under the writers' lock with the current state (for changes to other files of
    /// the home, such as the share tree: `f` asks for them with [`Change::write`]); the write
    /// and its audit record are committed together if `f` succeeds. `f` must check permissions
    /// itself (and the caller before, so a refused user never takes the lock).
    pub(crate) fn with_exclusive<T>(
        &self,
        user: &str,
        command: &str,
        f: impl FnOnce(&HomeState, &mut Change) -> Result<T, HomeError>,
    ) -> Result<T, HomeError> {
        let _lock = self.lock()?;
        let state = self.load()?;
        let mut change = Change::default();
        let out = f(&state, &mut change)?;
        let ops: Vec<journal::Op<'_>> = change
            .writes
            .iter()
            .map(|(name, bytes)| journal::Op::Write(name, bytes.as_slice(), modes::PUBLIC))
            .chain(change.removes.iter().map(|name| journal::Op::Remove(name)))
            .collect();
        journal::commit_all(
            &self.dir,
            &ops,
            &audit::record(user, &current_host(), command),
        )?;
        Ok(out)
    }

    /// Runs `f` with the current state on one consistent view of the home without any lock:
    /// `server.toml`, `resource_group`, `tree.toml`, `usage.toml`, `slurm.toml` and `site.toml`
    /// are held open first (their inodes
    /// pinned), `f` reads through [`Home::read_text`], and if any of them was replaced
    /// meanwhile the whole read is done again. Every writer renames a new inode over a file, and
    /// the open files keep their inodes from being reused, so if each name still names the
    /// pinned inode at the end, they were all current together when the reads ended: the inode
    /// tuple is the home's generation number.
    pub(crate) fn with_shared<T>(
        &self,
        f: impl Fn(&HomeState) -> Result<T, HomeError>,
    ) -> Result<T, HomeError> {
        const NAMES: [&str; 7] = [
            files::STATE,
            files::TREE,
            files::NATIVE_TREE,
            files::USAGE,
            files::SLURM,
            files::SITE,
            files::PBS,
        ];
        for attempt in 0..200u64 {
            let pinned: Vec<Option<File>> = NAMES
                .iter()
                .map(|n| self.dir.open_read(n))
                .collect::<Result<_, _>>()?;
            let ids = pinned
                .iter()
                .map(|f| {
                    f.as_ref()
                        .map(|f| rustix::fs::fstat(f).map(|st| (st.st_dev, st.st_ino)))
                        .transpose()
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| HomeError::io(&self.path, e.into()))?;
            let path = self.file(files::STATE);
            let mut text = String::new();
            match &pinned[0] {
                Some(f) => {
                    let mut f: &File = f;
                    f.read_to_string(&mut text)
                        .map_err(|e| HomeError::io(&path, e))?;
                }
                None => return Err(missing_state(&path)),
            }
            let state = state_file::parse(&text, &path)?;
            let out = f(&state)?;
            let now = NAMES
                .iter()
                .map(|n| self.dir.identity(n))
                .collect::<Result<Vec<_>, _>>()?;
            if now == ids {
                return Ok(out);
            }
            std::thread::sleep(std::time::Duration::from_millis(attempt.min(20)));
        }
        Err(HomeError::io(
            &self.path,
            std::io::Error::other("the home kept changing while it was read; try again"),
        ))
    }

    /// A file of the home as text, opened through the home's handle without following a link;
    /// `None` if it does not exist.
    pub fn read_text(&self, name: &str) -> Result<Option<String>, HomeError> {
        Ok(self.dir.read(name)?.map(|(text, _)| text))
    }
}

fn missing_state(path: &Path) -> HomeError {
    HomeError::io(
        path,
        std::io::Error::new(std::io::ErrorKind::NotFound, "state file missing"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_creates_then_update_persists_and_audits() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("home");
        let home = Home::open(Some(&root)).unwrap();
        assert!(root.join(files::STATE).exists());
        let me = super::super::permissions::current_user();
        assert!(home
            .load()
            .unwrap()
            .server
            .managers
            .iter()
            .any(|m| m.starts_with(&format!("{me}@")) || me == "root"));
        home.update("alice", "set sched fair_share = True", |s| {
            s.sched.fair_share = true;
            Ok(())
        })
        .unwrap();
        assert!(
            Home::open(Some(&root))
                .unwrap()
                .load()
                .unwrap()
                .sched
                .fair_share
        );
        let audit = std::fs::read_to_string(root.join(files::AUDIT)).unwrap();
        assert_eq!(audit.lines().count(), 2);
        assert!(audit
            .lines()
            .nth(1)
            .unwrap()
            .ends_with("set sched fair_share = True"));
    }

    #[test]
    fn failed_or_invalid_update_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::open(Some(dir.path())).unwrap();
        let before = std::fs::read(dir.path().join(files::STATE)).unwrap();
        let r: Result<(), _> = home.update("a", "x", |s| {
            s.sched.fair_share = true;
            Err(Rejection::pbs(crate::pbs::defs::codes::PERM, "").into())
        });
        assert!(r.is_err());
        let r = home.update("a", "x", |s| {
            s.sched.fairshare_decay_factor = 3.0;
            Ok(())
        });
        assert!(r.is_err());
        assert_eq!(
            std::fs::read(dir.path().join(files::STATE)).unwrap(),
            before
        );
    }

    #[test]
    fn a_lock_free_read_is_done_again_when_a_writer_commits_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::open(Some(dir.path())).unwrap();
        let calls = std::cell::Cell::new(0);
        let seen = home
            .with_shared(|_| {
                calls.set(calls.get() + 1);
                let text = home.read_text(files::TREE)?;
                if calls.get() == 1 {
                    // A writer replaces the tree between this reader's reads.
                    home.dir().write(files::TREE, b"new", modes::PUBLIC)?;
                }
                Ok(text)
            })
            .unwrap();
        assert_eq!(calls.get(), 2);
        assert_eq!(seen.as_deref(), Some("new"));
    }

    #[test]
    fn corrupt_file_is_reported_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::open(Some(dir.path())).unwrap();
        let p = dir.path().join(files::STATE);
        std::fs::write(&p, "[server]\nmanagers = [\n").unwrap();
        let e = home.load().unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:", p.display())), "{e}");
        assert!(home.update("a", "x", |_| Ok(())).is_err());
        assert!(Home::open(Some(dir.path())).is_ok());
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "[server]\nmanagers = [\n"
        );
    }
}
