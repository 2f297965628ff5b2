//! The names PBS gives the parts of its share tree and their files: the root, the group of
//! entities the `resource_group` file does not list, and the `usage` file's label.

/// PBS's root node name.
pub const ROOT_NAME: &str = "TREEROOT";
/// PBS's pre-created group for entities not in the file.
pub const UNKNOWN_GROUP: &str = "unknown";
/// The label of PBS's fair-share usage file in messages when no path is known.
pub const USAGE_FILE: &str = "usage";
