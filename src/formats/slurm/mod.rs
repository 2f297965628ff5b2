//! Slurm inputs: `sshare -a -l -P`/`-p` captures and `sacctmgr show assoc -P` output.

mod columns;
pub mod sacctmgr;
pub mod sshare;

pub use sacctmgr::parse_sacctmgr;
pub use sshare::{association_name, parse_sshare, parse_sshare_rows, SshareRow};
pub mod conf;
pub mod priorities;

pub use conf::{parse_slurm_conf, SlurmConf};
pub use priorities::{parse_assoc_priorities, parse_qos_priorities, AssocPriorities};
