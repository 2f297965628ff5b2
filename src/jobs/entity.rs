//! The fair-share entity name of a job under PBS's `fairshare_entity`
//! ([`crate::pbs::defs::FairshareEntity`]: `euser` by default, `egroup`, `Account_Name`, `queue`,
//! `egroup:euser`).

use crate::jobs::job::Job;
use crate::jobs::job_set::JobSet;
use crate::pbs::defs::FairshareEntity;

/// The entity name of a job under a [`FairshareEntity`]: `entity.name_of(set, job)`.
pub trait EntityName {
    /// The entity name of `job` (an unset `Account_Name` is the empty name).
    fn name_of(self, set: &JobSet, job: &Job) -> String;
}

impl EntityName for FairshareEntity {
    fn name_of(self, set: &JobSet, job: &Job) -> String {
        let n = |s| set.names.name(s).to_string();
        match self {
            FairshareEntity::Euser => n(job.euser),
            FairshareEntity::Egroup => n(job.egroup),
            FairshareEntity::AccountName => job.account().map(n).unwrap_or_default(),
            FairshareEntity::Queue => n(job.queue),
            FairshareEntity::EgroupEuser => format!("{}:{}", n(job.egroup), n(job.euser)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::read_job_list_json;

    #[test]
    fn entity_names() {
        let set = read_job_list_json(
            br#"[{"id":"1","user":"bob","group":"g1","account":"a1","queue":"workq"}]"#,
        )
        .unwrap();
        let j = &set.jobs[0];
        let names: Vec<String> = (FairshareEntity::ALL.iter())
            .map(|&k| k.name_of(&set, j))
            .collect();
        assert_eq!(names, ["bob", "g1", "a1", "workq", "g1:bob"]);
    }
}
