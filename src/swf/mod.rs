//! The Standard Workload Format (SWF) of the Parallel Workloads Archive: 18 whitespace-separated
//! fields per job, `;` header comments (`MaxNodes`, `MaxProcs`). One reader, [`read_swf`],
//! giving each job line as it is written, every number checked against its field's range
//! (`fields.rs`); `replay` makes its trace jobs from them.

mod fields;
mod read;
pub use fields::{MAX_SWF_ID, MAX_SWF_MEM_KB, MAX_SWF_PROCS, MAX_SWF_SECONDS};
pub use read::{read_swf, SwfError, SwfJob, SwfLog};
