//! A formula's keywords bound to a Slurm site's priority rows (one per job and partition), for
//! the what-if of `order --slurm-conf ... --formula/--against`. The multifactor factors are the
//! keywords `age_factor`, `assoc_factor`, `jobsize_factor`, `partition_factor`, `qos_factor`
//! (each before its weight, in [0, 1] unless a `NO_NORMAL_*` flag is set), `tres_factor` (the
//! TRES term as weighted by `PriorityWeightTRES`, which has no single weight), `nice_factor`
//! (the nice, positive lowers) and `slurm_priority` (sprio's PRIORITY under slurm.conf's
//! weights). The factors are computed whatever slurm.conf's weights are (a weight of 0, or
//! the age and fair-share weights slurmctld drops without SlurmDBD, do not zero them here).
//!
//! Fair share: `fairshare_factor` is the site's own factor (the algorithm of `PriorityFlags` or
//! `--algorithm`, as sprio's FAIRSHARE before its weight); `fairtree_factor`, `level_fs`,
//! `classic_factor`, `depth_oblivious_factor` and `ticket_factor` are each Slurm algorithm's
//! value for the row's association over the same tree. Job values: `eligible_time`,
//! `queue_priority` (the row partition's `PriorityJobFactor`), and the resources `ncpus`,
//! `nodect`, `walltime` (seconds; 0 when unset or unlimited) and `mem` (KB, from the request).
//! Keywords that have no meaning on a Slurm site are refused with the reason.

use crate::fairshare::{keyword_source, slurm, Algorithm, Options};
use crate::pbs::defs::Keyword;
use crate::slurm::multifactor::{compute, PriorityRow, Site, Weights};
use crate::slurm::squeue::{SlurmJob, TimeLimit};

/// Why a keyword cannot be bound on a Slurm site.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SlurmBindError {
    /// A keyword that has no value on a Slurm site.
    #[error("the formula uses `{keyword}`, which a Slurm site does not have: {reason}")]
    Unavailable {
        /// The keyword.
        keyword: String,
        /// Why, and what to use instead.
        reason: &'static str,
    },
    /// A fair-share keyword without a share tree.
    #[error("the formula uses `{0}`, which needs a share tree (--tree, --assoc, or the home's)")]
    NoTree(String),
    /// The fair-share engine refused.
    #[error("fair share: {0}")]
    Share(String),
}

/// Where one slot's values come from.
enum Slot {
    /// A normalised factor of the unit-weight rows.
    Factor(fn(&PriorityRow) -> f64),
    /// A value of the real rows (priority) or of the job.
    Row(fn(&PriorityRow, &SlurmJob, &Site) -> f64),
    /// One value per row, computed once.
    Column(Vec<f64>),
}

fn time_limit_seconds(j: &SlurmJob) -> f64 {
    match j.time_limit {
        TimeLimit::Minutes(m) => f64::from(m) * 60.0,
        TimeLimit::Unset | TimeLimit::Infinite => 0.0,
    }
}

fn tres_of(j: &SlurmJob, name: &str) -> f64 {
    j.tres.iter().find(|t| t.0 == name).map_or(0.0, |t| t.1)
}

/// The slot values of every row, row by row (`rows.len() × keywords.len()`), in the order of
/// `rows` (which must be [`compute`]'s rows for `site` and `jobs`).
pub fn bind(
    keywords: &[String],
    site: &Site,
    jobs: &[SlurmJob],
    rows: &[PriorityRow],
) -> Result<Vec<f64>, SlurmBindError> {
    let unit_weights = Weights::unit(site.conf);
    let unit_site = Site {
        weights: &unit_weights,
        ..*site
    };
    let unit = compute(&unit_site, jobs);
    let mut slots = Vec::with_capacity(keywords.len());
    for k in keywords {
        slots.push(slot(k, site, jobs, rows)?);
    }
    let width = slots.len();
    let mut out = vec![0.0; rows.len() * width];
    for (r, row) in rows.iter().enumerate() {
        let (Some(job), Some(u)) = (jobs.get(row.job), unit.get(r)) else {
            continue;
        };
        for (s, src) in slots.iter().enumerate() {
            out[r * width + s] = match src {
                Slot::Factor(get) => get(u),
                Slot::Row(get) => get(row, job, site),
                Slot::Column(v) => v.get(r).copied().unwrap_or(0.0),
            };
        }
    }
    Ok(out)
}

fn unavailable(keyword: &str, reason: &'static str) -> SlurmBindError {
    SlurmBindError::Unavailable {
        keyword: keyword.to_string(),
        reason,
    }
}

fn slot(
    k: &str,
    site: &Site,
    jobs: &[SlurmJob],
    rows: &[PriorityRow],
) -> Result<Slot, SlurmBindError> {
    let Ok(kw) = k.parse::<Keyword>() else {
        return Ok(match k {
            "ncpus" => Slot::Row(|_, j, _| f64::from(j.cpus)),
            "nodect" => Slot::Row(|_, j, _| f64::from(j.node_count)),
            "walltime" => Slot::Row(|_, j, _| time_limit_seconds(j)),
            "mem" => Slot::Row(|_, j, _| tres_of(j, "mem") * 1024.0),
            // Any other resource the formula may name: not requested, 0 (as PBS binds it).
            _ => Slot::Row(|_, _, _| 0.0),
        });
    };
    Ok(match kw {
        Keyword::AgeFactor => Slot::Factor(|u| u.normalized.age),
        Keyword::AssocFactor => Slot::Factor(|u| u.normalized.assoc),
        Keyword::JobsizeFactor => Slot::Factor(|u| u.normalized.jobsize),
        Keyword::PartitionFactor => Slot::Factor(|u| u.normalized.partition),
        Keyword::QosFactor => Slot::Factor(|u| u.normalized.qos),
        Keyword::TresFactor => Slot::Factor(|u| u.weighted.tres_total()),
        Keyword::NiceFactor => Slot::Factor(|u| u.normalized.nice),
        Keyword::SlurmPriority => Slot::Row(|r, _, _| r.priority as f64),
        Keyword::FairshareFactor => {
            if site.fairshare.is_none() {
                return Err(SlurmBindError::NoTree(k.to_string()));
            }
            Slot::Factor(|u| u.normalized.fairshare)
        }
        Keyword::EligibleTime => Slot::Row(|_, j, _| j.eligible_time as f64),
        Keyword::QueuePriority => Slot::Row(|r, _, s| {
            f64::from(s.conf.partition(&r.partition).map_or(0, |p| p.job_factor))
        }),
        Keyword::JobPriority => {
            return Err(unavailable(
                k,
                "the job's priority in squeue's output is the answer, never an input; use \
                 slurm_priority (the multifactor priority fairsort computes)",
            ))
        }
        Keyword::AccrueType => {
            return Err(unavailable(
                k,
                "it is PBS's; use age_factor (Slurm counts age from the accrue time)",
            ))
        }
        Keyword::FairsharePerc | Keyword::FairSharePerc | Keyword::FairshareTreeUsage => {
            return Err(unavailable(
                k,
                "it is PBS's fair share; use fairshare_factor (the site's algorithm) or \
                 fairtree_factor, classic_factor, depth_oblivious_factor, ticket_factor",
            ))
        }
        Keyword::FluxFairshare => {
            return Err(unavailable(
                k,
                "it is flux-accounting's; use fairshare_factor",
            ))
        }
        Keyword::FairtreeFactor
        | Keyword::LevelFs
        | Keyword::ClassicFactor
        | Keyword::DepthObliviousFactor
        | Keyword::TicketFactor => Slot::Column(share_column(k, site, jobs, rows)?),
    })
}

/// A Slurm algorithm's value (by [`keyword_source`]) for each row's association.
fn share_column(
    k: &str,
    site: &Site,
    jobs: &[SlurmJob],
    rows: &[PriorityRow],
) -> Result<Vec<f64>, SlurmBindError> {
    let fs = site
        .fairshare
        .ok_or_else(|| SlurmBindError::NoTree(k.to_string()))?;
    let (algorithm, get) =
        keyword_source(k).ok_or_else(|| unavailable(k, "it has no fair-share source"))?;
    let own;
    let result = if fs.result.algorithm == algorithm {
        fs.result
    } else {
        let opts = Options {
            dampening: f64::from(site.conf.dampening),
            ..Options::default()
        };
        own = slurm::compute(fs.tree, algorithm, &opts)
            .map_err(|e| SlurmBindError::Share(e.to_string()))?;
        &own
    };
    debug_assert!(matches!(
        algorithm,
        Algorithm::FairTree | Algorithm::Classic | Algorithm::DepthOblivious | Algorithm::Ticket
    ));
    Ok(rows
        .iter()
        .map(|r| {
            jobs.get(r.job)
                .and_then(|j| fs.node(j, &r.partition))
                .and_then(|id| get(&result.row(id)))
                .unwrap_or(0.0)
        })
        .collect())
}
