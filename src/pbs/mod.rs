//! The PBS adapter: PBS's definitions (`defs`), `qstat -f -F json`, the `resource_group` share
//! tree, the fair-share `usage` file (binary, both versions, and a text form), accounting logs
//! the site's own files as PBS prints them (`site_files`) and the order of pbs_sched's cycle
//! (`cycle`).

pub mod accounting;
pub mod cycle;
pub mod defs;
pub mod qstat;
pub mod resource_group;
pub mod sched_formula;
pub mod site_files;
pub mod snapshot;
mod spec_names;
pub mod usage_apply;
pub mod usage_file;
pub use qstat::{read_qstat_json, snapshot_time};
pub use resource_group::{
    parse_resource_group, parse_resource_group_indexed, write_resource_group, SpecNames,
};
pub use sched_formula::read_sched_formula;
pub use usage_apply::{apply_pbs_usage, pbs_records};
pub use usage_file::{
    read_usage, read_usage_binary, read_usage_text, usage_from_tree, write_usage_binary, PbsUsage,
};

pub(crate) use spec_names::name_hash;
