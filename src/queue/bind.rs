//! The binder: each keyword of the formula is resolved once to a source (a resource column, a
//! job attribute, a queue's priority, a fair-share value of the job's entity); binding a job then
//! fills its slot vector with no string look-ups. Units are PBS's (KB, seconds); an unrequested
//! resource is 0; `--pbs-compat` applies PBS's text rounding.

use super::compat;
use super::error::BindError;
use super::job::{JobSet, ResourceValue, Sym};
use super::shares::ShareContext;
use crate::fairshare::{keyword_source, Algorithm, NodeId, ShareResult};
use std::collections::HashMap;

/// Where one slot's value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A resource of `Resource_List` (`None`: no job requests it, always 0).
    Resource(Option<Sym>),
    /// The job's queue's `Priority`.
    QueuePriority,
    /// The job's `Priority`.
    JobPriority,
    /// The job's `eligible_time` (seconds).
    EligibleTime,
    /// The job's `accrue_type`.
    AccrueType,
    /// A fair-share value of the job's entity, per tree node (0 where the algorithm has none).
    Share {
        /// The algorithm that produced it.
        algorithm: Algorithm,
        /// Value per `NodeId`.
        by_node: Vec<f64>,
    },
}

/// The keywords every job has besides resources and fair-share values.
pub const JOB_KEYWORDS: [&str; 4] = [
    "queue_priority",
    "job_priority",
    "eligible_time",
    "accrue_type",
];

/// A formula's keywords resolved against a job set.
#[derive(Debug, Clone)]
pub struct Binder {
    keywords: Vec<String>,
    sources: Vec<Source>,
    /// Priority per queue symbol.
    queue_priority: Vec<f64>,
    /// Each job's entity node (empty without a share tree).
    job_nodes: Vec<Option<NodeId>>,
    compat: bool,
}

/// Slot values of every job, row-major: job `i` is `slots[i*width .. (i+1)*width]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// Number of slots per job.
    pub width: usize,
    /// All slot values.
    pub slots: Vec<f64>,
}

impl Bound {
    /// The slot vector of job `i` (empty when out of range).
    pub fn row(&self, i: usize) -> &[f64] {
        self.slots
            .get(i * self.width..(i + 1) * self.width)
            .unwrap_or(&[])
    }
}

/// A fair-share keyword the formula uses while no share tree was given, or whose algorithm
/// result is missing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the formula uses `{keyword}`, which needs a share tree with the {algorithm} algorithm's values")]
pub struct MissingShares {
    /// The keyword.
    pub keyword: String,
    /// The algorithm it needs.
    pub algorithm: Algorithm,
}

fn share_column(
    keyword: &str,
    result: &ShareResult,
    get: fn(&crate::fairshare::ShareRow) -> Option<f64>,
    compat: bool,
) -> Vec<f64> {
    let pbs_factor = compat && keyword == "fairshare_factor";
    result
        .rows()
        .map(|row| {
            if pbs_factor {
                return compat::fairshare_factor(
                    row.fairshare_perc.unwrap_or(0.0),
                    row.fairshare_tree_usage.unwrap_or(0.0),
                );
            }
            let v = get(&row).unwrap_or(0.0);
            if compat {
                compat::fairshare(v)
            } else {
                v
            }
        })
        .collect()
}

impl Binder {
    /// Resolves `keywords` (slot order) for `jobs`. `queue_priority` gives a queue's `Priority`
    /// (unset = 0). Fair-share keywords read `shares`; without it they are an error.
    pub fn new(
        keywords: &[String],
        jobs: &JobSet,
        queue_priority: &dyn Fn(&str) -> Option<i64>,
        shares: Option<&ShareContext>,
        pbs_compat: bool,
    ) -> Result<Binder, MissingShares> {
        let mut sources = Vec::with_capacity(keywords.len());
        for k in keywords {
            let src = match k.as_str() {
                "queue_priority" => Source::QueuePriority,
                "job_priority" => Source::JobPriority,
                "eligible_time" => Source::EligibleTime,
                "accrue_type" => Source::AccrueType,
                other => match keyword_source(other) {
                    Some((algorithm, get)) => {
                        let result = shares.and_then(|s| s.result(algorithm)).ok_or_else(|| {
                            MissingShares {
                                keyword: other.to_string(),
                                algorithm,
                            }
                        })?;
                        Source::Share {
                            algorithm,
                            by_node: share_column(other, result, get, pbs_compat),
                        }
                    }
                    None => Source::Resource(jobs.resources.get(other)),
                },
            };
            sources.push(src);
        }
        // Only queue names need a priority: look each distinct queue up once.
        let mut queue_priority_by_sym = vec![0.0; jobs.names.len()];
        let mut seen = vec![false; jobs.names.len()];
        for job in &jobs.jobs {
            let q = job.queue as usize;
            if let (Some(false), Some(slot)) =
                (seen.get(q).copied(), queue_priority_by_sym.get_mut(q))
            {
                *slot = queue_priority(jobs.names.name(job.queue)).unwrap_or(0) as f64;
                if let Some(s) = seen.get_mut(q) {
                    *s = true;
                }
            }
        }
        let queue_priority = queue_priority_by_sym;
        Ok(Binder {
            keywords: keywords.to_vec(),
            sources,
            queue_priority,
            job_nodes: shares.map(|s| s.job_nodes.clone()).unwrap_or_default(),
            compat: pbs_compat,
        })
    }

    /// The sources, in slot order.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Fills `out` (one value per keyword) for job `i` of `jobs`.
    pub fn bind_job(&self, jobs: &JobSet, i: usize, out: &mut [f64]) -> Result<(), BindError> {
        let Some(job) = jobs.jobs.get(i) else {
            return Ok(());
        };
        let node = self.job_nodes.get(i).copied().flatten();
        for (slot, (src, out)) in self.sources.iter().zip(out.iter_mut()).enumerate() {
            *out = match src {
                Source::Resource(None) => 0.0,
                Source::Resource(Some(sym)) => match job.resource(*sym) {
                    None => 0.0,
                    Some(ResourceValue::Number(v)) => {
                        if self.compat {
                            compat::resource(*v)
                        } else {
                            *v
                        }
                    }
                    Some(ResourceValue::Text(t)) => {
                        return Err(BindError::NotNumeric {
                            job: job.id.clone(),
                            resource: self.keywords.get(slot).cloned().unwrap_or_default(),
                            value: t.to_string(),
                        })
                    }
                },
                Source::QueuePriority => self
                    .queue_priority
                    .get(job.queue as usize)
                    .copied()
                    .unwrap_or(0.0),
                Source::JobPriority => job.priority as f64,
                Source::EligibleTime => {
                    if self.compat {
                        compat::integer(job.eligible_time)
                    } else {
                        job.eligible_time
                    }
                }
                Source::AccrueType => job.accrue_type as f64,
                Source::Share { by_node, .. } => {
                    node.and_then(|n| by_node.get(n).copied()).unwrap_or(0.0)
                }
            };
        }
        Ok(())
    }

    /// Binds every job.
    pub fn bind(&self, jobs: &JobSet) -> Result<Bound, BindError> {
        let width = self.sources.len();
        let mut slots = vec![0.0; jobs.len() * width];
        if width > 0 {
            for (i, row) in slots.chunks_exact_mut(width).enumerate() {
                self.bind_job(jobs, i, row)?;
            }
        }
        Ok(Bound { width, slots })
    }
}

/// Queue priorities from a map, for callers that have one.
pub fn priorities_from(map: &HashMap<String, i64>) -> impl Fn(&str) -> Option<i64> + '_ {
    move |q| map.get(q).copied()
}
