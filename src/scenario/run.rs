//! Running a Scenario: compile its formula, order its queue (the dry run), explain one job,
//! and compare two formulas — what `order`, `--explain` and `--against` show.

use crate::fairshare;
use crate::fairshare::explain::Explanation;
use crate::formula;
use crate::formula::Program;
use crate::jobs::EntityName;
use crate::order::compare::{compare, Comparison as RankComparison};
use crate::order::dry_run::{
    dry_run_with, order_options, prepare_shares, prepare_shares_with, DryRun,
};
use crate::order::{explain_job, JobExplanation, ShareEngine, SortFormula};
use crate::scenario::{Scenario, ScenarioError};
use serde::Serialize;

const ENGINE: ShareEngine = ShareEngine {
    compute: &fairshare::compute,
    path_order: Some(&fairshare::path_order::prepare),
};

/// One additive term's value for the explained job.
#[derive(Debug, Clone, Serialize)]
pub struct TermValue {
    /// `+ term` or `- term`.
    pub term: String,
    /// The term's signed value.
    pub value: f64,
    /// Python's error, when the term failed.
    pub error: Option<String>,
}

/// Why one job stands where it does: bound keywords, terms, its entity's fair share.
#[derive(Debug, Clone)]
pub struct OrderExplanation {
    /// Rank, value, bound keywords and the next job.
    pub job: JobExplanation,
    /// Each additive term of the formula on the job's keywords.
    pub terms: Vec<TermValue>,
    /// The job's fair-share entity.
    pub entity: String,
    /// The entity's fair share under the Scenario's algorithm (`None`: no tree, or not in it).
    pub fair_share: Option<Explanation>,
}

/// One job under two formulas.
#[derive(Debug, Clone, Serialize)]
pub struct AgainstRow {
    /// Job id.
    pub id: String,
    /// Owner.
    pub owner: String,
    /// The job's queue.
    pub queue: String,
    /// Status under the current formula (eligible, running, held, below the threshold, and
    /// the evaluation error if any), as `fairsort order` prints it.
    pub status: String,
    /// Rank under the current formula.
    pub rank: u32,
    /// Rank under the other.
    pub rank_against: u32,
    /// Places moved (+ = earlier under the other).
    pub moved: i64,
    /// Value under the current formula.
    pub value: f64,
    /// Value under the other.
    pub value_against: f64,
}

/// Two formulas over the same queue: every job (in current order) and the biggest movers.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// Every job, current order.
    pub rows: Vec<AgainstRow>,
    /// The biggest movers.
    pub movers: Vec<AgainstRow>,
    /// Spearman's rank correlation.
    pub spearman: Option<f64>,
    /// Kendall's tau.
    pub kendall: Option<f64>,
    /// How many jobs were compared.
    pub total: usize,
}

impl Scenario {
    /// The formula's source: the given one, else an error saying where to set one.
    pub fn formula_source(&self) -> Result<&str, ScenarioError> {
        self.formula.as_deref().ok_or_else(|| {
            ScenarioError::Request(
                "no formula: give --formula, or set job_sort_formula with `fairsort qmgr`".into(),
            )
        })
    }

    /// Compiles `src` against the Scenario's resources (the error rendered with its caret).
    pub fn compile(&self, src: &str) -> Result<Program, ScenarioError> {
        formula::compile(src, &self.resources).map_err(|e| ScenarioError::Input(e.render(src)))
    }

    /// The dry run: bind every job, evaluate `program`, sort, apply the threshold. `others`
    /// are formulas that will be run on the same fair-share values (`--against`).
    pub fn order(&self, program: &Program, others: &[&Program]) -> Result<DryRun, ScenarioError> {
        let mut all: Vec<&dyn SortFormula> = vec![program];
        all.extend(others.iter().map(|p| *p as &dyn SortFormula));
        let shares = prepare_shares(&self.setup, &all, &ENGINE).map_err(ScenarioError::input)?;
        let options = order_options(&self.setup, shares.as_ref(), &ENGINE);
        dry_run_with(&self.setup, program, shares, options).map_err(ScenarioError::input)
    }

    /// [`Scenario::order`] moving the Scenario's share tree into the result (`DryRun::shares`)
    /// instead of copying it: for a caller that runs one order (the command line). Afterwards
    /// the Scenario has no tree. With `top`, only the first `top` jobs are ranked (every job
    /// is still bound, evaluated and counted in the order's summary; the rest are not sorted).
    pub fn order_once(
        &mut self,
        program: &Program,
        top: Option<usize>,
    ) -> Result<DryRun, ScenarioError> {
        if let Some(lazy) = self.lazy_tree.take() {
            if let Some(run) = self.order_part(&lazy, program, top)? {
                return Ok(run);
            }
            self.setup.tree = Some(lazy.into_tree().map_err(ScenarioError::input)?);
        }
        let tree = self.setup.tree.take();
        let all: [&dyn SortFormula; 1] = [program];
        let shares =
            prepare_shares_with(&self.setup, tree, &all, &ENGINE).map_err(ScenarioError::input)?;
        let mut options = order_options(&self.setup, shares.as_ref(), &ENGINE);
        options.top = top;
        dry_run_with(&self.setup, program, shares, options).map_err(ScenarioError::input)
    }

    /// Dry runs of `current` and of `against` on the same fair-share values and ordering
    /// options (what `--against` and a formula test's `[[compare]]` compare).
    pub(crate) fn order_against(
        &self,
        current: &Program,
        against: &Program,
    ) -> Result<(DryRun, DryRun), ScenarioError> {
        let a = self.order(current, &[against])?;
        let b = dry_run_with(&self.setup, against, a.shares.clone(), a.options.clone())
            .map_err(ScenarioError::input)?;
        Ok((a, b))
    }

    /// Explains job `id` of a dry run of `program`.
    pub fn explain(
        &self,
        program: &Program,
        run: &DryRun,
        id: &str,
    ) -> Result<OrderExplanation, ScenarioError> {
        let jobs = &self.setup.jobs;
        let missing = || ScenarioError::Input(format!("no job `{id}` in the queue"));
        let idx = jobs.find(id).ok_or_else(missing)?;
        let job = explain_job(
            jobs,
            &run.binder,
            program.keywords(),
            &run.order,
            &run.options,
            idx,
        )
        .map_err(ScenarioError::input)?
        .ok_or_else(missing)?;
        let terms = formula::additive_terms(program.source(), &self.resources)
            .map_err(ScenarioError::input)?;
        let mut slots = Vec::new();
        let terms = terms
            .iter()
            .map(|t| {
                slots.clear();
                for k in t.program.keywords() {
                    let v = job
                        .keywords
                        .iter()
                        .find(|b| &b.keyword == k)
                        .map(|b| b.value)
                        .unwrap_or(0.0);
                    slots.push(v);
                }
                let ev = t.program.eval(&slots);
                TermValue {
                    term: format!("{}{}", if t.sign < 0.0 { "- " } else { "+ " }, t.text),
                    value: t.sign * ev.value,
                    error: ev.error,
                }
            })
            .collect();
        let fair_share = run.shares.as_ref().and_then(|ctx| {
            let node = ctx.job_nodes.get(idx).copied().flatten()?;
            let alg = ctx.result(self.algorithm).or_else(|| ctx.results.first())?;
            Some(fairshare::explain::explain(&ctx.tree, alg, node))
        });
        let entity = jobs
            .jobs
            .get(idx)
            .map(|j| self.setup.entity.name_of(jobs, j))
            .unwrap_or_default();
        Ok(OrderExplanation {
            job,
            terms,
            entity,
            fair_share,
        })
    }

    /// Orders the queue under `current` and under `against` (same fair-share values) and
    /// compares: rows in current order (the first `top`), the `movers` biggest movers.
    pub fn compare(
        &self,
        current: &Program,
        against: &Program,
        top: Option<usize>,
        movers: usize,
    ) -> Result<Comparison, ScenarioError> {
        let (mut a, mut b) = self.order_against(current, against)?;
        // A PBS site compares the orders its pbs_sched would consider the jobs in.
        for run in [&mut a, &mut b] {
            if let Some(c) = self.cycle_order(run, true)? {
                crate::scenario::cycle::apply_cycle(run, &c.order, None);
            }
        }
        let cmp: RankComparison = compare(&a.order, &b.order);
        let jobs = &self.setup.jobs;
        let values = |run: &DryRun| {
            let mut v = vec![0.0; jobs.len()];
            for r in &run.order.ranked {
                if let Some(s) = v.get_mut(r.job as usize) {
                    *s = r.value;
                }
            }
            v
        };
        let (a_values, b_values) = (values(&a), values(&b));
        let mut a_pos = vec![usize::MAX; jobs.len()];
        for (i, r) in a.order.ranked.iter().enumerate() {
            if let Some(p) = a_pos.get_mut(r.job as usize) {
                *p = i;
            }
        }
        let make = |m: &crate::order::Move| {
            let job = jobs.jobs.get(m.job as usize);
            let status = a_pos
                .get(m.job as usize)
                .and_then(|&i| a.order.ranked.get(i))
                .map(|r| crate::order::report::status_text(jobs, &a.order, r))
                .unwrap_or_default();
            AgainstRow {
                id: job.map(|x| x.id.to_string()).unwrap_or_default(),
                owner: job.map(|x| jobs.user(x).to_string()).unwrap_or_default(),
                queue: job.map(|x| jobs.queue(x).to_string()).unwrap_or_default(),
                status,
                rank: m.rank_a,
                rank_against: m.rank_b,
                moved: m.delta(),
                value: a_values.get(m.job as usize).copied().unwrap_or(0.0),
                value_against: b_values.get(m.job as usize).copied().unwrap_or(0.0),
            }
        };
        Ok(Comparison {
            rows: cmp
                .moves
                .iter()
                .take(top.unwrap_or(usize::MAX))
                .map(make)
                .collect(),
            movers: cmp.biggest_movers(movers).iter().map(make).collect(),
            spearman: cmp.spearman,
            kendall: cmp.kendall,
            total: cmp.moves.len(),
        })
    }
}
