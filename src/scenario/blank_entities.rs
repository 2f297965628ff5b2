//! Jobs whose fair-share entity has an empty name under the chosen `fairshare_entity` (no
//! `egroup`, no `Account_Name`): PBS counts them all as one entity, which merges unrelated
//! users' usage; the command line says so in one line instead of letting it pass silently.

use crate::pbs::defs::FairshareEntity;
use crate::scenario::Scenario;

impl Scenario {
    /// One warning when some jobs' entity name is empty (or has an empty part, `:bob`), with the
    /// count and the first such job; none otherwise. One pass over the jobs.
    pub fn blank_entity_warning(&self) -> Option<String> {
        let set = &self.setup.jobs;
        let entity = self.setup.entity;
        let names = &set.names;
        let blank = |j: &crate::jobs::job::Job| match entity {
            FairshareEntity::Euser => names.name(j.euser).is_empty(),
            FairshareEntity::Egroup => names.name(j.egroup).is_empty(),
            FairshareEntity::AccountName => j.account().is_none_or(|a| names.name(a).is_empty()),
            FairshareEntity::Queue => names.name(j.queue).is_empty(),
            FairshareEntity::EgroupEuser => {
                names.name(j.egroup).is_empty() || names.name(j.euser).is_empty()
            }
        };
        let mut count = 0usize;
        let mut first = None;
        for j in &set.jobs {
            if blank(j) {
                count += 1;
                first.get_or_insert(j);
            }
        }
        let first = first?;
        Some(format!(
            "fairshare_entity {}: {count} of {} jobs have no {} (the first: job `{}`); they are \
             counted as one entity with an empty name",
            entity.as_str(),
            set.jobs.len(),
            match entity {
                FairshareEntity::EgroupEuser => "egroup or euser",
                other => other.as_str(),
            },
            first.id.as_str()
        ))
    }
}
