//! fairsort's own formats, for sites without a scheduler's files or for hand-written what-ifs:
//! the share tree in TOML or JSON, and job lists in JSON or CSV.

pub mod joblist;
pub mod tree;
pub use joblist::{read_job_list_csv, read_job_list_json};
