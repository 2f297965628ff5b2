//! The home's share tree, each in its scheduler's own model: a PBS tree in PBS `resource_group`
//! layout (`resource_group`, read back with the home's `unknown_shares`), a Slurm, flux or
//! fairsort tree in fairsort's TOML tree format (`tree.toml`: the root's name, every association
//! including a user in several accounts, shares including `parent`, the captured usage). Either
//! is read back with the home's usage (`usage.toml`, kept by `fairsort usage`) applied.

use crate::fairshare::{Tree, TreeError, TreeSource, TreeSpec};
use crate::home::dir::{files, Home};
use crate::home::error::HomeError;
use crate::home::fsio::modes;
use crate::home::permissions::{current_host, is_manager, unauthorized};
use crate::home::site::{self, SiteKind};
use crate::home::snapshot_cache;
use crate::home::snapshot_ident;
use crate::home::snapshot_view::SnapshotView;
use crate::home::state::HomeState;
use crate::mem::{FileBytes, Mapping};
use crate::native::tree as native;
use crate::pbs;
use crate::usage::{apply_usage, UnmatchedUsage, UsageRecord, UsageStore};
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

/// The file of a Slurm, flux or fairsort tree (fairsort's TOML tree format). When present it is
/// the home's tree, whatever `resource_group` holds.
pub const NATIVE_TREE: &str = files::NATIVE_TREE;

/// What the home holds for an evaluation, read at one moment (see [`Home::snapshot`]).
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Attributes, queues and custom resources.
    pub state: HomeState,
    /// The share tree with usage applied; `None` before `fairsort tree import` (or when the
    /// tree has no node).
    pub tree: Option<HomeTree>,
    /// The home's usage that met no association of the tree (not counted).
    pub unmatched: UnmatchedUsage,
}

/// The home's share tree in a [`Snapshot`], in the form the caller asked for.
#[derive(Debug, Clone)]
// One per read of the home: boxing the tree would only add an indirection.
#[allow(clippy::large_enum_variant)]
pub enum HomeTree {
    /// As read, for a caller that changes it before building it (a usage file over it).
    Spec(TreeSpec),
    /// Built (from `snapshot.bin` when valid, else from the text), or why the text does not
    /// build: what `order` and `share` use as is.
    Built(Result<Tree, TreeError>),
    /// A valid `snapshot.bin` read in place, to build whole or in part later.
    Lazy(LazyTree),
}

/// The form a caller wants the home's tree in ([`Home::snapshot`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeForm {
    /// As read from the text ([`HomeTree::Spec`]).
    Spec,
    /// Built ([`HomeTree::Built`]).
    Built,
    /// In place from `snapshot.bin` when it is valid ([`HomeTree::Lazy`]), else built.
    Lazy,
}

/// The home's tree as a valid `snapshot.bin` holds it, read in place ([`HomeTree::Lazy`]):
/// the caller builds the whole tree, or only the part a few jobs need.
#[derive(Debug, Clone)]
pub struct LazyTree {
    /// The snapshot.
    pub view: SnapshotView,
    home: Home,
}

impl LazyTree {
    /// The whole tree; if a block of the snapshot turns out damaged, the home's tree read
    /// again (from the text, which rewrites the snapshot).
    pub fn into_tree(self) -> Result<Tree, HomeError> {
        if let Some(tree) = self.view.full_tree() {
            return Ok(tree);
        }
        match self.home.snapshot(TreeForm::Built)?.tree {
            Some(HomeTree::Built(Ok(tree))) => Ok(tree),
            Some(HomeTree::Built(Err(e))) => Err(HomeError::Tree(e.to_string())),
            _ => Err(HomeError::Tree(
                "the home's share tree changed while it was read; try again".into(),
            )),
        }
    }
}

/// What the lock-free read of [`Home::snapshot`] found for the tree.
enum Read {
    /// A valid `snapshot.bin`.
    Cached(Tree),
    /// A valid `snapshot.bin`, read in place.
    View(SnapshotView),
    /// The text, with the key to write the snapshot under (when one is wanted).
    Text(TreeSpec, Option<snapshot_cache::Key>),
}

/// The tree file's name, the tree file and `usage.toml` if it exists, open.
type TextFiles = (&'static str, File, Option<File>);

/// The snapshot `map` in `form` if it is a whole, valid snapshot for `key` (`None`: a miss).
fn use_snapshot(
    map: Arc<FileBytes>,
    key: &snapshot_cache::Key,
    form: TreeForm,
) -> Option<(Read, UnmatchedUsage)> {
    let view = SnapshotView::open(map, key)?;
    let unmatched = view.unmatched().clone();
    match form {
        TreeForm::Lazy => Some((Read::View(view), unmatched)),
        _ => Some((Read::Cached(view.full_tree()?), unmatched)),
    }
}

impl Home {
    /// The stored share tree with usage applied, or `None` when no tree was imported yet.
    pub fn tree_spec(&self) -> Result<Option<TreeSpec>, HomeError> {
        self.with_shared(|state| Ok(self.read_tree(state)?.map(|(spec, _)| spec)))
    }

    /// The stored share tree as imported (no usage applied), or `None` when no tree was
    /// imported yet.
    pub fn stored_tree(&self) -> Result<Option<TreeSpec>, HomeError> {
        self.with_shared(|state| self.read_stored(state))
    }

    /// The file the home's tree is kept in (`tree.toml` or `resource_group`).
    pub fn tree_path(&self) -> std::path::PathBuf {
        let native = self.file(NATIVE_TREE);
        if native.exists() {
            native
        } else {
            self.file(files::TREE)
        }
    }

    /// One consistent snapshot of everything an evaluation reads from the home: the state and
    /// the share tree with usage applied, read together without a lock (`Home::with_shared`),
    /// in the form asked for ([`TreeForm`]).
    ///
    /// A built tree comes from the binary snapshot `snapshot.bin` when it was made from exactly
    /// the text just read (its key is a hash of those bytes, see `snapshot_cache`); otherwise
    /// from the text, and then the snapshot is rewritten if this process owns the home (or is
    /// root): atomically, through the home's handle, never following a link, and ignoring any
    /// failure (it is only a cache; the text is what counts). A spec is always read from the
    /// text.
    pub(crate) fn snapshot(&self, form: TreeForm) -> Result<Snapshot, HomeError> {
        let built = form != TreeForm::Spec;
        let (state, read, unmatched) = self.with_shared(|state| {
            // The snapshot is tried first (its key from the files' identity when settled, else
            // hashed from the files in chunks); on a miss the text is read (and hashed again).
            if built {
                if let Some((read, unmatched)) = self.snapshot_hit(state, form)? {
                    return Ok((state.clone(), Some(read), unmatched));
                }
            }
            let Some((tree_name, tree_text)) = self.read_tree_text()? else {
                return Ok((state.clone(), None, UnmatchedUsage::default()));
            };
            let usage_text = self.read_text(files::USAGE)?;
            let key = built.then(|| {
                snapshot_cache::key(
                    (tree_name, tree_text.as_bytes()),
                    usage_text.as_deref().map(str::as_bytes),
                    state.sched.unknown_shares,
                )
            });
            if let Some(key) = &key {
                let map = self.map_snapshot(form == TreeForm::Built);
                if let Some((read, unmatched)) = map.and_then(|m| use_snapshot(m, key, form)) {
                    return Ok((state.clone(), Some(read), unmatched));
                }
            }
            let mut spec = self.parse_stored(state, tree_name, &tree_text)?;
            drop(tree_text);
            let unmatched = apply_home_usage(&mut spec, usage_text, &self.usage_path())?;
            // A tree without a node counts as none (and is not worth a snapshot).
            let read = (!spec.nodes.is_empty()).then(|| Read::Text(spec, key));
            Ok((state.clone(), read, unmatched))
        })?;
        // Built outside the lock-free read, so a writer meanwhile does not make it retry.
        let tree = match read {
            None => None,
            Some(Read::Cached(tree)) => Some(HomeTree::Built(Ok(tree))),
            Some(Read::View(view)) => Some(HomeTree::Lazy(LazyTree {
                view,
                home: self.clone(),
            })),
            Some(Read::Text(spec, None)) => Some(HomeTree::Spec(spec)),
            Some(Read::Text(spec, Some(key))) => {
                let tree = Tree::build(spec);
                if let Ok(tree) = &tree {
                    self.write_snapshot_file(&key, tree, &unmatched, state.sched.unknown_shares);
                }
                Some(HomeTree::Built(tree))
            }
        };
        Ok(Snapshot {
            state,
            tree,
            unmatched,
        })
    }

    /// The tree file (`tree.toml` or `resource_group`: its name and the open file) and
    /// `usage.toml` if it exists; `None` when there is no tree file.
    fn open_text_files(&self) -> Result<Option<TextFiles>, HomeError> {
        let (name, tree) = match self.dir().open_read(NATIVE_TREE)? {
            Some(f) => (NATIVE_TREE, f),
            None => match self.dir().open_read(files::TREE)? {
                Some(f) => (files::TREE, f),
                None => return Ok(None),
            },
        };
        Ok(Some((name, tree, self.dir().open_read(files::USAGE)?)))
    }

    /// `snapshot.bin` in `form` if it stands for the text files as they are now: known from
    /// their settled identity (`snapshot_ident`), else from their content's hash (read in
    /// chunks, the text not kept). A hit by hash on files whose identity has settled since the
    /// snapshot was written records that identity in it, so the next reader skips the hash.
    /// `None`: a miss (no snapshot, another key, damaged; a read error of the text too: the
    /// text path reads the files again and reports it).
    fn snapshot_hit(
        &self,
        state: &HomeState,
        form: TreeForm,
    ) -> Result<Option<(Read, UnmatchedUsage)>, HomeError> {
        let Some((name, mut tree, mut usage)) = self.open_text_files()? else {
            return Ok(None);
        };
        let Some(map) = self.map_snapshot(form == TreeForm::Built) else {
            return Ok(None);
        };
        let unknown_shares = state.sched.unknown_shares;
        let ident = snapshot_ident::of((name, &tree), usage.as_ref(), unknown_shares).ok();
        if let Some((ident, _)) = &ident {
            if let Some(key) = snapshot_cache::settled_key(&map[..], ident) {
                if let Some(hit) = use_snapshot(map.clone(), &key, form) {
                    return Ok(Some(hit));
                }
            }
        }
        let key = snapshot_cache::key_of_files((name, &mut tree), usage.as_mut(), unknown_shares);
        let Some(key) = key.ok().flatten() else {
            return Ok(None);
        };
        let settled = snapshot_cache::is_settled(&map[..]);
        let hit = use_snapshot(map.clone(), &key, form);
        if let (Some(_), false, Some((ident, true))) = (&hit, settled, ident) {
            if self.may_write_snapshot() {
                let mut bytes = map[..].to_vec();
                snapshot_cache::settle(&mut bytes, &ident);
                let _ = self.dir().write(files::SNAPSHOT, &bytes, modes::PUBLIC);
            }
        }
        Ok(hit)
    }

    /// `snapshot.bin` mapped (populated at once for a reader of the whole tree), or read when
    /// it may not be mapped; `None` when missing, a link or unreadable.
    fn map_snapshot(&self, whole: bool) -> Option<Arc<FileBytes>> {
        let mut f = self.dir().open_read(files::SNAPSHOT).ok()??;
        // Mapped, not read: the file's pages are in the page cache already, so a mapping costs
        // neither fresh memory to zero nor a copy, and a small `order` touches only the pages
        // it reads (the view checks each 4 KiB block it reads against its checksum); a reader
        // of the whole tree has it populated at once. Only root, this process's user and the
        // home's owner may write it (`mem::map`; the home's check refuses anything else), and
        // fairsort never changes it in place (a new one is renamed over it, and the mapped one
        // stays whole). An empty file cannot be mapped: it is read, and misses.
        if let Some(map) = Mapping::of(&f, Some(self.dir().owner()), whole) {
            return Some(Arc::new(FileBytes::Mapped(map)));
        }
        let meta = f.metadata().ok()?;
        let bytes = crate::mem::read_file::read_open(&mut f, &meta).ok()?;
        Some(Arc::new(FileBytes::Read(bytes)))
    }

    /// Whether this process may write `snapshot.bin`: root or the home's owner (anyone else
    /// could not, and must not try).
    fn may_write_snapshot(&self) -> bool {
        let me = rustix::process::geteuid().as_raw();
        me == 0 || me == self.dir().owner()
    }

    /// Rewrites `snapshot.bin` when this process is root or the home's owner; best effort. The
    /// text files' identity is recorded as settled when it is (`snapshot_ident`) and their
    /// content, read again after it was taken, is still the text the snapshot was built from.
    fn write_snapshot_file(
        &self,
        key: &snapshot_cache::Key,
        tree: &Tree,
        unmatched: &UnmatchedUsage,
        unknown_shares: u64,
    ) {
        if !self.may_write_snapshot() {
            return;
        }
        let mut bytes = snapshot_cache::encode(key, tree, unmatched);
        if let Ok(Some((name, mut t, mut u))) = self.open_text_files() {
            if let Ok((ident, true)) = snapshot_ident::of((name, &t), u.as_ref(), unknown_shares) {
                let now = snapshot_cache::key_of_files((name, &mut t), u.as_mut(), unknown_shares);
                if now.ok().flatten().as_ref() == Some(key) {
                    snapshot_cache::settle(&mut bytes, &ident);
                }
            }
        }
        let _ = self.dir().write(files::SNAPSHOT, &bytes, modes::PUBLIC);
    }

    /// The stored tree with usage applied; call inside `with_shared` or under the writers' lock.
    fn read_tree(
        &self,
        state: &HomeState,
    ) -> Result<Option<(TreeSpec, UnmatchedUsage)>, HomeError> {
        let Some(mut spec) = self.read_stored(state)? else {
            return Ok(None);
        };
        let unmatched =
            apply_home_usage(&mut spec, self.read_text(files::USAGE)?, &self.usage_path())?;
        Ok(Some((spec, unmatched)))
    }

    /// The tree file's name and text: `tree.toml` if present, else `resource_group`, else
    /// `None`. Call inside `with_shared` or under the writers' lock.
    fn read_tree_text(&self) -> Result<Option<(&'static str, String)>, HomeError> {
        if let Some(text) = self.read_text(NATIVE_TREE)? {
            return Ok(Some((NATIVE_TREE, text)));
        }
        Ok(self.read_text(files::TREE)?.map(|t| (files::TREE, t)))
    }

    /// The stored tree without usage: `tree.toml` if present, else `resource_group`; a PBS tree
    /// gets the home's `unknown_shares`. Call inside `with_shared` or under the writers' lock.
    fn read_stored(&self, state: &HomeState) -> Result<Option<TreeSpec>, HomeError> {
        match self.read_tree_text()? {
            Some((name, text)) => self.parse_stored(state, name, &text).map(Some),
            None => Ok(None),
        }
    }

    /// Parses the tree file `name` (from [`Home::read_tree_text`]).
    fn parse_stored(
        &self,
        state: &HomeState,
        name: &str,
        text: &str,
    ) -> Result<TreeSpec, HomeError> {
        let unknown_shares = state.sched.unknown_shares;
        let path = self.file(name);
        if name == NATIVE_TREE {
            let mut spec = native::read_toml(text)
                .map_err(|e| HomeError::Tree(format!("{}: {e}", path.display())))?;
            if spec.follows_pbs() {
                spec.unknown_shares = Some(unknown_shares);
            }
            return Ok(spec);
        }
        pbs::parse_resource_group(text, unknown_shares)
            .map_err(|e| HomeError::Tree(format!("{}: {e}", path.display())))
    }

    /// Validates `spec` (the tree builder's checks, and that it reads back the same) and stores
    /// it as the home's share tree in its scheduler's model: a PBS tree in `resource_group`
    /// (with the home's `unknown_shares`), any other in `tree.toml`; the other file is removed.
    /// Only managers may. Usage is not touched. Nothing changes on error.
    pub fn store_tree(&self, user: &str, spec: &TreeSpec) -> Result<(), HomeError> {
        self.store_tree_from(user, spec, ("-", "-"))
    }

    /// [`Home::store_tree`] of a tree read from `origin` (the file given and its format), which
    /// the home's site record keeps (`site.toml`, in the same transaction): the tree's
    /// scheduler becomes the site's, and a Slurm configuration is removed when the site stops
    /// being a Slurm site.
    pub fn store_tree_from(
        &self,
        user: &str,
        spec: &TreeSpec,
        origin: (&str, &str),
    ) -> Result<(), HomeError> {
        let host = current_host();
        let command = format!("tree import ({} nodes)", spec.nodes.len());
        // Permission before the lock: a refused user never waits for, nor holds, the lock.
        let managers = self.load()?.server.managers;
        if !is_manager(user, &host, &managers) {
            return Err(unauthorized("", user, &host, &managers).into());
        }
        self.with_exclusive(user, &command, |state, change| {
            if !is_manager(user, &host, &state.server.managers) {
                return Err(unauthorized("", user, &host, &state.server.managers).into());
            }
            let unknown_shares = state.sched.unknown_shares;
            let mut spec = spec.clone();
            let pbs_layout = spec.source == TreeSource::Pbs;
            if spec.follows_pbs() {
                spec.unknown_shares = Some(unknown_shares);
            }
            Tree::build(spec.clone()).map_err(|e| HomeError::Tree(e.to_string()))?;
            let (name, text, back) = if pbs_layout {
                let text =
                    pbs::write_resource_group(&spec).map_err(|e| HomeError::Tree(e.to_string()))?;
                let back = pbs::parse_resource_group(&text, unknown_shares).map_err(|e| {
                    HomeError::Tree(format!("the tree cannot be stored in PBS layout: {e}"))
                })?;
                (files::TREE, text, back)
            } else {
                let text = native::write_toml(&spec).map_err(|e| {
                    HomeError::Tree(format!("the tree cannot be stored as {NATIVE_TREE}: {e}"))
                })?;
                let back = native::read_toml(&text).map_err(|e| {
                    HomeError::Tree(format!("the tree cannot be stored as {NATIVE_TREE}: {e}"))
                })?;
                (NATIVE_TREE, text, back)
            };
            // What is written must read back as a valid tree.
            Tree::build(back).map_err(|e| {
                HomeError::Tree(format!("the tree cannot be stored as {name}: {e}"))
            })?;
            // The site record, read (and checked: a bad hand edit stops the import) under the
            // lock, changes with the tree.
            let before = self.site()?;
            let tree = site::provenance_now(user, origin.0, origin.1, text.as_bytes());
            let record = site::after_tree_import(before.record, before.kind, spec.source, tree);
            let drops_slurm = record.kind != SiteKind::Slurm;
            change.write(name, text.into_bytes());
            change.write(files::SITE, record.render()?.into_bytes());
            // `tree.toml` wins when both exist; the other layout's file goes in the same
            // transaction (see `journal`).
            change.remove_after(if pbs_layout { NATIVE_TREE } else { files::TREE });
            if drops_slurm {
                change.remove_after(files::SLURM);
            }
            Ok(())
        })
    }
}

/// Applies `usage.toml` (if any) with the one usage application (`usage::apply_usage`): PBS
/// entities as PBS's `read_usage` does, Slurm/flux associations to the user under their account;
/// returns the usage that met no association.
fn apply_home_usage(
    spec: &mut TreeSpec,
    text: Option<String>,
    path: &Path,
) -> Result<UnmatchedUsage, HomeError> {
    let store = match text {
        Some(text) => UsageStore::parse(&text, path).map_err(|e| HomeError::Tree(e.to_string()))?,
        None => UsageStore::default(),
    };
    let records = store.entries.iter().map(|e| UsageRecord {
        account: e.account.as_deref(),
        name: &e.name,
        usage: e.usage,
    });
    apply_usage(spec, records).map_err(|e| HomeError::Tree(format!("{}: {e}", path.display())))
}
