//! PBS's `fairshare_entity`: which job attribute names the fair-share entity a job charges
//! (scheduler `sched_config`; openpbs.md §3.1).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// PBS `fairshare_entity`: the job attribute that names a job's fair-share entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum FairshareEntity {
    /// `euser`: the job owner's user name (PBS default; accounting records' `user=`).
    #[default]
    #[serde(rename = "euser")]
    Euser,
    /// `egroup`: the job owner's group (`group=`).
    #[serde(rename = "egroup")]
    Egroup,
    /// `Account_Name`: the job's account string (`account=`).
    #[serde(rename = "Account_Name")]
    AccountName,
    /// `queue`: the job's queue (`queue=`).
    #[serde(rename = "queue")]
    Queue,
    /// `egroup:euser`: `group:user`.
    #[serde(rename = "egroup:euser")]
    EgroupEuser,
}

impl FairshareEntity {
    /// Every value, in PBS's documentation order.
    pub const ALL: [FairshareEntity; 5] = [
        FairshareEntity::Euser,
        FairshareEntity::Egroup,
        FairshareEntity::AccountName,
        FairshareEntity::Queue,
        FairshareEntity::EgroupEuser,
    ];

    /// PBS's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FairshareEntity::Euser => "euser",
            FairshareEntity::Egroup => "egroup",
            FairshareEntity::AccountName => "Account_Name",
            FairshareEntity::Queue => "queue",
            FairshareEntity::EgroupEuser => "egroup:euser",
        }
    }
}

impl fmt::Display for FairshareEntity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for FairshareEntity {
    type Err = String;
    /// PBS's exact spellings; anything else gets PBS's scheduler message.
    fn from_str(s: &str) -> Result<Self, String> {
        (Self::ALL.into_iter())
            .find(|e| e.as_str() == s)
            .ok_or_else(|| crate::pbs::defs::codes::invalid_entity(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_reject_others() {
        for n in ["euser", "egroup", "Account_Name", "queue", "egroup:euser"] {
            assert_eq!(
                n.parse::<FairshareEntity>().map(|e| e.to_string()),
                Ok(n.to_string())
            );
        }
        assert_eq!(FairshareEntity::default(), FairshareEntity::Euser);
        assert_eq!(
            "user".parse::<FairshareEntity>(),
            Err("fairshare_entity user is erroneous (or deprecated).".to_string())
        );
        assert!("EUSER".parse::<FairshareEntity>().is_err(), "case matters");
    }

    #[test]
    fn serde_uses_pbs_spelling() {
        #[derive(Serialize, Deserialize)]
        struct S {
            e: FairshareEntity,
        }
        let text = toml::to_string(&S {
            e: FairshareEntity::AccountName,
        })
        .unwrap_or_default();
        assert_eq!(text.trim(), "e = \"Account_Name\"");
        let back: Result<S, _> = toml::from_str("e = \"egroup:euser\"");
        assert_eq!(back.map(|s| s.e).ok(), Some(FairshareEntity::EgroupEuser));
    }
}
