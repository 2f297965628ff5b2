//! Slurm inputs: `sshare -a -l -P`/`-p` captures and `sacctmgr show assoc -P` output.

mod columns;
pub mod sacctmgr;
pub mod sshare;

pub use sacctmgr::parse_sacctmgr;
pub use sshare::{association_name, parse_sshare, parse_sshare_rows, SshareRow};
