//! PBS resource types and the resource table: which resources a formula may name and whether
//! they are numeric. Built-in resources come with PBS; the server adds custom ones.

use super::error::FormulaError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// The type of a PBS resource, with PBS's names (`qmgr -c "create resource x type=long"`).
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
    /// Whether a formula may use a resource of this type (PBS passes only these to `eval`).
    pub fn is_numeric(self) -> bool {
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
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "long" => ResourceType::Long,
            "float" => ResourceType::Float,
            "size" => ResourceType::Size,
            "time" => ResourceType::Time,
            "boolean" => ResourceType::Boolean,
            "string" => ResourceType::String,
            _ => return Err(UnknownResourceType(s.to_string())),
        })
    }
}

/// PBS's built-in resources and their types.
const BUILTIN: &[(&str, ResourceType)] = {
    use ResourceType::*;
    &[
        ("accelerator", Boolean),
        ("accelerator_memory", Size),
        ("accelerator_model", String),
        ("aoe", String),
        ("arch", String),
        ("cput", Time),
        ("file", Size),
        ("hbmem", Size),
        ("host", String),
        ("max_walltime", Time),
        ("mem", Size),
        ("min_walltime", Time),
        ("mpiprocs", Long),
        ("naccelerators", Long),
        ("nchunk", Long),
        ("ncpus", Long),
        ("ngpus", Long),
        ("nodect", Long),
        ("nodes", String),
        ("ompthreads", Long),
        ("pcput", Time),
        ("place", String),
        ("pmem", Size),
        ("preempt_targets", String),
        ("pvmem", Size),
        ("select", String),
        ("site", String),
        ("soft_walltime", Time),
        ("software", String),
        ("vmem", Size),
        ("vnode", String),
        ("vntype", String),
        ("walltime", Time),
    ]
};

/// The resources a formula may name, with their types: PBS's built-ins plus custom ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceTable {
    entries: BTreeMap<String, (ResourceType, bool)>,
}

impl ResourceTable {
    /// PBS's built-in resources (ncpus long, mem size, walltime time, arch string, ...).
    pub fn builtin() -> Self {
        ResourceTable {
            entries: BUILTIN
                .iter()
                .map(|&(n, t)| (n.to_string(), (t, true)))
                .collect(),
        }
    }

    /// Defines (or retypes) a custom resource. PBS's naming rule applies: a letter, then
    /// letters, digits, `_` or `-`, at most 255 characters; built-ins cannot be redefined.
    pub fn define(&mut self, name: &str, ty: ResourceType) -> Result<(), FormulaError> {
        let bad = |reason| FormulaError::BadResourceName {
            name: name.to_string(),
            reason,
        };
        let mut chars = name.chars();
        match chars.next() {
            None => return Err(bad("the name is empty")),
            Some(c) if !c.is_ascii_alphabetic() => return Err(bad("it must start with a letter")),
            Some(_) => {}
        }
        if !chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(bad("only letters, digits, `_` and `-` are allowed"));
        }
        if name.len() > 255 {
            return Err(bad("it is longer than 255 characters"));
        }
        if self.is_builtin(name) {
            return Err(FormulaError::BuiltinResource {
                name: name.to_string(),
            });
        }
        self.entries.insert(name.to_string(), (ty, false));
        Ok(())
    }

    /// Removes a custom resource; built-ins stay. Returns whether something was removed.
    pub fn remove(&mut self, name: &str) -> bool {
        if self.is_builtin(name) {
            return false;
        }
        self.entries.remove(name).is_some()
    }

    /// The type of a resource, if it exists.
    pub fn get(&self, name: &str) -> Option<ResourceType> {
        self.entries.get(name).map(|&(t, _)| t)
    }

    /// Whether `name` is one of PBS's built-in resources.
    pub fn is_builtin(&self, name: &str) -> bool {
        self.entries.get(name).is_some_and(|&(_, b)| b)
    }

    /// All resources in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, ResourceType)> {
        self.entries.iter().map(|(n, &(t, _))| (n.as_str(), t))
    }
}

impl Default for ResourceTable {
    fn default() -> Self {
        Self::builtin()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_and_custom() {
        let mut t = ResourceTable::builtin();
        assert_eq!(t.get("ncpus"), Some(ResourceType::Long));
        assert_eq!(t.get("mem"), Some(ResourceType::Size));
        assert_eq!(t.get("walltime"), Some(ResourceType::Time));
        assert_eq!(t.get("arch"), Some(ResourceType::String));
        assert!(t.is_builtin("ncpus"));
        assert!(t.define("foo", ResourceType::Float).is_ok());
        assert_eq!(t.get("foo"), Some(ResourceType::Float));
        assert!(!t.is_builtin("foo"));
        assert!(matches!(
            t.define("ncpus", ResourceType::Float),
            Err(FormulaError::BuiltinResource { .. })
        ));
        assert!(t.define("9x", ResourceType::Long).is_err());
        assert!(t.define("a b", ResourceType::Long).is_err());
        assert!(t.define("", ResourceType::Long).is_err());
        assert!(t.remove("foo"));
        assert!(!t.remove("foo"));
        assert!(!t.remove("ncpus"));
        assert!(t.iter().any(|(n, _)| n == "walltime"));
    }

    #[test]
    fn type_names_round_trip() {
        for t in [
            ResourceType::Long,
            ResourceType::Float,
            ResourceType::Size,
            ResourceType::Time,
            ResourceType::Boolean,
            ResourceType::String,
        ] {
            assert_eq!(t.to_string().parse::<ResourceType>(), Ok(t));
        }
        assert!("int".parse::<ResourceType>().is_err());
        assert!(!ResourceType::Boolean.is_numeric());
        assert!(ResourceType::Size.is_numeric());
    }
}
