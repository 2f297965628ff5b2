//! The home's share tree: stored in PBS `resource_group` layout (`resource_group` file), read
//! back with the home's `unknown_shares` and with the home's usage (`usage.toml`, kept by
//! `fairsort usage`) applied.

use super::dir::{files, Home};
use super::error::ServerError;
use super::permissions::{current_host, is_manager, unauthorized};
use super::state::ServerState;
use crate::fairshare::{Tree, TreeSpec};
use crate::formats::pbs;
use crate::usage::{apply_usage, UsageRecord, UsageStore};

/// What the home holds for an evaluation, read at one moment (see [`Home::snapshot`]).
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Attributes, queues and custom resources.
    pub state: ServerState,
    /// The share tree with the home's usage applied; `None` before `fairsort tree import`.
    pub tree: Option<TreeSpec>,
}

impl Home {
    /// The stored share tree with usage applied, or `None` when no tree was imported yet.
    pub fn tree_spec(&self) -> Result<Option<TreeSpec>, ServerError> {
        self.with_shared(|state| self.read_tree(state))
    }

    /// One consistent snapshot of everything an evaluation reads from the home: the state and
    /// the share tree with usage applied, read together without a lock (`Home::with_shared`).
    pub(crate) fn snapshot(&self) -> Result<Snapshot, ServerError> {
        self.with_shared(|state| {
            Ok(Snapshot {
                tree: self.read_tree(state)?,
                state: state.clone(),
            })
        })
    }

    /// The tree file with usage applied; call inside `with_shared` or under the writers' lock.
    fn read_tree(&self, state: &ServerState) -> Result<Option<TreeSpec>, ServerError> {
        let path = self.file(files::TREE);
        let Some(text) = self.read_text(files::TREE)? else {
            return Ok(None);
        };
        let mut spec = pbs::parse_resource_group(&text, state.sched.unknown_shares)
            .map_err(|e| ServerError::Tree(format!("{}: {e}", path.display())))?;
        apply_home_usage(&mut spec, self.read_text(files::USAGE)?, &self.usage_path())?;
        Ok(Some(spec))
    }

    /// Validates `spec` (the tree builder's checks, and that it fits PBS's layout) and stores it
    /// as the home's share tree; only managers may. Usage is not touched. Nothing changes on error.
    pub fn store_tree(&self, user: &str, spec: &TreeSpec) -> Result<(), ServerError> {
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
            let mut spec = spec.clone();
            spec.unknown_shares = Some(state.sched.unknown_shares);
            Tree::build(spec.clone()).map_err(|e| ServerError::Tree(e.to_string()))?;
            let text =
                pbs::write_resource_group(&spec).map_err(|e| ServerError::Tree(e.to_string()))?;
            // What is written must read back as a valid tree.
            let back =
                pbs::parse_resource_group(&text, state.sched.unknown_shares).map_err(|e| {
                    ServerError::Tree(format!("the tree cannot be stored in PBS layout: {e}"))
                })?;
            Tree::build(back).map_err(|e| {
                ServerError::Tree(format!("the tree cannot be stored in PBS layout: {e}"))
            })?;
            change.write(files::TREE, text.into_bytes());
            Ok(())
        })
    }
}

/// Applies `usage.toml` (if any) with the one usage application (`usage::apply_usage`): PBS
/// entities as PBS's `read_usage` does, Slurm/flux associations to the user under their account.
fn apply_home_usage(
    spec: &mut TreeSpec,
    text: Option<String>,
    path: &std::path::Path,
) -> Result<(), ServerError> {
    let store = match text {
        Some(text) => {
            UsageStore::parse(&text, path).map_err(|e| ServerError::Tree(e.to_string()))?
        }
        None => UsageStore::default(),
    };
    let records = store.entries.iter().map(|e| UsageRecord {
        account: e.account.as_deref(),
        name: &e.name,
        usage: e.usage,
    });
    apply_usage(spec, records).map_err(|e| ServerError::Tree(format!("{}: {e}", path.display())))
}
