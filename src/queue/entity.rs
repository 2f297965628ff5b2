//! Which fair-share entity a job charges: PBS's `fairshare_entity` (`euser` by default,
//! `egroup`, `Account_Name`, `queue`, `egroup:euser`), or for Slurm/flux-style trees the job's
//! (account, user) association.

use super::job::JobSet;
use super::job_record::Job;
use std::fmt;
use std::str::FromStr;

/// PBS `fairshare_entity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EntityKey {
    /// The job's effective user (PBS default).
    #[default]
    Euser,
    /// The job's effective group.
    Egroup,
    /// The job's `Account_Name`.
    AccountName,
    /// The job's queue.
    Queue,
    /// `egroup:euser`.
    EgroupEuser,
}

impl EntityKey {
    /// PBS's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            EntityKey::Euser => "euser",
            EntityKey::Egroup => "egroup",
            EntityKey::AccountName => "Account_Name",
            EntityKey::Queue => "queue",
            EntityKey::EgroupEuser => "egroup:euser",
        }
    }

    /// The entity name of a job (an unset `Account_Name` is the empty name).
    pub fn name_of(self, set: &JobSet, job: &Job) -> String {
        let n = |s| set.names.name(s).to_string();
        match self {
            EntityKey::Euser => n(job.euser),
            EntityKey::Egroup => n(job.egroup),
            EntityKey::AccountName => job.account.map(n).unwrap_or_default(),
            EntityKey::Queue => n(job.queue),
            EntityKey::EgroupEuser => format!("{}:{}", n(job.egroup), n(job.euser)),
        }
    }
}

impl fmt::Display for EntityKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EntityKey {
    type Err = String;
    /// PBS's exact spellings; anything else gets PBS's scheduler message.
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "euser" => EntityKey::Euser,
            "egroup" => EntityKey::Egroup,
            "Account_Name" => EntityKey::AccountName,
            "queue" => EntityKey::Queue,
            "egroup:euser" => EntityKey::EgroupEuser,
            _ => {
                return Err(format!(
                    "fairshare_entity {s} is erroneous (or deprecated)."
                ))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::read_job_list_json;

    #[test]
    fn entity_names() {
        let set = read_job_list_json(
            br#"[{"id":"1","user":"bob","group":"g1","account":"a1","queue":"workq"}]"#,
        )
        .unwrap();
        let j = &set.jobs[0];
        let names: Vec<String> = [
            EntityKey::Euser,
            EntityKey::Egroup,
            EntityKey::AccountName,
            EntityKey::Queue,
            EntityKey::EgroupEuser,
        ]
        .iter()
        .map(|k| k.name_of(&set, j))
        .collect();
        assert_eq!(names, ["bob", "g1", "a1", "workq", "g1:bob"]);
        for k in ["euser", "egroup", "Account_Name", "queue", "egroup:euser"] {
            assert_eq!(k.parse::<EntityKey>().unwrap().as_str(), k);
        }
        assert_eq!(
            "user".parse::<EntityKey>().unwrap_err(),
            "fairshare_entity user is erroneous (or deprecated)."
        );
    }
}
