//! The job model: what fairsort keeps of each pending job (identity, owner, queue, priority,
//! submission time and the numeric resource requests in PBS units), stored compactly so a
//! million jobs bind without per-job string look-ups: names are interned into `Sym`s once.

use super::error::JobsError;
use super::parallel::PARALLEL_MIN_JOBS;
use crate::fairshare::fast_hash::FastHasher;
use hashbrown::HashTable;

/// An interned name (user, group, account, queue or resource): an index into a `Names` pool.
pub type Sym = u32;

/// The hash of a name in a [`Names`] pool (the crate's Fx-style hash: interning runs several
/// times per job while a million-job file is read, where SipHash's DoS resistance buys nothing).
fn name_hash(name: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<FastHasher>::default().hash_one(name)
}

/// A pool of distinct names; each name is stored once and referred to by its `Sym`.
///
/// Laid out for a million-job read, where each job interns several names against a pool of a
/// few hundred thousand: the names live end to end in one `arena`, and each index slot holds the
/// symbol, the hash and — for a name of up to [`INLINE`] bytes, which is nearly every user, group
/// and queue name — the name itself, so a lookup touches the slot and nothing else (a
/// `HashMap<String, Sym>` missed the cache three or four times a lookup).
#[derive(Debug, Clone, Default)]
pub struct Names {
    /// Every name, end to end.
    arena: String,
    /// `arena` range of each `Sym`: (start, end).
    spans: Vec<(usize, usize)>,
    /// `Sym`s by the hash of their name.
    index: HashTable<Slot>,
}

/// Names up to this many bytes are compared within their index slot.
const INLINE: usize = 16;

/// One index entry of [`Names`] (32 bytes: two to a cache line).
#[derive(Debug, Clone, Copy)]
struct Slot {
    hash: u64,
    sym: Sym,
    /// The name's length in bytes (saturated: a longer name is compared in the arena).
    len: u32,
    /// The name's first bytes, zero-padded.
    head: [u8; INLINE],
}

impl Slot {
    fn inline(name: &str) -> [u8; INLINE] {
        let mut head = [0u8; INLINE];
        let n = name.len().min(INLINE);
        head[..n].copy_from_slice(&name.as_bytes()[..n]);
        head
    }
}

impl Names {
    /// Whether `slot` holds `name` (whose hash is `hash`).
    fn same(&self, slot: &Slot, hash: u64, name: &str) -> bool {
        if slot.hash != hash || slot.len as usize != name.len().min(u32::MAX as usize) {
            return false;
        }
        if name.len() <= INLINE {
            return slot.head[..name.len()] == *name.as_bytes();
        }
        self.name(slot.sym) == name
    }

    /// The symbol of `name`, adding it on first sight.
    pub fn intern(&mut self, name: &str) -> Sym {
        let hash = name_hash(name);
        if let Some(slot) = self.index.find(hash, |s| self.same(s, hash, name)) {
            return slot.sym;
        }
        let sym = self.spans.len() as Sym;
        let start = self.arena.len();
        self.arena.push_str(name);
        self.spans.push((start, self.arena.len()));
        let slot = Slot {
            hash,
            sym,
            len: name.len().min(u32::MAX as usize) as u32,
            head: Slot::inline(name),
        };
        self.index.insert_unique(hash, slot, |s| s.hash);
        sym
    }

    /// The symbol of `name`, trying `guess` first: readers pass the symbol found at the same
    /// place in the previous record (resource names come in the same order job after job), which
    /// saves hashing the name.
    pub fn intern_guess(&mut self, name: &str, guess: Option<Sym>) -> Sym {
        match guess {
            Some(g) if (g as usize) < self.spans.len() && self.name(g) == name => g,
            _ => self.intern(name),
        }
    }

    /// The symbol of `name` if it was ever interned.
    pub fn get(&self, name: &str) -> Option<Sym> {
        let hash = name_hash(name);
        self.index
            .find(hash, |s| self.same(s, hash, name))
            .map(|s| s.sym)
    }

    /// The name of a symbol (empty for a symbol from another pool).
    pub fn name(&self, sym: Sym) -> &str {
        self.spans
            .get(sym as usize)
            .and_then(|&(a, b)| self.arena.get(a..b))
            .unwrap_or("")
    }

    /// Every name, in `Sym` order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.spans.len()).map(|s| self.name(s as Sym))
    }

    /// Number of distinct names.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True when no name was interned.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

/// Whether two jobs' ids have the same hash: sorted id hashes of the two halves (each sorted on
/// its own thread for a large set), checked for a repeat within a half or between them. Almost
/// always false, and then no id is seen twice.
fn may_have_duplicate_ids(jobs: &[Job]) -> bool {
    let sorted = |part: &[Job]| {
        let mut h: Vec<u64> = part.iter().map(|j| name_hash(&j.id)).collect();
        h.sort_unstable();
        h
    };
    let (a, b) = if jobs.len() >= PARALLEL_MIN_JOBS {
        let (front, back) = jobs.split_at(jobs.len() / 2);
        super::parallel::join(|| sorted(front), || sorted(back))
    } else {
        (sorted(jobs), Vec::new())
    };
    let repeats = |h: &[u64]| h.windows(2).any(|w| w[0] == w[1]);
    if repeats(&a) || repeats(&b) {
        return true;
    }
    // A hash in both halves: walk the two sorted lists together.
    let (mut i, mut k) = (0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(k)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => k += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

/// The id seen twice whose second sighting comes first (in `jobs` order), if any. Sorting
/// (hash, position) pairs is several times faster on a million jobs than a hash set of ids
/// (that probed a cold 1M-slot table per job); equal hashes are confirmed on the ids. The
/// cheaper [`may_have_duplicate_ids`] runs first, so this only runs when two hashes agree.
fn first_duplicate_id(jobs: &[Job]) -> Option<&str> {
    if !may_have_duplicate_ids(jobs) {
        return None;
    }
    let mut keys: Vec<(u64, usize)> = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| (name_hash(&j.id), i))
        .collect();
    keys.sort_unstable();
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

/// A resource request as read: a number in PBS units, or text PBS would not bind as a number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ResourceValue {
    /// Size in KB, time in seconds, or a plain number.
    Number(f64),
    /// A string, a boolean or a malformed number (an error if the formula uses it), interned in
    /// [`JobSet::texts`]: a million jobs' `select` and `place` strings are a few thousand texts.
    Text(Sym),
}

/// One resource a job requests: the resource (a symbol of [`JobSet::resources`]) and its value.
pub type Request = (Sym, ResourceValue);

/// PBS job states that matter for ordering: runnable jobs sort before the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    /// `Q`: queued, waiting for the scheduler.
    Queued,
    /// `R`: running.
    Running,
    /// `H`: held.
    Held,
    /// Any other state letter (`W`, `T`, `E`, `B`, `S`, ...).
    Other(char),
}

impl JobState {
    /// From `qstat`'s `job_state` letter (an unknown or missing state counts as queued).
    pub fn from_letter(s: &str) -> JobState {
        match s.trim() {
            "" | "Q" => JobState::Queued,
            "R" => JobState::Running,
            "H" => JobState::Held,
            other => JobState::Other(other.chars().next().unwrap_or('?')),
        }
    }

    /// The letter `qstat` prints.
    pub fn letter(self) -> char {
        match self {
            JobState::Queued => 'Q',
            JobState::Running => 'R',
            JobState::Held => 'H',
            JobState::Other(c) => c,
        }
    }

    /// Whether the scheduler would consider the job this cycle (PBS sorts these first).
    pub fn is_runnable(self) -> bool {
        self == JobState::Queued
    }
}

/// One job.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The full job id (`123.server`, `124[].server`).
    pub id: String,
    /// The id's sequence number (`123` of `123.server`), `u64::MAX` if it has none.
    pub seq: u64,
    /// Array index of a subjob (`124[7].server` → 7).
    pub array_index: Option<u64>,
    /// `euser` (the owner's user name when qstat does not print it).
    pub euser: Sym,
    /// `egroup` (empty when unknown).
    pub egroup: Sym,
    /// `Account_Name`, when set.
    pub account: Option<Sym>,
    /// `queue`.
    pub queue: Sym,
    /// `job_state`.
    pub state: JobState,
    /// `Priority` (`qsub -p`): the `job_priority` keyword.
    pub priority: i64,
    /// `qtime` as seconds since the epoch: submission order.
    pub qtime: i64,
    /// `eligible_time` in seconds: the `eligible_time` keyword.
    pub eligible_time: f64,
    /// `accrue_type` (0 initial, 1 ineligible, 2 eligible, 3 running, 4 exit).
    pub accrue_type: i64,
    /// `Resource_List`: this job's run of [`JobSet::requests`] (one vector for all jobs, so
    /// reading a million jobs allocates no vector per job).
    pub requests: std::ops::Range<usize>,
}

/// The sequence number and array index of a PBS job id: `123.srv` → (123, None),
/// `124[7].srv` → (124, Some(7)); an id without a leading number gets `u64::MAX`.
pub fn id_sequence(id: &str) -> (u64, Option<u64>) {
    let digits = id.bytes().take_while(u8::is_ascii_digit).count();
    let seq = id
        .get(..digits)
        .and_then(|d| d.parse().ok())
        .unwrap_or(u64::MAX);
    let index = id.get(digits..).and_then(|rest| {
        let inner = rest.strip_prefix('[')?;
        let end = inner.find(']')?;
        inner.get(..end)?.parse().ok()
    });
    (seq, index)
}

pub use super::columns::{Columns, ResourceColumn};

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
    /// Column view of the jobs, built by `finish` (rebuilt by the binder if stale).
    pub columns: Columns,
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
        self.jobs.sort_by(|a, b| {
            (a.qtime, a.seq, a.array_index, &a.id).cmp(&(b.qtime, b.seq, b.array_index, &b.id))
        });
        if let Some(dup) = first_duplicate_id(&self.jobs) {
            return Err(JobsError::DuplicateJob(dup.to_string()));
        }
        self.columns = Columns::build(self);
        Ok(())
    }

    /// Interns the user names of `jobs[first..]`, read with `raw::add_job_later` (one name
    /// per job, in order), in one batch.
    pub fn intern_users<S: AsRef<str>>(&mut self, first: usize, users: &[S]) {
        let jobs = self.jobs.get_mut(first..).unwrap_or(&mut []);
        for (job, user) in jobs.iter_mut().zip(users) {
            job.euser = self.names.intern(user.as_ref());
        }
    }

    /// The resources a job requests, in the order its record gave them.
    pub fn requests(&self, job: &Job) -> &[Request] {
        self.requests.get(job.requests.clone()).unwrap_or(&[])
    }

    /// The value a job requests of a resource (`None` when unrequested).
    pub fn resource(&self, job: &Job, sym: Sym) -> Option<ResourceValue> {
        self.requests(job)
            .iter()
            .find(|(s, _)| *s == sym)
            .map(|(_, v)| *v)
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
                    .map(|&(sym, v)| {
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
                    j.array_index,
                    self.names.name(j.euser),
                    self.names.name(j.egroup),
                    j.account.map(|a| self.names.name(a)),
                    self.names.name(j.queue),
                    j.state.letter(),
                    j.priority,
                    j.qtime,
                    bits(j.eligible_time),
                    j.accrue_type,
                    requests.join(" ")
                )
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
    pub fn append(&mut self, other: JobSet) {
        let names: Vec<Sym> = other.names.iter().map(|n| self.names.intern(n)).collect();
        let resources: Vec<Sym> = (other.resources.iter())
            .map(|n| self.resources.intern(n))
            .collect();
        let texts: Vec<Sym> = other.texts.iter().map(|n| self.texts.intern(n)).collect();
        let name = |s: Sym| names.get(s as usize).copied().unwrap_or(s);
        let offset = self.requests.len();
        let JobSet {
            jobs: other_jobs,
            requests: other_requests,
            ..
        } = other;
        let parallel = other_jobs.len() >= PARALLEL_MIN_JOBS;
        let (jobs, requests) = (&mut self.jobs, &mut self.requests);
        let move_requests = move || {
            requests.extend(other_requests.into_iter().map(|(sym, value)| {
                let sym = resources.get(sym as usize).copied().unwrap_or(sym);
                let value = match value {
                    ResourceValue::Text(t) => {
                        ResourceValue::Text(texts.get(t as usize).copied().unwrap_or(t))
                    }
                    number => number,
                };
                (sym, value)
            }))
        };
        let move_jobs = move || {
            jobs.extend(other_jobs.into_iter().map(|mut job| {
                job.euser = name(job.euser);
                job.egroup = name(job.egroup);
                job.account = job.account.map(name);
                job.queue = name(job.queue);
                job.requests = job.requests.start + offset..job.requests.end + offset;
                job
            }))
        };
        // The two moves are independent: for a large set (the two halves of a million-job
        // file) they run at once.
        if parallel {
            super::parallel::join(move_jobs, move_requests);
        } else {
            move_requests();
            move_jobs();
        }
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
    fn job_id_sequence_numbers() {
        assert_eq!(id_sequence("123.server"), (123, None));
        assert_eq!(id_sequence("124[7].server"), (124, Some(7)));
        assert_eq!(id_sequence("124[].server"), (124, None));
        assert_eq!(id_sequence("J1"), (u64::MAX, None));
        assert_eq!(id_sequence(""), (u64::MAX, None));
    }

    #[test]
    fn names_intern_once() {
        let mut n = Names::default();
        let a = n.intern("alice");
        assert_eq!(n.intern("alice"), a);
        assert_ne!(n.intern("bob"), a);
        assert_eq!(n.name(a), "alice");
        assert_eq!(n.get("carol"), None);
        assert_eq!(n.name(99), "");
    }

    #[test]
    fn the_duplicate_reported_is_the_one_whose_second_sighting_comes_first() {
        let job = |id: &str| Job {
            id: id.into(),
            seq: 1,
            array_index: None,
            euser: 0,
            egroup: 0,
            account: None,
            queue: 0,
            state: JobState::Queued,
            priority: 0,
            qtime: 0,
            eligible_time: 0.0,
            accrue_type: 0,
            requests: 0..0,
        };
        let jobs: Vec<Job> = ["a", "b", "c", "b", "a", "c", "b"]
            .into_iter()
            .map(job)
            .collect();
        assert_eq!(first_duplicate_id(&jobs), Some("b"));
        assert_eq!(first_duplicate_id(&jobs[..3]), None);
        assert_eq!(first_duplicate_id(&jobs[2..6]), Some("c"));
        // A large set, checked in two halves: a repeat within a half and across the halves.
        let mut many: Vec<Job> = (0..PARALLEL_MIN_JOBS + 5)
            .map(|i| job(&i.to_string()))
            .collect();
        assert!(!may_have_duplicate_ids(&many));
        assert_eq!(first_duplicate_id(&many), None);
        many[PARALLEL_MIN_JOBS] = job("3");
        assert_eq!(first_duplicate_id(&many), Some("3"), "across the halves");
        many[PARALLEL_MIN_JOBS] = job(&(PARALLEL_MIN_JOBS + 1).to_string());
        assert_eq!(
            first_duplicate_id(&many),
            Some((PARALLEL_MIN_JOBS + 1).to_string().as_str()),
            "within the second half"
        );
        let mut names = Names::default();
        assert_eq!(names.intern("x"), 0);
        assert_eq!(names.intern("y"), 1);
        assert_eq!(names.intern("x"), 0);
        assert_eq!((names.get("y"), names.get("z")), (Some(1), None));
        assert_eq!(names.iter().collect::<Vec<_>>(), ["x", "y"]);
    }

    #[test]
    fn append_reinterns_names_and_resources() {
        let make = |id: &str, user: Sym, start: usize| Job {
            id: id.into(),
            seq: 1,
            array_index: None,
            euser: user,
            egroup: user,
            account: Some(user),
            queue: user,
            state: JobState::Queued,
            priority: 0,
            qtime: 0,
            eligible_time: 0.0,
            accrue_type: 0,
            requests: start..start + 1,
        };
        let job = |set: &mut JobSet, id: &str, user: Sym, res: Sym, value: ResourceValue| {
            let start = set.requests.len();
            set.requests.push((res, value));
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
        a.append(b);
        assert_eq!(a.len(), 4);
        assert_eq!(a.user(&a.jobs[1]), "carol");
        assert_eq!(a.names.name(a.jobs[1].account.unwrap()), "carol");
        assert_eq!(a.jobs[2].euser, bob);
        assert_eq!(a.requests(&a.jobs[2]), [(mem, free)]);
        assert_eq!(a.resources.name(a.requests(&a.jobs[1])[0].0), "ncpus");
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
            crate::queue::read_job_list_csv(format!("{header}{body}").as_bytes()).unwrap()
        };
        let whole = read(rows(0, 2 * n));
        let mut front = read(rows(0, n));
        // The second half names its resources in another order and its texts afresh.
        let back = crate::queue::read_job_list_csv(
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
        front.append(back);
        front.finish().unwrap();
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
                        j.id.clone(),
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
            "the second half's symbols were mapped"
        );
        let ncpus = |set: &JobSet| set.resources.get("ncpus").unwrap() as usize;
        assert_eq!(
            front.columns.resources[ncpus(&front)],
            whole.columns.resources[ncpus(&whole)]
        );
    }

    #[test]
    fn long_names_and_guesses() {
        let mut n = Names::default();
        let long = "a-rather-long-group-name-over-sixteen-bytes";
        let a = n.intern(long);
        let b = n.intern("a-rather-long-group-name-over-sixteen-bytez");
        assert_ne!(a, b);
        assert_eq!(n.intern(long), a);
        assert_eq!(n.get(long), Some(a));
        assert_eq!(n.name(b), "a-rather-long-group-name-over-sixteen-bytez");
        let e = n.intern("");
        assert_eq!(n.get(""), Some(e));
        assert_eq!(n.intern_guess(long, Some(a)), a);
        assert_eq!(n.intern_guess(long, Some(b)), a);
        assert_eq!(
            n.intern_guess("", Some(99)),
            e,
            "a symbol of no name is not a guess"
        );
        assert_eq!(n.intern_guess("new", None), 3);
    }

    #[test]
    fn states() {
        assert!(JobState::from_letter("Q").is_runnable());
        assert!(!JobState::from_letter("R").is_runnable());
        assert_eq!(JobState::from_letter("W").letter(), 'W');
    }
}
