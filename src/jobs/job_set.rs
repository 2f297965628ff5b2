//! `JobSet`, the job model: a queue's jobs (each a `Job`, `job_record.rs`) stored compactly so a
//! million jobs bind without per-job string look-ups: names are interned into `Sym`s once
//! (`names.rs`), requests are kept in one vector; `build_columns` gives a column view (`columns.rs`).

use crate::jobs::error::JobsError;
use crate::jobs::names::name_hash;
use crate::parallel::{self, PARALLEL_MIN_JOBS};

// Defined in the files below; `queue::job::Job` and the others still name them.
pub use crate::jobs::columns::{Columns, ResourceColumn};
pub use crate::jobs::job::{id_sequence, Job, JobId, JobState, Request, ResourceValue};
pub use crate::jobs::names::{Names, Sym};

/// Whether two jobs' ids have the same hash: the id hashes, made and sorted on every worker
/// for a large set, checked for a repeat. Almost always false, and then no id is seen twice.
fn may_have_duplicate_ids(jobs: &[Job]) -> bool {
    let mut h: Vec<u64> = parallel::map_slice(jobs, |_, j| name_hash(&j.id));
    parallel::sort_unstable(&mut h);
    // Each range checked with the first hash of the next, so every pair of neighbours is seen.
    let repeats = parallel::map_ranges(parallel::ranges(h.len(), PARALLEL_MIN_JOBS, 1), |r| {
        let part = h.get(r.start..(r.end + 1).min(h.len())).unwrap_or_default();
        part.windows(2).any(|w| w[0] == w[1])
    });
    repeats.into_iter().any(|r| r)
}

/// The id seen twice whose second sighting comes first (in `jobs` order), if any. Sorting
/// (hash, position) pairs is several times faster on a million jobs than a hash set of ids
/// (that probed a cold 1M-slot table per job); equal hashes are confirmed on the ids. The
/// cheaper [`may_have_duplicate_ids`] runs first, so this only runs when two hashes agree.
fn first_duplicate_id(jobs: &[Job]) -> Option<&str> {
    if !may_have_duplicate_ids(jobs) {
        return None;
    }
    // Hashed and sorted on every worker (a million ids: the hashing reads every id's heap
    // bytes); the keys are distinct.
    let mut keys: Vec<(u64, usize)> = parallel::map_slice(jobs, |i, j| (name_hash(&j.id), i));
    parallel::sort_unstable(&mut keys);
    let mut best: Option<usize> = None;
    let mut start = 0;
    while start < keys.len() {
        let hash = keys[start].0;
        let end = start + keys[start..].iter().take_while(|k| k.0 == hash).count();
        if end - start > 1 {
            // Equal hashes: sort the run by (id, position) — O(k log k) even if an input is
            // built to collide — and a pair of equal neighbours is an id's first two sightings.
            let mut run: Vec<(&str, usize)> = keys[start..end]
                .iter()
                .map(|&(_, i)| (jobs[i].id.as_str(), i))
                .collect();
            run.sort_unstable();
            for pair in run.windows(2) {
                if pair[0].0 == pair[1].0 {
                    best = Some(best.map_or(pair[1].1, |b| b.min(pair[1].1)));
                }
            }
        }
        start = end;
    }
    best.map(|i| jobs[i].id.as_str())
}

/// From this many jobs on, [`JobSet::sort_submission`] sorts keys and moves each job once.
const KEY_SORT_MIN_JOBS: usize = 1 << 12;

/// Submission order: qtime, then the id's sequence number and array index, then the id.
fn submission_cmp(a: &Job, b: &Job) -> std::cmp::Ordering {
    (a.qtime, a.seq, a.array_index(), a.id.as_bytes()).cmp(&(
        b.qtime,
        b.seq,
        b.array_index(),
        b.id.as_bytes(),
    ))
}

/// Submission keys packed into integers (see [`packed_keys`]).
enum Packed {
    /// One `u64` per job, the job's position in the low `.1` bits.
    Narrow(Vec<u64>, u32),
    /// One `u128` per job, the job's position in the low 32 bits.
    Wide(Vec<u128>),
}

/// The submission keys of `jobs` packed one per integer: (qtime, seq, array index) less their
/// minimums in the high bits, the job's position in the low ones, so integer order is the
/// tuple order and every key is distinct. A `u64` when the ranges and the positions fit in 64
/// bits (a day of qtimes, ten million sequence numbers and a million jobs do), else a `u128`
/// with 96 bits for the ranges; `None` when they need more than 96 bits (the caller then sorts
/// tuples). A `u64` is half the memory of a `u128` to write and sort, an eighth of a tuple's.
fn packed_keys(jobs: &[Job]) -> Option<Packed> {
    let index = |j: &Job| match j.array_index() {
        None => Some(0),
        Some(x) => x.checked_add(1),
    };
    let (mut qmin, mut qmax, mut smin, mut smax, mut amax) = (i64::MAX, i64::MIN, u64::MAX, 0, 0);
    for j in jobs {
        (qmin, qmax) = (qmin.min(j.qtime), qmax.max(j.qtime));
        (smin, smax) = (smin.min(j.seq), smax.max(j.seq));
        amax = amax.max(index(j)?);
    }
    if jobs.is_empty() || jobs.len() > u32::MAX as usize {
        return None;
    }
    let bits = |span: u64| 64 - span.leading_zeros();
    let (bq, bs, ba) = (bits(qmax.abs_diff(qmin)), bits(smax - smin), bits(amax));
    if bq + bs + ba > 96 {
        return None;
    }
    let key = |j: &Job| {
        let q = u128::from(j.qtime.abs_diff(qmin));
        let s = u128::from(j.seq - smin);
        let a = u128::from(index(j).unwrap_or(0));
        (q << (bs + ba)) | (s << ba) | a
    };
    // Positions 0..len need `bp` bits (at most 32: `len` fits in a `u32`).
    let bp = bits(jobs.len() as u64 - 1);
    if bq + bs + ba + bp <= 64 {
        let keys = (jobs.iter().enumerate()).map(|(i, j)| (key(j) as u64) << bp | i as u64);
        return Some(Packed::Narrow(keys.collect(), bp));
    }
    let keys = (jobs.iter().enumerate()).map(|(i, j)| key(j) << 32 | i as u128);
    Some(Packed::Wide(keys.collect()))
}

/// Sorts distinct keys: nothing when sorted already, a merge when they are two sorted runs (a
/// set appended to another, both sorted already: the stable sort merges runs in linear time),
/// otherwise the unstable sort (the same order: the keys are distinct).
fn sort_keys<T: Ord>(keys: &mut [T]) {
    match keys.windows(2).position(|w| w[0] > w[1]) {
        None => {}
        Some(p) if keys[p + 1..].is_sorted() => keys.sort(),
        Some(_) => keys.sort_unstable(),
    }
}

/// Merges `b` into `a`, both in submission order, into submission order, stably (`a`'s jobs
/// first among equal keys): in place, each job moved once, no second buffer of jobs, and `b`'s
/// emptied end given back as `a` grows ([`crate::mem::reuse::merge_by`]).
fn merge_into(a: &mut Vec<Job>, b: Vec<Job>) {
    crate::mem::reuse::merge_by(a, b, |x, y| {
        submission_cmp(x, y) == std::cmp::Ordering::Greater
    });
}

/// How many steps of a cycle [`permute`] prefetches ahead of its swaps.
const PERMUTE_AHEAD: usize = 16;

/// Reorders `items` so that position `k` holds the item that was at `order[k]` (`order` is a
/// permutation of `0..items.len()`, all below `u32::MAX`; it is used up), following each cycle
/// with swaps: no second vector of items. The items a cycle visits next are at random places
/// (a million 96-byte jobs: each a cache and TLB miss), so the walk along `order` runs
/// [`PERMUTE_AHEAD`] steps ahead and prefetches them.
fn permute<T>(items: &mut [T], order: &mut [u32]) {
    const DONE: u32 = u32::MAX;
    for start in 0..order.len() {
        // `ahead` is a position of this cycle up to PERMUTE_AHEAD steps past `k`, its item
        // prefetched; `open` while the cycle goes on past it.
        let (mut ahead, mut open) = (start, true);
        for _ in 0..PERMUTE_AHEAD {
            step_ahead(items, order, start, &mut ahead, &mut open);
        }
        let mut k = start;
        while let Some(src) = order.get(k).copied().filter(|&s| s != DONE) {
            order[k] = DONE;
            let src = src as usize;
            if src == start {
                break;
            }
            items.swap(k, src);
            k = src;
            step_ahead(items, order, start, &mut ahead, &mut open);
        }
    }
}

/// One step of [`permute`]'s walk ahead along the cycle from `start`: to the next position,
/// whose item is prefetched, unless the cycle closes there.
#[inline(always)]
fn step_ahead<T>(items: &[T], order: &[u32], start: usize, ahead: &mut usize, open: &mut bool) {
    if !*open {
        return;
    }
    match order.get(*ahead).copied() {
        Some(next) if next != u32::MAX && next as usize != start => {
            *ahead = next as usize;
            if let Some(item) = items.get(*ahead) {
                crate::mem::prefetch_all(Some(item));
            }
        }
        _ => *open = false,
    }
}

/// A set of jobs with their interned names, kept in submission order (qtime, then the id's
/// sequence number and array index, then the id), as PBS's server lists them.
#[derive(Debug, Clone, Default)]
pub struct JobSet {
    /// The jobs, in submission order once `finish` ran.
    pub jobs: Vec<Job>,
    /// Users, groups, accounts, owners and queues.
    pub names: Names,
    /// Resource names of `Resource_List`.
    pub resources: Names,
    /// Every job's resource requests, job after job (each job holds its range).
    pub requests: Vec<Request>,
    /// The text values of resource requests (`select`, `place`, booleans, ...).
    pub texts: Names,
    /// When each running job started (`stime`), by id: what a forecast needs of the jobs
    /// that hold resources now (a side list, so the 96-byte `Job` stays as it is).
    pub starts: Vec<(JobId, i64)>,
    /// How many subjobs of each array job are still queued (`array_indices_remaining`), by id.
    pub arrays: Vec<(JobId, u64)>,
}

impl JobSet {
    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// True when there are no jobs.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Sorts the jobs into submission order and rejects a job id seen twice. Readers call it
    /// once after the last job.
    pub fn finish(&mut self) -> Result<(), JobsError> {
        self.sort_submission();
        self.reject_duplicate_ids()
    }

    /// [`finish`](Self::finish) for a set its reader already put in submission order (the
    /// fast reader's sorted parts, merged): skips the pass over every job that would
    /// only find it sorted.
    pub(crate) fn finish_sorted(&mut self) -> Result<(), JobsError> {
        debug_assert!(self
            .jobs
            .is_sorted_by(|a, b| submission_cmp(a, b) != std::cmp::Ordering::Greater));
        self.reject_duplicate_ids()
    }

    /// The error for the first job id seen twice, if any.
    fn reject_duplicate_ids(&self) -> Result<(), JobsError> {
        if let Some(dup) = first_duplicate_id(&self.jobs) {
            return Err(JobsError::DuplicateJob(dup.to_string()));
        }
        Ok(())
    }

    /// Sorts the jobs into submission order (stable: jobs with equal keys keep their order).
    /// A reader that parses a large file in parts sorts each part on the worker that read it;
    /// `finish` then finds the parts' sorted runs and only merges them.
    pub(crate) fn sort_submission(&mut self) {
        let n = self.jobs.len();
        if n < KEY_SORT_MIN_JOBS || n >= u32::MAX as usize {
            self.jobs.sort_by(submission_cmp);
            return;
        }
        if self
            .jobs
            .is_sorted_by(|a, b| submission_cmp(a, b) != std::cmp::Ordering::Greater)
        {
            return; // as the parts of a large file are, once merged
        }
        // A large set: sort small keys, then move each job once. A stable sort of the jobs
        // themselves (128 bytes each) moved them some twenty times over.
        let mut order = match packed_keys(&self.jobs) {
            Some(Packed::Narrow(mut keys, bp)) => {
                sort_keys(&mut keys);
                let mask = (1u64 << bp) - 1;
                let mut order: Vec<u32> = keys.iter().map(|&k| (k & mask) as u32).collect();
                self.order_ties(&mut order, |a, b| keys[a] >> bp == keys[b] >> bp);
                order
            }
            Some(Packed::Wide(mut keys)) => {
                sort_keys(&mut keys);
                let mut order: Vec<u32> = keys.iter().map(|&k| k as u32).collect();
                self.order_ties(&mut order, |a, b| keys[a] >> 32 == keys[b] >> 32);
                order
            }
            None => {
                let mut keys: Vec<(i64, u64, Option<u64>, u32)> = (self.jobs.iter())
                    .enumerate()
                    .map(|(i, j)| (j.qtime, j.seq, j.array_index(), i as u32))
                    .collect();
                sort_keys(&mut keys);
                let mut order: Vec<u32> = keys.iter().map(|k| k.3).collect();
                self.order_ties(&mut order, |a, b| {
                    (keys[a].0, keys[a].1, keys[a].2) == (keys[b].0, keys[b].1, keys[b].2)
                });
                order
            }
        };
        if order.iter().enumerate().any(|(k, &i)| k != i as usize) {
            permute(&mut self.jobs, &mut order);
        }
    }

    /// Orders each run of jobs with equal (qtime, seq, index) keys in `order` (positions
    /// `a`, `b` of `order` are in one run when `same(a, b)`) by id, then input position: the
    /// stable sort's order.
    fn order_ties(&self, order: &mut [u32], same: impl Fn(usize, usize) -> bool) {
        let mut start = 0;
        while start < order.len() {
            let end = (start + 1..order.len())
                .find(|&k| !same(start, k))
                .unwrap_or(order.len());
            if end - start > 1 {
                let jobs = &self.jobs;
                order[start..end]
                    .sort_by(|&a, &b| (&*jobs[a as usize].id, a).cmp(&(&*jobs[b as usize].id, b)));
            }
            start = end;
        }
    }

    /// Builds the column view of the jobs, in parts on every worker for a large set. Not
    /// built by `finish`: ordering binds straight from the jobs (`order_pass`), and a column
    /// per resource of every job was ≈ 90 bytes a job of fresh memory.
    pub fn build_columns(&self) -> Columns {
        Columns::build(&self.jobs, &self.requests, &self.resources, &self.texts)
    }

    /// Interns the user names of `jobs[first..]`, read with `raw::add_job_later` (one name
    /// per job, in order), in one batch.
    pub fn intern_users<S: AsRef<str>>(&mut self, first: usize, users: &[S]) {
        let jobs = self.jobs.get_mut(first..).unwrap_or(&mut []);
        let users = users.get(..jobs.len()).unwrap_or(users);
        // One batch: the look-ups into a pool of 100 000 users overlap their cache misses.
        self.names.intern_each(users, |i, sym| {
            if let Some(job) = jobs.get_mut(i) {
                job.euser = sym;
            }
        });
    }

    /// The resources a job requests, in the order its record gave them.
    pub fn requests(&self, job: &Job) -> &[Request] {
        self.requests.get(job.requests()).unwrap_or(&[])
    }

    /// The value a job requests of a resource (`None` when unrequested).
    pub fn resource(&self, job: &Job, sym: Sym) -> Option<ResourceValue> {
        self.requests(job)
            .iter()
            .find(|r| r.sym() == sym)
            .map(|r| r.value())
    }

    /// One line per job, in order, with every field a reader sets — names resolved, numbers as
    /// exact bits — so that two readers of the same file can be checked to agree (the qstat
    /// fast path is tested against the serde reader with it).
    pub fn describe(&self) -> Vec<String> {
        let bits = |v: f64| format!("{v}/{:x}", v.to_bits());
        self.jobs
            .iter()
            .map(|j| {
                let requests: Vec<String> = (self.requests(j).iter())
                    .map(|r| {
                        let (sym, v) = (r.sym(), r.value());
                        let value = match v {
                            ResourceValue::Number(n) => bits(n),
                            ResourceValue::Text(_) => format!("{:?}", self.text(v)),
                        };
                        format!("{}={value}", self.resources.name(sym))
                    })
                    .collect();
                format!(
                    "{:?} seq={} idx={:?} user={:?} group={:?} account={:?} queue={:?} state={} \
                     priority={} qtime={} eligible={} accrue={} [{}]",
                    j.id,
                    j.seq,
                    j.array_index(),
                    self.names.name(j.euser),
                    self.names.name(j.egroup),
                    j.account().map(|a| self.names.name(a)),
                    self.names.name(j.queue),
                    j.state.letter(),
                    j.priority,
                    j.qtime,
                    bits(j.eligible_time),
                    j.accrue_type,
                    requests.join(" ")
                )
            })
            .chain({
                let mut starts: Vec<String> = (self.starts.iter())
                    .map(|(id, t)| format!("{id:?} stime={t}"))
                    .chain((self.arrays.iter()).map(|(id, n)| format!("{id:?} remaining={n}")))
                    .collect();
                starts.sort();
                starts
            })
            .collect()
    }

    /// The text of a request's value (empty for a number).
    pub fn text(&self, value: ResourceValue) -> &str {
        match value {
            ResourceValue::Text(t) => self.texts.name(t),
            ResourceValue::Number(_) => "",
        }
    }

    /// Moves the jobs of `other` (read separately, with its own name pools) after these,
    /// re-interning its names; `finish` then sorts and checks the whole set.
    pub fn append(&mut self, other: JobSet) -> Result<(), JobsError> {
        self.take_jobs(other, false)
    }

    /// [`append`](Self::append) for two sets each in submission order already (parts of a
    /// large file, each sorted by the worker that read it): `other`'s jobs are merged in among these, so
    /// `finish` finds the whole set sorted and moves no job (it permuted a million 128-byte
    /// jobs at random before).
    pub(crate) fn merge_sorted(&mut self, other: JobSet) -> Result<(), JobsError> {
        self.take_jobs(other, true)
    }

    /// [`append`](Self::append) (`merge` false) or [`merge_sorted`](Self::merge_sorted).
    /// Refused (nothing moved) when the two sets' requests together do not fit in a job's
    /// 32-bit positions (four billion requests).
    fn take_jobs(&mut self, other: JobSet, merge: bool) -> Result<(), JobsError> {
        if u32::try_from(self.requests.len() + other.requests.len()).is_err() {
            return Err(JobsError::BadField {
                job: other
                    .jobs
                    .first()
                    .map_or_else(String::new, |j| j.id.to_string()),
                field: "Resource_List".to_string(),
                message: "more than 4294967295 resource requests in all".to_string(),
            });
        }
        // The other set's 100 000 user names, in one batch (serial: it overlaps the misses).
        let other_names: Vec<&str> = other.names.iter().collect();
        let mut names: Vec<Sym> = Vec::with_capacity(other_names.len());
        self.names
            .intern_each(&other_names, |_, sym| names.push(sym));
        drop(other_names);
        let resources: Vec<Sym> = (other.resources.iter())
            .map(|n| self.resources.intern(n))
            .collect();
        let texts: Vec<Sym> = other.texts.iter().map(|n| self.texts.intern(n)).collect();
        let name = |s: Sym| names.get(s as usize).copied().unwrap_or(s);
        let offset = self.requests.len();
        let JobSet {
            jobs: other_jobs,
            requests: other_requests,
            starts: mut other_starts,
            arrays: mut other_arrays,
            ..
        } = other;
        self.starts.append(&mut other_starts);
        self.arrays.append(&mut other_arrays);
        let parallel = other_jobs.len() >= PARALLEL_MIN_JOBS;
        let (jobs, requests) = (&mut self.jobs, &mut self.requests);
        let move_requests = move || {
            crate::mem::reuse::append_from_back(requests, other_requests, |r| {
                let sym = resources.get(r.sym() as usize).copied().unwrap_or(r.sym());
                let value = match r.value() {
                    ResourceValue::Text(t) => {
                        ResourceValue::Text(texts.get(t as usize).copied().unwrap_or(t))
                    }
                    number => number,
                };
                Request::new(sym, value)
            })
        };
        let move_jobs = move || {
            let mut other_jobs = other_jobs;
            for job in &mut other_jobs {
                job.euser = name(job.euser);
                job.egroup = name(job.egroup);
                job.set_account(job.account().map(name));
                job.queue = name(job.queue);
                let run = job.requests();
                // Fits: the total was checked above.
                let _ = job.set_requests(run.start + offset..run.end + offset);
            }
            if merge {
                merge_into(jobs, other_jobs);
            } else {
                jobs.append(&mut other_jobs);
            }
        };
        // The two moves are independent: for a large set (a part of a million-job file) they
        // run at once.
        if parallel {
            crate::parallel::join(move_jobs, move_requests);
        } else {
            move_requests();
            move_jobs();
        }
        Ok(())
    }

    /// The position of a job by id (exact, or by the id's part before the first `.`).
    pub fn find(&self, id: &str) -> Option<usize> {
        self.jobs.iter().position(|j| j.id == id).or_else(|| {
            self.jobs
                .iter()
                .position(|j| j.id.split('.').next() == Some(id))
        })
    }

    /// The user name shown for a job: `euser`.
    pub fn user(&self, job: &Job) -> &str {
        self.names.name(job.euser)
    }

    /// The queue name of a job.
    pub fn queue(&self, job: &Job) -> &str {
        self.names.name(job.queue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_duplicate_reported_is_the_one_whose_second_sighting_comes_first() {
        let job = |id: &str| Job {
            id: id.into(),
            seq: 1,
            ..Job::blank()
        };
        let jobs: Vec<Job> = ["a", "b", "c", "b", "a", "c", "b"]
            .into_iter()
            .map(job)
            .collect();
        assert_eq!(first_duplicate_id(&jobs), Some("b"));
        assert_eq!(first_duplicate_id(&jobs[..3]), None);
        assert_eq!(first_duplicate_id(&jobs[2..6]), Some("c"));
        // A large set, checked in parts: a repeat within a part and across parts.
        let mut many: Vec<Job> = (0..3 * PARALLEL_MIN_JOBS + 5)
            .map(|i| job(&i.to_string()))
            .collect();
        assert!(!may_have_duplicate_ids(&many));
        assert_eq!(first_duplicate_id(&many), None);
        many[3 * PARALLEL_MIN_JOBS] = job("3");
        assert_eq!(first_duplicate_id(&many), Some("3"), "across parts");
        many[3 * PARALLEL_MIN_JOBS] = job(&(3 * PARALLEL_MIN_JOBS + 1).to_string());
        assert_eq!(
            first_duplicate_id(&many),
            Some((3 * PARALLEL_MIN_JOBS + 1).to_string().as_str()),
            "within a part"
        );
        let mut names = Names::default();
        assert_eq!(names.intern("x"), 0);
        assert_eq!(names.intern("y"), 1);
        assert_eq!(names.intern("x"), 0);
        assert_eq!((names.get("y"), names.get("z")), (Some(1), None));
        assert_eq!(names.iter().collect::<Vec<_>>(), ["x", "y"]);
    }

    #[test]
    fn the_key_sort_is_the_stable_sort_by_submission_order() {
        let job = |i: usize| Job {
            seq: (i % 7) as u64,
            euser: i as Sym,
            qtime: (i * 7919 % 13) as i64 - 6,
            ..Job::with_id(&format!(
                "{}{}.s{}",
                i % 5,
                ["", "[0]", "[3]"][i % 3],
                i % 3
            ))
        };
        for n in [KEY_SORT_MIN_JOBS - 1, KEY_SORT_MIN_JOBS + 333] {
            let mut set = JobSet {
                jobs: (0..n).map(job).collect(),
                ..JobSet::default()
            };
            let mut want = set.jobs.clone();
            want.sort_by(submission_cmp);
            set.sort_submission();
            assert!(set.jobs == want, "{n} jobs");
            set.sort_submission();
            assert!(set.jobs == want, "{n} jobs, sorted already");
            // In key order already, but two jobs of equal keys are out of id order.
            set.jobs.swap(0, 1);
            let index = (set.jobs[1].array_index()).map_or(String::new(), |x| format!("[{x}]"));
            set.jobs[0].set_id(&format!("7{index}.b"));
            set.jobs[1].set_id(&format!("7{index}.a"));
            (set.jobs[0].qtime, set.jobs[0].seq) = (set.jobs[1].qtime, set.jobs[1].seq);
            assert_eq!(set.jobs[0].array_index(), set.jobs[1].array_index());
            set.jobs[1].euser = 0;
            let mut want = set.jobs.clone();
            want.sort_by(submission_cmp);
            set.sort_submission();
            assert!(set.jobs == want, "{n} jobs, a tie out of id order");
        }
        let mut items = vec!['a', 'b', 'c', 'd', 'e'];
        permute(&mut items, &mut [3, 0, 4, 1, 2]);
        assert_eq!(items, ['d', 'a', 'e', 'b', 'c']);
        // Cycles shorter and longer than the walk ahead, fixed points, one long cycle.
        let mut x = 12345u64;
        for n in [0, 1, 2, 17, PERMUTE_AHEAD, PERMUTE_AHEAD + 1, 5000] {
            let mut order: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                order.swap(i, (x >> 33) as usize % (i + 1));
            }
            let long: Vec<u32> = (0..n as u32).map(|i| (i + 1) % n.max(1) as u32).collect();
            for order in [order, long] {
                let mut items: Vec<[u64; 12]> = (0..n).map(|i| [i as u64; 12]).collect();
                permute(&mut items, &mut order.clone());
                assert!(items
                    .iter()
                    .zip(&order)
                    .all(|(it, &o)| *it == [u64::from(o); 12]));
            }
        }
    }

    /// Jobs whose keys need more than 96 bits packed (the tuple sort) or fit (packed), with
    /// ties on (qtime, seq, index) broken by id, then position, as the stable sort does.
    #[test]
    fn packed_and_tuple_keys_sort_as_the_stable_sort() {
        // `width` 0: keys fit a `u64`; 1: a `u128`; 2: neither (tuples).
        let job = |i: usize, width: u8| Job {
            seq: match width {
                2 if i.is_multiple_of(2) => u64::MAX - (i % 5) as u64,
                1 if i.is_multiple_of(2) => (1 << 50) - (i % 5) as u64,
                _ => (i % 5) as u64,
            },
            euser: i as Sym,
            qtime: if width == 2 && i.is_multiple_of(3) {
                i64::MIN + (i % 7) as i64
            } else {
                (i % 7) as i64
            },
            ..Job::with_id(&match i % 4 {
                0 => format!("{}.s", i % 11),
                1 if width == 2 => format!("{}[{}].s", i % 11, u64::MAX - 1),
                _ => format!("{}[{}].s", i % 11, i % 3),
            })
        };
        for width in [0, 1, 2] {
            let jobs: Vec<Job> = (0..KEY_SORT_MIN_JOBS + 77).map(|i| job(i, width)).collect();
            let packed = match packed_keys(&jobs) {
                Some(Packed::Narrow(..)) => 0,
                Some(Packed::Wide(_)) => 1,
                None => 2,
            };
            assert_eq!(packed, width);
            let mut want = jobs.clone();
            want.sort_by(submission_cmp);
            let mut set = JobSet {
                jobs,
                ..JobSet::default()
            };
            set.sort_submission();
            assert!(set.jobs == want, "width {width}");
        }
        // An array index of u64::MAX cannot be packed (None takes 0, Some(x) x + 1).
        let mut jobs: Vec<Job> = (0..10).map(|i| job(i, 0)).collect();
        jobs[3].set_id(&format!("3[{}].s", u64::MAX));
        assert_eq!(jobs[3].array_index(), Some(u64::MAX));
        assert!(packed_keys(&jobs).is_none());
        let mut keys = vec![5u128, 7, 9, 1, 2, 8];
        sort_keys(&mut keys);
        assert_eq!(keys, [1, 2, 5, 7, 8, 9]);
        let mut keys = vec![5u128, 1, 9, 2];
        sort_keys(&mut keys);
        assert_eq!(keys, [1, 2, 5, 9]);
    }

    /// Merging two sorted sets gives the stable sort of the whole, with the first set's jobs
    /// first among equal keys, for sets of any lengths (either one empty).
    #[test]
    fn merging_sorted_sets_is_the_stable_sort_of_both() {
        let job = |i: usize, half: u32| Job {
            id: format!("{}.{}", i % 4, "s".repeat(1 + i % 3 * 20)).into(),
            seq: (i % 3) as u64,
            euser: half,
            egroup: i as Sym,
            qtime: (i * 7 % 5) as i64,
            ..Job::blank()
        };
        for (na, nb) in [(0, 0), (0, 5), (5, 0), (1, 1), (17, 40), (40, 17), (64, 64)] {
            let mut a: Vec<Job> = (0..na).map(|i| job(i, 0)).collect();
            let mut b: Vec<Job> = (0..nb).map(|i| job(i * 3, 1)).collect();
            a.sort_by(submission_cmp);
            b.sort_by(submission_cmp);
            let mut want: Vec<Job> = a.iter().chain(&b).cloned().collect();
            want.sort_by(submission_cmp);
            merge_into(&mut a, b);
            assert!(a == want, "{na} + {nb}");
        }
    }

    #[test]
    fn append_reinterns_names_and_resources() {
        let make = |id: &str, user: Sym, start: usize| {
            let mut job = Job {
                seq: 1,
                euser: user,
                egroup: user,
                queue: user,
                ..Job::with_id(id)
            };
            job.set_account(Some(user));
            assert_eq!(job.set_requests(start..start + 1), Some(()));
            job
        };
        let job = |set: &mut JobSet, id: &str, user: Sym, res: Sym, value: ResourceValue| {
            let start = set.requests.len();
            set.requests.push(Request::new(res, value));
            set.jobs.push(make(id, user, start));
        };
        let mut a = JobSet::default();
        let (bob, mem) = (a.names.intern("bob"), a.resources.intern("mem"));
        let free = ResourceValue::Text(a.texts.intern("free"));
        job(&mut a, "1", bob, mem, free);
        let mut b = JobSet::default();
        let (carol, bob_b) = (b.names.intern("carol"), b.names.intern("bob"));
        let (ncpus, mem_b) = (b.resources.intern("ncpus"), b.resources.intern("mem"));
        let (pack, free_b) = (b.texts.intern("pack"), b.texts.intern("free"));
        job(&mut b, "2", carol, ncpus, ResourceValue::Number(4.0));
        job(&mut b, "3", bob_b, mem_b, ResourceValue::Text(free_b));
        job(&mut b, "4", bob_b, mem_b, ResourceValue::Text(pack));
        a.append(b).unwrap();
        assert_eq!(a.len(), 4);
        assert_eq!(a.user(&a.jobs[1]), "carol");
        assert_eq!(a.names.name(a.jobs[1].account().unwrap()), "carol");
        assert_eq!(a.jobs[2].euser, bob);
        assert_eq!(a.requests(&a.jobs[2]), [Request::new(mem, free)]);
        assert_eq!(a.resources.name(a.requests(&a.jobs[1])[0].sym()), "ncpus");
        let ncpus_a = a.resources.get("ncpus").unwrap();
        assert_ne!(ncpus_a, ncpus, "b's symbol is not a's");
        assert_eq!(
            a.resource(&a.jobs[1], ncpus_a),
            Some(ResourceValue::Number(4.0))
        );
        assert_eq!(a.resource(&a.jobs[1], mem), None);
        let last = a.resource(&a.jobs[3], mem).unwrap();
        assert_eq!(a.text(last), "pack");
        assert_eq!(a.texts.len(), 2);
    }

    #[test]
    fn a_large_append_equals_one_read() {
        let rows = |from: usize, to: usize| -> String {
            (from..to)
                .map(|i| {
                    format!(
                        "{i},u{},g{},{},{}\n",
                        i % 1000,
                        i % 7,
                        i % 9,
                        ["free", "pack"][i % 2]
                    )
                })
                .collect()
        };
        let n = PARALLEL_MIN_JOBS + 10;
        let header = "id,user,group,ncpus,place\n";
        let read = |body: String| {
            crate::native::read_job_list_csv(format!("{header}{body}").as_bytes()).unwrap()
        };
        let whole = read(rows(0, 2 * n));
        let mut front = read(rows(0, n));
        // The second set names its resources in another order and its texts afresh.
        let back = crate::native::read_job_list_csv(
            format!(
                "id,place,ncpus,group,user\n{}",
                (n..2 * n)
                    .map(|i| format!(
                        "{i},{},{},g{},u{}\n",
                        ["free", "pack"][i % 2],
                        i % 9,
                        i % 7,
                        i % 1000
                    ))
                    .collect::<String>()
            )
            .as_bytes(),
        )
        .unwrap();
        let mut merged = front.clone();
        let mut sorted_back = back.clone();
        merged.sort_submission();
        sorted_back.sort_submission();
        merged.merge_sorted(sorted_back).unwrap();
        front.append(back).unwrap();
        front.finish().unwrap();
        merged.finish().unwrap();
        assert_eq!(merged.describe(), front.describe(), "merged sets");
        assert_eq!(front.len(), 2 * n);
        let view = |set: &JobSet| -> Vec<(String, String, String, String, String)> {
            let (ncpus, place) = (set.resources.get("ncpus"), set.resources.get("place"));
            let value = |j: &Job, r: Option<Sym>| match r.and_then(|r| set.resource(j, r)) {
                Some(ResourceValue::Number(x)) => x.to_string(),
                Some(text) => set.text(text).to_string(),
                None => String::new(),
            };
            (set.jobs.iter())
                .map(|j| {
                    let group = set.names.name(j.egroup).to_string();
                    (
                        j.id.to_string(),
                        set.user(j).into(),
                        group,
                        value(j, ncpus),
                        value(j, place),
                    )
                })
                .collect()
        };
        assert!(view(&front) == view(&whole));
        assert_ne!(
            front.resources.get("ncpus"),
            None,
            "the second set's symbols were mapped"
        );
        let ncpus = |set: &JobSet| set.resources.get("ncpus").unwrap() as usize;
        assert_eq!(
            front.build_columns().resources[ncpus(&front)],
            whole.build_columns().resources[ncpus(&whole)]
        );
    }
}
