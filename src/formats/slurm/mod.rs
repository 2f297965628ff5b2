//! Slurm inputs: `sshare -a -l -P`/`-p` captures, `sacctmgr show assoc -P` output and
//! `sacctmgr dump` files; slurm.conf; QOS and association priorities.

mod columns;
pub mod dump;
pub mod sacctmgr;
pub mod sshare;

pub use dump::parse_sacctmgr_dump;
pub use sacctmgr::parse_sacctmgr;
pub use sshare::{association_name, parse_sshare, parse_sshare_rows, SshareRow};
pub mod conf;
pub mod priorities;

pub use conf::{parse_slurm_conf, SlurmConf};
pub use priorities::{parse_assoc_priorities, parse_qos_priorities, AssocPriorities};
