//! The binder: each keyword of the formula is resolved once to a source (a resource column, a
//! job attribute, a queue's priority, a fair-share value of the job's entity); binding a job then
//! fills its slot vector with no string look-ups. Units are PBS's (KB, seconds); an unrequested
//! resource is 0; `--pbs-compat` applies PBS's text rounding.

use crate::fairshare::{keyword_source, Algorithm, NodeId, ShareResult};
use crate::jobs::error::BindError;
use crate::jobs::job::ResourceValue;
use crate::jobs::job_set::JobSet;
use crate::jobs::names::Sym;
use crate::order::compat;
use crate::order::shares::ShareContext;
use crate::pbs::defs::Keyword;
use std::borrow::Cow;
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

/// `Binder::job_nodes` for a job without an entity node.
const NO_NODE: u32 = u32::MAX;

/// A formula's keywords resolved against a job set.
#[derive(Debug, Clone)]
pub struct Binder {
    keywords: Vec<String>,
    sources: Vec<Source>,
    /// Priority per queue symbol.
    queue_priority: Vec<f64>,
    /// Each job's entity node as a `u32` (`NO_NODE`: none; empty without a share tree): a
    /// quarter of the memory of `Option<NodeId>`, gathered once per bind.
    job_nodes: Vec<u32>,
    compat: bool,
}

/// Slot values of every job, one column per slot (job index order). Resource columns are
/// borrowed from the `JobSet`; the others are gathered once per bind.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound<'a> {
    /// Number of jobs.
    pub jobs: usize,
    /// One column per slot.
    pub columns: Vec<Cow<'a, [f64]>>,
}

impl Bound<'_> {
    /// Number of slots per job.
    pub fn width(&self) -> usize {
        self.columns.len()
    }

    /// Copies job `i`'s slot values into `out` (one per slot).
    pub fn row_into(&self, i: usize, out: &mut [f64]) {
        for (o, c) in out.iter_mut().zip(&self.columns) {
            *o = c.get(i).copied().unwrap_or(0.0);
        }
    }
}

/// A fair-share keyword the formula uses while no share tree was given, or whose algorithm
/// result is missing; or a Slurm multifactor factor (`age_factor`, ...) outside a Slurm site.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", self.message())]
pub struct MissingShares {
    /// The keyword.
    pub keyword: String,
    /// The algorithm it needs (`None`: a Slurm factor, which needs a Slurm site).
    pub algorithm: Option<Algorithm>,
}

impl MissingShares {
    fn message(&self) -> String {
        match self.algorithm {
            Some(a) => format!(
                "the formula uses `{}`, which needs a share tree with the {a} algorithm's values",
                self.keyword
            ),
            None => format!(
                "the formula uses `{}`, a Slurm multifactor factor: it needs a Slurm site \
                 (--slurm-conf, or a home with a Slurm configuration from `fairsort slurm import`)",
                self.keyword
            ),
        }
    }
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
            let src = match k.parse::<Keyword>() {
                Ok(Keyword::QueuePriority) => Source::QueuePriority,
                Ok(Keyword::JobPriority) => Source::JobPriority,
                Ok(Keyword::EligibleTime) => Source::EligibleTime,
                Ok(Keyword::AccrueType) => Source::AccrueType,
                // Slurm's factors are bound per (job, partition) by `slurm_bind`, never here.
                Ok(kw) if kw.is_slurm() => {
                    return Err(MissingShares {
                        keyword: k.to_string(),
                        algorithm: None,
                    })
                }
                _ => match keyword_source(k) {
                    Some((algorithm, get)) => {
                        let result = shares.and_then(|s| s.result(algorithm)).ok_or_else(|| {
                            MissingShares {
                                keyword: k.to_string(),
                                algorithm: Some(algorithm),
                            }
                        })?;
                        Source::Share {
                            algorithm,
                            by_node: share_column(k, result, get, pbs_compat),
                        }
                    }
                    None => Source::Resource(jobs.resources.get(k)),
                },
            };
            sources.push(src);
        }
        let queue_priority = queue_priorities(&sources, jobs, queue_priority);
        Ok(Binder {
            keywords: keywords.to_vec(),
            sources,
            queue_priority,
            job_nodes: shares
                .map(|s| {
                    crate::parallel::map_slice(&s.job_nodes, |_, n| {
                        n.and_then(|n| u32::try_from(n).ok()).unwrap_or(NO_NODE)
                    })
                })
                .unwrap_or_default(),
            compat: pbs_compat,
        })
    }

    /// Job `i`'s entity node.
    pub(crate) fn node(&self, i: usize) -> Option<NodeId> {
        match self.job_nodes.get(i) {
            Some(&n) if n != NO_NODE => Some(n as NodeId),
            _ => None,
        }
    }

    /// The sources, in slot order.
    pub(crate) fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Fills `out` (one value per keyword) for job `i` of `jobs`.
    pub(crate) fn bind_job(
        &self,
        jobs: &JobSet,
        i: usize,
        out: &mut [f64],
    ) -> Result<(), BindError> {
        let Some(job) = jobs.jobs.get(i) else {
            return Ok(());
        };
        let node = self.node(i);
        for (slot, (src, out)) in self.sources.iter().zip(out.iter_mut()).enumerate() {
            *out = match src {
                Source::Resource(None) => 0.0,
                Source::Resource(Some(sym)) => match jobs.resource(job, *sym) {
                    None => 0.0,
                    Some(ResourceValue::Number(v)) => self.resource_value(v),
                    Some(text) => {
                        return Err(self.not_numeric(&job.id, slot, jobs.text(text)));
                    }
                },
                Source::QueuePriority => self
                    .queue_priority
                    .get(job.queue as usize)
                    .copied()
                    .unwrap_or(0.0),
                Source::JobPriority => job.priority as f64,
                Source::EligibleTime => self.eligible(job.eligible_time),
                Source::AccrueType => job.accrue_type as f64,
                Source::Share { by_node, .. } => {
                    node.and_then(|n| by_node.get(n).copied()).unwrap_or(0.0)
                }
            };
        }
        Ok(())
    }

    /// The priority of queue `q` (a name symbol; 0 when unset).
    pub(crate) fn queue_priority_of(&self, q: Sym) -> f64 {
        self.queue_priority.get(q as usize).copied().unwrap_or(0.0)
    }

    /// A resource's bound value (PBS's text rounding with `--pbs-compat`).
    pub(crate) fn resource_value(&self, v: f64) -> f64 {
        if self.compat {
            compat::resource(v)
        } else {
            v
        }
    }

    /// `eligible_time`'s bound value (truncated with `--pbs-compat`).
    pub(crate) fn eligible(&self, v: f64) -> f64 {
        if self.compat {
            compat::integer(v)
        } else {
            v
        }
    }

    /// The error for a text value in a resource the formula uses (slot `slot`).
    pub(crate) fn not_numeric(&self, job: &str, slot: usize, text: &str) -> BindError {
        BindError::NotNumeric {
            job: job.to_string(),
            resource: self.keywords.get(slot).cloned().unwrap_or_default(),
            value: text.to_string(),
        }
    }

    /// Binds every job: one column per slot, gathered from the jobs' column view. (`order`
    /// binds through `order_pass` instead, without whole columns.)
    pub fn bind<'a>(&self, jobs: &'a JobSet) -> Result<Bound<'a>, BindError> {
        let n = jobs.len();
        let cols = jobs.build_columns();
        let mut columns: Vec<Cow<'a, [f64]>> = Vec::with_capacity(self.sources.len());
        for (slot, src) in self.sources.iter().enumerate() {
            let col: Cow<'a, [f64]> = match src {
                Source::Resource(None) => Cow::Owned(vec![0.0; n]),
                Source::Resource(Some(sym)) => {
                    let Some(rc) = cols.resources.get(*sym as usize) else {
                        columns.push(Cow::Owned(vec![0.0; n]));
                        continue;
                    };
                    if let Some((j, text)) = &rc.first_text {
                        let id = jobs
                            .jobs
                            .get(*j as usize)
                            .map(|x| x.id.as_str())
                            .unwrap_or("");
                        return Err(self.not_numeric(id, slot, text));
                    }
                    Cow::Owned(rc.values.iter().map(|v| self.resource_value(*v)).collect())
                }
                Source::QueuePriority => Cow::Owned(
                    cols.queue
                        .iter()
                        .map(|q| self.queue_priority.get(*q as usize).copied().unwrap_or(0.0))
                        .collect(),
                ),
                Source::JobPriority => Cow::Owned(cols.priority.clone()),
                Source::EligibleTime if !self.compat => Cow::Owned(cols.eligible_time.clone()),
                Source::EligibleTime => Cow::Owned(
                    cols.eligible_time
                        .iter()
                        .map(|v| self.eligible(*v))
                        .collect(),
                ),
                Source::AccrueType => Cow::Owned(cols.accrue_type.clone()),
                Source::Share { by_node, .. } => Cow::Owned(if self.job_nodes.len() == n {
                    (self.job_nodes.iter())
                        .map(|&node| by_node.get(node as usize).copied().unwrap_or(0.0))
                        .collect()
                } else {
                    (0..n)
                        .map(|i| {
                            self.node(i)
                                .and_then(|node| by_node.get(node).copied())
                                .unwrap_or(0.0)
                        })
                        .collect()
                }),
            };
            columns.push(col);
        }
        Ok(Bound { jobs: n, columns })
    }
}

/// Priority per name symbol, for a formula that reads `queue_priority` (empty otherwise): every
/// name of the pool is looked up — a few hundred thousand look-ups in a map of a few queues,
/// instead of a pass over every job's record for its queue. Names that are no queue get a value
/// no job reads.
fn queue_priorities(
    sources: &[Source],
    jobs: &JobSet,
    queue_priority: &dyn Fn(&str) -> Option<i64>,
) -> Vec<f64> {
    if !sources.contains(&Source::QueuePriority) {
        return Vec::new();
    }
    (0..jobs.names.len())
        .map(|s| queue_priority(jobs.names.name(s as Sym)).unwrap_or(0) as f64)
        .collect()
}

/// Queue priorities from a map, for callers that have one.
pub fn priorities_from(map: &HashMap<String, i64>) -> impl Fn(&str) -> Option<i64> + '_ {
    move |q| map.get(q).copied()
}
