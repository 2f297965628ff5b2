//! One job as read (`Job`, its state and requests), below both `columns` and `job` (`JobSet`).

use crate::jobs::names::Sym;

/// A resource request as read: a number in PBS units, or text PBS would not bind as a number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ResourceValue {
    /// Size in KB, time in seconds, or a plain number.
    Number(f64),
    /// A string, a boolean or a malformed number (an error if the formula uses it), interned in
    /// [`JobSet::texts`](crate::jobs::JobSet::texts): a million jobs' `select` and `place`
    /// strings are a few thousand texts.
    Text(Sym),
}

/// One resource a job requests: the resource (a symbol of
/// [`JobSet::resources`](crate::jobs::JobSet::resources)) and its value, in 12 bytes (a
/// `(Sym, ResourceValue)` pair takes 24: a million-job file has six million requests, and each
/// byte of them is memory touched for the first time).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Request {
    /// The resource, with [`Request::TEXT`] set when the value is a text.
    sym: Sym,
    /// The number's bits (low word first), or the text's symbol in the first word. Two `u32`s,
    /// not a `u64`, so the request is aligned to 4 bytes and takes 12.
    bits: [u32; 2],
}

impl Request {
    /// The bit of `sym` that marks a text value.
    const TEXT: Sym = 1 << 31;

    /// A request of resource `sym` with `value`. The resource's symbol must be below 2^31 (a
    /// pool of resource names never holds two billion names).
    pub fn new(sym: Sym, value: ResourceValue) -> Request {
        let sym = sym.min(Request::TEXT - 1);
        match value {
            ResourceValue::Number(number) => {
                let b = number.to_bits();
                Request {
                    sym,
                    bits: [b as u32, (b >> 32) as u32],
                }
            }
            ResourceValue::Text(text) => Request {
                sym: sym | Request::TEXT,
                bits: [text, 0],
            },
        }
    }

    /// The resource requested.
    #[inline]
    pub fn sym(self) -> Sym {
        self.sym & !Request::TEXT
    }

    /// The value requested.
    #[inline]
    pub fn value(self) -> ResourceValue {
        if self.sym & Request::TEXT != 0 {
            ResourceValue::Text(self.bits[0])
        } else {
            let b = u64::from(self.bits[0]) | u64::from(self.bits[1]) << 32;
            ResourceValue::Number(f64::from_bits(b))
        }
    }
}

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
    pub(crate) fn from_letter(s: &str) -> JobState {
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

/// A PBS job id (`123.server`, `124[7].server`) held without a heap block when it is short,
/// as nearly every id is: a million jobs' ids were a million 32-byte allocations, each touched
/// fresh. Derefs to `&str`.
#[derive(Clone)]
pub struct JobId(IdRepr);

/// Most bytes of a [`ShortStr`] (with its length, 23 bytes: a [`JobId`] is 24 with its tag).
const INLINE_ID: usize = 22;

/// A string of at most [`INLINE_ID`] bytes held in place, without a heap block: a short job id,
/// or a user name the qstat reader keeps for its next batch (`raw::PendingName`).
pub(crate) type ShortStr = crate::mem::short_str::ShortStr<INLINE_ID>;

/// How a [`JobId`] holds its text.
#[derive(Clone)]
enum IdRepr {
    /// An id of up to [`INLINE_ID`] bytes.
    Inline(ShortStr),
    /// A longer id.
    Heap(Box<str>),
}

impl JobId {
    /// The id `id`.
    #[inline]
    pub fn new(id: &str) -> JobId {
        match ShortStr::new(id) {
            Some(short) => JobId(IdRepr::Inline(short)),
            None => JobId(IdRepr::Heap(id.into())),
        }
    }

    /// The id's text.
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            IdRepr::Inline(short) => short.as_str(),
            IdRepr::Heap(s) => s,
        }
    }

    /// The id's bytes, for comparisons (the order of the bytes is the order of the text).
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            IdRepr::Inline(short) => short.as_bytes(),
            IdRepr::Heap(s) => s.as_bytes(),
        }
    }
}

impl Default for JobId {
    fn default() -> Self {
        JobId::new("")
    }
}

impl std::ops::Deref for JobId {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for JobId {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for JobId {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for JobId {
    fn from(id: &str) -> Self {
        JobId::new(id)
    }
}

impl From<String> for JobId {
    fn from(id: String) -> Self {
        JobId::new(&id)
    }
}

impl From<&String> for JobId {
    fn from(id: &String) -> Self {
        JobId::new(id)
    }
}

impl From<&JobId> for String {
    fn from(id: &JobId) -> Self {
        id.as_str().to_string()
    }
}

impl std::fmt::Debug for JobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for JobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self.as_str(), f)
    }
}

impl PartialEq for JobId {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for JobId {}

impl PartialOrd for JobId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for JobId {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl std::hash::Hash for JobId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl PartialEq<str> for JobId {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for JobId {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<String> for JobId {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<JobId> for str {
    fn eq(&self, other: &JobId) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<JobId> for &str {
    fn eq(&self, other: &JobId) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<JobId> for String {
    fn eq(&self, other: &JobId) -> bool {
        self.as_str() == other.as_str()
    }
}

/// One job, in 96 bytes with no heap block of its own (128 bytes and a 32-byte id allocation
/// before): each byte of a 10-million-job read is memory touched for the first time.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The full job id (`123.server`, `124[].server`).
    pub id: JobId,
    /// The id's sequence number (`123` of `123.server`), `u64::MAX` if it has none.
    pub seq: u64,
    /// `Priority` (`qsub -p`): the `job_priority` keyword.
    pub priority: i64,
    /// `qtime` as seconds since the epoch: submission order.
    pub qtime: i64,
    /// `eligible_time` in seconds: the `eligible_time` keyword.
    pub eligible_time: f64,
    /// `accrue_type` (0 initial, 1 ineligible, 2 eligible, 3 running, 4 exit).
    pub accrue_type: i64,
    /// `euser` (the owner's user name when qstat does not print it).
    pub euser: Sym,
    /// `egroup` (empty when unknown).
    pub egroup: Sym,
    /// `queue`.
    pub queue: Sym,
    /// `Account_Name`, or [`NO_ACCOUNT`]: see [`account`](Job::account).
    pub(crate) account: Sym,
    /// The array index of a subjob, [`NO_INDEX`], or [`WIDE_INDEX`]: see
    /// [`array_index`](Job::array_index).
    pub(crate) index: u32,
    /// `job_state`.
    pub state: JobState,
    /// Start of this job's run of [`JobSet::requests`](crate::jobs::JobSet::requests).
    pub(crate) requests_start: u32,
    /// Length of that run.
    pub(crate) requests_len: u32,
}

/// [`Job::account`] when the job has none (a name pool never holds four billion names).
const NO_ACCOUNT: Sym = Sym::MAX;
/// The stored array index of a job that is not a subjob.
const NO_INDEX: u32 = u32::MAX;
/// The stored array index of a subjob whose index does not fit below [`WIDE_INDEX`]: it is
/// read from the id again.
const WIDE_INDEX: u32 = u32::MAX - 1;

impl Job {
    /// A job with no id, no names and no requests: the filler a merge moves jobs over, and the
    /// base tests build their jobs from.
    pub fn blank() -> Job {
        Job {
            id: JobId::default(),
            seq: 0,
            priority: 0,
            qtime: 0,
            eligible_time: 0.0,
            accrue_type: 0,
            euser: 0,
            egroup: 0,
            queue: 0,
            account: NO_ACCOUNT,
            index: NO_INDEX,
            state: JobState::Queued,
            requests_start: 0,
            requests_len: 0,
        }
    }

    /// A blank job with id `id`, and the sequence number and array index read from it.
    pub fn with_id(id: &str) -> Job {
        let (seq, index) = id_sequence(id);
        let mut job = Job {
            id: JobId::new(id),
            seq,
            ..Job::blank()
        };
        job.index = match index {
            None => NO_INDEX,
            Some(i) => u32::try_from(i)
                .ok()
                .filter(|&i| i < WIDE_INDEX)
                .unwrap_or(WIDE_INDEX),
        };
        job
    }

    /// Sets the id and the array index read from it, keeping the sequence number (tests build
    /// jobs whose sequence numbers are not their ids').
    #[cfg(test)]
    pub(crate) fn set_id(&mut self, id: &str) {
        let j = Job::with_id(id);
        (self.id, self.index) = (j.id, j.index);
    }

    /// The array index of a subjob (`124[7].server` → 7), read from the id.
    #[inline]
    pub fn array_index(&self) -> Option<u64> {
        match self.index {
            NO_INDEX => None,
            WIDE_INDEX => id_sequence(&self.id).1,
            i => Some(u64::from(i)),
        }
    }

    /// `Account_Name`, when set.
    #[inline]
    pub fn account(&self) -> Option<Sym> {
        (self.account != NO_ACCOUNT).then_some(self.account)
    }

    /// Sets `Account_Name` (a symbol below `Sym::MAX`).
    #[inline]
    pub fn set_account(&mut self, account: Option<Sym>) {
        self.account = account.unwrap_or(NO_ACCOUNT);
    }

    /// `Resource_List`: this job's run of
    /// [`JobSet::requests`](crate::jobs::JobSet::requests) (one vector for all jobs, so reading a
    /// million jobs allocates no vector per job).
    #[inline]
    pub fn requests(&self) -> std::ops::Range<usize> {
        let start = self.requests_start as usize;
        start..start + self.requests_len as usize
    }

    /// Sets [`requests`](Job::requests); `None` (and nothing set) when the run does not fit in
    /// 32-bit positions (four billion requests: never in a file that fits in memory).
    #[inline]
    pub fn set_requests(&mut self, run: std::ops::Range<usize>) -> Option<()> {
        let start = u32::try_from(run.start).ok()?;
        let len = u32::try_from(run.end.checked_sub(run.start)?).ok()?;
        (self.requests_start, self.requests_len) = (start, len);
        Some(())
    }
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
    fn requests_are_12_bytes_and_keep_their_value() {
        assert_eq!(std::mem::size_of::<Request>(), 12);
        for v in [
            ResourceValue::Number(-0.0),
            ResourceValue::Number(0.0),
            ResourceValue::Number(f64::NAN),
            ResourceValue::Number(f64::from_bits(0x7ff8_0000_dead_beef)),
            ResourceValue::Number(f64::INFINITY),
            ResourceValue::Number(f64::MIN_POSITIVE / 2.0),
            ResourceValue::Number(f64::MAX),
            ResourceValue::Number(4.0),
            ResourceValue::Number(1e-300),
            ResourceValue::Text(0),
            ResourceValue::Text(7),
            ResourceValue::Text(Sym::MAX),
        ] {
            for sym in [0, 3, (1 << 31) - 1] {
                let r = Request::new(sym, v);
                assert_eq!(r.sym(), sym);
                match (r.value(), v) {
                    (ResourceValue::Number(a), ResourceValue::Number(b)) => {
                        assert_eq!(a.to_bits(), b.to_bits())
                    }
                    (a, b) => assert_eq!(a, b),
                }
            }
        }
        // A resource symbol of 2^31 or more is clamped (never met: the pool is that large).
        assert_eq!(
            Request::new(Sym::MAX, ResourceValue::Text(1)).sym(),
            (1 << 31) - 1
        );
    }

    #[test]
    fn job_ids_hold_their_text_inline_or_on_the_heap() {
        assert_eq!(std::mem::size_of::<JobId>(), 24);
        let long = "1234567890[1234567].a-long-server-name.example.org";
        for id in [
            "",
            "1.s",
            "é.ü",
            "1234567890123456789012",
            "12345678901234567890123",
            long,
        ] {
            let j = JobId::new(id);
            assert_eq!(j.as_str(), id);
            assert_eq!(&*j, id);
            assert_eq!(j, id);
            assert_eq!(j, JobId::from(id.to_string()));
            assert_eq!(j.clone(), j);
            assert_eq!(format!("{j}"), id);
            assert_eq!(format!("{j:?}"), format!("{id:?}"));
            assert_eq!(String::from(&j), id);
        }
        assert!(matches!(
            JobId::new("1234567890123456789012").0,
            IdRepr::Inline(_)
        ));
        assert!(matches!(
            JobId::new("12345678901234567890123").0,
            IdRepr::Heap(_)
        ));
        assert!(JobId::new("10.s") < JobId::new("9.s"), "ordered as text");
        assert_eq!(JobId::default(), "");
    }

    #[test]
    fn a_job_is_96_bytes_and_keeps_every_field() {
        assert_eq!(std::mem::size_of::<Job>(), 96);
        for (id, seq, index) in [
            ("123.server", 123, None),
            ("124[7].server", 124, Some(7)),
            ("124[].server", 124, None),
            ("5[4294967293].s", 5, Some(4_294_967_293)),
            ("5[4294967294].s", 5, Some(4_294_967_294)),
            ("5[4294967295].s", 5, Some(4_294_967_295)),
            ("5[18446744073709551615].s", 5, Some(u64::MAX)),
            ("J1", u64::MAX, None),
        ] {
            let j = Job::with_id(id);
            assert_eq!((j.id.as_str(), j.seq, j.array_index()), (id, seq, index));
        }
        let mut j = Job::blank();
        assert_eq!((j.account(), j.requests()), (None, 0..0));
        for account in [Some(0), Some(Sym::MAX - 1), None] {
            j.set_account(account);
            assert_eq!(j.account(), account);
        }
        for run in [
            0..0,
            5..11,
            0..u32::MAX as usize,
            (u32::MAX as usize)..(u32::MAX as usize),
        ] {
            assert_eq!(j.set_requests(run.clone()), Some(()));
            assert_eq!(j.requests(), run);
        }
        let before = j.clone();
        assert_eq!(j.set_requests(0..u32::MAX as usize + 1), None);
        assert_eq!(
            j.set_requests(u32::MAX as usize + 1..u32::MAX as usize + 2),
            None
        );
        assert_eq!(
            j.requests(),
            before.requests(),
            "a run that does not fit changes nothing"
        );
    }

    #[test]
    fn states() {
        assert!(JobState::from_letter("Q").is_runnable());
        assert!(!JobState::from_letter("R").is_runnable());
        assert_eq!(JobState::from_letter("W").letter(), 'W');
    }
}
