//! PBS Professional / OpenPBS inputs: the `resource_group` share tree and the fair-share
//! `usage` file (binary, both versions, and a text form).

pub mod resource_group;
mod spec_names;
pub mod usage;

pub(crate) use spec_names::name_hash;

pub use resource_group::{
    parse_resource_group, parse_resource_group_indexed, write_resource_group, SpecNames,
};
pub use usage::{
    read_usage, read_usage_binary, read_usage_text, usage_from_tree, write_usage_binary, PbsUsage,
};
