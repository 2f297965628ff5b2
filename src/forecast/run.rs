//! What every site's forecast does once its snapshot is a trace: run the simulator from the
//! start state, and read back each pending job's first-cycle decision and predicted start.

use crate::forecast::result::JobForecast;
use crate::mem::hash::SeededMap;
use crate::replay::{
    forecast_from, Backfill, Cluster, Decision, Options, Outcome, ReplayError, StartState, Trace,
    TraceJob,
};

/// A forecast's run: the simulator's outcome and the first cycle's decisions by trace index.
pub(crate) struct Run {
    pub(crate) out: Outcome,
    pub(crate) decided: SeededMap<usize, Decision>,
}

impl Run {
    /// Runs `trace` from `state` on `cluster` under `backfill` (fair share does not move in a
    /// forecast: the order is the snapshot's).
    pub(crate) fn new(
        trace: &Trace,
        state: &StartState,
        cluster: Cluster,
        backfill: Backfill,
    ) -> Result<Run, ReplayError> {
        let opts = Options {
            cluster,
            backfill,
            half_life: 86_400.0,
            tree: None,
            decay: crate::replay::Decay::default(),
        };
        let (out, decisions) = forecast_from(trace, state, &opts)?;
        let mut decided = SeededMap::default();
        decided.extend(decisions);
        Ok(Run { out, decided })
    }

    /// The predicted start of trace job `t`, which did not start now: the scheduler's own
    /// estimate this cycle, else where the simulator placed it.
    pub(crate) fn start_of(&self, t: usize, d: &Decision) -> Option<i64> {
        d.estimate.or_else(|| {
            self.out
                .placements
                .get(t)
                .copied()
                .flatten()
                .map(|p| p.start)
        })
    }
}

/// The row of trace job `tj` (in scheduler state `state`, at `rank` of the order), before its
/// decision is known.
pub(crate) fn row(tj: &TraceJob, state: String, rank: Option<usize>) -> JobForecast {
    JobForecast {
        id: tj.id.clone(),
        state,
        queue: tj.queue.clone(),
        user: tj.user.clone(),
        cores: tj.cores,
        walltime: tj.planned(),
        rank,
        runs_now: false,
        top_job: false,
        priority: None,
        start: None,
        end: None,
        reason: None,
    }
}
