//! The priority values slurmdbd holds: `sacctmgr show qos -P` (`Name`, `Priority`) and
//! `sacctmgr show assoc -P` (`Account`, `User`, `Partition`, `Priority`, optional `ParentName`).

use crate::files::FormatError;
use crate::slurm::columns;
use std::collections::BTreeMap;

/// QOS name → Priority (an empty cell is 0).
pub fn parse_qos_priorities(text: &str, file: &str) -> Result<BTreeMap<String, u32>, FormatError> {
    let table = columns::parse(text, file)?;
    let need = |names: &[&str], label: &str| {
        table.col(names).ok_or_else(|| {
            FormatError::line(
                file,
                1,
                format!("the header has no {label} column (use sacctmgr show qos -P format=Name,Priority)"),
            )
        })
    };
    let c_name = need(&["name"], "Name")?;
    let c_prio = need(&["priority"], "Priority")?;
    let mut out = BTreeMap::new();
    for (line, fields) in table.rows() {
        let get = |c: usize| fields.get(c).map_or("", |s| s.trim());
        let p = get(c_prio);
        let value = if p.is_empty() {
            0
        } else {
            p.parse().map_err(|_| {
                FormatError::line(
                    file,
                    line,
                    format!(
                        "QOS `{}`: Priority `{p}` is not an unsigned integer",
                        get(c_name)
                    ),
                )
            })?
        };
        out.insert(get(c_name).to_string(), value);
    }
    Ok(out)
}

/// Association priorities: `(account, user, partition)` → Priority, with a user (or account)
/// whose cell is empty inheriting its account's (parent's) value, as slurmdbd does; unset
/// everywhere counts as 0. `user` and `partition` are empty strings for account rows / no
/// partition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AssocPriorities {
    /// (account, user, partition) → priority after inheritance.
    pub values: BTreeMap<AssocKey, u32>,
}

impl AssocPriorities {
    /// The priority of a job's association: the exact (account, user, partition) row, else
    /// (account, user) without partition, else the account's; 0 when none.
    pub fn get(&self, account: &str, user: &str, partition: &str) -> u32 {
        let key = |u: &str, p: &str| (account.to_string(), u.to_string(), p.to_string());
        self.values
            .get(&key(user, partition))
            .or_else(|| self.values.get(&key(user, "")))
            .or_else(|| self.values.get(&key("", "")))
            .copied()
            .unwrap_or(0)
    }

    /// The largest association priority (the assoc factor's normaliser).
    pub fn max(&self) -> u32 {
        self.values.values().copied().max().unwrap_or(0)
    }
}

/// (account, user, partition).
type AssocKey = (String, String, String);

/// Reads `sacctmgr show assoc -P` output with a `Priority` column.
pub fn parse_assoc_priorities(text: &str, file: &str) -> Result<AssocPriorities, FormatError> {
    let table = columns::parse(text, file)?;
    let need = |names: &[&str], label: &str| {
        table.col(names).ok_or_else(|| {
            FormatError::line(
                file,
                1,
                format!("the header has no {label} column (use sacctmgr show assoc -P format=Account,User,Partition,Priority,ParentName)"),
            )
        })
    };
    let c_acct = need(&["account"], "Account")?;
    let c_user = need(&["user"], "User")?;
    let c_prio = need(&["priority"], "Priority")?;
    let c_part = table.col(&["partition"]);
    let c_parent = table.col(&["parentname", "parname"]);
    let mut raw: Vec<(AssocKey, Option<u32>, String)> = Vec::new();
    for (line, fields) in table.rows() {
        let get = |c: usize| fields.get(c).map_or("", |s| s.trim());
        let p = get(c_prio);
        let value = if p.is_empty() {
            None
        } else {
            Some(p.parse::<u32>().map_err(|_| {
                FormatError::line(
                    file,
                    line,
                    format!(
                        "association {}/{}: Priority `{p}` is not an unsigned integer",
                        get(c_acct),
                        get(c_user)
                    ),
                )
            })?)
        };
        let part = c_part.map(get).unwrap_or("").to_string();
        let parent = c_parent.map(get).unwrap_or("").to_string();
        raw.push((
            (get(c_acct).to_string(), get(c_user).to_string(), part),
            value,
            parent,
        ));
    }
    // Accounts first: an account's value, else its parent's (walked up by name).
    let account_raw: BTreeMap<&str, (Option<u32>, &str)> = raw
        .iter()
        .filter(|(k, _, _)| k.1.is_empty())
        .map(|(k, v, parent)| (k.0.as_str(), (*v, parent.as_str())))
        .collect();
    let account_value = |name: &str| -> Option<u32> {
        let mut cur = name;
        for _ in 0..=account_raw.len() {
            let (v, parent) = account_raw.get(cur)?;
            if v.is_some() {
                return *v;
            }
            if parent.is_empty() {
                return None;
            }
            cur = parent;
        }
        None
    };
    let mut out = AssocPriorities::default();
    for (key, value, _) in &raw {
        let v = value.or_else(|| account_value(&key.0)).unwrap_or(0);
        let key = if key.1.is_empty() {
            (key.0.clone(), String::new(), String::new())
        } else {
            key.clone()
        };
        out.values.insert(key, v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qos_and_assoc() {
        let q = parse_qos_priorities(
            "Name|Priority|GraceTime\nnormal|0|00:00:00\nhigh|100|\n",
            "q",
        )
        .unwrap();
        assert_eq!(q["high"], 100);
        assert_eq!(q["normal"], 0);
        let a = parse_assoc_priorities(
            "Account|User|Partition|Priority|ParentName\nroot||||\nphys|||50|root\nlab|||||phys\n\
             lab|bob|||\nphys|ann||200|\n",
            "a",
        );
        // The trailing `|` makes the lab row one cell too long: an error naming the file.
        assert!(a.is_err());
        let a = parse_assoc_priorities(
            "Account|User|Partition|Priority|ParentName\nroot||||\nphys|||50|root\nlab||||phys\n\
             lab|bob|||\nphys|ann||200|\n",
            "a",
        )
        .unwrap();
        assert_eq!(a.get("lab", "bob", "batch"), 50);
        assert_eq!(a.get("phys", "ann", ""), 200);
        assert_eq!(a.get("root", "x", ""), 0);
        assert_eq!(a.max(), 200);
    }
}
