//! `Home`: an opened server home directory. Layout (all human-readable, see docs/server.md):
//! `server.toml` (attributes, queues, custom resources), `resource_group` (the share tree, PBS
//! layout), `usage.toml` (fair-share usage, owned by `fairsort usage`), `audit.log`, `lock`.

use super::audit;
use super::error::{Rejection, ServerError};
use super::fsio::{self, HomeLock};
use super::permissions::current_host;
use super::state::ServerState;
use super::state_file;
use std::path::{Path, PathBuf};

/// File names inside a home.
pub mod files {
    /// Attributes, queues and custom resources (TOML).
    pub const STATE: &str = "server.toml";
    /// The share tree in PBS `resource_group` layout.
    pub const TREE: &str = "resource_group";
    /// Fair-share usage (written by `fairsort usage`).
    pub const USAGE: &str = "usage.toml";
    /// The ledger of charged jobs beside the usage store.
    pub const LEDGER: &str = "usage.ledger";
    /// One line per change.
    pub const AUDIT: &str = "audit.log";
    /// The advisory lock file.
    pub const LOCK: &str = "lock";
}

/// An opened server home (the directory exists and holds a state file).
#[derive(Debug, Clone)]
pub struct Home {
    path: PathBuf,
}

impl Home {
    /// Where the home is: `explicit` (`--home`, or `FAIRSORT_HOME` which the command line folds into it),
    /// else `$XDG_DATA_HOME/fairsort`, else `$HOME/.local/share/fairsort`.
    pub fn resolve(explicit: Option<&Path>) -> Result<PathBuf, ServerError> {
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
            None => Err(ServerError::NoDefaultHome),
        }
    }

    /// Opens the home, creating it on first use with default attributes and `managers` set to
    /// root and the creating user (the creation is the first audit record).
    pub fn open(explicit: Option<&Path>) -> Result<Home, ServerError> {
        let path = Self::resolve(explicit)?;
        std::fs::create_dir_all(&path).map_err(|e| ServerError::io(&path, e))?;
        let home = Home { path };
        let state_path = home.file(files::STATE);
        if !state_path.exists() {
            let _lock = HomeLock::exclusive(&home.file(files::LOCK))?;
            if !state_path.exists() {
                let user = super::permissions::current_user();
                let state = ServerState::initial(&user);
                fsio::write_atomic(&state_path, state_file::render(&state)?.as_bytes())?;
                audit::append(
                    &home.file(files::AUDIT),
                    &user,
                    &current_host(),
                    "create home",
                )?;
            }
        }
        Ok(home)
    }

    /// The home that `explicit` (or the default place) names, if one exists there; never
    /// creates one. An explicit directory that holds no home is an error, as a typo there would
    /// silently drop the home's settings.
    pub fn find(explicit: Option<&Path>) -> Result<Option<Home>, ServerError> {
        let Ok(dir) = Self::resolve(explicit) else {
            return Ok(None);
        };
        if !dir.join(files::STATE).is_file() {
            if explicit.is_some() {
                return Err(ServerError::NotAHome(dir));
            }
            return Ok(None);
        }
        Ok(Some(Home { path: dir }))
    }

    /// The home directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A file inside the home.
    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Where usage lives (its content belongs to `fairsort usage`).
    pub fn usage_path(&self) -> PathBuf {
        self.file(files::USAGE)
    }

    /// A consistent snapshot of the state (under the shared lock).
    pub fn load(&self) -> Result<ServerState, ServerError> {
        let _lock = HomeLock::shared(&self.file(files::LOCK))?;
        self.read_state()
    }

    /// Applies one change: exclusive lock, re-read, `f`, check, atomic write, audit record.
    /// If `f` fails or the result is invalid nothing is written. An unchanged state is not
    /// rewritten nor audited.
    pub fn update<T>(
        &self,
        user: &str,
        command: &str,
        f: impl FnOnce(&mut ServerState) -> Result<T, ServerError>,
    ) -> Result<T, ServerError> {
        let _lock = HomeLock::exclusive(&self.file(files::LOCK))?;
        let before = self.read_state()?;
        let mut after = before.clone();
        let out = f(&mut after)?;
        after.check().map_err(|(_, _, message)| {
            Rejection::pbs(crate::pbs::codes::BADATVAL, "").with_detail(message)
        })?;
        if after != before {
            let path = self.file(files::STATE);
            fsio::write_atomic(&path, state_file::render(&after)?.as_bytes())?;
            audit::append(&self.file(files::AUDIT), user, &current_host(), command)?;
        }
        Ok(out)
    }

    /// Runs `f` under the exclusive lock with the current state (for changes to other files of
    /// the home, such as the share tree or usage: write them with `fsio::write_atomic`), then
    /// appends an audit record if `f` succeeds. `f` must check permissions itself.
    pub(crate) fn with_exclusive<T>(
        &self,
        user: &str,
        command: &str,
        f: impl FnOnce(&ServerState) -> Result<T, ServerError>,
    ) -> Result<T, ServerError> {
        let _lock = HomeLock::exclusive(&self.file(files::LOCK))?;
        let state = self.read_state()?;
        let out = f(&state)?;
        audit::append(&self.file(files::AUDIT), user, &current_host(), command)?;
        Ok(out)
    }

    /// Runs `f` under the shared lock with the current state (consistent multi-file reads).
    pub(crate) fn with_shared<T>(
        &self,
        f: impl FnOnce(&ServerState) -> Result<T, ServerError>,
    ) -> Result<T, ServerError> {
        let _lock = HomeLock::shared(&self.file(files::LOCK))?;
        let state = self.read_state()?;
        f(&state)
    }

    fn read_state(&self) -> Result<ServerState, ServerError> {
        let path = self.file(files::STATE);
        match fsio::read_optional(&path)? {
            Some(text) => state_file::parse(&text, &path),
            None => Err(ServerError::io(
                &path,
                std::io::Error::new(std::io::ErrorKind::NotFound, "state file missing"),
            )),
        }
    }
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
            Err(Rejection::pbs(crate::pbs::codes::PERM, "").into())
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
