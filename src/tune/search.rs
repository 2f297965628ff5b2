//! The search: a grid, a Latin hypercube (random), or the optimiser — a Latin hypercube, then
//! argmin's Nelder–Mead from its best points (the restarts in parallel). Deterministic for a
//! seed: the points and their order do not depend on the number of cores.

use crate::tune::error::TuneError;
use crate::tune::eval::{Evaluation, Problem};
use crate::tune::goals::{Constraint, Goal};
use crate::tune::rng::Rng;
use argmin::core::{CostFunction, Error as ArgminError, Executor};
use argmin::solver::neldermead::NelderMead;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// How the space is searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Method {
    /// Every combination of evenly spaced levels (as many per parameter as the budget allows).
    Grid,
    /// A Latin hypercube of `budget` points (each parameter's range cut in `budget` strata,
    /// one point in each).
    Random,
    /// A Latin hypercube of part of the budget, then Nelder–Mead from its best points.
    Optimise,
}

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Method, String> {
        match s {
            "grid" => Ok(Method::Grid),
            "random" => Ok(Method::Random),
            "optimise" => Ok(Method::Optimise),
            _ => Err(format!(
                "unknown search `{s}` (expected grid, random or optimise)"
            )),
        }
    }
}

impl Method {
    /// Every method, in `--help` order.
    pub const ALL: [Method; 3] = [Method::Optimise, Method::Random, Method::Grid];

    /// Its name as `--search` writes it.
    pub fn name(self) -> &'static str {
        match self {
            Method::Grid => "grid",
            Method::Random => "random",
            Method::Optimise => "optimise",
        }
    }
}

/// What the search aims at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aim {
    /// The objective.
    pub objective: Goal,
    /// Maximise it instead of minimising (`--maximize`).
    pub maximise: bool,
    /// The constraints.
    pub constraints: Vec<Constraint>,
}

impl Aim {
    /// The objective's value as minimised.
    fn score(&self, e: &Evaluation) -> f64 {
        let v = e
            .objectives
            .get(&self.objective.name())
            .copied()
            .unwrap_or(f64::NAN);
        let v = if self.maximise { -v } else { v };
        if v.is_nan() {
            f64::INFINITY
        } else {
            v
        }
    }

    /// The constraints' total relative violation (0: feasible).
    pub fn violation(&self, e: &Evaluation) -> f64 {
        self.constraints
            .iter()
            .map(|c| {
                c.violation(
                    e.objectives
                        .get(&c.goal.name())
                        .copied()
                        .unwrap_or(f64::INFINITY),
                )
            })
            .sum()
    }

    /// Whether `a` is better than `b`: feasible before infeasible, then the objective, then the
    /// smaller violation.
    pub fn better(&self, a: &Evaluation, b: &Evaluation) -> bool {
        let (va, vb) = (self.violation(a), self.violation(b));
        match (va > 0.0, vb > 0.0) {
            (false, true) => true,
            (true, false) => false,
            (false, false) => self.score(a) < self.score(b),
            (true, true) => va < vb,
        }
    }

    /// One number for Nelder–Mead: the objective when feasible, else above every feasible
    /// value, growing with the violation.
    fn penalised(&self, e: &Evaluation) -> f64 {
        let v = self.violation(e);
        if v > 0.0 {
            1e15 * (1.0 + v)
        } else {
            self.score(e)
        }
    }

    /// The index of the best of `evals` (the first of equals).
    pub fn best(&self, evals: &[Evaluation]) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, e) in evals.iter().enumerate() {
            if best.is_none_or(|b| self.better(e, &evals[b])) {
                best = Some(i);
            }
        }
        best
    }
}

/// The unit points of a grid of at most `budget` points (at least 2 levels per parameter;
/// lexicographic order).
pub fn grid(dims: usize, budget: usize) -> Vec<Vec<f64>> {
    if dims == 0 || budget == 0 {
        return Vec::new();
    }
    let mut k = (budget as f64).powf(1.0 / dims as f64).floor().max(2.0) as usize;
    while k > 2 && k.checked_pow(dims as u32).is_none_or(|n| n > budget) {
        k -= 1;
    }
    let total = k.checked_pow(dims as u32).unwrap_or(usize::MAX).min(budget);
    (0..total)
        .map(|mut i| {
            let mut u = vec![0.0; dims];
            for x in u.iter_mut().rev() {
                *x = (i % k) as f64 / (k - 1) as f64;
                i /= k;
            }
            u
        })
        .collect()
}

/// `n` unit points of a Latin hypercube drawn from `rng`.
pub fn latin_hypercube(dims: usize, n: usize, rng: &mut Rng) -> Vec<Vec<f64>> {
    let mut points = vec![vec![0.0; dims]; n];
    for d in 0..dims {
        let mut strata: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            strata.swap(i, rng.below(i + 1));
        }
        for (p, s) in points.iter_mut().zip(strata) {
            p[d] = (s as f64 + rng.unit()) / n as f64;
        }
    }
    points
}

/// The points a non-adaptive search evaluates (values, in order): the grid or the hypercube.
/// The optimiser's first stage is the hypercube of [`first_stage`] points.
pub fn design(problem: &Problem, method: Method, budget: usize, seed: u64) -> Vec<Vec<f64>> {
    let dims = problem.space.dims();
    let units = match method {
        Method::Grid => grid(dims, budget),
        Method::Random => latin_hypercube(dims, budget, &mut Rng::new(seed)),
        Method::Optimise => latin_hypercube(dims, first_stage(dims, budget), &mut Rng::new(seed)),
    };
    units.iter().map(|u| problem.space.values(u)).collect()
}

/// Points of the optimiser's hypercube: 40 % of the budget, at least 2 per parameter + 2.
pub fn first_stage(dims: usize, budget: usize) -> usize {
    (budget * 2 / 5).max(2 * dims + 2).min(budget)
}

/// Nelder–Mead restarts after the hypercube (fixed, so results do not depend on the cores).
pub const RESTARTS: usize = 2;

/// The search's result: every evaluation in order and the best one.
#[derive(Debug, Clone)]
pub struct Found {
    /// Every point evaluated, in order.
    pub evaluations: Vec<Evaluation>,
    /// The index of the best.
    pub best: usize,
}

/// Searches `problem` for `aim` with `budget` replays at most.
pub fn search(
    problem: &Problem,
    aim: &Aim,
    method: Method,
    budget: usize,
    seed: u64,
) -> Result<Found, TuneError> {
    let first = design(problem, method, budget, seed);
    let mut evaluations = collect(problem.evaluate_all(first))?;
    if method == Method::Optimise {
        let left = budget.saturating_sub(evaluations.len());
        let starts = starts(aim, &evaluations, RESTARTS);
        let per = left / starts.len().max(1);
        if per > problem.space.dims() {
            let known: BTreeMap<Vec<u64>, Evaluation> = evaluations
                .iter()
                .map(|e| (key(&e.values), e.clone()))
                .collect();
            let runs = crate::parallel::run_parts(starts, |s| {
                nelder_mead(problem, aim, &evaluations[s].values, per, &known)
            });
            for r in runs {
                evaluations.extend(r?);
            }
        }
    }
    let best = aim
        .best(&evaluations)
        .ok_or_else(|| TuneError::Goal("the budget allows no evaluation".into()))?;
    Ok(Found { evaluations, best })
}

fn collect(rs: Vec<Result<Evaluation, TuneError>>) -> Result<Vec<Evaluation>, TuneError> {
    rs.into_iter().collect()
}

/// The indices of the `n` best distinct points of `evals`, best first.
fn starts(aim: &Aim, evals: &[Evaluation], n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..evals.len()).collect();
    order.sort_by(|&a, &b| {
        if aim.better(&evals[a], &evals[b]) {
            std::cmp::Ordering::Less
        } else if aim.better(&evals[b], &evals[a]) {
            std::cmp::Ordering::Greater
        } else {
            a.cmp(&b)
        }
    });
    let mut out: Vec<usize> = Vec::new();
    for i in order {
        if out.len() == n {
            break;
        }
        if out.iter().all(|&j| evals[j].values != evals[i].values) {
            out.push(i);
        }
    }
    out
}

/// A point's values as exact bits, to know a point already evaluated.
fn key(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// Nelder–Mead's cost: the penalised objective of the point the unit coordinates map to
/// (clamped to the cube and rounded as every point is); a point already evaluated is not
/// replayed again; past `cap` new replays it stops the solver.
struct Cost<'a> {
    problem: &'a Problem,
    aim: &'a Aim,
    known: &'a BTreeMap<Vec<u64>, Evaluation>,
    cap: usize,
    /// New evaluations in order, and their keys.
    new: Mutex<Fresh>,
}

/// A restart's new evaluations in order, and where each point's is.
type Fresh = (Vec<Evaluation>, BTreeMap<Vec<u64>, usize>);

/// The error that ends a restart whose budget is spent.
const SPENT: &str = "budget spent";

impl CostFunction for Cost<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, u: &Vec<f64>) -> Result<f64, ArgminError> {
        let values = self.problem.space.values(u);
        let k = key(&values);
        if let Some(e) = self.known.get(&k) {
            return Ok(self.aim.penalised(e));
        }
        let mut new = self
            .new
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(&i) = new.1.get(&k) {
            return Ok(self.aim.penalised(&new.0[i]));
        }
        if new.0.len() >= self.cap {
            return Err(ArgminError::msg(SPENT));
        }
        let e = self
            .problem
            .evaluate(&values)
            .map_err(|e| ArgminError::msg(e.to_string()))?;
        let c = self.aim.penalised(&e);
        let at = new.0.len();
        new.0.push(e);
        new.1.insert(k, at);
        Ok(c)
    }
}

/// One Nelder–Mead restart from `start` (values) with at most `cap` new replays: its new
/// evaluations in order.
fn nelder_mead(
    problem: &Problem,
    aim: &Aim,
    start: &[f64],
    cap: usize,
    known: &BTreeMap<Vec<u64>, Evaluation>,
) -> Result<Vec<Evaluation>, TuneError> {
    let x0 = problem.space.unit(start);
    // The first simplex: the start and a step of a quarter of each range, inward.
    let mut simplex = vec![x0.clone()];
    for d in 0..x0.len() {
        let mut x = x0.clone();
        x[d] = if x[d] + 0.25 <= 1.0 {
            x[d] + 0.25
        } else {
            x[d] - 0.25
        };
        simplex.push(x);
    }
    let cost = Cost {
        problem,
        aim,
        known,
        cap,
        new: Mutex::new((Vec::new(), BTreeMap::new())),
    };
    let solver = NelderMead::new(simplex)
        .with_sd_tolerance(1e-9)
        .map_err(|e| TuneError::Goal(e.to_string()))?;
    let status = match Executor::new(&cost, solver)
        .configure(|s| s.max_iters(cap as u64 * 4))
        .run()
    {
        Ok(_) => Ok(()),
        Err(e) if format!("{e:#}").contains(SPENT) => Ok(()),
        Err(e) => Err(TuneError::Goal(format!("the optimiser: {e}"))),
    };
    status?;
    let (evals, _) = cost
        .new
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Ok(evals)
}

impl CostFunction for &Cost<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, u: &Vec<f64>) -> Result<f64, ArgminError> {
        (*self).cost(u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_fit_the_budget() {
        let g = grid(2, 30);
        assert_eq!(g.len(), 25);
        assert_eq!(g[0], vec![0.0, 0.0]);
        assert_eq!(g[1], vec![0.0, 0.25]);
        assert_eq!(g[24], vec![1.0, 1.0]);
        assert_eq!(grid(3, 8).len(), 8);
        assert_eq!(grid(4, 10).len(), 10);
        assert_eq!(grid(1, 5).len(), 5);
    }

    #[test]
    fn a_latin_hypercube_has_one_point_per_stratum() {
        let mut r = Rng::new(3);
        let pts = latin_hypercube(3, 10, &mut r);
        for d in 0..3 {
            let mut strata: Vec<usize> = pts.iter().map(|p| (p[d] * 10.0) as usize).collect();
            strata.sort();
            assert_eq!(strata, (0..10).collect::<Vec<_>>());
        }
        let again = latin_hypercube(3, 10, &mut Rng::new(3));
        assert_eq!(pts, again);
    }
}
