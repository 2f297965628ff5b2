//! One evaluation of the search: a point of the space bound to the policy (the template's
//! formula, slurm.conf's weights or flux-accounting's factor weights, the half-life), replayed
//! on every trace, each goal measured and averaged over the traces.

use crate::flux::priority::Site as FluxSite;
use crate::formula::{compile, ResourceTable};
use crate::replay::{
    replay, replay_flux, replay_slurm, summarize, Decay, FluxPolicy, Options, Report, SlurmPolicy,
    Trace,
};
use crate::slurm::conf::SlurmConf;
use crate::tune::error::TuneError;
use crate::tune::goals::{Goal, Measured, METRICS};
use crate::tune::space::Space;
use crate::tune::template::Template;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One trace and how it is replayed (its cluster, backfill, tree, decay).
#[derive(Debug, Clone)]
pub struct Case {
    /// The jobs.
    pub trace: Trace,
    /// The replay's settings; a `half_life` parameter replaces `half_life`.
    pub opts: Options,
}

/// What a point's values are bound to.
#[derive(Debug, Clone)]
pub enum Policy {
    /// A `job_sort_formula` template.
    Formula(Template),
    /// Slurm's multifactor priority under this slurm.conf and QOS priorities.
    Slurm {
        /// slurm.conf (its `PriorityWeight*`, `PriorityMaxAge` and `PriorityDecayHalfLife` may
        /// be parameters).
        conf: SlurmConf,
        /// `sacctmgr show qos` priorities.
        qos: BTreeMap<String, u32>,
    },
    /// flux-accounting's priority under this site (its factor weights may be parameters).
    Flux(FluxSite),
}

/// The slurm.conf settings a parameter may name.
pub const SLURM_KNOBS: [&str; 8] = [
    "PriorityWeightFairshare",
    "PriorityWeightAge",
    "PriorityWeightJobSize",
    "PriorityWeightPartition",
    "PriorityWeightQOS",
    "PriorityWeightAssoc",
    "PriorityMaxAge",
    "PriorityDecayHalfLife",
];

/// flux-accounting's priority factors (`flux account edit-factor --factor=NAME`).
pub const FLUX_FACTORS: [&str; 4] = ["fairshare", "queue", "bank", "urgency"];

/// The parameter name that sets the usage half-life (seconds) of a formula's replay.
pub const HALF_LIFE: &str = "half_life";

/// What one parameter sets.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Role {
    Template,
    HalfLife,
    Slurm(usize),
    Flux(usize),
}

/// A point's figures: the parameters' values and every goal's value, averaged over the traces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// The values, in the space's order.
    pub values: Vec<f64>,
    /// Goal name → value (the mean over the traces).
    pub objectives: BTreeMap<String, f64>,
}

/// The search problem: the traces, the policy, the space and the goals measured.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The traces.
    pub cases: Vec<Case>,
    /// The policy the parameters are bound to.
    pub policy: Policy,
    /// The parameters.
    pub space: Space,
    /// Every goal measured at each point (the standard ones first).
    pub goals: Vec<Goal>,
    roles: Vec<Role>,
}

impl Problem {
    /// A problem measuring every standard metric and the `extra` goals. Each parameter must
    /// set something: a name of the template, `half_life`, a slurm.conf weight (with
    /// `Policy::Slurm`) or a flux factor (with `Policy::Flux`).
    pub fn new(
        cases: Vec<Case>,
        policy: Policy,
        space: Space,
        extra: &[Goal],
    ) -> Result<Problem, TuneError> {
        let mut roles = Vec::new();
        for (k, p) in space.params.iter().enumerate() {
            let bad = |why: String| TuneError::Param {
                spec: p.name.clone(),
                why,
            };
            let role = match &policy {
                _ if p.name == HALF_LIFE => Role::HalfLife,
                Policy::Formula(t) if t.uses(k) => Role::Template,
                Policy::Formula(t) => {
                    return Err(bad(format!(
                        "the template `{}` has no name `{}` (nor is it `{HALF_LIFE}`)",
                        t.text, p.name
                    )))
                }
                Policy::Slurm { conf, .. } => match SLURM_KNOBS.iter().position(|n| *n == p.name) {
                    Some(i) => {
                        if i < 2 && !conf.with_slurmdbd() {
                            return Err(bad("slurm.conf has no AccountingStorageType=accounting_storage/slurmdbd, so Slurm takes this weight as 0".into()));
                        }
                        Role::Slurm(i)
                    }
                    None => {
                        return Err(bad(format!(
                            "with --slurm-conf a parameter is one of {} or {HALF_LIFE}",
                            SLURM_KNOBS.join(", ")
                        )))
                    }
                },
                Policy::Flux(_) => match FLUX_FACTORS.iter().position(|n| *n == p.name) {
                    Some(i) => Role::Flux(i),
                    None => {
                        return Err(bad(format!(
                            "with --flux-db a parameter is a factor weight: {} (or {HALF_LIFE})",
                            FLUX_FACTORS.join(", ")
                        )))
                    }
                },
            };
            if matches!(role, Role::HalfLife | Role::Slurm(7)) {
                if p.lo <= 0.0 {
                    return Err(bad("a half-life must be positive".into()));
                }
                if cases.iter().any(|c| c.opts.decay != Decay::Continuous) {
                    return Err(bad("a half-life parameter needs --decay continuous".into()));
                }
            }
            roles.push(role);
        }
        if cases.is_empty() {
            return Err(TuneError::Goal("give at least one --trace".into()));
        }
        let mut goals: Vec<Goal> = METRICS
            .iter()
            .map(|(m, _)| Goal {
                metric: *m,
                account: None,
            })
            .collect();
        for g in extra {
            if !goals.contains(g) {
                goals.push(g.clone());
            }
        }
        let problem = Problem {
            cases,
            policy,
            space,
            goals,
            roles,
        };
        // A formula that does not compile fails here, once, not at every point.
        problem.bound(&problem.space.lower())?;
        Ok(problem)
    }

    /// The formula of `values` (formula policies), the string the ready change sets.
    pub fn formula(&self, values: &[f64]) -> Option<String> {
        match &self.policy {
            Policy::Formula(t) => Some(t.bind(values)),
            _ => None,
        }
    }

    /// The policy with `values` bound, for each case's replay.
    fn bound(&self, values: &[f64]) -> Result<Bound, TuneError> {
        let mut half_life = None;
        for (role, &v) in self.roles.iter().zip(values) {
            match role {
                Role::HalfLife | Role::Slurm(7) => half_life = Some(v),
                _ => {}
            }
        }
        let int = |v: f64| v.round().clamp(0.0, f64::from(u32::MAX)) as u32;
        let bound = match &self.policy {
            Policy::Formula(t) => {
                let f = t.bind(values);
                let p =
                    compile(&f, &ResourceTable::builtin()).map_err(|e| TuneError::Template {
                        formula: f.clone(),
                        why: e.to_string(),
                    })?;
                BoundPolicy::Formula(p)
            }
            Policy::Slurm { conf, qos } => {
                let mut conf = conf.clone();
                for (role, &v) in self.roles.iter().zip(values) {
                    if let Role::Slurm(i) = role {
                        let slot = match i {
                            0 => &mut conf.weight_fairshare,
                            1 => &mut conf.weight_age,
                            2 => &mut conf.weight_jobsize,
                            3 => &mut conf.weight_partition,
                            4 => &mut conf.weight_qos,
                            5 => &mut conf.weight_assoc,
                            6 => &mut conf.max_age,
                            _ => &mut conf.decay_half_life,
                        };
                        *slot = int(v);
                    }
                }
                if half_life.is_none() {
                    half_life = Some(match conf.decay_half_life {
                        0 => f64::MAX,
                        h => f64::from(h),
                    });
                }
                BoundPolicy::Slurm(conf, qos.clone())
            }
            Policy::Flux(site) => {
                let mut site = site.clone();
                for (role, &v) in self.roles.iter().zip(values) {
                    if let Role::Flux(i) = role {
                        let w = v.round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
                        site.weights.set_factor(FLUX_FACTORS[*i], w);
                    }
                }
                BoundPolicy::Flux(site)
            }
        };
        Ok(Bound {
            policy: bound,
            half_life,
        })
    }

    /// Replays `values` on every case: the reports, one per trace.
    pub fn reports(&self, values: &[f64]) -> Result<Vec<(Measured, Report)>, TuneError> {
        let bound = self.bound(values)?;
        let mut out = Vec::with_capacity(self.cases.len());
        for case in &self.cases {
            let mut opts = case.opts.clone();
            if let Some(h) = bound.half_life {
                opts.half_life = h;
            }
            let outcome = match &bound.policy {
                BoundPolicy::Formula(p) => replay(&case.trace, p, &opts)?,
                BoundPolicy::Slurm(conf, qos) => {
                    let policy = SlurmPolicy::new(conf.clone(), qos.clone(), opts.cluster)?;
                    replay_slurm(&case.trace, &policy, &opts, &mut ())?
                }
                BoundPolicy::Flux(site) => {
                    let policy = FluxPolicy::new(site, &case.trace);
                    replay_flux(&case.trace, &policy, &opts, &mut ())?
                }
            };
            let report = summarize(&case.trace, &outcome, opts.cluster);
            out.push((Measured::new(&case.trace, &outcome, report.clone()), report));
        }
        Ok(out)
    }

    /// Evaluates `values`: every goal, averaged over the traces.
    pub fn evaluate(&self, values: &[f64]) -> Result<Evaluation, TuneError> {
        let reports = self.reports(values)?;
        self.measure(values, &reports)
    }

    /// The evaluation of `values` from its replays' reports.
    pub fn measure(
        &self,
        values: &[f64],
        reports: &[(Measured, Report)],
    ) -> Result<Evaluation, TuneError> {
        let mut objectives = BTreeMap::new();
        let n = reports.len().max(1) as f64;
        for g in &self.goals {
            let mut sum = 0.0;
            for (m, _) in reports {
                sum += g.value(m)?;
            }
            objectives.insert(g.name(), sum / n);
        }
        Ok(Evaluation {
            values: values.to_vec(),
            objectives,
        })
    }

    /// Evaluates every point of `points` (values), in parallel on all cores; results in order.
    pub fn evaluate_all(&self, points: Vec<Vec<f64>>) -> Vec<Result<Evaluation, TuneError>> {
        crate::parallel::run_parts(points, |v| self.evaluate(&v))
    }
}

/// A policy with a point's values bound, and the half-life they set (if any).
struct Bound {
    policy: BoundPolicy,
    half_life: Option<f64>,
}

enum BoundPolicy {
    Formula(crate::formula::Program),
    Slurm(SlurmConf, BTreeMap<String, u32>),
    Flux(FluxSite),
}
