//! What-if on a Slurm site: the priority rows (one per job and partition) ordered by sprio's
//! priority or by a formula over the multifactor keywords ([`crate::slurm::bind`]), and two such
//! orders compared with the same measures as PBS's `--against` ([`crate::order::compare`]).

use crate::order::compare::{compare, Comparison};
use crate::order::formula_api::SortFormula;
use crate::order::sort::{QueueOrder, Ranked, Summary};
use crate::slurm::bind::{bind, SlurmBindError};
use crate::slurm::multifactor::{PriorityRow, Site};
use crate::slurm::squeue::SlurmJob;
use std::collections::HashMap;

/// One value per row, and the evaluation errors (row → Python's message; the value is then 0,
/// as PBS uses it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowValues {
    /// Value per row.
    pub values: Vec<f64>,
    /// Evaluation errors by row.
    pub errors: HashMap<u32, String>,
}

/// sprio's PRIORITY of each row, as values.
pub fn priorities(rows: &[PriorityRow]) -> RowValues {
    RowValues {
        values: rows.iter().map(|r| r.priority as f64).collect(),
        errors: HashMap::new(),
    }
}

/// The formula's value for every row.
pub fn evaluate(
    formula: &dyn SortFormula,
    site: &Site,
    jobs: &[SlurmJob],
    rows: &[PriorityRow],
) -> Result<RowValues, SlurmBindError> {
    let slots = bind(formula.keywords(), site, jobs, rows)?;
    let mut values = vec![0.0; rows.len()];
    let errors = formula
        .evaluate_rows(&slots, &mut values)
        .into_iter()
        .map(|(r, e)| (r as u32, e))
        .collect();
    Ok(RowValues { values, errors })
}

/// The rows in the order Slurm's scheduler would consider them for these values: value
/// descending (NaN last), then submit time, then job id (slurm.conf.5's order after priority);
/// `Ranked::job` is the row index.
pub fn order(values: &RowValues, rows: &[PriorityRow], jobs: &[SlurmJob]) -> QueueOrder {
    let key = |i: usize| {
        let r = &rows[i];
        let submit = jobs.get(r.job).map_or(i64::MAX, |j| j.submit_time);
        (submit, job_number(&r.id), i)
    };
    let v = |i: usize| values.values.get(i).copied().unwrap_or(0.0);
    let mut idx: Vec<usize> = (0..rows.len()).collect();
    idx.sort_by(|&a, &b| {
        let (va, vb) = (v(a), v(b));
        match (va.is_nan(), vb.is_nan()) {
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            _ => vb.partial_cmp(&va).unwrap_or(std::cmp::Ordering::Equal),
        }
        .then_with(|| key(a).cmp(&key(b)))
    });
    QueueOrder {
        ranked: idx
            .into_iter()
            .map(|i| Ranked {
                job: i as u32,
                value: v(i),
                eligible: true,
                below_threshold: false,
            })
            .collect(),
        errors: values.errors.clone(),
        held: Default::default(),
        summary: Summary {
            total: rows.len(),
            eligible: rows.len(),
            below_threshold: 0,
        },
    }
}

fn job_number(id: &str) -> u64 {
    let digits = id.bytes().take_while(u8::is_ascii_digit).count();
    id[..digits].parse().unwrap_or(u64::MAX)
}

/// One row under both orders.
#[derive(Debug, Clone, PartialEq)]
pub struct WhatIfRow {
    /// Index of the priority row.
    pub row: usize,
    /// Rank (1-based) under the current values.
    pub rank: u32,
    /// Rank under the other values.
    pub rank_against: u32,
    /// Places moved (+ = earlier under the other).
    pub moved: i64,
    /// Current value.
    pub value: f64,
    /// Other value.
    pub value_against: f64,
    /// Evaluation error under the current formula (value 0 used), if any.
    pub error: Option<String>,
}

/// Two orders of the same rows: every row in current order with both ranks, the biggest
/// movers, and how alike the orders are.
#[derive(Debug, Clone, PartialEq)]
pub struct WhatIf {
    /// Every row, current order.
    pub rows: Vec<WhatIfRow>,
    /// The rows that move most (at most the number asked for; unmoved rows left out).
    pub movers: Vec<WhatIfRow>,
    /// Spearman's rho (`None` under two rows).
    pub spearman: Option<f64>,
    /// Kendall's tau (`None` under two rows).
    pub kendall: Option<f64>,
}

/// Compares the orders of `a` and `b` over the same rows (see [`compare`]).
pub fn what_if(
    a: &RowValues,
    b: &RowValues,
    rows: &[PriorityRow],
    jobs: &[SlurmJob],
    movers: usize,
) -> WhatIf {
    let (oa, ob) = (order(a, rows, jobs), order(b, rows, jobs));
    let c: Comparison = compare(&oa, &ob);
    let of = |m: &crate::order::compare::Move| {
        let i = m.job as usize;
        WhatIfRow {
            row: i,
            rank: m.rank_a,
            rank_against: m.rank_b,
            moved: m.delta(),
            value: a.values.get(i).copied().unwrap_or(0.0),
            value_against: b.values.get(i).copied().unwrap_or(0.0),
            error: a.errors.get(&m.job).cloned(),
        }
    };
    WhatIf {
        rows: c.moves.iter().map(of).collect(),
        movers: c.biggest_movers(movers).iter().map(of).collect(),
        spearman: c.spearman,
        kendall: c.kendall,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slurm::multifactor::{compute, Weights};
    use crate::slurm::parse_slurm_conf;
    use crate::slurm::squeue::TimeLimit;
    use std::collections::BTreeMap;

    fn job(id: &str, submit: i64, cpus: u32, nice: i64) -> SlurmJob {
        SlurmJob {
            id: id.into(),
            user: "bob".into(),
            account: "phys".into(),
            partitions: vec!["batch".into()],
            qos: "normal".into(),
            state: "PENDING".into(),
            held: false,
            submit_time: submit,
            eligible_time: submit,
            accrue_time: Some(submit),
            nice,
            node_count: 1,
            cpus,
            time_limit: TimeLimit::Minutes(60),
            tres: vec![("cpu".into(), f64::from(cpus))],
        }
    }

    const CONF: &str = "PriorityType=priority/multifactor\n\
        PriorityWeightJobSize=1000\nPriorityMaxAge=1-0\n\
        NodeName=n[1-4] CPUs=16\nPartitionName=batch Nodes=ALL PriorityJobFactor=5\n";

    fn program(src: &str) -> crate::formula::Program {
        crate::formula::compile(src, &crate::formula::ResourceTable::builtin()).unwrap()
    }

    #[test]
    fn keywords_are_the_unweighted_factors() {
        let conf = parse_slurm_conf(CONF, "slurm.conf").unwrap();
        let w = Weights::of(&conf);
        let qos = BTreeMap::new();
        let site = Site {
            conf: &conf,
            weights: &w,
            qos: &qos,
            assoc: None,
            fairshare: None,
            now: 44_200,
        };
        let jobs = [job("1", 1000, 4, 0), job("2", 22_600, 64, 10)];
        let rows = compute(&site, &jobs);
        // No age weight in slurm.conf (and no SlurmDBD): age_factor is still the factor.
        let p = program("age_factor * 1000 + jobsize_factor + nice_factor + slurm_priority");
        let v = evaluate(&p, &site, &jobs, &rows).unwrap();
        let js1: f64 = (1.0 / 4.0 + 4.0 / 64.0) / 2.0;
        let js2: f64 = (1.0 / 4.0 + 64.0 / 64.0) / 2.0;
        assert_eq!(
            v.values[0],
            0.5 * 1000.0 + js1 + 0.0 + (js1 * 1000.0).trunc()
        );
        assert_eq!(
            v.values[1],
            0.25 * 1000.0 + js2 + 10.0 + 1.0_f64.max((js2 * 1000.0 - 10.0).trunc())
        );
        let o = order(&v, &rows, &jobs);
        assert_eq!(o.ranked[0].job, 1);
        // sprio's order: job 2 (625) above job 1 (156).
        let s = order(&priorities(&rows), &rows, &jobs);
        assert_eq!(s.ranked[0].job, 1);
        let age = evaluate(&program("age_factor"), &site, &jobs, &rows).unwrap();
        let c = what_if(&priorities(&rows), &age, &rows, &jobs, 5);
        assert_eq!(c.spearman, Some(-1.0));
        assert_eq!(
            (c.rows[0].row, c.rows[0].rank_against, c.rows[0].moved),
            (1, 2, -1)
        );
        assert_eq!(c.movers.len(), 2);
        // PBS-only keywords are refused with the reason; fair share needs a tree.
        let e = evaluate(&program("job_priority"), &site, &jobs, &rows).unwrap_err();
        assert!(e.to_string().contains("slurm_priority"), "{e}");
        let e = evaluate(&program("fairshare_factor"), &site, &jobs, &rows).unwrap_err();
        assert!(matches!(e, SlurmBindError::NoTree(_)));
    }

    #[test]
    fn ties_fall_to_submit_time_then_job_id() {
        let rows_values = RowValues {
            values: vec![f64::NAN, 1.0, 1.0, 2.0],
            errors: HashMap::new(),
        };
        let jobs = [
            job("7", 50, 1, 0),
            job("3", 50, 1, 0),
            job("1", 0, 1, 0),
            job("9", 99, 1, 0),
        ];
        let conf = parse_slurm_conf(CONF, "c").unwrap();
        let w = Weights::of(&conf);
        let qos = BTreeMap::new();
        let site = Site {
            conf: &conf,
            weights: &w,
            qos: &qos,
            assoc: None,
            fairshare: None,
            now: 100,
        };
        // compute() sorts by job id: rows are 1, 3, 7, 9.
        let rows = compute(&site, &jobs);
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["1", "3", "7", "9"]);
        let o = order(&rows_values, &rows, &jobs);
        let got: Vec<&str> = o
            .ranked
            .iter()
            .map(|r| rows[r.job as usize].id.as_str())
            .collect();
        // 9 (2.0); 3 and 7 tie at 1.0 with the same submit time: job id; NaN last.
        assert_eq!(got, ["9", "3", "7", "1"]);
    }
}
