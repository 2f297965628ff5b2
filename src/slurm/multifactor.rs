//! Slurm's multifactor job priority, as slurmctld (`priority_multifactor.c`:
//! `set_priority_factors`, `_get_priority_internal`, `_priority_each_partition`) and `sprio`
//! (`get_priority_from_factors`) compute it.
//!
//! Each factor is a `double` in [0, 1] (unless a `NO_NORMAL_*` flag is set) times its `u32`
//! weight; the total is site + age + assoc + fairshare + jobsize + partition + qos + TRES − nice,
//! clamped below at 1 and truncated to an integer (slurmctld also clamps at 2³²−1). A job pending
//! in several partitions gets one value per partition; slurmctld then adds the partition term
//! first (`priority_part_init + (...)`), sprio in the single-partition order. sprio prints each
//! weighted factor with `%.0f` and PRIORITY as the truncated sum, so a FAIRSHARE of 7273
//! (7272.73) can sit beside a PRIORITY of 7272.

use crate::fairshare::{NodeId, ShareResult, Tree};
use crate::slurm::conf::{Partition, SlurmConf, INFINITE};
use crate::slurm::squeue::{SlurmJob, TimeLimit};
use crate::slurm::{association_name, AssocPriorities};
use std::collections::BTreeMap;

/// One value per factor (normalised or weighted).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Factors {
    /// Site factor (`scontrol update job SiteFactor=`; not in squeue's output, so 0).
    pub site: f64,
    /// Age.
    pub age: f64,
    /// Association priority.
    pub assoc: f64,
    /// Fair share.
    pub fairshare: f64,
    /// Job size.
    pub jobsize: f64,
    /// Partition (`PriorityJobFactor`).
    pub partition: f64,
    /// QOS.
    pub qos: f64,
    /// Nice (positive lowers the priority).
    pub nice: f64,
    /// TRES, in Slurm's TRES order (`cpu`, `mem`, `energy`, `node`, `billing`, then the rest).
    pub tres: Vec<(String, f64)>,
}

impl Factors {
    /// The sum of the TRES terms.
    pub fn tres_total(&self) -> f64 {
        self.tres.iter().map(|t| t.1).sum()
    }
}

/// The inputs of one row's factors, for `--explain`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inputs {
    /// The second of the calculation.
    pub now: i64,
    /// The job's accrue time (0: none, no age).
    pub accrue_time: i64,
    /// now − accrue_time as slurmctld's u32 (0 when not past).
    pub age_seconds: u64,
    /// `PriorityMaxAge` in seconds.
    pub max_age: u32,
    /// The job's minimum nodes and CPUs.
    pub nodes: u32,
    /// CPUs.
    pub cpus: u32,
    /// Nodes and CPUs of the cluster.
    pub cluster_nodes: u32,
    /// CPUs of the cluster.
    pub cluster_cpus: u32,
    /// The time limit used by `SMALL_RELATIVE_TO_TIME` (minutes; 4294967295 = INFINITE).
    pub time_limit: Option<u32>,
    /// The row's partition `PriorityJobFactor`, and the largest.
    pub part_factor: u32,
    /// Largest `PriorityJobFactor`.
    pub max_part_factor: u32,
    /// The job's QOS priority (None: QOS not in --qos), and the largest.
    pub qos_priority: Option<u32>,
    /// Largest QOS priority.
    pub max_qos_priority: u32,
    /// The association's priority, and the largest.
    pub assoc_priority: u32,
    /// Largest association priority.
    pub max_assoc_priority: u32,
    /// The share-tree association found for the job (`account/user`), if any.
    pub association: Option<String>,
    /// Per TRES: name, requested, partition total, weight.
    pub tres: Vec<(String, f64, f64, f64)>,
}

/// One `sprio` row: a job in one partition.
#[derive(Debug, Clone, PartialEq)]
pub struct PriorityRow {
    /// Index of the job in the input.
    pub job: usize,
    /// The job id.
    pub id: String,
    /// User.
    pub user: String,
    /// Account.
    pub account: String,
    /// This row's partition.
    pub partition: String,
    /// The QOS.
    pub qos: String,
    /// sprio's PRIORITY: the sum of the weighted factors, at least 1, truncated.
    pub priority: i64,
    /// The value slurmctld stores for this (job, partition) (u32, clamped).
    pub job_priority: u32,
    /// Factors before weighting.
    pub normalized: Factors,
    /// Weighted factors, as sprio prints them (unrounded here).
    pub weighted: Factors,
    /// The inputs.
    pub inputs: Inputs,
}

/// The weights, from `slurm.conf` (separate so a what-if can change them).
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    /// `PriorityWeightAge`.
    pub age: u32,
    /// `PriorityWeightAssoc`.
    pub assoc: u32,
    /// `PriorityWeightFairshare`.
    pub fairshare: u32,
    /// `PriorityWeightJobSize`.
    pub jobsize: u32,
    /// `PriorityWeightPartition`.
    pub partition: u32,
    /// `PriorityWeightQOS`.
    pub qos: u32,
    /// `PriorityWeightTRES`.
    pub tres: Vec<(String, f64)>,
}

impl Weights {
    /// The weights of a configuration.
    /// Without SlurmDBD slurmctld zeroes the age and fair-share weights (see
    /// [`SlurmConf::with_slurmdbd`]).
    pub fn of(conf: &SlurmConf) -> Weights {
        let dbd = conf.with_slurmdbd();
        Weights {
            age: if dbd { conf.weight_age } else { 0 },
            assoc: conf.weight_assoc,
            fairshare: if dbd { conf.weight_fairshare } else { 0 },
            jobsize: conf.weight_jobsize,
            partition: conf.weight_partition,
            qos: conf.weight_qos,
            tres: order_tres(conf.weight_tres.clone()),
        }
    }

    /// Every weight 1 (the TRES weights as configured): the rows' `normalized` factors are then
    /// all computed, whatever slurm.conf's weights or SlurmDBD say (the formula keywords).
    pub fn unit(conf: &SlurmConf) -> Weights {
        Weights {
            age: 1,
            assoc: 1,
            fairshare: 1,
            jobsize: 1,
            partition: 1,
            qos: 1,
            tres: order_tres(conf.weight_tres.clone()),
        }
    }

    /// Applies `PriorityWeightAge=5000,PriorityWeightFairshare=20000,...` over these weights.
    pub fn set(&mut self, list: &str) -> Result<(), String> {
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| format!("`{item}` is not NAME=VALUE"))?;
            let n = || -> Result<u32, String> {
                v.trim()
                    .parse()
                    .map_err(|_| format!("{k}: `{v}` is not an unsigned integer"))
            };
            match k.trim().to_ascii_lowercase().as_str() {
                "priorityweightage" => self.age = n()?,
                "priorityweightassoc" => self.assoc = n()?,
                "priorityweightfairshare" => self.fairshare = n()?,
                "priorityweightjobsize" => self.jobsize = n()?,
                "priorityweightpartition" => self.partition = n()?,
                "priorityweightqos" => self.qos = n()?,
                other => return Err(format!("unknown weight `{other}`")),
            }
        }
        Ok(())
    }
}

const TRES_ORDER: [&str; 5] = ["cpu", "mem", "energy", "node", "billing"];

fn order_tres(mut v: Vec<(String, f64)>) -> Vec<(String, f64)> {
    let rank = |n: &str| {
        TRES_ORDER
            .iter()
            .position(|t| *t == n)
            .unwrap_or(TRES_ORDER.len())
    };
    v.sort_by(|a, b| rank(&a.0).cmp(&rank(&b.0)).then_with(|| a.0.cmp(&b.0)));
    v
}

/// The fair-share side: a Slurm tree and one algorithm's result over it.
#[derive(Clone, Copy)]
pub struct FairShare<'a> {
    /// The tree (sshare, sacctmgr, fairsort's).
    pub tree: &'a Tree,
    /// The algorithm's values.
    pub result: &'a ShareResult,
}

impl FairShare<'_> {
    /// The tree node of the job's association in `partition` (a per-partition one first).
    pub fn node(&self, job: &SlurmJob, partition: &str) -> Option<NodeId> {
        let acct = self.tree.find_account(&job.account)?;
        let per_part = association_name(&job.user, Some(partition));
        self.tree
            .find_user_in(acct, &per_part)
            .or_else(|| self.tree.find_user_in(acct, &job.user))
    }

    /// The factor of the job's association (a per-partition one first) and its label.
    fn factor(&self, job: &SlurmJob, partition: &str) -> Option<(f64, String)> {
        let id = self.node(job, partition)?;
        Some((self.result.factor(id).unwrap_or(0.0), self.tree.label(id)))
    }
}

/// Everything but the jobs.
#[derive(Clone, Copy)]
pub struct Site<'a> {
    /// slurm.conf.
    pub conf: &'a SlurmConf,
    /// The weights (slurm.conf's or a what-if's).
    pub weights: &'a Weights,
    /// QOS name → priority.
    pub qos: &'a BTreeMap<String, u32>,
    /// Association priorities.
    pub assoc: Option<&'a AssocPriorities>,
    /// Fair share.
    pub fairshare: Option<FairShare<'a>>,
    /// The second of the calculation.
    pub now: i64,
}

/// The rows of every pending job, one per partition (the job's partitions in `PriorityTier`
/// order, highest first, as slurmctld sorts `part_ptr_list`), sorted as sprio's default (`-S i`):
/// by job id. Jobs that are not pending, held, or whose eligible (begin) time is after `now`,
/// have no row. A partition not in slurm.conf counts with
/// factor 0, no nodes and an unlimited MaxTime.
pub fn compute(site: &Site, jobs: &[SlurmJob]) -> Vec<PriorityRow> {
    let mut rows = Vec::new();
    let mut totals = Totals::of(site);
    for (i, job) in jobs.iter().enumerate() {
        // sprio lists pending jobs only, and not held ones (priority 0) nor those whose begin
        // (eligible) time is still to come (both seen on a real 22.05 controller).
        if !job.is_pending() || job.held || job.eligible_time > site.now {
            continue;
        }
        let mut parts: Vec<(&str, Option<&Partition>)> = job
            .partitions
            .iter()
            .map(|p| (p.as_str(), totals.partition(p)))
            .collect();
        parts.sort_by_key(|(_, p)| std::cmp::Reverse(p.map_or(0, |p| p.tier)));
        if parts.is_empty() {
            parts.push(("", None));
        }
        let primary = parts[0].1;
        let multi = parts.len() > 1;
        for (name, part) in &parts {
            let tres = totals.tres(site, *part);
            rows.push(row(
                site,
                &totals,
                tres,
                (i, job),
                (name, *part),
                primary,
                multi,
            ));
        }
    }
    // sprio's default sort (`-S i`): job id ascending; rows of one job stay in tier order.
    rows.sort_by_key(|r| job_number(&r.id));
    rows
}

/// The numeric job id (`123` of `123` or `123_4`); ids without one sort last.
fn job_number(id: &str) -> u64 {
    let digits = id.bytes().take_while(u8::is_ascii_digit).count();
    id[..digits].parse().unwrap_or(u64::MAX)
}

/// What every row of one computation shares, found once (each is a pass over the nodes, the
/// partitions or the QOS): rows × nodes would be quadratic.
struct Totals<'a> {
    node_count: u32,
    cluster_cpus: u64,
    max_job_factor: u32,
    max_qos: u32,
    partitions: std::collections::HashMap<&'a str, &'a Partition>,
    /// Each partition's TRES totals, by the partition's address, once asked for.
    tres: std::collections::HashMap<usize, std::rc::Rc<BTreeMap<String, f64>>>,
}

impl<'a> Totals<'a> {
    fn of(site: &Site<'a>) -> Totals<'a> {
        let conf = site.conf;
        let mut partitions = std::collections::HashMap::new();
        for p in &conf.partitions {
            // The first of a name, as `SlurmConf::partition` finds it.
            partitions.entry(p.name.as_str()).or_insert(p);
        }
        Totals {
            node_count: conf.node_count(),
            cluster_cpus: conf.cluster_cpus(),
            max_job_factor: conf.max_job_factor(),
            max_qos: site.qos.values().copied().max().unwrap_or(0),
            partitions,
            tres: std::collections::HashMap::new(),
        }
    }

    fn partition(&self, name: &str) -> Option<&'a Partition> {
        self.partitions.get(name).copied()
    }

    fn tres(
        &mut self,
        site: &Site,
        part: Option<&Partition>,
    ) -> std::rc::Rc<BTreeMap<String, f64>> {
        let Some(p) = part else {
            return std::rc::Rc::default();
        };
        // Keyed by the partition's address: it lives in `site.conf` for the whole computation.
        let key = std::ptr::from_ref(p) as usize;
        self.tres
            .entry(key)
            .or_insert_with(|| std::rc::Rc::new(site.conf.partition_tres(p)))
            .clone()
    }
}

fn row(
    site: &Site,
    totals: &Totals,
    tres_totals: std::rc::Rc<BTreeMap<String, f64>>,
    (index, job): (usize, &SlurmJob),
    (part_name, part): (&str, Option<&Partition>),
    primary: Option<&Partition>,
    multi: bool,
) -> PriorityRow {
    let conf = site.conf;
    let w = site.weights;
    let flags = conf.flags;
    let mut f = Factors::default();
    let mut inp = Inputs {
        now: site.now,
        max_age: conf.max_age,
        ..Inputs::default()
    };

    // Age: accrue_time (0 = none); the difference is a u32 and only counts when positive. An
    // input without accrue times (`squeue -o`) falls back to the eligible, else submit, time.
    let accrue = job.accrue_time.unwrap_or(if job.eligible_time != 0 {
        job.eligible_time
    } else {
        job.submit_time
    });
    inp.accrue_time = accrue;
    if w.age != 0 && accrue != 0 {
        let diff: u32 = if site.now > accrue {
            (site.now - accrue) as u32
        } else {
            0
        };
        inp.age_seconds = u64::from(diff);
        f.age = if diff < conf.max_age {
            f64::from(diff) / f64::from(conf.max_age)
        } else {
            1.0
        };
    }

    // Fair share: the association's factor from the tree's algorithm.
    if let Some(fs) = &site.fairshare {
        if let Some((v, label)) = fs.factor(job, part_name) {
            inp.association = Some(label);
            if w.fairshare != 0 {
                f.fairshare = v;
            }
        }
    }

    // Job size, relative to the cluster (nodes and CPUs as u32, as slurmctld).
    let node_count = totals.node_count;
    let cluster_cpus = u32::try_from(totals.cluster_cpus).unwrap_or(u32::MAX);
    inp.cluster_nodes = node_count;
    inp.cluster_cpus = cluster_cpus;
    inp.nodes = job.node_count;
    inp.cpus = job.cpus;
    if w.jobsize != 0 && node_count != 0 && cluster_cpus != 0 {
        let (cpu_cnt, min_nodes) = (job.cpus, job.node_count);
        let mut js;
        if flags.small_relative_to_time {
            js = f64::from(min_nodes) * f64::from(cluster_cpus) / f64::from(node_count);
            if f64::from(cpu_cnt) > js {
                js = f64::from(cpu_cnt);
            }
            let time_limit = match job.time_limit {
                TimeLimit::Minutes(m) => m,
                TimeLimit::Infinite => INFINITE,
                TimeLimit::Unset => primary.map_or(INFINITE, |p| p.max_time),
            };
            inp.time_limit = Some(time_limit);
            js /= f64::from(time_limit);
            js /= f64::from(cluster_cpus);
            if conf.favor_small {
                js = 1.0 - js;
            }
        } else if conf.favor_small {
            js = if node_count > min_nodes {
                f64::from(node_count - min_nodes) / f64::from(node_count)
            } else {
                0.0
            };
            if cpu_cnt != 0 {
                // uint32 subtraction, as in C (wraps when the job asks for more than exist).
                js += f64::from(cluster_cpus.wrapping_sub(cpu_cnt)) / f64::from(cluster_cpus);
                js /= 2.0;
            }
        } else {
            js = f64::from(min_nodes) / f64::from(node_count);
            if cpu_cnt != 0 {
                js += f64::from(cpu_cnt) / f64::from(cluster_cpus);
                js /= 2.0;
            }
        }
        f.jobsize = js.clamp(0.0, 1.0);
    }

    // Partition: PriorityJobFactor over the largest.
    let max_part = totals.max_job_factor;
    inp.max_part_factor = max_part;
    if let Some(p) = part {
        inp.part_factor = p.job_factor;
        if p.job_factor != 0 && w.partition != 0 {
            f.partition = if flags.no_normal_part {
                f64::from(p.job_factor)
            } else {
                f64::from(p.job_factor) / f64::from(max_part)
            };
        }
    }

    // QOS: priority over the largest.
    let max_qos = totals.max_qos;
    inp.max_qos_priority = max_qos;
    inp.qos_priority = site.qos.get(&job.qos).copied();
    if let Some(q) = inp.qos_priority {
        if q != 0 && w.qos != 0 {
            f.qos = if flags.no_normal_qos {
                f64::from(q)
            } else {
                f64::from(q) / f64::from(max_qos)
            };
        }
    }

    // Association priority over the largest.
    if let Some(a) = site.assoc {
        let p = a.get(&job.account, &job.user, part_name);
        inp.assoc_priority = p;
        inp.max_assoc_priority = a.max();
        if w.assoc != 0 {
            f.assoc = if flags.no_normal_assoc {
                f64::from(p)
            } else if a.max() != 0 {
                f64::from(p) / f64::from(a.max())
            } else {
                0.0
            };
        }
    }

    // TRES: the request over this row's partition's total.
    let totals = tres_totals;
    for (name, weight) in &w.tres {
        let req = job.tres.iter().find(|t| t.0 == *name).map_or(0.0, |t| t.1);
        let total = totals.get(name).copied().unwrap_or(0.0);
        inp.tres.push((name.clone(), req, total, *weight));
        let v = if flags.no_normal_tres {
            req
        } else if req != 0.0 && total != 0.0 {
            req / total
        } else {
            0.0
        };
        f.tres.push((name.clone(), v));
    }

    f.nice = job.nice as f64;
    let weighted = Factors {
        site: f.site,
        age: f.age * f64::from(w.age),
        assoc: f.assoc * f64::from(w.assoc),
        fairshare: f.fairshare * f64::from(w.fairshare),
        jobsize: f.jobsize * f64::from(w.jobsize),
        partition: f.partition * f64::from(w.partition),
        qos: f.qos * f64::from(w.qos),
        nice: f.nice,
        tres: f
            .tres
            .iter()
            .zip(&w.tres)
            .map(|((n, v), (_, wt))| (n.clone(), v * wt))
            .collect(),
    };
    PriorityRow {
        job: index,
        id: job.id.clone(),
        user: job.user.clone(),
        account: job.account.clone(),
        partition: part_name.to_string(),
        qos: job.qos.clone(),
        priority: sprio_priority(&weighted),
        job_priority: slurmctld_priority(&weighted, multi),
        normalized: f,
        weighted,
        inputs: inp,
    }
}

/// sprio's `get_priority_from_factors`: age + assoc + fs + js + part + qos + site − nice, then
/// each non-zero TRES term; at least 1; printed with `%lld` of the double (truncation).
pub fn sprio_priority(w: &Factors) -> i64 {
    let mut p = w.age + w.assoc + w.fairshare + w.jobsize + w.partition + w.qos + w.site - w.nice;
    for (_, t) in &w.tres {
        if *t != 0.0 {
            p += t;
        }
    }
    if p < 1.0 {
        p = 1.0;
    }
    p as i64
}

/// slurmctld's stored value: the single-partition sum (`_get_priority_internal`) or, for a job
/// in several partitions, `part + (age + assoc + fs + js + qos + tres + site − nice)`
/// (`_priority_each_qos`); at least 1, at most 2³²−1, truncated.
pub fn slurmctld_priority(w: &Factors, multi_partition: bool) -> u32 {
    let tres = w.tres_total();
    let mut p = if multi_partition {
        w.partition + (w.age + w.assoc + w.fairshare + w.jobsize + w.qos + tres + w.site - w.nice)
    } else {
        w.age + w.assoc + w.fairshare + w.jobsize + w.partition + w.qos + tres + w.site - w.nice
    };
    if p < 1.0 {
        p = 1.0;
    }
    if p >= 4294967295.0 {
        return u32::MAX;
    }
    p as u32
}

/// A weighted factor as sprio prints it: `%.0f`, rounding half to even.
pub fn sprio_cell(v: f64) -> String {
    let r = v.round();
    let r = if (v - v.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - v.signum()
    } else {
        r
    };
    format!("{}", r as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slurm::parse_slurm_conf;

    fn job(id: &str) -> SlurmJob {
        SlurmJob {
            id: id.into(),
            user: "bob".into(),
            account: "phys".into(),
            partitions: vec!["batch".into()],
            qos: "normal".into(),
            state: "PENDING".into(),
            held: false,
            submit_time: 1000,
            eligible_time: 1000,
            accrue_time: Some(1000),
            nice: 0,
            node_count: 1,
            cpus: 4,
            time_limit: TimeLimit::Minutes(60),
            tres: vec![("cpu".into(), 4.0), ("mem".into(), 4096.0)],
        }
    }

    const CONF: &str = "PriorityType=priority/multifactor\n\
        AccountingStorageType=accounting_storage/slurmdbd\n\
        PriorityWeightAge=1000\nPriorityWeightJobSize=1000\nPriorityWeightPartition=1000\n\
        PriorityWeightQOS=1000\nPriorityWeightTRES=CPU=2000,Mem=1000\nPriorityMaxAge=1-0\n\
        NodeName=n[1-4] CPUs=16 RealMemory=64000\n\
        PartitionName=batch Nodes=n[1-2] PriorityJobFactor=5\n\
        PartitionName=big Nodes=ALL PriorityJobFactor=10 PriorityTier=2\n";

    #[test]
    fn factors_by_the_c_formulas() {
        let conf = parse_slurm_conf(CONF, "slurm.conf").unwrap();
        let weights = Weights::of(&conf);
        let qos: BTreeMap<String, u32> = [("normal".to_string(), 10), ("high".to_string(), 40)]
            .into_iter()
            .collect();
        let site = Site {
            conf: &conf,
            weights: &weights,
            qos: &qos,
            assoc: None,
            fairshare: None,
            now: 1000 + 21600,
        };
        let mut j = job("1");
        j.nice = 100;
        let rows = compute(&site, &[j]);
        let r = &rows[0];
        let w = &r.weighted;
        assert_eq!(w.age, 250.0); // 6 h of 24 h
        assert_eq!(w.jobsize, 1000.0 * (1.0 / 4.0 + 4.0 / 64.0) / 2.0);
        assert_eq!(w.partition, 500.0);
        assert_eq!(w.qos, 250.0);
        assert_eq!(w.tres[0], ("cpu".to_string(), 2000.0 * 4.0 / 32.0));
        assert_eq!(w.tres[1], ("mem".to_string(), 1000.0 * 4096.0 / 128000.0));
        assert_eq!(w.nice, 100.0);
        // 250 + 156.25 + 500 + 250 + 250 + 32 − 100 = 1338.25
        assert_eq!(r.priority, 1338);
        assert_eq!(r.job_priority, 1338);
    }

    #[test]
    fn multi_partition_rows_and_small_relative() {
        let conf = parse_slurm_conf(
            &format!("{CONF}PriorityFavorSmall=YES\nPriorityFlags=SMALL_RELATIVE_TO_TIME\n"),
            "slurm.conf",
        )
        .unwrap();
        let weights = Weights::of(&conf);
        let qos = BTreeMap::new();
        let site = Site {
            conf: &conf,
            weights: &weights,
            qos: &qos,
            assoc: None,
            fairshare: None,
            now: 1000,
        };
        let mut j = job("2");
        j.partitions = vec!["batch".into(), "big".into()];
        // A held job and one whose begin time is still to come have no row, as in sprio.
        let mut held = job("3");
        held.held = true;
        let mut later = job("4");
        later.eligible_time = 1001;
        let rows = compute(&site, &[j, held, later]);
        assert_eq!(rows.len(), 2);
        // Tier 2 first.
        assert_eq!(rows[0].partition, "big");
        assert_eq!(rows[1].partition, "batch");
        // max(1·64/4, 4) = 16 CPUs / 60 min / 64 CPUs, favouring small.
        assert_eq!(rows[0].normalized.jobsize, 1.0 - 16.0 / 60.0 / 64.0);
        assert_eq!(rows[0].weighted.partition, 1000.0);
        assert_eq!(rows[1].weighted.partition, 500.0);
        // TRES per row's partition.
        assert_eq!(rows[0].weighted.tres[0].1, 2000.0 * 4.0 / 64.0);
        assert_eq!(rows[1].weighted.tres[0].1, 2000.0 * 4.0 / 32.0);
    }

    #[test]
    fn rounding_and_clamps() {
        // The reference's real run: FAIRSHARE 7272.73 prints 7273 beside PRIORITY 7272.
        let w = Factors {
            fairshare: 7272.727272,
            ..Factors::default()
        };
        assert_eq!(sprio_cell(w.fairshare), "7273");
        assert_eq!(sprio_priority(&w), 7272);
        assert_eq!(sprio_cell(2.5), "2");
        assert_eq!(sprio_cell(3.5), "4");
        let low = Factors {
            nice: 10000.0,
            ..Factors::default()
        };
        assert_eq!(sprio_priority(&low), 1);
        assert_eq!(slurmctld_priority(&low, false), 1);
        let high = Factors {
            site: 5e9,
            ..Factors::default()
        };
        assert_eq!(slurmctld_priority(&high, false), u32::MAX);
    }

    #[test]
    fn what_if_weights() {
        let conf = parse_slurm_conf(CONF, "c").unwrap();
        let mut w = Weights::of(&conf);
        w.set("PriorityWeightAge=5000,PriorityWeightFairshare=20000")
            .unwrap();
        assert_eq!((w.age, w.fairshare), (5000, 20000));
        assert!(w.set("PriorityWeightFoo=1").is_err());
    }
}
