//! The Standard Workload Format (SWF) of the Parallel Workloads Archive: 18 whitespace-separated
//! fields per job, `;` header comments (`MaxNodes`, `MaxProcs`). One reader, [`read_swf`],
//! giving each job line as it is written; `replay` makes its trace jobs from them.

mod read;
pub use read::{read_swf, SwfError, SwfJob, SwfLog};
