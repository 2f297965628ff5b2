//! The home: persistent attributes, resources, queues, share tree and usage, changed
//! through a qmgr-compatible command language with PBS's validation, messages and permissions,
//! under a lock with atomic writes and an audit log.

pub mod audit;
pub mod dir;
pub mod engine;
pub mod error;
pub mod fsio;
pub mod journal;
pub mod pbs_store;
pub mod permissions;
pub mod site;
pub mod site_view;
pub mod slurm_store;
pub mod snapshot_cache;
pub mod snapshot_ident;
pub mod snapshot_layout;
pub mod snapshot_view;
pub mod state;
pub mod state_file;
pub mod tree_store;
pub mod usage_cache;
pub mod usage_files;
pub use dir::Home;
pub use error::{HomeError, Rejection};
pub use pbs_store::{PbsImport, PbsImported, PbsNames, PbsParts, PbsSite};
pub use permissions::{current_host, current_user};
pub use site::{Provenance, Site, SiteKind, SiteRecord};
pub use slurm_store::SlurmSite;
pub use state::{HomeState, Queue, ResourceDef, SchedAttrs, ServerAttrs};
pub use tree_store::{HomeTree, LazyTree, Snapshot, TreeForm};
pub use usage_files::{load_store, UsageChangeError, UsageHome};
