//! What a running Slurm knows when it estimates start times, read from its own outputs: the jobs
//! of `squeue --json` (running and pending, with the scheduler's estimated `start_time`), the
//! nodes of `sinfo --json` (Slurm 22.05) or `scontrol show nodes --json` (23.02 on), and the
//! backfill parameters and partition tiers of `slurm.conf`. The forecast engine and its tests read
//! a snapshot through these; real captures are in `tests/data/slurm_forecast`.

mod backfill;
mod error;
mod jobs;
mod nodes;

pub use backfill::{
    backfill_params, read_scheduler_conf, BackfillParams, PartitionTier, SchedulerConf,
};
pub use error::SnapshotError;
pub use jobs::{read_squeue_json, SlurmSnapshotJob};
pub use nodes::{read_nodes_json, SlurmNodeState};
