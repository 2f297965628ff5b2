//! Slurm's multifactor priority as a replay's ordering (`fairsort replay --slurm-conf`): each
//! pending job's priority at each pass with the arithmetic of `queue::slurm_priority::compute`
//! (its fixed terms computed by it once per job shape, the age added per pass; age from the
//! submit time, job size over the cluster model, partition and QOS from the trace), with the
//! fair-share factor of the replay's own usage added with `PriorityWeightFairshare`
//! (docs/replay.md, "Slurm priority", says what is modelled and what is not).

use crate::fairshare::Algorithm;
use crate::mem::hash::SeededMap;
use crate::replay::cluster::Cluster;
use crate::replay::error::ReplayError;
use crate::replay::trace::TraceJob;
use crate::slurm::conf::{Node, SlurmConf};
use crate::slurm::multifactor::{compute, Site, Weights};
use crate::slurm::squeue::{SlurmJob, TimeLimit};
use std::collections::BTreeMap;

/// The most nodes a Slurm cluster model may have: slurm.conf's node records are built for them
/// (Slurm itself counts nodes in a u32 and real clusters have tens of thousands).
pub const MAX_SLURM_NODES: u64 = 1 << 20;

/// The Slurm side of a replay: slurm.conf (its nodes replaced by the cluster model), its
/// weights and the QOS priorities.
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmPolicy {
    conf: SlurmConf,
    weights: Weights,
    qos: BTreeMap<String, u32>,
}

impl SlurmPolicy {
    /// The policy of `conf` on `cluster`: slurm.conf's nodes are replaced by the cluster's
    /// (`nodes` × `cores_per_node` CPUs) and every partition spans them all, so job size and
    /// TRES totals are relative to the replayed cluster. More than [`MAX_SLURM_NODES`] nodes is
    /// an error.
    pub fn new(
        mut conf: SlurmConf,
        qos: BTreeMap<String, u32>,
        cluster: Cluster,
    ) -> Result<SlurmPolicy, ReplayError> {
        if cluster.nodes > MAX_SLURM_NODES {
            return Err(ReplayError::Slurm(format!(
                "a cluster model of {} nodes is more than the {MAX_SLURM_NODES} the Slurm priority models",
                cluster.nodes
            )));
        }
        let cpus = u32::try_from(cluster.cores_per_node).unwrap_or(u32::MAX);
        let n = usize::try_from(cluster.nodes).unwrap_or(usize::MAX);
        conf.nodes = (0..n)
            .map(|i| Node {
                name: format!("n{i}"),
                cpus,
                memory: 1,
                gres: Vec::new(),
                future: false,
            })
            .collect();
        // The partitions' node lists only serve the TRES totals (O(nodes) per evaluation):
        // without TRES weights they are left empty.
        let tres = !conf.weight_tres.is_empty();
        for p in &mut conf.partitions {
            p.nodes = if tres { (0..n).collect() } else { Vec::new() };
        }
        let weights = Weights::of(&conf);
        Ok(SlurmPolicy { conf, weights, qos })
    }

    /// The weights in force (slurm.conf's; age and fair share are 0 without SlurmDBD).
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// The fair-share keyword whose value is Slurm's factor under slurm.conf's
    /// `PriorityFlags` (`NO_FAIR_TREE`: classic, `DEPTH_OBLIVIOUS`, else fair tree), or none
    /// when `PriorityWeightFairshare` is 0.
    pub fn share_keyword(&self) -> Option<&'static str> {
        if self.weights.fairshare == 0 {
            return None;
        }
        Some(match self.algorithm() {
            Algorithm::Classic => "classic_factor",
            Algorithm::DepthOblivious => "depth_oblivious_factor",
            _ => "fairtree_factor",
        })
    }

    /// The fair-share algorithm slurm.conf selects.
    pub fn algorithm(&self) -> Algorithm {
        let f = self.conf.flags;
        if f.depth_oblivious {
            Algorithm::DepthOblivious
        } else if f.no_fair_tree {
            Algorithm::Classic
        } else {
            Algorithm::FairTree
        }
    }

    /// `PriorityDecayHalfLife` in seconds (0: no decay).
    pub fn decay_half_life(&self) -> u32 {
        self.conf.decay_half_life
    }

    /// The site as Slurm's priority code reads it at `now` (no association, no fair share:
    /// the replay adds its own factor).
    fn site(&self, now: i64) -> Site<'_> {
        Site {
            conf: &self.conf,
            weights: &self.weights,
            qos: &self.qos,
            assoc: None,
            fairshare: None,
            now,
        }
    }

    /// A trace job as Slurm's priority code sees it, pending since its submit time. Times are
    /// shifted by `origin` so that they are positive (slurmctld reads an accrue time of 0 as
    /// "no age"; SWF traces start at 0).
    pub(crate) fn slurm_job(&self, job: &TraceJob, origin: i64) -> SlurmJob {
        let cpn = self.conf.nodes.first().map_or(1, |n| n.cpus.max(1));
        let cpus = u32::try_from(job.cores).unwrap_or(u32::MAX);
        let nodes = cpus.div_ceil(cpn);
        let accrue = shifted(job.submit, origin);
        SlurmJob {
            id: job.id.clone(),
            user: job.user.clone(),
            account: job.account.clone(),
            partitions: job
                .queue
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(String::from)
                .collect(),
            qos: job.qos.clone(),
            state: "PENDING".into(),
            held: false,
            submit_time: accrue,
            eligible_time: accrue,
            accrue_time: Some(accrue),
            nice: 0,
            node_count: nodes,
            cpus,
            time_limit: match job.walltime {
                // Slurm's limits are whole minutes.
                Some(w) => {
                    TimeLimit::Minutes(u32::try_from((w.max(0) + 59) / 60).unwrap_or(u32::MAX))
                }
                None => TimeLimit::Unset,
            },
            tres: vec![
                ("cpu".into(), f64::from(cpus)),
                ("node".into(), f64::from(nodes)),
            ],
        }
    }

    /// The priority slurmctld would give `job` at `t` (shifted by `origin` as in
    /// [`Self::slurm_job`]) with fair-share factor `fairshare`: the largest over its partitions
    /// (the reference [`Self::priority_fixed`] is tested against).
    #[cfg(test)]
    pub(crate) fn priority(&self, job: &SlurmJob, t: i64, origin: i64, fairshare: f64) -> f64 {
        let site = self.site(shifted(t, origin));
        let multi = job.partitions.len() > 1;
        compute(&site, std::slice::from_ref(job))
            .into_iter()
            .map(|mut r| {
                r.weighted.fairshare = fairshare * f64::from(self.weights.fairshare);
                f64::from(crate::slurm::multifactor::slurmctld_priority(
                    &r.weighted,
                    multi,
                ))
            })
            .fold(0.0, f64::max)
    }
}

/// One partition's terms of a job's priority that do not move with time (weighted, as
/// `queue::slurm_priority` computes them), kept so that a pass adds only the age and the fair
/// share: the same additions in the same order as [`crate::slurm::multifactor::slurmctld_priority`], bit for bit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FixedTerms {
    assoc: f64,
    jobsize: f64,
    partition: f64,
    qos: f64,
    tres: f64,
    site: f64,
    nice: f64,
    multi: bool,
}

impl FixedTerms {
    /// slurmctld's stored value with this age and fair-share term (weighted).
    fn priority(&self, age: f64, fairshare: f64) -> f64 {
        let mut p = self.sum(age, fairshare);
        if p < 1.0 {
            p = 1.0;
        }
        if p >= 4294967295.0 {
            return f64::from(u32::MAX);
        }
        f64::from(p as u32)
    }

    /// The weighted sum before the floor at 1, the cap and the truncation.
    fn sum(&self, age: f64, fairshare: f64) -> f64 {
        if self.multi {
            self.partition
                + (age + self.assoc + fairshare + self.jobsize + self.qos + self.tres + self.site
                    - self.nice)
        } else {
            age + self.assoc
                + fairshare
                + self.jobsize
                + self.partition
                + self.qos
                + self.tres
                + self.site
                - self.nice
        }
    }
}

/// The fixed terms of the replay's pending jobs: a job's terms depend only on its cores, queue,
/// QOS and (with `SMALL_RELATIVE_TO_TIME`) time limit, so they are computed once per distinct
/// combination (`queue::slurm_priority::compute` scans slurm.conf's node records, O(nodes)) and
/// each job keeps its class and accrue time. A pass then computes a priority in O(partitions)
/// with no allocation.
#[derive(Debug, Default)]
pub(crate) struct FixedCache<'t> {
    classes: SeededMap<(u64, u32, &'t str, &'t str), u32>,
    /// Per class: its rows (one per partition; none: the job has no priority row, value 0).
    terms: Vec<Vec<FixedTerms>>,
}

/// A pending job's Slurm priority inputs: its class in a [`FixedCache`] and accrue time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fixed {
    class: u32,
    accrue: i64,
}

impl SlurmPolicy {
    /// `job`'s class and accrue time (on the shifted clock), its class's terms computed on
    /// first sight.
    pub(crate) fn fixed<'t>(
        &self,
        cache: &mut FixedCache<'t>,
        job: &'t TraceJob,
        origin: i64,
    ) -> Fixed {
        let limit = if self.conf.flags.small_relative_to_time {
            job.walltime.map_or(u32::MAX, |w| {
                u32::try_from((w.max(0) + 59) / 60).unwrap_or(u32::MAX - 1)
            })
        } else {
            0
        };
        let key = (job.cores, limit, job.queue.as_str(), job.qos.as_str());
        let accrue = shifted(job.submit, origin);
        if let Some(&class) = cache.classes.get(&key) {
            return Fixed { class, accrue };
        }
        let sj = self.slurm_job(job, origin);
        let site = self.site(accrue);
        let multi = sj.partitions.len() > 1;
        let rows = compute(&site, std::slice::from_ref(&sj))
            .into_iter()
            .map(|r| FixedTerms {
                assoc: r.weighted.assoc,
                jobsize: r.weighted.jobsize,
                partition: r.weighted.partition,
                qos: r.weighted.qos,
                tres: r.weighted.tres_total(),
                site: r.weighted.site,
                nice: r.weighted.nice,
                multi,
            })
            .collect();
        let class = u32::try_from(cache.terms.len()).unwrap_or(u32::MAX);
        cache.terms.push(rows);
        cache.classes.insert(key, class);
        Fixed { class, accrue }
    }

    /// The priority slurmctld would give a job with inputs `fixed` at `t` (shifted by `origin`)
    /// with fair-share factor `fairshare`: the same value as [`Self::priority`], computed from
    /// the fixed terms plus the age (`min(age, max_age) / max_age` × weight, as slurmctld).
    pub(crate) fn priority_fixed(
        &self,
        cache: &FixedCache,
        fixed: Fixed,
        t: i64,
        origin: i64,
        fairshare: f64,
    ) -> f64 {
        let Some(rows) = cache.terms.get(fixed.class as usize) else {
            return 0.0;
        };
        let now = shifted(t, origin);
        if fixed.accrue > now {
            // Not yet eligible: no priority row.
            return 0.0;
        }
        let diff: u32 = if now > fixed.accrue {
            (now - fixed.accrue) as u32
        } else {
            0
        };
        self.priority_at(rows, fixed, diff, fairshare)
    }

    /// The priority of a job of `rows` waiting `diff` seconds since its accrue time.
    fn priority_at(&self, rows: &[FixedTerms], fixed: Fixed, diff: u32, fairshare: f64) -> f64 {
        let (age, fs) = self.weighted(fixed, diff, fairshare);
        rows.iter().map(|r| r.priority(age, fs)).fold(0.0, f64::max)
    }

    /// The weighted age and fair-share terms after `diff` seconds.
    fn weighted(&self, fixed: Fixed, diff: u32, fairshare: f64) -> (f64, f64) {
        let mut age = 0.0;
        if self.weights.age != 0 && fixed.accrue != 0 {
            let max_age = self.conf.max_age;
            age = if diff < max_age {
                f64::from(diff) / f64::from(max_age)
            } else {
                1.0
            };
        }
        let age = age * f64::from(self.weights.age);
        let fs = fairshare * f64::from(self.weights.fairshare);
        (age, fs)
    }

    /// The first time after `t` at which [`Self::priority_fixed`] may differ from its value
    /// at `t` with the same fair-share factor (`i64::MAX`: never). The value is a
    /// non-decreasing function of the age (additions, the floor at 1, the cap and the
    /// truncation, and the maximum over partitions, are all monotone), so it is the least
    /// age at which the value is larger, found by bisection; until then a pass would compute
    /// the same value.
    pub(crate) fn next_change(
        &self,
        cache: &FixedCache,
        fixed: Fixed,
        t: i64,
        origin: i64,
        fairshare: f64,
    ) -> i64 {
        let Some(rows) = cache.terms.get(fixed.class as usize) else {
            return i64::MAX;
        };
        let now = shifted(t, origin);
        if fixed.accrue > now {
            // Eligible at its accrue time.
            return t.saturating_add(fixed.accrue - now);
        }
        let max_age = self.conf.max_age;
        if self.weights.age == 0 || fixed.accrue == 0 {
            return i64::MAX;
        }
        let Ok(d0) = u32::try_from(now - fixed.accrue) else {
            return t.saturating_add(1); // beyond the clock slurmctld keeps: every pass
        };
        if d0 >= max_age {
            return i64::MAX;
        }
        let p0 = self.priority_at(rows, fixed, d0, fairshare);
        if self.priority_at(rows, fixed, max_age, fairshare) <= p0 {
            return i64::MAX;
        }
        // The least d in (d0, max_age] with a larger value: first the second where the
        // linear age term makes the sum reach the next integer, checked exactly (it is the
        // answer when d − 1 still gives the value and d a larger one); else by bisection.
        let (age, fs) = self.weighted(fixed, d0, fairshare);
        let sum = rows.iter().map(|r| r.sum(age, fs)).fold(f64::MIN, f64::max);
        let per_second = f64::from(self.weights.age) / f64::from(max_age);
        let guess = ((p0 + 1.0 - sum.max(1.0)) / per_second).ceil();
        if guess.is_finite() && guess >= 1.0 && guess < f64::from(max_age - d0) {
            let d = d0 + guess as u32;
            if self.priority_at(rows, fixed, d, fairshare) > p0
                && self.priority_at(rows, fixed, d - 1, fairshare) <= p0
            {
                return t.saturating_add(i64::from(d - d0));
            }
        }
        let (mut lo, mut hi) = (d0, max_age);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.priority_at(rows, fixed, mid, fairshare) > p0 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        t.saturating_add(i64::from(hi - d0))
    }
}

/// `t` on the replay's Slurm clock: seconds since `origin`, plus 1.
fn shifted(t: i64, origin: i64) -> i64 {
    t.saturating_sub(origin).saturating_add(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slurm::parse_slurm_conf;

    fn job(submit: i64, cores: u64, queue: &str, qos: &str) -> TraceJob {
        TraceJob {
            id: "1".into(),
            submit,
            run: 10,
            walltime: Some(600),
            cores,
            mem: 0,
            user: "u".into(),
            account: "a".into(),
            queue: queue.into(),
            qos: qos.into(),
        }
    }

    fn policy(extra: &str, qos: &[(&str, u32)]) -> SlurmPolicy {
        let text = format!(
            "PriorityType=priority/multifactor\nAccountingStorageType=accounting_storage/slurmdbd\n{extra}"
        );
        let conf = parse_slurm_conf(&text, "slurm.conf").unwrap();
        let qos = qos.iter().map(|(n, p)| (n.to_string(), *p)).collect();
        SlurmPolicy::new(
            conf,
            qos,
            Cluster {
                nodes: 4,
                cores_per_node: 8,
                mem_per_node: 0,
            },
        )
        .unwrap()
    }

    #[test]
    fn age_counts_from_the_submit_time_even_at_zero() {
        // MaxAge 20 min (Slurm rounds it to minutes), weight 12000: 90 s of age is 900 (a
        // submit at 0 still ages).
        let p = policy("PriorityMaxAge=00:20:00\nPriorityWeightAge=12000\n", &[]);
        let j = p.slurm_job(&job(0, 1, "", ""), 0);
        assert_eq!(p.priority(&j, 90, 0, 0.0), 900.0);
        assert_eq!(p.priority(&j, 5000, 0, 0.0), 12000.0);
    }

    #[test]
    fn job_size_is_over_the_cluster_model_and_partition_qos_from_the_trace() {
        // 16 of 32 cores on 2 of 4 nodes: (2/4 + 16/32) / 2 = 0.5 → 500.
        let p = policy("PriorityWeightJobSize=1000\n", &[]);
        assert_eq!(
            p.priority(&p.slurm_job(&job(0, 16, "", ""), 0), 0, 0, 0.0),
            500.0
        );
        let p = policy(
            "PriorityWeightPartition=1000\nPriorityWeightQOS=100\n\
             PartitionName=lo PriorityJobFactor=1\nPartitionName=hi PriorityJobFactor=4\n",
            &[("normal", 1), ("high", 2)],
        );
        let prio = |q: &str, qos: &str| p.priority(&p.slurm_job(&job(0, 1, q, qos), 0), 0, 0, 0.0);
        assert_eq!(prio("lo", "normal"), 250.0 + 50.0);
        assert_eq!(prio("hi", "high"), 1000.0 + 100.0);
    }

    #[test]
    fn fixed_terms_give_the_priority_bit_for_bit() {
        let confs = [
            "PriorityMaxAge=00:20:00\nPriorityWeightAge=12000\nPriorityWeightJobSize=1000\n\
             PriorityWeightFairshare=7777\n",
            "PriorityMaxAge=0\nPriorityWeightAge=3\nPriorityWeightJobSize=999\n\
             PriorityFavorSmall=YES\nPriorityWeightTRES=CPU=1000,Node=77\n\
             PriorityWeightPartition=1000\nPriorityWeightQOS=100\n\
             PartitionName=lo PriorityJobFactor=1\nPartitionName=hi PriorityJobFactor=4 PriorityTier=2\n",
            "PriorityMaxAge=1-0\nPriorityWeightAge=1000\nPriorityWeightJobSize=5000\n\
             PriorityFlags=SMALL_RELATIVE_TO_TIME\nPriorityWeightFairshare=10000\n\
             PartitionName=lo MaxTime=60\n",
        ];
        let mut seed: u64 = 7;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        let queues = ["", "lo", "hi", "lo,hi", "other"];
        let qoses = ["", "normal", "high"];
        for conf in confs {
            let p = policy(conf, &[("normal", 1), ("high", 2)]);
            let mut cache = FixedCache::default();
            let jobs: Vec<TraceJob> = (0..300)
                .map(|_| {
                    let mut j = job(
                        next(100_000) as i64,
                        1 + next(32),
                        queues[next(5) as usize],
                        qoses[next(3) as usize],
                    );
                    j.walltime = [None, Some(next(10_000) as i64)][next(2) as usize];
                    j
                })
                .collect();
            for j in &jobs {
                let origin = next(3) as i64;
                let fx = p.fixed(&mut cache, j, origin);
                let sj = p.slurm_job(j, origin);
                for _ in 0..5 {
                    let t = j.submit - 2 + next(200_000) as i64;
                    let fs = next(1001) as f64 / 1000.0;
                    let want = p.priority(&sj, t, origin, fs);
                    let got = p.priority_fixed(&cache, fx, t, origin, fs);
                    assert_eq!(got.to_bits(), want.to_bits(), "{conf} {j:?} at {t}");
                }
            }
            // Jobs of one shape share a class.
            assert!(cache.terms.len() < jobs.len());
        }
    }

    #[test]
    fn fair_share_adds_with_its_weight_and_the_algorithm_follows_the_flags() {
        let p = policy("PriorityWeightFairshare=2000\n", &[]);
        assert_eq!(p.share_keyword(), Some("fairtree_factor"));
        assert_eq!(
            p.priority(&p.slurm_job(&job(0, 1, "", ""), 0), 0, 0, 0.25),
            500.0
        );
        let p = policy(
            "PriorityWeightFairshare=1\nPriorityFlags=NO_FAIR_TREE\n",
            &[],
        );
        assert_eq!(p.share_keyword(), Some("classic_factor"));
        // Without SlurmDBD slurmctld ignores the fair-share weight.
        let conf = parse_slurm_conf("PriorityWeightFairshare=5\n", "s").unwrap();
        let one = Cluster {
            nodes: 1,
            cores_per_node: 1,
            mem_per_node: 0,
        };
        let p = SlurmPolicy::new(conf.clone(), BTreeMap::new(), one).unwrap();
        assert_eq!(p.share_keyword(), None);
        let huge = Cluster {
            nodes: MAX_SLURM_NODES + 1,
            cores_per_node: 1,
            mem_per_node: 0,
        };
        assert!(SlurmPolicy::new(conf, BTreeMap::new(), huge).is_err());
    }

    /// `next_change` is exact: the priority is the same at every second from `t` to the time
    /// it gives, and differs there (checked second by second over whole ages).
    #[test]
    fn next_change_is_the_first_second_the_priority_moves() {
        for conf in [
            "PriorityWeightAge=1000\nPriorityMaxAge=00:20:00\nPriorityWeightJobSize=500\n",
            "PriorityWeightAge=7\nPriorityMaxAge=00:10:00\nPriorityWeightFairshare=3\n",
            "PriorityWeightAge=3000000\nPriorityMaxAge=00:05:00\n",
            "PriorityWeightAge=0\nPriorityWeightJobSize=10\n",
        ] {
            let p = policy(conf, &[]);
            for (cores, submit, fs) in [(1, 0, 0.0), (8, 17, 0.37), (32, 5, 1.0)] {
                let mut cache = FixedCache::default();
                let j = job(submit, cores, "", "");
                let fx = p.fixed(&mut cache, &j, 0);
                let mut t = submit;
                let mut changes = 0;
                while t < submit + 2000 {
                    let v = p.priority_fixed(&cache, fx, t, 0, fs);
                    let next = p.next_change(&cache, fx, t, 0, fs);
                    assert!(next > t);
                    let end = next.min(submit + 2000);
                    for u in t..end {
                        assert_eq!(p.priority_fixed(&cache, fx, u, 0, fs), v, "{conf} at {u}");
                    }
                    if next < i64::MAX {
                        assert_ne!(
                            p.priority_fixed(&cache, fx, next, 0, fs),
                            v,
                            "{conf} at {next}"
                        );
                        changes += 1;
                    }
                    t = end;
                }
                if conf.starts_with("PriorityWeightAge=0") {
                    assert_eq!(changes, 0);
                } else {
                    assert!(changes > 0, "{conf}");
                }
            }
        }
    }
}
