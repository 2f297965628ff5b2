//! The calendar of one scheduling pass: what is free now, what the running jobs give back at
//! their planned ends, and the holds placed in the future (top jobs, advance reservations).
//! It answers the two questions a strict-ordering scheduler with `backfill_depth` top jobs
//! asks of each job in turn: may it start now without delaying any hold, and, if not, when is
//! the earliest it could start (PBS's "Estimating the start time for a top job").
//!
//! Free resources over time only rise at a planned end or a hold's end and only fall at a
//! hold's start, so a job fits in `[t, t + walltime)` when it fits at `t` and at every hold
//! start inside the window. Each hold keeps what is free at its start; starting a job or
//! adding a hold updates those, so a fit check costs O(holds) and an estimate
//! O(running + holds × log holds).

use std::collections::BTreeMap;

/// Amounts of the resources the calendar counts: cores and memory (KB).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Res {
    /// Cores (`ncpus`).
    pub cores: u64,
    /// Memory in KB (0 when memory is not modelled).
    pub mem: u64,
}

impl Res {
    /// Whether `self` fits in `avail` (every resource).
    pub fn fits(self, avail: Res) -> bool {
        self.cores <= avail.cores && self.mem <= avail.mem
    }

    fn add(self, o: Res) -> Res {
        Res {
            cores: self.cores.saturating_add(o.cores),
            mem: self.mem.saturating_add(o.mem),
        }
    }

    fn sub(self, o: Res) -> Res {
        Res {
            cores: self.cores.saturating_sub(o.cores),
            mem: self.mem.saturating_sub(o.mem),
        }
    }
}

/// A hold in the future: a top job's calendared run or an advance reservation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hold {
    start: i64,
    end: i64,
    need: Res,
    /// What is free at `start`, this hold and every other counted.
    avail: Res,
}

/// One pass's calendar (see the module's doc).
#[derive(Debug, Clone, Default)]
pub struct Calendar {
    now: i64,
    free: Res,
    /// Planned ends after `now`: what each time gives back.
    releases: BTreeMap<i64, Res>,
    holds: Vec<Hold>,
}

impl Calendar {
    /// A calendar at `now` with `free` resources free now.
    pub fn new(now: i64, free: Res) -> Calendar {
        Calendar {
            now,
            free,
            releases: BTreeMap::new(),
            holds: Vec::new(),
        }
    }

    /// What is free now.
    pub fn free(&self) -> Res {
        self.free
    }

    /// A running job holding `res` until its planned `end` (an end at or before now is
    /// already free: the caller counted it in `free`).
    pub fn release_at(&mut self, end: i64, res: Res) {
        if end > self.now {
            let r = self.releases.entry(end).or_default();
            *r = r.add(res);
        }
    }

    /// What is free at `t` ≥ now, every release and hold counted.
    fn free_at(&self, t: i64) -> Res {
        let mut f = self.free;
        for (_, &r) in self.releases.range(..=t) {
            f = f.add(r);
        }
        let held = self
            .holds
            .iter()
            .filter(|h| h.start <= t && t < h.end)
            .fold(Res::default(), |a, h| a.add(h.need));
        f.sub(held)
    }

    /// Whether a job of `need` for `walltime` seconds may start now without delaying a hold.
    pub fn fits_now(&self, need: Res, walltime: i64) -> bool {
        let end = self.now.saturating_add(walltime.max(0));
        need.fits(self.free)
            && self
                .holds
                .iter()
                .all(|h| h.start >= end || h.end <= self.now || need.fits(h.avail))
    }

    /// Whether `need` is free now (what a scheduler checks before the holds).
    pub fn free_now(&self, need: Res) -> bool {
        need.fits(self.free)
    }

    /// Starts a job of `need` now, planned to end after `walltime` seconds.
    pub fn start_now(&mut self, need: Res, walltime: i64) {
        let end = self.now.saturating_add(walltime.max(0));
        self.free = self.free.sub(need);
        for h in &mut self.holds {
            if h.start < end {
                h.avail = h.avail.sub(need);
            }
        }
        self.release_at(end, need);
    }

    /// The earliest time ≥ now at which a job of `need` fits for `walltime` seconds (every
    /// hold start in its window too), or `None` when it never does on what is planned.
    pub fn earliest(&self, need: Res, walltime: i64) -> Option<i64> {
        let wt = walltime.max(0);
        // Free rises only at a release or at a hold's end: the candidates, in order.
        let mut times: Vec<i64> = self.holds.iter().map(|h| h.end).collect();
        times.extend(self.releases.keys().copied());
        times.retain(|&t| t > self.now);
        times.push(self.now);
        times.sort_unstable();
        times.dedup();
        // One sweep: what the holds take at each candidate (those started, less those
        // ended), and the starts of the holds this job would delay, in order.
        let mut starts: Vec<(i64, Res)> = self.holds.iter().map(|h| (h.start, h.need)).collect();
        let mut ends: Vec<(i64, Res)> = self.holds.iter().map(|h| (h.end, h.need)).collect();
        starts.sort_unstable_by_key(|h| h.0);
        ends.sort_unstable_by_key(|h| h.0);
        let mut bad: Vec<i64> = (self.holds.iter())
            .filter(|h| !need.fits(h.avail))
            .map(|h| h.start)
            .collect();
        bad.sort_unstable();
        let (mut si, mut ei) = (0, 0);
        let mut held = Res::default();
        let mut released = self.free;
        let mut rel = self.releases.iter().peekable();
        for &c in &times {
            while let Some((&t, &r)) = rel.peek() {
                if t > c {
                    break;
                }
                released = released.add(r);
                rel.next();
            }
            while let Some(&(_, n)) = starts.get(si).filter(|h| h.0 <= c) {
                held = held.add(n);
                si += 1;
            }
            while let Some(&(_, n)) = ends.get(ei).filter(|h| h.0 <= c) {
                held = held.sub(n);
                ei += 1;
            }
            if !need.fits(released.sub(held)) {
                continue;
            }
            let end = c.saturating_add(wt);
            let next_bad = bad.get(bad.partition_point(|&s| s <= c));
            if next_bad.is_none_or(|&s| s >= end) {
                return Some(c);
            }
        }
        None
    }

    /// The earliest time ≥ now at which `need` is free counting only the running jobs'
    /// planned ends (no hold), or `None` when it never is.
    pub fn earliest_running_only(&self, need: Res) -> Option<i64> {
        if need.fits(self.free) {
            return Some(self.now);
        }
        let mut f = self.free;
        for (&t, &r) in &self.releases {
            f = f.add(r);
            if need.fits(f) {
                return Some(t);
            }
        }
        None
    }

    /// The last planned end of a running job (`None`: none runs past now).
    pub fn last_release(&self) -> Option<i64> {
        self.releases.keys().next_back().copied()
    }

    /// Holds `need` from `start` for `walltime` seconds (a top job placed at `earliest`, or an
    /// advance reservation).
    pub fn hold(&mut self, start: i64, walltime: i64, need: Res) {
        let end = start.saturating_add(walltime.max(0));
        if end <= self.now {
            return;
        }
        for h in &mut self.holds {
            if start <= h.start && h.start < end {
                h.avail = h.avail.sub(need);
            }
        }
        let avail = self.free_at(start).sub(need);
        self.holds.push(Hold {
            start,
            end,
            need,
            avail,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(cores: u64) -> Res {
        Res { cores, mem: 0 }
    }

    /// The real cycle of `tests/data/pbs_forecast/depth2`: 8 cpus, running 4 (ends +3588) and
    /// 2 (ends +7188); p1 6 cpus 1 h and p2 8 cpus 2 h are top jobs, p4 (1 cpu, 40 min) starts,
    /// p5 (1 cpu, 5 h) would delay them.
    #[test]
    fn depth_two_places_both_top_jobs_and_backfills_around_them() {
        let mut cal = Calendar::new(0, c(2));
        cal.release_at(3588, c(4));
        cal.release_at(7188, c(2));
        assert!(!cal.fits_now(c(6), 3600));
        assert_eq!(cal.earliest(c(6), 3600), Some(3588));
        cal.hold(3588, 3600, c(6));
        assert_eq!(cal.earliest(c(8), 7200), Some(7188));
        cal.hold(7188, 7200, c(8));
        assert!(cal.fits_now(c(1), 2400));
        cal.start_now(c(1), 2400);
        assert!(cal.free_now(c(1)));
        assert!(!cal.fits_now(c(1), 5 * 3600), "would delay the top jobs");
        assert!(cal.fits_now(c(1), 3588));
    }

    #[test]
    fn a_job_larger_than_what_is_ever_free_has_no_start() {
        let mut cal = Calendar::new(10, c(2));
        cal.release_at(20, c(2));
        assert_eq!(cal.earliest(c(5), 1), None);
        assert_eq!(cal.earliest(c(4), 1), Some(20));
    }

    #[test]
    fn a_hold_in_a_window_must_fit_too() {
        // 4 free now; a reservation of 3 from 100 to 200: a 2-core job for 150 s fits only
        // after the reservation ends, a 1-core job now.
        let mut cal = Calendar::new(0, c(4));
        cal.hold(100, 100, c(3));
        assert!(!cal.fits_now(c(2), 150));
        assert!(cal.fits_now(c(1), 150));
        assert!(cal.fits_now(c(2), 100));
        assert_eq!(cal.earliest(c(2), 150), Some(200));
    }

    #[test]
    fn memory_counts_like_cores() {
        let mut cal = Calendar::new(
            0,
            Res {
                cores: 2,
                mem: 24 << 20,
            },
        );
        cal.release_at(
            7190,
            Res {
                cores: 6,
                mem: 8 << 20,
            },
        );
        let big = Res {
            cores: 1,
            mem: 30 << 20,
        };
        assert!(!cal.free_now(big));
        assert_eq!(cal.earliest(big, 3600), Some(7190));
    }
}
