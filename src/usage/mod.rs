//! Usage accounting: read finished-job records from what the schedulers really write (PBS
//! accounting logs, Slurm `sacct -P`, the flux-accounting `jobs` table), charge each job, keep
//! per-entity usage in the server home exactly once per job, and decay it as each scheduler does.

pub mod decay;
