//! flux-accounting's priority as a replay's ordering (`fairsort replay --flux-db`): each pending
//! job's priority through `queue::flux_priority::priority` (the arithmetic of the `mf_priority`
//! plugin), with the fair-share factor of the replay's own usage (`flux_fairshare`, the
//! weighted walk of flux-accounting over the database's bank tree), the queue and bank factors of
//! the database, and the default urgency (docs/replay.md, "flux priority").

use crate::flux::priority::{priority, Site, Weights, URGENCY_DEFAULT};
use crate::mem::hash::SeededMap;
use crate::replay::trace::Trace;

/// The flux side of a replay: the plugin's weights and each trace job's queue and bank factors.
#[derive(Debug, Clone, PartialEq)]
pub struct FluxPolicy {
    weights: Weights,
    /// Per trace job: (queue factor, bank factor).
    factors: Vec<(i32, f64)>,
}

impl FluxPolicy {
    /// The policy of `site` (what `flux account-priority-update` loads from the database) for
    /// the jobs of `trace`. A job's association is (user name, bank); its queue factor is its
    /// queue's `queue_table` priority when the association may use the queue, else 0 (the
    /// plugin would have rejected the job at submission; the trace says it ran); a job of no
    /// association gets its queue's priority when flux-accounting knows the queue. Its bank
    /// factor is `bank_table.priority` of its bank (0 if unknown).
    pub fn new(site: &Site, trace: &Trace) -> FluxPolicy {
        let mut assoc: SeededMap<(&str, &str), usize> = SeededMap::default();
        for (i, a) in site.associations.iter().enumerate() {
            assoc
                .entry((a.username.as_str(), a.bank.as_str()))
                .or_insert(i);
        }
        let factors = trace
            .jobs
            .iter()
            .map(|j| {
                let queue = (!j.queue.is_empty()).then_some(j.queue.as_str());
                let qf = match assoc
                    .get(&(j.user.as_str(), j.account.as_str()))
                    .and_then(|&i| site.associations.get(i))
                {
                    Some(a) => site.queue_factor(queue, a).unwrap_or(0),
                    None => queue.and_then(|q| site.queues.get(q).copied()).unwrap_or(0),
                };
                (qf, site.bank_factor(&j.account))
            })
            .collect();
        FluxPolicy {
            weights: site.weights,
            factors,
        }
    }

    /// The weights in force.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// The fair-share keyword the priority needs, or none when its weight is 0.
    pub fn share_keyword(&self) -> Option<&'static str> {
        (self.weights.fairshare != 0).then_some("flux_fairshare")
    }

    /// The plugin's priority of trace job `j` with fair share `fairshare` (urgency 16); a sum
    /// outside an int64 (only with absurd weights) counts 0.
    pub(crate) fn priority(&self, j: usize, fairshare: f64) -> f64 {
        let (qf, bf) = self.factors.get(j).copied().unwrap_or((0, 0.0));
        priority(&self.weights, fairshare, qf, bf, URGENCY_DEFAULT)
            .priority()
            .map_or(0.0, |p| p as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flux::priority::Association;
    use crate::replay::trace::TraceJob;

    fn job(user: &str, bank: &str, queue: &str) -> TraceJob {
        TraceJob {
            id: "1".into(),
            submit: 0,
            run: 1,
            walltime: None,
            cores: 1,
            mem: 0,
            user: user.into(),
            account: bank.into(),
            queue: queue.into(),
            qos: String::new(),
        }
    }

    #[test]
    fn factors_follow_the_plugin() {
        let mut site = Site::default();
        site.add_association(Association {
            username: "ann".into(),
            userid: 1,
            bank: "a".into(),
            default_bank: "a".into(),
            fairshare: 0.0,
            queues: vec!["gold".into()],
            active: true,
        });
        site.queues.insert("gold".into(), 3);
        site.queues.insert("silver".into(), 2);
        site.banks.insert("a".into(), 1.5);
        site.weights = Weights {
            fairshare: 1000,
            queue: 100,
            bank: 10,
            urgency: 1000,
        };
        let trace = Trace {
            jobs: vec![
                job("ann", "a", "gold"),
                job("ann", "a", "silver"),
                job("bob", "b", "silver"),
                job("bob", "b", ""),
            ],
            ..Trace::default()
        };
        let p = FluxPolicy::new(&site, &trace);
        // round(1000·0.25 + 100·3 + 10·1.5 + 1000·0) = 565.
        assert_eq!(p.priority(0, 0.25), 565.0);
        // silver is not ann's: queue factor 0.
        assert_eq!(p.priority(1, 0.25), 265.0);
        // bob has no association: silver's priority, bank b unknown.
        assert_eq!(p.priority(2, 0.5), 700.0);
        assert_eq!(p.priority(3, 0.5), 500.0);
        assert_eq!(p.share_keyword(), Some("flux_fairshare"));
    }
}
