//! The `job_sort_formula` keywords besides resources: PBS's eight (openpbs.md §1.2, bound per
//! job by the scheduler) and fairsort's per-entity factors of the other fair-share algorithms,
//! with how PBS types their values.

use std::fmt;
use std::str::FromStr;

/// A formula keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Keyword {
    /// `eligible_time`: the job's eligible time in seconds.
    EligibleTime,
    /// `queue_priority`: the `Priority` of the job's queue.
    QueuePriority,
    /// `job_priority`: the job's `Priority` (`qsub -p`).
    JobPriority,
    /// `fairshare_perc`: the entity's share of the tree (0..1).
    FairsharePerc,
    /// `fair_share_perc`: PBS's deprecated spelling of `fairshare_perc`.
    FairSharePerc,
    /// `fairshare_tree_usage`: the entity's usage factor (0..1).
    FairshareTreeUsage,
    /// `fairshare_factor`: `2^-(fairshare_tree_usage/fairshare_perc)`.
    FairshareFactor,
    /// `accrue_type`: 0 initial, 1 ineligible, 2 eligible, 3 running, 4 exit.
    AccrueType,
    /// fairsort: Slurm Fair Tree's factor.
    FairtreeFactor,
    /// fairsort: Slurm Fair Tree's Level FS.
    LevelFs,
    /// fairsort: Slurm classic multifactor's fair-share factor.
    ClassicFactor,
    /// fairsort: Slurm depth-oblivious factor.
    DepthObliviousFactor,
    /// fairsort: Slurm ticket-based factor.
    TicketFactor,
    /// fairsort: flux-accounting's fair-share value.
    FluxFairshare,
    /// fairsort, Slurm: the multifactor age factor (0..1, before `PriorityWeightAge`).
    AgeFactor,
    /// fairsort, Slurm: the association-priority factor (0..1).
    AssocFactor,
    /// fairsort, Slurm: the job-size factor (0..1).
    JobsizeFactor,
    /// fairsort, Slurm: the partition factor (`PriorityJobFactor` / the largest, 0..1).
    PartitionFactor,
    /// fairsort, Slurm: the QOS factor (QOS priority / the largest, 0..1).
    QosFactor,
    /// fairsort, Slurm: the TRES term, Σ `PriorityWeightTRES`ᵢ × requestᵢ / partition totalᵢ.
    TresFactor,
    /// fairsort, Slurm: the job's nice (positive lowers the priority).
    NiceFactor,
    /// fairsort, Slurm: the multifactor priority as sprio's PRIORITY (an integer).
    SlurmPriority,
}

impl Keyword {
    /// PBS's keywords, in the order the scheduler binds them.
    pub const PBS: [Keyword; 8] = [
        Keyword::EligibleTime,
        Keyword::QueuePriority,
        Keyword::JobPriority,
        Keyword::FairsharePerc,
        Keyword::FairSharePerc,
        Keyword::FairshareTreeUsage,
        Keyword::FairshareFactor,
        Keyword::AccrueType,
    ];

    /// fairsort's own keywords: the per-entity factors of the other fair-share algorithms,
    /// then the Slurm multifactor factors ([`Keyword::SLURM`]).
    pub const FAIRSORT: [Keyword; 14] = [
        Keyword::FairtreeFactor,
        Keyword::LevelFs,
        Keyword::ClassicFactor,
        Keyword::DepthObliviousFactor,
        Keyword::TicketFactor,
        Keyword::FluxFairshare,
        Keyword::AgeFactor,
        Keyword::AssocFactor,
        Keyword::JobsizeFactor,
        Keyword::PartitionFactor,
        Keyword::QosFactor,
        Keyword::TresFactor,
        Keyword::NiceFactor,
        Keyword::SlurmPriority,
    ];

    /// fairsort's Slurm multifactor keywords: a job's factors on a Slurm site (`--slurm-conf`
    /// or a home with a Slurm configuration), bound per (job, partition) row.
    pub const SLURM: [Keyword; 8] = [
        Keyword::AgeFactor,
        Keyword::AssocFactor,
        Keyword::JobsizeFactor,
        Keyword::PartitionFactor,
        Keyword::QosFactor,
        Keyword::TresFactor,
        Keyword::NiceFactor,
        Keyword::SlurmPriority,
    ];

    /// The keyword as a formula spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Keyword::EligibleTime => "eligible_time",
            Keyword::QueuePriority => "queue_priority",
            Keyword::JobPriority => "job_priority",
            Keyword::FairsharePerc => "fairshare_perc",
            Keyword::FairSharePerc => "fair_share_perc",
            Keyword::FairshareTreeUsage => "fairshare_tree_usage",
            Keyword::FairshareFactor => "fairshare_factor",
            Keyword::AccrueType => "accrue_type",
            Keyword::FairtreeFactor => "fairtree_factor",
            Keyword::LevelFs => "level_fs",
            Keyword::ClassicFactor => "classic_factor",
            Keyword::DepthObliviousFactor => "depth_oblivious_factor",
            Keyword::TicketFactor => "ticket_factor",
            Keyword::FluxFairshare => "flux_fairshare",
            Keyword::AgeFactor => "age_factor",
            Keyword::AssocFactor => "assoc_factor",
            Keyword::JobsizeFactor => "jobsize_factor",
            Keyword::PartitionFactor => "partition_factor",
            Keyword::QosFactor => "qos_factor",
            Keyword::TresFactor => "tres_factor",
            Keyword::NiceFactor => "nice_factor",
            Keyword::SlurmPriority => "slurm_priority",
        }
    }

    /// Whether PBS has the keyword (the others are fairsort's).
    pub fn is_pbs(self) -> bool {
        Self::PBS.contains(&self)
    }

    /// Whether the keyword is one of the Slurm multifactor factors ([`Keyword::SLURM`]).
    pub fn is_slurm(self) -> bool {
        Self::SLURM.contains(&self)
    }

    /// Whether the keyword is a value of the job itself (not of its fair-share entity).
    pub(crate) fn is_job_attribute(self) -> bool {
        matches!(
            self,
            Keyword::EligibleTime
                | Keyword::QueuePriority
                | Keyword::JobPriority
                | Keyword::AccrueType
        ) || self.is_slurm()
    }

    /// Whether the value is always a Python float. PBS prints its fair-share keywords with
    /// `%f`; fairsort's keywords are fractions too and are bound the same way, as are Slurm's
    /// factors (C doubles). Every other keyword and resource is printed with at most 4
    /// decimals, so an integral value is an `int`; so are `nice_factor` and `slurm_priority`.
    pub(crate) fn is_float(self) -> bool {
        match self {
            Keyword::NiceFactor | Keyword::SlurmPriority => false,
            k if k.is_slurm() => true,
            k => !k.is_job_attribute(),
        }
    }
}

impl fmt::Display for Keyword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a name that is no keyword.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a job_sort_formula keyword")]
pub struct UnknownKeyword(pub String);

impl FromStr for Keyword {
    type Err = UnknownKeyword;
    /// Exact spellings only.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        (Self::PBS.into_iter().chain(Self::FAIRSORT))
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownKeyword(s.to_string()))
    }
}

/// The names of `keywords`, in order (for the constant name lists).
const fn names<const N: usize>(keywords: [Keyword; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = keywords[i].as_str();
        i += 1;
    }
    out
}

/// PBS's keyword names ([`Keyword::PBS`]).
pub const PBS_KEYWORDS: [&str; 8] = names(Keyword::PBS);

/// fairsort's keyword names ([`Keyword::FAIRSORT`]).
pub const FAIRSORT_KEYWORDS: [&str; 14] = names(Keyword::FAIRSORT);

/// Whether `name` is a PBS or fairsort keyword.
pub(crate) fn is_keyword(name: &str) -> bool {
    name.parse::<Keyword>().is_ok()
}

/// Whether `name` is one of fairsort's own keywords (a PBS server does not know it).
pub fn is_fairsort_keyword(name: &str) -> bool {
    name.parse::<Keyword>().is_ok_and(|k| !k.is_pbs())
}

/// Whether the keyword's value is always a Python float (see [`Keyword::is_float`]).
pub fn is_float_keyword(name: &str) -> bool {
    name.parse::<Keyword>().is_ok_and(Keyword::is_float)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing() {
        assert!(is_float_keyword("fairshare_factor"));
        assert!(is_float_keyword("fair_share_perc"));
        assert!(is_float_keyword("level_fs"));
        assert!(!is_float_keyword("queue_priority"));
        assert!(!is_float_keyword("eligible_time"));
        assert!(!is_float_keyword("ncpus"));
        assert!(is_keyword("accrue_type"));
        assert!(!is_keyword("fair_share_factor"));
        assert!(is_fairsort_keyword("level_fs") && !is_fairsort_keyword("fairshare_factor"));
        assert!(!is_fairsort_keyword("ncpus"));
    }

    #[test]
    fn names_round_trip() {
        for k in Keyword::PBS.into_iter().chain(Keyword::FAIRSORT) {
            assert_eq!(k.as_str().parse::<Keyword>(), Ok(k));
        }
        assert_eq!(
            PBS_KEYWORDS,
            [
                "eligible_time",
                "queue_priority",
                "job_priority",
                "fairshare_perc",
                "fair_share_perc",
                "fairshare_tree_usage",
                "fairshare_factor",
                "accrue_type",
            ]
        );
        assert!(Keyword::AccrueType.is_pbs() && !Keyword::LevelFs.is_pbs());
    }

    #[test]
    fn slurm_factors() {
        for k in Keyword::SLURM {
            assert!(k.is_slurm() && !k.is_pbs() && k.is_job_attribute(), "{k}");
            assert!(is_fairsort_keyword(k.as_str()));
        }
        assert!(is_float_keyword("age_factor") && is_float_keyword("tres_factor"));
        assert!(!is_float_keyword("nice_factor") && !is_float_keyword("slurm_priority"));
        assert!(!Keyword::FairtreeFactor.is_slurm());
    }
}
