//! PBS resource types (`qmgr -c "create resource x type=long"`), the resource flag letters, and
//! PBS's built-in resources with their types.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The type of a PBS resource, with PBS's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResourceType {
    /// Integer.
    Long,
    /// Floating point.
    Float,
    /// Memory size, bound in kilobytes.
    Size,
    /// Duration, bound in seconds.
    Time,
    /// True/false (not allowed in a formula).
    Boolean,
    /// Text (not allowed in a formula).
    String,
}

impl ResourceType {
    /// Every type, in the order PBS's documentation lists them.
    pub const ALL: [ResourceType; 6] = [
        ResourceType::Long,
        ResourceType::Float,
        ResourceType::Size,
        ResourceType::Time,
        ResourceType::Boolean,
        ResourceType::String,
    ];

    /// Whether a formula may use a resource of this type (PBS passes only these to `eval`).
    pub(crate) fn is_numeric(self) -> bool {
        matches!(
            self,
            ResourceType::Long | ResourceType::Float | ResourceType::Size | ResourceType::Time
        )
    }

    /// PBS's name of the type.
    pub fn as_str(self) -> &'static str {
        match self {
            ResourceType::Long => "long",
            ResourceType::Float => "float",
            ResourceType::Size => "size",
            ResourceType::Time => "time",
            ResourceType::Boolean => "boolean",
            ResourceType::String => "string",
        }
    }
}

impl fmt::Display for ResourceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a resource type name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown resource type `{0}` (expected long, float, size, time, boolean or string)")]
pub struct UnknownResourceType(pub String);

impl FromStr for ResourceType {
    type Err = UnknownResourceType;
    /// PBS's exact (lower-case) type names.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        (Self::ALL.into_iter())
            .find(|t| t.as_str() == s)
            .ok_or_else(|| UnknownResourceType(s.to_string()))
    }
}

impl ResourceType {
    /// The type a command-line definition (`--resource NAME=TYPE`) names: PBS's type names in
    /// any case, `string_array` (read as a string), and the aliases `int`, `integer`, `bool`.
    pub fn from_flag(name: &str) -> Option<ResourceType> {
        Some(match name.to_ascii_lowercase().as_str() {
            "int" | "integer" => ResourceType::Long,
            "bool" => ResourceType::Boolean,
            "string_array" => ResourceType::String,
            other => return other.parse().ok(),
        })
    }
}

/// The resource flag letters PBS accepts (`h`, `n`, `q`, `f`, `m`, `i`).
pub const RESOURCE_FLAGS: &str = "hnqfmi";

/// PBS's built-in resources and their types, in name order: every resource a PBS server
/// defines (OpenPBS `src/lib/Libattr/master_resc_def_all.xml`, server build; the `|unknown|`
/// delimiter and the MoM-only `pe_mask` left out). Time resources are `ATR_TYPE_LONG` with
/// `decode_time` there (bound in seconds); `string_array` (`ATR_TYPE_ARST`) ones are `String`.
/// `ngpus` is not one of them: sites create it (`qmgr -c "create resource ngpus type=long"`).
pub const BUILTIN_RESOURCES: &[(&str, ResourceType)] = {
    use ResourceType::*;
    &[
        ("accelerator", Boolean),
        ("accelerator_group", String),
        ("accelerator_memory", Size),
        ("accelerator_model", String),
        ("aoe", String),
        ("arch", String),
        ("cpupercent", Long),
        ("cput", Time),
        ("energy", Float),
        ("eoe", String),
        ("exec_vnode", String),
        ("file", Size),
        ("hbmem", Size),
        ("host", String),
        ("hpm", Long),
        ("max_walltime", Time),
        ("mem", Size),
        ("min_walltime", Time),
        ("mpiprocs", Long),
        ("naccelerators", Long),
        ("nchunk", Long),
        ("ncpus", Long),
        ("nice", Long),
        ("nodect", Long),
        ("nodemask", String),
        ("nodes", String),
        ("ompthreads", Long),
        ("partition", String),
        ("pcap_accelerator", Long),
        ("pcap_node", Long),
        ("pcput", Time),
        ("pgov", String),
        ("place", String),
        ("pmem", Size),
        ("preempt_targets", String),
        ("pstate", String),
        ("pvmem", Size),
        ("resc", String),
        ("select", String),
        ("site", String),
        ("soft_walltime", Time),
        ("software", String),
        ("ssinodes", Long),
        ("start_time", Long),
        ("vmem", Size),
        ("vnode", String),
        ("vntype", String),
        ("walltime", Time),
    ]
};

/// The type of a built-in resource; `None` for any other name.
pub(crate) fn builtin_type(name: &str) -> Option<ResourceType> {
    BUILTIN_RESOURCES
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .ok()
        .and_then(|i| BUILTIN_RESOURCES.get(i))
        .map(|&(_, t)| t)
}

/// Why `name` is not a resource name by PBS's rule (a letter, then letters, digits, `_` or
/// `-`, at most 255 bytes), `None` when it is one: the one check of qmgr's definitions and the
/// job readers' resources.
pub(crate) fn resource_name_problem(name: &str) -> Option<&'static str> {
    let mut chars = name.chars();
    match chars.next() {
        None => return Some("the name is empty"),
        Some(c) if !c.is_ascii_alphabetic() => return Some("it must start with a letter"),
        Some(_) => {}
    }
    if !chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Some("only letters, digits, `_` and `-` are allowed");
    }
    (name.len() > 255).then_some("it is longer than 255 characters")
}

/// True for PBS's built-in resources.
pub(crate) fn is_builtin(name: &str) -> bool {
    builtin_type(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_round_trip() {
        for t in ResourceType::ALL {
            assert_eq!(t.to_string().parse::<ResourceType>(), Ok(t));
        }
        assert!("int".parse::<ResourceType>().is_err());
        assert!("Long".parse::<ResourceType>().is_err());
        assert!(!ResourceType::Boolean.is_numeric());
        assert!(!ResourceType::String.is_numeric());
        assert!(ResourceType::Size.is_numeric());
    }

    #[test]
    fn builtins() {
        assert!(
            BUILTIN_RESOURCES.windows(2).all(|w| w[0].0 < w[1].0),
            "sorted"
        );
        assert_eq!(builtin_type("ncpus"), Some(ResourceType::Long));
        assert_eq!(builtin_type("mem"), Some(ResourceType::Size));
        assert_eq!(builtin_type("walltime"), Some(ResourceType::Time));
        assert_eq!(builtin_type("arch"), Some(ResourceType::String));
        assert_eq!(builtin_type("accelerator"), Some(ResourceType::Boolean));
        assert!(is_builtin("vntype"));
        assert!(!is_builtin("foo"));
        // openpbs master_resc_def_all.xml: the numeric ones with their types
        for (n, t) in [
            ("cpupercent", ResourceType::Long),
            ("nodect", ResourceType::Long),
            ("pcput", ResourceType::Time),
            ("pmem", ResourceType::Size),
            ("pvmem", ResourceType::Size),
            ("vmem", ResourceType::Size),
            ("mpiprocs", ResourceType::Long),
            ("ompthreads", ResourceType::Long),
            ("nchunk", ResourceType::Long),
            ("energy", ResourceType::Float),
            ("start_time", ResourceType::Long),
        ] {
            assert_eq!(builtin_type(n), Some(t), "{n}");
        }
        assert_eq!(builtin_type("exec_vnode"), Some(ResourceType::String));
        assert_eq!(builtin_type("eoe"), Some(ResourceType::String));
        assert_eq!(BUILTIN_RESOURCES.len(), 48);
        // not built in: a site creates it
        assert!(!is_builtin("ngpus"));
        assert!(!is_builtin("pe_mask"));
        assert!(!is_builtin("NCPUS"));
    }
}
