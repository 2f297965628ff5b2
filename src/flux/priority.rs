//! flux-accounting's job priority, as its jobtap plugin `mf_priority` (v0.60,
//! `src/plugins/mf_priority.cpp`, `priority_calculation`) computes it:
//!
//! ```text
//! P = round(W_fs·fairshare + W_queue·queue_priority + W_bank·bank_priority + W_urg·(urgency − 16))
//! ```
//!
//! with the plugin's types: the weights are C `int`s, the fair share and bank priority `double`s,
//! the queue priority an `int` — so `W_queue·queue_priority` and `W_urg·(urgency − 16)` are `int`
//! products (wrapping at 2³¹ as x86 does) — summed left to right in `double`, rounded half away
//! from zero (C `round`), 0 when negative, no upper clamp. Urgency 0 (held) gives 0 and urgency 31
//! (expedited) 4294967295 before anything else. The queue factor is `queue_table.priority` when the
//! job's queue is known and permitted to the association, 0 without a queue or for a queue
//! flux-accounting does not know; the bank factor is `bank_table.priority` (0 for an unknown bank).
//!
//! One quirk is reproduced on purpose: the plugin keeps the queue factor on the *association*, not
//! on the job (`Association::queue_factor`, set by `job.new` from the job being submitted), and a
//! reprioritisation (`flux account-priority-update`, usually hourly) gives every pending job of the
//! association the factor of the association's latest job. [`QueueFactor::Association`] does that
//! (the state after a reprioritisation); [`QueueFactor::Job`] gives each job its own queue's factor
//! (the value each job got when it first entered the PRIORITY state).

use crate::flux::jobs::FluxJob;
use crate::mem::hash::SeededMap;

/// `FLUX_JOB_PRIORITY_MAX`: an expedited job's priority.
pub const PRIORITY_MAX: i64 = 4_294_967_295;
/// `FLUX_JOB_URGENCY_DEFAULT`.
pub const URGENCY_DEFAULT: i32 = 16;
/// `FLUX_JOB_URGENCY_HOLD`.
pub const URGENCY_HOLD: i32 = 0;
/// `FLUX_JOB_URGENCY_EXPEDITE`.
pub const URGENCY_EXPEDITE: i32 = 31;

/// The four weights of `priority_factor_weight_table` (C `int`s in the plugin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weights {
    /// `fairshare` (default 100000).
    pub fairshare: i32,
    /// `queue` (default 10000).
    pub queue: i32,
    /// `bank` (default 0).
    pub bank: i32,
    /// `urgency` (default 1000).
    pub urgency: i32,
}

impl Default for Weights {
    /// The plugin's `DEFAULT_*_WEIGHT`s, used for a factor the database does not list.
    fn default() -> Self {
        Weights {
            fairshare: 100_000,
            queue: 10_000,
            bank: 0,
            urgency: 1000,
        }
    }
}

impl Weights {
    /// Sets one factor's weight by its `priority_factor_weight_table` name; other names are
    /// ignored, as the plugin ignores them (returns whether the name was one of the four).
    pub fn set_factor(&mut self, factor: &str, weight: i32) -> bool {
        match factor {
            "fairshare" => self.fairshare = weight,
            "queue" => self.queue = weight,
            "bank" => self.bank = weight,
            "urgency" => self.urgency = weight,
            _ => return false,
        }
        true
    }

    /// Applies a what-if list `fairshare=1000,queue=100000,...` over these weights.
    pub fn set(&mut self, list: &str) -> Result<(), String> {
        let mut any = false;
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| format!("`{item}` is not FACTOR=WEIGHT"))?;
            let w: i32 = v.trim().parse().map_err(|_| {
                format!(
                    "{}: `{}` is not an integer weight (a C int, as the plugin keeps it)",
                    k.trim(),
                    v.trim()
                )
            })?;
            let name = k.trim().to_ascii_lowercase();
            if !self.set_factor(&name, w) {
                return Err(format!(
                    "unknown factor `{}` (expected fairshare, queue, bank or urgency)",
                    k.trim()
                ));
            }
            any = true;
        }
        if any {
            Ok(())
        } else {
            Err("no FACTOR=WEIGHT given".to_string())
        }
    }
}

/// One row of `association_table` as `flux account-priority-update` sends it to the plugin.
#[derive(Debug, Clone, PartialEq)]
pub struct Association {
    /// `username`.
    pub username: String,
    /// `userid` as the plugin's C `int`.
    pub userid: i32,
    /// `bank`.
    pub bank: String,
    /// `default_bank`.
    pub default_bank: String,
    /// `fairshare` (written by `flux account-update-fshare`).
    pub fairshare: f64,
    /// `queues` split on `,` (empty when the column has no text).
    pub queues: Vec<String>,
    /// `active` ≠ 0.
    pub active: bool,
}

/// What the plugin holds after `flux account-priority-update`: associations by (userid, bank),
/// each user's default bank, the queues and banks with their priorities, the weights.
#[derive(Debug, Clone, Default)]
pub struct Site {
    /// Associations in table order (a later row with the same (userid, bank) replaces one).
    pub associations: Vec<Association>,
    /// userid → bank → index in `associations` (looked up by `&str`, no key built per job).
    by_key: SeededMap<i32, SeededMap<String, usize>>,
    default_bank: SeededMap<i32, String>,
    /// `queue_table`: name → priority (a C `int`).
    pub queues: SeededMap<String, i32>,
    /// `bank_table`: name → priority.
    pub banks: SeededMap<String, f64>,
    /// `priority_factor_weight_table` over the defaults.
    pub weights: Weights,
    /// `config_table`'s `deny_unknown_queues`.
    pub deny_unknown_queues: bool,
}

impl Site {
    /// Adds an association as the plugin's `load_associations` does: it replaces an earlier one
    /// with the same (userid, bank), and its `default_bank` becomes the user's default bank.
    pub fn add_association(&mut self, a: Association) {
        self.default_bank.insert(a.userid, a.default_bank.clone());
        let banks = self.by_key.entry(a.userid).or_default();
        match banks.get(&a.bank) {
            Some(&i) => self.associations[i] = a,
            None => {
                banks.insert(a.bank.clone(), self.associations.len());
                self.associations.push(a);
            }
        }
    }

    /// `get_association`: the job's bank, or the user's default bank when it names none.
    pub fn association(&self, userid: i32, bank: Option<&str>) -> Option<&Association> {
        self.association_index(userid, bank)
            .map(|i| &self.associations[i])
    }

    /// [`Site::association`]'s index in `associations`.
    pub fn association_index(&self, userid: i32, bank: Option<&str>) -> Option<usize> {
        let banks = self.by_key.get(&userid)?;
        let bank = match bank {
            Some(b) => b,
            None => self.default_bank.get(&userid)?.as_str(),
        };
        banks.get(bank).copied()
    }

    /// The queue factor `get_queue_info` gives: `Ok(priority)` for a known, permitted queue;
    /// `Ok(0)` without a queue or for a queue not in `queue_table`; `Err` for a known queue the
    /// association may not use (the plugin rejects such a job).
    pub fn queue_factor(&self, queue: Option<&str>, assoc: &Association) -> Result<i32, String> {
        let Some(q) = queue else { return Ok(0) };
        let Some(&p) = self.queues.get(q) else {
            return Ok(0);
        };
        if assoc.queues.iter().any(|x| x == q) {
            Ok(p)
        } else {
            Err(format!(
                "queue \"{q}\" not valid for user; valid queues for user: {}",
                assoc.queues.join(",")
            ))
        }
    }

    /// Sets the fair share of every association (username, bank) — one per user id that has
    /// that name; returns how many were set.
    pub fn set_fairshare(&mut self, username: &str, bank: &str, fairshare: f64) -> usize {
        let mut n = 0;
        for a in &mut self.associations {
            if a.username == username && a.bank == bank {
                a.fairshare = fairshare;
                n += 1;
            }
        }
        n
    }

    /// `get_bank_priority`: the bank's priority, 0 for a bank not in `bank_table`.
    pub fn bank_factor(&self, bank: &str) -> f64 {
        self.banks.get(bank).copied().unwrap_or(0.0)
    }
}

/// The four terms of the sum, weighted, in the plugin's types.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Terms {
    /// `fshare_weight * fshare_factor` (double).
    pub fairshare: f64,
    /// `queue_weight * queue_factor` (int).
    pub queue: i32,
    /// `bank_weight * bank_factor` (double).
    pub bank: f64,
    /// `urgency_weight * (urgency - 16)` (int).
    pub urgency: i32,
}

impl Terms {
    /// The terms of a job's factors.
    pub fn of(
        w: &Weights,
        fairshare: f64,
        queue_factor: i32,
        bank_factor: f64,
        urgency: i32,
    ) -> Terms {
        Terms {
            fairshare: f64::from(w.fairshare) * fairshare,
            // int × int in C: x86 wraps on overflow.
            queue: w.queue.wrapping_mul(queue_factor),
            bank: f64::from(w.bank) * bank_factor,
            urgency: w
                .urgency
                .wrapping_mul(urgency.wrapping_sub(URGENCY_DEFAULT)),
        }
    }

    /// The sum as the plugin forms it: left to right, in double.
    pub fn sum(&self) -> f64 {
        ((self.fairshare + f64::from(self.queue)) + self.bank) + f64::from(self.urgency)
    }
}

/// What the plugin gives a job.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A priority from the four factors (0 when the sum is negative).
    Priority(i64),
    /// Urgency 0: priority 0 (`FLUX_JOB_PRIORITY_MIN`), not considered for scheduling.
    Held,
    /// Urgency 31: priority 4294967295 (`FLUX_JOB_PRIORITY_MAX`).
    Expedited,
    /// The plugin does not accept the job (message as the plugin words it).
    Rejected(String),
    /// The rounded sum is not an int64 (infinite, NaN or ≥ 2⁶³): C's conversion is undefined.
    OutOfRange(f64),
}

impl Outcome {
    /// The integer priority flux would hold, if any.
    pub fn priority(&self) -> Option<i64> {
        match self {
            Outcome::Priority(p) => Some(*p),
            Outcome::Held => Some(0),
            Outcome::Expedited => Some(PRIORITY_MAX),
            Outcome::Rejected(_) | Outcome::OutOfRange(_) => None,
        }
    }

    /// A short status word for tables.
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Priority(_) => "pending",
            Outcome::Held => "held",
            Outcome::Expedited => "expedited",
            Outcome::Rejected(_) => "rejected",
            Outcome::OutOfRange(_) => "out of range",
        }
    }
}

/// `priority_calculation` for one job whose association is known: hold and expedite first,
/// then `round` of the sum, negative → 0.
pub fn priority(
    w: &Weights,
    fairshare: f64,
    queue_factor: i32,
    bank_factor: f64,
    urgency: i32,
) -> Outcome {
    if urgency == URGENCY_HOLD {
        return Outcome::Held;
    }
    if urgency == URGENCY_EXPEDITE {
        return Outcome::Expedited;
    }
    let p = Terms::of(w, fairshare, queue_factor, bank_factor, urgency)
        .sum()
        .round();
    if p < 0.0 {
        return Outcome::Priority(0);
    }
    // `return priority;` converts the double to int64_t: defined only below 2^63.
    if p.is_nan() || p >= 9_223_372_036_854_775_808.0 {
        return Outcome::OutOfRange(p);
    }
    Outcome::Priority(p as i64)
}

/// Where a job's queue factor comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueueFactor {
    /// The association's latest job's queue (the plugin's state after a reprioritisation).
    #[default]
    Association,
    /// The job's own queue (the value each job got on entering the PRIORITY state).
    Job,
}

impl std::str::FromStr for QueueFactor {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "association" => Ok(QueueFactor::Association),
            "job" => Ok(QueueFactor::Job),
            _ => Err(format!(
                "unknown queue factor source `{s}` (expected association or job)"
            )),
        }
    }
}

/// One job's priority and how it was formed.
#[derive(Debug, Clone, PartialEq)]
pub struct FluxRow {
    /// Index of the job in the input.
    pub job: usize,
    /// The numeric job id.
    pub id: u64,
    /// The user id.
    pub userid: i64,
    /// The association's user name (else the input's `username`, else the user id).
    pub user: String,
    /// The bank used: the job's, else the user's default bank (empty when unknown).
    pub bank: String,
    /// The job's queue (empty when none).
    pub queue: String,
    /// Urgency.
    pub urgency: i32,
    /// The association's fair share (0 when not found).
    pub fairshare: f64,
    /// The queue factor used (queue_table priority).
    pub queue_priority: i32,
    /// The bank factor used (bank_table priority).
    pub bank_priority: f64,
    /// The weighted terms.
    pub terms: Terms,
    /// The result.
    pub outcome: Outcome,
    /// When the queue factor comes from another job of the association (the plugin's
    /// per-association queue factor): that job's id and queue.
    pub queue_from: Option<(u64, String)>,
    /// Whether the association is disabled (`active = 0`): new jobs would be rejected.
    pub inactive: bool,
}

fn lookup_userid(userid: i64) -> i32 {
    // The plugin unpacks `userid` with "i" (a C int).
    userid as i32
}

/// Computes every pending job's priority (jobs not pending are only used to find each
/// association's latest job), sorted as flux runs them: priority descending, then job id
/// ascending; jobs without a priority (rejected, out of range) last, by id.
pub fn compute(
    site: &Site,
    weights: &Weights,
    jobs: &[FluxJob],
    mode: QueueFactor,
) -> Vec<FluxRow> {
    // Each job's association, and each association's latest accepted job.
    let assoc_of: Vec<Option<usize>> = jobs
        .iter()
        .map(|j| site.association_index(lookup_userid(j.userid), j.bank.as_deref()))
        .collect();
    let mut latest: Vec<Option<usize>> = vec![None; site.associations.len()];
    if mode == QueueFactor::Association {
        for (i, j) in jobs.iter().enumerate() {
            let Some(a) = assoc_of[i] else { continue };
            if site
                .queue_factor(j.queue.as_deref(), &site.associations[a])
                .is_err()
            {
                continue;
            }
            match latest[a] {
                Some(k) if jobs[k].id >= j.id => {}
                _ => latest[a] = Some(i),
            }
        }
    }
    let mut rows: Vec<FluxRow> = Vec::new();
    for (i, j) in jobs.iter().enumerate() {
        if !j.is_pending() {
            continue;
        }
        let uid = lookup_userid(j.userid);
        let mut row = FluxRow {
            job: i,
            id: j.id,
            userid: j.userid,
            user: String::new(),
            bank: String::new(),
            queue: j.queue.clone().unwrap_or_default(),
            urgency: j.urgency,
            fairshare: 0.0,
            queue_priority: 0,
            bank_priority: 0.0,
            terms: Terms::of(weights, 0.0, 0, 0.0, j.urgency),
            outcome: Outcome::Rejected(String::new()),
            queue_from: None,
            inactive: false,
        };
        let Some(ai) = assoc_of[i] else {
            row.user = j.username.clone().unwrap_or_else(|| j.userid.to_string());
            row.bank = j.bank.clone().unwrap_or_default();
            row.outcome = Outcome::Rejected(format!(
                "cannot find user/bank or user/default bank entry for uid: {uid}"
            ));
            rows.push(row);
            continue;
        };
        let a = &site.associations[ai];
        row.user = a.username.clone();
        row.bank = a.bank.clone();
        row.inactive = !a.active;
        if site.deny_unknown_queues {
            if let Some(q) = j.queue.as_deref().filter(|q| !site.queues.contains_key(*q)) {
                row.outcome = Outcome::Rejected(format!(
                    "queue \"{q}\" is unknown to flux-accounting and deny-unknown-queues is enabled"
                ));
                rows.push(row);
                continue;
            }
        }
        if let Err(m) = site.queue_factor(j.queue.as_deref(), a) {
            row.outcome = Outcome::Rejected(m);
            rows.push(row);
            continue;
        }
        let source = match mode {
            QueueFactor::Job => i,
            QueueFactor::Association => latest[ai].unwrap_or(i),
        };
        let qf = site
            .queue_factor(jobs[source].queue.as_deref(), a)
            .unwrap_or(0);
        if source != i && jobs[source].queue != j.queue {
            row.queue_from = Some((
                jobs[source].id,
                jobs[source].queue.clone().unwrap_or_default(),
            ));
        }
        row.fairshare = a.fairshare;
        row.queue_priority = qf;
        row.bank_priority = site.bank_factor(&a.bank);
        row.terms = Terms::of(weights, a.fairshare, qf, row.bank_priority, j.urgency);
        row.outcome = priority(weights, a.fairshare, qf, row.bank_priority, j.urgency);
        rows.push(row);
    }
    // Sort small keys, then move each row once (rows are a few hundred bytes).
    let mut keys: Vec<(bool, std::cmp::Reverse<i64>, u64, usize)> = rows
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let p = r.outcome.priority();
            (p.is_none(), std::cmp::Reverse(p.unwrap_or(0)), r.id, k)
        })
        .collect();
    keys.sort_unstable();
    let mut slots: Vec<Option<FluxRow>> = rows.into_iter().map(Some).collect();
    keys.iter()
        .filter_map(|k| slots.get_mut(k.3).and_then(Option::take))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(fairshare: i32, queue: i32, bank: i32, urgency: i32) -> Weights {
        Weights {
            fairshare,
            queue,
            bank,
            urgency,
        }
    }

    fn p(o: Outcome) -> i64 {
        o.priority().unwrap()
    }

    #[test]
    fn t1001_fairshare_and_urgency_weight_one() {
        // flux-accounting t/t1001-mf-priority-basic.t: fairshare 0.45321 (account3) and 0.11345
        // (account2), weights from the payload: urgency 1, the rest default.
        let ws = w(100_000, 10_000, 0, 1);
        assert_eq!(p(priority(&ws, 0.45321, 0, 0.0, 16)), 45321);
        assert_eq!(p(priority(&ws, 0.45321, 0, 0.0, 15)), 45320);
        assert_eq!(priority(&ws, 0.45321, 0, 0.0, 0), Outcome::Held);
        assert_eq!(p(priority(&ws, 0.45321, 0, 0.0, 0)), 0);
        assert_eq!(p(priority(&ws, 0.45321, 0, 0.0, 31)), 4_294_967_295);
        assert_eq!(p(priority(&ws, 0.11345, 0, 0.0, 16)), 11345);
    }

    #[test]
    fn t1013_queue_priorities() {
        // t/t1013-mf-priority-queues.t: fair share 0.5 (new association), default weights;
        // standby 0 → 50000, expedite 10000 → 100050000, no queue → 50000.
        let ws = Weights::default();
        assert_eq!(p(priority(&ws, 0.5, 0, 0.0, 16)), 50_000);
        assert_eq!(p(priority(&ws, 0.5, 10_000, 0.0, 16)), 100_050_000);
        // bronze 200, silver 300, gold 400: expedite > gold > silver > bronze > standby.
        let order: Vec<i64> = [10_000, 400, 300, 200, 0]
            .iter()
            .map(|&q| p(priority(&ws, 0.5, q, 0.0, 16)))
            .collect();
        assert!(order.windows(2).all(|x| x[0] > x[1]), "{order:?}");
    }

    #[test]
    fn t1054_bank_priorities() {
        // t/t1054-mf-priority-bank-priorities.t: only the bank factor, weight 100;
        // banks A 1, B 2, C 3.5 → 100, 200, 350.
        let ws = w(0, 0, 100, 0);
        assert_eq!(p(priority(&ws, 0.5, 0, 1.0, 16)), 100);
        assert_eq!(p(priority(&ws, 0.5, 0, 2.0, 16)), 200);
        assert_eq!(p(priority(&ws, 0.5, 0, 3.5, 16)), 350);
    }

    #[test]
    fn doc_job_priorities_bank_example() {
        // doc/components/job-priorities.rst: bank weight 10, bank A 300 → 53000, C −5 → 49950.
        let ws = w(100_000, 10_000, 10, 1000);
        assert_eq!(p(priority(&ws, 0.5, 0, 300.0, 16)), 53_000);
        assert_eq!(p(priority(&ws, 0.5, 0, -5.0, 16)), 49_950);
        // The doc's first example: 0.5 × 100000 + 0 + 0 + 0 = 50000.
        assert_eq!(p(priority(&Weights::default(), 0.5, 0, 0.0, 16)), 50_000);
    }

    #[test]
    fn t1056_urgency_factor() {
        // t/t1056-mf-priority-urgency-factor.t: only urgency (1000): 17 → 1000, 15 → −1000 → 0;
        // then fairshare weight 100 (fair share 0.5): 18 → 2050, 17 → 1050.
        let ws = w(0, 0, 0, 1000);
        assert_eq!(p(priority(&ws, 0.5, 0, 0.0, 17)), 1000);
        assert_eq!(priority(&ws, 0.5, 0, 0.0, 15), Outcome::Priority(0));
        let ws = w(100, 0, 0, 1000);
        assert_eq!(p(priority(&ws, 0.5, 0, 0.0, 18)), 2050);
        assert_eq!(p(priority(&ws, 0.5, 0, 0.0, 17)), 1050);
    }

    #[test]
    fn t1002_small_no_tie_order() {
        // t/t1002-mf-priority-small-no-tie.t with t/expected/sample_payloads/small_no_tie.json:
        // the stored fair shares (6 decimals) under default weights order the queue
        // 5031, 5032, 5021, 5022, 5013, 5011, 5012.
        let fs = [
            (5011, 0.285714),
            (5012, 0.142857),
            (5013, 0.428571),
            (5021, 0.714286),
            (5022, 0.571429),
            (5031, 1.0),
            (5032, 0.857143),
        ];
        let mut v: Vec<(i64, i32)> = fs
            .iter()
            .map(|&(u, f)| (p(priority(&Weights::default(), f, 0, 0.0, 16)), u))
            .collect();
        assert_eq!(v[0].0, 28_571); // 28571.4 rounds down
        assert_eq!(v[3].0, 71_429); // 71428.6 rounds up
        v.sort_by_key(|x| std::cmp::Reverse(x.0));
        let order: Vec<i32> = v.iter().map(|x| x.1).collect();
        assert_eq!(order, [5031, 5032, 5021, 5022, 5013, 5011, 5012]);
    }

    #[test]
    fn rounding_is_half_away_from_zero_on_the_double_sum() {
        // 0.000005 × 100000 is 0.5 in double and 0.000025 × 100000 is 2.5: C round gives 1 and
        // 3 (half away from zero), where round-half-even would give 0 and 2.
        let ws = w(100_000, 0, 0, 0);
        assert_eq!(p(priority(&ws, 0.000005, 0, 0.0, 16)), 1);
        assert_eq!(p(priority(&ws, 0.000025, 0, 0.0, 16)), 3);
        // Exactly .5 rounds up (C round), not to even: bank 2.5 × weight 1.
        assert_eq!(p(priority(&w(0, 0, 1, 0), 0.0, 0, 2.5, 16)), 3);
        assert_eq!(p(priority(&w(0, 0, 1, 0), 0.0, 0, 0.5, 16)), 1);
        // A negative sum that rounds to −0 is not < 0: priority 0 either way.
        assert_eq!(p(priority(&w(0, 0, 1, 0), 0.0, 0, -0.4, 16)), 0);
    }

    #[test]
    fn int_products_wrap_like_x86() {
        // queue weight 10000 × queue priority 300000 = 3e9 does not fit a C int: it wraps to
        // 3e9 − 2³² = −1294967296, and the job's priority is clamped to 0.
        let ws = w(0, 10_000, 0, 0);
        let t = Terms::of(&ws, 0.0, 300_000, 0.0, 16);
        assert_eq!(t.queue, -1_294_967_296);
        assert_eq!(priority(&ws, 0.0, 300_000, 0.0, 16), Outcome::Priority(0));
        // No upper clamp: 0.5 × 2147483647 + 10000 × 200000 = 3073741823.5 → 3073741824.
        let ws = w(i32::MAX, 10_000, 0, 0);
        assert_eq!(p(priority(&ws, 0.5, 200_000, 0.0, 16)), 3_073_741_824);
        // A sum beyond int64 has no defined conversion.
        let ws = w(i32::MAX, 0, i32::MAX, 0);
        assert!(matches!(
            priority(&ws, 0.0, 0, 1e300, 16),
            Outcome::OutOfRange(_)
        ));
        assert!(matches!(
            priority(&ws, f64::NAN, 0, 0.0, 16),
            Outcome::OutOfRange(_)
        ));
    }

    #[test]
    fn what_if_weights() {
        let mut ws = Weights::default();
        ws.set("fairshare=1000, queue=100000,BANK=500").unwrap();
        assert_eq!(ws, w(1000, 100_000, 500, 1000));
        assert!(ws.set("age=1").is_err());
        assert!(ws.set("queue=x").is_err());
        assert!(ws.set("queue=3000000000").is_err());
        assert!(ws.set("").is_err());
        assert!(ws.set("queue").is_err());
    }

    fn assoc(user: &str, uid: i32, bank: &str, def: &str, fs: f64, queues: &[&str]) -> Association {
        Association {
            username: user.into(),
            userid: uid,
            bank: bank.into(),
            default_bank: def.into(),
            fairshare: fs,
            queues: queues.iter().map(|s| s.to_string()).collect(),
            active: true,
        }
    }

    fn job(id: u64, uid: i64, bank: Option<&str>, queue: Option<&str>, urgency: i32) -> FluxJob {
        FluxJob {
            id,
            userid: uid,
            username: None,
            urgency,
            queue: queue.map(str::to_string),
            bank: bank.map(str::to_string),
            state: Some("SCHED".into()),
            t_submit: 0.0,
        }
    }

    /// accounting_test01.cpp's queues (bronze 100, silver 200, gold 300) and t1013's user.
    fn site() -> Site {
        let mut s = Site::default();
        s.queues.insert("bronze".into(), 100);
        s.queues.insert("silver".into(), 200);
        s.queues.insert("gold".into(), 300);
        s.add_association(assoc("u1", 1001, "A", "A", 0.5, &["bronze", "silver"]));
        s.add_association(assoc("u1", 1001, "B", "A", 0.25, &[]));
        s.banks.insert("A".into(), 0.0);
        s.banks.insert("B".into(), 2.0);
        s
    }

    #[test]
    fn accounting_test01_get_queue_info() {
        // src/plugins/test/accounting_test01.cpp: test_get_queue_info_success (bronze → 100),
        // _no_queue_specified (→ 0), _unknown_queue (platinum → 0), _invalid_queue (gold → reject).
        let s = site();
        let a = s.association(1001, Some("A")).unwrap();
        assert_eq!(s.queue_factor(Some("bronze"), a), Ok(100));
        assert_eq!(s.queue_factor(None, a), Ok(0));
        assert_eq!(s.queue_factor(Some("platinum"), a), Ok(0));
        assert_eq!(
            s.queue_factor(Some("gold"), a),
            Err("queue \"gold\" not valid for user; valid queues for user: bronze,silver".into())
        );
        // test_get_association_success / _noexist / default bank.
        assert_eq!(s.association(1001, None).unwrap().bank, "A");
        assert!(s.association(9999, None).is_none());
        assert!(s.association(1001, Some("C")).is_none());
        assert_eq!(s.bank_factor("B"), 2.0);
        assert_eq!(s.bank_factor("nope"), 0.0);
    }

    #[test]
    fn compute_orders_like_flux_and_reports_rejections() {
        let s = site();
        let jobs = vec![
            job(10, 1001, None, Some("bronze"), 16), // A, 50000 + 1000000
            job(11, 1001, Some("B"), None, 16),      // B, 25000
            job(12, 1001, Some("A"), Some("gold"), 16), // not permitted
            job(13, 4242, None, None, 16),           // unknown user
            job(14, 1001, Some("B"), None, 0),       // held
            job(15, 1001, Some("B"), None, 31),      // expedited
            job(16, 1001, Some("B"), None, 16),      // ties with 11: later id after
        ];
        let rows = compute(&s, &s.weights, &jobs, QueueFactor::Job);
        let ids: Vec<u64> = rows.iter().map(|r| r.id).collect();
        assert_eq!(ids, [15, 10, 11, 16, 14, 12, 13]);
        assert_eq!(rows[1].outcome, Outcome::Priority(1_050_000));
        assert_eq!(rows[2].outcome, Outcome::Priority(25_000));
        assert_eq!(rows[4].outcome, Outcome::Held);
        assert!(matches!(&rows[5].outcome, Outcome::Rejected(m) if m.contains("gold")));
        assert!(matches!(&rows[6].outcome, Outcome::Rejected(m) if m.contains("uid: 4242")));
        assert_eq!(rows[1].bank, "A");
    }

    #[test]
    fn the_queue_factor_belongs_to_the_association() {
        // mf_priority.cpp new_cb: `b->queue_factor = get_queue_info (...)` on the association;
        // after a reprioritisation every pending job of (1001, A) has the latest job's factor.
        let s = site();
        let jobs = vec![
            job(20, 1001, Some("A"), Some("silver"), 16),
            job(21, 1001, Some("A"), Some("bronze"), 16),
        ];
        let per_assoc = compute(&s, &s.weights, &jobs, QueueFactor::Association);
        assert!(per_assoc
            .iter()
            .all(|r| r.outcome == Outcome::Priority(1_050_000)));
        assert_eq!(per_assoc[0].id, 20);
        assert_eq!(per_assoc[0].queue_from, Some((21, "bronze".to_string())));
        let per_job = compute(&s, &s.weights, &jobs, QueueFactor::Job);
        assert_eq!(per_job[0].id, 20);
        assert_eq!(per_job[0].outcome, Outcome::Priority(2_050_000));
        assert_eq!(per_job[0].queue_from, None);
        // A running job counts as the latest too; it is not listed.
        let mut jobs = jobs;
        jobs.push(FluxJob {
            state: Some("RUN".into()),
            ..job(22, 1001, Some("A"), Some("silver"), 16)
        });
        let rows = compute(&s, &s.weights, &jobs, QueueFactor::Association);
        assert_eq!(rows.len(), 2);
        assert!(rows
            .iter()
            .all(|r| r.outcome == Outcome::Priority(2_050_000)));
    }

    #[test]
    fn later_rows_replace_and_set_the_default_bank() {
        // load_associations: users[uid][bank] is overwritten, users_def_bank[uid] = last def_bank
        // (t/t1029-mf-priority-default-bank.t: edit-user --default-bank=account2 → jobs without
        // a bank go to account2).
        let mut s = site();
        s.add_association(assoc("u1", 1001, "A", "B", 0.75, &[]));
        assert_eq!(s.association(1001, None).unwrap().bank, "B");
        assert_eq!(s.association(1001, Some("A")).unwrap().fairshare, 0.75);
        assert_eq!(s.associations.len(), 2);
    }

    #[test]
    fn deny_unknown_queues_rejects() {
        // t/t1097-mf-priority-unknown-queues.t: an unknown queue is accepted (factor 0) unless
        // deny_unknown_queues is set.
        let mut s = site();
        let jobs = vec![job(1, 1001, None, Some("foo"), 16)];
        let rows = compute(&s, &s.weights, &jobs, QueueFactor::Job);
        assert_eq!(rows[0].outcome, Outcome::Priority(50_000));
        s.deny_unknown_queues = true;
        let rows = compute(&s, &s.weights, &jobs, QueueFactor::Job);
        assert!(
            matches!(&rows[0].outcome, Outcome::Rejected(m) if m.contains("deny-unknown-queues"))
        );
    }
}
