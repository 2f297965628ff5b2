//! PBS attributes fairsort keeps without modelling them (`set server scheduling = False`,
//! `set queue q resources_default.ncpus = 1`): accepted as PBS's server accepts them by name,
//! stored as text in the object's `other` map, printed back by `print`/`list`, unset by `unset`.
//! Read-only ones are refused as PBS refuses them (15003).

use crate::home::error::Rejection;
use crate::home::state::check_other;
use crate::pbs::defs::codes;
use crate::pbs::defs::object_attributes::{find, normalize, AttrDef, AttrShape};
use crate::qmgr::attrs::split_list;
use crate::qmgr::lexer::Op;
use crate::qmgr::parser::AttrOp;
use std::collections::BTreeMap;

/// Where a kept attribute lives: the object's PBS attribute table, the PBS names fairsort models
/// in fields of its own, and the map.
pub(crate) struct Kept<'a> {
    /// PBS's attributes for this kind of object.
    pub defs: &'static [AttrDef],
    /// The names fairsort models itself (never kept here).
    pub modelled: &'static [&'static str],
    /// The object's kept attributes.
    pub other: &'a mut BTreeMap<String, String>,
}

/// Applies `a` to the kept attributes when PBS has an attribute of that name for this object
/// (Ok(false) when it has not, so the caller answers 15002 as before). `obj` is the `obj=` label;
/// `is_resource` tells whether a resource name exists (built-in or defined).
pub(crate) fn apply(
    kept: Kept<'_>,
    a: &AttrOp,
    obj: &str,
    is_resource: impl Fn(&str) -> bool,
) -> Result<bool, Rejection> {
    let (base, resource) = match a.name.split_once('.') {
        Some((b, r)) => (b, Some(r)),
        None => (a.name.as_str(), None),
    };
    let Some(def) = find(kept.defs, base).filter(|d| !kept.modelled.contains(&d.name)) else {
        return Ok(false);
    };
    if !def.writable {
        return Err(Rejection::new(
            codes::ATTRRO.number,
            obj,
            format!("{} {}", codes::ATTRRO.message, a.name),
        ));
    }
    let takes_resource = matches!(def.shape, AttrShape::Resources | AttrShape::Entity);
    let unknown_resource = || {
        Rejection::new(
            codes::UNKRESC.number,
            obj,
            format!("{} {}", codes::UNKRESC.message, a.name),
        )
    };
    let key = match resource {
        Some(r) if takes_resource => {
            if !is_resource(r) {
                return Err(unknown_resource());
            }
            format!("{}.{r}", def.name)
        }
        Some(_) => {
            return Err(Rejection::pbs(codes::BADATVAL, obj)
                .with_detail(format!("{}: {} takes no resource", a.name, def.name)))
        }
        None => def.name.to_string(),
    };
    let value = match &a.value {
        None => None,
        Some((_, v)) if v.is_empty() => None,
        Some((op, v)) => Some((*op, v.as_str())),
    };
    let Some((op, v)) = value else {
        if resource.is_none() && def.shape == AttrShape::Resources {
            // unset of the whole resource attribute: every resource under it
            let prefix = format!("{}.", def.name);
            kept.other.retain(|k, _| !k.starts_with(&prefix));
        } else {
            kept.other.remove(&key);
        }
        return Ok(true);
    };
    if resource.is_none() && def.shape == AttrShape::Resources {
        return Err(unknown_resource());
    }
    let new = match op {
        Op::Set => normalize(def.shape, v).ok_or_else(|| Rejection::pbs(codes::BADATVAL, obj))?,
        Op::Add | Op::Remove if def.shape == AttrShape::List => {
            let mut items: Vec<String> = kept
                .other
                .get(&key)
                .map(|s| split_list(s))
                .unwrap_or_default();
            for item in split_list(v) {
                if op == Op::Remove {
                    items.retain(|i| *i != item);
                } else if !items.contains(&item) {
                    items.push(item);
                }
            }
            if items.is_empty() {
                kept.other.remove(&key);
                return Ok(true);
            }
            items.join(",")
        }
        _ => {
            return Err(Rejection::pbs(codes::BADATVAL, obj)
                .with_detail(format!("{} is not a list attribute: use =", a.name)))
        }
    };
    check_other(kept.defs, kept.modelled, &key, &new)
        .map_err(|m| Rejection::pbs(codes::BADATVAL, obj).with_detail(m))?;
    kept.other.insert(key, new);
    Ok(true)
}

/// Whether `name` (any case, `ATTR` or `ATTR.RESOURCE`) is an attribute PBS has for the object
/// and fairsort keeps rather than models.
pub(crate) fn is_kept_name(defs: &'static [AttrDef], modelled: &[&str], name: &str) -> bool {
    find(defs, name).is_some_and(|d| !modelled.contains(&d.name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pbs::defs::object_attributes::{QUEUE, SCHED, SERVER};
    use crate::qmgr::attrs::{kept_values as values, Value};

    fn op(name: &str, value: Option<(Op, &str)>) -> AttrOp {
        AttrOp {
            name: name.to_string(),
            value: value.map(|(o, v)| (o, v.to_string())),
            span: 0..name.len(),
        }
    }

    fn run(
        defs: &'static [AttrDef],
        other: &mut BTreeMap<String, String>,
        a: AttrOp,
    ) -> Result<bool, Rejection> {
        let kept = Kept {
            defs,
            modelled: &["job_sort_formula", "managers"],
            other,
        };
        apply(kept, &a, "", |r| r == "ncpus" || r == "mem")
    }

    #[test]
    fn keeps_sets_and_unsets_by_pbs_name() {
        let mut m = BTreeMap::new();
        assert!(run(SERVER, &mut m, op("Scheduling", Some((Op::Set, "False")))).unwrap());
        assert!(run(
            SERVER,
            &mut m,
            op("resources_default.ncpus", Some((Op::Set, "1")))
        )
        .unwrap());
        assert!(run(
            SERVER,
            &mut m,
            op("resources_default.mem", Some((Op::Set, "1gb")))
        )
        .unwrap());
        assert_eq!(m["scheduling"], "False");
        assert_eq!(m["resources_default.ncpus"], "1");
        assert!(run(SERVER, &mut m, op("resources_default", None)).unwrap());
        assert_eq!(m.keys().collect::<Vec<_>>(), ["scheduling"]);
        assert!(run(SERVER, &mut m, op("scheduling", None)).unwrap());
        assert!(m.is_empty());
    }

    #[test]
    fn unknown_modelled_and_read_only_names() {
        let mut m = BTreeMap::new();
        assert!(!run(SERVER, &mut m, op("nosuch", Some((Op::Set, "1")))).unwrap());
        assert!(!run(SERVER, &mut m, op("managers", Some((Op::Set, "a@b")))).unwrap());
        assert!(!run(QUEUE, &mut m, op("scheduling", Some((Op::Set, "1")))).unwrap());
        let e = run(SCHED, &mut m, op("state", Some((Op::Set, "idle")))).unwrap_err();
        assert_eq!(e.code, 15003);
        assert_eq!(
            e.message,
            "Cannot set attribute, read only or insufficient permission  state"
        );
        let e = run(SERVER, &mut m, op("pbs_version", None)).unwrap_err();
        assert_eq!(e.code, 15003);
        let e = run(
            SERVER,
            &mut m,
            op("resources_assigned.ncpus", Some((Op::Set, "1"))),
        );
        assert_eq!(e.unwrap_err().code, 15003);
        assert!(m.is_empty());
    }

    #[test]
    fn resources_are_checked() {
        let mut m = BTreeMap::new();
        let e = run(
            SERVER,
            &mut m,
            op("resources_default.nosuchres", Some((Op::Set, "1"))),
        );
        let e = e.unwrap_err();
        assert_eq!(e.code, 15035);
        assert_eq!(e.message, "Unknown resource resources_default.nosuchres");
        let e = run(SERVER, &mut m, op("scheduling.ncpus", Some((Op::Set, "1"))));
        assert_eq!(e.unwrap_err().code, 15014);
        let e = run(
            SERVER,
            &mut m,
            op("resources_default", Some((Op::Set, "1"))),
        );
        assert_eq!(e.unwrap_err().code, 15035);
        let e = run(SERVER, &mut m, op("comment", Some((Op::Set, "a\u{7}b"))));
        assert_eq!(e.unwrap_err().code, 15014);
        assert!(m.is_empty());
    }

    #[test]
    fn lists_add_and_remove_and_print_in_pbs_order() {
        let mut m = BTreeMap::new();
        run(SERVER, &mut m, op("acl_users", Some((Op::Set, "a,b")))).unwrap();
        run(SERVER, &mut m, op("acl_users", Some((Op::Add, "c, a")))).unwrap();
        run(SERVER, &mut m, op("acl_users", Some((Op::Remove, "b")))).unwrap();
        assert_eq!(m["acl_users"], "a,c");
        let e = run(SERVER, &mut m, op("scheduling", Some((Op::Add, "True"))));
        assert_eq!(e.unwrap_err().code, 15014);
        let e = run(SERVER, &mut m, op("scheduling", Some((Op::Set, "3"))));
        let e = e.unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (15014, "Illegal attribute or resource value")
        );
        run(SERVER, &mut m, op("scheduling", Some((Op::Set, "t")))).unwrap();
        run(SERVER, &mut m, op("log_events", Some((Op::Set, "+0511")))).unwrap();
        assert_eq!(m["log_events"], "511");
        let v = values(SERVER, &m);
        assert_eq!(
            v[0],
            ("scheduling".to_string(), Value::Single("True".into()))
        );
        assert_eq!(
            v[1],
            (
                "acl_users".to_string(),
                Value::List(vec!["a".into(), "c".into()])
            )
        );
        assert!(is_kept_name(
            SERVER,
            &["managers"],
            "RESOURCES_DEFAULT.ncpus"
        ));
        assert!(!is_kept_name(SERVER, &["managers"], "managers"));
    }
}
