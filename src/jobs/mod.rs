//! The scheduler-neutral job model: a queue's jobs (`JobSet`, each a `Job`) stored compactly, the
//! one name interner, the per-job columns binding reads, the JSON scalars job files hold, and the
//! fair-share entity each job charges.

pub mod columns;
pub mod dates;
pub mod entity;
pub mod error;
pub mod job;
pub mod job_set;
pub mod names;
pub mod raw;
pub(crate) mod repeats;
pub use columns::{Columns, ResourceColumn};
pub use entity::EntityName;
pub use error::{BindError, JobsError};
pub use job::{Job, JobState, ResourceValue};
pub use job_set::JobSet;
pub use names::{Names, Sym};
