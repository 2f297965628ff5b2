//! The resource table: which resources a formula may name and their types (`crate::pbs::defs`'s
//! built-ins plus the server's custom ones).

use crate::formula::error::FormulaError;
use crate::pbs::defs::resources::{is_builtin, resource_name_problem, BUILTIN_RESOURCES};
use crate::pbs::defs::ResourceType;
use std::collections::BTreeMap;

/// The resources a formula may name, with their types: PBS's built-ins plus custom ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceTable {
    entries: BTreeMap<String, ResourceType>,
}

impl ResourceTable {
    /// PBS's built-in resources (ncpus long, mem size, walltime time, arch string, ...).
    pub fn builtin() -> Self {
        ResourceTable {
            entries: BUILTIN_RESOURCES
                .iter()
                .map(|&(n, t)| (n.to_string(), t))
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
        if let Some(why) = resource_name_problem(name) {
            return Err(bad(why));
        }
        if is_builtin(name) {
            return Err(FormulaError::BuiltinResource {
                name: name.to_string(),
            });
        }
        self.entries.insert(name.to_string(), ty);
        Ok(())
    }

    /// Removes a custom resource; built-ins stay. Returns whether something was removed.
    pub fn remove(&mut self, name: &str) -> bool {
        if is_builtin(name) {
            return false;
        }
        self.entries.remove(name).is_some()
    }

    /// The type of a resource, if it exists.
    pub fn get(&self, name: &str) -> Option<ResourceType> {
        self.entries.get(name).copied()
    }

    /// Whether `name` is one of PBS's built-in resources.
    pub fn is_builtin(&self, name: &str) -> bool {
        is_builtin(name)
    }

    /// All resources in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, ResourceType)> {
        self.entries.iter().map(|(n, &t)| (n.as_str(), t))
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
}
