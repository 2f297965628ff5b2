//! The Slurm adapter: `slurm.conf`, `sshare -a -l -P`/`-p` captures, `sacctmgr show assoc -P`
//! output and `sacctmgr dump` files, QOS and association priorities, `squeue --json`, `sacct`
//! (`-P` rows in `sacct_rows`, the `--json` document and its jobs in `sacct_json`: the readers
//! `usage record` and `replay` share; charging in `sacct`), and the multifactor job priority as
//! `sprio` shows it, with its what-if.

pub mod bind;
mod columns;
pub mod conf;
pub mod conf_source;
pub mod dump;
pub mod hostlist;
pub mod job;
pub mod multifactor;
pub mod priorities;
pub mod sacct;
pub mod sacct_json;
pub mod sacct_rows;
pub mod sacctmgr;
pub mod snapshot;
pub mod squeue;
pub mod sshare;
pub mod whatif;
pub use conf::{parse_slurm_conf, SlurmConf};
pub use dump::parse_sacctmgr_dump;
pub use priorities::{parse_assoc_priorities, parse_qos_priorities, AssocPriorities};
pub use sacct::{read_sacct, BillingWeights};
pub use sacctmgr::parse_sacctmgr;
pub use squeue::SlurmJob;
pub use sshare::{association_name, parse_sshare, parse_sshare_rows, SshareRow};
